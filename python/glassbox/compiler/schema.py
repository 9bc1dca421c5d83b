"""Operator schemas read as data: argument names, keyword-only marks and defaults, and whether the
result aliases an argument (a view) or the operator writes into one (in-place, out=)."""

import ast
import functools
from dataclasses import dataclass
from typing import Any, List, Tuple

from .. import _C

_NO_DEFAULT = object()


@dataclass(frozen=True)
class Argument:
    name: str
    type: str
    kwarg_only: bool
    default: Any = _NO_DEFAULT

    @property
    def has_default(self):
        return self.default is not _NO_DEFAULT


@dataclass(frozen=True)
class Schema:
    name: str  # "glassbox::add.Tensor"
    arguments: Tuple[Argument, ...]
    returns: Tuple[str, ...]  # the return types, e.g. ("Tensor(a)",)

    @property
    def short_name(self):
        """ "add.Tensor" for "glassbox::add.Tensor"."""
        return self.name.split("::", 1)[1]

    @property
    def base_name(self):
        """ "add" for "glassbox::add.Tensor"."""
        return self.short_name.split(".", 1)[0]

    @property
    def overload(self):
        parts = self.short_name.split(".", 1)
        return parts[1] if len(parts) > 1 else ""

    @property
    def is_view(self):
        """The result aliases an argument without writing it (Tensor(a) self -> Tensor(a))."""
        return any("(a" in r and "!" not in r for r in self.returns)

    @property
    def is_inplace(self):
        return self.base_name.endswith("_") and not self.base_name.startswith("_")

    @property
    def writes_argument(self):
        return self.is_inplace or any("!" in a.type for a in self.arguments)

    @property
    def returns_only_tensors(self):
        return all(r.split("(")[0] in ("Tensor", "Tensor[]") for r in self.returns) and bool(self.returns)


def _split_top_level(text):
    """Splits at commas outside brackets and quotes."""
    parts, depth, quote, current = [], 0, None, []
    for ch in text:
        if quote:
            current.append(ch)
            if ch == quote:
                quote = None
            continue
        if ch in "'\"":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(ch)
    tail = "".join(current).strip()
    if tail:
        parts.append(tail)
    return parts


def _default_value(text):
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return _NO_DEFAULT  # a name the schema language knows (contiguous_format): never omitted


def parse(schema_text):
    """Schema of "ns::name.overload(Type name=default, *, ...) -> Returns"."""
    name, rest = schema_text.split("(", 1)
    arguments_text, returns_text = rest.rsplit(") -> ", 1)
    arguments: List[Argument] = []
    kwarg_only = False
    for part in _split_top_level(arguments_text):
        if part == "*":
            kwarg_only = True
            continue
        declaration, _, default = part.partition("=")
        type_, arg_name = declaration.rsplit(" ", 1)
        value = _default_value(default) if default else _NO_DEFAULT
        arguments.append(Argument(arg_name, type_, kwarg_only, value))
    returns_text = returns_text.strip()
    if returns_text.startswith("("):
        returns_text = returns_text[1:-1]
    returns = tuple(r.strip().split(" ")[0] for r in _split_top_level(returns_text) if r.strip())
    return Schema(name.strip(), tuple(arguments), returns)


@functools.lru_cache(maxsize=None)
def of(op):
    """The parsed schema of a registered operator ("glassbox::add.Tensor")."""
    text = _C._library.schema_arguments(op)[0]
    if text is None:
        raise RuntimeError("gb.compile: no operator %s is registered" % op)
    return parse(text)
