"""Every operator of the op table on the Meta device and on the device under test (the CPU, or CUDA
with --device cuda), called with the same arguments: valid ones must give results of the same
shape, dtype and strides on both; invalid ones (derived from each valid sample below) must raise
the same exception class with the same text on both, or succeed alike.

The Meta kernel of an operator is its front end run without compute, so any difference here is a
check, a shape rule or an error text that one backend has and the other lacks."""

import contextlib
import zlib

import numpy as np
import pytest

import devices
import glassbox as gb
from optable import ALL

ops = gb.ops.glassbox

# Samples whose result needs the values of an input: the number of true elements of a bool mask, the
# largest class index, the data itself (a copy to another device). Meta cannot know it: it either
# refuses with an error that names the meta device or gives what it can (index_put returns self),
# and the invalid variants of these samples are not derived. Entry name -> sample names (None: all).
DATA_DEPENDENT = {
    "to.device": None,
    "to.device(dtype)": None,
    "masked_select": None,
    "index.Tensor": {"2-d bool mask", "mask and 0-d index"},
    "index_put": {"mask"},
    "index_put(accumulate)": {"mask"},
    "index_put_": {"mask"},
    "one_hot": {"inferred classes"},
    "repeat_interleave(tensor)": None,
    "nonzero": None,
    "nonzero(as_tuple)": None,
    "unique": None,
}


def needs_values(info, sample):
    if info.name not in DATA_DEPENDENT:
        return False
    names = DATA_DEPENDENT[info.name]
    return names is None or sample.name in names


# The factories the table calls without a device: off the CPU they are given the device compared.
FACTORIES = ("arange", "linspace", "eye", "empty_strided", "empty", "zeros", "ones", "full", "rand", "randn", "randint")


@contextlib.contextmanager
def on(device):
    """Inputs made by the table (arrays, Index objects, tensors of a sample) land on `device`, and so
    do the tensors its factories make when no device is named."""
    saved_device, saved = devices.DEVICE, {}
    devices.set_device(device)
    if device != "cpu":
        for name in FACTORIES:
            saved[name] = getattr(ops, name)
            setattr(ops, name, _with_default_device(saved[name], device))
    try:
        yield
    finally:
        devices.set_device(saved_device)
        for name, fn in saved.items():
            setattr(ops, name, fn)


def _with_default_device(fn, device):
    def call(*args, **kwargs):
        kwargs.setdefault("device", device)
        return fn(*args, **kwargs)

    return call


def to_tensor(a, dtype):
    """A tensor of `dtype` (a glassbox dtype name) holding array a's values, on the current device."""
    t = gb.from_numpy(a)
    if str(t.dtype) != f"glassbox.{dtype}":
        t = ops.to(t, getattr(gb, dtype))
    return devices.on_device(t)


def convert(value, dtype):
    if isinstance(value, gb.Tensor):
        return devices.on_device(value)
    if isinstance(value, np.ndarray):
        return to_tensor(value, dtype)
    if isinstance(value, (list, tuple)) and value and all(isinstance(v, np.ndarray) for v in value):
        return [to_tensor(v, dtype) for v in value]
    return value


def describe(result):
    """What a call's result is made of: (shape, dtype, strides) per tensor, recursively."""
    if isinstance(result, gb.Tensor):
        return ("tensor", tuple(result.shape), str(result.dtype), tuple(result.stride()))
    if isinstance(result, (list, tuple)):
        return tuple(describe(r) for r in result)
    return ("value", type(result).__name__)


def outcome(device, call):
    with on(device):
        try:
            result = call()
        except Exception as e:  # noqa: BLE001 - the class and the text are what is compared
            return ("error", type(e).__name__, str(e))
        return ("ok", describe(result), devices_of(result))


def devices_of(result):
    if isinstance(result, gb.Tensor):
        return {str(result.device).split(":")[0]}
    if isinstance(result, (list, tuple)):
        return set().union(*[devices_of(r) for r in result]) if result else set()
    return set()


# ---- invalid arguments, derived from a valid sample (each a function: (sample, dtype, info) -> variants)
def wrong_dtypes(args, kwargs, dtype, info):
    """Every array of the sample's dtype given as a dtype the entry does not list (one integer, one
    floating, bool): each must be refused alike, or accepted alike."""
    others = [d for d in ("int64", "float32", "float64", "bool", "float16") if d not in info.dtypes]
    for other in others[:2]:
        yield f"dtype {other}", args, kwargs, other


def incompatible_shapes(args, kwargs, dtype, info):
    """The last array argument one element longer in its last dim (or 1-d of 2 when it is 0-d)."""
    positions = [i for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    if len(positions) < 2:
        return
    i = positions[-1]
    a = args[i]
    shape = a.shape[:-1] + (a.shape[-1] + 1,) if a.ndim else (2,)
    bigger = np.resize(a, shape)
    yield f"arg {i} shape {shape}", [*args[:i], bigger, *args[i + 1 :]], kwargs, dtype


def dims_out_of_range(args, kwargs, dtype, info):
    """Each integer argument (a dim, a size, a count) replaced by 9 and by -9; each int list's first
    element likewise."""
    for i, a in enumerate(args):
        if isinstance(a, (bool, np.bool_)):
            continue
        if isinstance(a, (int, np.integer)):
            for v in (9, -9):
                yield f"arg {i} = {v}", [*args[:i], v, *args[i + 1 :]], kwargs, dtype
        elif isinstance(a, (list, tuple)) and a and all(isinstance(x, int) and not isinstance(x, bool) for x in a):
            yield f"arg {i}[0] = 9", [*args[:i], type(a)([9, *a[1:]]), *args[i + 1 :]], kwargs, dtype


MUTATIONS = (wrong_dtypes, incompatible_shapes, dims_out_of_range)


@contextlib.contextmanager
def outputs_of_dtype(dtype):
    """The tensors an out= entry allocates for its output get `dtype` instead of the one asked."""
    empty = ops.empty

    def wrong(*args, **kwargs):
        kwargs["dtype"] = getattr(gb, dtype)
        return empty(*args, **kwargs)

    ops.empty = wrong
    try:
        yield
    finally:
        ops.empty = empty


def is_out_entry(info):
    return info.name.endswith(("out", ".out)")) or "_out" in info.name or "out=" in info.name


def samples_of(info, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{info.name}-{dtype}".encode()))
    return info.samples(rng, dtype)


def call_of(info, args, kwargs, dtype):
    return lambda: info.op(*[convert(a, dtype) for a in args], **kwargs)


def compare(name, device, call, wrap=contextlib.nullcontext):
    """What differs between the device under test and Meta for one call (None when nothing does)."""
    with wrap():
        here = outcome(device, call)
    with wrap():
        meta = outcome("meta", call)
    if here[0] == "ok" and meta[0] == "ok":
        if not meta[2] <= {"meta"}:
            return f"{name}: a Meta call returned tensors on {meta[2]}"
        if here[1] != meta[1]:
            return f"{name}: {device} gives {here[1]}, Meta gives {meta[1]}"
    elif here[:3] != meta[:3]:
        return f"{name}: {device} gives {here}, Meta gives {meta}"
    return None


@pytest.mark.parametrize("info", ALL, ids=[info.name for info in ALL])
def test_meta_matches_device(info):
    """Valid samples in every dtype the entry lists, then the invalid variants of the first dtype's samples."""
    device, problems = devices.DEVICE, []
    for dtype in info.dtypes:
        for s in samples_of(info, dtype):
            name, call = f"{info.name} [{s.name}] {dtype}", call_of(info, s.args, s.kwargs, dtype)
            problems.append(
                check_data_dependent(name, device, call) if needs_values(info, s) else compare(name, device, call)
            )
    dtype = info.dtypes[0]
    for s in samples_of(info, dtype):
        if needs_values(info, s):
            continue
        for mutate in MUTATIONS:
            for what, args, kwargs, as_dtype in mutate(list(s.args), dict(s.kwargs), dtype, info):
                problems.append(
                    compare(f"{info.name} [{s.name}] {dtype}, {what}", device, call_of(info, args, kwargs, as_dtype))
                )
        if is_out_entry(info):
            for wrong in ("bool", "int8"):
                problems.append(
                    compare(
                        f"{info.name} [{s.name}] {dtype}, out= of {wrong}",
                        device,
                        call_of(info, s.args, s.kwargs, dtype),
                        lambda wrong=wrong: outputs_of_dtype(wrong),
                    )
                )
    problems = [p for p in problems if p]
    assert not problems, f"{len(problems)} calls differ:\n" + "\n".join(problems[:8])


def check_data_dependent(name, device, call):
    """The device under test succeeds; Meta gives the same result or refuses naming the meta device."""
    here, meta = outcome(device, call), outcome("meta", call)
    if here[0] != "ok":
        return f"{name}: {device} gives {here}"
    if meta[0] == "ok" and here[1] != meta[1]:
        return f"{name}: {device} gives {here[1]}, Meta gives {meta[1]}"
    if meta[0] == "error" and "meta" not in meta[2]:
        return f"{name}: Meta refuses without naming the meta device: {meta}"
    return None


def test_data_dependent_entries_exist():
    """Every name of DATA_DEPENDENT is an entry of the op table (a renamed entry would escape the checks)."""
    names = {info.name for info in ALL}
    assert set(DATA_DEPENDENT) <= names, sorted(set(DATA_DEPENDENT) - names)
