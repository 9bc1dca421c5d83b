"""gb.device: a device name as an object with .type and .index, as torch.device, and what
Tensor.device returns. It is a str ("cpu", "cuda:0", "meta"), so it compares equal to the strings
PyTorch code writes and goes wherever a device string goes."""

import builtins

from ._C import Tensor

_TYPES = ("cpu", "cuda", "meta")


class device(str):  # noqa: N801  (PyTorch's name)
    """device("cuda:1"), device("cuda", 1), device("cpu"), or another device (returned as it is)."""

    __slots__ = ()

    def __new__(cls, type, index=None):  # noqa: A002
        if isinstance(type, device) and index is None:
            return type
        if isinstance(type, int) and index is None:  # device(0): the CUDA device of that index
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device(): argument 'type' must be str, not {builtins.type(type).__name__}")
        kind, _, number = type.partition(":")
        if kind not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of device string: {type}")
        if number:
            if index is not None:
                raise RuntimeError(
                    f"device(): type (string) must not include an index because index was passed explicitly: {type}"
                )
            if not number.isdigit():
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        if index is not None:
            if not isinstance(index, int) or isinstance(index, bool) or index < 0:
                raise RuntimeError(f"Device index must not be negative, got {index}")
            if kind != "cuda":
                raise RuntimeError(f"device(): a {kind} device takes no index, got {index}")
        return super().__new__(cls, kind if index is None else f"{kind}:{index}")

    @property
    def type(self):
        return str.partition(self, ":")[0]

    @property
    def index(self):
        number = str.partition(self, ":")[2]
        return int(number) if number else None

    def __repr__(self):
        index = self.index
        return f"device(type='{self.type}')" if index is None else f"device(type='{self.type}', index={index})"

    def __reduce__(self):
        return (device, (str(self),))


_known = {}
_device_name = Tensor.device


def _tensor_device(self):
    """The tensor's device, as a gb.device."""
    name = _device_name.__get__(self)
    found = _known.get(name)
    if found is None:
        found = _known[name] = device(name)
    return found


Tensor.device = property(_tensor_device)
