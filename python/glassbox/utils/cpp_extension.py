"""Compile C++ (and CUDA) operators outside glassbox's tree and load them into this process, as
torch.utils.cpp_extension does: their GLASSBOX_LIBRARY / GLASSBOX_LIBRARY_IMPL blocks register the
operators when the library loads, and they are then called as gb.ops.<ns>.<op>, differentiated,
traced, and listed by gb.registry and the tools with their file:line.

    ext = gb.utils.cpp_extension.load("mul_add", sources=["mul_add.cpp"], verbose=True)
    gb.ops.myops.mul_add(x, y, z)          # or ext.mul_add(x, y, z)

The build is a small CMake project (find_package(glassbox), one shared library) built with Ninja in
a cache folder ($GLASSBOX_EXTENSIONS_DIR or ~/.cache/glassbox/extensions/<name>); Ninja rebuilds
only what a changed source or flag needs, and an unchanged build is not run again.
"""

import ctypes
import hashlib
import os
import shutil
import subprocess
import sys
import types

from .. import _C, registry

_loaded = {}  # name -> (library path, its build stamp, ctypes handle, module)


def _default_build_directory(name):
    root = os.environ.get("GLASSBOX_EXTENSIONS_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "glassbox", "extensions"
    )
    return os.path.join(root, name)


def _as_list(value):
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _cmake_list(items):
    return " ".join('"' + str(i).replace("\\", "/").replace('"', '\\"') + '"' for i in items)


def _glassbox_dir():
    """The folder of the glassboxConfig.cmake this process's glassbox exports."""
    from . import cmake_prefix_path

    return os.path.join(cmake_prefix_path, "glassbox")


def _project(name, sources, cflags, cuda_cflags, ldflags, include_paths, with_cuda, precompiled=None, kind="SHARED"):
    lines = [
        "# Written by glassbox.utils.cpp_extension; rewritten when the sources, flags or glassbox change.",
        "cmake_minimum_required(VERSION 3.22)",
        f"project({name} LANGUAGES CXX)",
        # The glassbox this process runs, named in the text: a build folder kept from another glassbox
        # build (one since moved or deleted) is configured again, not rebuilt against the old one.
        f"find_package(glassbox CONFIG REQUIRED PATHS {_cmake_list([_glassbox_dir()])} NO_DEFAULT_PATH)",
        *(["glassbox_enable_cuda()"] if with_cuda else []),
        f"add_library({name} {kind} {_cmake_list(sources)})",
        f"target_link_libraries({name} PRIVATE glassbox::{'cuda' if with_cuda else 'glassbox'})",
        *(
            [
                "if(NOT GLASSBOX_CUDA_KERNELS)",
                '  message(FATAL_ERROR "glassbox was built without CUDA kernels")',
                "endif()",
            ]
            if with_cuda
            else []
        ),
        # Not "unique" symbols: they would pin the library in memory, and a rebuilt extension must
        # be able to replace the loaded one (its registrations go with it).
        f"target_compile_options({name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:-fno-gnu-unique>)",
    ]
    if cflags:
        lines.append(f"target_compile_options({name} PRIVATE $<$<COMPILE_LANGUAGE:CXX>:{';'.join(cflags)}>)")
    if cuda_cflags:
        lines.append(f"target_compile_options({name} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:{';'.join(cuda_cflags)}>)")
    if include_paths:
        lines.append(f"target_include_directories({name} PRIVATE {_cmake_list(include_paths)})")
    if ldflags:
        lines.append(f"target_link_options({name} PRIVATE {_cmake_list(ldflags)})")
    if precompiled:  # GCC reads <header>.gch when it was built with these flags, else the header
        header = str(precompiled).replace("\\", "/").replace('"', '\\"')
        lines.append(
            f'target_compile_options({name} PRIVATE "$<$<COMPILE_LANGUAGE:CXX>:-include;{header};-Winvalid-pch>")'
        )
    lines.append(f'set_target_properties({name} PROPERTIES PREFIX "")')
    if with_cuda:  # as glassbox_cuda was built: its architectures, C++20, the shared CUDA runtime
        lines.append(
            f'set_target_properties({name} PROPERTIES CUDA_ARCHITECTURES "${{GLASSBOX_CUDA_ARCHITECTURES}}" '
            "CUDA_STANDARD 20 CUDA_RUNTIME_LIBRARY Shared)"
        )
    return "\n".join(lines) + "\n"


def precompile_header(root, extra_cflags=None, extra_include_paths=None, with_cuda=False, verbose=False):
    """<glassbox/glassbox.h> precompiled for the extensions built with these flags, as a CMake
    project in root/pch_<hash of the flags> (an object library with the extensions' flags and the
    header as its precompiled header). Returns the header to pass as build(precompiled_header=...):
    GCC reads the .gch beside it when the flags match, else parses the header. Ninja rebuilds it
    when a glassbox header changes; a lock serialises processes."""
    import fcntl

    cflags, include_paths = _as_list(extra_cflags), [os.path.abspath(p) for p in _as_list(extra_include_paths)]
    directory = _pch_directory(root, cflags, include_paths, with_cuda)
    os.makedirs(directory, exist_ok=True)
    source = os.path.join(directory, "pch.cpp")
    _write_if_changed(source, "// the object that carries glassbox_pch's precompiled header\n")
    project = _project("glassbox_pch", [source], cflags, [], [], include_paths, with_cuda, kind="OBJECT")
    project += "set_target_properties(glassbox_pch PROPERTIES POSITION_INDEPENDENT_CODE ON)\n"
    project += "target_precompile_headers(glassbox_pch PRIVATE <glassbox/glassbox.h>)\n"
    with open(os.path.join(directory, "lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        _configure_and_build(directory, project, "glassbox_pch", verbose)
    return precompiled_header_path(root, cflags, include_paths, with_cuda)


def _pch_directory(root, cflags, include_paths, with_cuda):
    from . import cmake_prefix_path

    key = "\f".join([*cflags, *include_paths, str(with_cuda), cmake_prefix_path])
    return os.path.join(root, "pch_" + hashlib.sha1(key.encode()).hexdigest()[:16])


def precompiled_header_path(root, extra_cflags=None, extra_include_paths=None, with_cuda=False):
    """Where precompile_header puts the header for these flags (its .gch beside it once built)."""
    include_paths = [os.path.abspath(p) for p in _as_list(extra_include_paths)]
    directory = _pch_directory(root, _as_list(extra_cflags), include_paths, with_cuda)
    return os.path.join(directory, "build", "CMakeFiles", "glassbox_pch.dir", "cmake_pch.hxx")


def _configure_and_build(directory, project, name, verbose):
    from . import cmake_prefix_path

    changed = _write_if_changed(os.path.join(directory, "CMakeLists.txt"), project)
    binary_dir = os.path.join(directory, "build")
    if changed or not os.path.isfile(os.path.join(binary_dir, "build.ninja")):
        _run(
            [
                _tool("cmake"),
                "-S",
                directory,
                "-B",
                binary_dir,
                "-G",
                "Ninja",
                f"-DCMAKE_MAKE_PROGRAM={_tool('ninja')}",
                f"-DCMAKE_PREFIX_PATH={cmake_prefix_path}",
                f"-Dglassbox_DIR={_glassbox_dir()}",  # replaces the one a kept CMakeCache.txt found
                "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
            ],
            verbose,
            f"configuring extension '{name}' (cmake)",
        )
    _run([_tool("cmake"), "--build", binary_dir], verbose, f"building extension '{name}'")
    return binary_dir


def _write_if_changed(path, text):
    if os.path.isfile(path):
        with open(path) as f:
            if f.read() == text:
                return False
    with open(path, "w") as f:
        f.write(text)
    return True


def _run(command, verbose, what):
    if verbose:
        print("glassbox.utils.cpp_extension:", " ".join(command), file=sys.stderr)
    run = subprocess.run(command, capture_output=True, text=True)
    if verbose and run.stdout:
        print(run.stdout, file=sys.stderr, end="")
    if run.returncode != 0:
        raise RuntimeError(f"{what} failed (exit {run.returncode}):\n{run.stdout}{run.stderr}")
    return run.stdout


def _tool(name):
    found = shutil.which(name)
    if not found:
        raise RuntimeError(
            f"cpp_extension needs `{name}` on PATH (Debian: apt-get install {name}; or pip install {name})"
        )
    return found


def build(
    name,
    sources,
    extra_cflags=None,
    extra_cuda_cflags=None,
    extra_ldflags=None,
    extra_include_paths=None,
    build_directory=None,
    verbose=False,
    with_cuda=None,
    precompiled_header=None,
):
    """Builds the extension's shared library (if anything changed) and returns its path.
    precompiled_header: what precompile_header returned for the same flags (gb.compile's kernels
    compile against one: parsing the headers was two thirds of a small library's compile)."""
    if not name.isidentifier():
        raise ValueError(f"cpp_extension: the name {name!r} must be a valid identifier (it names the library)")
    sources = [os.path.abspath(s) for s in _as_list(sources)]
    if not sources:
        raise ValueError("cpp_extension: no sources given")
    for s in sources:
        if not os.path.isfile(s):
            raise FileNotFoundError(f"cpp_extension: source {s} does not exist")
    if with_cuda is None:
        with_cuda = any(s.endswith((".cu", ".cuh")) for s in sources)
    directory = os.path.abspath(build_directory or _default_build_directory(name))
    os.makedirs(directory, exist_ok=True)
    project = _project(
        name,
        sources,
        _as_list(extra_cflags),
        _as_list(extra_cuda_cflags),
        _as_list(extra_ldflags),
        [os.path.abspath(p) for p in _as_list(extra_include_paths)],
        with_cuda,
        precompiled_header,
    )
    binary_dir = _configure_and_build(directory, project, name, verbose)
    return os.path.join(binary_dir, f"{name}.so")


def _stamp(path):
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()


def load_library(path, verbose=False):
    """Loads a library built elsewhere (a CMake project linking glassbox::glassbox, as
    examples/extension/CMakeLists.txt) so that its registration blocks run; as torch.ops.load_library."""
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"load_library: {path} does not exist")
    return _load_library(os.path.splitext(os.path.basename(path))[0], path, verbose)


def _load_library(name, path, verbose):
    """dlopens the library (replacing an older build of the same extension) and reports what its
    registration blocks did; returns a module naming the operators it defined."""
    stamp = _stamp(path)
    if name in _loaded:
        old_path, old_stamp, handle, module = _loaded[name]
        if old_stamp == stamp:
            return module
        import _ctypes

        _ctypes.dlclose(handle._handle)  # its Library objects deregister as it unloads
        del _loaded[name]
    before_ops, before_errors = set(registry.operators()), len(_C._registry.load_errors())
    # RTLD_LOCAL: an extension needs only the libraries it links. Put in the global scope, its
    # symbols (inline functions, and whatever runtime it carries) would bind the references of
    # every extension loaded after it, and two builds do not always agree.
    handle = ctypes.CDLL(path, mode=ctypes.RTLD_LOCAL)
    errors = _C._registry.load_errors()[before_errors:]
    if errors:
        raise RuntimeError(f"extension '{name}' ({path}) failed to register:\n" + "\n".join(errors))
    from ..ops import ops

    module = types.ModuleType(name)
    module.__file__ = path
    module.operators = sorted(set(registry.operators()) - before_ops)
    for qualified in module.operators:
        ns, op = qualified.split("::", 1)
        setattr(module, op, getattr(getattr(ops, ns), op))
    if verbose:
        print(
            f"glassbox.utils.cpp_extension: loaded {path}: {', '.join(module.operators) or 'no new operators'}",
            file=sys.stderr,
        )
    _loaded[name] = (path, stamp, handle, module)
    return module


def load(
    name,
    sources,
    extra_cflags=None,
    extra_cuda_cflags=None,
    extra_ldflags=None,
    extra_include_paths=None,
    build_directory=None,
    verbose=False,
    with_cuda=None,
):
    """Builds (when needed) and loads the extension; returns a module whose attributes are the
    operators it defined (also reachable as gb.ops.<ns>.<op>). A compile error raises RuntimeError
    with the compiler's messages (file:line)."""
    path = build(
        name,
        sources,
        extra_cflags,
        extra_cuda_cflags,
        extra_ldflags,
        extra_include_paths,
        build_directory,
        verbose,
        with_cuda,
    )
    return _load_library(name, path, verbose)


def load_inline(
    name,
    cpp_sources,
    cuda_sources=None,
    extra_cflags=None,
    extra_cuda_cflags=None,
    extra_ldflags=None,
    extra_include_paths=None,
    build_directory=None,
    verbose=False,
    with_cuda=None,
):
    """load() for sources given as strings (a notebook cell): each source gets
    `#include <glassbox/glassbox.h>` in front and is written to the build folder."""
    path = build_inline(
        name,
        cpp_sources,
        cuda_sources,
        extra_cflags,
        extra_cuda_cflags,
        extra_ldflags,
        extra_include_paths,
        build_directory,
        verbose,
        with_cuda,
    )
    return _load_library(name, path, verbose)


def build_inline(
    name,
    cpp_sources,
    cuda_sources=None,
    extra_cflags=None,
    extra_cuda_cflags=None,
    extra_ldflags=None,
    extra_include_paths=None,
    build_directory=None,
    verbose=False,
    with_cuda=None,
    separate=False,
    precompiled_header=None,
):
    """build() for sources given as strings, as load_inline writes them; returns the library's path
    without loading it (several can build at once, each in its own thread). With separate=True each
    string of cpp_sources is a file of its own (main.cpp, main_1.cpp, ...): translation units that
    Ninja compiles at the same time."""
    directory = os.path.abspath(build_directory or _default_build_directory(name))
    os.makedirs(directory, exist_ok=True)
    files = []
    for suffix, texts in (("cpp", cpp_sources), ("cu", cuda_sources)):
        units = [t for t in _as_list(texts) if t] if separate and suffix == "cpp" else ["\n".join(_as_list(texts))]
        for k, text in enumerate(u for u in units if u):
            path = os.path.join(directory, f"main.{suffix}" if k == 0 else f"main_{k}.{suffix}")
            _write_if_changed(path, "#include <glassbox/glassbox.h>\n" + text + "\n")
            files.append(path)
    if not files:
        raise ValueError("load_inline: no sources given")
    return build(
        name,
        files,
        extra_cflags,
        extra_cuda_cflags,
        extra_ldflags,
        extra_include_paths,
        directory,
        verbose,
        with_cuda if with_cuda is not None else bool(cuda_sources),
        precompiled_header,
    )


__all__ = [
    "load",
    "load_inline",
    "load_library",
    "build",
    "build_inline",
    "precompile_header",
    "precompiled_header_path",
]
