"""Conversions and small conveniences of Tensor as PyTorch spells them, written on top of the
operators: .float() .long() ... and .type(dtype) (copies through to(dtype)), .T and .mT (views
through permute and transpose), .element_size(), the *_like factories, clip (clamp's other name),
allclose and equal (bools for Python), and where(condition) with one argument."""

import builtins as _builtins

from . import _C
from ._factories import _check_tensor, _finish

_f = _C._functions
_dt = _C.dtype

# .float() and friends: to(dtype), which returns self when the dtype already matches (as PyTorch's).
_CONVERSIONS = {
    "float": _dt.float32,
    "double": _dt.float64,
    "half": _dt.float16,
    "bfloat16": _dt.bfloat16,
    "int": _dt.int32,
    "long": _dt.int64,
    "short": _dt.int16,
    "char": _dt.int8,
    "byte": _dt.uint8,
    "bool": _dt.bool,
}

# PyTorch's legacy tensor type names, which .type() returns and accepts.
_TYPE_NAMES = {
    _dt.float32: "FloatTensor",
    _dt.float64: "DoubleTensor",
    _dt.float16: "HalfTensor",
    _dt.bfloat16: "BFloat16Tensor",
    _dt.int64: "LongTensor",
    _dt.int32: "IntTensor",
    _dt.int16: "ShortTensor",
    _dt.int8: "CharTensor",
    _dt.uint8: "ByteTensor",
    _dt.bool: "BoolTensor",
}


def _conversion(name, dtype):
    def convert(self, memory_format=None):
        return self.to(dtype)

    convert.__name__ = name
    convert.__doc__ = f"self.to({dtype}): a copy in {dtype}, or self when it already is."
    return convert


for _name, _dtype in _CONVERSIONS.items():
    setattr(_C.Tensor, _name, _conversion(_name, _dtype))


def _type(self, dtype=None, non_blocking=False):
    """With no argument the type's name ('glassbox.FloatTensor'); with a dtype or such a name, to(dtype)."""
    if dtype is None:
        prefix = "glassbox.cuda." if str(self.device).startswith("cuda") else "glassbox."
        return prefix + _TYPE_NAMES[self.dtype]
    if isinstance(dtype, str):
        by_name = {name: d for d, name in _TYPE_NAMES.items()}
        short = dtype.rsplit(".", 1)[-1]
        if short not in by_name:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = by_name[short]
    if not isinstance(dtype, _dt):
        raise TypeError(f"type(): dtype must be a glassbox dtype or a tensor type name, not {type(dtype).__name__}")
    return self.to(dtype)


def _element_size(self):
    return self.dtype.itemsize


def _T(self):
    """The dims reversed (the transpose of a matrix)."""
    return self.permute(list(range(self.dim() - 1, -1, -1)))


def _mT(self):
    """The last two dims swapped (a batch of matrices transposed)."""
    if self.dim() < 2:
        raise RuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got {self.dim()}-D tensor."
        )
    return self.transpose(-2, -1)


_C.Tensor.type = _type
_C.Tensor.element_size = _element_size
_C.Tensor.T = property(_T)
_C.Tensor.mT = property(_mT)


# ---- factories shaped like a tensor
def _like(name, t, dtype, device):
    _check_tensor(name, t)
    return list(t.shape), dtype or t.dtype, device or t.device


def empty_like(input, *, dtype=None, device=None, requires_grad=False):
    size, dtype, device = _like("empty_like", input, dtype, device)
    return _finish(_f.empty(size, dtype=dtype, device=device), requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False):
    size, dtype, device = _like("full_like", input, dtype, device)
    return _finish(_f.full(size, fill_value, dtype=dtype, device=device), requires_grad)


def rand_like(input, *, dtype=None, device=None, requires_grad=False):
    size, dtype, device = _like("rand_like", input, dtype, device)
    return _finish(_f.rand(size, dtype=dtype, device=device), requires_grad)


def randn_like(input, *, dtype=None, device=None, requires_grad=False):
    size, dtype, device = _like("randn_like", input, dtype, device)
    return _finish(_f.randn(size, dtype=dtype, device=device), requires_grad)


# ---- clip: clamp's other name
def clip(input, min=None, max=None, *, out=None):
    if out is not None:
        return _f.clamp(input, min, max, out=out)
    return _f.clamp(input, min, max)


_C.Tensor.clip = lambda self, min=None, max=None: self.clamp(min, max)
_C.Tensor.clip_ = lambda self, min=None, max=None: self.clamp_(min, max)


# ---- comparisons that answer with a Python bool
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every element of input is close to other's (isclose, broadcast), as one bool."""
    close = _f.isclose(input, other, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return _builtins.bool(_f.logical_not(close).sum().item() == 0)


def equal(input, other):
    """Whether both have the same shape and the same values (dtypes promote, as in eq)."""
    if not isinstance(input, _C.Tensor) or not isinstance(other, _C.Tensor):
        raise TypeError("equal(): arguments must be tensors")
    if tuple(input.shape) != tuple(other.shape):
        return False
    return _builtins.bool(_f.ne(input, other).sum().item() == 0)


_C.Tensor.allclose = allclose
_C.Tensor.equal = equal


# ---- where(condition) alone: the indices of its nonzero elements, one index tensor per dim
def _nonzero_indices(condition):
    mask = condition if condition.dtype == _dt.bool else _f.ne(condition, 0)
    if mask.dim() == 0:
        mask = mask.reshape([1])
    shape = list(mask.shape)
    indices = []
    for d, n in enumerate(shape):
        along = [1] * len(shape)
        along[d] = n
        coords = _f.arange(n, dtype=_dt.int64, device=mask.device).reshape(along).expand(shape)
        indices.append(_f.masked_select(coords, mask))
    return tuple(indices)


def where(condition, *args, **kwargs):
    """where(condition, input, other) chooses element-wise; where(condition) gives the indices of
    condition's nonzero elements, a tuple of one int64 tensor per dim."""
    if not args and not kwargs:
        if not isinstance(condition, _C.Tensor):
            raise TypeError(f"where(): argument 'condition' must be Tensor, not {type(condition).__name__}")
        return _nonzero_indices(condition)
    return _f.where(condition, *args, **kwargs)
