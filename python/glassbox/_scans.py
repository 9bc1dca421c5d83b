"""Cumulative scans written over the operators: cumprod, cummax, cummin and logcumsumexp.

Each is a log-step (Hillis-Steele) scan: after step k every position holds the combination of the
2**k elements ending there, so log2(n) rounds of one element-wise combine over slices do the work of
a sequential loop; autograd comes from the combine (mul, logaddexp). cummax and cummin find their
indices by two such scans without gradient and then gather the values, so the gradient of a running
extreme reaches the element it came from, as PyTorch's."""

from . import _C, return_types
from ._composite_args import check_tensor, is_floating, wrap_dim
from ._dim_arguments import rename_dim_aliases

_f = _C._functions
_Tensor = _C.Tensor
_dt = _C.dtype


def _scan(x, d, combine):
    """x scanned along d with combine(later, earlier), applied to tuples of tensors of one shape."""
    n = x[0].shape[d]
    step = 1
    while step < n:
        later = combine(*[t.narrow(d, step, n - step) for t in x], *[t.narrow(d, 0, n - step) for t in x])
        x = tuple(_f.cat([t.narrow(d, 0, step), c], d) for t, c in zip(x, later))
        step *= 2
    return x


def _dim_of(fn, input, dim, kwargs):
    if kwargs:
        if dim is not None and "axis" in kwargs:
            raise TypeError(f"{fn}(): got both 'dim' and its alias 'axis'")
        rename_dim_aliases(fn, kwargs)
        dim = kwargs.pop("dim", dim)
        if kwargs:
            raise TypeError(f"{fn}() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if dim is None:
        raise TypeError(f"{fn}() missing 1 required argument: 'dim'")
    check_tensor(fn, "input", input)
    return wrap_dim(fn, dim, input.dim())


def cumprod(input, dim=None, *, dtype=None, **kwargs):
    """Running products along dim (integers and bools accumulate in int64, as cumsum)."""
    d = _dim_of("cumprod", input, dim, kwargs)
    if dtype is not None:
        input = input.to(dtype)
    elif not is_floating(input):
        input = input.to(_dt.int64)
    if input.dim() == 0:
        return input.clone()
    return _scan((input,), d, lambda later, earlier: (later * earlier,))[0]


def logcumsumexp(input, dim=None, **kwargs):
    """log(cumsum(exp(input))) along dim, without overflow (a scan of logaddexp)."""
    d = _dim_of("logcumsumexp", input, dim, kwargs)
    if not is_floating(input):
        raise NotImplementedError(f"logcumsumexp: no kernel for dtype {input.dtype} (floating point only)")
    if input.dim() == 0:
        return input.clone()
    return _scan((input,), d, lambda later, earlier: (_f.logaddexp(later, earlier),))[0]


def _running_extreme(fn, result_type, largest, input, dim, kwargs):
    """The running extreme's index at j is the last i <= j where input[i] equals the running extreme
    (ties give the last index, as PyTorch's) or is NaN (NaN wins from its position on, the last NaN so
    far): a scan of maximum over the values, then one over those positions. The values are gathered
    at the indices, so the gradient reaches the element each came from."""
    d = _dim_of(fn, input, dim, kwargs)
    if input.dim() == 0:
        return result_type(input.clone(), _f.zeros([], dtype=_dt.int64, device=input.device))
    values = input.detach()
    pick = _f.maximum if largest else _f.minimum
    running = _scan((values,), d, lambda later, earlier: (pick(later, earlier),))[0]
    attained = values == running
    if is_floating(values):
        attained = attained | values.isnan()
    shape = [1] * input.dim()
    shape[d] = input.shape[d]
    # positions scan as int32 where they fit: its copies and maxima are several times faster than int64's
    index_type = _dt.int32 if input.shape[d] < 2**31 else _dt.int64
    positions = _f.arange(input.shape[d], dtype=index_type, device=input.device).reshape(shape)
    marked = _f.where(attained, positions, 0)
    indices = _scan((marked,), d, lambda later, earlier: (_f.maximum(later, earlier),))[0].to(_dt.int64)
    return result_type(input.gather(d, indices), indices)


def cummax(input, dim=None, **kwargs):
    """(values, indices) of the running maximum along dim."""
    return _running_extreme("cummax", return_types.cummax, True, input, dim, kwargs)


def cummin(input, dim=None, **kwargs):
    """(values, indices) of the running minimum along dim."""
    return _running_extreme("cummin", return_types.cummin, False, input, dim, kwargs)


FUNCTIONS = {"cumprod": cumprod, "logcumsumexp": logcumsumexp, "cummax": cummax, "cummin": cummin}
for _name, _fn in FUNCTIONS.items():
    setattr(_Tensor, _name, _fn)
del _name, _fn
