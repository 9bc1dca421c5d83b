"""Reads engine/ops/derivatives.yaml: per operator (by `name: op.overload`), a backward formula
for each differentiable input, and which outputs are differentiable.

    - name: mul.Tensor
      self: grad * other
      other: grad * self

A formula is a C++ expression. It may name `grad` (the first output's gradient) or `grads[i]`,
the outputs (`result`, `resultN`, or the schema's return names), any argument by name, and
`<arg>_sizes` / `<arg>_dtype` / `<arg>_numel` / `<arg>_strides` / `<arg>_storage_offset` of a
tensor argument (only that metadata is kept then). Its value is brought back to the input's shape and dtype in one shared place
(autograd::to_input), so a formula never undoes broadcasting itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .errors import CodegenError, ErrorCollector
from .yaml_loader import YNode, load_yaml

_KEYS_OTHER = ("name", "output_differentiability")


@dataclass
class DerivativeEntry:
    name: str  # op.overload as in ops.yaml ("mul.Tensor", "sigmoid")
    line: int
    formulas: dict[str, str]  # argument name -> C++ expression, in YAML order
    formula_lines: dict[str, int]
    output_differentiability: list[bool] = field(default_factory=list)

    @property
    def never_differentiable(self) -> bool:
        """No output is ever differentiable (comparisons, argmax): the operator gets no Autograd
        kernel and falls through to its backend."""
        return bool(self.output_differentiability) and not any(self.output_differentiability)


def load_derivatives(path: str, display: str, yaml_parser: str = "auto") -> list[DerivativeEntry]:
    root = load_yaml(path, display, yaml_parser)
    errors = ErrorCollector()
    if root.kind == "scalar" and root.value == "":
        return []
    if root.kind != "seq":
        raise CodegenError(display, root.line, "expected a list of entries ('- name: op.overload')")
    out: list[DerivativeEntry] = []
    seen: dict[str, int] = {}
    for node in root.value:  # type: ignore[union-attr]
        try:
            entry = _entry(node, display)
        except CodegenError as e:
            errors.add(e)
            continue
        if entry.name in seen:
            errors.add(
                CodegenError(
                    display, entry.line, f"second entry for {entry.name} (first at {display}:{seen[entry.name]})"
                )
            )
            continue
        seen[entry.name] = entry.line
        out.append(entry)
    errors.raise_if_any()
    return out


def _entry(node: YNode, display: str) -> DerivativeEntry:
    if node.kind != "map":
        raise CodegenError(display, node.line, f"expected an entry ('name: op.overload'), found {node.describe()}")
    fields: dict[str, YNode] = node.value  # type: ignore[assignment]
    if "name" not in fields or fields["name"].kind != "scalar":
        raise CodegenError(display, node.line, "entry without 'name:' (the operator, e.g. mul.Tensor)")
    name = str(fields["name"].value).strip()
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z0-9_]+)?", name):
        raise CodegenError(display, fields["name"].line, f"bad operator name '{name}' (write op or op.overload)")
    formulas: dict[str, str] = {}
    lines: dict[str, int] = {}
    outputs: list[bool] = []
    for key, value in fields.items():
        if key == "name":
            continue
        if key == "output_differentiability":
            words = value.value if value.kind == "seq" else None
            if words is None:
                raise CodegenError(
                    display, node.key_lines[key], "output_differentiability must be a list of True/False"
                )
            for w in words:  # type: ignore[union-attr]
                text = str(w.value).strip()
                if text not in ("True", "False", "true", "false"):
                    raise CodegenError(display, w.line, f"output_differentiability: '{text}' is not True or False")
                outputs.append(text in ("True", "true"))
            continue
        if value.kind != "scalar" or not str(value.value).strip():
            raise CodegenError(display, node.key_lines[key], f"the formula for '{key}' must be a C++ expression")
        formulas[key] = " ".join(str(value.value).split())
        lines[key] = node.key_lines[key]
    never = bool(outputs) and not any(outputs)
    if not formulas and not never:
        raise CodegenError(
            display,
            node.line,
            f"{name}: no formula for any input (an operator whose results are never "
            "differentiable says output_differentiability: [False])",
        )
    if formulas and never:
        raise CodegenError(
            display, node.line, f"{name}: formulas for an operator whose outputs are all non-differentiable"
        )
    return DerivativeEntry(name, node.line, formulas, lines, outputs)
