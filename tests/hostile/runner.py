"""Runs hostile calls (calls.py) in child processes and records what each did.

    python runner.py worker BACKEND CALLS.json START FD   (the child: glassbox or torch, results as JSON lines on FD)

run_calls() is the supervisor: it starts workers, reads one result line per call, and when a worker dies (a
signal) or stops answering (a hang, past the per-call limit) it records that call as "crash"/"hang" and starts a
new worker after it. Children get an address-space limit, so a huge allocation fails instead of swapping.
Outcomes: {"id", "outcome": "ok"|"raise"|"crash"|"hang"|"setup", "error": class name, "allowed": bool,
"message": first line, "result": summary of the returned value (shape, dtype, values)}.
"""

import json
import math
import operator
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

# What PyTorch raises for bad arguments (its practice, checked by differential.py over the same calls):
# RuntimeError and its subclass NotImplementedError for values and shapes, TypeError for argument types,
# IndexError for dimensions and indices, ValueError for bad option strings, OverflowError for Python ints too large
# for C types. Anything else (SystemError, ZeroDivisionError, AttributeError, KeyError, AssertionError, ...) is
# a bug in how the error surfaced.
# gb.load/gb.save of a path that is missing or a folder raise what open() raises, as torch.load/save do; of an
# object that is no file the AttributeError torch.load/save raise; and load of a file that holds no pickle (another
# call may have left one empty) what the unpickler raises, EOFError or UnpicklingError, as torch.load does.
ALLOWED_ERRORS = (RuntimeError, TypeError, ValueError, IndexError, OverflowError, FileNotFoundError, IsADirectoryError)
TARGET_ERRORS = {"save": ("AttributeError",), "load": ("AttributeError", "EOFError", "UnpicklingError")}

RANDOM_TARGETS = {
    "rand",
    "randn",
    "randint",
    "randperm",
    "dropout",
    "bernoulli",
    "bernoulli_",
    "normal_",
    "uniform_",
    "random_",
    "empty",
    "empty_strided",
    "empty_like",
    "native_dropout",
    "rand_like",
    "randn_like",
    "random_.from",
    "random_.to",
    "bernoulli.p",
    "bernoulli_.float",
    "empty.memory_format",
}
VALUE_LIMIT = 4096  # elements kept per result for comparison


def _as_array(t):
    import numpy

    return numpy.asarray(t)


class Backend:
    """The few things materialise() needs from glassbox or torch."""

    def __init__(self, name):
        self.name = name
        if name == "torch":
            import torch

            self.lib = torch
            self.F = torch.nn.functional
            self.ops = torch.ops.aten
            torch.set_num_threads(1)
        else:
            import glassbox

            self.lib = glassbox
            self.F = glassbox.nn.functional
            self.ops = glassbox.ops.glassbox
        self.Tensor = self.lib.Tensor

    def dtype(self, name):
        return getattr(self.lib, name)

    def target(self, kind, name):
        if kind == "op":
            base, _, overload = name.partition(".")
            if self.name == "glassbox" and not overload:  # gb.ops spells the default overload ""
                return sys.modules["glassbox.ops"].OpOverload("glassbox::" + base)
            return getattr(getattr(self.ops, base), overload or "default")
        if kind == "fn":
            return getattr(self.lib, name)
        if kind == "method":
            builtin = {
                "__bool__": bool,
                "__float__": float,
                "__int__": int,
                "__index__": operator.index,
                "__len__": len,
                "__repr__": repr,
                "__array__": _as_array,
            }.get(name)
            return builtin or getattr(self.Tensor, name)
        return getattr(self.F, name)


def _numpy_values(np, shape, dtype, fill, seed, storage, index_size=None):
    rs = np.random.RandomState(seed)
    if fill == "index":
        return rs.randint(-index_size, max(index_size, 1), size=storage).astype(np.int64)
    base = rs.standard_normal(storage) * 3
    if fill == "small_int":
        base = rs.randint(-3, 4, size=storage).astype(np.float64)
    elif fill == "special":
        specials = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1e30, -1.5])
        mask = rs.random_sample(storage) < 0.3
        base = np.where(mask, specials[rs.randint(0, len(specials), size=storage)], base)
    elif fill == "large":
        base = base * 1e6 if dtype in ("float16", "bfloat16") else base * 1e37
    elif fill == "zero":
        base = np.zeros(storage)
    if dtype == "bool":
        return base > 0
    if dtype in ("float32", "float64", "float16", "bfloat16"):
        return base.astype(np.float64 if dtype == "float64" else np.float32 if dtype != "float16" else np.float16)
    info = np.iinfo(dtype)
    if fill == "large":
        base = np.where(rs.random_sample(storage) < 0.5, info.max, info.min).astype(np.float64)
    base = np.nan_to_num(base, nan=0.0, posinf=info.max, neginf=info.min)
    return np.clip(np.round(base), info.min, info.max).astype(dtype)


def _layout(shape, layout):
    """(strides, offset, storage length) of a tensor of this shape and layout."""
    n = len(shape)
    contiguous = [1] * n
    for i in range(n - 2, -1, -1):
        contiguous[i] = contiguous[i + 1] * max(shape[i + 1], 1)
    strides, offset = list(contiguous), 0
    if layout == "transposed" and n >= 2:
        rev = [1] * n
        for i in range(1, n):
            rev[i] = rev[i - 1] * max(shape[i - 1], 1)
        strides = rev
    elif layout in ("expanded", "huge_expanded"):
        strides = [
            0 if s > 1 and (i % 2 == 0 or layout == "huge_expanded") else st
            for i, (s, st) in enumerate(zip(shape, contiguous))
        ]
        if layout == "huge_expanded":
            strides = [0] * n
    elif layout == "strided":
        strides = [st * 2 for st in contiguous]
    elif layout == "offset":
        offset = 1
    if any(s == 0 for s in shape):
        return strides, offset, offset + 1
    return strides, offset, offset + 1 + sum((s - 1) * st for s, st in zip(shape, strides))


def materialise(spec, B, np):
    tag = spec[0]
    if tag == "V":
        return spec[1]
    if tag == "F":
        return float(spec[1])
    if tag == "I":
        return int(spec[1])
    if tag == "N":
        return None
    if tag == "D":
        return B.dtype(spec[1])
    if tag == "L":
        return [materialise(s, B, np) for s in spec[1]]
    if tag == "S":
        return slice(*[materialise(v, B, np) if isinstance(v, list) else v for v in spec[1:]])
    if tag == "E":
        return Ellipsis
    if tag == "U":
        return tuple(materialise(s, B, np) for s in spec[1])
    if tag == "O":
        return {"object": object(), "dict": {"a": 1}, "complex": 1 + 2j, "bytes": b"x"}[spec[1]]
    _, shape, dtype, fill, layout, requires_grad, seed = spec[:7]
    strides, offset, storage = _layout(shape, layout)
    values = _numpy_values(np, shape, dtype, fill, seed, storage, spec[7] if len(spec) > 7 else None)
    # A copy, not from_numpy's view of NumPy's memory: PyTorch refuses to resize such a storage (out=).
    base = B.lib.from_numpy(values).clone()
    if dtype == "bfloat16":
        base = base.to(B.dtype("bfloat16"))
    if requires_grad:
        base = base.clone().requires_grad_(True)
    if layout == "contiguous" and offset == 0 and all(shape):
        return base.view(list(shape))
    return base.as_strided(list(shape), strides, offset)


def summarise(value, B, np, depth=0):
    if isinstance(value, B.Tensor):
        out = {"shape": list(value.shape), "dtype": str(value.dtype).split(".")[-1]}
        if value.numel() <= VALUE_LIMIT:
            t = value.detach()
            if out["dtype"] in ("bfloat16", "float16"):
                t = t.to(B.dtype("float32"))
            arr = np.asarray(t.cpu().numpy() if hasattr(t, "cpu") else t.numpy(), dtype=np.float64).ravel()
            out["values"] = [None if math.isnan(v) else v for v in arr.tolist()]
        return out
    if isinstance(value, (tuple, list)) and depth < 2:
        return {"seq": [summarise(v, B, np, depth + 1) for v in value[:16]], "len": len(value)}
    if isinstance(value, (bool, int, float)) or value is None:
        if isinstance(value, float) and math.isnan(value):
            return {"scalar": "nan"}
        return {"scalar": value if not isinstance(value, int) or abs(value) < 2**53 else str(value)}
    return {"type": type(value).__name__}


def run_one(call, B, np):
    try:
        args = [materialise(s, B, np) for s in call["args"]]
        kwargs = {k: materialise(s, B, np) for k, s in call["kwargs"].items()}
        fn = B.target(*call["target"])
    except Exception as e:  # the setup itself failed: nothing was called
        return {"outcome": "setup", "error": type(e).__name__, "message": str(e).split("\n")[0][:200]}
    try:
        result = fn(*args, **kwargs)
    except BaseException as e:  # noqa: B902 - every class is recorded, the supervisor judges it
        if isinstance(e, KeyboardInterrupt):
            raise
        allowed = isinstance(e, ALLOWED_ERRORS) or type(e).__name__ in TARGET_ERRORS.get(call["target"][1], ())
        return {
            "outcome": "raise",
            "error": type(e).__name__,
            "allowed": allowed,
            "message": str(e).split("\n")[0][:200],
        }
    try:
        return {"outcome": "ok", "result": summarise(result, B, np)}
    except Exception as e:
        return {"outcome": "ok", "result": {"unreadable": "%s: %s" % (type(e).__name__, str(e).split("\n")[0][:120])}}


def worker(backend, calls_path, start, fd):
    import warnings

    import numpy as np

    warnings.simplefilter("ignore")
    B = Backend(backend)
    with open(calls_path) as f:
        calls = json.load(f)
    out = os.fdopen(fd, "w")
    for call in calls[start:]:
        B.lib.manual_seed(0)
        result = run_one(call, B, np)
        result["id"] = call["id"]
        out.write(json.dumps(result) + "\n")
        out.flush()


def _limit_memory(limit_bytes):
    def apply():
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    return apply


def run_calls(
    calls,
    backend="glassbox",
    python=sys.executable,
    env=None,
    per_call_timeout=20.0,
    workers=2,
    memory_limit=3 << 30,
    progress=None,
):
    """Outcome of every call (a list in call order). Calls are split into `workers` contiguous shares run side by
    side; each share is one child, replaced after a crash or a hang."""
    env = dict(os.environ if env is None else env)
    env.update(
        {
            "OMP_NUM_THREADS": "1",
            "OPENBLAS_NUM_THREADS": "1",
            "GLASSBOX_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
    )
    tmp = tempfile.mkdtemp(prefix="glassbox-hostile-")
    # The children work in the temporary folder (a hostile gb.save("abc") writes there, not into
    # the source tree), so the paths they import from must not be relative.
    for name in ("PYTHONPATH", "GLASSBOX_BUILD_DIR"):
        if env.get(name):
            env[name] = os.pathsep.join(os.path.abspath(p) for p in env[name].split(os.pathsep))
    calls_path = os.path.join(tmp, "calls.json")
    with open(calls_path, "w") as f:
        json.dump(calls, f)
    results = [None] * len(calls)
    bounds = [(len(calls) * i // workers, len(calls) * (i + 1) // workers) for i in range(workers)]
    shares = [{"next": lo, "end": hi, "proc": None} for lo, hi in bounds if hi > lo]

    def start(share):
        r, w = os.pipe()
        stderr = open(os.path.join(tmp, "stderr-%d.txt" % share["next"]), "w+")
        share["proc"] = subprocess.Popen(
            [python, os.path.abspath(__file__), "worker", backend, calls_path, str(share["next"]), str(w)],
            env=env,
            cwd=tmp,
            pass_fds=(w,),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            preexec_fn=_limit_memory(memory_limit),
        )
        os.close(w)
        share["reader"], share["buf"], share["stderr"] = os.fdopen(r, "rb", buffering=0), b"", stderr
        share["deadline"] = time.monotonic() + per_call_timeout + 10  # the first call also pays the import

    def stop(share, outcome, detail):
        proc = share["proc"]
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        share["stderr"].seek(0)
        tail = share["stderr"].read()[-600:]
        share["stderr"].close()
        share["reader"].close()
        i = share["next"]
        results[i] = {"id": calls[i]["id"], "outcome": outcome, "error": detail, "stderr": tail}
        share["next"] += 1
        share["proc"] = None

    for share in shares:
        start(share)
    while any(s["proc"] for s in shares):
        live = [s for s in shares if s["proc"]]
        ready, _, _ = select.select([s["reader"] for s in live], [], [], 0.5)
        for share in live:
            if share["reader"] in ready:
                chunk = share["reader"].read(1 << 16)
                if not chunk:  # the child exited
                    code = share["proc"].wait()
                    if share["next"] < share["end"]:
                        stop(share, "crash", "exit status %d" % code if code >= 0 else "signal %d" % -code)
                        if share["next"] < share["end"]:
                            start(share)
                    else:
                        share["proc"] = None
                    continue
                share["buf"] += chunk
                *lines, share["buf"] = share["buf"].split(b"\n")
                for line in lines:
                    if share["next"] >= share["end"]:
                        break
                    record = json.loads(line)
                    results[share["next"]] = record
                    share["next"] += 1
                    share["deadline"] = time.monotonic() + per_call_timeout
                    if progress:
                        progress()
                if share["next"] >= share["end"] and share["proc"]:
                    share["proc"].kill()
                    share["proc"].wait()
                    share["reader"].close()
                    share["stderr"].close()
                    share["proc"] = None
            elif time.monotonic() > share["deadline"]:
                stop(share, "hang", "no answer within %.0f s" % per_call_timeout)
                if share["next"] < share["end"]:
                    start(share)
    shutil.rmtree(tmp, ignore_errors=True)  # the calls, the children's stderr and what they wrote
    return results


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[1] == "worker":
        worker(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    else:
        sys.exit(__doc__)
