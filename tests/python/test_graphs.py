"""gb.graphs.autograd_graph: the walk from grad_fn along next_functions, the DOT text, rendering."""

import shutil

import pytest

import glassbox as gb


def hello_graph():
    A = gb.tensor([[2.0, 3.0], [1.0, 4.0]], requires_grad=True)
    x = gb.tensor([[6.0], [-5.0]], requires_grad=True)
    z = (A @ x).sum()
    return z, A, x


def names_of(g, kind):
    return sorted(n.name for n in g.nodes if n.kind == kind)


def test_walks_from_grad_fn_to_the_leaves():
    z, A, x = hello_graph()
    g = gb.graphs.autograd_graph(z)
    assert names_of(g, "root") == ["output 0"]
    assert names_of(g, "node") == ["MmBackward0", "SumBackward0"]
    assert names_of(g, "accumulate") == ["AccumulateGrad", "AccumulateGrad"]
    ids = {n.name: n.id for n in g.nodes if n.kind != "accumulate"}
    pairs = {(e.source, e.target) for e in g.edges}
    assert (ids["output 0"], ids["SumBackward0"]) in pairs
    assert (ids["SumBackward0"], ids["MmBackward0"]) in pairs
    mm_edges = sorted((e.index, e.input_nr) for e in g.edges if e.source == ids["MmBackward0"])
    assert mm_edges == [(0, 0), (1, 0)]
    assert len(g.edges) == 4
    assert g.node("MmBackward0").sequence_nr < g.node("SumBackward0").sequence_nr


def test_a_node_reached_twice_appears_once():
    t = gb.tensor([1.0, 2.0], requires_grad=True)
    s = t.sigmoid()
    u = (s * s + s).sum()  # s feeds two operations; t has one AccumulateGrad
    g = gb.graphs.autograd_graph(u)
    assert names_of(g, "node").count("SigmoidBackward0") == 1
    assert names_of(g, "accumulate") == ["AccumulateGrad"]
    sig = g.node("SigmoidBackward0").id
    assert sum(1 for e in g.edges if e.target == sig) == 3  # from MulBackward0 twice, from AddBackward0 once


def test_inputs_that_do_not_require_grad_have_no_edge():
    w = gb.tensor([0.8], requires_grad=True)
    out = (w * gb.tensor([2.0])).sum()
    g = gb.graphs.autograd_graph(out)
    mul = g.node("MulBackward0").id
    assert [e.index for e in g.edges if e.source == mul] == [0]


def test_names_label_leaves_and_intermediate_tensors():
    z, A, x = hello_graph()
    y = z.grad_fn.next_functions[0][0]
    assert y.name() == "MmBackward0"
    g = gb.graphs.autograd_graph(z, names={"A": A, "x": x, "z": z})
    labels = {n.label for n in g.nodes if n.kind == "accumulate"}
    assert labels == {"AccumulateGrad\nA (2, 2)", "AccumulateGrad\nx (2, 1)"}
    assert g.node("SumBackward0").label.startswith("SumBackward0\nz ()\nsequence_nr=")
    # the leaf named A is the first input of the matrix product
    mm = g.node("MmBackward0").id
    first = [e.target for e in g.edges if e.source == mm and e.index == 0][0]
    assert [n.label for n in g.nodes if n.id == first] == ["AccumulateGrad\nA (2, 2)"]


def test_several_outputs():
    t = gb.tensor([1.0, 2.0], requires_grad=True)
    a, b = t.exp(), t.sin()
    g = gb.graphs.autograd_graph([a, b])
    assert names_of(g, "root") == ["output 0", "output 1"]
    assert names_of(g, "accumulate") == ["AccumulateGrad"]


def test_dot_text():
    z, A, x = hello_graph()
    dot = gb.graphs.autograd_graph(z, names={"A": A}, title='hello "graph"').dot()
    assert dot.startswith("digraph autograd {") and dot.rstrip().endswith("}")
    assert 'label="MmBackward0\\nsequence_nr=' in dot
    assert 'label="AccumulateGrad\\nA (2, 2)"' in dot
    assert 'label="hello \\"graph\\""' in dot
    assert dot.count("->") == 4
    assert '[label="1"]' in dot  # the matrix product's second input is numbered


def test_bad_input_is_named():
    leaf = gb.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="has no grad_fn \\(it is a leaf\\)"):
        gb.graphs.autograd_graph(leaf)
    with pytest.raises(ValueError, match="does not require grad"):
        gb.graphs.autograd_graph(gb.tensor([1.0]) + 1)
    with pytest.raises(TypeError, match="takes tensors, got list at position 0"):
        gb.graphs.autograd_graph([[leaf]])
    with pytest.raises(ValueError, match="at least one tensor"):
        gb.graphs.autograd_graph([])
    with pytest.raises(ValueError, match=r"names\['c'\] does not require grad"):
        gb.graphs.autograd_graph(leaf * 2, names={"c": gb.tensor([1.0])})
    with pytest.raises(KeyError, match="no node named 'Nope'"):
        gb.graphs.autograd_graph(leaf * 2).node("Nope")


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_through_graphviz(tmp_path):
    z, A, x = hello_graph()
    g = gb.graphs.autograd_graph(z, names={"A": A, "x": x})
    svg = g.svg()
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    assert "MmBackward0" in svg and "A (2, 2)" in svg
    assert g._repr_svg_() == svg
    assert g.save(str(tmp_path / "g.svg")) == str(tmp_path / "g.svg")
    assert (tmp_path / "g.svg").read_text().count('<g id="node') == len(g.nodes)
    with pytest.raises(ValueError, match="use a .svg, .dot or .gv file"):
        g.save(str(tmp_path / "g.png"))


def test_svg_without_graphviz_says_so(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    g = gb.graphs.autograd_graph(hello_graph()[0])
    with pytest.raises(RuntimeError, match="needs Graphviz's `dot` program"):
        g.svg()
    assert g._repr_svg_() is None
    assert "digraph" in g.dot()
