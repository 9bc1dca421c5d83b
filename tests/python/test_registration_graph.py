"""gb.introspect.ops and gb.introspect.sources: the registration table and graph of glassbox's own
operators, joined from this process's registry and the build's sources (libclang)."""
import os

import pytest

import glassbox as gb

gi = pytest.importorskip("glassbox._introspect")

BUILD = os.environ.get("GLASSBOX_BUILD_DIR", "")
ADD_UNITS = r"generated/glassbox/ops/Register(Schema|CPU|Meta)\.cpp$|engine/cpu/binary_kernels\.cpp$"
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
    view = gb.introspect.ops(op=r"^glassbox::add\.Tensor$", build_dir=BUILD, units=ADD_UNITS, jobs=2)
    assert view.errors == []
    assert view.sources_used == ["registry", "sources", "file_api"]
    cpu = [r for r in view.rows if r["key"] == "CPU"][0]
    assert cpu["kernel"] == "glassbox::native::add_cpu"
    assert cpu["kernel_at"].startswith("engine/cpu/binary_kernels.cpp:")
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
    scanned, registered = f'{add[0]["file"]}:{add[0]["line"]}', cpu["registered_at"]
    assert scanned == registered or scanned.endswith("/" + registered) or registered.endswith("/" + scanned)


def test_bad_registry_text_is_reported():
    with pytest.raises(Exception, match="glassbox-registry"):
        gb.introspect.ops(registry='{"format": "something else"}')
