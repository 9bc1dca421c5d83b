"""glassbox.compiler: gb.compile and its stages (capture, IR, decompositions, fusion, C++
generation, guards, debug artifacts). docs/compile.md walks through them."""

from .api import CompiledFunction, compile  # noqa: F401
from .capture import CaptureError  # noqa: F401
from .decompositions import DECOMPOSITIONS  # noqa: F401

__all__ = ["compile", "CompiledFunction", "CaptureError", "DECOMPOSITIONS"]
