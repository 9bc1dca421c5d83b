"""A first look at glassbox from Python: make tensors, call operators through the dispatcher,
and see where each call went. (Autograd and the PyTorch-like Tensor API arrive next.)

    .venv/bin/python examples/hello.py
    gdb -x scripts/gdb/glassbox.gdb --args .venv/bin/python examples/hello.py
"""
import glassbox as gb

ops = gb.ops.glassbox
A = ops.full([3, 4], 0.5)
x = ops.ones([4])
y = ops.add(A, x, alpha=2)  # broadcasting [3, 4] + [4]
print("y =", y.tolist())

with gb.trace_calls():  # the dispatch trace of these calls goes to stderr
    z = ops.mul(y, 3)
print("z =", z.tolist())

print(gb.registry.dump_table("glassbox::add.Tensor"))
