"""glassbox's hello world: the two programs PyTorch users write first, with the same output.

.venv/bin/python examples/hello.py                          # what PyTorch prints
GLASSBOX_DISPATCH_TRACE=1 .venv/bin/python examples/hello.py  # and every dispatcher call
gdb -x scripts/gdb/glassbox.gdb --args .venv/bin/python examples/hello.py
"""

import glassbox as gb
import glassbox.nn.functional as F

# A matrix-vector product, a sum, and its gradients.
A = gb.tensor([[2.0, 3.0], [1.0, 4.0]], requires_grad=True)
x = gb.tensor([[6.0], [-5.0]], requires_grad=True)
y = A @ x
z = y.sum()
z.backward(retain_graph=True)
print(y)
print(z)
print(A.grad)
print(x.grad)

# One neuron: sigmoid(w * x + b), and its squared error against a target.
w = gb.tensor([0.8], requires_grad=True)
b = gb.tensor([0.14], requires_grad=True)
inp = gb.tensor([2.0])
out = gb.sigmoid(w * inp + b)
loss = F.mse_loss(out, gb.tensor([1.0]))
print(out)
print(loss)
loss.backward()
print(w.grad, b.grad)
