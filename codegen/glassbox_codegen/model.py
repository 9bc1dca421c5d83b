"""The operator schema language, as registry/function_schema.h models it, and a parser for it.

    add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor

The grammar follows registry/schema_parser.cpp so that what the generator accepts also registers
at run time. The C++ parser stays the authority: this one only has to read what ops.yaml holds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

BASE_TYPES = (
    "Tensor",
    "int",
    "SymInt",
    "float",
    "bool",
    "str",
    "Scalar",
    "ScalarType",
    "Device",
    "Layout",
    "MemoryFormat",
    "Generator",
)


@dataclass(frozen=True)
class SchemaType:
    base: str
    is_list: bool = False
    fixed_size: Optional[int] = None  # int[2]
    optional: bool = False  # T? or T[]?
    element_optional: bool = False  # Tensor?[]

    def __str__(self) -> str:
        s = self.base
        if self.is_list:
            s += ("?" if self.element_optional else "") + f"[{self.fixed_size or ''}]"
        return s + ("?" if self.optional else "")


@dataclass(frozen=True)
class AliasInfo:
    before: tuple[str, ...]
    is_write: bool = False
    after: tuple[str, ...] = ()


@dataclass(frozen=True)
class DefaultValue:
    kind: str  # "None", "Bool", "Int", "Float", "String", "List", "Identifier"
    text: str  # as written ("1e-05", "'mean'", "[1, 1]")
    elements: tuple["DefaultValue", ...] = ()


@dataclass(frozen=True)
class Argument:
    name: str
    type: SchemaType
    alias: Optional[AliasInfo] = None
    default: Optional[DefaultValue] = None
    kwarg_only: bool = False

    @property
    def is_write(self) -> bool:
        return self.alias is not None and self.alias.is_write


@dataclass(frozen=True)
class Return:
    name: str
    type: SchemaType
    alias: Optional[AliasInfo] = None

    @property
    def is_write(self) -> bool:
        return self.alias is not None and self.alias.is_write


@dataclass(frozen=True)
class FunctionSchema:
    namespace: str  # "" unless written ("glassbox::add")
    name: str
    overload: str
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]
    text: str  # as written in the YAML, stripped
    is_vararg: bool = False
    is_varret: bool = False

    @property
    def full_name(self) -> str:
        return f"{self.name}.{self.overload}" if self.overload else self.name

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        """Keyword-only arguments the operator writes to: what makes an out= overload."""
        return tuple(a for a in self.arguments if a.kwarg_only and a.is_write)

    @property
    def is_out(self) -> bool:
        return bool(self.out_arguments)


class SchemaError(Exception):
    def __init__(self, reason: str, column: int) -> None:
        super().__init__(f"{reason} (column {column})")
        self.reason = reason
        self.column = column  # 1-based


def parse_schema(text: str) -> FunctionSchema:
    return _Parser(text.strip()).schema()


def _is_ident_start(c: str) -> bool:
    return c.isascii() and (c.isalpha() or c == "_")


def _is_ident_char(c: str) -> bool:
    return c.isascii() and (c.isalnum() or c == "_")


@dataclass
class _Parser:
    text: str
    pos: int = 0

    # -- primitives ---------------------------------------------------------------------------
    def fail(self, reason: str, pos: Optional[int] = None) -> SchemaError:
        return SchemaError(reason, (self.pos if pos is None else pos) + 1)

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def at_end(self) -> bool:
        return self.pos >= len(self.text)

    def skip_space(self) -> None:
        while not self.at_end() and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def consume(self, token: str) -> bool:
        if self.text.startswith(token, self.pos):
            self.pos += len(token)
            return True
        return False

    def identifier(self) -> str:
        start = self.pos
        if not _is_ident_start(self.peek()):
            return ""
        while _is_ident_char(self.peek()):
            self.pos += 1
        return self.text[start : self.pos]

    def describe(self) -> str:
        if self.at_end():
            return "end of input"
        rest = self.text[self.pos :]
        for token in ("->", "..."):
            if rest.startswith(token):
                return f"'{token}'"
        n = 0
        while n < len(rest) and _is_ident_char(rest[n]):
            n += 1
        return f"'{rest[: max(n, 1)]}'"

    # -- grammar ------------------------------------------------------------------------------
    def schema(self) -> FunctionSchema:
        self.skip_space()
        namespace = ""
        name = self.identifier()
        if not name:
            raise self.fail(f"expected an operator name, found {self.describe()}")
        if self.consume("::"):
            namespace, name = name, self.identifier()
            if not name:
                raise self.fail(f"expected an operator name after '::', found {self.describe()}")
        overload = ""
        if self.consume("."):
            overload = self.identifier()
            if not overload:
                raise self.fail(f"expected an overload name after '.', found {self.describe()}")
        arguments, is_vararg = self.arguments()
        self.skip_space()
        if not self.consume("->"):
            raise self.fail(f"missing '->' after the arguments, found {self.describe()}")
        returns, is_varret = self.returns()
        self.skip_space()
        if not self.at_end():
            raise self.fail(f"trailing characters after the returns: {self.describe()}")
        return FunctionSchema(
            namespace, name, overload, tuple(arguments), tuple(returns), self.text, is_vararg, is_varret
        )

    def arguments(self) -> tuple[list[Argument], bool]:
        self.skip_space()
        if not self.consume("("):
            raise self.fail(f"expected '(' after the operator name, found {self.describe()}")
        args: list[Argument] = []
        self.skip_space()
        if self.consume(")"):
            return args, False
        kwarg_only = False
        star: Optional[int] = None
        seen: set[str] = set()
        while True:
            self.skip_space()
            if star is not None and (self.peek() == ")" or self.text.startswith("...", self.pos)):
                raise self.fail("'*' must be followed by a keyword-only argument", star)
            if self.consume("..."):
                self.skip_space()
                if not self.consume(")"):
                    raise self.fail(f"'...' must be the last argument, found {self.describe()}")
                return args, True
            if self.peek() == "*":
                if kwarg_only:
                    raise self.fail("'*' given twice")
                kwarg_only, star = True, self.pos
                self.pos += 1
                self.skip_space()
                if self.consume(","):
                    continue
                raise self.fail(f"expected ',' after '*', found {self.describe()}")
            star = None
            type_, alias = self.type("an argument type")
            self.skip_space()
            name_pos = self.pos
            name = self.identifier()
            if not name:
                raise self.fail(f"empty argument name: expected a name after the type, found {self.describe()}")
            if name in seen:
                raise self.fail(f"duplicate argument name '{name}'", name_pos)
            seen.add(name)
            self.skip_space()
            default = None
            if self.consume("="):
                value_pos = self.pos
                default = self.value()
                self.check_default(type_, default, value_pos)
            args.append(Argument(name, type_, alias, default, kwarg_only))
            self.skip_space()
            if self.consume(","):
                continue
            if self.consume(")"):
                return args, False
            raise self.fail(f"expected ',' or ')' after an argument, found {self.describe()}")

    def returns(self) -> tuple[list[Return], bool]:
        self.skip_space()
        if self.consume("..."):
            return [], True
        if not self.consume("("):
            type_, alias = self.type("a return type after '->'")
            return [Return("", type_, alias)], False
        rets: list[Return] = []
        self.skip_space()
        if self.consume(")"):
            return rets, False
        while True:
            self.skip_space()
            if self.consume("..."):
                self.skip_space()
                if not self.consume(")"):
                    raise self.fail(f"'...' must be the last return, found {self.describe()}")
                return rets, True
            type_, alias = self.type("a return type")
            self.skip_space()
            name = self.identifier()
            rets.append(Return(name, type_, alias))
            self.skip_space()
            if self.peek() == "=":
                raise self.fail("returns cannot have default values")
            if self.consume(","):
                continue
            if self.consume(")"):
                return rets, False
            raise self.fail(f"expected ',' or ')' after a return, found {self.describe()}")

    def type(self, what: str) -> tuple[SchemaType, Optional[AliasInfo]]:
        self.skip_space()
        start = self.pos
        word = self.identifier()
        if not word:
            raise self.fail(f"expected {what}, found {self.describe()}")
        if word not in BASE_TYPES:
            raise self.fail(f"unknown type '{word}'", start)
        alias = None
        self.skip_space()
        if self.peek() == "(":
            if word != "Tensor":
                raise self.fail(f"alias annotation on a non-Tensor type '{word}'")
            alias = self.alias_info()
        self.skip_space()
        question = self.consume("?")
        self.skip_space()
        is_list = False
        fixed_size = None
        optional = question
        element_optional = False
        if self.consume("["):
            is_list, element_optional = True, question
            self.skip_space()
            if self.peek().isdigit():
                size_pos = self.pos
                while self.peek().isdigit():
                    self.pos += 1
                fixed_size = int(self.text[size_pos : self.pos])
                if fixed_size <= 0:
                    raise self.fail(f"bad list size '{fixed_size}': must be a positive integer", size_pos)
                self.skip_space()
            if not self.consume("]"):
                raise self.fail(f"bad list size: expected a number or ']', found {self.describe()}")
            self.skip_space()
            optional = self.consume("?")
        self.skip_space()
        if self.peek() == "[":
            raise self.fail("nested list types are not supported")
        if self.peek() == "?":
            raise self.fail("'?' given twice")
        if self.peek() == "(":
            raise self.fail("the alias annotation must come right after the base type")
        return SchemaType(word, is_list, fixed_size, optional, element_optional), alias

    def alias_info(self) -> AliasInfo:
        self.pos += 1  # '('
        before = self.alias_sets()
        is_write = self.consume("!")
        self.skip_space()
        after: tuple[str, ...] = ()
        if self.consume("->"):
            after = self.alias_sets()
        self.skip_space()
        if not self.consume(")"):
            raise self.fail(f"expected ')' to close the alias annotation, found {self.describe()}")
        return AliasInfo(before, is_write, after)

    def alias_sets(self) -> tuple[str, ...]:
        sets: list[str] = []
        while True:
            self.skip_space()
            if self.consume("*"):
                sets.append("*")
            else:
                name = self.identifier()
                if not name:
                    raise self.fail(f"expected an alias set name, found {self.describe()}")
                sets.append(name)
            self.skip_space()
            if not self.consume("|"):
                return tuple(sets)

    def value(self) -> DefaultValue:
        self.skip_space()
        c = self.peek()
        if not c:
            raise self.fail("expected a default value, found end of input")
        if c in "\"'":
            end = self.pos + 1
            while end < len(self.text) and self.text[end] != c:
                end += 2 if self.text[end] == "\\" else 1
            if end >= len(self.text):
                raise self.fail("unterminated string")
            text = self.text[self.pos : end + 1]
            self.pos = end + 1
            return DefaultValue("String", text)
        if c == "[":
            return self.list_value()
        if c.isdigit() or c in "-.":
            return self.number()
        if _is_ident_start(c):
            word = self.identifier()
            kind = (
                "None"
                if word == "None"
                else "Bool"
                if word in ("True", "False")
                else "Float"
                if word in ("inf", "nan")
                else "Identifier"
            )
            return DefaultValue(kind, word)
        raise self.fail(f"expected a default value, found {self.describe()}")

    def list_value(self) -> DefaultValue:
        self.pos += 1  # '['
        elements: list[DefaultValue] = []
        self.skip_space()
        if not self.consume("]"):
            while True:
                self.skip_space()
                element_pos = self.pos
                e = self.value()
                if e.kind == "List":
                    raise self.fail("nested lists are not supported as default values", element_pos)
                elements.append(e)
                self.skip_space()
                if self.consume(","):
                    continue
                if self.consume("]"):
                    break
                raise self.fail(f"expected ',' or ']' in the list default, found {self.describe()}")
        text = "[" + ", ".join(e.text for e in elements) + "]"
        return DefaultValue("List", text, tuple(elements))

    def number(self) -> DefaultValue:
        start = self.pos
        self.consume("-")
        word_pos = self.pos
        if self.identifier() in ("inf", "nan"):
            return DefaultValue("Float", self.text[start : self.pos])
        self.pos = word_pos
        is_float = False
        digits = 0
        while self.peek().isdigit():
            self.pos += 1
            digits += 1
        if self.consume("."):
            is_float = True
            while self.peek().isdigit():
                self.pos += 1
                digits += 1
        bad = digits == 0
        if self.peek() in ("e", "E"):
            is_float = True
            self.pos += 1
            if not self.consume("+"):
                self.consume("-")
            bad = bad or not self.peek().isdigit()
            while self.peek().isdigit():
                self.pos += 1
        while _is_ident_char(self.peek()) or self.peek() == ".":
            bad = True
            self.pos += 1
        text = self.text[start : self.pos]
        if bad:
            raise self.fail(f"invalid number '{text}'", start)
        if not is_float and not -(2**63) <= int(text) < 2**63:
            raise self.fail(f"integer default '{text}' is out of range", start)
        return DefaultValue("Float" if is_float else "Int", text)

    def check_default(self, t: SchemaType, v: DefaultValue, pos: int) -> None:
        if v.kind == "None":
            if not t.optional:
                raise self.fail(f"default value None does not fit type '{t}' (only optional types take None)", pos)
            return
        if t.is_list and v.kind == "List":
            for e in v.elements:
                ok = t.element_optional if e.kind == "None" else _fits(t.base, e.kind)
                if not ok:
                    raise self.fail(f"default value {e.text} does not fit type '{t}'", pos)
            return
        if v.kind == "List" or not _fits(t.base, v.kind):
            raise self.fail(f"default value {v.text} does not fit type '{t}'", pos)


def _fits(base: str, kind: str) -> bool:
    """Whether a single default of this kind can stand for a value of type `base`."""
    return (
        kind
        in {
            "Tensor": (),
            "Generator": (),
            "int": ("Int", "Identifier"),
            "SymInt": ("Int", "Identifier"),
            "float": ("Float", "Int"),
            "bool": ("Bool",),
            "str": ("String",),
            "Scalar": ("Int", "Float", "Bool"),
            "ScalarType": ("Identifier", "Int"),
            "Layout": ("Identifier", "Int"),
            "MemoryFormat": ("Identifier", "Int"),
            "Device": ("Identifier", "String"),
        }[base]
    )
