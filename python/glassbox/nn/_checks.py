"""Argument checks of the Python composites in gb.nn.functional: a tensor parameter given something
else raises TypeError naming the parameter, as PyTorch's bindings do (instead of an AttributeError from
deep inside the composite)."""

import functools
import inspect

from .. import _C


def tensor_arguments(*names):
    """Decorator: the named parameters must be tensors, or None where None is their default or the
    name ends in "?" (batch_norm's running statistics may be None without a default)."""

    def wrap(fn):
        signature = inspect.signature(fn)
        optional = {n.rstrip("?") for n in names if n.endswith("?") or signature.parameters[n].default is None}
        required = [n.rstrip("?") for n in names]

        @functools.wraps(fn)
        def checked(*args, **kwargs):
            try:
                arguments = signature.bind(*args, **kwargs).arguments
            except TypeError as e:
                raise TypeError(f"{fn.__name__}(): {e}") from None
            for name in required:
                if name not in arguments:
                    continue
                value = arguments[name]
                if not isinstance(value, _C.Tensor) and not (value is None and name in optional):
                    raise TypeError(f"{fn.__name__}(): argument '{name}' must be Tensor, not {type(value).__name__}")
            return fn(*args, **kwargs)

        return checked

    return wrap
