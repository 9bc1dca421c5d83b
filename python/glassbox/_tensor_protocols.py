"""Python protocols of Tensor that are plain Python: truth value and `in`, as PyTorch has them."""
from . import _C


def _bool(self):
    n = self.numel()
    if n != 1:
        raise RuntimeError(f"Boolean value of a Tensor with {'no values' if n == 0 else f'{n} values'} is ambiguous; "
                           "use .any() / .all() style reductions or .item() on a one-element tensor")
    return bool(self.item())


def _is_number(x):
    return isinstance(x, (bool, int, float)) or type(x).__module__ == "numpy" and hasattr(x, "dtype") and x.ndim == 0


def _contains(self, element):
    if not isinstance(element, _C.Tensor) and not _is_number(element):
        raise RuntimeError(f"Tensor.__contains__ takes a tensor or a number, not {type(element).__name__}")
    return bool((self == element).sum().item())


_C.Tensor.__bool__ = _bool
_C.Tensor.__contains__ = _contains
