"""codegen/: ops.yaml -> C++ (declarations, registrations, methods), its errors, and incremental output."""

import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "codegen"))

from glassbox_codegen import main as codegen  # noqa: E402
from glassbox_codegen.errors import CodegenError, CodegenErrors  # noqa: E402
from glassbox_codegen.ops_yaml import load_ops, ops_from_tree  # noqa: E402
from glassbox_codegen.render_python import shard_of  # noqa: E402
from glassbox_codegen.yaml_loader import parse_yaml  # noqa: E402

FIXTURES = REPO / "tests" / "codegen"
FIXTURE = FIXTURES / "ops.yaml"
SHOWN = "tests/codegen/ops.yaml"

try:
    import yaml  # noqa: F401

    HAVE_PYYAML = True
except ImportError:
    HAVE_PYYAML = False
PARSERS = ["builtin"] + (["pyyaml"] if HAVE_PYYAML else [])


def generate(yaml_path: Path, out: Path, parser: str = "auto") -> list:
    return codegen.generate(str(yaml_path), str(out / "glassbox" / "ops"), str(REPO), parser)


@pytest.fixture(scope="module")
def out(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("generated")
    generate(FIXTURE, root)
    return root


def read(out: Path, rel: str) -> str:
    return (out / "glassbox" / "ops" / rel).read_text()


def line_of(schema_start: str) -> int:
    """The fixture line of the entry whose schema starts so."""
    for number, line in enumerate(FIXTURE.read_text().splitlines(), start=1):
        if line.startswith(f"- func: {schema_start}"):
            return number
    raise AssertionError(schema_start)


# ---------------------------------------------------------------------------------------------
# Declarations


def test_typed_handle_struct(out):
    assert textwrap.dedent(f"""\
        // {SHOWN}: add.Tensor
        struct add_Tensor {{
          using schema = Tensor(const Tensor&, const Tensor&, const Scalar&);
          static constexpr const char* name = "glassbox::add";
          static constexpr const char* overload_name = "Tensor";
          static constexpr const char* schema_str = "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
          static Tensor call(const Tensor& self, const Tensor& other, const Scalar& alpha);
          static Tensor redispatch(DispatchKeySet keys, const Tensor& self, const Tensor& other, const Scalar& alpha);
        }};
        """) in read(out, "add.h")
    add_ = read(out, "add.h")
    assert "struct add__Tensor {\n  using schema = Tensor&(Tensor&, const Tensor&, const Scalar&);" in add_
    assert 'static constexpr const char* name = "glassbox::add_";' in add_
    assert "struct linear {" in read(out, "linear.h")
    assert 'static constexpr const char* overload_name = "";' in read(out, "linear.h")
    assert r'schema_str = "nll(Tensor self, Tensor target, str reduction=\"mean\", str? mode=None) -> Tensor";' in read(
        out, "nll.h"
    )


@pytest.mark.parametrize(
    "header, declaration",
    [
        # plain, in-place, out= (out first) and outf (schema order, no defaults)
        ("add.h", "inline Tensor add(const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {"),
        ("add.h", "inline Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha = 1) {"),
        (
            "add.h",
            "inline Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {",
        ),
        (
            "add.h",
            "inline Tensor& add_outf(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {",
        ),
        ("relu.h", "inline Tensor& relu_(Tensor& self) {"),
        # optional, list, scalar-type and device arguments
        (
            "linear.h",
            "inline Tensor linear(const Tensor& input, const Tensor& weight, "
            "const std::optional<Tensor>& bias = std::nullopt) {",
        ),
        ("cat.h", "inline Tensor cat(TensorList tensors, int64_t dim = 0) {"),
        ("index.h", "inline Tensor index(const Tensor& self, OptionalTensorList indices) {"),
        (
            "empty.h",
            "inline Tensor empty(IntArrayRef size, std::optional<ScalarType> dtype = std::nullopt, "
            "std::optional<Device> device = std::nullopt) {",
        ),
        (
            "sum.h",
            "inline Tensor sum(const Tensor& self, std::optional<IntArrayRef> dim, bool keepdim = false, "
            "std::optional<ScalarType> dtype = std::nullopt) {",
        ),
        (
            "clamp.h",
            "inline Tensor clamp(const Tensor& self, const std::optional<Scalar>& min = std::nullopt, "
            "const std::optional<Scalar>& max = std::nullopt) {",
        ),
        # defaults: list storage, Reduction, inf, strings, identifiers, empty lists
        (
            "conv2d.h",
            "inline Tensor conv2d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = "
            "std::nullopt, IntArrayRef stride = ops::k_conv2d_stride_default, IntArrayRef padding = "
            "ops::k_conv2d_padding_default, IntArrayRef dilation = ops::k_conv2d_dilation_default, "
            "int64_t groups = 1) {",
        ),
        ("conv2d.h", "inline constexpr int64_t k_conv2d_stride_default[] = {1, 1};"),
        ("conv2d.h", "inline constexpr int64_t k_conv2d_padding_default[] = {0, 0};"),
        ("upsample.h", "inline constexpr double k_upsample_scales_default[] = {1.0, 2.5};"),
        (
            "upsample.h",
            "inline Tensor upsample(const Tensor& self, std::span<const double> scales = "
            "ops::k_upsample_scales_default, std::optional<IntArrayRef> output_size = IntArrayRef()) {",
        ),
        (
            "roll.h",
            "inline Tensor roll(const Tensor& self, IntArrayRef shifts, IntArrayRef dims = ops::k_roll_dims_default) {",
        ),
        ("amax.h", "inline Tensor amax(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false) {"),
        (
            "mse_loss.h",
            "inline Tensor mse_loss(const Tensor& self, const Tensor& target, int64_t reduction = Reduction::Mean) {",
        ),
        (
            "hardtanh.h",
            "inline Tensor hardtanh(const Tensor& self, double min_val = -std::numeric_limits<double>::infinity(), "
            "double max_val = std::numeric_limits<double>::infinity()) {",
        ),
        (
            "nll.h",
            'inline Tensor nll(const Tensor& self, const Tensor& target, std::string_view reduction = "mean", '
            "std::optional<std::string_view> mode = std::nullopt) {",
        ),
        (
            "full.h",
            "inline Tensor full(IntArrayRef size, const Scalar& fill_value, std::optional<ScalarType> dtype = "
            "ScalarType::Float32) {",
        ),
        # returns: tuples, tuples of references, lists, void, non-Tensor
        ("max.h", "inline std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false) {"),
        (
            "max.h",
            "inline std::tuple<Tensor&, Tensor&> max_out(Tensor& max, Tensor& max_values, const Tensor& self, "
            "int64_t dim, bool keepdim = false) {",
        ),
        ("split.h", "inline std::vector<Tensor> split(const Tensor& self, int64_t split_size, int64_t dim = 0) {"),
        ("_foreach_add.h", "inline void _foreach_add_(TensorList self, const Scalar& scalar) {"),
        ("size.h", "inline int64_t size(const Tensor& self, int64_t dim) {"),
        # var(self) and var.correction(self) would be ambiguous: the second is named after its overload
        ("var.h", "inline Tensor var(const Tensor& self, bool unbiased = true) {"),
        (
            "var.h",
            "inline Tensor var_correction(const Tensor& self, std::optional<IntArrayRef> dim = std::nullopt, "
            "const std::optional<Scalar>& correction = std::nullopt, bool keepdim = false) {",
        ),
    ],
)
def test_function_declarations(out, header, declaration):
    assert declaration in read(out, header).splitlines()


def test_function_calls_its_typed_handle(out):
    assert (
        "inline Tensor& add_out(Tensor& out, const Tensor& self, const Tensor& other, const Scalar& alpha = 1) {\n"
        "  return ops::add_out::call(self, other, alpha, out);\n}" in read(out, "add.h")
    )


def test_definitions_cache_the_typed_handle(out):
    assert textwrap.dedent("""\
        Tensor add_Tensor::call(const Tensor& self, const Tensor& other, const Scalar& alpha) {
          static const auto op =
              Dispatcher::singleton().find_schema_or_throw("glassbox::add", "Tensor").typed<add_Tensor::schema>();
          return op.call(self, other, alpha);
        }
        """) in read(out, "add.cpp")
    assert (
        "std::tuple<Tensor&, Tensor&> max_dim_max::redispatch(DispatchKeySet keys, const Tensor& self, int64_t dim, "
        "bool keepdim, Tensor& max, Tensor& max_values) {" in read(out, "max.cpp")
    )
    assert "  return op.redispatch(keys, self, dim, keepdim, max, max_values);" in read(out, "max.cpp")


@pytest.mark.parametrize(
    "declaration",
    [
        "  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;",
        "  Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const;",
        "  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;",
        "  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;",
        "  Tensor var_correction(std::optional<IntArrayRef> dim = std::nullopt, "
        "const std::optional<Scalar>& correction = std::nullopt, bool keepdim = false) const;",
        "  Tensor mse_loss(const Tensor& target, int64_t reduction = Reduction::Mean) const;",
        "  Scalar item() const;",
        "  Tensor where(const Tensor& condition, const Tensor& other) const;",
        "  Tensor& zero_() const;",
        "  static constexpr int64_t k_roll_dims_default[] = {3};",
        "  Tensor roll(IntArrayRef shifts, IntArrayRef dims = k_roll_dims_default) const;",
    ],
)
def test_method_declarations(out, declaration):
    assert declaration in read(out, "TensorMethods.inc").splitlines()


def test_method_definitions(out):
    methods = read(out, "TensorMethods.cpp")
    assert (
        "Tensor& Tensor::add_(const Tensor& other, const Scalar& alpha) const {\n"
        "  return ops::add__Tensor::call(const_cast<Tensor&>(*this), other, alpha);\n}" in methods
    )
    # self is passed where the schema has it
    assert "  return ops::where_self::call(condition, *this, other);" in methods
    assert '#include "glassbox/ops/where.h"' in methods
    assert '#include "glassbox/ops/linear.h"' not in methods  # no method variant
    inc = read(out, "TensorMethods.inc")
    assert " linear(" not in inc and "add_out" not in inc


def test_native_declarations(out):
    native = read(out, "native/add.h")
    assert (
        f"// {SHOWN}: add.Tensor (CPU)\n"
        "Tensor add_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha);" in native
    )
    assert "Tensor& add_(Tensor& self, const Tensor& other, const Scalar& alpha);" in native
    # no dispatch: a CompositeImplicitAutograd kernel named after the operator
    assert (
        f"// {SHOWN}: add.Scalar (CompositeImplicitAutograd)\n"
        "Tensor add(const Tensor& self, const Scalar& other, const Scalar& alpha);" in native
    )
    assert "// tests/codegen/ops.yaml: cat (CPU, CUDA)\nTensor cat_kernel(TensorList tensors, int64_t dim);" in read(
        out, "native/cat.h"
    )
    assert "namespace glassbox::native {" in native
    everything = read(out, "NativeFunctions.h")
    assert (
        '#include "glassbox/ops/native/add.h"' in everything and '#include "glassbox/ops/native/zero.h"' in everything
    )


def test_schema_registration(out):
    schema = read(out, "RegisterSchema.cpp")
    assert "GLASSBOX_LIBRARY(glassbox, m) {" in schema
    assert (
        f'  m.def("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", {{"pointwise"}});  '
        f"// {SHOWN}:{line_of('add.Tensor(')}" in schema.splitlines()
    )
    assert (
        f'  m.def("add.Scalar(Tensor self, Scalar other, Scalar alpha=1) -> Tensor", {{"pointwise", "core"}});  '
        f"// {SHOWN}:{line_of('add.Scalar(')}" in schema.splitlines()
    )
    assert (
        f'  m.def("linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor");  '
        f"// {SHOWN}:{line_of('linear(')}" in schema.splitlines()
    )


def test_kernel_registration(out):
    cpu = read(out, "RegisterCPU.cpp")
    assert "GLASSBOX_LIBRARY_IMPL(glassbox, CPU, m) {" in cpu
    assert f'  m.impl("add.Tensor", &native::add_cpu);  // {SHOWN}:{line_of("add.Tensor(")}' in cpu.splitlines()
    # one kernel name for two signatures: the registration picks the overload
    assert (
        '  m.impl("mul.Scalar", static_cast<Tensor (*)(const Tensor&, const Scalar&)>(&native::mul_cpu));  '
        f"// {SHOWN}:{line_of('mul.Scalar(')}" in cpu.splitlines()
    )
    assert '#include "glassbox/ops/native/add.h"' in cpu and '#include "glassbox/ops/native/linear.h"' not in cpu
    assert '  m.impl("cat", &native::cat_kernel);  // tests/codegen/ops.yaml:27' in read(out, "RegisterCUDA.cpp")
    math = read(out, "RegisterCompositeImplicitAutograd.cpp")
    assert "GLASSBOX_LIBRARY_IMPL(glassbox, CompositeImplicitAutograd, m) {" in math
    assert '  m.impl("linear", &native::linear);' in math and '"softmax.int", &native::softmax' in math
    explicit = read(out, "RegisterCompositeExplicitAutograd.cpp")
    assert '  m.impl("add_.Tensor", &native::add_);' in explicit
    assert '  m.impl("relu", &native::relu_autograd_generic);' in read(out, "RegisterAutograd.cpp")


def test_outputs_and_dry_run_list(out, tmp_path):
    ops_dir = out / "glassbox" / "ops"
    produced = sorted(str(p.relative_to(ops_dir)) for p in ops_dir.rglob("*") if p.is_file())
    bases = [
        "_foreach_add",
        "add",
        "amax",
        "cat",
        "clamp",
        "conv2d",
        "empty",
        "full",
        "hardtanh",
        "is_nonzero",
        "item",
        "linear",
        "max",
        "mse_loss",
        "mul",
        "nll",
        "relu",
        "size",
        "softmax",
        "split",
        "sum",
        "upsample",
        "var",
        "where",
        "zero",
        "roll",
        "index",
    ]
    keys = [
        "CPU",
        "CUDA",
        "Meta",
        "AutogradCPU",
        "Trace",
        "Python",
        "Autograd",
        "CompositeImplicitAutograd",
        "CompositeExplicitAutograd",
    ]
    expected = (
        ["Types.h", "Functions.h", "NativeFunctions.h", "RegisterSchema.cpp", "TensorMethods.inc", "TensorMethods.cpp"]
        + [f"{b}.h" for b in bases]
        + [f"{b}.cpp" for b in bases]
        + [f"native/{b}.h" for b in bases]
        + [f"Register{k}.cpp" for k in keys]
        + [f"python/bindings_{n}.cpp" for n in range(8)]
        + ["python/bind_all.cpp"]
    )
    assert produced == sorted(expected)

    listing = tmp_path / "outputs.cmake"
    assert codegen.main(["--ops-yaml", str(FIXTURE), "--out-dir", str(ops_dir), "--list-outputs", str(listing)]) == 0
    text = listing.read_text()
    listed = {}
    for var, body in re.findall(r"set\((\w+)\n(.*?)\)", text, re.S):
        listed[var] = [os.path.relpath(p, ops_dir) for p in re.findall(r'"([^"]+)"', body)]
    assert listed["GLASSBOX_CODEGEN_CUDA_SOURCES"] == ["RegisterCUDA.cpp"]
    assert sorted(sum(listed.values(), [])) == sorted(expected)
    assert all(p.endswith(".cpp") for p in listed["GLASSBOX_CODEGEN_SOURCES"])
    assert sorted(listed["GLASSBOX_CODEGEN_PYTHON_SOURCES"]) == sorted(
        [f"python/bindings_{n}.cpp" for n in range(8)] + ["python/bind_all.cpp"]
    )


def test_every_file_has_the_banner_and_every_operator_its_line(out):
    ops_dir = out / "glassbox" / "ops"
    for path in ops_dir.rglob("*"):
        if path.is_file():
            assert path.read_text().startswith(f"// Generated by codegen/ from {SHOWN}; do not edit"), path
    entries = load_ops(str(FIXTURE), SHOWN)
    functions = read(out, "Functions.h")
    for entry in entries:
        line = line_of(entry.schema.text)
        assert entry.line == line
        struct = f"{entry.name}_{entry.overload}" if entry.overload else entry.name
        # headers name the entry, not its line (see test_inserted_line_rewrites_no_header)
        assert f"// {SHOWN}: {entry.full_name}\nstruct {struct} {{" in read(out, f"{entry.base_name}.h")
        assert f"// {SHOWN}:{line}\n" in read(out, f"{entry.base_name}.cpp")
        assert f"// {SHOWN}:{line}" in read(out, "RegisterSchema.cpp")
        assert f'#include "glassbox/ops/{entry.base_name}.h"' in functions


# ---------------------------------------------------------------------------------------------
# Errors


def errors_of(text: str, parser: str) -> str:
    try:
        codegen.build_plan(ops_from_tree(parse_yaml(textwrap.dedent(text), "ops.yaml", parser), "ops.yaml"), "ops.yaml")
    except (CodegenError, CodegenErrors) as e:
        return str(e)
    raise AssertionError("no error")


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize(
    "text, message",
    [
        (
            """\
     - func: relu(Tensor self) -> Tensor
       variant: method
     """,
            "ops.yaml:2: error: unknown key 'variant' (an entry has func, variants, dispatch, tags, structured, "
            "inplace, inplace_variants, out)",
        ),
        (
            """\
     # comment
     - func: relu(Tensor self) -> Tensor
       dispatch:
         CPU: relu_cpu
         Metal: relu_metal
     """,
            "ops.yaml:5: error: unknown dispatch key 'Metal' (keys: CPU, CUDA, Meta,",
        ),
        (
            """\
     - func: relu(Tensor self Tensor other) -> Tensor
     """,
            "ops.yaml:1: error: bad schema: expected ',' or ')' after an argument, found 'Tensor' at column 18 "
            "of 'relu(Tensor self Tensor other) -> Tensor'",
        ),
        (
            """\
     - func: relu(Tensor self) -> Tensor

     - func: relu(Tensor self) -> Tensor
     """,
            "ops.yaml:3: error: duplicate operator relu (first declared at ops.yaml:1)",
        ),
        (
            """\
     - func: ones(int[] size) -> Tensor
       variants: function, method
     """,
            "ops.yaml:1: error: ones has a method variant but no 'Tensor self' argument",
        ),
        (
            """\
     - func: rand(int[] size, *, Generator? generator=None) -> Tensor
     """,
            "ops.yaml:1: error: rand: argument 'generator': type 'Generator?' is not supported by glassbox's C++ API yet",
        ),
        (
            """\
     - func: pick(Tensor self, int?[] sizes) -> Tensor
     """,
            "ops.yaml:1: error: pick: argument 'sizes': type 'int?[]' (a list of optional elements) "
            "is not supported by glassbox's C++ API yet (only Tensor?[])",
        ),
        (
            """\
     - func: clone(Tensor self, *, MemoryFormat? memory_format=contiguous_format) -> Tensor
     """,
            "ops.yaml:1: error: clone: argument 'memory_format': type 'MemoryFormat?' is not supported",
        ),
        (
            """\
     - func: dim(Tensor self) -> int
       variants: method
     """,
            "ops.yaml:1: error: dim: the method variant Tensor::dim clashes with the existing member Tensor::dim "
            "(engine/core/tensor.h)",
        ),
        (
            """\
     - func: glassbox::relu(Tensor self) -> Tensor
     """,
            "ops.yaml:1: error: write the schema without a namespace",
        ),
        (
            """\
     - func: relu(Tensor self) -> Tensor
       dispatch:
     """,
            "ops.yaml:2: error: 'dispatch' must be a mapping of dispatch key to kernel name",
        ),
        (
            """\
     - func: relu(Tensor self) -> Tensor
       variants: function, methods
     """,
            "ops.yaml:2: error: unknown variant 'methods' (variants: function, method)",
        ),
        (
            """\
     - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
       variants: method
     """,
            "ops.yaml:1: error: add.out is an out= overload",
        ),
        (
            """\
     - func: add_out(Tensor self, Tensor other) -> Tensor
     - func: add.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)
     """,
            "ops.yaml:2: error: add.out and add_out (ops.yaml:1) would both be glassbox::ops::add_out",
        ),
        (
            """\
     - func: baz.x(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
     - func: baz.y(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
     - func: baz_y_out(Tensor(a!) out, Tensor self) -> Tensor(a!)
     """,
            "ops.yaml:2: error: baz.y: C++ could not tell baz_y_out(...) apart from the one of baz_y_out (ops.yaml:3)",
        ),
        (
            """\
     - func: relu.x(Tensor self) -> Tensor
       dispatch:
         CPU: relu_x
     - func: relu(Tensor self) -> Tensor
     - func: relu.y(Tensor self, bool inplace=False) -> Tensor
     """,
            "",
        ),  # all three take (const Tensor&): the unnamed overload keeps relu, the others are renamed
    ],
)
def test_errors_name_file_and_line(text, message, parser):
    if not message:
        plan = codegen.build_plan(
            ops_from_tree(parse_yaml(textwrap.dedent(text), "ops.yaml", parser), "ops.yaml"), "ops.yaml"
        )
        assert [op.functions[0].name for op in plan.ops] == ["relu_x", "relu", "relu_y"]
        return
    assert message in errors_of(text, parser)


@pytest.mark.parametrize("parser", PARSERS)
def test_all_errors_are_reported(parser):
    message = errors_of(
        """\
        - func: a(Tensor self) -> Tensor
          dispatch:
            XLA: a_xla
        - func: b(Tensor self) -> Tensor
          tags: [pointwise]
          colour: red
        - func: c(Tensor self -> Tensor
        """,
        parser,
    )
    assert message.splitlines() == [
        "ops.yaml:3: error: unknown dispatch key 'XLA' (keys: CPU, CUDA, Meta, AutogradCPU, AutogradCUDA, Trace, "
        "Python, Autograd, CompositeImplicitAutograd, CompositeExplicitAutograd)",
        "ops.yaml:6: error: unknown key 'colour' (an entry has func, variants, dispatch, tags, structured, inplace, "
        "inplace_variants, out)",
        "ops.yaml:7: error: bad schema: expected ',' or ')' after an argument, found '->' at column 15 of "
        "'c(Tensor self -> Tensor'",
    ]


@pytest.mark.parametrize("parser", PARSERS)
def test_yaml_syntax_errors_name_the_line(parser):
    message = errors_of(
        """\
        - func: relu(Tensor self) -> Tensor
          dispatch:
            CPU: [relu_cpu
        """,
        parser,
    )
    assert message.startswith("ops.yaml:3: error: YAML syntax") or message.startswith("ops.yaml:4: error: YAML syntax")


def test_command_line_reports_errors(tmp_path, capsys):
    bad = tmp_path / "ops.yaml"
    bad.write_text("- func: relu(Tensor self) -> Tensor\n  dispatch:\n    GPU: relu_gpu\n")
    assert codegen.main(["--ops-yaml", str(bad), "--out-dir", str(tmp_path / "out")]) == 1
    assert f"{bad}:3: error: unknown dispatch key 'GPU'" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


# ---------------------------------------------------------------------------------------------
# Incremental output


def snapshot(root: Path) -> dict:
    """The mtime of every file, after setting them all back a minute (so that a rewrite shows even
    where timestamps are coarse)."""
    past = time.time() - 60
    for p in root.rglob("*"):
        if p.is_file():
            os.utime(p, (past, past))
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


def mtimes(root: Path) -> dict:
    return {str(p.relative_to(root)): p.stat().st_mtime_ns for p in root.rglob("*") if p.is_file()}


def test_regenerating_unchanged_yaml_rewrites_nothing(tmp_path):
    assert len(generate(FIXTURE, tmp_path)) > 50
    before = snapshot(tmp_path)
    assert generate(FIXTURE, tmp_path) == []
    assert mtimes(tmp_path) == before


@pytest.mark.parametrize(
    "old, new, rewritten",
    [
        # a kernel renamed: its declaration and its key's registrations
        ("    CPU: max_dim_cpu\n", "    CPU: max_dim_kernel\n", ["RegisterCPU.cpp", "native/max.h"]),
        # a default changed: the operator's header, the schema registration, the method declaration and
        # the Python binding (which holds the default too)
        (
            "- func: var(Tensor self, bool unbiased=True) -> Tensor",
            "- func: var(Tensor self, bool unbiased=False) -> Tensor",
            ["RegisterSchema.cpp", "TensorMethods.inc", f"python/bindings_{shard_of('var')}.cpp", "var.h"],
        ),
        # a method variant dropped: the header keeps the function; the methods and the binding lose it
        (
            "- func: mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor\n  variants: function, method",
            "- func: mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor\n  variants: function",
            ["TensorMethods.cpp", "TensorMethods.inc", f"python/bindings_{shard_of('mse_loss')}.cpp"],
        ),
    ],
)
def test_one_entry_changed_rewrites_only_its_files(tmp_path, old, new, rewritten):
    yaml_path = tmp_path / "ops.yaml"
    text = FIXTURE.read_text()
    assert text.count(old) == 1
    yaml_path.write_text(text)
    out = tmp_path / "out"
    generate(yaml_path, out)
    before = snapshot(out)
    yaml_path.write_text(text.replace(old, new))
    written = generate(yaml_path, out)
    assert sorted(written) == rewritten
    after = mtimes(out)
    changed = sorted(p for p in after if after[p] != before[p])
    assert changed == [f"glassbox/ops/{r}" for r in rewritten]


def test_inserted_line_rewrites_no_header(tmp_path):
    """A line added to the YAML shifts the line of every later entry; only the sources that record
    those lines (registrations, definitions) are rewritten, never a header that half the build
    includes."""
    yaml_path = tmp_path / "ops.yaml"
    text = FIXTURE.read_text()
    yaml_path.write_text(text)
    out = tmp_path / "out"
    generate(yaml_path, out)
    first_entry = text.index("- func:")
    yaml_path.write_text(text[:first_entry] + "# a comment line shifts every entry below it\n" + text[first_entry:])
    written = generate(yaml_path, out)
    assert "RegisterSchema.cpp" in written
    assert [w for w in written if not w.endswith(".cpp")] == []


def test_removed_operator_files_are_deleted(tmp_path):
    yaml_path = tmp_path / "ops.yaml"
    text = FIXTURE.read_text()
    yaml_path.write_text(text)
    generate(yaml_path, tmp_path / "out")
    ops_dir = tmp_path / "out" / "glassbox" / "ops"
    (ops_dir / "notes.h").write_text("// not generated\n")
    start = text.index("- func: hardtanh(")
    yaml_path.write_text(text[:start] + text[text.index("\n\n", start) + 2 :])
    generate(yaml_path, tmp_path / "out")
    assert not (ops_dir / "hardtanh.h").exists() and not (ops_dir / "native" / "hardtanh.h").exists()
    assert (ops_dir / "notes.h").exists()
    assert "hardtanh" not in (ops_dir / "Functions.h").read_text()


# ---------------------------------------------------------------------------------------------
# The YAML readers


@pytest.mark.skipif(not HAVE_PYYAML, reason="PyYAML is not installed")
@pytest.mark.parametrize("path", sorted(FIXTURES.glob("*.yaml")), ids=lambda p: p.name)
def test_builtin_yaml_parser_matches_pyyaml_on_fixtures(path):
    text = path.read_text()
    assert parse_yaml(text, path.name, "builtin") == parse_yaml(text, path.name, "pyyaml")
    assert load_ops(str(path), "f", "builtin") == load_ops(str(path), "f", "pyyaml")


@pytest.mark.skipif(not HAVE_PYYAML, reason="PyYAML is not installed")
def test_builtin_yaml_parser_matches_pyyaml_on_other_spellings():
    text = textwrap.dedent("""\
        ---
        # leading comment
        - func: "nll(Tensor self, str reduction='#mean') -> Tensor"   # quoted, with a '#' inside
          tags:
          - pointwise
          - 'core'
          variants: [function,method]
        -   func: relu(Tensor self) -> Tensor
            dispatch:
                CPU, CUDA: relu_kernel   # two keys, one kernel
            tags: []
        - func: 'it''s(Tensor self) -> Tensor'
          variants: "function"
        - func: add.out(Tensor self, Tensor other,
            *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)
          dispatch:
            CPU: add_out_cpu
        """)
    assert parse_yaml(text, "x", "builtin") == parse_yaml(text, "x", "pyyaml")


# ---------------------------------------------------------------------------------------------
# The generated C++ compiles (and, against a built libglassbox_core, registers and runs)


def shadow_tensor_header(root: Path) -> list:
    """engine/core/tensor.h with the generated includes, until the real one has them."""
    real = (REPO / "engine" / "core" / "tensor.h").read_text()
    if "TensorMethods.inc" in real:
        return []
    text = real.replace(
        '#include "engine/core/tensor_impl.h"\n',
        '#include "engine/core/tensor_impl.h"\n#include "glassbox/ops/Types.h"\n',
        1,
    )
    text = re.sub(r"(class Tensor \{\n public:\n)", r'\1#include "glassbox/ops/TensorMethods.inc"\n', text, count=1)
    assert "TensorMethods.inc" in text and "Types.h" in text
    (root / "engine" / "core").mkdir(parents=True)
    (root / "engine" / "core" / "tensor.h").write_text(text)
    return [f"-I{root}"]


def gxx() -> str:
    compiler = shutil.which("g++")
    if compiler is None:
        pytest.skip("g++ is not installed")
    return compiler


def test_generated_headers_compile(out, tmp_path):
    compiler = gxx()
    tu = tmp_path / "headers.cpp"
    tu.write_text('#include "glassbox/ops/Functions.h"\n#include "glassbox/ops/NativeFunctions.h"\n')
    flags = ["-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter"]
    includes = shadow_tensor_header(tmp_path / "shadow") + [f"-I{REPO}", f"-I{out}"]
    result = subprocess.run([compiler, *flags, *includes, str(tu)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_generated_sources_compile(out, tmp_path):
    """Registrations instantiate KernelFunction for every kernel signature; methods need tensor.h."""
    compiler = gxx()
    ops_dir = out / "glassbox" / "ops"
    tu = tmp_path / "sources.cpp"
    tu.write_text("".join(f'#include "{p}"\n' for p in sorted(ops_dir.glob("*.cpp"))))
    flags = ["-std=c++20", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter"]
    includes = shadow_tensor_header(tmp_path / "shadow") + [f"-I{REPO}", f"-I{out}"]
    result = subprocess.run([compiler, *flags, *includes, str(tu)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def stub_kernels(ops_dir: Path, written: set) -> str:
    """Definitions of the kernels e2e_main.cpp does not write: each records its name."""
    lines = [
        "#include <string>",
        '#include "glassbox/ops/NativeFunctions.h"',
        "extern std::string g_last;",
        "namespace glassbox::native {",
    ]
    seen = set()
    for header in sorted((ops_dir / "native").glob("*.h")):
        for decl in re.findall(r"^(.+?) (\w+)\((.*)\);$", header.read_text(), re.M):
            ret, name, params = decl
            if name in written or (name, params) in seen:
                continue
            seen.add((name, params))
            mutable = re.findall(r"(?<!const )Tensor& (\w+)", params)
            body = (
                ""
                if ret == "void"
                else f"return {mutable[0]};"
                if ret == "Tensor&"
                else f"return {{{', '.join(mutable)}}};"
                if ret.startswith("std::tuple<Tensor&")
                else "return {};"
            )
            lines.append(f'{ret} {name}({params}) {{ g_last = "{name}"; {body} }}')
    return "\n".join(lines + ["}"]) + "\n"


def test_generated_code_registers_and_calls(out, tmp_path):
    compiler = gxx()
    build = Path(os.environ.get("GLASSBOX_BUILD_DIR", REPO / "build" / "dev"))
    library = build / "lib" / "libglassbox_core.so"
    if not library.exists():
        pytest.skip(f"{library} is not built")
    if (build / "generated" / "glassbox" / "ops" / "RegisterSchema.cpp").exists():
        pytest.skip("this build's libglassbox_core already defines the glassbox operators")
    cache = build / "CMakeCache.txt"
    if cache.exists() and re.search(r"^GLASSBOX_SANITIZE:\w+=.+$", cache.read_text(), re.M):
        pytest.skip("this build is sanitized")
    ops_dir = out / "glassbox" / "ops"
    main_cpp = FIXTURES / "e2e_main.cpp"
    written = set(
        re.findall(
            r"^\S.*? (\w+)\(",
            main_cpp.read_text().split("namespace glassbox::native {")[1].split("}  // namespace glassbox::native")[0],
            re.M,
        )
    )
    (tmp_path / "stubs.cpp").write_text(stub_kernels(ops_dir, written))
    (tmp_path / "generated.cpp").write_text("".join(f'#include "{p}"\n' for p in sorted(ops_dir.glob("*.cpp"))))
    includes = shadow_tensor_header(tmp_path / "shadow") + [f"-I{REPO}", f"-I{out}"]
    program = tmp_path / "e2e"
    result = subprocess.run(
        [
            compiler,
            "-std=c++20",
            "-O0",
            *includes,
            str(tmp_path / "generated.cpp"),
            str(tmp_path / "stubs.cpp"),
            str(main_cpp),
            str(library),
            f"-Wl,-rpath,{library.parent}",
            "-o",
            str(program),
        ],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr
    run = subprocess.run([str(program)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0 and "e2e ok" in run.stdout, run.stdout + run.stderr


# ---------------------------------------------------------------------------------------------
# Autograd from derivatives.yaml

ENGINE_OPS = REPO / "engine" / "ops" / "ops.yaml"
ENGINE_DERIVATIVES = REPO / "engine" / "ops" / "derivatives.yaml"


def test_autograd_nodes_and_kernels_from_derivatives(tmp_path):
    ops_dir = tmp_path / "ops"
    codegen.generate(str(ENGINE_OPS), str(ops_dir), str(REPO), "auto", str(ENGINE_DERIVATIVES))
    mul = (ops_dir / "autograd" / "mul.cpp").read_text()
    assert "struct MulBackward0 final : autograd::Node {" in mul
    assert 'return "MulBackward0";' in mul
    assert "Tensor mul_Tensor_autograd(DispatchKeySet ks, const Tensor& self, const Tensor& other) {" in mul
    assert re.search(
        r"out\[0\] = autograd::to_input\(mul\(grad, other\), self_info_\);  "
        r"// engine/ops/derivatives.yaml:\d+",
        mul,
    )
    assert "namespace autograd_kernels {" in mul and "GLASSBOX_LIBRARY" not in mul
    # Every Autograd registration is in one file, in ops.yaml order, each naming its YAML line.
    register = (ops_dir / "autograd" / "Register.cpp").read_text()
    assert "Tensor mul_Tensor_autograd(DispatchKeySet ks, const Tensor& self, const Tensor& other);" in register
    assert register.count("GLASSBOX_LIBRARY_IMPL(glassbox, Autograd, m) {") == 1
    assert re.search(
        r'  m.impl\("mul.Tensor", &autograd_kernels::mul_Tensor_autograd\);  // engine/ops/ops.yaml:\d+', register
    )
    assert register.index('m.impl("add.Tensor"') < register.index('m.impl("mul.Tensor"')
    add = (ops_dir / "autograd" / "add.cpp").read_text()
    # add_ reuses add's formulas and node; add.out refuses inputs that require grad.
    assert 'autograd::check_inplace(self, "add_.Tensor");' in add and "autograd::rebase_history(self, grad_fn);" in add
    assert 'throw_out_not_differentiable("add.out")' in add
    assert add.count("struct AddBackward0") == 1


@pytest.mark.parametrize(
    "text,message",
    [
        (
            "- name: mul.Tensor\n  alpha: grad\n",
            r"derivatives.yaml:2: error: mul.Tensor: 'alpha' is not a tensor argument",
        ),
        ("- name: nope\n  self: grad\n", r"derivatives.yaml:1: error: no operator nope in \S*ops.yaml"),
        ("- name: neg\n", r"derivatives.yaml:1: error: neg: no formula for any input"),
        (
            "- name: neg\n  output_differentiability: [False]\n  self: grad\n",
            r"derivatives.yaml:1: error: neg: formulas for an operator whose outputs are all non-differentiable",
        ),
        ("- name: neg\n  self: grad\n- name: neg\n  self: grad\n", r"derivatives.yaml:3: error: second entry for neg"),
    ],
)
def test_derivative_errors_name_file_and_line(tmp_path, text, message):
    path = tmp_path / "derivatives.yaml"
    path.write_text(text)
    with pytest.raises((CodegenError, CodegenErrors), match=message):
        codegen.generate(str(ENGINE_OPS), str(tmp_path / "ops"), str(tmp_path), "auto", str(path))


# ---------------------------------------------------------------------------------------------
# Structured operators: one entry, three operators, every backend's kernels generated

STRUCTURED = """\
- func: hypot(Tensor self, Tensor other) -> Tensor
  variants: function, method
  structured: Hypot
  tags: [pointwise]
- func: eq.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  variants: function, method
  structured: Eq
  inplace: none
  out: eq.Tensor_out
- func: gelu_backward(Tensor grad_output, Tensor self, *, str approximate='none') -> Tensor
  structured: GeluBackward
  inplace: none
  out: none
"""


def structured_entries(parser: str = "auto") -> dict:
    return {e.full_name: e for e in ops_from_tree(parse_yaml(STRUCTURED, "ops.yaml", parser), "ops.yaml")}


@pytest.mark.parametrize("parser", PARSERS)
def test_structured_entry_derives_inplace_and_out(parser):
    entries = structured_entries(parser)
    assert list(entries) == ["hypot", "hypot_", "hypot.out", "eq.Tensor", "eq.Tensor_out", "gelu_backward"]
    assert entries["hypot_"].schema.text == "hypot_(Tensor(a!) self, Tensor other) -> Tensor(a!)"
    assert entries["hypot.out"].schema.text == "hypot.out(Tensor self, Tensor other, *, Tensor(a!) out) -> Tensor(a!)"
    assert entries["eq.Tensor_out"].schema.text == (
        "eq.Tensor_out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
    )
    assert entries["hypot_"].variants == ("function", "method") and entries["hypot.out"].variants == ("function",)
    assert entries["hypot.out"].tags == ("pointwise",) and entries["hypot_"].line == entries["hypot"].line == 1
    assert dict(entries["hypot"].dispatch) == {"CPU": "hypot_cpu", "CUDA": "hypot_cuda", "Meta": "hypot_meta"}
    assert dict(entries["hypot_"].dispatch) == {"CPU": "hypot_cpu_", "CUDA": "hypot_cuda_", "Meta": "hypot_meta_"}
    assert dict(entries["hypot.out"].dispatch)["CUDA"] == "hypot_out_cuda"
    assert [entries[n].structured.op_name for n in ("hypot", "hypot_", "hypot.out")] == ["hypot", "hypot_", "hypot.out"]
    assert {entries[n].structured.functor for n in ("hypot", "hypot_", "hypot.out")} == {"Hypot"}


@pytest.mark.parametrize(
    "text, message",
    [
        (
            "- func: relu(Tensor self) -> Tensor\n  structured: Relu\n  dispatch:\n    CPU: relu_cpu\n",
            "ops.yaml:3: error: a 'structured:' entry has no 'dispatch:' (its kernels are generated)",
        ),
        (
            "- func: relu(Tensor self) -> Tensor\n  inplace: none\n",
            "ops.yaml:2: error: 'inplace' belongs to a 'structured:' entry",
        ),
        (
            "- func: relu.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)\n  structured: Relu\n",
            "ops.yaml:1: error: relu.out: a structured entry is the functional form",
        ),
        (
            "- func: relu(Tensor self) -> Tensor\n  structured: 'not a name'\n",
            "ops.yaml:2: error: 'structured' names a functor in glassbox::functors, found 'not a name'",
        ),
        (
            "- func: relu(Tensor self) -> Tensor\n  structured: Relu\n- func: relu_(Tensor(a!) self) -> Tensor(a!)\n",
            "ops.yaml:3: error: duplicate operator relu_ (first declared at ops.yaml:1)",
        ),
    ],
)
def test_structured_errors_name_file_and_line(text, message):
    assert message in errors_of(text, "auto")


def test_structured_kernels_are_rendered_per_backend(tmp_path):
    path = tmp_path / "ops.yaml"
    path.write_text(STRUCTURED)
    ops_dir = tmp_path / "ops"
    written = codegen.generate(str(path), str(ops_dir), str(tmp_path))
    assert {"StructuredCPU.cpp", "StructuredCUDA.cu", "StructuredMeta.cpp"} <= set(written)
    cpu = (ops_dir / "StructuredCPU.cpp").read_text()
    assert '#include "engine/cpu/pointwise_kernel.h"' in cpu and '#include "glassbox/ops/native/hypot.h"' in cpu
    assert (
        "Tensor hypot_cpu(const Tensor& self, const Tensor& other) {\n  Tensor out;\n"
        '  structured_pointwise<functors::Hypot, cpu::PointwiseCompute>("hypot", out, self, other);\n'
        "  return out;\n}"
    ) in cpu
    assert (
        "Tensor& hypot_cpu_(Tensor& self, const Tensor& other) {\n"
        '  return structured_pointwise<functors::Hypot, cpu::PointwiseCompute>("hypot_", self, self, other);\n}'
    ) in cpu
    assert (
        "Tensor& eq_out_cpu(const Tensor& self, const Tensor& other, const Scalar& alpha, Tensor& out) {\n"
        '  return structured_pointwise<functors::Eq, cpu::PointwiseCompute>("eq.out", out, self, other, alpha);'
    ) in cpu
    cuda = (ops_dir / "StructuredCUDA.cu").read_text()
    assert (
        'structured_pointwise<functors::GeluBackward, cuda::PointwiseCompute>("gelu_backward", out, grad_output, self, approximate)'
        in cuda
    )
    meta = (ops_dir / "StructuredMeta.cpp").read_text()
    assert "Tensor& hypot_out_meta(const Tensor& self, const Tensor& other, Tensor& out)" in meta
    assert "MetaCompute" in meta
    for key, kernel in (("CPU", "hypot_cpu_"), ("CUDA", "hypot_out_cuda"), ("Meta", "hypot_meta")):
        assert f"&native::{kernel});" in (ops_dir / f"Register{key}.cpp").read_text()
    listing = tmp_path / "outputs.cmake"
    assert codegen.main(["--ops-yaml", str(path), "--out-dir", str(ops_dir), "--list-outputs", str(listing)]) == 0
    cuda_sources = re.search(r"set\(GLASSBOX_CODEGEN_CUDA_SOURCES\n(.*?)\)", listing.read_text(), re.S).group(1)
    assert "StructuredCUDA.cu" in cuda_sources and "RegisterCUDA.cpp" in cuda_sources


def test_structured_engine_operators_keep_their_schemas_and_get_autograd(tmp_path):
    ops_dir = tmp_path / "ops"
    codegen.generate(str(ENGINE_OPS), str(ops_dir), str(REPO), "auto", str(ENGINE_DERIVATIVES))
    entries = {e.full_name: e for e in load_ops(str(ENGINE_OPS), "engine/ops/ops.yaml")}
    assert (
        entries["add_.Tensor"].schema.text
        == "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
    )
    assert entries["add_.Tensor"].variants == ("method",)
    assert entries["pow.Tensor_Tensor_out"].structured.functor == "Pow"
    assert "relu.out" not in entries and "maximum_" not in entries
    add = (ops_dir / "autograd" / "add.cpp").read_text()
    assert 'autograd::check_inplace(self, "add_.Tensor");' in add and 'throw_out_not_differentiable("add.out")' in add
