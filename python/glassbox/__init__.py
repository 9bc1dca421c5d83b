"""glassbox: a tensor engine you can see through, and the tools to look inside any C++ build.

Installed (`pip install .`), the compiled parts (glassbox._C and friends) sit in this package with
the engine's libraries in glassbox/lib. In a source checkout they live in the CMake build, by
default <repo>/build/dev/python/glassbox; set GLASSBOX_BUILD_DIR to use another build (e.g. build/debug).
"""

import importlib.machinery as _machinery
import os as _os

_here = _os.path.dirname(_os.path.abspath(__file__))
_installed = any(_os.path.exists(_os.path.join(_here, "_C" + s)) for s in _machinery.EXTENSION_SUFFIXES)
_repo = _os.path.dirname(_os.path.dirname(_here))
_build = _os.path.abspath(_os.environ.get("GLASSBOX_BUILD_DIR", _os.path.join(_repo, "build", "dev")))
if "GLASSBOX_BUILD_DIR" in _os.environ:  # a relative one made absolute, for processes started elsewhere
    _os.environ["GLASSBOX_BUILD_DIR"] = _build
_ext_dir = _here if _installed else _os.path.join(_build, "python", "glassbox")
if not _installed and _os.path.isdir(_ext_dir) and _ext_dir not in __path__:
    __path__.append(_ext_dir)

try:
    from . import _C  # noqa: E402
except ImportError as _e:  # pragma: no cover - only when the build is missing
    raise ImportError(
        f"glassbox's compiled module was not found in {_ext_dir} ({_e}); "
        "run scripts/bootstrap to build it, or set GLASSBOX_BUILD_DIR to your build directory"
    ) from None

from . import registry  # noqa: E402
from .registry import trace_calls  # noqa: E402,F401
from .ops import ops  # noqa: E402
from ._C import Tensor, dtype, from_numpy, set_num_threads, get_num_threads  # noqa: E402,F401
from ._tensor_factory import tensor  # noqa: E402
from ._dlpack import from_dlpack  # noqa: E402
from ._trace import trace, TraceEvent  # noqa: E402
from . import library  # noqa: E402
from . import utils  # noqa: E402,F401  (cmake_prefix_path, cpp_extension)

# Every operator of ops.yaml with a function variant, typed: gb.add, gb.neg, gb.transpose, ...
for _name in dir(_C._functions):
    if not _name.startswith("_") and _name not in globals():
        globals()[_name] = getattr(_C._functions, _name)
del _name
from . import return_types  # noqa: E402,F401
from ._dim_arguments import functions as _dim_functions  # noqa: E402  (axis=, named results)

globals().update(_dim_functions)
from ._factories import (  # noqa: E402,F401
    empty,
    zeros,
    ones,
    full,
    rand,
    randn,
    zeros_like,
    ones_like,
    manual_seed,
    seed,
    initial_seed,
)
from ._tensor_conversions import (  # noqa: E402,F401  (and Tensor.float/.long/.type/.T/.mT/...)
    empty_like,
    full_like,
    rand_like,
    randn_like,
    clip,
    allclose,
    equal,
    where,
)

# Shape, diagonal, indexing, reduction and scan functions written in Python over the operators
# (each module also sets the Tensor methods of the same names).
from . import _shape_ops, _diagonals, _indexing_ops, _reductions_extra, _scans, _einsum  # noqa: E402

for _module in (_shape_ops, _diagonals, _indexing_ops, _reductions_extra, _scans, _einsum):
    globals().update(_module.FUNCTIONS)
from ._out_argument import OUT_FUNCTIONS as _OUT_FUNCTIONS, with_out as _with_out  # noqa: E402

for _name in _OUT_FUNCTIONS:
    globals()[_name] = _with_out(_name, globals()[_name])
del _module, _name
from . import autograd  # noqa: E402
from . import _tensor_protocols  # noqa: E402,F401  (bool(t), x in t)
from ._serialization import save, load  # noqa: E402,F401  (and pickling, copy.deepcopy)
from . import _device_methods  # noqa: E402,F401  (Tensor.cuda, .cpu, .is_cuda)
from ._device import device  # noqa: E402,F401  (and Tensor.device returns one)
from . import backends, cuda  # noqa: E402,F401
from . import nn, optim  # noqa: E402,F401
from . import graphs, paths  # noqa: E402,F401
from . import profiler  # noqa: E402,F401
from .compiler import compile  # noqa: E402,F401
from .autograd import enable_grad, no_grad, set_grad_enabled, is_grad_enabled  # noqa: E402,F401

float32, float64, float16, bfloat16 = dtype.float32, dtype.float64, dtype.float16, dtype.bfloat16
int64, int32, int16, int8, uint8, bool = dtype.int64, dtype.int32, dtype.int16, dtype.int8, dtype.uint8, dtype.bool
# PyTorch's other names of the dtypes (gb.float is float32, gb.long int64, ...).
float, double, half = float32, float64, float16  # noqa: A001
int, long, short = int32, int64, int16  # noqa: A001

# Registration errors from static initialisers cannot raise in C++; they surface here.
_load_errors = _C._registry.load_errors()
if _load_errors:
    raise ImportError("glassbox registration failed while loading:\n" + "\n".join(_load_errors))

try:  # the introspection tools are optional (not built on machines without their libraries)
    from . import introspect  # noqa: E402,F401
except ImportError:
    pass

__all__ = [
    "registry",
    "trace_calls",
    "ops",
    "Tensor",
    "dtype",
    "from_numpy",
    "tensor",
    "autograd",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "is_grad_enabled",
    "from_dlpack",
    "trace",
    "TraceEvent",
    "library",
    "save",
    "load",
]
