"""Builds myops::mul_add (mul_add.cpp, and mul_add_cuda.cu where glassbox has CUDA kernels and a GPU)
with gb.utils.cpp_extension, loads it, and uses it as any glassbox operator: called, differentiated,
traced, and found in the registry with the file:line of each kernel.

    .venv/bin/python examples/extension/mul_add.py
"""

import os

import glassbox as gb

HERE = os.path.dirname(os.path.abspath(__file__))

sources = [os.path.join(HERE, "mul_add.cpp")]
if gb.cuda.is_available():
    sources.append(os.path.join(HERE, "mul_add_cuda.cu"))
ext = gb.utils.cpp_extension.load("mul_add", sources=sources, verbose=True)
print("operators defined:", ext.operators)

x = gb.randn(3, requires_grad=True)
y = gb.randn(3, requires_grad=True)
z = gb.randn(3)
with gb.trace() as trace:
    out = gb.ops.myops.mul_add(x, y, z)
print(trace)
print(out)
out.sum().backward()
print("x.grad is y:", (x.grad - y).abs().max().item() == 0, " y.grad is x:", (y.grad - x).abs().max().item() == 0)
print(gb.registry.dump("myops::mul_add"))
