"""The one operator table: every operator of ops.yaml with a reference implementation (NumPy) and
the inputs to try it on. test_forward.py checks every entry; the gradient checks reuse it.

Each family lives in its own module (arithmetic.py, ...); ALL collects them in a fixed order.
"""

from .common import TOL, OpInfo, Sample  # noqa: F401
from . import arithmetic, bitwise, composite_reductions, composite_shapes, elementwise_math, factories_shape, indexing
from . import linalg_nn, pointwise, reductions

ALL: list = [
    *arithmetic.OPS,
    *pointwise.OPS,
    *bitwise.OPS,
    *elementwise_math.OPS,
    *reductions.OPS,
    *linalg_nn.OPS,
    *factories_shape.OPS,
    *indexing.OPS,
    *composite_shapes.OPS,
    *composite_reductions.OPS,
]

__all__ = ["ALL", "TOL", "OpInfo", "Sample"]
