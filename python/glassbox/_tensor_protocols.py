"""Python protocols of Tensor that are plain Python, as PyTorch has them: truth value, `in`, and
int() / float() / operator.index() of one-element tensors."""

from . import _C


def _bool(self):
    n = self.numel()
    if n != 1:
        raise RuntimeError(
            f"Boolean value of a Tensor with {'no values' if n == 0 else f'{n} values'} is ambiguous; "
            "use .any() / .all() style reductions or .item() on a one-element tensor"
        )
    return bool(self.item())


def _is_number(x):
    return isinstance(x, (bool, int, float)) or type(x).__module__ == "numpy" and hasattr(x, "dtype") and x.ndim == 0


def _contains(self, element):
    if not isinstance(element, _C.Tensor) and not _is_number(element):
        raise RuntimeError(f"Tensor.__contains__ takes a tensor or a number, not {type(element).__name__}")
    return bool((self == element).sum().item())


def _one_element(self):
    # int(t), float(t): Python's conversions raise ValueError (item() itself raises RuntimeError), as in PyTorch.
    if self.numel() != 1:
        raise ValueError(f"only one element tensors can be converted to Python scalars (this one has {self.numel()})")
    return self.item()


def _int(self):
    return int(_one_element(self))


def _float(self):
    return float(_one_element(self))


def _index(self):
    if self.numel() != 1 or self.dtype.is_floating_point or self.dtype == _C.dtype.bool:
        raise TypeError("only integer tensors of a single element can be converted to an index")
    return int(self.item())


def _array_wrap(self, array, context=None, return_scalar=False):
    """NumPy's functions on a tensor (np.exp(t)) return a tensor, as in PyTorch."""
    if return_scalar:
        return array[()]
    return _C.from_numpy(array if array.flags.writeable else array.copy())


_C.Tensor.__bool__ = _bool
_C.Tensor.__array_wrap__ = _array_wrap
_C.Tensor.__contains__ = _contains
_C.Tensor.__int__ = _int
_C.Tensor.__float__ = _float
_C.Tensor.__index__ = _index
