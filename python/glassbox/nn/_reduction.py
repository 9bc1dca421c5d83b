"""The `reduction=` argument of the losses, and PyTorch's older `size_average`/`reduce` spelling of it."""

import warnings

REDUCTION_CODES = {"none": 0, "mean": 1, "sum": 2}


def reduction_name(reduction, size_average=None, reduce=None):
    """'none', 'mean' or 'sum'; a bad value is PyTorch's ValueError."""
    if size_average is not None or reduce is not None:
        warnings.warn(
            "size_average and reduce are deprecated; use reduction='none'|'mean'|'sum'", UserWarning, stacklevel=4
        )
        if reduce is False:
            reduction = "none"
        else:
            reduction = "sum" if size_average is False else "mean"
    if not isinstance(reduction, str) or reduction not in REDUCTION_CODES:
        raise ValueError(f"{reduction!r} is not a valid value for reduction (none, mean, sum)")
    return reduction
