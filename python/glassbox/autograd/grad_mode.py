"""no_grad / enable_grad / set_grad_enabled: context managers and decorators, per thread."""

import functools

from .. import _C


def is_grad_enabled():
    return _C._autograd.is_grad_enabled()


class _GradMode:
    enabled = True

    def __enter__(self):
        self._previous = _C._autograd.is_grad_enabled()
        _C._autograd.set_grad_enabled(self.enabled)
        return self

    def __exit__(self, *exc):
        _C._autograd.set_grad_enabled(self._previous)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradMode):
    """Operations inside record no autograd graph (as torch.no_grad)."""

    enabled = False


class enable_grad(_GradMode):
    enabled = True


class set_grad_enabled(_GradMode):
    def __init__(self, mode):
        self.enabled = bool(mode)
        self._previous = _C._autograd.is_grad_enabled()
        _C._autograd.set_grad_enabled(self.enabled)  # also works as a plain function call

    def __enter__(self):
        return self

    def __call__(self, fn):
        raise TypeError("set_grad_enabled(mode) is a context manager or a call, not a decorator")
