"""The named tuples that operators with two results return, as torch.return_types has them:
`values, indices = x.max(1)` unpacks, `x.max(1).values` names, `x.max(1)[0]` indexes, and the repr
reads `glassbox.return_types.max(values=..., indices=...)`."""

import collections

__all__ = ["max", "min", "sort", "topk", "kthvalue", "mode", "median", "aminmax", "cummax", "cummin"]


def _named_result(name, fields):
    base = collections.namedtuple(name, fields)

    def __repr__(self):
        parts = ",\n".join(f"{field}={value!r}" for field, value in zip(fields, self))
        return f"glassbox.return_types.{name}(\n{parts})"

    cls = type(name, (base,), {"__slots__": (), "__repr__": __repr__, "__module__": "glassbox.return_types"})
    cls.__qualname__ = name
    cls.__doc__ = f"The result of {name}: a named tuple ({', '.join(fields)})."
    return cls


max = _named_result("max", ("values", "indices"))  # noqa: A001
min = _named_result("min", ("values", "indices"))  # noqa: A001
sort = _named_result("sort", ("values", "indices"))
topk = _named_result("topk", ("values", "indices"))
kthvalue = _named_result("kthvalue", ("values", "indices"))
mode = _named_result("mode", ("values", "indices"))
median = _named_result("median", ("values", "indices"))
cummax = _named_result("cummax", ("values", "indices"))
cummin = _named_result("cummin", ("values", "indices"))
aminmax = _named_result("aminmax", ("min", "max"))
