"""gb.registry from Python: dumps, JSON, schemas, and errors as Python exceptions."""

import ctypes
import json
import os

import pytest

import glassbox as gb


def test_dispatch_keys_in_priority_order():
    keys = gb.registry.dispatch_keys()
    assert keys[:7] == ["CPU", "CUDA", "Meta", "AutogradCPU", "AutogradCUDA", "Trace", "Python"]
    assert "CompositeImplicitAutograd" in keys


def test_parse_schema_round_trips_and_points_at_errors():
    s = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
    assert gb.registry.parse_schema(s) == s
    with pytest.raises(RuntimeError) as err:
        gb.registry.parse_schema("add(Tensor self Tensor other) -> Tensor")
    text = str(err.value)
    assert text.startswith("schema error at column 17:")
    caret_line = text.splitlines()[-1]
    assert caret_line.index("^") == 2 + 16


def test_importing_glassbox_loads_its_operators():
    # The operator libraries are loaded by import glassbox even though nothing calls into them yet.
    ops = gb.registry.operators()
    assert "glassbox::add.Tensor" in ops
    assert "glassbox::empty.memory_format" in ops
    table = gb.registry.dump_table("glassbox::add.Tensor")
    assert "CPU: registered at " in table and "RegisterCPU.cpp" in table


def test_json_holds_builtin_fallbacks():
    info = gb.registry.info()
    assert info["format"] == "glassbox-registry"
    fallbacks = {f["key"]: f for f in info["fallbacks"]}
    assert fallbacks["AutogradCPU"]["fallthrough"] is True
    assert fallbacks["AutogradCPU"]["registered_at"].startswith("registry/builtin_fallbacks.cpp:")
    assert json.loads(gb.registry.to_json(indent=0)) == info
    assert "fallback: fallthrough registered at registry/builtin_fallbacks.cpp:" in gb.registry.registrations(
        "AutogradCPU"
    )


def test_unknown_operator_and_key_raise_with_the_cpp_text():
    with pytest.raises(RuntimeError, match="could not find the schema of operator nope::missing"):
        gb.registry.dump("nope::missing")
    with pytest.raises(RuntimeError, match="unknown dispatch key 'GPU'"):
        gb.registry.registrations("GPU")


@pytest.mark.skipif(
    "GLASSBOX_TEST_LIBRARY" not in os.environ, reason="the dlopen test library is built with the C++ tests"
)
def test_a_loaded_library_shows_up_with_file_and_line():
    assert "t_dl::triple" not in gb.registry.operators()
    ctypes.CDLL(os.environ["GLASSBOX_TEST_LIBRARY"], mode=ctypes.RTLD_LOCAL)
    assert "t_dl::triple" in gb.registry.operators()
    text = gb.registry.dump("t_dl::triple")
    assert "schema: t_dl::triple(Tensor x, int n) -> int" in text
    assert "defined at tests/cpp/registry/dlopen_test_library.cpp:8" in text
    table = gb.registry.dump_table("t_dl::triple").splitlines()
    assert table[0] == "CPU: registered at tests/cpp/registry/dlopen_test_library.cpp:9 [kernel]"
    assert table[1] == "CUDA: [missing]"
    assert table[3].startswith("AutogradCPU: fallthrough registered at registry/builtin_fallbacks.cpp:")
    op = gb.registry.operator_info("t_dl::triple")
    assert op["schema"] == "t_dl::triple(Tensor x, int n) -> int"
    assert [k["key"] for k in op["kernels"]] == ["CPU"]
    assert gb.registry.warnings() == []


def test_cuda_library_answers_without_a_gpu():
    n = gb._C._cuda.device_count()
    assert n >= 0
    assert isinstance(gb._C._cuda.describe(), str)
