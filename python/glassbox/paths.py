"""Where things are: the source tree this package belongs to and the build it loaded.

    import glassbox as gb
    gb.paths.build_dir()                  # e.g. /src/glassbox/build/dev
    gb.paths.library("glassbox_cpu")      # .../build/dev/lib/libglassbox_cpu.so
    gb.paths.source("engine/ops/ops.yaml")

The build is the one whose compiled module was imported (GLASSBOX_BUILD_DIR, or <repo>/build/dev),
so notebooks and scripts read the same build they run.
"""

import os as _os

__all__ = ["source_dir", "build_dir", "source", "library", "program", "generated_dir"]


def source_dir() -> str:
    """The root of the glassbox source tree this package lives in."""
    return _os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))


def build_dir() -> str:
    """The build directory whose glassbox._C this process imported (<build>/python/glassbox/_C...)."""
    from . import _C

    return _os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(_C.__file__))))


def _existing(path: str, what: str, hint: str) -> str:
    if not _os.path.exists(path):
        raise FileNotFoundError(f"{what} {path} does not exist; {hint}")
    return path


def source(relative: str) -> str:
    """A file of the source tree, e.g. source("engine/ops/ops.yaml")."""
    return _existing(
        _os.path.join(source_dir(), relative), "source file", f"is {relative!r} relative to the repository root?"
    )


def library(name: str) -> str:
    """A shared library of the build: library("glassbox_cpu") -> <build>/lib/libglassbox_cpu.so."""
    file = name if name.endswith(".so") else f"lib{name}.so"
    return _existing(
        _os.path.join(build_dir(), "lib", file),
        "library",
        f"the build {build_dir()} has not built it (its part may be switched off)",
    )


def program(name: str) -> str:
    """A program of the build: program("glassbox") -> <build>/bin/glassbox."""
    return _existing(
        _os.path.join(build_dir(), "bin", name),
        "program",
        f"the build {build_dir()} has not built it (its part may be switched off)",
    )


def generated_dir() -> str:
    """Where codegen wrote the operator code of the build (<build>/generated/glassbox/ops)."""
    return _existing(
        _os.path.join(build_dir(), "generated", "glassbox", "ops"),
        "generated directory",
        "has the build run codegen yet?",
    )
