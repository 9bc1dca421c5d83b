"""Reads and validates ops.yaml: one OpEntry per `- func:` entry, with the line it starts on."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional

from .errors import CodegenError, ErrorCollector
from .model import Argument, FunctionSchema, SchemaError, parse_schema
from .yaml_loader import YNode, load_yaml

NAMESPACE = "glassbox"

# engine/core/dispatch_key.h, in priority order: runtime keys, then alias keys.
DISPATCH_KEYS = (
    "CPU",
    "CUDA",
    "Meta",
    "AutogradCPU",
    "AutogradCUDA",
    "Trace",
    "Python",
    "Autograd",
    "CompositeImplicitAutograd",
    "CompositeExplicitAutograd",
)
ENTRY_KEYS = ("func", "variants", "dispatch", "tags", "structured", "inplace", "inplace_variants", "out")
# The keys of a structured entry's kernels, and the suffix of their generated kernel names.
STRUCTURED_KEYS = (("CPU", "cpu"), ("CUDA", "cuda"), ("Meta", "meta"))
VARIANTS = ("function", "method")

_CPP_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class Structured:
    """An operator variant derived from a `structured:` entry: its kernels are generated, each the
    family's front end with one backend's compute and the entry's functor."""

    functor: str  # in glassbox::functors
    role: str  # "functional", "inplace" or "out"
    functional: str  # the entry's full name (add.Tensor)
    op_name: str  # how error messages name this variant: add, add_, add.out


@dataclass(frozen=True)
class OpEntry:
    schema: FunctionSchema
    line: int  # of the entry's first key (the `- func:` line)
    variants: tuple[str, ...]
    dispatch: tuple[tuple[str, str], ...]  # (key, kernel name in glassbox::native), in key order
    implicit_composite: bool  # no `dispatch:`: a math kernel named after the operator
    tags: tuple[str, ...]
    structured: Optional[Structured] = None

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
        raise CodegenError(
            display, root.line, f"expected a list of operator entries ('- func: ...'), found {root.describe()}"
        )
    entries: list[OpEntry] = []
    first_seen: dict[str, int] = {}
    for node in root.value:
        try:
            expanded = _entries(node, display)
        except CodegenError as e:
            errors.add(e)
            continue
        for entry in expanded:
            if entry.full_name in first_seen:
                first = f"{display}:{first_seen[entry.full_name]}"
                errors.add(
                    CodegenError(
                        display, entry.line, f"duplicate operator {entry.full_name} (first declared at {first})"
                    )
                )
                continue
            first_seen[entry.full_name] = entry.line
            entries.append(entry)
    errors.raise_if_any()
    return entries


def _entries(node: YNode, display: str) -> list[OpEntry]:
    """One entry, or the functional, in-place and out= operators of a structured one."""
    entry = _entry(node, display)
    if node.kind != "map" or "structured" not in node.value:  # type: ignore[operator]
        for key in ("inplace", "inplace_variants", "out"):
            if node.kind == "map" and key in node.value:  # type: ignore[operator]
                raise CodegenError(display, node.key_lines[key], f"'{key}' belongs to a 'structured:' entry")
        return [entry]
    return _structured(entry, node, display)


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
        raise fail(
            func.line,
            f"write the schema without a namespace ('{schema.namespace}::' given): every operator is in '{NAMESPACE}'",
        )
    if schema.is_vararg or schema.is_varret:
        raise fail(func.line, f"{schema.full_name}: '...' schemas take boxed kernels only and have no C++ API")

    variants = ("function",)
    if "variants" in fields:
        variants = _variants(fields["variants"], node.key_lines["variants"], fail)

    dispatch: list[tuple[str, str]] = []
    implicit = "dispatch" not in fields and "structured" not in fields
    if "structured" in fields:
        if "dispatch" in fields:
            raise fail(
                node.key_lines["dispatch"], "a 'structured:' entry has no 'dispatch:' (its kernels are generated)"
            )
    elif not implicit:
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
            raise fail(
                line,
                f"{schema.full_name} has a method variant but no 'Tensor self' argument (a method is called on self)",
            )
        if schema.is_out:
            raise fail(
                line,
                f"{schema.full_name} is an out= overload (it writes keyword-only arguments "
                "{}); out= overloads have no method variant".format(", ".join(a.name for a in schema.out_arguments)),
            )
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
        raise fail(
            key_line,
            "'dispatch' must be a mapping of dispatch key to kernel name, e.g. 'CPU: add_cpu' "
            "(leave it out for a CompositeImplicitAutograd kernel named after the operator)",
        )
    kernels: dict[str, tuple[str, int]] = {}
    for keys, kernel_node in node.value.items():  # type: ignore[union-attr]
        line = node.key_lines[keys]
        kernel = kernel_node.value.strip() if kernel_node.kind == "scalar" else ""  # type: ignore[union-attr]
        if not _CPP_IDENTIFIER.match(kernel):
            shown = kernel_node.value if kernel_node.kind == "scalar" else kernel_node.describe()
            raise fail(
                line, f"the kernel for '{keys}' must be a C++ function name in glassbox::native, found '{shown}'"
            )
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


def _scalar(node: YNode, key_line: int, fail, what: str) -> str:
    value = node.value.strip() if node.kind == "scalar" else ""  # type: ignore[union-attr]
    if not value:
        raise fail(key_line, f"'{what}' must be a name")
    return value


def _argument_text(a: Argument) -> str:
    alias = ""
    if a.alias is not None:
        alias = "(" + "|".join(a.alias.before) + ("!" if a.alias.is_write else "") + ")"
    default = f"={a.default.text}" if a.default is not None else ""
    return f"{a.type}{alias} {a.name}{default}"


def _derived_schema(schema: FunctionSchema, full_name: str, role: str) -> str:
    """The schema text of the in-place (self written) or out= (a keyword `out` written) form."""
    args: list[str] = []
    kwarg = False
    for a in schema.arguments:
        if a.kwarg_only and not kwarg:
            args.append("*")
            kwarg = True
        text = _argument_text(a)
        if role == "inplace" and a.name == "self":
            text = "Tensor(a!) self"
        args.append(text)
    if role == "out":
        if not kwarg:
            args.append("*")
        args.append("Tensor(a!) out")
    return f"{full_name}({', '.join(args)}) -> Tensor(a!)"


def _structured(entry: OpEntry, node: YNode, display: str) -> list[OpEntry]:
    def fail(line: int, message: str) -> CodegenError:
        return CodegenError(display, line, message)

    fields: dict[str, YNode] = node.value  # type: ignore[assignment]
    functor = _scalar(fields["structured"], node.key_lines["structured"], fail, "structured")
    if not _CPP_IDENTIFIER.match(functor):
        raise fail(
            node.key_lines["structured"], f"'structured' names a functor in glassbox::functors, found '{functor}'"
        )
    schema = entry.schema
    tensors = [a for a in schema.arguments if a.type.base == "Tensor" and not a.type.is_list]
    returns_one_tensor = len(schema.returns) == 1 and str(schema.returns[0].type) == "Tensor"
    if (
        schema.is_out
        or entry.name.endswith("_")
        or not tensors
        or tensors[0].type.optional
        or not returns_one_tensor
        or any(a.is_write for a in schema.arguments)
    ):
        raise fail(
            entry.line,
            f"{entry.full_name}: a structured entry is the functional form: a Tensor argument "
            "first, one Tensor returned, nothing written",
        )
    if "self" not in (a.name for a in schema.arguments) and fields.get("inplace") is None:
        raise fail(
            entry.line,
            f"{entry.full_name}: an in-place form writes 'self', which this schema lacks (write 'inplace: none')",
        )
    stem = entry.name
    dispatch = tuple((key, f"{stem}_{suffix}") for key, suffix in STRUCTURED_KEYS)
    out = [replace(entry, dispatch=dispatch, structured=Structured(functor, "functional", entry.full_name, stem))]

    def derived(
        key: str, default: str, role: str, kernels: tuple[tuple[str, str], ...], op_name: str, variants: tuple[str, ...]
    ) -> None:
        name = default
        if key in fields:
            name = _scalar(fields[key], node.key_lines[key], fail, key)
            if name == "none":
                return
        try:
            derived_schema = parse_schema(_derived_schema(schema, name, role))
        except SchemaError as e:
            raise fail(node.key_lines.get(key, entry.line), f"bad {key} name '{name}': {e.reason}") from None
        out.append(
            OpEntry(
                derived_schema,
                entry.line,
                variants,
                kernels,
                False,
                entry.tags,
                Structured(functor, role, entry.full_name, op_name),
            )
        )

    inplace_variants = entry.variants
    if "inplace_variants" in fields:
        inplace_variants = _variants(fields["inplace_variants"], node.key_lines["inplace_variants"], fail)
    overload = f".{entry.overload}" if entry.overload else ""
    derived(
        "inplace",
        f"{stem}_{overload}",
        "inplace",
        tuple((k, f"{stem}_{s}_") for k, s in STRUCTURED_KEYS),
        f"{stem}_",
        inplace_variants,
    )
    derived(
        "out",
        f"{stem}.out",
        "out",
        tuple((k, f"{stem}_out_{s}") for k, s in STRUCTURED_KEYS),
        f"{stem}.out",
        ("function",),
    )
    return out
