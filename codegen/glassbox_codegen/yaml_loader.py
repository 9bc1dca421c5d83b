"""Loads ops.yaml into a tree of YNode that remembers the line of every value and key.

PyYAML is used when it is installed (its node tree carries start marks); otherwise a small
built-in parser reads the subset that ops.yaml uses: block sequences and mappings, plain scalars
(continued on more indented lines if long), quoted scalars, flow lists `[a, b]`, and `#`
comments. Both give the same tree. Every scalar is
kept as the string it was written as (no int/bool conversion): the schema parser reads the text.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Union

from .errors import CodegenError


@dataclass
class YNode:
    kind: str  # "scalar", "seq" or "map"
    value: Union[str, list["YNode"], dict[str, "YNode"]]
    line: int  # 1-based line where the value starts
    key_lines: dict[str, int] = field(default_factory=dict)  # "map" only: the line of each key

    def describe(self) -> str:
        return {"scalar": "a scalar", "seq": "a list", "map": "a mapping"}[self.kind]


def load_yaml(path: str, display: str, parser: str = "auto") -> YNode:
    """parser: "auto" (PyYAML if importable), "pyyaml" or "builtin"."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    return parse_yaml(text, display, parser)


def parse_yaml(text: str, display: str, parser: str = "auto") -> YNode:
    if parser == "auto":
        parser = os.environ.get("GLASSBOX_CODEGEN_YAML", "auto")
    if parser == "auto":
        try:
            import yaml  # noqa: F401

            parser = "pyyaml"
        except ImportError:
            parser = "builtin"
    if parser == "pyyaml":
        return _parse_with_pyyaml(text, display)
    if parser == "builtin":
        return _SubsetParser(text, display).parse()
    raise ValueError(f"unknown YAML parser '{parser}' (auto, pyyaml or builtin)")


# ---------------------------------------------------------------------------------------------
# PyYAML: compose the node tree (which keeps start marks) and convert it.


def _parse_with_pyyaml(text: str, display: str) -> YNode:
    import yaml

    try:
        root = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else 1
        raise CodegenError(display, line, f"YAML syntax: {e.problem or e.context}") from None
    if root is None:
        return YNode("seq", [], 1)
    return _convert(root, display)


def _convert(node, display: str) -> YNode:
    import yaml

    line = node.start_mark.line + 1
    if isinstance(node, yaml.ScalarNode):
        return YNode("scalar", node.value, line)
    if isinstance(node, yaml.SequenceNode):
        return YNode("seq", [_convert(n, display) for n in node.value], line)
    result: dict[str, YNode] = {}
    key_lines: dict[str, int] = {}
    for key_node, value_node in node.value:
        if not isinstance(key_node, yaml.ScalarNode):
            raise CodegenError(display, key_node.start_mark.line + 1, "a mapping key must be a plain word")
        key = key_node.value
        key_line = key_node.start_mark.line + 1
        if key in result:
            raise CodegenError(display, key_line, f"duplicate key '{key}' (first on line {key_lines[key]})")
        result[key] = _convert(value_node, display)
        key_lines[key] = key_line
    return YNode("map", result, line, key_lines)


# ---------------------------------------------------------------------------------------------
# The built-in parser for the subset ops.yaml uses.

_KEY = re.compile(r"""^([^\s#'"\[\]{},:&*!|>%@`-][^:#]*?|-[^\s:#][^:#]*?|"[^"]*"|'[^']*')\s*:(?:\s+|$)""")


@dataclass
class _Line:
    number: int  # 1-based
    indent: int
    text: str  # without indentation, comment and trailing space


class _SubsetParser:
    def __init__(self, text: str, display: str) -> None:
        self.display = display
        self.lines = self._split(text)
        self.pos = 0

    def fail(self, line: int, message: str) -> CodegenError:
        return CodegenError(self.display, line, f"YAML syntax: {message}")

    def _split(self, text: str) -> list[_Line]:
        lines: list[_Line] = []
        for number, raw in enumerate(text.splitlines(), start=1):
            body = _strip_comment(raw).rstrip()
            if not body.strip():
                continue
            stripped = body.lstrip(" ")
            if stripped.startswith("\t") or "\t" in body[: len(body) - len(stripped)]:
                raise self.fail(number, "tabs are not allowed in indentation")
            if stripped in ("---", "...") and body == stripped:
                if stripped == "..." or lines:
                    raise self.fail(number, "only one YAML document is supported")
                continue
            lines.append(_Line(number, len(body) - len(stripped), stripped))
        return lines

    def parse(self) -> YNode:
        if not self.lines:
            return YNode("seq", [], 1)
        node = self.block(self.lines[0].indent)
        if self.pos < len(self.lines):
            line = self.lines[self.pos]
            raise self.fail(line.number, f"unexpected content '{line.text}'")
        return node

    def block(self, indent: int) -> YNode:
        line = self.lines[self.pos]
        if line.text == "-" or line.text.startswith("- "):
            return self.sequence(indent)
        if _KEY.match(line.text):
            return self.mapping(indent)
        self.pos += 1
        return self.scalar(line.text, line.number)

    def sequence(self, indent: int) -> YNode:
        items: list[YNode] = []
        start = self.lines[self.pos].number
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if line.indent < indent:
                break
            if line.indent > indent:
                raise self.fail(line.number, "unexpected indentation")
            if not (line.text == "-" or line.text.startswith("- ")):
                break
            rest = line.text[1:].lstrip(" ")
            if not rest:
                self.pos += 1
                items.append(self.nested(indent, line.number, after_key=False))
                continue
            # "- key: value" opens a mapping whose keys line up with "key".
            inner = indent + (len(line.text) - len(rest))
            self.lines[self.pos] = _Line(line.number, inner, rest)
            items.append(self.block(inner))
        return YNode("seq", items, start)

    def mapping(self, indent: int) -> YNode:
        values: dict[str, YNode] = {}
        key_lines: dict[str, int] = {}
        start = self.lines[self.pos].number
        while self.pos < len(self.lines):
            line = self.lines[self.pos]
            if line.indent < indent:
                break
            if line.indent > indent:
                raise self.fail(line.number, "unexpected indentation")
            m = _KEY.match(line.text)
            if not m:
                if line.text.startswith("- "):
                    raise self.fail(line.number, "a list item where a 'key: value' line was expected")
                raise self.fail(line.number, f"expected 'key: value', found '{line.text}'")
            key = _unquote(m.group(1).strip())
            if key in values:
                raise CodegenError(self.display, line.number, f"duplicate key '{key}' (first on line {key_lines[key]})")
            rest = line.text[m.end() :].strip()
            self.pos += 1
            key_lines[key] = line.number
            if rest:
                # A plain value may go on over more indented lines (a long schema): joined by spaces.
                while rest[0] not in "[{'\"" and self.pos < len(self.lines) and self.lines[self.pos].indent > indent:
                    rest += " " + self.lines[self.pos].text
                    self.pos += 1
                values[key] = self.scalar(rest, line.number)
                if self.pos < len(self.lines) and self.lines[self.pos].indent > indent:
                    raise self.fail(
                        self.lines[self.pos].number,
                        "a quoted or [flow] value must be on one line for the built-in YAML parser",
                    )
            else:
                values[key] = self.nested(indent, line.number, after_key=True)
        return YNode("map", values, start, key_lines)

    def nested(self, indent: int, number: int, after_key: bool) -> YNode:
        """The value of `key:` or `-` with nothing after it: an indented block, or empty."""
        if self.pos < len(self.lines):
            nxt = self.lines[self.pos]
            # The items of a key's list may sit at the key's own indentation (YAML allows it).
            same_level_list = after_key and nxt.indent == indent and (nxt.text == "-" or nxt.text.startswith("- "))
            if nxt.indent > indent or same_level_list:
                return self.block(nxt.indent)
        return YNode("scalar", "", number)

    def scalar(self, text: str, number: int) -> YNode:
        if text.startswith("["):
            return self.flow_list(text, number)
        if text[0] in "{&*!|>%@`":
            raise self.fail(
                number,
                f"'{text[0]}' is not supported by the built-in YAML parser (install PyYAML, or write a plain value)",
            )
        if text[0] in "'\"":
            value, end = _quoted(text, 0)
            if value is None:
                raise self.fail(number, "unterminated quoted string")
            if text[end:].strip():
                raise self.fail(number, f"unexpected text after a quoted string: '{text[end:].strip()}'")
            return YNode("scalar", value, number)
        if re.search(r":(\s|$)", text):
            raise self.fail(number, "mapping values are not allowed here (quote a value that holds ': ')")
        return YNode("scalar", text, number)

    def flow_list(self, text: str, number: int) -> YNode:
        items: list[YNode] = []
        i = 1
        expect_item = True
        while True:
            while i < len(text) and text[i] == " ":
                i += 1
            if i >= len(text):
                raise self.fail(number, "unterminated flow list (write it on one line: [a, b])")
            c = text[i]
            if c == "]":
                if text[i + 1 :].strip():
                    raise self.fail(number, f"unexpected text after ']': '{text[i + 1 :].strip()}'")
                return YNode("seq", items, number)
            if c in "[{":
                raise self.fail(number, "nested collections are not supported by the built-in YAML parser")
            if not expect_item:
                if c != ",":
                    raise self.fail(number, f"expected ',' or ']' in a flow list, found '{c}'")
                i += 1
                expect_item = True
                continue
            if c == ",":
                raise self.fail(number, "empty item in a flow list")
            if c in "'\"":
                value, i = _quoted(text, i)
                if value is None:
                    raise self.fail(number, "unterminated quoted string")
            else:
                end = i
                while end < len(text) and text[end] not in ",]":
                    end += 1
                value = text[i:end].strip()
                i = end
            items.append(YNode("scalar", value, number))
            expect_item = False


def _strip_comment(line: str) -> str:
    """Drops a `#` comment (one at the start or after a space, outside quotes)."""
    quote = ""
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = ""
        elif c in "'\"" and (i == 0 or line[i - 1] in " [,:-"):
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


def _quoted(text: str, start: int) -> tuple[str | None, int]:
    """Reads a quoted scalar at text[start]; returns (value, index after it) or (None, _)."""
    q = text[start]
    out: list[str] = []
    i = start + 1
    while i < len(text):
        c = text[i]
        if q == "'" and c == "'":
            if text[i + 1 : i + 2] == "'":
                out.append("'")
                i += 2
                continue
            return "".join(out), i + 1
        if q == '"' and c == "\\" and i + 1 < len(text):
            out.append({"n": "\n", "t": "\t", '"': '"', "\\": "\\"}.get(text[i + 1], text[i + 1]))
            i += 2
            continue
        if q == '"' and c == '"':
            return "".join(out), i + 1
        out.append(c)
        i += 1
    return None, i


def _unquote(key: str) -> str:
    if len(key) >= 2 and key[0] == key[-1] and key[0] in "'\"":
        return key[1:-1]
    return key
