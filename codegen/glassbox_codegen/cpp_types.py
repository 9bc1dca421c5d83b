"""Schema types and default values -> the C++ spelling glassbox's kernels use.

The spellings must be exactly those registry/cpp_signature.h derives from a kernel's C++ type
(CppArgType::cpp_name): a typed handle whose signature differs from the registered kernels'
is refused when it is made.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from .model import Argument, DefaultValue, FunctionSchema, Return, SchemaType

SCALAR_TYPES = ("Float32", "Float64", "Float16", "BFloat16", "Int64", "Int32", "Int16", "Int8", "UInt8", "Bool")
REDUCTIONS = {"Mean": "Reduction::Mean", "Sum": "Reduction::Sum"}  # Reduction::None is 0 (None parses as None)


class UnsupportedType(Exception):
    """A schema construct that glassbox's C++ API cannot express (yet)."""


# (base, is_list, optional) -> C++ parameter type.
_ARG_TYPES: dict[tuple[str, bool, bool], str] = {
    ("Tensor", False, False): "const Tensor&",
    ("Tensor", False, True): "const std::optional<Tensor>&",
    ("Tensor", True, False): "TensorList",
    ("int", False, False): "int64_t",
    ("int", False, True): "std::optional<int64_t>",
    ("int", True, False): "IntArrayRef",
    ("int", True, True): "std::optional<IntArrayRef>",
    ("float", False, False): "double",
    ("float", False, True): "std::optional<double>",
    ("float", True, False): "std::span<const double>",
    ("float", True, True): "std::optional<std::span<const double>>",
    ("bool", False, False): "bool",
    ("bool", False, True): "std::optional<bool>",
    ("str", False, False): "std::string_view",
    ("str", False, True): "std::optional<std::string_view>",
    ("Scalar", False, False): "const Scalar&",
    ("Scalar", False, True): "const std::optional<Scalar>&",
    ("ScalarType", False, False): "ScalarType",
    ("ScalarType", False, True): "std::optional<ScalarType>",
    ("Device", False, False): "Device",
    ("Device", False, True): "std::optional<Device>",
}

_RETURN_TYPES: dict[tuple[str, bool], str] = {
    ("Tensor", False): "Tensor",
    ("Tensor", True): "std::vector<Tensor>",
    ("int", False): "int64_t",
    ("int", True): "std::vector<int64_t>",
    ("float", False): "double",
    ("float", True): "std::vector<double>",
    ("bool", False): "bool",
    ("Scalar", False): "Scalar",
    ("ScalarType", False): "ScalarType",
}


def _base(t: SchemaType) -> str:
    return "int" if t.base == "SymInt" else t.base


def arg_type(arg: Argument) -> str:
    t = arg.type
    if t.element_optional:
        # Tensor?[] (index.Tensor's indices): a view of optional tensors, as registry/cpp_signature.h spells it.
        if t.base == "Tensor" and not t.optional and not arg.is_write:
            return "OptionalTensorList"
        raise UnsupportedType(
            f"argument '{arg.name}': type '{t}' (a list of optional elements) "
            "is not supported by glassbox's C++ API yet (only Tensor?[])"
        )
    if arg.is_write:
        if t.base == "Tensor" and not t.optional:
            return "TensorList" if t.is_list else "Tensor&"
        raise UnsupportedType(
            f"argument '{arg.name}': a written-to '{t}' is not supported by glassbox's "
            "C++ API yet (only Tensor(a!) and Tensor(a!)[])"
        )
    cpp = _ARG_TYPES.get((_base(t), t.is_list, t.optional))
    if cpp is None:
        raise UnsupportedType(f"argument '{arg.name}': type '{t}' is not supported by glassbox's C++ API yet")
    return cpp


def return_type(r: Return) -> str:
    t = r.type
    if t.optional or t.element_optional:
        raise UnsupportedType(f"return type '{t}' is not supported by glassbox's C++ API yet")
    if r.is_write:
        if t.base == "Tensor" and not t.is_list:
            return "Tensor&"
        raise UnsupportedType(
            f"a written-to return '{t}' is not supported by glassbox's C++ API yet "
            "(return () from an operator that writes a list)"
        )
    cpp = _RETURN_TYPES.get((_base(t), t.is_list))
    if cpp is None:
        raise UnsupportedType(f"return type '{t}' is not supported by glassbox's C++ API yet")
    return cpp


def returns_type(schema: FunctionSchema) -> str:
    types = [return_type(r) for r in schema.returns]
    if not types:
        return "void"
    if len(types) == 1:
        return types[0]
    return f"std::tuple<{', '.join(types)}>"


@dataclass(frozen=True)
class ArrayDefault:
    """A non-empty list default: C++ needs storage for it (an array the parameter can view)."""

    element_type: str  # "int64_t" or "double"
    values: tuple[str, ...]

    def initializer(self) -> str:
        return "{" + ", ".join(self.values) + "}"


CppDefault = Union[str, ArrayDefault]


def default_value(arg: Argument) -> Optional[CppDefault]:
    """The C++ default argument for arg, or None when it has none."""
    d = arg.default
    if d is None:
        return None
    t = arg.type
    base = _base(t)
    if d.kind == "None":
        return "std::nullopt"
    if t.is_list:
        element = {"int": "int64_t", "float": "double"}.get(base)
        if d.kind == "List":
            values = tuple(_single(base, e, arg) for e in d.elements)
        elif t.fixed_size:
            values = (_single(base, d, arg),) * t.fixed_size  # int[2] stride=1 means {1, 1}
        else:
            raise UnsupportedType(
                f"argument '{arg.name}': the default {d.text} of '{t}' needs a list (or a fixed size such as int[2])"
            )
        if not values:
            # `{}` would make an optional list nullopt; an empty list is an empty view.
            return f"{_ARG_TYPES[(base, True, False)]}()" if t.optional else "{}"
        if element is None:
            raise UnsupportedType(
                f"argument '{arg.name}': a non-empty default for '{t}' is not supported by glassbox's C++ API yet"
            )
        return ArrayDefault(element, values)
    return _single(base, d, arg)


def _single(base: str, d: DefaultValue, arg: Argument) -> str:
    if d.kind == "Bool":
        return "true" if d.text == "True" else "false"
    if d.kind == "Int":
        return d.text
    if d.kind == "Float":
        text = d.text.lstrip("-")
        sign = "-" if d.text.startswith("-") else ""
        if text == "inf":
            return f"{sign}std::numeric_limits<double>::infinity()"
        if text == "nan":
            return "std::numeric_limits<double>::quiet_NaN()"
        return d.text
    if d.kind == "String" and base == "str":
        return cpp_string_literal(_unescape(d.text[1:-1]))
    if d.kind == "Identifier":
        if base == "int" and d.text in REDUCTIONS:
            return REDUCTIONS[d.text]
        if base == "ScalarType" and d.text in SCALAR_TYPES:
            return f"ScalarType::{d.text}"
        raise UnsupportedType(
            f"argument '{arg.name}': the default '{d.text}' of type '{arg.type}' is not "
            "supported by glassbox's C++ API yet"
        )
    raise UnsupportedType(f"argument '{arg.name}': the default {d.text} is not supported by glassbox's C++ API yet")


def _unescape(body: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        if body[i] == "\\" and i + 1 < len(body):
            out.append({"n": "\n", "t": "\t"}.get(body[i + 1], body[i + 1]))
            i += 2
        else:
            out.append(body[i])
            i += 1
    return "".join(out)


def cpp_string_literal(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'
