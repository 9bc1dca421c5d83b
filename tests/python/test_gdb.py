"""scripts/gdb under gdb -batch: each pretty-printer, the registration trace in load order, a
stop at a dispatch with its keys and kernel, the folded backtrace, and the live registry."""

import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = os.environ.get("GLASSBOX_GDB_TARGET")
pytestmark = [
    pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed"),
    pytest.mark.skipif(not TARGET, reason="GLASSBOX_GDB_TARGET names the program (set by ctest)"),
]


def gdb(*commands, program=None):
    args = ["gdb", "-batch", "-nx", "-iex", "set auto-load python-scripts off", "-x", "scripts/gdb/glassbox.gdb"]
    for c in commands:
        args += ["-ex", c]
    out = subprocess.run(
        args + ["--args"] + (program or [TARGET]), cwd=ROOT, capture_output=True, text=True, timeout=180
    )
    return out.stdout + out.stderr


def inspect_line():
    """The line in inspect() where all its arguments are in place."""
    with open(os.path.join(ROOT, "tests/cpp/gdb/gdb_target.cpp")) as f:
        for number, line in enumerate(f, 1):
            if "asm volatile" in line:
                return number
    raise AssertionError("no asm line in gdb_target.cpp")


def line_of(fragment):
    """The line of gdb_target.cpp that holds fragment (so edits there do not break the tests)."""
    with open(os.path.join(ROOT, "tests/cpp/gdb/gdb_target.cpp")) as f:
        for number, line in enumerate(f, 1):
            if fragment in line:
                return number
    raise AssertionError(fragment)


DEF_LINE = line_of("GLASSBOX_LIBRARY(gdbt")
IMPL_LINE = line_of("GLASSBOX_LIBRARY_IMPL(gdbt")
KERNEL_LINE = line_of("int64_t gdb_probe_cpu(")


def test_pretty_printers():
    out = gdb(
        "break gdb_target.cpp:%d" % inspect_line(),
        "run",
        "print tensor",
        "print keys",
        "print op",
        "print kernel",
        "print schema",
        "print name",
        "print strided",
        "print *tensor.impl_.p_->storage_.p_",
        "print node",
    )
    assert (
        "= tensor([3.0000, 3.0000, 3.0000, 3.0000, 3.0000, 3.0000], size=(2, 3), dtype=float32, device=cpu)" in out
    ), out
    assert "= DispatchKeySet(CPU, AutogradCPU)" in out, out
    assert "= OperatorHandle(glassbox::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor)" in out, out
    assert re.search(
        r"= KernelFunction\(unboxed: glassbox::native::add_cpu\(.*\) at \S*generated/glassbox/ops/StructuredCPU\.cpp:\d+\)",
        out,
    ), out
    assert "= glassbox::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor" in out, out
    assert "= glassbox::add.Tensor\n" in out, out
    assert "= tensor([7, 7, 7, 7], size=(4), dtype=int32, device=cpu)" in out, out
    assert re.search(r"= Storage\(24 bytes on cpu at 0x[0-9a-f]+, version \d+\)", out), out
    assert re.search(r"= MulBackward0\(sequence_nr=\d+, next_edges=\[AccumulateGrad:0, AccumulateGrad:0\]\)", out), out


def test_registration_trace_in_load_order():
    out = gdb("gb-trace-registration gdbt", "run")
    lines = [l for l in out.splitlines() if l.startswith("[registration]")]
    assert len(lines) == 2, out
    assert re.fullmatch(
        r"\[registration\] def gdbt::probe\(Tensor x\) -> int at tests/cpp/gdb/gdb_target\.cpp:%d" % DEF_LINE, lines[0]
    ), lines
    assert re.fullmatch(
        r"\[registration\] impl gdbt::probe key=CPU kernel=KernelFunction\(unboxed: "
        r"\(anonymous namespace\)::gdb_probe_cpu\(.*\) at \S*gdb_target\.cpp:%d\) at tests/cpp/gdb/gdb_target\.cpp:%d"
        % (KERNEL_LINE, IMPL_LINE),
        lines[1],
    ), lines


def test_break_on_dispatch_and_folded_backtrace():
    out = gdb("gb-break-dispatch gdbt::probe CPU", "run", "gb-bt")
    assert "[dispatch] gdbt::probe keys=DispatchKeySet(CPU) key=CPU" in out, out
    assert re.search(r"kernel: KernelFunction\(unboxed: \(anonymous namespace\)::gdb_probe_cpu", out), out
    bt = out[out.index("[dispatch]") :]
    assert re.search(r"\[dispatcher: \d+ frame\(s\)\]", bt), bt
    assert re.search(r"#\d+\s+main at \S*gdb_target\.cpp:\d+", bt), bt


def test_live_registry():
    out = gdb("break gdb_target.cpp:%d" % inspect_line(), "run", "gb-registrations ^gdbt::")
    assert "gdbt::probe  gdbt::probe(Tensor x) -> int" in out, out
    assert re.search(r"\n\s+def: tests/cpp/gdb/gdb_target\.cpp:%d\n" % DEF_LINE, out), out
    assert re.search(r"\n\s+CPU\s+unboxed\s+tests/cpp/gdb/gdb_target\.cpp:%d\n" % IMPL_LINE, out), out
    assert "1 operator(s) matching ^gdbt::" in out, out


def test_stop_in_the_add_kernel_for_a_call_from_python(tmp_path):
    script = tmp_path / "add.py"
    script.write_text(
        "import glassbox as gb\n"
        "x = gb.ops.glassbox.full([2, 3], 1.5)\n"
        "y = gb.ops.glassbox.add(x, x)\n"
        "print('sum done', y.tolist()[0][0])\n"
    )
    out = gdb(
        "gb-break-dispatch glassbox::add CPU",
        "run",
        "gb-bt",
        "break glassbox::native::add_cpu",
        "continue",
        "print self",
        program=[sys.executable, str(script)],
    )
    assert "[dispatch] glassbox::add.Tensor keys=DispatchKeySet(CPU) key=CPU" in out, out
    assert re.search(
        r"kernel: KernelFunction\(unboxed: glassbox::native::add_cpu\(.*\) at \S*generated/glassbox/ops/StructuredCPU\.cpp:\d+\)",
        out,
    ), out
    assert re.search(r"glassbox::native::add_cpu .*StructuredCPU\.cpp", out), out
    assert (
        "= tensor([1.5000, 1.5000, 1.5000, 1.5000, 1.5000, 1.5000], size=(2, 3), dtype=float32, device=cpu)" in out
    ), out
