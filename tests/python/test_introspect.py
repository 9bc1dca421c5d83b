"""gb.introspect from Python: readers, graphs and their rendering, on a fixture project this test
configures and builds (tests/cpp/introspect/fixtures/modules) with cmake and ninja from PATH."""

import json
import os
import shutil
import subprocess

import pytest

import glassbox as gb

pytest.importorskip("glassbox._introspect")

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(REPO, "tests", "cpp", "introspect", "fixtures", "modules")


@pytest.fixture(scope="module")
def build(tmp_path_factory):
    cmake, ninja = shutil.which("cmake"), shutil.which("ninja")
    if not cmake or not ninja:
        pytest.skip("cmake and ninja are needed to build the fixture project")
    build_dir = tmp_path_factory.mktemp("fixture") / "build"
    build_dir.mkdir()
    gb._introspect.write_file_api_query(str(build_dir))
    subprocess.run(
        [cmake, "-S", FIXTURE, "-B", str(build_dir), "-G", "Ninja", f"-DCMAKE_MAKE_PROGRAM={ninja}"],
        check=True,
        capture_output=True,
    )
    subprocess.run([cmake, "--build", str(build_dir)], check=True, capture_output=True)
    return build_dir


def test_importable_on_its_own():
    import glassbox.introspect as gi

    assert callable(gi.deps) and gi.Graph is gb.introspect.Graph


def test_compile_db(build):
    db = gb.introspect.compile_db(build)
    assert len(db) == 5
    core = [c for c in db.commands if c.file.endswith("src/core.cpp")][0]
    assert "FIXTURE_API=1" in core.defines
    assert core.output.endswith("CMakeFiles/core.dir/src/core.cpp.o")
    assert core.includes[0].path.endswith("fixtures/modules/include") and core.includes[0].kind == "user"
    assert db.find_source(core.file)[0].file == core.file


def test_file_api_targets(build):
    reply = gb.introspect.file_api(build)
    assert reply.codemodel_version[0] == 2 and reply.generator == "Ninja"
    by_name = {t.name: t for t in gb.introspect.targets(build)}
    assert set(by_name) == {"api", "app", "base", "core", "docs", "objects"}
    assert by_name["core"].type == "SHARED_LIBRARY"
    assert by_name["core"].artifacts == ["lib/libcore.so"]
    assert by_name["core"].defined_at.file == "CMakeLists.txt" and by_name["core"].defined_at.line > 0
    assert ("-lm", "libraries") in by_name["core"].link_fragments
    assert any(s.generated for s in by_name["base"].sources)
    assert "CMAKE_BUILD_TYPE" in reply.cache


def test_ninja_log_and_build_times(build):
    log = gb.introspect.ninja_log(build)
    assert log.version in (5, 6, 7)
    assert any(e.output == "lib/libcore.so" for e in log.entries)
    times = gb.introspect.build_times(build)
    assert times.steps and times.targets and times.critical_path
    assert {"outputs", "kind", "target", "duration_ms"} <= set(times.steps[0])
    assert json.loads(times.chrome_trace)["traceEvents"]


def test_deps_graph_nodes_edges_and_filters(build):
    g = gb.introspect.deps(build)
    assert "core" in g and "src/core.cpp" in g and "external:m" in g
    assert g.node("core")["label"] == "lib/libcore.so"
    links = {(e["from"], e["to"]) for e in g.edges if e["kind"] == "links"}
    # Direct link edges, as target_link_libraries wrote them (the interface target api included).
    assert links == {
        ("app", "core"),
        ("app", "api"),
        ("core", "base"),
        ("core", "objects"),
        ("core", "external:m"),
        ("base", "api"),
        ("objects", "api"),
    }
    depends = {(e["from"], e["to"]) for e in g.edges if e["kind"] == "depends"}
    assert ("app", "core") not in depends  # repeats a link edge
    assert "docs" not in g  # a custom (utility) target: hidden by default
    small = gb.introspect.deps(build, targets_only=True, no_system=True, root="app", depth=1)
    assert {n["id"] for n in small.nodes} == {"app", "core", "api"}
    assert len(g.filter(collapse_sources=True)) < len(g)
    with pytest.raises(TypeError):
        gb.introspect.deps(build, bogus=True)


def test_graph_outputs(build, tmp_path):
    g = gb.introspect.deps(build, cluster=True)
    assert g.to_dot().startswith("//") or "digraph" in g.to_dot()
    assert len(json.loads(g.to_json())["nodes"]) == len(g)
    if not gb._introspect.rendering_available():
        pytest.skip("built without Graphviz")
    svg = g._repr_svg_()
    assert svg.lstrip().startswith("<?xml") or "<svg" in svg
    png = g.save(tmp_path / "deps.png")
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"
    assert os.path.getsize(g.save(tmp_path / "deps.dot")) > 0


def test_includes(build):
    g = gb.introspect.includes(build, source="src/core.cpp", no_system=True)
    assert {n["id"] for n in g.nodes} == {"src/core.cpp", "include/api.h"}


def test_errors_name_the_problem(tmp_path):
    with pytest.raises(gb.introspect.IntrospectError, match="no CMake File API reply"):
        gb.introspect.deps(tmp_path)
    (tmp_path / ".ninja_log").write_text("# ninja log v3\n")
    with pytest.raises(gb.introspect.IntrospectError, match="unsupported .ninja_log version 3"):
        gb.introspect.ninja_log(tmp_path)
    (tmp_path / "compile_commands.json").write_text('[{"directory": "/x", ')
    with pytest.raises(gb.introspect.IntrospectError, match="truncated JSON"):
        gb.introspect.compile_db(tmp_path)
