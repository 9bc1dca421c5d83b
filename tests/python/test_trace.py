"""gb.trace(): the dispatch trace of a block as events and as text: the hello-world's calls in
order (AutogradCPU, then CPU, then the backward's operators), the same text as
GLASSBOX_DISPATCH_TRACE=1, nothing on stderr while capturing, nesting, and per-thread capture."""
import os
import subprocess
import sys
import threading

import pytest

import glassbox as gb

HELLO = """
import sys
import glassbox as gb
A = gb.tensor([[2., 3.], [1., 4.]], requires_grad=True)
x = gb.tensor([[6.], [-5.]], requires_grad=True)
sys.stderr.write("--- begin\\n"); sys.stderr.flush()
y = A @ x
z = y.sum()
z.backward()
sys.stderr.write("--- end\\n"); sys.stderr.flush()
"""


def hello_trace():
    A = gb.tensor([[2., 3.], [1., 4.]], requires_grad=True)
    x = gb.tensor([[6.], [-5.]], requires_grad=True)
    with gb.trace() as t:
        y = A @ x
        z = y.sum()
        z.backward()
    assert A.grad.tolist() == [[6.0, -5.0], [6.0, -5.0]]
    return t


def test_hello_world_events_in_order():
    t = hello_trace()
    events = t.events
    assert all(isinstance(e, gb.TraceEvent) for e in events)
    first = events[0]
    assert (first.kind, first.key, first.depth) == ("call", "AutogradCPU", 0)
    assert first.op.startswith("glassbox::matmul")
    ops = [e.op for e in events]
    # The forward: matmul then sum, each entering at AutogradCPU and reaching a CPU kernel below it.
    sum_at = next(i for i, e in enumerate(events) if e.op.startswith("glassbox::sum") and e.depth == 0)
    assert sum_at > 0 and events[sum_at].key == "AutogradCPU"
    for start, end in ((0, sum_at), (sum_at, sum_at + 1 + sum(1 for e in events[sum_at + 1:] if e.depth > 0))):
        block = events[start:end]
        assert any(e.key == "CPU" and e.depth >= 1 for e in block), block
    # The backward runs after the forward: sum's gradient is expanded, matmul's are matrix products.
    backward = events[sum_at + 1:]
    backward = [e for e in backward if not (e.op == events[sum_at].op and e.depth > 0)]
    assert backward, "no backward operators were traced"
    assert any(e.op.startswith("glassbox::mm") or e.op.startswith("glassbox::matmul") for e in backward)
    # Every call's kernel is known, with where it was registered.
    for e in events:
        assert e.kind in ("call", "redispatch")
        assert e.kernel and e.kernel != "missing", e
        if e.kernel != "fallthrough":
            assert e.registered_at, e
    # Each redispatch is one level below a call (or redispatch) of the same operator.
    for i, e in enumerate(events):
        if e.kind == "redispatch":
            parent = next(p for p in reversed(events[:i]) if p.depth == e.depth - 1)
            assert parent.op == e.op
    assert "AutogradCPU" in {e.key for e in events} and "CPU" in {e.key for e in events}
    assert ops.count(first.op) >= 2


def test_text_is_what_the_environment_variable_prints():
    t = hello_trace()
    assert str(t) == t.text() == "".join(str(e) + "\n" for e in t.events)
    env = dict(os.environ, GLASSBOX_DISPATCH_TRACE="1")
    run = subprocess.run([sys.executable, "-c", HELLO], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    printed = run.stderr.split("--- begin\n", 1)[1].split("--- end\n", 1)[0]
    assert printed == t.text()


def test_nothing_is_printed_while_capturing(capfd):
    x = gb.ones(2)
    gb.registry.set_dispatch_trace(True)
    try:
        with gb.trace() as t:
            x + x
        assert "[call] op=[glassbox::add.Tensor]" in t.text()
        assert capfd.readouterr().err == ""
        x * x  # printing again once the capture ended
        assert "[call] op=[glassbox::mul.Tensor] key=[AutogradCPU]" in capfd.readouterr().err
    finally:
        gb.registry.set_dispatch_trace(False)


def test_traces_nest_and_end_in_order():
    x = gb.ones(2)
    with gb.trace() as outer:
        x + x
        with gb.trace() as inner:
            x * x
            assert [e.op for e in inner.events] == ["glassbox::mul.Tensor", "glassbox::mul.Tensor"]
        x - x
    assert [e.op for e in inner.events] == ["glassbox::mul.Tensor"] * 2
    assert [e.op for e in outer.events] == (["glassbox::add.Tensor"] * 2 + ["glassbox::mul.Tensor"] * 2 +
                                            ["glassbox::sub.Tensor"] * 2)
    x + x  # after the block: not recorded
    assert len(outer.events) == 6

    a, b = gb.trace(), gb.trace()
    a.__enter__()
    b.__enter__()
    with pytest.raises(RuntimeError, match="reverse order"):
        a.__exit__(None, None, None)
    b.__exit__(None, None, None)
    a.__exit__(None, None, None)
    with pytest.raises(RuntimeError, match="captures once"):
        a.__enter__()


def test_a_trace_records_only_its_own_thread():
    x = gb.ones(2)
    done = []

    def other():
        x * x
        done.append(True)
    with gb.trace() as t:
        worker = threading.Thread(target=other)
        worker.start()
        worker.join()
        x + x
    assert done and [e.op for e in t.events] == ["glassbox::add.Tensor"] * 2
