"""The CPU loops run an AVX2 or AVX-512 copy only where the processor has it, chosen at run time.
Every copy must give the same bits (GLASSBOX_CPU_CAPABILITY forces a narrower one in a fresh
process), and the wide instructions must live only in the copies that the run-time checks guard:
the libraries themselves are built for baseline x86-64."""

import os
import platform
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import glassbox as gb

COMPUTE = r"""
import sys
import numpy as np
import glassbox as gb
ops = gb.ops.glassbox
rng = np.random.default_rng(3)
bits = rng.integers(0, 2**32, size=20000, dtype=np.uint64).astype(np.uint32).view(np.float32)
x = np.concatenate([bits, rng.uniform(-60, 60, 20000).astype(np.float32)])
t = gb.from_numpy(x)
y = gb.from_numpy(rng.uniform(-3, 3, x.size).astype(np.float32))
m = gb.from_numpy(rng.uniform(-2, 2, (64, 300)).astype(np.float32))
out = {}
for name in ("exp", "expm1", "log", "log1p", "sin", "cos", "tanh", "sigmoid", "silu"):
    out[name] = getattr(ops, name)(t).numpy()
out["gelu_none"] = ops.gelu(t, approximate="none").numpy()
out["gelu_tanh"] = ops.gelu(t, approximate="tanh").numpy()
out["add"] = (t + y).numpy()
out["mul"] = (t * y).numpy()
out["div"] = (y / (y + 4)).numpy()
out["sum_rows"] = m.sum(1).numpy()
out["sum_all"] = m.sum().numpy().reshape(1)
out["softmax"] = m.softmax(1).numpy()
np.savez(sys.argv[1], **out)
"""


def detected_levels():
    flags = open("/proc/cpuinfo").read().split("flags", 2)[1].split("\n", 1)[0].split()
    levels = ["baseline"]
    if "avx2" in flags and "fma" in flags:
        levels.append("avx2")
        if all(f in flags for f in ("avx512f", "avx512vl", "avx512dq", "avx512bw")):
            levels.append("avx512")
    return levels


@pytest.mark.skipif(platform.machine() != "x86_64", reason="x86-64 dispatch")
def test_every_instruction_set_copy_gives_the_same_bits(tmp_path):
    results = {}
    for level in detected_levels():
        env = dict(os.environ, GLASSBOX_CPU_CAPABILITY=level)
        path = tmp_path / f"{level}.npz"
        subprocess.run([sys.executable, "-c", COMPUTE, str(path)], env=env, check=True)
        results[level] = np.load(path)
    reference = results["baseline"]
    for level, got in results.items():
        for name in reference.files:
            a, b = reference[name], got[name]
            assert a.shape == b.shape and a.dtype == b.dtype, (level, name)
            same = (a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b))
            assert same.all(), f"{name}: {level} differs from baseline at {np.flatnonzero(~same)[:5]}"


def glassbox_libraries():
    gb.ops.glassbox.exp(gb.ones(4))  # loaded
    libs = set()
    for line in open("/proc/self/maps"):
        path = line.split()[-1]
        if re.search(r"libglassbox_(core|cpu)\.so", path):
            libs.add(path)
    return sorted(libs)


WIDE = re.compile(r"%[yz]mm\d+")


@pytest.mark.skipif(platform.machine() != "x86_64" or not shutil.which("objdump"), reason="x86-64 with objdump")
def test_wide_instructions_only_in_guarded_copies():
    libs = glassbox_libraries()
    assert any("glassbox_cpu" in p for p in libs), libs
    for lib in libs:
        dump = subprocess.run(
            ["objdump", "-d", "-C", "--no-show-raw-insn", lib], capture_output=True, text=True, check=True
        ).stdout
        offenders = set()
        function = None
        for line in dump.splitlines():
            header = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
            if header:
                function = header.group(1)
            elif function and WIDE.search(line) and "avx" not in function:
                offenders.add(function)
        assert not offenders, f"{lib}: AVX registers outside the run-time-checked copies: {sorted(offenders)[:10]}"
