"""Autograd: from derivatives.yaml, per operator family, autograd/<base>.cpp with
  - a backward Node per differentiable operator (SigmoidBackward0, MulBackward0, ...), holding the
    saved inputs/outputs its formulas name and computing each input's gradient;
  - the operator's kernel for the Autograd key: it records the node (when an input requires grad)
    and redispatches below autograd;
and autograd/Register.cpp, the registration of all those kernels (GLASSBOX_LIBRARY_IMPL(glassbox,
Autograd, m)) in one block, as Register<Key>.cpp holds those of the other keys.
In-place operators (add_) reuse the formulas of their functional form (add); out= operators get a
kernel that refuses inputs which require grad; operators without a derivative record a node that
raises when a backward pass reaches it (unless their result is not floating point: eq, argmax). One file per family, so an edit to one formula
rebuilds one file.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

from .api import Op, Param, Plan
from .derivatives import DerivativeEntry
from .errors import CodegenError, ErrorCollector
from .render_common import location, render_file, string_literal

TENSOR = "const Tensor&"
OPT_TENSOR = "const std::optional<Tensor>&"
TENSOR_LIST = "TensorList"
TENSOR_TYPES = (TENSOR, OPT_TENSOR, TENSOR_LIST, "Tensor&")

# C++ parameter type -> (stored member type, how a local of the parameter type is made from member m).
_STORED = {
    "const Scalar&": ("Scalar", "const Scalar& {n} = {m};"),
    "const std::optional<Scalar>&": ("std::optional<Scalar>", "const std::optional<Scalar>& {n} = {m};"),
    "IntArrayRef": ("std::vector<int64_t>", "IntArrayRef {n} = {m};"),
    "std::optional<IntArrayRef>": (
        "std::optional<std::vector<int64_t>>",
        "std::optional<IntArrayRef> {n} = {m} ? std::optional<IntArrayRef>(*{m}) : std::nullopt;",
    ),
    "std::span<const double>": ("std::vector<double>", "std::span<const double> {n} = {m};"),
    "OptionalTensorList": ("std::vector<std::optional<Tensor>>", "OptionalTensorList {n} = {m};"),
    "std::string_view": ("std::string", "std::string_view {n} = {m};"),
    "std::optional<std::string_view>": (
        "std::optional<std::string>",
        "std::optional<std::string_view> {n} = {m} ? std::optional<std::string_view>(*{m}) : std::nullopt;",
    ),
}


def _camel(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in name.strip("_").split("_") if part)


@dataclass
class AutogradOp:
    op: Op
    kind: str  # "functional", "inplace" or "out"
    entry: Optional[DerivativeEntry] = None
    node: str = ""  # the Node class name


def _functional_name(op: Op) -> str:
    name = op.entry.name[:-1]
    return f"{name}.{op.entry.overload}" if op.entry.overload else name


def _entry_key(op: Op) -> str:
    return op.entry.full_name


def autograd_ops(plan: Plan) -> list[AutogradOp]:
    """Which operators get an Autograd kernel, with their entries and node names (none when the
    generator was given no derivatives.yaml)."""
    if getattr(plan, "derivatives", None) is None:
        return []
    entries = {e.name: e for e in getattr(plan, "derivatives", [])}
    display = getattr(plan, "derivatives_display", "derivatives.yaml")
    errors = ErrorCollector()
    by_name = {op.entry.full_name: op for op in plan.ops}
    for name, e in entries.items():
        op = by_name.get(name)
        if op is None:
            errors.add(CodegenError(display, e.line, f"no operator {name} in {plan.display}"))
            continue
        tensor_args = {p.schema_name for p in op.params if p.type in TENSOR_TYPES}
        lists = {p.schema_name for p in op.params if p.type == TENSOR_LIST}
        for key, line in e.formula_lines.items():
            names = _names(key)
            for arg in names:
                if arg not in tensor_args:
                    errors.add(
                        CodegenError(
                            display, line, f"{name}: '{arg}' is not a tensor argument of {op.entry.schema.text}"
                        )
                    )
            if len(names) > 1 and lists & set(names):
                errors.add(
                    CodegenError(display, line, f"{name}: a formula for several inputs cannot include a tensor list")
                )
    errors.raise_if_any()

    numbering: dict[str, int] = {}
    node_of: dict[str, str] = {}
    for e in getattr(plan, "derivatives", []):
        if e.never_differentiable:
            continue
        camel = _camel(e.name.split(".")[0])
        node_of[e.name] = f"{camel}Backward{numbering.get(camel, 0)}"
        numbering[camel] = numbering.get(camel, 0) + 1

    out: list[AutogradOp] = []
    for op in plan.ops:
        fn = _functional_entry(op, by_name, entries) if op.entry.name.endswith("_") else None
        if op.entry.schema.is_out:
            out.append(AutogradOp(op, "out"))
        elif _entry_key(op) in entries:
            if not entries[_entry_key(op)].never_differentiable:  # else: Autograd falls through
                # An in-place operator with an entry of its own (copy_, fill_) still rewrites self's history.
                kind = "inplace" if _writes_self(op) else "functional"
                out.append(AutogradOp(op, kind, entries[_entry_key(op)], node_of[_entry_key(op)]))
        elif fn is not None and not entries[fn].never_differentiable:
            out.append(AutogradOp(op, "inplace", entries[fn], node_of[fn]))
        elif _needs_refusal(op):  # in-place forms of never-differentiable operators included: self may be floating
            out.append(AutogradOp(op, "not_implemented"))
    return out


def _writes_self(op: Op) -> bool:
    return op.entry.name.endswith("_") and any(p.schema_name == "self" and p.type == "Tensor&" for p in op.params)


def _signature(op: Op) -> list[tuple[str, str]]:
    return [(p.schema_name, "const Tensor&" if p.type == "Tensor&" else p.type) for p in op.params]


def _functional_entry(op: Op, by_name: dict[str, Op], entries: dict) -> Optional[str]:
    """The derivatives entry an in-place operator reuses: its functional form's, found by name
    (add_.Tensor -> add.Tensor) or, where the overload names differ (pow_.Tensor ->
    pow.Tensor_Tensor), by the functional operator with the same parameters."""
    if _functional_name(op) in entries:
        return _functional_name(op)
    for name in entries:
        other = by_name.get(name)
        if (
            other is not None
            and other.entry.name == op.entry.name[:-1]
            and not other.entry.schema.is_out
            and _signature(other) == _signature(op)
        ):
            return name
    return None


def _needs_refusal(op: Op) -> bool:
    """An operator with tensor inputs and outputs, no derivative and no CompositeImplicitAutograd
    kernel (which would be differentiated through the operators it calls): where an input requires
    grad, its floating-point results get a node that refuses the backward pass, instead of being
    silently cut off the graph."""
    if any(k.key == "CompositeImplicitAutograd" for k in op.kernels):
        return False
    return any(p.type in TENSOR_TYPES for p in op.params) and "Tensor" in op.ret


REGISTER = "autograd/Register.cpp"


def outputs(plan: Plan) -> list[str]:
    ops = autograd_ops(plan)
    return sorted({f"autograd/{a.op.base_name}.cpp" for a in ops}) + ([REGISTER] if ops else [])


def render_all(plan: Plan) -> dict[str, str]:
    ops = autograd_ops(plan)
    families: dict[str, list[AutogradOp]] = {}
    for a in ops:
        families.setdefault(a.op.base_name, []).append(a)
    files = {}
    for base, items in families.items():
        nodes, kernels = [], []
        rendered_nodes: set[str] = set()
        for a in items:
            if a.kind in ("functional", "inplace") and a.node not in rendered_nodes:
                nodes.append(_node(plan, a))
                rendered_nodes.add(a.node)
            kernels.append(_kernel(plan, a))
        files[f"autograd/{base}.cpp"] = render_file(
            "autograd_family.cpp", plan, base=base, nodes="\n".join(nodes), kernels="\n".join(kernels)
        )
    if ops:
        declarations = [f"{a.op.ret} {a.op.struct}_autograd({_kernel_params(a.op)});" for a in ops]
        registrations = [
            f"  m.impl({string_literal(a.op.entry.full_name)}, &autograd_kernels::{a.op.struct}_autograd);"
            f"  // {location(plan, a.op)}"
            for a in ops
        ]
        files[REGISTER] = render_file(
            "autograd_register.cpp", plan, declarations="\n".join(declarations), registrations="\n".join(registrations)
        )
    return files


# ---------------------------------------------------------------------------------------------
# What a node keeps.

# Layout of a tensor argument a formula may name as <arg>_strides / <arg>_storage_offset (as_strided's
# backward needs where its input sat in storage): member type, and how it is taken from the argument.
_GEOMETRY = {
    "strides": ("std::vector<int64_t>", "{x}.strides().vec()"),
    "storage_offset": ("int64_t", "{x}.storage_offset()"),
}


def _names(key: str) -> list[str]:
    """`input, weight, bias` -> the inputs one formula (returning a tuple) differentiates."""
    return [n.strip() for n in key.split(",")]


def _formula_of(e: DerivativeEntry) -> dict[str, tuple[str, int, str]]:
    """input name -> (formula key, index in the formula's tuple or -1, the formula)."""
    out = {}
    for key, formula in e.formulas.items():
        names = _names(key)
        for i, n in enumerate(names):
            out[n] = (key, i if len(names) > 1 else -1, formula)
    return out


def _uses(formulas: list[str], name: str) -> bool:
    return any(re.search(rf"\b{re.escape(name)}\b", f) for f in formulas)


def _returns(op: Op) -> list[str]:
    rets = op.entry.schema.returns
    if len(rets) == 1:
        return [rets[0].name or "result"]
    return [r.name or f"result{i}" for i, r in enumerate(rets)]


@dataclass
class _Saved:
    inputs: list[Param]  # saved tensor/tensor-list/optional inputs
    values: list[Param]  # saved non-tensor arguments
    metadata: list[Param]  # tensor args whose InputMetadata is kept (differentiable or *_sizes used)
    geometry: list[tuple[Param, str]]  # (tensor arg, "strides" or "storage_offset") kept for views
    results: list[int]  # indices of saved outputs
    differentiable: list[Param]  # tensor args with a formula, schema order


def _saved(a: AutogradOp) -> _Saved:
    e = a.entry
    assert e is not None
    formulas = list(e.formulas.values())
    inputs, values, metadata, geometry, diff = [], [], [], [], []
    with_formula = _formula_of(e)
    for p in a.op.params:
        is_tensor = p.type in TENSOR_TYPES
        if is_tensor and p.schema_name in with_formula:
            diff.append(p)
        if _uses(formulas, p.schema_name):
            (inputs if is_tensor else values).append(p)
        if is_tensor and (
            p.schema_name in with_formula
            or any(_uses(formulas, f"{p.schema_name}_{m}") for m in ("sizes", "dtype", "numel"))
        ):
            metadata.append(p)
        if p.type == TENSOR:
            geometry += [(p, m) for m in _GEOMETRY if _uses(formulas, f"{p.schema_name}_{m}")]
    results = [i for i, r in enumerate(_returns(a.op)) if _uses(formulas, r)]
    return _Saved(inputs, values, metadata, geometry, results, diff)


def _member_type(p: Param) -> str:
    if p.type in (TENSOR, OPT_TENSOR, "Tensor&"):
        return "autograd::SavedVariable"
    if p.type == TENSOR_LIST:
        return "std::vector<autograd::SavedVariable>"
    return _STORED.get(p.type, (p.type, ""))[0]


def _meta_type(p: Param) -> str:
    if p.type == TENSOR_LIST:
        return "std::vector<autograd::InputMetadata>"
    if p.type == OPT_TENSOR:
        return "std::optional<autograd::InputMetadata>"
    return "autograd::InputMetadata"


def _node(plan: Plan, a: AutogradOp) -> str:
    e = a.entry
    assert e is not None
    s = _saved(a)
    rets = _returns(a.op)
    members = [f"  {_member_type(p)} {p.name}_;" for p in s.inputs + s.values]
    members += [f"  {_meta_type(p)} {p.name}_info_;" for p in s.metadata]
    members += [f"  {_GEOMETRY[m][0]} {p.name}_{m}_{{}};" for p, m in s.geometry]
    members += [f"  autograd::SavedVariable {rets[i]}_;" for i in s.results]
    releases = [f"{p.name}_.clear();" if p.type == TENSOR_LIST else f"{p.name}_.reset();" for p in s.inputs]
    releases += [f"{rets[i]}_.reset();" for i in s.results]

    formulas = list(e.formulas.values())
    body = []
    if _uses(formulas, "grad"):
        body.append("  const Tensor& grad = grads[0];")
    for p in s.inputs:
        if p.type == TENSOR_LIST:
            body.append(f"  std::vector<Tensor> {p.name} = autograd::unpack_list({p.name}_, *this);")
        elif p.type == OPT_TENSOR:
            body.append(f"  std::optional<Tensor> {p.name} = autograd::unpack_optional({p.name}_, *this);")
        else:
            body.append(f"  Tensor {p.name} = {p.name}_.unpack(*this);")
    for p in s.values:
        make = _STORED.get(p.type, (None, "{t} {n} = {m};"))[1]
        body.append("  " + make.format(t=p.type, n=p.name, m=p.name + "_"))
    for p in s.metadata:
        for m, expr in (("sizes", "{x}.sizes"), ("dtype", "{x}.dtype"), ("numel", "autograd::numel_of({x})")):
            if not _uses(formulas, f"{p.schema_name}_{m}"):
                continue
            x = f"{p.name}_info_"
            if p.type == TENSOR_LIST:
                body.append(f"  const auto {p.schema_name}_{m} = autograd::{m}_of_list({x});")
            elif p.type == OPT_TENSOR:
                body.append(
                    f"  const auto {p.schema_name}_{m} = {x} ? {expr.format(x='(*' + x + ')')} : decltype({expr.format(x='(*' + x + ')')}){{}};"
                )
            else:
                body.append(
                    f"  const auto& {p.schema_name}_{m} = {expr.format(x=x)};"
                    if m != "numel"
                    else f"  const int64_t {p.schema_name}_{m} = {expr.format(x=x)};"
                )
    for p, m in s.geometry:
        body.append(f"  const auto& {p.schema_name}_{m} = {p.name}_{m}_;")
    for i in s.results:
        body.append(f"  Tensor {rets[i]} = {rets[i]}_.unpack(*this);")
    body.append("  autograd::variable_list out(num_outputs());")
    display = getattr(plan, "derivatives_display", "derivatives.yaml")
    with_formula = _formula_of(e)
    if any(p.type == TENSOR_LIST for p in s.differentiable):
        # A tensor list takes as many slots as it has elements: count them at run time.
        body.append("  size_t slot = 0;")
        for p in s.differentiable:
            formula = e.formulas[with_formula[p.schema_name][0]]
            line = f"{display}:{e.formula_lines[with_formula[p.schema_name][0]]}"
            if p.type == TENSOR_LIST:
                body.append(f"  if (autograd::any_should_compute(*this, slot, {p.name}_info_.size())) {{  // {line}")
                body.append(f"    std::vector<Tensor> g = {formula};")
                body.append(f"    for (size_t j = 0; j < {p.name}_info_.size(); ++j)")
                body.append(
                    f"      if (should_compute_output(slot + j)) out[slot + j] = autograd::to_input(g[j], {p.name}_info_[j]);"
                )
                body.append("  }")
                body.append(f"  slot += {p.name}_info_.size();")
            else:
                info = f"*{p.name}_info_" if p.type == OPT_TENSOR else f"{p.name}_info_"
                body.append(
                    f"  if (should_compute_output(slot)) out[slot] = autograd::to_input({formula}, {info});  // {line}"
                )
                body.append("  ++slot;")
    else:
        slot = {p.schema_name: i for i, p in enumerate(s.differentiable)}
        info = {
            p.schema_name: (f"*{p.name}_info_" if p.type == OPT_TENSOR else f"{p.name}_info_") for p in s.differentiable
        }
        for key, formula in e.formulas.items():
            names = _names(key)
            line = f"{display}:{e.formula_lines[key]}"
            if len(names) == 1:
                n = names[0]
                body.append(
                    f"  if (should_compute_output({slot[n]})) out[{slot[n]}] = autograd::to_input({formula}, {info[n]});  // {line}"
                )
                continue
            wanted = " || ".join(f"should_compute_output({slot[n]})" for n in names)
            body.append(f"  if ({wanted}) {{  // {line}")
            body.append(f"    auto all = {formula};")
            for i, n in enumerate(names):
                body.append(
                    f"    if (should_compute_output({slot[n]})) out[{slot[n]}] = autograd::to_input(std::get<{i}>(all), {info[n]});"
                )
            body.append("  }")
    body.append("  return out;")
    return "\n".join(
        [
            f"// {display}:{e.line}",
            f"struct {a.node} final : autograd::Node {{",
            f'  std::string name() const override {{ return "{a.node}"; }}',
            "  autograd::variable_list apply(autograd::variable_list&& grads) override;",
            "  void release_variables() override {" + (" " + " ".join(releases) + " }" if releases else " }"),
            *members,
            "};",
            f"autograd::variable_list {a.node}::apply(autograd::variable_list&& grads) {{",
            *body,
            "}",
            "",
        ]
    )


# ---------------------------------------------------------------------------------------------
# The Autograd-key kernels.


def _kernel_params(op: Op) -> str:
    return ", ".join(["DispatchKeySet ks"] + [f"{p.type} {p.name}" for p in op.params])


def _refusing_kernel(op: Op, head: str, redispatch: str, tensors: list[str]) -> str:
    """Records a node that raises when a backward pass reaches it, as PyTorch's NotImplemented
    nodes do: a first derivative taken with create_graph through a backward operator still works,
    differentiating it again says which derivative is missing."""
    name = string_literal(op.entry.full_name)
    lines = [head, f"  if (!autograd::compute_requires_grad({', '.join(tensors)})) return {redispatch};"]
    if op.entry.name.endswith("_"):
        lines.append(f"  autograd::check_inplace(self, {name});")
    lines += [
        f"  auto grad_fn = autograd::not_implemented_node({name}, autograd::collect_next_edges({', '.join(tensors)}));",
        "  auto&& result = [&]() -> decltype(auto) {",
        "    autograd::BelowAutogradGuard below;",
        f"    return {redispatch};",
        "  }();",
    ]
    lines.append(
        "  if (autograd::any_floating_point(self)) autograd::rebase_history(self, grad_fn);"
        if op.entry.name.endswith("_")
        else "  autograd::set_not_implemented_history(result, grad_fn);"
    )
    lines += ["  return result;", "}", ""]
    return "\n".join(lines)


def _is_view_op(op: Op) -> bool:
    """A view operator: its one result aliases self without writing it (`Tensor(a) self -> Tensor(a)`)."""
    rets = op.entry.schema.returns
    selfs = [x for x in op.entry.schema.arguments if x.name == "self"]
    return (
        len(rets) == 1
        and rets[0].alias is not None
        and not rets[0].alias.is_write
        and bool(selfs)
        and selfs[0].alias is not None
        and not op.entry.name.endswith("_")
    )


def _kernel(plan: Plan, a: AutogradOp) -> str:
    op = a.op
    args = ", ".join(p.name for p in op.params)
    head = f"// {location(plan, op)}\n{op.ret} {op.struct}_autograd({_kernel_params(op)}) {{"
    redispatch = f"ops::{op.struct}::redispatch(ks.below(DispatchKey::AutogradCPU){', ' + args if args else ''})"
    tensors = [p.name for p in op.params if p.type in TENSOR_TYPES]
    if a.kind == "out":
        if not tensors:
            return "\n".join([head, f"  return {redispatch};", "}", ""])
        out_names = {x.name for x in op.entry.schema.out_arguments}
        outs = [p.name for p in op.params if p.schema_name in out_names and p.type in TENSOR_TYPES]
        floating = " || ".join(f"autograd::any_floating_point({o})" for o in outs) or "true"
        # An out= form records nothing: with an input that requires grad it is refused, unless its
        # result cannot carry a gradient anyway (a comparison into a bool out=), as in PyTorch.
        check = [
            f"  if (autograd::compute_requires_grad({', '.join(tensors)})) {{",
            f"    if ({floating}) autograd::throw_out_not_differentiable({string_literal(op.entry.full_name)});",
            "    autograd::BelowAutogradGuard below;",
            f"    return {redispatch};",
            "  }",
        ]
        return "\n".join([head] + check + [f"  return {redispatch};", "}", ""])

    if a.kind == "not_implemented":
        return _refusing_kernel(op, head, redispatch, tensors)

    s = _saved(a)
    rets = _returns(op)
    diff = [p.name for p in s.differentiable]
    lines = [head]
    if a.kind == "inplace":
        lines.append(f"  autograd::check_inplace(self, {string_literal(op.entry.full_name)});")
    lines.append(f"  std::shared_ptr<{a.node}> grad_fn;")
    lines.append(f"  if (autograd::compute_requires_grad({', '.join(diff)})) {{")
    lines.append(f"    grad_fn = std::make_shared<{a.node}>();")
    lines.append(f"    grad_fn->set_next_edges(autograd::collect_next_edges({', '.join(diff)}));")
    for p in s.metadata:
        lines.append(f"    grad_fn->{p.name}_info_ = autograd::metadata_of({p.name});")
    for p, m in s.geometry:
        lines.append(f"    grad_fn->{p.name}_{m}_ = {_GEOMETRY[m][1].format(x=p.name)};")
    for p in s.inputs:
        if a.kind == "inplace" and p.schema_name == "self":
            # The formula needs self's value from before the in-place write.
            lines.append("    grad_fn->self_ = autograd::SavedVariable(autograd::clone_original_self(self), false);")
        elif p.type == TENSOR_LIST:
            lines.append(f"    grad_fn->{p.name}_ = autograd::save_list({p.name});")
        else:
            lines.append(f"    grad_fn->{p.name}_ = autograd::SavedVariable({p.name}, false);")
    for p in s.values:
        stored = _STORED.get(p.type)
        value = (
            f"{stored[0]}({p.name}.begin(), {p.name}.end())"
            if stored and stored[0].startswith("std::vector")
            else f"autograd::stored({p.name})"
            if stored and stored[0].startswith("std::optional<std::")
            else f"{stored[0]}({p.name})"
            if stored
            else p.name
        )
        lines.append(f"    grad_fn->{p.name}_ = {value};")
    lines.append("  }")
    # A view operator's result is marked as a view of self even when nothing requires grad: an
    # in-place write through it later may still need to reach self's history.
    view = _is_view_op(op)
    # The common case on the call path: nothing requires grad, so nothing below can record either.
    if view:
        lines += [
            "  if (!grad_fn) {",
            f"    auto result = {redispatch};",
            "    autograd::set_view_of(result, self);",
            "    return result;",
            "  }",
        ]
    else:
        lines.append(f"  if (!grad_fn) return {redispatch};")
    lines.append("  auto&& result = [&]() -> decltype(auto) {")
    lines.append("    autograd::BelowAutogradGuard below;")
    lines.append(f"    return {redispatch};")
    lines.append("  }();")
    if a.kind == "inplace":
        lines.append("  autograd::rebase_history(self, grad_fn);")
        for i in s.results:
            lines.append(f"  grad_fn->{rets[i]}_ = autograd::SavedVariable(self, true);")
    elif len(op.entry.schema.returns) == 1 and op.ret.startswith("std::vector"):
        lines.append("  for (const Tensor& r : result) autograd::set_history(r, grad_fn);")
    elif len(op.entry.schema.returns) == 1:
        lines.append("  autograd::set_history(result, grad_fn);")
        if view:
            lines.append("  autograd::set_view_of(result, self);")
        for i in s.results:
            lines.append(f"  grad_fn->{rets[i]}_ = autograd::SavedVariable(result, true);")
    else:
        flags = a.entry.output_differentiability or [True] * len(rets)
        for i in range(len(rets)):
            fn = "set_history" if flags[i] else "mark_non_differentiable"
            lines.append(f"  autograd::{fn}(std::get<{i}>(result), grad_fn);")
        for i in s.results:
            lines.append(f"  grad_fn->{rets[i]}_ = autograd::SavedVariable(std::get<{i}>(result), true);")
    lines.append("  return result;")
    lines.append("}")
    lines.append("")
    return "\n".join(lines)
