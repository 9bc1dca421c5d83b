"""gb.utils: what building against glassbox needs.

glassbox.utils.cmake_prefix_path    # for -DCMAKE_PREFIX_PATH=...: find_package(glassbox) finds it
glassbox.utils.cpp_extension.load(name, sources=[...])   # compile, load and register C++ operators
"""

import os as _os

from .. import paths as _paths


def _cmake_prefix_path():
    """The folder holding glassbox's CMake package: the installed one (pip install ., cmake --install)
    beside this package, else the one the build tree exports (a checkout used without installing)."""
    installed = _os.path.join(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))), "share", "cmake")
    if _os.path.isfile(_os.path.join(installed, "glassbox", "glassboxConfig.cmake")):
        return installed
    return _os.path.join(_paths.build_dir(), "share", "cmake")


cmake_prefix_path = _cmake_prefix_path()

from . import cpp_extension  # noqa: E402,F401

__all__ = ["cmake_prefix_path", "cpp_extension"]
