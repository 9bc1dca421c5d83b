"""Build introspection: what a CMake/Ninja build directory contains, as Python objects.

    import glassbox as gb
    g = gb.introspect.deps("build/dev", collapse_sources=True, cluster=True)
    g                                   # drawn inline in Jupyter (SVG)
    g.save("deps.png")
    gb.introspect.targets("build/dev")  # the CMake File API's targets
    gb.introspect.build_times("build/dev").critical_path

Everything the `glassbox` command does (deps, compile-db, build-times, includes) is here too; the
work is done by the compiled module glassbox._introspect, imported on first use.
"""
from __future__ import annotations

import json as _json
import os as _os
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

__all__ = [
    "Graph", "BuildTimes", "IntrospectError",
    "compile_db", "file_api", "targets", "ninja_log", "build_times", "includes", "deps", "main",
]


def _native():
    try:
        from . import _introspect  # type: ignore[attr-defined]
    except ImportError as e:
        raise ImportError(
            f"glassbox._introspect is not available ({e}); build glassbox with "
            "GLASSBOX_BUILD_INTROSPECT=ON and GLASSBOX_BUILD_PYTHON=ON (scripts/bootstrap does), "
            "or set GLASSBOX_BUILD_DIR to a build that has it"
        ) from None
    return _introspect


class IntrospectError(RuntimeError):
    """A build directory or file glassbox could not read (the message names it and the problem)."""


def _call(fn, *args, **kwargs):
    try:
        return fn(*args, **kwargs)
    except RuntimeError as e:
        if type(e).__name__ == "IntrospectError":
            raise IntrospectError(str(e)) from None
        raise


_FILTER_KEYS = {"include", "exclude", "root", "depth", "both_directions", "no_system", "collapse_sources",
                "collapse_objects", "cluster", "cluster_depth"}


def _check_filters(filters: Dict[str, Any]) -> None:
    unknown = set(filters) - _FILTER_KEYS
    if unknown:
        raise TypeError(f"unknown filter(s) {sorted(unknown)}; known: {sorted(_FILTER_KEYS)}")


class Graph:
    """A graph of the build (nodes and edges with kinds and attributes), shown as SVG in Jupyter."""

    #: Graphs with more nodes than this are not drawn inline (layout gets slow); use .save().
    inline_limit = 2000

    def __init__(self, native):
        self._g = native

    @property
    def name(self) -> str:
        return self._g.name

    @property
    def attributes(self) -> Dict[str, str]:
        return self._g.attributes

    @property
    def nodes(self) -> List[dict]:
        """[{"id", "kind", "label", "attributes"}, ...] in insertion order."""
        return self._g.nodes

    @property
    def edges(self) -> List[dict]:
        """[{"from", "to", "kind", "attributes"}, ...] with node ids as ends."""
        return self._g.edges

    def node(self, id: str) -> dict:
        for n in self._g.nodes:
            if n["id"] == id:
                return n
        raise KeyError(id)

    def __len__(self) -> int:
        return self._g.node_count

    def __contains__(self, id: str) -> bool:
        return any(n["id"] == id for n in self._g.nodes)

    def filter(self, **filters) -> "Graph":
        """A new graph: include/exclude (regexes), root + depth, no_system, collapse_sources, cluster, ..."""
        _check_filters(filters)
        return Graph(_call(self._g.filter, **filters))

    def to_dot(self, rankdir: str = "LR", legend: bool = False) -> str:
        return self._g.to_dot(rankdir=rankdir, legend=legend)

    def to_json(self) -> str:
        return self._g.to_json()

    def to_dict(self) -> dict:
        return _json.loads(self.to_json())

    def to_svg(self, engine: str = "", rankdir: str = "LR", legend: bool = False) -> str:
        return _call(self._g.render, "svg", engine, rankdir, legend).decode("utf-8")

    def to_png(self, engine: str = "", rankdir: str = "LR", legend: bool = False) -> bytes:
        return _call(self._g.render, "png", engine, rankdir, legend)

    def save(self, path, format: Optional[str] = None, **render_options) -> str:
        """Writes .svg, .png, .dot/.gv or .json (by extension unless `format` is given); returns the path."""
        path = _os.fspath(path)
        fmt = (format or _os.path.splitext(path)[1].lstrip(".") or "svg").lower()
        if fmt == "svg":
            data: Any = self.to_svg(**render_options).encode("utf-8")
        elif fmt == "png":
            data = self.to_png(**render_options)
        elif fmt in ("dot", "gv"):
            data = self.to_dot(**{k: v for k, v in render_options.items() if k in ("rankdir", "legend")}).encode()
        elif fmt == "json":
            data = self.to_json().encode("utf-8")
        else:
            raise ValueError(f"cannot save a graph as {fmt!r}: use svg, png, dot or json")
        with open(path, "wb") as f:
            f.write(data)
        return path

    def _repr_svg_(self):
        # Jupyter calls this for inline display; None falls back to the text repr.
        if len(self) > self.inline_limit or not _native().rendering_available():
            return None
        return self.to_svg()

    def __repr__(self) -> str:
        return f"<glassbox Graph {self.name!r}: {self._g.node_count} nodes, {self._g.edge_count} edges>"


@dataclass
class BuildTimes:
    """Where a build's time went (from .ninja_log); times in milliseconds."""

    log: str
    steps: List[dict]                 # slowest first: outputs, kind, target, start_ms, end_ms, duration_ms, run
    targets: List[dict]               # slowest first: target, compile_ms, link_ms, other_ms, total_ms, steps
    critical_path: List[dict]         # steps of the last run, first to last
    critical_path_ms: int
    last_run_wall_ms: int
    critical_path_from_dependencies: bool
    chrome_trace: str = field(repr=False)

    def save_trace(self, path) -> str:
        """Writes the last run as Chrome trace JSON (chrome://tracing, ui.perfetto.dev)."""
        path = _os.fspath(path)
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.chrome_trace)
        return path

    def __repr__(self) -> str:
        slowest = self.steps[0]["outputs"][0] if self.steps else "-"
        return (f"<BuildTimes {self.log}: {len(self.steps)} steps, slowest {slowest}, "
                f"critical path {self.critical_path_ms} ms of {self.last_run_wall_ms} ms>")


def compile_db(build_dir):
    """compile_commands.json of a build directory (or the file): .commands, each with file, output,
    compiler, includes, defines, standard, other_flags."""
    return _call(_native().read_compile_database, _os.fspath(build_dir))


def file_api(build_dir, configure: bool = False, cmake: str = "cmake"):
    """The newest CMake File API reply of a build directory. configure=True writes glassbox's query
    there and re-runs cmake first."""
    return _call(_native().read_file_api, _os.fspath(build_dir), configure, cmake)


def targets(build_dir, configuration: str = "", configure: bool = False):
    """The targets of the build (name, type, artifacts, sources, dependencies, defined_at, ...)."""
    return file_api(build_dir, configure=configure).targets(configuration)


def ninja_log(build_dir):
    """.ninja_log (versions 5 to 7): .entries, one per output, the latest timing of each."""
    return _call(_native().read_ninja_log, _os.fspath(build_dir))


def build_times(build_dir) -> BuildTimes:
    """Slowest steps, per-target totals and the critical path of the last build run."""
    return BuildTimes(**_call(_native().build_times, _os.fspath(build_dir)))


def includes(build_dir, source: str = "", source_root: str = "", **filters) -> Graph:
    """The include graph Ninja recorded (.ninja_deps): translation units -> headers."""
    _check_filters(filters)
    g = Graph(_call(_native().include_graph, _os.fspath(build_dir), source, source_root))
    return g.filter(**filters) if filters else g


def deps(build_dir, *, targets_only: bool = False, build_order: bool = True, all_build_order: bool = False,
         configuration: str = "", configure: bool = False, cmake: str = "cmake", **filters) -> Graph:
    """The module-dependency graph: targets (labelled by artifact), their sources, link edges from
    the link lines and build-order edges apart. Filters as on the command line: include=, exclude=,
    root=, depth=, no_system=, collapse_sources=, cluster=, cluster_depth=."""
    _check_filters(filters)
    g = Graph(_call(_native().module_graph, _os.fspath(build_dir), not targets_only, build_order, all_build_order,
                    configuration, configure, cmake))
    return g.filter(**filters) if filters else g


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the `glassbox` program of the build this package uses (GLASSBOX_BUILD_DIR/bin/glassbox)."""
    import subprocess
    import sys

    repo = _os.path.dirname(_os.path.dirname(_os.path.dirname(_os.path.abspath(__file__))))
    build = _os.environ.get("GLASSBOX_BUILD_DIR", _os.path.join(repo, "build", "dev"))
    program = _os.path.join(build, "bin", "glassbox")
    if not _os.path.exists(program):
        sys.stderr.write(f"glassbox: error: {program} does not exist; build glassbox first (scripts/bootstrap)\n")
        return 1
    return subprocess.call([program] + list(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    raise SystemExit(main())
