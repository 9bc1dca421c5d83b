"""Reads and validates ops.yaml: one OpEntry per `- func:` entry, with the line it starts on."""
from __future__ import annotations

import re
from dataclasses import dataclass

from .errors import CodegenError, ErrorCollector
from .model import FunctionSchema, SchemaError, parse_schema
from .yaml_loader import YNode, load_yaml

NAMESPACE = "glassbox"

# engine/core/dispatch_key.h, in priority order: runtime keys, then alias keys.
DISPATCH_KEYS = ("CPU", "CUDA", "Meta", "AutogradCPU", "AutogradCUDA", "Trace", "Python", "Autograd",
                 "CompositeImplicitAutograd", "CompositeExplicitAutograd")
ENTRY_KEYS = ("func", "variants", "dispatch", "tags")
VARIANTS = ("function", "method")

_CPP_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class OpEntry:
    schema: FunctionSchema
    line: int  # of the entry's first key (the `- func:` line)
    variants: tuple[str, ...]
    dispatch: tuple[tuple[str, str], ...]  # (key, kernel name in glassbox::native), in key order
    implicit_composite: bool  # no `dispatch:`: a math kernel named after the operator
    tags: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.schema.name

    @property
    def overload(self) -> str:
        return self.schema.overload

    @property
    def full_name(self) -> str:
        return self.schema.full_name

    @property
    def base_name(self) -> str:
        return base_name_of(self.schema.name)


def base_name_of(name: str) -> str:
    """The operator family a name belongs to: add_ (in-place) belongs to add; __and__ stays itself."""
    if name.endswith("_") and not name.endswith("__") and len(name) > 1:
        return name[:-1]
    return name


def load_ops(path: str, display: str, yaml_parser: str = "auto") -> list[OpEntry]:
    """display: how messages and `// file:line` comments name the file (repo-relative)."""
    root = load_yaml(path, display, yaml_parser)
    return ops_from_tree(root, display)


def ops_from_tree(root: YNode, display: str) -> list[OpEntry]:
    errors = ErrorCollector()
    if root.kind == "scalar" and root.value == "":
        return []
    if root.kind != "seq":
        raise CodegenError(display, root.line,
                           f"expected a list of operator entries ('- func: ...'), found {root.describe()}")
    entries: list[OpEntry] = []
    first_seen: dict[str, int] = {}
    for node in root.value:
        try:
            entry = _entry(node, display)
        except CodegenError as e:
            errors.add(e)
            continue
        if entry.full_name in first_seen:
            first = f"{display}:{first_seen[entry.full_name]}"
            errors.add(CodegenError(display, entry.line,
                                    f"duplicate operator {entry.full_name} (first declared at {first})"))
            continue
        first_seen[entry.full_name] = entry.line
        entries.append(entry)
    errors.raise_if_any()
    return entries


def _entry(node: YNode, display: str) -> OpEntry:
    def fail(line: int, message: str) -> CodegenError:
        return CodegenError(display, line, message)

    if node.kind != "map":
        raise fail(node.line, f"expected an operator entry ('func: ...'), found {node.describe()}")
    fields: dict[str, YNode] = node.value  # type: ignore[assignment]
    for key in fields:
        if key not in ENTRY_KEYS:
            raise fail(node.key_lines[key], f"unknown key '{key}' (an entry has {', '.join(ENTRY_KEYS)})")
    if "func" not in fields:
        raise fail(node.line, "entry without 'func:' (the operator's schema)")
    line = node.line

    func = fields["func"]
    if func.kind != "scalar" or not func.value:
        raise fail(node.key_lines["func"], "'func' must be a schema: name.overload(args) -> returns")
    try:
        schema = parse_schema(func.value)  # type: ignore[arg-type]
    except SchemaError as e:
        raise fail(func.line, f"bad schema: {e.reason} at column {e.column} of '{func.value.strip()}'") from None
    if schema.namespace:
        raise fail(func.line, f"write the schema without a namespace ('{schema.namespace}::' given): "
                              f"every operator is in '{NAMESPACE}'")
    if schema.is_vararg or schema.is_varret:
        raise fail(func.line, f"{schema.full_name}: '...' schemas take boxed kernels only and have no C++ API")

    variants = ("function",)
    if "variants" in fields:
        variants = _variants(fields["variants"], node.key_lines["variants"], fail)

    dispatch: list[tuple[str, str]] = []
    implicit = "dispatch" not in fields
    if not implicit:
        dispatch = _dispatch(fields["dispatch"], node.key_lines["dispatch"], fail)
    else:
        dispatch = [("CompositeImplicitAutograd", schema.name)]

    tags: tuple[str, ...] = ()
    if "tags" in fields:
        tags = _tags(fields["tags"], node.key_lines["tags"], fail)

    if "method" in variants:
        self_arg = next((a for a in schema.arguments if a.name == "self"), None)
        t = self_arg.type if self_arg else None
        if t is None or t.base != "Tensor" or t.is_list or t.optional:
            raise fail(line, f"{schema.full_name} has a method variant but no 'Tensor self' argument "
                             "(a method is called on self)")
        if schema.is_out:
            raise fail(line, f"{schema.full_name} is an out= overload (it writes keyword-only arguments "
                             "{}); out= overloads have no method variant".format(
                                 ", ".join(a.name for a in schema.out_arguments)))
    return OpEntry(schema, line, variants, tuple(dispatch), implicit, tags)


def _words(node: YNode) -> list[tuple[str, int]]:
    """A flow/block list of words, or one comma-separated scalar ("function, method")."""
    if node.kind == "seq":
        out = []
        for item in node.value:  # type: ignore[union-attr]
            if item.kind != "scalar":
                return [("", item.line)]
            out.append((item.value.strip(), item.line))  # type: ignore[union-attr]
        return out
    if node.kind == "scalar":
        return [(w.strip(), node.line) for w in node.value.split(",")]  # type: ignore[union-attr]
    return [("", node.line)]


def _variants(node: YNode, key_line: int, fail) -> tuple[str, ...]:
    words = _words(node)
    result: list[str] = []
    for word, line in words:
        if word not in VARIANTS:
            what = f"'{word}'" if word else "an empty value"
            raise fail(line if word else key_line, f"unknown variant {what} (variants: function, method)")
        if word not in result:
            result.append(word)
    return tuple(v for v in VARIANTS if v in result)


def _dispatch(node: YNode, key_line: int, fail) -> list[tuple[str, str]]:
    if node.kind != "map" or not node.value:
        raise fail(key_line, "'dispatch' must be a mapping of dispatch key to kernel name, e.g. 'CPU: add_cpu' "
                             "(leave it out for a CompositeImplicitAutograd kernel named after the operator)")
    kernels: dict[str, tuple[str, int]] = {}
    for keys, kernel_node in node.value.items():  # type: ignore[union-attr]
        line = node.key_lines[keys]
        kernel = kernel_node.value.strip() if kernel_node.kind == "scalar" else ""  # type: ignore[union-attr]
        if not _CPP_IDENTIFIER.match(kernel):
            shown = kernel_node.value if kernel_node.kind == "scalar" else kernel_node.describe()
            raise fail(line, f"the kernel for '{keys}' must be a C++ function name in glassbox::native, "
                             f"found '{shown}'")
        for key in (k.strip() for k in keys.split(",")):  # "CPU, CUDA: kernel" registers one kernel twice
            if key not in DISPATCH_KEYS:
                raise fail(line, f"unknown dispatch key '{key}' (keys: {', '.join(DISPATCH_KEYS)})")
            if key in kernels:
                raise fail(line, f"dispatch key {key} given twice (first on line {kernels[key][1]})")
            kernels[key] = (kernel, line)
    return [(k, kernels[k][0]) for k in DISPATCH_KEYS if k in kernels]


def _tags(node: YNode, key_line: int, fail) -> tuple[str, ...]:
    words = _words(node)
    for word, line in words:
        if not _CPP_IDENTIFIER.match(word):
            raise fail(line if word else key_line, f"bad tag '{word}': a tag is a word such as 'pointwise'")
    return tuple(w for w, _ in words)
