"""The C++ API of every operator: struct names, function and method signatures, kernels.

This is where names are decided (out= ordering, renaming of overloads C++ could not tell apart,
clashes with Tensor's own members); the renderers only print what the Plan says.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from . import cpp_types
from .cpp_types import ArrayDefault, UnsupportedType
from .errors import CodegenError, ErrorCollector
from .ops_yaml import DISPATCH_KEYS, NAMESPACE, OpEntry

# Members engine/core/tensor.h declares by hand; a method variant may not reuse these names.
TENSOR_MEMBERS = (
    "defined",
    "unsafe_impl",
    "impl",
    "key_set",
    "dtype",
    "device",
    "sizes",
    "strides",
    "storage_offset",
    "is_contiguous",
    "data_ptr",
    "data",
    "dim",
    "numel",
    "is_same",
)

# Names of the aggregate outputs, which a per-operator file must not take.
AGGREGATE_NAMES = ("Types", "Functions", "NativeFunctions", "RegisterSchema", "TensorMethods") + tuple(
    f"Register{k}" for k in DISPATCH_KEYS
)

CPP_KEYWORDS = frozenset(
    """
alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t char16_t char32_t
class compl concept const consteval constexpr constinit const_cast continue co_await co_return co_yield
decltype default delete do double dynamic_cast else enum explicit export extern false float for friend
goto if inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq private
protected public register reinterpret_cast requires return short signed sizeof static static_assert
static_cast struct switch template this thread_local throw true try typedef typeid typename union
unsigned using virtual void volatile wchar_t while xor xor_eq
""".split()
)
# Names the generated code itself uses next to the arguments.
_RESERVED_PARAMS = frozenset({"keys", "op"})


@dataclass
class Param:
    name: str  # C++ identifier (the schema name, escaped when it is a keyword)
    type: str
    default: Optional[cpp_types.CppDefault]
    schema_name: str
    is_write: bool
    kwarg_only: bool


@dataclass
class Variant:
    """One C++ entry point: a free function (plain, out or outf) or a Tensor method."""

    kind: str  # "function", "out", "outf" or "method"
    name: str
    params: list[Param]  # in C++ order (methods: without self)
    defaults: list[Optional[str]]  # C++ default of each param (only the trailing run has them)
    call_args: list[str]  # what ops::<struct>::call gets, in schema order
    arrays: list[tuple[str, ArrayDefault]] = field(default_factory=list)  # storage the defaults name

    def signature_prefixes(self) -> set[tuple[str, ...]]:
        """The parameter type lists a call can match (with 0..n trailing defaults left out)."""
        types = tuple(p.type for p in self.params)
        required = sum(1 for d in self.defaults if d is None)
        return {types[:n] for n in range(required, len(types) + 1)}


@dataclass
class Kernel:
    key: str
    name: str  # in glassbox::native
    implicit: bool  # CompositeImplicitAutograd kernel named after the operator (no dispatch:)


@dataclass
class Op:
    entry: OpEntry
    struct: str  # glassbox::ops::<struct>
    ret: str
    params: list[Param]  # schema order
    kernels: list[Kernel]
    functions: list[Variant] = field(default_factory=list)
    method: Optional[Variant] = None

    @property
    def line(self) -> int:
        return self.entry.line

    @property
    def base_name(self) -> str:
        return self.entry.base_name

    @property
    def qualified_name(self) -> str:
        return f"{NAMESPACE}::{self.entry.name}"

    @property
    def function_type(self) -> str:
        """`Tensor(const Tensor&, const Scalar&)`: the typed handle's signature."""
        return f"{self.ret}({', '.join(p.type for p in self.params)})"

    @property
    def pointer_type(self) -> str:
        return f"{self.ret} (*)({', '.join(p.type for p in self.params)})"


@dataclass
class Plan:
    ops: list[Op]  # YAML order
    bases: dict[str, list[Op]]  # base name -> its overloads, in order of first appearance
    keys: list[str]  # dispatch keys that have kernels, in DISPATCH_KEYS order
    overloaded_kernels: set[str]  # kernel names with more than one C++ signature
    display: str  # the YAML path as comments show it
    derivatives: Optional[list] = None  # derivatives.DerivativeEntry in YAML order; None: no autograd
    derivatives_display: str = "engine/ops/derivatives.yaml"

    def ops_for_key(self, key: str) -> list[tuple[Op, Kernel]]:
        return [(op, k) for op in self.ops for k in op.kernels if k.key == key]

    def method_ops(self) -> list[Op]:
        return [op for op in self.ops if op.method is not None]


def cpp_identifier(name: str) -> str:
    return name + "_" if name in CPP_KEYWORDS or name in _RESERVED_PARAMS else name


def build_plan(entries: list[OpEntry], display: str) -> Plan:
    errors = ErrorCollector()

    def fail(op_line: int, message: str) -> None:
        errors.add(CodegenError(display, op_line, message))

    ops: list[Op] = []
    structs: dict[str, Op] = {}
    for entry in entries:
        try:
            op = _op(entry)
        except UnsupportedType as e:
            fail(entry.line, f"{entry.full_name}: {e}")
            continue
        if op.struct in structs:
            other = structs[op.struct]
            fail(
                entry.line,
                f"{entry.full_name} and {other.entry.full_name} ({display}:{other.line}) "
                f"would both be glassbox::ops::{op.struct}; rename one of them",
            )
            continue
        structs[op.struct] = op
        ops.append(op)

    bases: dict[str, list[Op]] = {}
    lowered_aggregates = {n.lower(): n for n in AGGREGATE_NAMES}
    for op in ops:
        if op.base_name.lower() in lowered_aggregates and op.base_name not in bases:
            fail(
                op.line,
                f"operator name '{op.base_name}' would overwrite the generated "
                f"{lowered_aggregates[op.base_name.lower()]} files; rename it",
            )
        bases.setdefault(op.base_name, []).append(op)

    _name_functions(ops, fail, display)
    _name_methods(ops, fail, display)
    overloaded = _check_kernels(ops, fail, display)
    errors.raise_if_any()
    keys = [k for k in DISPATCH_KEYS if any(kernel.key == k for op in ops for kernel in op.kernels)]
    return Plan(ops, bases, keys, overloaded, display)


def _op(entry: OpEntry) -> Op:
    schema = entry.schema
    params: list[Param] = []
    for arg in schema.arguments:
        cpp_type = cpp_types.arg_type(arg)
        params.append(
            Param(
                cpp_identifier(arg.name), cpp_type, cpp_types.default_value(arg), arg.name, arg.is_write, arg.kwarg_only
            )
        )
    ret = cpp_types.returns_type(schema)
    struct = f"{entry.name}_{entry.overload}" if entry.overload else entry.name
    kernels = [Kernel(key, name, entry.implicit_composite) for key, name in entry.dispatch]
    return Op(entry, struct, ret, params, kernels)


def _with_defaults(
    op: Op, params: list[Param], use_defaults: bool, array_prefix: str
) -> tuple[list[Optional[str]], list[tuple[str, ArrayDefault]]]:
    """C++ defaults for params in this order: only a trailing run of defaulted params keeps them."""
    defaults: list[Optional[str]] = [None] * len(params)
    arrays: list[tuple[str, ArrayDefault]] = []
    if not use_defaults:
        return defaults, arrays
    for i in range(len(params) - 1, -1, -1):
        d = params[i].default
        if d is None:
            break
        if isinstance(d, ArrayDefault):
            storage = f"k_{op.struct}_{params[i].schema_name}_default"
            arrays.insert(0, (storage, d))
            defaults[i] = array_prefix + storage
        else:
            defaults[i] = d
    return defaults, arrays


def _function_variants(op: Op, name: Optional[str] = None) -> list[Variant]:
    """The free functions of op, named `name` instead of after the operator when given."""
    entry = op.entry
    call_args = [p.name for p in op.params]
    if not entry.schema.is_out:
        defaults, arrays = _with_defaults(op, op.params, True, "ops::")
        return [Variant("function", name or entry.name, list(op.params), defaults, call_args, arrays)]
    # out= overloads: <name>_out(outs..., args...) with defaults, <name>_outf(args in schema order).
    outs = [p for p in op.params if p.is_write and p.kwarg_only]
    rest = [p for p in op.params if not (p.is_write and p.kwarg_only)]
    name = name or f"{entry.name}_out"
    defaults, arrays = _with_defaults(op, outs + rest, True, "ops::")
    out = Variant("out", name, outs + rest, defaults, call_args, arrays)
    outf_defaults, _ = _with_defaults(op, op.params, False, "")
    outf = Variant("outf", name + "f", list(op.params), outf_defaults, call_args)
    return [out, outf]


def _renamed(op: Op) -> str:
    entry = op.entry
    if entry.schema.is_out and not entry.overload.endswith("out"):
        return f"{entry.name}_{entry.overload}_out"
    return f"{entry.name}_{entry.overload}"


def _resolution_order(ops: list[Op]) -> list[Op]:
    """The overload without a name keeps the plain C++ name first; then the entries written out in
    the YAML before the variants derived from a structured entry; then YAML order."""

    def derived(op: Op) -> bool:
        return op.entry.structured is not None and op.entry.structured.role != "functional"

    return sorted(ops, key=lambda op: (op.entry.overload != "", derived(op), ops.index(op)))


def _clashes(a: list[Variant], b: list[Variant]) -> bool:
    return any(x.name == y.name and x.signature_prefixes() & y.signature_prefixes() for x in a for y in b)


def _name_functions(ops: list[Op], fail, display: str) -> None:
    taken: dict[str, list[tuple[Op, list[Variant]]]] = {}  # name -> what already has it
    for op in _resolution_order(ops):
        if "function" not in op.entry.variants:
            continue
        variants = _function_variants(op)
        clash = _first_clash(variants, taken)
        if clash is not None:
            if not op.entry.overload:
                fail(op.line, _ambiguity_message(op, clash, variants[0].name, display))
                continue
            renamed = _function_variants(op, _renamed(op))
            second = _first_clash(renamed, taken)
            if second is not None:
                fail(op.line, _ambiguity_message(op, second, renamed[0].name, display))
                continue
            variants = renamed
        op.functions = variants
        for v in variants:
            taken.setdefault(v.name, []).append((op, [v]))


def _first_clash(variants: list[Variant], taken: dict[str, list[tuple[Op, list[Variant]]]]) -> Optional[Op]:
    for v in variants:
        for other, others in taken.get(v.name, []):
            if _clashes([v], others):
                return other
    return None


def _ambiguity_message(op: Op, other: Op, name: str, display: str) -> str:
    return (
        f"{op.entry.full_name}: C++ could not tell {name}(...) apart from the one of "
        f"{other.entry.full_name} ({display}:{other.line}): "
        "same parameter types; give the overloads different argument types or rename one"
    )


def _name_methods(ops: list[Op], fail, display: str) -> None:
    taken: dict[str, list[tuple[Op, list[Variant]]]] = {}
    for op in _resolution_order(ops):
        if "method" not in op.entry.variants:
            continue
        method = _method_variant(op, op.entry.name)
        if method.name in TENSOR_MEMBERS:
            fail(
                op.line,
                f"{op.entry.full_name}: the method variant Tensor::{method.name} clashes with the "
                f"existing member Tensor::{method.name} (engine/core/tensor.h); drop 'method' from "
                "its variants or rename the operator",
            )
            continue
        clash = _first_clash([method], taken)
        if clash is not None:
            if not op.entry.overload:
                fail(op.line, _ambiguity_message(op, clash, f"Tensor::{method.name}", display))
                continue
            method = _method_variant(op, f"{op.entry.name}_{op.entry.overload}")
            second = _first_clash([method], taken)
            if second is not None:
                fail(op.line, _ambiguity_message(op, second, f"Tensor::{method.name}", display))
                continue
        op.method = method
        taken.setdefault(method.name, []).append((op, [method]))


def _method_variant(op: Op, name: str) -> Variant:
    params = [p for p in op.params if p.schema_name != "self"]
    defaults, arrays = _with_defaults(op, params, True, "")
    self_param = next(p for p in op.params if p.schema_name == "self")
    this = "const_cast<Tensor&>(*this)" if self_param.type == "Tensor&" else "*this"
    call_args = [this if p.schema_name == "self" else p.name for p in op.params]
    return Variant("method", name, params, defaults, call_args, arrays)


def _check_kernels(ops: list[Op], fail, display: str) -> set[str]:
    """Kernels share glassbox::native: one name may serve several signatures (C++ overloads), but
    not two with the same parameters and different returns, nor two implicit ones that collide."""
    by_name: dict[str, dict[tuple[str, ...], tuple[Op, Kernel]]] = {}
    for op in ops:
        params = tuple(p.type for p in op.params)
        for kernel in op.kernels:
            signatures = by_name.setdefault(kernel.name, {})
            if params not in signatures:
                signatures[params] = (op, kernel)
                continue
            other, other_kernel = signatures[params]
            if other is op:
                continue
            if other.ret != op.ret:
                fail(
                    op.line,
                    f"{op.entry.full_name}: kernel native::{kernel.name} would differ from the one of "
                    f"{other.entry.full_name} ({display}:{other.line}) only in its return type; "
                    "give it another name in 'dispatch:'",
                )
            elif kernel.implicit and other_kernel.implicit:
                fail(
                    op.line,
                    f"{op.entry.full_name}: its CompositeImplicitAutograd kernel native::{kernel.name} "
                    f"has the same C++ signature as the one of {other.entry.full_name} "
                    f"({display}:{other.line}); name the kernels in 'dispatch:'",
                )
    return {
        name
        for name, signatures in by_name.items()
        if len({(params, op.ret) for params, (op, _) in signatures.items()}) > 1
    }
