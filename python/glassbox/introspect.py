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
    "Graph",
    "BuildTimes",
    "IntrospectError",
    "compile_db",
    "file_api",
    "targets",
    "ninja_log",
    "build_times",
    "includes",
    "deps",
    "main",
]
__all__ += ["OpsView", "ops", "sources"]
__all__ += ["symbols", "elf_info", "compile_units", "binary_registrations", "symbol_sizes"]


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


_FILTER_KEYS = {
    "include",
    "exclude",
    "root",
    "depth",
    "both_directions",
    "no_system",
    "collapse_sources",
    "collapse_objects",
    "cluster",
    "cluster_depth",
}


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
    steps: List[dict]  # slowest first: outputs, kind, target, start_ms, end_ms, duration_ms, run
    targets: List[dict]  # slowest first: target, compile_ms, link_ms, other_ms, total_ms, steps
    critical_path: List[dict]  # steps of the last run, first to last
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
        return (
            f"<BuildTimes {self.log}: {len(self.steps)} steps, slowest {slowest}, "
            f"critical path {self.critical_path_ms} ms of {self.last_run_wall_ms} ms>"
        )


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


def deps(
    build_dir,
    *,
    targets_only: bool = False,
    build_order: bool = True,
    all_build_order: bool = False,
    configuration: str = "",
    configure: bool = False,
    cmake: str = "cmake",
    **filters,
) -> Graph:
    """The module-dependency graph: targets (labelled by artifact), their sources, direct link edges
    (as `cmake --graphviz` draws them; utility targets hidden) and build-order edges apart. Filters as on the command line: include=, exclude=,
    root=, depth=, no_system=, collapse_sources=, cluster=, cluster_depth=."""
    _check_filters(filters)
    g = Graph(
        _call(
            _native().module_graph,
            _os.fspath(build_dir),
            not targets_only,
            build_order,
            all_build_order,
            configuration,
            configure,
            cmake,
        )
    )
    return g.filter(**filters) if filters else g


def sources(build_dir, units: str = "", jobs: int = 0) -> dict:
    """Operator registrations as written in the sources (libclang): {"registrations": [...],
    "errors": [{"file", "message"}], "units": [...]}; units= limits the scan to matching paths."""
    return _json.loads(_call(_native().scan_sources, _os.fspath(build_dir), units, jobs))


class OpsView:
    """Operators per dispatch key, joined from the running registry, the sources, the binaries and
    the build: .rows (one dict per kernel or fallback registration), .schemas (one per operator's
    def), .disagreements, .notes (what a source could not show, e.g. a stripped binary), .graph
    (drawn inline in Jupyter)."""

    _COLUMNS = ("operator", "key", "serves", "kernel", "registered_at", "kernel_at", "library", "target", "agreement")

    def __init__(self, data: dict, graph: "Graph", errors: List[tuple]):
        self.rows: List[dict] = data["rows"]
        self.schemas: List[dict] = data["schemas"]
        self.disagreements: List[dict] = data["disagreements"]
        self.notes: List[str] = data["notes"]
        self.sources_used: List[str] = data["sources_used"]
        self.errors = [{"file": f, "message": m} for f, m in errors]  # units that did not parse
        self.graph = graph

    @property
    def table(self) -> str:
        """The rows as an aligned text table (what `glassbox ops` prints)."""
        rows = [[str(r.get(c, "")) for c in self._COLUMNS] for r in self.rows]
        widths = [max([len(c)] + [len(r[i]) for r in rows]) for i, c in enumerate(self._COLUMNS)]
        lines = ["  ".join(c.ljust(w) for c, w in zip(self._COLUMNS, widths)).rstrip()]
        lines += ["  ".join(v.ljust(w) for v, w in zip(r, widths)).rstrip() for r in rows]
        return "\n".join(lines)

    def _repr_svg_(self):
        return self.graph._repr_svg_()

    def __repr__(self) -> str:
        notes = "".join(f"\nnote: {n}" for n in self.notes)
        return (
            f"{self.table}\n\n{len(self.rows)} registrations and {len(self.schemas)} schemas, "
            f"{len(self.disagreements)} disagreements (from {', '.join(self.sources_used) or 'nothing'}){notes}"
        )


def ops(
    op: Optional[str] = None,
    key: Optional[str] = None,
    build_dir=None,
    registry=None,
    units: str = "",
    jobs: int = 0,
    binaries: Optional[List[str]] = None,
) -> OpsView:
    """Where each operator is declared, registered and implemented, per dispatch key.

    op: a regex on "ns::name.overload"; key: one dispatch key (registrations for it, or filling
    its slot of the dispatch table). registry: the registry's JSON text or a file holding it; by
    default this process's own registry (glassbox.registry.to_json()). build_dir: also scan that
    build's sources (libclang; units= limits the scan) and read its CMake File API reply for
    libraries and targets. binaries: the libraries whose registration blocks (ELF symbols, DWARF
    lines) are compared; by default the engine libraries of build_dir, [] for none. Where the
    sources of truth disagree, the rows' "agreement", .disagreements and the graph (red) say so."""
    if registry is None:
        try:
            from . import registry as _registry

            registry = _registry.to_json()
        except ImportError:
            registry = None
    elif not str(registry).lstrip().startswith("{"):
        with open(_os.fspath(registry), encoding="utf-8") as f:
            registry = f.read()
    libs = None if binaries is None else [_os.fspath(b) for b in binaries]
    out = _call(
        _native().registration_view,
        registry,
        _os.fspath(build_dir) if build_dir else "",
        op or "",
        key or "",
        units,
        jobs,
        libs,
    )
    return OpsView(_json.loads(out["json"]), Graph(out["graph"]), out["errors"])


def symbols(
    lib,
    lines: bool = False,
    grep: Optional[str] = None,
    dynamic: bool = False,
    demangle: bool = True,
    debug_dirs: Optional[List[str]] = None,
) -> List[dict]:
    """The symbols of an ELF file as `glassbox symbols` lists them (sorted by address; section and
    file symbols left out): dicts with name, demangled, address, size, type, binding, visibility,
    section, table and nm (the letter nm prints); with lines=True also file and line (from DWARF or
    a separate debug file; "" and 0 where there is none). grep: a regex searched in both names."""
    result = _call(_native().symbols, _os.fspath(lib), lines, grep or "", dynamic, demangle, list(debug_dirs or []))
    if lines and result["line_info"] != "present":
        import warnings

        warnings.warn(f"{_os.fspath(lib)}: {result['line_info_message']}; symbols have no lines", stacklevel=2)
    return result["symbols"]


def elf_info(lib) -> dict:
    """What an ELF file says about itself: type, soname, needed libraries, build id, debuglink,
    sections, and whether it has .symtab, .dynsym and DWARF."""
    return _call(_native().elf_info, _os.fspath(lib))


def compile_units(lib, debug_dirs: Optional[List[str]] = None) -> dict:
    """The DWARF of an ELF file: status ("present", "missing", "corrupt"), message, debug_file, and
    units (name, comp_dir, source, producer, DWARF version, line rows)."""
    return _call(_native().dwarf_info, _os.fspath(lib), list(debug_dirs or []))


def binary_registrations(lib, debug_dirs: Optional[List[str]] = None) -> List[dict]:
    """Operator registrations found from the binary alone: GLASSBOX_LIBRARY/_FRAGMENT/_IMPL and
    TORCH_LIBRARY/_FRAGMENT/_IMPL blocks and op_call/op_redispatch handles, as dicts with kind,
    namespace, dispatch_key, operator, symbol, demangled, address, file, line, code_lines (a
    block's lines with code: where its def/impl/fallback calls are) and library."""
    return _call(_native().binary_registrations, _os.fspath(lib), list(debug_dirs or []))


def symbol_sizes(lib, by: str = "section") -> List[dict]:
    """Size totals per section (vm_size, file_size, symbols, symbol_bytes) or per source file
    (by="source", from DWARF), largest first."""
    return _call(_native().symbol_sizes, _os.fspath(lib), by)


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
