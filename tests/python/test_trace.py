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
    A = gb.tensor([[2.0, 3.0], [1.0, 4.0]], requires_grad=True)
    x = gb.tensor([[6.0], [-5.0]], requires_grad=True)
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
    top = [(e.kind, e.op, e.key) for e in events if e.depth == 0]
    # The forward: matmul (a math kernel at AutogradCPU) then sum, both entering at AutogradCPU ...
    assert top[:2] == [("call", "glassbox::matmul", "AutogradCPU"), ("call", "glassbox::sum", "AutogradCPU")]
    # ... and reaching CPU kernels below: matmul through mm, sum by redispatch.
    assert [(e.op, e.key, e.depth) for e in events[1:5]] == [
        ("glassbox::mm", "AutogradCPU", 1),
        ("glassbox::mm", "CPU", 2),
        ("glassbox::sum", "AutogradCPU", 0),
        ("glassbox::sum", "CPU", 1),
    ]
    assert events[2].kind == events[4].kind == "redispatch"
    # The backward, after the forward, with autograd off: sum's gradient is ones expanded, matmul's
    # two matrix products with transposes, and the gradients are accumulated (cloned) into .grad.
    backward = top[2:]
    assert backward and all(key == "CPU" for _, _, key in backward)
    ops = [op for _, op, _ in backward]
    assert "glassbox::expand" in ops and ops.count("glassbox::mm") == 2 and "glassbox::t" in ops
    assert ops.index("glassbox::expand") < ops.index("glassbox::mm")
    # Every event names its kernel and where it was registered.
    assert events[0].kernel == "math kernel" and events[1].kernel == "autograd kernel"
    assert events[2].kernel == "kernel" and "RegisterCPU.cpp:" in events[2].registered_at
    for e in events:
        assert e.kind in ("call", "redispatch") and e.kernel not in ("", "missing"), e
        assert e.registered_at, e


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
    assert [e.op for e in outer.events] == (
        ["glassbox::add.Tensor"] * 2 + ["glassbox::mul.Tensor"] * 2 + ["glassbox::sub.Tensor"] * 2
    )
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
