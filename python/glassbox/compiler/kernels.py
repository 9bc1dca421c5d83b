"""Building the generated C++ into a shared library and loading it, through gb.utils.cpp_extension.

The library's name is a hash of its source, its flags and the glassbox build it links, and its
build folder lives in the compile cache ($GLASSBOX_COMPILE_CACHE, else ~/.cache/glassbox/compile),
so an unchanged kernel is built once per machine and glassbox build: a second process finds the
library and only loads it. A kernel already registered in this process (the same group compiled
for another function) is not built again.
The CUDA kernels' binaries (nvrtc.py) are cached in the "cuda" folder of the same root, and
<glassbox/glassbox.h> is precompiled once per set of flags in its "pch_<hash>" folder: parsing the
headers was two thirds of a small kernel library's compile (cpp_extension.precompile_header)."""

import functools
import hashlib
import os
import platform
import threading
from concurrent.futures import ThreadPoolExecutor

from .. import registry
from ..utils import cpp_extension

# -fno-trapping-math lets the selects of vec_math.h become blends (as the engine is built);
# -fno-math-errno lets sqrt vectorise. Neither changes a result. -g1 (after the build type's -g)
# keeps the line tables and functions (gdb breaks at a generated line, `glassbox symbols` gives
# it) without the types and locals, which took a third of the compile: 7.0 s -> 4.9 s for the 23
# kernels of a small GPT's backward.
CFLAGS = ["-O3", "-march=native", "-mprefer-vector-width=512", "-fno-trapping-math", "-fno-math-errno", "-g1"]


def cache_root():
    return os.environ.get("GLASSBOX_COMPILE_CACHE") or os.path.join(
        os.path.expanduser("~"), ".cache", "glassbox", "compile"
    )


@functools.lru_cache(maxsize=None)
def machine_tag():
    """What -march=native compiles for: the processor's architecture and instruction-set flags, so
    that a cache copied to another machine builds its own kernels instead of loading foreign ones."""
    flags = ""
    try:
        with open("/proc/cpuinfo") as f:
            flags = next((line for line in f if line.startswith("flags")), "")
    except OSError:
        pass
    return platform.machine() + " " + flags.strip()


def _include_paths(with_cuda):
    from . import codegen_cuda

    return [codegen_cuda.cuda_include_dir()] if with_cuda else []


_background = ThreadPoolExecutor(max_workers=2, thread_name_prefix="glassbox-pch")
_precompiling = {}  # (cache root, with_cuda) -> Future of cpp_extension.precompile_header
_precompile_lock = threading.Lock()


def precompiled_header(with_cuda):
    """(Future of the header kernel libraries -include, whether an earlier process built it): it is
    precompiled in the background, started when a compilation begins (api.py); each process checks
    it once (a no-op for Ninja when it is current)."""
    key = (cache_root(), with_cuda)
    with _precompile_lock:
        if key not in _precompiling:
            header = cpp_extension.precompiled_header_path(key[0], CFLAGS, _include_paths(with_cuda), with_cuda)
            built = os.path.isfile(header + ".gch")  # by an earlier process: checking it is quick
            future = _background.submit(
                cpp_extension.precompile_header, key[0], CFLAGS, _include_paths(with_cuda), with_cuda
            )
            _precompiling[key] = (future, built)
        return _precompiling[key]


def _header_for(directory, with_cuda):
    """The precompiled header a library in `directory` compiles against, or None. A library built
    before keeps what it was built with (a cached library is never rebuilt for it). A new one uses
    the header once a .gch exists for the cache; the very first compile of a cache does not wait
    for its build (seconds on one core, while the kernels compile on the others): it is there for
    the libraries that follow."""
    pending, built_before = precompiled_header(with_cuda)
    project = os.path.join(directory, "CMakeLists.txt")
    if os.path.isfile(project):
        with open(project) as f:
            use = "-Winvalid-pch" in f.read()
    else:
        use = built_before or pending.done()
    if not use:
        return None
    try:
        return pending.result()
    except RuntimeError:  # (its build's error): the library parses the header itself
        return None


def missing(kernels_and_schemas):
    """The kernels not registered yet in this process."""
    known = set(registry.operators())
    return [(k, s) for k, s in kernels_and_schemas if k.op_name not in known]


def build_and_load(source, verbose=False):
    """Compiles `source` (unless cached) and loads it; returns the library's path. A source with
    wrappers of CUDA kernels (codegen_cuda) links glassbox's CUDA library (its current stream)."""
    return build_and_load_all([source], verbose)[0]


def parts_for(kernel_count):
    """How many translation units a library of kernel_count kernels is built from: one per
    KERNELS_PER_PART kernels, at most half the processors (a training step's two libraries build at
    once). On a 16-core host a step's 41 backward kernels compile as 7 files side by side; on 2
    cores every library is one file (a second would parse the headers again for nothing)."""
    return max(1, min(-(-kernel_count // KERNELS_PER_PART), (os.cpu_count() or 1) // 2))


KERNELS_PER_PART = 6


def build_and_load_all(sources, verbose=False):
    """build_and_load for several sources (a training step's forward and backward): they compile at
    the same time, each in its own compiler process, and load in the order given. A source may be a
    list of translation units (codegen_cpp.source_files), which compile side by side."""
    from concurrent.futures import ThreadPoolExecutor

    from ..utils import cmake_prefix_path
    from . import codegen_cuda

    def build(source):
        units = source if isinstance(source, list) else [source]
        # The glassbox the library links is part of its identity: two builds of glassbox (two
        # checkouts) never share, nor rebuild each other's, kernel libraries.
        key = "\f".join(units) + " ".join(CFLAGS) + machine_tag() + cmake_prefix_path
        digest = hashlib.sha1(key.encode()).hexdigest()[:16]
        name = "gb_compiled_" + digest
        with_cuda = any(codegen_cuda.HOST_PRELUDE in u for u in units)
        path = cpp_extension.build_inline(
            name,
            cpp_sources=units,
            extra_cflags=CFLAGS,
            extra_include_paths=_include_paths(with_cuda),
            build_directory=os.path.join(cache_root(), name),
            verbose=verbose,
            with_cuda=with_cuda,
            separate=True,
            precompiled_header=_header_for(os.path.join(cache_root(), name), with_cuda),
        )
        return path

    if len(sources) <= 1:
        paths = [build(s) for s in sources]
    else:
        with ThreadPoolExecutor(max_workers=len(sources)) as pool:
            paths = list(pool.map(build, sources))
    return [cpp_extension.load_library(path, verbose=verbose).__file__ for path in paths]
