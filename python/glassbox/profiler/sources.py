"""Where a profiled kernel comes from: its source file:line, the library it lives in and the CMake
target that builds it, joined from what the introspection tools read.

* A CPU (or any host) kernel: the registration line of the hop that ran (``registered_at``) names
  the C++ function (``m.impl("mm", &native::mm_cpu)``); its symbol in glassbox's libraries gives
  the definition's file:line from DWARF and the library.
* A CUDA kernel (a CUPTI event): its name is the ``__global__`` function's; the CUDA sources of the
  tree give the line that defines it (the host stubs nvcc emits carry no useful line).
* The CMake target is the one whose sources hold that file (the CMake File API).

Needs the introspection tools (``GLASSBOX_BUILD_INTROSPECT``); without them, or for a kernel that
cannot be placed, the answer is None.
"""

from __future__ import annotations

import functools
import glob
import os
import re
from typing import NamedTuple, Optional

from .. import paths

_NATIVE = re.compile(r"native::(\w+)")
_BOUNDS = r"(?:__launch_bounds__\([^)]*\)\s*)?"
_GLOBAL = re.compile(r"__global__\s+" + _BOUNDS + r"void\s+" + _BOUNDS + r"(\w+)\s*\(")


class KernelSource(NamedTuple):
    kernel: str  # the function: "glassbox::native::mm_cpu(...)" or a CUDA kernel's name
    file: str  # relative to the source tree where it lies inside it
    line: int
    library: str  # e.g. "libglassbox_cpu.so"
    target: str  # the CMake target, "" when the File API does not know the file

    def __str__(self):
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where} ({self.library}{', target ' + self.target if self.target else ''})"


def _relative(path):
    root = paths.source_dir()
    full = os.path.abspath(path)
    return os.path.relpath(full, root) if full.startswith(root + os.sep) else path


@functools.lru_cache(maxsize=None)
def _targets():
    from .. import introspect

    by_file, by_library = {}, {}
    for t in introspect.targets(paths.build_dir()):
        for s in t.sources:
            by_file.setdefault(os.path.normpath(s.path), t.name)
        for a in t.artifacts:
            by_library.setdefault(os.path.basename(a), t.name)
    return by_file, by_library


def _target(file, library):
    """The target that compiles the file; for a header, the one that builds the library."""
    by_file, by_library = _targets()
    return by_file.get(os.path.normpath(file)) or by_library.get(library, "")


@functools.lru_cache(maxsize=None)
def _library_symbols(library):
    from .. import introspect

    by_function = {}
    for s in introspect.symbols(os.path.join(paths.build_dir(), "lib", library), lines=True):
        if s["type"] != "func" or not s["line"] or "[clone" in s["demangled"]:
            continue
        name = s["demangled"].split("(", 1)[0]
        by_function.setdefault(name, s)
    return by_function


@functools.lru_cache(maxsize=None)
def _cuda_kernel_lines():
    out = {}
    root = paths.source_dir()
    for path in sorted(glob.glob(os.path.join(root, "engine", "cuda", "*.cu*"))):
        text = open(path, encoding="utf-8", errors="replace").read()
        for m in _GLOBAL.finditer(text):
            out.setdefault(m.group(1), (os.path.relpath(path, root), text.count("\n", 0, m.start()) + 1))
    return out


@functools.lru_cache(maxsize=None)
def _file_lines(path):
    """A source's lines, read once (generated registration files are long and asked for per row)."""
    for base in ("", paths.source_dir(), paths.build_dir(), os.path.dirname(os.path.dirname(paths.build_dir()))):
        full = os.path.join(base, path)
        if os.path.exists(full):
            return open(full, encoding="utf-8", errors="replace").read().splitlines()
    return []


def _registration_line(registered_at):
    if not registered_at or ":" not in registered_at:
        return ""
    path, line = registered_at.rsplit(":", 1)
    lines = _file_lines(path)
    n = int(line) if line.isdigit() else 0
    return lines[n - 1] if 0 < n <= len(lines) else ""


def kernel_source(event) -> Optional[KernelSource]:
    """Where the kernel of a profiled event is defined: an operator event's last hop, or a CUDA
    kernel event. None where it cannot be placed (or the introspection tools are not built)."""
    try:
        if getattr(event, "kind", "") == "kernel":
            return _cuda_source(event.name)
        if not getattr(event, "hops", None):
            return None
        m = _NATIVE.search(_registration_line(event.hops[-1]["registered_at"]))
        if not m:
            return None
        for library in ("libglassbox_cpu.so", "libglassbox_cuda.so"):
            sym = _library_symbols(library).get(f"glassbox::native::{m.group(1)}")
            if sym is not None:
                file = _relative(sym["file"])
                return KernelSource(sym["demangled"], file, sym["line"], library, _target(file, library))
    except (ImportError, OSError, RuntimeError):
        return None
    return None


def _cuda_source(name):
    # "void glassbox::cuda::contiguous_elementwise_kernel<4, float, ...>(...)" -> the bare name.
    plain = name.replace("(anonymous namespace)", "anonymous")
    base = re.sub(r"<.*", "", plain.split("(", 1)[0]).split()[-1].rsplit("::", 1)[-1]
    found = _cuda_kernel_lines().get(base)
    if found is None:
        return None
    file, line = found
    return KernelSource(name, file, line, "libglassbox_cuda.so", _target(file, "libglassbox_cuda.so"))
