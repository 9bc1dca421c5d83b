"""Hostile calls as data: which callables exist, and seeded argument lists for them.

A call is a JSON-able dict {"id", "target": [kind, name], "args": [spec...], "kwargs": {name: spec}}, so the
same list replays against glassbox and against PyTorch (differential.py). Targets:
  ["op", "glassbox::add.Tensor"]  gb.ops.glassbox.add.Tensor   (PyTorch: torch.ops.aten.add.Tensor)
  ["fn", "add"]                   gb.add                       (torch.add)
  ["method", "add"]               Tensor.add, self = first arg (torch.Tensor.add)
  ["F", "relu"]                   gb.nn.functional.relu        (torch.nn.functional.relu)
Argument specs (materialise() turns them into objects of either library):
  ["T", shape, dtype, fill, layout, requires_grad, seed]  a tensor; layout is how it is strided
  ["V", value]  a plain JSON value (int, float, bool, str, list of plain values)
  ["F", "nan"|"inf"|"-inf"]  a float JSON cannot hold;  ["I", "digits"]  an int past 2**53
  ["D", "float32"]  a dtype;  ["N"]  None;  ["L", [spec...]]  a list of specs;  ["O", "object"|"dict"|...]
  ["S", start, stop, step]  a slice;  ["E"]  Ellipsis;  ["U", [spec...]]  a tuple (an index expression)
Tensor's Python protocol methods (indexing, arithmetic operators, pickling's __reduce_ex__, len, repr) are
targets too, as ["method", "__getitem__"] and so on.
Discovery reads signatures from the registry's schemas (ops), pybind11 docstrings (built-in functions and
methods) and inspect.signature (Python functions), and turns each parameter into a kind (tensor, dim, size, ...).
"""

import inspect
import random
import re

DTYPES = ["float32", "float64", "float16", "bfloat16", "int64", "int32", "int16", "int8", "uint8", "bool"]
FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")

# Functions that only read or set process state, or that need objects no generator makes.
SKIP_FUNCTIONS = {
    "seed",
    "initial_seed",
    "manual_seed",
    "is_grad_enabled",
    "trace_calls",
    "trace",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "from_dlpack",
}
SKIP_METHODS = {"data_ptr", "register_hook", "backward", "retain_grad"}

# Protocol methods reached through a builtin (bool(t), len(t), ...), whether or not Tensor defines them.
BUILTIN_PROTOCOLS = {"__bool__", "__float__", "__int__", "__index__", "__len__", "__repr__", "__array__"}

# The protocol methods of Tensor that take arguments a user (or Python itself) passes: their parameters.
_SELF = {"name": "self", "kind": "tensor", "kwonly": False, "optional": False}
_OTHER = {"name": "other", "kind": "tensor_or_scalar", "kwonly": False, "optional": False}
PROTOCOL_METHODS = {
    "__getitem__": [_SELF, {"name": "index", "kind": "index", "kwonly": False, "optional": False}],
    "__setitem__": [
        _SELF,
        {"name": "index", "kind": "index", "kwonly": False, "optional": False},
        {"name": "value", "kind": "tensor_or_scalar", "kwonly": False, "optional": False},
    ],
    "__reduce_ex__": [_SELF, {"name": "protocol", "kind": "int", "kwonly": False, "optional": False}],
    **{
        name: [_SELF, _OTHER]
        for name in (
            "__add__",
            "__radd__",
            "__sub__",
            "__rsub__",
            "__mul__",
            "__rmul__",
            "__truediv__",
            "__rtruediv__",
            "__pow__",
            "__rpow__",
            "__matmul__",
            "__eq__",
            "__ne__",
            "__lt__",
            "__le__",
            "__gt__",
            "__ge__",
            "__and__",
            "__or__",
            "__xor__",
            "__iadd__",
        )
    },
    **{
        name: [_SELF]
        for name in (
            "__neg__",
            "__abs__",
            "__invert__",
            "__pos__",
            "__len__",
            "__repr__",
            "__bool__",
            "__float__",
            "__int__",
            "__index__",
            "__array__",
        )
    },
}

# Parameter name -> kind, for signatures that say nothing useful about types.
NAME_KINDS = {
    "input": "tensor",
    "self": "tensor",
    "t": "tensor",
    "x": "tensor",
    "target": "tensor",
    "other": "tensor_or_scalar",
    "weight": "tensor_opt",
    "bias": "tensor_opt",
    "pos_weight": "tensor_opt",
    "tensors": "tensor_list",
    "indices": "tensor_opt_list",
    "index": "tensor",
    "src": "tensor",
    "mask": "tensor",
    "condition": "tensor",
    "size": "size",
    "shape": "size",
    "normalized_shape": "size",
    "sizes": "size",
    "split_sizes": "size",
    "stride": "size",
    "fill_value": "scalar",
    "value": "scalar",
    "alpha": "scalar",
    "beta": "scalar",
    "min": "scalar_opt",
    "max": "scalar_opt",
    "exponent": "tensor_or_scalar",
    "dtype": "dtype_opt",
    "device": "device",
    "requires_grad": "bool",
    "keepdim": "bool",
    "dim": "dim",
    "dim0": "dim",
    "dim1": "dim",
    "dims": "dims",
    "diagonal": "int",
    "k": "int",
    "start": "scalar",
    "end": "scalar",
    "step": "scalar",
    "steps": "int",
    "n": "int",
    "m": "int",
    "num_classes": "int",
    "ignore_index": "int",
    "reduction": "reduction",
    "label_smoothing": "float",
    "p": "float",
    "eps": "float",
    "training": "bool",
    "train": "bool",
    "inplace": "bool",
    "approximate": "approximate",
    "kernel_size": "pair",
    "padding": "pair",
    "dilation": "pair",
    "groups": "int",
    "ceil_mode": "bool",
    "count_include_pad": "bool",
    "divisor_override": "int_opt",
    "data": "data",
    "copy": "bool",
    "non_blocking": "bool",
    "largest": "bool",
    "sorted": "bool",
    "descending": "bool",
    "stable": "bool",
    "unbiased": "bool",
    "correction": "scalar_opt",
    "accumulate": "bool",
    "padding_idx": "int_opt",
    "scale_grad_by_freq": "bool",
    "sparse": "bool",
    "chunks": "int",
    "split_size": "int",
    "length": "int",
    "shifts": "dims",
    "implicit": "bool",
    "storage_offset": "int",
    "from": "int",
    "to": "int_opt",
    "mean": "float",
    "std": "float",
    "low": "int",
    "high": "int",
    "generator": "none",
    "out": "out",
    "memory_format": "none",
    "layout": "none",
    "pin_memory": "bool",
}

SCHEMA_KINDS = {
    "Tensor": "tensor",
    "Tensor?": "tensor_opt",
    "Tensor[]": "tensor_list",
    "Tensor?[]": "tensor_opt_list",
    "Scalar": "scalar",
    "Scalar?": "scalar_opt",
    "int": "int",
    "int?": "int_opt",
    "SymInt": "int",
    "SymInt?": "int_opt",
    "SymInt[]": "size",
    "int[]": "dims",
    "int[1]": "dims",
    "int[1]?": "dims_opt",
    "int[2]": "pair",
    "bool": "bool",
    "float": "float",
    "ScalarType?": "dtype_opt",
    "ScalarType": "dtype",
    "Device?": "device",
    "Device": "device",
    "str": "str",
    "str?": "str",
}

PYBIND_KINDS = {
    "glassbox._C.Tensor": "tensor",
    "glassbox._C.Tensor | None": "tensor_opt",
    "Number": "scalar",
    "Number | None": "scalar_opt",
    "bool": "bool",
    "bool | None": "bool",
    "List": "size",
    "Optional[List]": "dims_opt",
    "typing.SupportsInt | typing.SupportsIndex": "int",
    "typing.SupportsInt | typing.SupportsIndex | None": "int_opt",
    "typing.SupportsFloat | typing.SupportsIndex": "float",
    "glassbox._C.dtype | None": "dtype_opt",
    "glassbox._C.dtype": "dtype",
    "Device | None": "device",
    "Device": "device",
    "str | None": "str",
    "str": "str",
    "numpy.ndarray": "any",
    "object": "any",
    "collections.abc.Callable": "any",
}

# Name-based refinements of a type-based kind ("int" named dim is a dim; "List" named dim is dims).
REFINE = {
    ("int", "dim"): "dim",
    ("int", "dim0"): "dim",
    ("int", "dim1"): "dim",
    ("size", "dim"): "dims",
    ("size", "dims"): "dims",
    ("size", "shifts"): "dims",
    ("dims", "size"): "size",
    ("str", "reduction"): "reduction",
    ("str", "approximate"): "approximate",
    ("size", "kernel_size"): "pair",
    ("size", "padding"): "pair",
    ("size", "dilation"): "pair",
    ("size", "indices"): "tensor_opt_list",
    ("size", "tensors"): "tensor_list",
    ("tensor_opt", "out"): "out",
    ("tensor", "out"): "out",
}


def _param(name, kind, kwonly=False, optional=False):
    kind = REFINE.get((kind, name), kind)
    return {"name": name, "kind": kind, "kwonly": kwonly, "optional": optional}


def schema_params(schema):
    """Parameters of a registry schema string: [{"name", "kind", "kwonly", "optional"}]."""
    inner = schema[schema.index("(") + 1 : schema.rindex(") ->")]
    params, kwonly = [], False
    for part in [p.strip() for p in inner.split(", ") if p.strip()]:
        if part == "*":
            kwonly = True
            continue
        decl, _, default = part.partition("=")
        typ, name = decl.rsplit(" ", 1)
        typ = re.sub(r"\([a-z]!?( -> \*)?\)", "", typ)
        kind = "out" if "!" in decl and kwonly else SCHEMA_KINDS.get(typ, "any")
        params.append(_param(name, kind, kwonly, bool(default)))
    return params


def pybind_overloads(fn):
    """Parameter lists of each overload in a pybind11 docstring; None when the docstring has none."""
    doc = getattr(fn, "__doc__", None) or ""
    sigs = re.findall(r"^(?:\d+\. )?\w+\((.*)\) ->", doc, re.M)
    if not sigs:
        return None
    result = []
    for sig in sigs:
        params, kwonly = [], False
        for part in re.split(r", (?![^\[]*\])", sig):
            if part == "*":
                kwonly = True
            elif part == "*args":
                params.append({"name": "*args", "kind": "varargs", "kwonly": False, "optional": False})
            elif ":" in part:
                name, _, rest = part.partition(":")
                typ, _, default = rest.partition("=")
                kind = PYBIND_KINDS.get(typ.strip(), "any")
                if kind == "any":
                    kind = NAME_KINDS.get(name.strip(), "any")
                params.append(_param(name.strip(), kind, kwonly, bool(default.strip())))
        result.append(params)
    return result


def python_params(fn):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return None
    params = []
    for p in sig.parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            params.append({"name": "*" + p.name, "kind": "varargs", "kwonly": False, "optional": False})
        elif p.kind is p.VAR_KEYWORD:
            continue
        else:
            params.append(
                _param(p.name, NAME_KINDS.get(p.name, "any"), p.kind is p.KEYWORD_ONLY, p.default is not p.empty)
            )
    return [params]


def discover(gb):
    """Every callable target with its overloads' parameter lists, in a fixed order."""
    targets = []
    for qualified in sorted(gb.registry.operators()):
        if not qualified.startswith("glassbox::"):
            continue
        schema = gb.registry.operator_info(qualified)["schema"]
        targets.append({"target": ["op", qualified[len("glassbox::") :]], "overloads": [schema_params(schema)]})

    def add(kind, name, fn):
        overloads = pybind_overloads(fn) or python_params(fn)
        if overloads:
            targets.append({"target": [kind, name], "overloads": overloads})

    for name in sorted(dir(gb)):
        fn = getattr(gb, name)
        if name.startswith("_") or name in SKIP_FUNCTIONS or not callable(fn) or inspect.isclass(fn):
            continue
        if inspect.ismodule(fn) or isinstance(fn, gb.dtype):
            continue
        add("fn", name, fn)
    for name in sorted(dir(gb.Tensor)):
        fn = getattr(gb.Tensor, name, None)
        if name.startswith("_") or name in SKIP_METHODS or not callable(fn) or isinstance(fn, property):
            continue
        add("method", name, fn)
    for name, params in PROTOCOL_METHODS.items():
        if name in BUILTIN_PROTOCOLS or callable(getattr(gb.Tensor, name, None)):
            targets.append({"target": ["method", name], "overloads": [params]})
    functional = gb.nn.functional
    for name in sorted(dir(functional)):
        fn = getattr(functional, name)
        if name.startswith("_") or not callable(fn) or inspect.isclass(fn) or inspect.ismodule(fn):
            continue
        add("F", name, fn)
    return targets


# ---- argument generation -------------------------------------------------------------------------------------

SHAPES = [[], [3], [2, 3], [3, 1], [1, 3], [2, 3, 4], [2, 1, 3, 3], [4, 4], [1], [5]]
ODD_SHAPES = [[0], [2, 0], [0, 3], [1, 0, 2], [], [1, 1, 1, 1], [7, 1], [1, 65537]]
BIG_INTS = [2**31, 2**31 - 1, 2**32, 2**63 - 1, 2**63, 2**64, -(2**63), -(2**63) - 1, 10**30]
HOSTILE_ANY = [
    ["N"],
    ["V", "abc"],
    ["V", []],
    ["V", [1, 2]],
    ["V", 1.5],
    ["V", True],
    ["O", "object"],
    ["O", "dict"],
    ["O", "complex"],
    ["O", "bytes"],
    ["V", [[1, 2], [3]]],
    ["F", "nan"],
    ["V", -1],
]


def _int(v):
    return ["I", str(v)] if abs(v) > 2**53 else ["V", v]


class Generator:
    """Seeded argument lists. Every call draws a base shape; most arguments are plausible for it, and a hostile
    share replaces some with odd tensors, edge scalars, huge or negative ints and wrong types."""

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def tensor(self, shape=None, dtype=None, hostile=False):
        r = self.rng
        if shape is None:
            shape = r.choice(ODD_SHAPES if hostile and r.random() < 0.5 else SHAPES)
        if dtype is None:
            dtype = "float32" if r.random() < 0.45 else r.choice(DTYPES)
        fill = r.choice(
            ["normal", "normal", "small_int", "special", "large", "zero"]
            if hostile
            else ["normal", "normal", "normal", "small_int", "special"]
        )
        layout = r.choice(["contiguous", "contiguous", "transposed", "expanded", "strided", "offset"])
        if hostile and r.random() < 0.05:  # 2**32 elements in one: no output of this size fits the child's memory
            layout, shape = "huge_expanded", [2**16, 2**16]
        requires_grad = dtype in FLOAT_DTYPES and r.random() < 0.2
        return ["T", list(shape), dtype, fill, layout, requires_grad, r.randrange(2**31)]

    def value(self, kind, shape, hostile):
        r = self.rng
        if hostile and r.random() < 0.35:
            return r.choice(HOSTILE_ANY)
        if kind in ("tensor", "out"):
            return self.tensor(shape if r.random() < 0.7 else None, hostile=hostile)
        if kind == "tensor_opt":
            return ["N"] if r.random() < 0.4 else self.tensor(shape if r.random() < 0.5 else None, hostile=hostile)
        if kind == "tensor_or_scalar":
            return self.tensor(shape, hostile=hostile) if r.random() < 0.6 else self.value("scalar", shape, hostile)
        if kind in ("tensor_list", "tensor_opt_list"):
            n = r.choice([0, 1, 2, 3] if hostile else [1, 2, 3])
            items = []
            for _ in range(n):
                if kind == "tensor_opt_list" and r.random() < 0.3:
                    items.append(["N"])
                elif kind == "tensor_opt_list":
                    size = shape[0] if shape else 2
                    items.append(
                        ["T", [r.choice([2, 3])], "int64", "index", "contiguous", False, r.randrange(2**31), size]
                    )
                else:
                    items.append(self.tensor(shape if r.random() < 0.8 else None, hostile=hostile))
            return ["L", items]
        if kind in ("scalar", "scalar_opt"):
            if kind == "scalar_opt" and r.random() < 0.3:
                return ["N"]
            if hostile:
                return r.choice(
                    [
                        _int(r.choice(BIG_INTS)),
                        ["F", "nan"],
                        ["F", "inf"],
                        ["F", "-inf"],
                        ["V", 1e308],
                        ["V", -0.0],
                        ["V", 300],
                        ["V", -129],
                        ["V", True],
                        ["O", "complex"],
                    ]
                )
            return r.choice([["V", 2], ["V", -1], ["V", 0.5], ["V", 0], ["V", 2.5], ["V", True]])
        if kind in ("int", "int_opt"):
            if kind == "int_opt" and r.random() < 0.3:
                return ["N"]
            if hostile:
                return r.choice([_int(r.choice(BIG_INTS)), ["V", -1], ["V", -7], ["V", 0], ["V", 10**6]])
            return ["V", r.choice([0, 1, 2, 3])]
        if kind == "dim":
            if hostile:
                return r.choice([_int(r.choice(BIG_INTS)), ["V", 4], ["V", -5], ["V", 64], ["V", 1.0], ["N"]])
            nd = max(len(shape), 1)
            return ["V", r.randrange(-nd, nd)]
        if kind == "index":
            return self.index(shape, hostile)
        if kind in ("dims", "dims_opt"):
            if kind == "dims_opt" and r.random() < 0.25:
                return ["N"]
            nd = max(len(shape), 1)
            if hostile:
                return r.choice(
                    [
                        ["V", [0, 0]],
                        ["V", [-1, nd - 1]],
                        ["V", [nd + 3]],
                        ["L", [_int(2**64)]],
                        ["V", []],
                        ["V", [0, 1, 2, 3, 4, 5, 6]],
                        _int(2**64),
                        _int(-(2**63) - 1),
                    ]
                )
            return ["V", sorted(r.sample(range(nd), r.randint(1, nd)))]
        if kind == "size":
            if hostile:
                return r.choice(
                    [
                        ["V", [-1]],
                        ["V", [-2, 3]],
                        ["V", [0]],
                        ["V", []],
                        ["L", [_int(2**62), _int(2**62)]],
                        ["L", [_int(2**63)]],
                        ["V", [2**31, 2**31]],
                        ["V", [1.5]],
                        ["V", [-1, -1]],
                    ]
                )
            numel = 1
            for s in shape:
                numel *= s
            return ["V", r.choice([list(shape), [numel], [-1], [1, numel], [2, 3]])]
        if kind == "pair":
            if hostile:
                return r.choice([["V", [0, 0]], ["V", [-1, 2]], ["V", [2]], ["V", [1, 2, 3]], _int(2**63), ["V", 0]])
            return r.choice([["V", [1, 1]], ["V", [2, 2]], ["V", 1], ["V", [1, 2]]])
        if kind == "bool":
            return ["V", r.random() < 0.5] if not hostile else r.choice([["V", 2], ["N"], ["V", "yes"], ["V", 0]])
        if kind == "float":
            if hostile:
                return r.choice([["F", "nan"], ["F", "inf"], ["V", -1.0], ["V", 1e308], ["V", 2.0], _int(2**64)])
            return ["V", r.choice([0.0, 0.1, 0.5, 1e-5])]
        if kind in ("dtype", "dtype_opt"):
            if kind == "dtype_opt" and r.random() < 0.4:
                return ["N"]
            return ["D", r.choice(DTYPES)]
        if kind == "device":
            return r.choice(
                [["N"], ["V", "cpu"], ["V", "cpu"]]
                + ([["V", "cuda"], ["V", "cuda:9"], ["V", "xyz"], ["V", -1]] if hostile else [])
            )
        if kind == "reduction":
            return ["V", r.choice(["mean", "sum", "none"] + (["avg", ""] if hostile else []))]
        if kind == "approximate":
            return ["V", r.choice(["none", "tanh"] + (["erf"] if hostile else []))]
        if kind == "str":
            return ["V", r.choice(["mean", "none", "sum", "tanh", "abc"])]
        if kind == "data":
            return r.choice(
                [
                    ["V", [1, 2, 3]],
                    ["V", [[1.0, 2.0], [3.0, 4.0]]],
                    ["V", 3.5],
                    ["V", []],
                    ["V", [[1, 2], [3]]],
                    ["V", [True, 2, 3.5]],
                    _int(2**64),
                    ["V", [[]]],
                    ["N"],
                ]
            )
        if kind == "none":
            return ["N"]
        if kind == "varargs":
            nd = max(len(shape), 1)
            return ["V", list(shape) if r.random() < 0.5 else [r.randrange(-nd, nd) for _ in range(nd)]]
        return self.tensor(shape, hostile=hostile) if r.random() < 0.5 else r.choice(HOSTILE_ANY)

    def index(self, shape, hostile):
        """An index expression for shape: ints, slices, None, Ellipsis, masks, index tensors, or a tuple of them."""
        r = self.rng
        size = shape[0] if shape else 1

        def one():
            choice = r.randrange(9 if hostile else 6)
            if choice == 0:
                return ["V", r.randrange(-size, max(size, 1))]
            if choice == 1:
                return ["S", r.choice([None, 0, 1, -1]), r.choice([None, 2, -1]), r.choice([None, 1, 2])]
            if choice == 2:
                return ["N"]
            if choice == 3:
                return ["E"]
            if choice == 4:
                return [
                    "T",
                    [r.choice([1, 2, 3])],
                    "int64",
                    "index",
                    "contiguous",
                    False,
                    r.randrange(2**31),
                    max(size, 1),
                ]
            if choice == 5:
                return ["T", [size], "bool", "normal", "contiguous", False, r.randrange(2**31)]
            if choice == 6:
                return r.choice([_int(2**64), ["V", size + 5], ["V", -size - 5], ["V", 1.5], ["V", True]])
            if choice == 7:
                return ["S", r.choice([None, _int(2**63), -(10**6)]), None, r.choice([-1, 0, _int(2**64)])]
            return r.choice(HOSTILE_ANY)

        if r.random() < 0.6:
            return one()
        return ["U", [one() for _ in range(r.randint(0, 4))]]

    def call(self, call_id, target):
        r = self.rng
        params = r.choice(target["overloads"])
        shape = r.choice(SHAPES)
        hostile_share = r.choice([0.0, 0.15, 0.3, 0.6])
        args, kwargs = [], {}
        kind = target["target"][0]
        for i, p in enumerate(params):
            hostile = r.random() < hostile_share
            if p["kind"] == "out" and r.random() < 0.5:
                continue
            if p["optional"] and not hostile and r.random() < 0.5:
                continue  # leave the default
            if p["kind"] == "varargs":
                spec = self.value("varargs", shape, hostile)
                if spec[0] == "V" and isinstance(spec[1], list):
                    args.extend(["V", v] for v in spec[1])
                else:
                    args.append(spec)
                continue
            if kind == "method" and i == 0:
                spec = self.tensor(shape, hostile=hostile)  # self is always a tensor
            else:
                spec = self.value(p["kind"], shape, hostile)
            if p["kwonly"] or (p["optional"] and r.random() < 0.5 and kind != "method"):
                kwargs[p["name"]] = spec
            else:
                if kwargs:  # positional after a keyword: keep it a keyword
                    kwargs[p["name"]] = spec
                else:
                    args.append(spec)
        if r.random() < 0.03:
            args.append(r.choice(HOSTILE_ANY))  # one argument too many
        return {"id": call_id, "target": target["target"], "args": args, "kwargs": kwargs}


def generate(targets, seed, count):
    """count calls spread evenly over the targets (round-robin in a shuffled order), reproducible from seed."""
    gen = Generator(seed)
    order = list(range(len(targets)))
    calls = []
    while len(calls) < count:
        gen.rng.shuffle(order)
        for t in order:
            if len(calls) == count:
                break
            calls.append(gen.call(len(calls), targets[t]))
    return calls
