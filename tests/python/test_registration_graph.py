"""gb.introspect.ops and gb.introspect.sources: the registration table and graph of glassbox's own
operators, joined from this process's registry and the build's sources (libclang)."""

import os
import re

import pytest

import glassbox as gb

gi = pytest.importorskip("glassbox._introspect")

BUILD = os.environ.get("GLASSBOX_BUILD_DIR", "")
ADD_UNITS = r"generated/glassbox/ops/Register(Schema|CPU|Meta)\.cpp$|generated/glassbox/ops/StructuredCPU\.cpp$"
needs_scan = pytest.mark.skipif(not BUILD or not gi.source_scan_available(), reason="needs a build with libclang")


def test_registry_only_rows_and_graph():
    view = gb.introspect.ops(op=r"^glassbox::add\.Tensor$")
    assert view.sources_used == ["registry"]
    keys = {r["key"] for r in view.rows}
    assert "CPU" in keys and all(r["operator"] == "glassbox::add.Tensor" for r in view.rows)
    cpu = [r for r in view.rows if r["key"] == "CPU"][0]
    assert "RegisterCPU.cpp:" in cpu["registered_at"] and cpu["found_in"] == "registry"
    assert "op:glassbox::add.Tensor" in view.graph
    assert "glassbox::add.Tensor" in repr(view) and "agreement" in view.table


@needs_scan
def test_ops_with_sources_agree_and_render():
    view = gb.introspect.ops(op=r"^glassbox::add\.Tensor$", build_dir=BUILD, units=ADD_UNITS, jobs=2, binaries=[])
    assert view.errors == []
    assert view.sources_used == ["registry", "sources", "file_api"]
    cpu = [r for r in view.rows if r["key"] == "CPU"][0]
    assert cpu["kernel"] == "glassbox::native::add_cpu"
    assert re.search(r"generated/glassbox/ops/StructuredCPU\.cpp:\d+$", cpu["kernel_at"]), cpu["kernel_at"]
    assert cpu["library"] == "lib/libglassbox_cpu.so" and cpu["target"] == "glassbox_cpu"
    assert cpu["agreement"] == "ok" and view.disagreements == []
    edges = {(e["from"], e["to"], e["kind"]) for e in view.graph.edges}
    assert ("key:glassbox::add.Tensor:CPU", "kernel:glassbox::native::add_cpu", "dispatches_to") in edges
    assert ("lib:lib/libglassbox_cpu.so", "target:glassbox_cpu", "depends") in edges
    assert "key:glassbox::add.Tensor:CPU" in view.graph.to_dot()
    if gi.rendering_available():
        svg = view._repr_svg_()
        assert svg.startswith("<?xml") or "<svg" in svg
        assert "add_cpu" in svg


@needs_scan
def test_sources_of_the_cpu_registrations():
    scan = gb.introspect.sources(BUILD, units=r"generated/glassbox/ops/RegisterCPU\.cpp$", jobs=1)
    assert scan["errors"] == []
    add = [r for r in scan["registrations"] if r["operator"] == "glassbox::add.Tensor"]
    assert len(add) == 1 and add[0]["dispatch_key"] == "CPU" and add[0]["yaml_file"] == "engine/ops/ops.yaml"
    registry = gb.registry.operator_info("glassbox::add.Tensor")
    cpu = [k for k in registry["kernels"] if k["key"] == "CPU"][0]
    # __FILE__ is spelled relative to where the compiler ran: the registry's path is a suffix.
    scanned, registered = f"{add[0]['file']}:{add[0]['line']}", cpu["registered_at"]
    assert scanned == registered or scanned.endswith("/" + registered) or registered.endswith("/" + scanned)


def test_bad_registry_text_is_reported():
    with pytest.raises(Exception, match="glassbox-registry"):
        gb.introspect.ops(registry='{"format": "something else"}')


def _same_site(a, b):
    """file:line spelled from different directories (the registry's __FILE__ may be relative to the
    build directory, DWARF's absolute): one path is a suffix of the other."""
    a, b = (re.sub(r"^(\.\.?/)+", "", x) for x in (a, b))
    return bool(a) and (a == b or a.endswith("/" + b) or b.endswith("/" + a))


def _yaml_line(op):
    with open(os.path.join(os.path.dirname(__file__), "..", "..", "engine", "ops", "ops.yaml")) as f:
        for n, line in enumerate(f, 1):
            if line.startswith(f"- func: {op}("):
                return n
    raise AssertionError(f"{op} is not in ops.yaml")


@needs_scan
def test_ops_with_the_binaries_of_the_build():
    # By default the build's engine libraries are read: their blocks place each registration.
    view = gb.introspect.ops(op=r"^glassbox::add\.Tensor$", build_dir=BUILD, units=ADD_UNITS, jobs=2)
    assert view.sources_used == ["registry", "sources", "binary", "file_api"]
    assert view.disagreements == [] and view.notes == []
    cpu = [r for r in view.rows if r["key"] == "CPU"][0]
    assert cpu["found_in"] == "registry,sources,binary"
    assert _same_site(cpu["registry_at"], cpu["sources_at"]) and _same_site(cpu["binary_at"], cpu["sources_at"])
    assert cpu["library"] == "lib/libglassbox_cpu.so"
    [schema] = view.schemas
    assert schema["operator"] == "glassbox::add.Tensor" and schema["key"] == "def"
    assert schema["schema_at"] == f"engine/ops/ops.yaml:{_yaml_line('add.Tensor')}"
    assert schema["found_in"] == "registry,sources,binary" and schema["agreement"] == "ok"
    assert "2 schemas" not in repr(view) and "1 schemas" in repr(view)


def test_key_filter_keeps_what_fills_the_slot():
    view = gb.introspect.ops(op=r"^glassbox::add\.Tensor$", key="AutogradCPU")
    assert [r["key"] for r in view.rows] == ["Autograd"]
    assert "AutogradCPU" in view.rows[0]["serves"].split(",")
    assert {n["id"] for n in view.graph.nodes if n["kind"] == "dispatch_key"} == {"key:glassbox::add.Tensor:Autograd"}
    assert [r["key"] for r in gb.introspect.ops(op=r"^glassbox::add\.Tensor$", key="CPU").rows] == ["CPU"]
    with pytest.raises(gb.introspect.IntrospectError, match=r'dispatch key "Cpu" \(keys registered: .*CPU'):
        gb.introspect.ops(key="Cpu")


def test_binaries_given_by_name():
    lib = os.environ.get("GLASSBOX_TEST_LIBRARY")
    if not lib or not BUILD:
        pytest.skip("needs the dlopen test library of a build")
    view = gb.introspect.ops(op="^glassbox::add\\.Tensor$", binaries=[lib])
    assert "binary" in view.sources_used
    with pytest.raises(gb.introspect.IntrospectError, match="no-such-library.so"):
        gb.introspect.ops(binaries=["/nonexistent/no-such-library.so"])


def test_graph_formats():
    view = gb.introspect.ops(op=r"^glassbox::matmul$")
    data = view.graph.to_dict()
    ids = {n["id"] for n in data["nodes"]}
    assert "op:glassbox::matmul" in ids and "schema:glassbox::matmul" in ids
    assert "key:glassbox::matmul:CompositeImplicitAutograd" in ids
    assert "digraph" in view.graph.to_dot()
    if gi.rendering_available():
        assert view.graph.to_png()[:8] == b"\x89PNG\r\n\x1a\n"
