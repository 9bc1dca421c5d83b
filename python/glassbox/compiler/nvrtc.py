"""NVRTC through ctypes: generated CUDA C++ compiled at run time into a binary for one GPU
architecture, cached on disk by a content hash, plus the two facts of the driver the compile needs
(is there one, and which architecture is device N).

    image = nvrtc.cached_image(source, "fused_exp_mul_1a2b3c4d", (9, 0))
    image.path     # <compile cache>/cuda/fused_exp_mul_1a2b3c4d_<hash>.cubin
    image.kind     # "cubin" (or "ptx" when NVRTC predates the device: the driver compiles it)

The hash covers the source, the architecture, NVRTC's version and the options, so a second process
(or a second graph with the same group) loads the binary without running NVRTC. With
background=True the compile runs in a thread pool (NVRTC is thread-safe, and ctypes lets go of the
GIL while it works): a training step's dozens of kernels compile at once, and at the same time as
the C++ wrappers that will load them; finish() waits for them. Nothing here needs
a GPU: NVRTC compiles for any architecture it knows, which is how the tests check the generated
source on a machine without one."""

import ctypes
import ctypes.util
import functools
import glob
import hashlib
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from . import kernels

# No fast-math: the fused kernels compute what the library's CUDA kernels (built by nvcc without it)
# compute. -lineinfo lets profilers and compute-sanitizer name the generated line.
OPTIONS = ["-std=c++17", "-lineinfo"]

stats = {"nvrtc_runs": 0, "cache_hits": 0}  # what cached_image did in this process
_pending = {}  # path -> the future of a compile cached_image(background=True) started


class CudaCodegenUnavailable(RuntimeError):
    """NVRTC or the CUDA driver cannot be loaded: CUDA groups run as library calls."""


def _toolkit_roots():
    roots = [os.environ.get(k) for k in ("CUDA_HOME", "CUDA_PATH")] + ["/usr/local/cuda"]
    return [r for r in roots if r]


@functools.lru_cache(maxsize=None)
def _nvrtc():
    """(the loaded libnvrtc, its path); $GLASSBOX_NVRTC names the library to use."""
    explicit = os.environ.get("GLASSBOX_NVRTC")
    candidates = [explicit] if explicit else []
    if not explicit:
        for root in _toolkit_roots():
            candidates += sorted(glob.glob(os.path.join(root, "lib64", "libnvrtc.so*")), key=len)
        found = ctypes.util.find_library("nvrtc")
        candidates += [found] if found else []
        candidates += ["libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so"]
    errors = []
    for path in candidates:
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append(str(e))
    raise CudaCodegenUnavailable(
        "NVRTC (libnvrtc) could not be loaded (tried %s; set CUDA_HOME or GLASSBOX_NVRTC): %s"
        % (", ".join(candidates), errors[-1] if errors else "no candidate")
    )


@functools.lru_cache(maxsize=None)
def _driver():
    """libcuda (the driver API), initialised."""
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        raise CudaCodegenUnavailable("the CUDA driver (libcuda.so.1) could not be loaded: %s" % e) from None
    status = lib.cuInit(0)
    if status != 0:
        raise CudaCodegenUnavailable("the CUDA driver failed to initialise (cuInit returned %d)" % status)
    return lib


@functools.lru_cache(maxsize=None)
def version():
    """NVRTC's (major, minor)."""
    lib, _ = _nvrtc()
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(lib, lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
    return major.value, minor.value


def library_path():
    return _nvrtc()[1]


@functools.lru_cache(maxsize=None)
def supported_archs():
    """The sm_XY numbers (as 90, 100, ...) this NVRTC compiles for."""
    lib, _ = _nvrtc()
    count = ctypes.c_int()
    _check(lib, lib.nvrtcGetNumSupportedArchs(ctypes.byref(count)), "nvrtcGetNumSupportedArchs")
    archs = (ctypes.c_int * count.value)()
    _check(lib, lib.nvrtcGetSupportedArchs(archs), "nvrtcGetSupportedArchs")
    return tuple(archs)


def device_arch(index):
    """The compute capability (major, minor) of CUDA device `index`, from the driver."""
    lib = _driver()
    device, major, minor = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    if lib.cuDeviceGet(ctypes.byref(device), index) != 0:
        raise CudaCodegenUnavailable("the CUDA driver has no device %d" % index)
    lib.cuDeviceGetAttribute(ctypes.byref(major), 75, device)  # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
    lib.cuDeviceGetAttribute(ctypes.byref(minor), 76, device)  # ..._MINOR
    return major.value, minor.value


def include_dir():
    """The CUDA toolkit's include folder (cuda.h: the wrappers are built against the driver API)."""
    for root in _toolkit_roots():
        if os.path.isfile(os.path.join(root, "include", "cuda.h")):
            return os.path.join(root, "include")
    raise CudaCodegenUnavailable(
        "cuda.h not found under %s (set CUDA_HOME to the CUDA toolkit)" % ", ".join(_toolkit_roots())
    )


@functools.lru_cache(maxsize=None)
def unavailable_reason():
    """None when CUDA kernels can be generated here (NVRTC and the driver load, the toolkit's
    headers are there for the wrappers), else why not."""
    try:
        _nvrtc()
        _driver()
        include_dir()
    except CudaCodegenUnavailable as e:
        return str(e)
    return None


def _check(lib, status, call, program=None):
    if status == 0:
        return
    lib.nvrtcGetErrorString.restype = ctypes.c_char_p
    text = lib.nvrtcGetErrorString(status).decode()
    log = ""
    if program is not None:
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(program, ctypes.byref(size))
        buffer = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(program, buffer)
        log = ":\n" + buffer.value.decode(errors="replace")
    raise RuntimeError("NVRTC: %s failed: %s%s" % (call, text, log))


def compile_source(source, name, arch, kind="cubin"):
    """NVRTC's output for `source` (a bytes image: a cubin for sm_<arch>, or PTX text for
    compute_<arch>). A compile error raises RuntimeError with NVRTC's log (name.cu:line: ...)."""
    lib, _ = _nvrtc()
    program = ctypes.c_void_p()
    _check(
        lib,
        lib.nvrtcCreateProgram(ctypes.byref(program), source.encode(), (name + ".cu").encode(), 0, None, None),
        "nvrtcCreateProgram",
    )
    try:
        target = ("--gpu-architecture=sm_%d" if kind == "cubin" else "--gpu-architecture=compute_%d") % arch
        options = [o.encode() for o in OPTIONS + [target]]
        array = (ctypes.c_char_p * len(options))(*options)
        _check(lib, lib.nvrtcCompileProgram(program, len(options), array), "compiling %s.cu" % name, program)
        get_size, get = (
            (lib.nvrtcGetCUBINSize, lib.nvrtcGetCUBIN) if kind == "cubin" else (lib.nvrtcGetPTXSize, lib.nvrtcGetPTX)
        )
        size = ctypes.c_size_t()
        _check(lib, get_size(program, ctypes.byref(size)), get_size.__name__)
        buffer = ctypes.create_string_buffer(size.value)
        _check(lib, get(program, buffer), get.__name__)
        return buffer.raw[: size.value]
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(program))


@dataclass
class Image:
    path: str  # the binary on disk
    kind: str  # "cubin" or "ptx"
    arch: int  # 90 for sm_90
    from_cache: bool


def target_for(device_cc):
    """(kind, arch) NVRTC compiles for a device of compute capability (major, minor): a cubin of
    its own architecture, or PTX of the newest one NVRTC knows below it (the driver finishes it)."""
    arch = device_cc[0] * 10 + device_cc[1]
    known = supported_archs()
    if arch in known:
        return "cubin", arch
    older = [a for a in known if a <= arch]
    if not older:
        raise CudaCodegenUnavailable("NVRTC %d.%d cannot compile for sm_%d (it knows %s)" % (*version(), arch, known))
    return "ptx", max(older)


def cached_image(source, name, device_cc, kind=None, background=False):
    """The binary of `source` for a device of compute capability device_cc, from the cache when
    an earlier process (or call) compiled it, else compiled now and stored. background=True returns
    at once with the path the binary will have; finish() waits until it is there."""
    default_kind, arch = target_for(device_cc)
    kind = kind or default_kind
    key = "\n".join([source, kind, str(arch), "%d.%d" % version()] + OPTIONS)
    digest = hashlib.sha1(key.encode()).hexdigest()[:16]
    directory = os.path.join(kernels.cache_root(), "cuda")
    path = os.path.join(directory, "%s_sm%d_%s.%s" % (name, arch, digest, kind))
    if path in _pending or os.path.isfile(path):
        stats["cache_hits"] += 1
        from_cache = path not in _pending
        if not background:
            finish([path])
        return Image(path, kind, arch, from_cache)
    stats["nvrtc_runs"] += 1
    if background:
        _pending[path] = _compile_pool().submit(_compile_and_store, source, name, arch, kind, path)
    else:
        _compile_and_store(source, name, arch, kind, path)
    return Image(path, kind, arch, False)


def finish(paths=None):
    """Waits for the background compiles (those of `paths`, or all); raises the first one's error
    (NVRTC's log) after all have ended."""
    chosen = list(_pending) if paths is None else paths
    first_error = None
    for path in chosen:
        future = _pending.get(path)  # (another thread's finish may have taken it already)
        if future is None:
            continue
        try:
            future.result()
        except Exception as e:  # noqa: BLE001 (re-raised below, once every compile has ended)
            first_error = first_error or e
        finally:
            _pending.pop(path, None)
    if first_error is not None:
        raise first_error


@functools.lru_cache(maxsize=None)
def _compile_pool():
    return ThreadPoolExecutor(max_workers=os.cpu_count() or 4, thread_name_prefix="nvrtc")


def _compile_and_store(source, name, arch, kind, path):
    image = compile_source(source, name, arch, kind)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = "%s.%d.%d.partial" % (path, os.getpid(), threading.get_ident())
    with open(partial, "wb") as f:
        f.write(image)
    os.replace(partial, path)  # another process finds the whole file or none
