"""C++ operators outside the tree: the CMake package (find_package(glassbox)) from the build tree and
from `cmake --install`, and gb.utils.cpp_extension building, loading, rebuilding and reporting
errors; the loaded operators are called, differentiated, traced and found in the registry."""

import ctypes
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

import glassbox as gb
from gradcheck import gradcheck

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
pytestmark = pytest.mark.skipif(not (shutil.which("cmake") and shutil.which("ninja")), reason="needs cmake and ninja")


def cmake_build(source, build, prefix):
    for command in (
        ["cmake", "-S", str(source), "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}"],
        ["cmake", "--build", str(build)],
    ):
        run = subprocess.run(command, capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr


EXPECTED_APP_OUTPUT = """y = tensor([[3., 3., 3.],
        [3., 3., 3.]])
z = tensor(72.)
dz/dx = tensor([[12., 12., 12.],
        [12., 12., 12.]])
"""


def test_a_program_builds_against_the_build_tree(tmp_path):
    cmake_build(EXAMPLES / "cpp_app", tmp_path / "app", gb.utils.cmake_prefix_path)
    run = subprocess.run([str(tmp_path / "app" / "glassbox_app")], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout == EXPECTED_APP_OUTPUT


def test_a_program_builds_against_the_installed_package(tmp_path):
    prefix = tmp_path / "prefix"
    run = subprocess.run(
        ["cmake", "--install", gb.paths.build_dir(), "--prefix", str(prefix)], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    config = prefix / "glassbox" / "share" / "cmake" / "glassbox" / "glassboxConfig.cmake"
    assert config.is_file() and (prefix / "glassbox" / "include" / "glassbox" / "glassbox.h").is_file()
    cmake_build(EXAMPLES / "cpp_app", tmp_path / "app", prefix)
    flags = (tmp_path / "app" / "build.ninja").read_text()
    assert str(REPO) + "/engine" not in flags, "the installed package must not point back into the source tree"
    run = subprocess.run([str(tmp_path / "app" / "glassbox_app")], capture_output=True, text=True)
    assert run.stdout == EXPECTED_APP_OUTPUT, run.stderr
    shutil.rmtree(prefix)  # a few hundred MB of libraries with debug info


@pytest.fixture(scope="module")
def mul_add(tmp_path_factory):
    return gb.utils.cpp_extension.load(
        "mul_add",
        sources=[str(EXAMPLES / "extension" / "mul_add.cpp")],
        build_directory=str(tmp_path_factory.mktemp("ext")),
    )


def test_the_example_extension_computes_differentiates_and_is_registered(mul_add):
    assert mul_add.operators == ["myops::mul_add"]
    x, y, z = (gb.from_numpy(np.random.default_rng(i).standard_normal(5)) for i in range(3))
    got = mul_add.mul_add(x, y, z)
    np.testing.assert_allclose(np.asarray(got), np.asarray(x) * np.asarray(y) + np.asarray(z), rtol=1e-12)
    assert gradcheck(gb.ops.myops.mul_add, [np.random.default_rng(i).standard_normal(4) for i in range(3)]) == 12
    x.requires_grad_(True)
    assert gb.ops.myops.mul_add(x, y, z).grad_fn.name() == "MulAddBackward"
    meta = gb.ops.myops.mul_add(*(gb.empty(2, 3, device="meta") for _ in range(3)))
    assert str(meta.device) == "meta" and tuple(meta.shape) == (2, 3)
    dump = gb.registry.dump("myops::mul_add")
    for key in ("CPU: registered at", "Meta: registered at", "Autograd[alias]: registered at"):
        assert key in dump
    assert "mul_add.cpp:" in dump
    with gb.trace() as trace:
        gb.ops.myops.mul_add(x, y, z)
    assert "[call] op=[myops::mul_add] key=[AutogradCPU]" in str(trace)
    assert "[redispatch] op=[myops::mul_add] key=[CPU]" in str(trace)
    with pytest.raises(
        RuntimeError, match=r"myops::mul_add: x, y and z must have one shape, got \[5\], \[5\] and \[2\]"
    ):
        gb.ops.myops.mul_add(x, y, gb.ones(2, dtype=gb.float64))


def test_the_example_builds_as_a_cmake_project_and_loads(tmp_path, mul_add):
    cmake_build(EXAMPLES / "extension", tmp_path / "ext", gb.utils.cmake_prefix_path)
    library = tmp_path / "ext" / "libmul_add.so"
    assert library.is_file()
    # The same operator is already registered by the fixture: a second library defining it is refused,
    # with both registrations named.
    with pytest.raises(RuntimeError, match="myops"):
        gb.utils.cpp_extension.load_library(str(library))


INLINE = """
namespace {
glassbox::Tensor twice(const glassbox::Tensor& x) { return glassbox::mul(x, %s); }
}
GLASSBOX_LIBRARY(inline_ops, m) { m.def("twice(Tensor x) -> Tensor"); }
GLASSBOX_LIBRARY_IMPL(inline_ops, CompositeImplicitAutograd, m) { m.impl("twice", &twice); }
"""


def test_load_inline_builds_once_and_rebuilds_on_change(tmp_path):
    build = str(tmp_path / "inline")
    ext = gb.utils.cpp_extension.load_inline("inline_ops", cpp_sources=INLINE % "2.0", build_directory=build)
    np.testing.assert_array_equal(np.asarray(ext.twice(gb.ones(3))), [2.0] * 3)
    library = ext.__file__
    stamp = os.stat(library).st_mtime_ns
    again = gb.utils.cpp_extension.load_inline("inline_ops", cpp_sources=INLINE % "2.0", build_directory=build)
    assert again is ext and os.stat(library).st_mtime_ns == stamp, "an unchanged extension is not rebuilt"
    changed = gb.utils.cpp_extension.load_inline("inline_ops", cpp_sources=INLINE % "3.0", build_directory=build)
    np.testing.assert_array_equal(np.asarray(gb.ops.inline_ops.twice(gb.ones(2))), [3.0, 3.0])
    assert changed.operators == ["inline_ops::twice"]


SAME_SYMBOL = """
// Both extensions export this name; each must call its own.
extern "C" double glassbox_test_extension_factor() { return %s; }
namespace {
glassbox::Tensor scaled(const glassbox::Tensor& x) { return glassbox::mul(x, glassbox_test_extension_factor()); }
}
GLASSBOX_LIBRARY(%s, m) { m.def("scaled(Tensor x) -> Tensor"); }
GLASSBOX_LIBRARY_IMPL(%s, CompositeImplicitAutograd, m) { m.impl("scaled", &scaled); }
"""


def test_an_extension_does_not_bind_to_the_symbols_of_one_loaded_before(tmp_path):
    """Extensions load into their own scope: a name both export (an inline function of a header, a
    runtime linked in) resolves in each to its own definition, not to the first one loaded."""
    first = gb.utils.cpp_extension.load_inline(
        "scope_a_ops",
        cpp_sources=SAME_SYMBOL % ("2.0", "scope_a_ops", "scope_a_ops"),
        build_directory=str(tmp_path / "a"),
    )
    second = gb.utils.cpp_extension.load_inline(
        "scope_b_ops",
        cpp_sources=SAME_SYMBOL % ("5.0", "scope_b_ops", "scope_b_ops"),
        build_directory=str(tmp_path / "b"),
    )
    np.testing.assert_array_equal(np.asarray(first.scaled(gb.ones(2))), [2.0, 2.0])
    np.testing.assert_array_equal(np.asarray(second.scaled(gb.ones(2))), [5.0, 5.0])


def test_a_compile_error_shows_the_compiler_message_with_file_and_line(tmp_path):
    with pytest.raises(RuntimeError) as failure:
        gb.utils.cpp_extension.load_inline(
            "broken_ops", cpp_sources="int f() { return undefined_name; }", build_directory=str(tmp_path / "broken")
        )
    message = str(failure.value)
    assert "building extension 'broken_ops' failed" in message
    assert "main.cpp:2:" in message and "undefined_name" in message


def test_bad_arguments_are_named(tmp_path):
    with pytest.raises(ValueError, match="valid identifier"):
        gb.utils.cpp_extension.load("my-ops", sources=["x.cpp"])
    with pytest.raises(FileNotFoundError, match="does not exist"):
        gb.utils.cpp_extension.load("missing", sources=[str(tmp_path / "nope.cpp")], build_directory=str(tmp_path))


def test_the_tools_show_the_extension_with_its_lines(mul_add):
    try:
        cli = gb.paths.program("glassbox")
    except FileNotFoundError:
        pytest.skip("the glassbox CLI is not built (its libraries were not found)")
    symbols = subprocess.run([cli, "symbols", "--registrations", mul_add.__file__], capture_output=True, text=True)
    assert symbols.returncode == 0, symbols.stderr
    assert "4 registrations" in symbols.stdout and "mul_add.cpp:85" in symbols.stdout
    ops = subprocess.run([cli, "ops", "--load", mul_add.__file__], capture_output=True, text=True)
    assert ops.returncode == 0, ops.stderr
    rows = [line for line in ops.stdout.splitlines() if line.startswith("myops::mul_add")]
    assert len(rows) == 3 and all("mul_add.cpp:8" in row and mul_add.__file__ in row for row in rows)


def test_a_build_folder_kept_from_a_glassbox_build_since_deleted_is_configured_again(tmp_path, monkeypatch):
    """A cache folder outlives the checkout whose glassbox it was built against: building the same
    extension against another glassbox configures it again instead of failing on the gone one."""
    gone = tmp_path / "gone-prefix"
    shutil.copytree(pathlib.Path(gb.utils.cmake_prefix_path) / "glassbox", gone / "glassbox")
    source = tmp_path / "kept.cpp"
    source.write_text('extern "C" int kept_answer() { return 42; }\n')  # no glassbox header: a quick compile
    build = str(tmp_path / "kept")
    with monkeypatch.context() as patched:
        patched.setattr(gb.utils, "cmake_prefix_path", str(gone))
        gb.utils.cpp_extension.build("kept_ops", [str(source)], build_directory=build)
    assert str(gone) in (tmp_path / "kept" / "build" / "CMakeCache.txt").read_text()
    shutil.rmtree(gone)
    library = gb.utils.cpp_extension.build("kept_ops", [str(source)], build_directory=build)
    cache = (tmp_path / "kept" / "build" / "CMakeCache.txt").read_text()
    assert str(gone) not in cache and gb.utils.cmake_prefix_path in cache
    assert ctypes.CDLL(library).kept_answer() == 42
