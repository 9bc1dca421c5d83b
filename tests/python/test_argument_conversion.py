"""Ints past int64 as arguments raise PyTorch's exception classes, never SystemError: ValueError
for an `int` (or `int[N]` given one int) such as a dim, TypeError for a size or a list element,
OverflowError for a number (Scalar). The checks sit in the argument conversion of the typed
bindings and of gb.ops, so every operator gets them."""

import subprocess
import sys

import pytest

import glassbox as gb

BIG = [2**64, 2**63, -(2**63) - 1, -(2**64), 10**40]

# (expression over x and v, exception class PyTorch raises for it)
CASES = [
    ("x.sum(v)", ValueError),
    ("x.sum(dim=v)", ValueError),
    ("x.sum(v, True)", ValueError),
    ("x.mean(v)", ValueError),
    ("x.std(v)", ValueError),
    ("x.amax(v)", ValueError),
    ("x.logsumexp(v)", ValueError),
    ("x.softmax(v)", ValueError),
    ("x.cumsum(v)", ValueError),
    ("x.unsqueeze(v)", ValueError),
    ("x.transpose(v, 0)", ValueError),
    ("x.squeeze(v)", ValueError),
    ("gb.cat([x], v)", ValueError),
    ("x[v]", ValueError),
    ("x.sum([v])", TypeError),
    ("x.sum((0, v))", TypeError),
    ("x.std([v])", TypeError),
    ("x.view(v)", TypeError),
    ("x.view([v])", TypeError),
    ("x.view(v, 1)", TypeError),
    ("x.reshape(v)", TypeError),
    ("x.permute(v)", TypeError),
    ("x.expand(v)", TypeError),
    ("gb.zeros(v)", TypeError),
    ("gb.zeros([v])", TypeError),
    ("gb.ones(v)", TypeError),
    ("gb.empty(v)", TypeError),
    ("gb.randn(v)", TypeError),
    ("gb.full([v], 1.0)", TypeError),
    ("gb.full([2], v)", OverflowError),
    ("x * v", OverflowError),
    ("v * x", OverflowError),
    ("x.add(1, alpha=v)", OverflowError),
    ("x.clamp(v)", OverflowError),
    ("x.pow(v)", OverflowError),
    ("x.fill_(v)", OverflowError),
]


@pytest.mark.parametrize("v", BIG, ids=str)
@pytest.mark.parametrize("expr,error", CASES, ids=[c[0] for c in CASES])
def test_int_past_int64_raises_pytorch_class(expr, error, v):
    x = gb.ones(3)
    with pytest.raises(error) as info:
        eval(expr, {"gb": gb, "x": x, "v": v})
    assert not isinstance(info.value, SystemError)
    assert "int64" in str(info.value) or error is TypeError


def test_boxed_calls_raise_runtime_error_for_ints_past_int64_as_torch_ops_does():
    x = gb.ones(3)
    with pytest.raises(RuntimeError, match="outside the int64 range"):
        gb.ops.glassbox.sum(x, 2**64)
    with pytest.raises(RuntimeError, match="outside the int64 range"):
        gb.ops.glassbox.sum(x, [2**64])
    with pytest.raises(RuntimeError, match="outside the int64 range"):
        gb.ops.glassbox.view(x, 2**64)
    with pytest.raises(OverflowError):
        gb.ops.glassbox.mul(x, 2**64)
    assert gb.ops.glassbox.sum(x, [0]).tolist() == 3.0


def test_int64_limits_still_pass():
    x = gb.ones(3)
    with pytest.raises(IndexError):
        x.sum(2**63 - 1)  # fits: an out-of-range dim, not an overflow
    assert (gb.ones(2, dtype=gb.int64) * (2**62)).tolist() == [2**62, 2**62]


def test_no_overflow_leaves_an_exception_set():
    """The old failure mode: a conversion that set a Python error and went on (SystemError later)."""
    code = (
        "import glassbox as gb\n"
        "x = gb.ones(3)\n"
        "for e in ['x.sum(2**64)', 'x.view(2**64)', 'x.std(2**64)', 'x.amax(2**64)']:\n"
        "    try:\n"
        "        eval(e)\n"
        "    except (ValueError, TypeError):\n"
        "        pass\n"
        "print(x.sum().item())\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3.0"
