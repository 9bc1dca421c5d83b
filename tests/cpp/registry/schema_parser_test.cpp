#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "registry/function_schema.h"

namespace glassbox {
namespace {

using Kind = DefaultValue::Kind;

// Canonically written schemas: each must print back exactly and re-parse to the same schema.
const std::vector<std::string> kSchemas = {
    "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
    "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
    "max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
    "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
    "add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    "transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)",
    "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
    "index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)",
    "cat(Tensor[] tensors, int dim=0) -> Tensor",
    "empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? "
    "pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
    "rand(SymInt[] size, *, Generator? generator, ScalarType? dtype=None) -> Tensor",
    "div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor",
    "mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
    "layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool "
    "cudnn_enable=True) -> Tensor",
    "_foo() -> ()",
    "my::op(...) -> ...",
    "aten::format(str self, ...) -> str",
    "prim::Print(...) -> ()",
    "my::tuple_op(Tensor a, ...) -> (Tensor, ...)",
    "pad(Tensor self, SymInt[] pad, str mode=\"constant\", float? value=None) -> Tensor",
    "gelu(Tensor self, *, str approximate='none') -> Tensor",
    "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=1, SymInt[2] padding=0, SymInt[2] "
    "dilation=1, SymInt groups=1) -> Tensor",
    "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool "
    "count_include_pad=True, int? divisor_override=None) -> Tensor",
    "my::pool(Tensor self, int[2] stride=[1, 1], int[] dims=[]) -> Tensor",
    "amax(Tensor self, int[1] dim=[], bool keepdim=False) -> Tensor",
    "softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor",
    "clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor",
    "hardtanh(Tensor self, Scalar min_val=-1, Scalar max_val=1) -> Tensor",
    "leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor",
    "dropout(Tensor input, float p, bool train) -> Tensor",
    "view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
    "permute(Tensor(a) self, int[] dims) -> Tensor(a)",
    "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]",
    "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)",
    "sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, Tensor(b!) indices) -> "
    "(Tensor(a!) values, Tensor(b!) indices)",
    "_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()",
    "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool "
    "training, float momentum, float eps) -> (Tensor, Tensor, Tensor)",
    "native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, "
    "Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
    "arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)",
    "to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? "
    "memory_format=None) -> Tensor(a)",
    "std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor",
    "upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor",
    "nan_to_num(Tensor self, float? nan=None, float? posinf=None, float? neginf=None) -> Tensor",
    "uniform_(Tensor(a!) self, float from=0, float to=1, *, Generator? generator=None) -> Tensor(a!)",
    "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) "
    "-> Tensor",
    "cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, SymInt ignore_index=-100, "
    "float label_smoothing=0.0) -> Tensor",
    "_amp_foreach_non_finite_check_and_unscale_(Tensor(a!)[] self, Tensor(b!) found_inf, Tensor inv_scale) -> ()",
    "__and__.Tensor(Tensor self, Tensor other) -> Tensor",
    "my::alias_union(Tensor(a|b) self) -> Tensor(a|b)",
    "my::opt_out(Tensor self, *, Tensor(a!)? out=None) -> Tensor(a!)?",
    "my::limits(Tensor self, float min=-inf, float max=inf, float fill=nan, float p=0.5) -> Tensor",
    "my::masks(Tensor self, bool[3] output_mask=[True, False, True], float[] weights=[0.5, 1e-05]) -> Tensor",
    "my::cast(Tensor self, ScalarType dtype=long, Layout layout=strided, Device device=\"cpu\") -> Tensor",
    "my::maybe_indices(Tensor?[]? indices=None, int[]? dims=None, str[] names=[\"a\", 'b']) -> Tensor",
};

TEST(SchemaParser, CanonicalSchemasRoundTripExactly) {
  EXPECT_GE(kSchemas.size(), 40u);
  for (const std::string& text : kSchemas) {
    SCOPED_TRACE(text);
    const FunctionSchema s = parse_schema(text);
    EXPECT_EQ(s.to_string(), text);
    EXPECT_EQ(parse_schema(s.to_string()), s);
  }
}

TEST(SchemaParser, NonCanonicalSpellingPrintsCanonically) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"add.Tensor( Tensor self ,Tensor other,*,Scalar alpha = 1 )->Tensor",
       "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"},
      {"f(int[2] stride=[ 1,1 ]) -> Tensor", "f(int[2] stride=[1, 1]) -> Tensor"},
      {"split(Tensor(a->*) self) -> Tensor(a) []", "split(Tensor(a -> *) self) -> Tensor(a)[]"},
      {"f(Tensor( a | b ) self) -> ( Tensor )", "f(Tensor(a|b) self) -> Tensor"},
      {"  f(int [ 1 ] ? dim)   ->  ( Tensor x ,Tensor y )  ", "f(int[1]? dim) -> (Tensor x, Tensor y)"},
      {"f(Tensor a,\n  int b)\r\n-> Tensor", "f(Tensor a, int b) -> Tensor"},
      {"f( ... ) -> ( ... )", "f(...) -> ..."},
  };
  for (const auto& [input, canonical] : cases) {
    SCOPED_TRACE(input);
    const FunctionSchema s = parse_schema(input);
    EXPECT_EQ(s.to_string(), canonical);
    EXPECT_EQ(parse_schema(s.to_string()), s);
  }
}

TEST(SchemaParser, AddTensorStructure) {
  const FunctionSchema s = parse_schema(kSchemas[0]);
  EXPECT_EQ(s.name, (OperatorName{"", "add", "Tensor"}));
  ASSERT_EQ(s.arguments.size(), 3u);
  EXPECT_EQ(s.arguments[0].name, "self");
  EXPECT_EQ(s.arguments[0].type, SchemaType{});
  EXPECT_FALSE(s.arguments[0].kwarg_only);
  EXPECT_FALSE(s.arguments[1].kwarg_only);
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  EXPECT_EQ(s.arguments[2].type.base, BaseType::Scalar);
  ASSERT_TRUE(s.arguments[2].default_value);
  EXPECT_EQ(*s.arguments[2].default_value, (DefaultValue{Kind::Int, "1"}));
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_EQ(s.returns[0].name, "");
  EXPECT_FALSE(s.returns[0].alias);
  EXPECT_FALSE(s.is_vararg || s.is_varret || s.is_mutable());
}

TEST(SchemaParser, SumDimIntListStructure) {
  const FunctionSchema s = parse_schema(kSchemas[1]);
  EXPECT_EQ(s.name, (OperatorName{"aten", "sum", "dim_IntList"}));
  ASSERT_EQ(s.arguments.size(), 4u);
  const SchemaType& dim = s.arguments[1].type;
  EXPECT_EQ(dim.base, BaseType::Int);
  EXPECT_TRUE(dim.is_list);
  EXPECT_EQ(dim.fixed_size, 1);
  EXPECT_TRUE(dim.optional);
  EXPECT_FALSE(dim.element_optional);
  EXPECT_FALSE(s.arguments[1].default_value);
  EXPECT_EQ(s.arguments[2].default_value, (DefaultValue{Kind::Bool, "False"}));
  EXPECT_TRUE(s.arguments[3].kwarg_only);
  EXPECT_EQ(s.arguments[3].type.base, BaseType::ScalarType);
  EXPECT_TRUE(s.arguments[3].type.optional);
  EXPECT_EQ(s.arguments[3].default_value, (DefaultValue{Kind::None, "None"}));
}

TEST(SchemaParser, NamedReturns) {
  const FunctionSchema s = parse_schema(kSchemas[2]);
  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[0].name, "values");
  EXPECT_EQ(s.returns[1].name, "indices");
  EXPECT_EQ(s.returns[1].type.base, BaseType::Tensor);

  const FunctionSchema bn = parse_schema(
      "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
      "Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)");
  ASSERT_EQ(bn.returns.size(), 3u);
  for (const Return& r : bn.returns) EXPECT_EQ(r.name, "");
  EXPECT_EQ(bn.arguments.size(), 8u);
}

TEST(SchemaParser, InPlaceAndOutAliases) {
  const FunctionSchema inplace = parse_schema(kSchemas[3]);
  ASSERT_TRUE(inplace.arguments[0].alias);
  EXPECT_EQ(inplace.arguments[0].alias->before_sets, std::vector<std::string>{"a"});
  EXPECT_TRUE(inplace.arguments[0].alias->is_write);
  EXPECT_TRUE(inplace.arguments[0].is_out());
  EXPECT_FALSE(inplace.arguments[1].alias);
  ASSERT_TRUE(inplace.returns[0].alias);
  EXPECT_TRUE(inplace.returns[0].alias->is_write);
  EXPECT_TRUE(inplace.is_mutable());

  const FunctionSchema out = parse_schema(kSchemas[4]);
  ASSERT_EQ(out.arguments.size(), 4u);
  EXPECT_EQ(out.arguments[3].name, "out");
  EXPECT_TRUE(out.arguments[3].kwarg_only);
  EXPECT_TRUE(out.arguments[3].is_out());
  EXPECT_FALSE(out.arguments[0].is_out());
  EXPECT_TRUE(out.is_mutable());

  const FunctionSchema values = parse_schema(
      "sort.values(Tensor self, int dim=-1, bool descending=False, *, Tensor(a!) values, "
      "Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)");
  EXPECT_EQ(values.returns[1].alias->before_sets, std::vector<std::string>{"b"});
  EXPECT_EQ(values.returns[1].name, "indices");
  EXPECT_EQ(values.arguments[1].default_value, (DefaultValue{Kind::Int, "-1"}));
}

TEST(SchemaParser, ViewAliasesAreNotWrites) {
  const FunctionSchema s = parse_schema(kSchemas[5]);
  ASSERT_TRUE(s.arguments[0].alias);
  EXPECT_FALSE(s.arguments[0].alias->is_write);
  EXPECT_TRUE(s.arguments[0].alias->after_sets.empty());
  EXPECT_FALSE(s.is_mutable());
  EXPECT_EQ(s.returns[0].alias, s.arguments[0].alias);
}

TEST(SchemaParser, SplitWildcardAliasAndListReturn) {
  const FunctionSchema s = parse_schema(kSchemas[6]);
  const AliasInfo& self = *s.arguments[0].alias;
  EXPECT_EQ(self.before_sets, std::vector<std::string>{"a"});
  EXPECT_EQ(self.after_sets, std::vector<std::string>{"*"});
  EXPECT_FALSE(self.is_write);
  EXPECT_EQ(s.arguments[1].type.base, BaseType::SymInt);
  ASSERT_EQ(s.returns.size(), 1u);
  EXPECT_TRUE(s.returns[0].type.is_list);
  ASSERT_TRUE(s.returns[0].alias);
  EXPECT_EQ(s.returns[0].alias->before_sets, std::vector<std::string>{"a"});
}

TEST(SchemaParser, OptionalElementsAndOptionalLists) {
  const SchemaType indices = parse_schema(kSchemas[7]).arguments[1].type;
  EXPECT_TRUE(indices.is_list);
  EXPECT_TRUE(indices.element_optional);
  EXPECT_FALSE(indices.optional);
  EXPECT_FALSE(indices.fixed_size);

  const FunctionSchema s = parse_schema(
      "my::maybe_indices(Tensor?[]? indices=None, int[]? dims=None, str[] names=[\"a\", 'b']) "
      "-> Tensor");
  EXPECT_TRUE(s.arguments[0].type.element_optional);
  EXPECT_TRUE(s.arguments[0].type.optional);
  EXPECT_TRUE(s.arguments[1].type.optional);
  EXPECT_FALSE(s.arguments[1].type.element_optional);
  EXPECT_EQ(s.arguments[2].type.base, BaseType::Str);
  EXPECT_EQ(s.arguments[2].default_value, (DefaultValue{Kind::List, "[\"a\", 'b']"}));
}

TEST(SchemaParser, AliasOnListAndOptionalTensors) {
  const FunctionSchema foreach_add =
      parse_schema("_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()");
  EXPECT_TRUE(foreach_add.arguments[0].type.is_list);
  EXPECT_TRUE(foreach_add.arguments[0].is_out());
  EXPECT_TRUE(foreach_add.returns.empty());
  EXPECT_FALSE(foreach_add.is_varret);

  const FunctionSchema opt = parse_schema("my::opt_out(Tensor self, *, Tensor(a!)? out=None) -> Tensor(a!)?");
  EXPECT_TRUE(opt.arguments[1].type.optional);
  EXPECT_TRUE(opt.arguments[1].is_out());
  EXPECT_TRUE(opt.returns[0].type.optional);

  const FunctionSchema both = parse_schema("my::alias_union(Tensor(a|b) self) -> Tensor(a|b)");
  EXPECT_EQ(both.arguments[0].alias->before_sets, (std::vector<std::string>{"a", "b"}));
}

TEST(SchemaParser, FactoryKeywordArguments) {
  const FunctionSchema s = parse_schema(kSchemas[9]);
  ASSERT_EQ(s.arguments.size(), 6u);
  EXPECT_FALSE(s.arguments[0].kwarg_only);
  EXPECT_EQ(s.arguments[0].type.base, BaseType::SymInt);
  const BaseType expected[] = {BaseType::ScalarType, BaseType::Layout, BaseType::Device, BaseType::Bool,
                               BaseType::MemoryFormat};
  for (size_t i = 1; i < 6; ++i) {
    EXPECT_TRUE(s.arguments[i].kwarg_only);
    EXPECT_TRUE(s.arguments[i].type.optional);
    EXPECT_EQ(s.arguments[i].type.base, expected[i - 1]);
    EXPECT_EQ(s.arguments[i].default_value->kind, Kind::None);
  }

  const FunctionSchema rand = parse_schema(kSchemas[10]);
  EXPECT_EQ(rand.arguments[1].type.base, BaseType::Generator);
  EXPECT_TRUE(rand.arguments[1].kwarg_only);
  EXPECT_FALSE(rand.arguments[1].default_value);
}

TEST(SchemaParser, DefaultKindsAndText) {
  struct Case {
    std::string schema;
    Kind kind;
    std::string text;
  };
  const std::vector<Case> cases = {
      {"f(int dim=-1) -> Tensor", Kind::Int, "-1"},
      {"f(int dim=0) -> Tensor", Kind::Int, "0"},
      {"f(float p=0.5) -> Tensor", Kind::Float, "0.5"},
      {"f(float eps=1e-05) -> Tensor", Kind::Float, "1e-05"},
      {"f(float x=1.) -> Tensor", Kind::Float, "1."},
      {"f(float x=2.5E+3) -> Tensor", Kind::Float, "2.5E+3"},
      {"f(float min=-inf) -> Tensor", Kind::Float, "-inf"},
      {"f(float max=inf) -> Tensor", Kind::Float, "inf"},
      {"f(float fill=nan) -> Tensor", Kind::Float, "nan"},
      {"f(float p=2) -> Tensor", Kind::Int, "2"},
      {"f(bool b=True) -> Tensor", Kind::Bool, "True"},
      {"f(bool b=False) -> Tensor", Kind::Bool, "False"},
      {"f(str reduce=\"mean\") -> Tensor", Kind::String, "\"mean\""},
      {"f(str a='x') -> Tensor", Kind::String, "'x'"},
      {"f(str a='it\\'s') -> Tensor", Kind::String, "'it\\'s'"},
      {"f(str a=\"\") -> Tensor", Kind::String, "\"\""},
      {"f(int[2] stride=[1, 1]) -> Tensor", Kind::List, "[1, 1]"},
      {"f(int[] dims=[]) -> Tensor", Kind::List, "[]"},
      {"f(int[2] padding=0) -> Tensor", Kind::Int, "0"},
      {"f(int reduction=Mean) -> Tensor", Kind::Identifier, "Mean"},
      {"f(MemoryFormat memory_format=contiguous_format) -> Tensor", Kind::Identifier, "contiguous_format"},
      {"f(Tensor? w=None) -> Tensor", Kind::None, "None"},
      {"f(Scalar s=-0.25) -> Tensor", Kind::Float, "-0.25"},
      {"f(Scalar s=True) -> Tensor", Kind::Bool, "True"},
      {"f(Tensor?[] t=[None, None]) -> Tensor", Kind::List, "[None, None]"},
      {"f(ScalarType dtype=6) -> Tensor", Kind::Int, "6"},
      {"f(Device device=cpu) -> Tensor", Kind::Identifier, "cpu"},
      {"f(Layout layout=strided) -> Tensor", Kind::Identifier, "strided"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.schema);
    const FunctionSchema s = parse_schema(c.schema);
    ASSERT_EQ(s.arguments.size(), 1u);
    ASSERT_TRUE(s.arguments[0].default_value);
    EXPECT_EQ(s.arguments[0].default_value->kind, c.kind);
    EXPECT_EQ(s.arguments[0].default_value->text, c.text);
    EXPECT_EQ(s.to_string(), c.schema);
  }
}

TEST(SchemaParser, EmptyAndVariadicSignatures) {
  const FunctionSchema empty = parse_schema("_foo() -> ()");
  EXPECT_TRUE(empty.arguments.empty());
  EXPECT_TRUE(empty.returns.empty());
  EXPECT_FALSE(empty.is_vararg || empty.is_varret);

  const FunctionSchema var = parse_schema("my::op(...) -> ...");
  EXPECT_EQ(var.name, (OperatorName{"my", "op", ""}));
  EXPECT_TRUE(var.arguments.empty());
  EXPECT_TRUE(var.is_vararg);
  EXPECT_TRUE(var.is_varret);
  EXPECT_TRUE(var.returns.empty());

  const FunctionSchema fmt = parse_schema("aten::format(str self, ...) -> str");
  ASSERT_EQ(fmt.arguments.size(), 1u);
  EXPECT_TRUE(fmt.is_vararg);
  EXPECT_FALSE(fmt.is_varret);
  EXPECT_EQ(fmt.returns[0].type.base, BaseType::Str);

  const FunctionSchema tuple = parse_schema("my::tuple_op(Tensor a, ...) -> (Tensor, ...)");
  EXPECT_EQ(tuple.returns.size(), 1u);
  EXPECT_TRUE(tuple.is_varret);
}

TEST(SchemaParser, EveryBaseTypeParses) {
  const FunctionSchema s = parse_schema(
      "f(Tensor a, int b, SymInt c, float d, bool e, str f, Scalar g, ScalarType h, Device i, "
      "Layout j, MemoryFormat k, Generator l) -> Tensor");
  ASSERT_EQ(s.arguments.size(), 12u);
  for (size_t i = 0; i < s.arguments.size(); ++i) EXPECT_EQ(s.arguments[i].type.base, static_cast<BaseType>(i));
}

TEST(SchemaParser, ParseSchemaNameTakesNameOrFullSchema) {
  EXPECT_EQ(parse_schema_name("aten::add.Tensor"), (OperatorName{"aten", "add", "Tensor"}));
  EXPECT_EQ(parse_schema_name("relu"), (OperatorName{"", "relu", ""}));
  EXPECT_EQ(parse_schema_name("  my::op  "), (OperatorName{"my", "op", ""}));
  EXPECT_EQ(parse_schema_name(kSchemas[1]), (OperatorName{"aten", "sum", "dim_IntList"}));
  EXPECT_EQ(parse_schema_name("my::op(...) -> ..."), (OperatorName{"my", "op", ""}));
  EXPECT_THROW(parse_schema_name("aten::"), SchemaParseError);
  EXPECT_THROW(parse_schema_name("add(Tensr a) -> Tensor"), SchemaParseError);
  EXPECT_THROW(parse_schema_name("add junk"), SchemaParseError);
}

struct Malformed {
  std::string schema;
  int column;
  std::string reason;
};

const std::vector<Malformed> kMalformed = {
    {"add.Tensor(Tensr self) -> Tensor", 12, "unknown type 'Tensr'"},
    {"add.Tensor(Tensor self Tensor other) -> Tensor", 24, "expected ',' or ')' after an argument, found 'Tensor'"},
    {"f(Tensor a, Tensor b -> Tensor", 22, "expected ',' or ')' after an argument, found '->'"},
    {"add.Tensor(Tensor self, Tensor self) -> Tensor", 32, "duplicate argument name 'self'"},
    {"f(Tensor a, *, Tensor b, *, Tensor c) -> Tensor", 26, "'*' given twice"},
    {"f(Tensor a, *) -> Tensor", 13, "'*' must be followed by a keyword-only argument"},
    {"f(Tensor a) Tensor", 13, "missing '->'"},
    {"f(Tensor a)", 12, "missing '->' after the arguments, found end of input"},
    {"f(Tensor a) ->", 15, "expected a return type after '->', found end of input"},
    {"f(int(a) x) -> Tensor", 6, "alias annotation on a non-Tensor type 'int'"},
    {"f(Tensor?(a) x) -> Tensor", 10, "alias annotation must come right after the base type"},
    {"f(Tensor(a! self) -> Tensor", 13, "expected ')' to close the alias annotation"},
    {"f(Tensor(!) self) -> Tensor", 10, "expected an alias set name"},
    {"f(int[0] x) -> Tensor", 7, "bad list size '0'"},
    {"f(int[x] a) -> Tensor", 7, "bad list size"},
    {"f(Tensor?? a) -> Tensor", 10, "'?' given twice"},
    {"f(Tensor[][] a) -> Tensor", 11, "nested list types are not supported"},
    {"f(bool x=5) -> Tensor", 10, "default value 5 (an int) does not fit type 'bool'"},
    {"f(Tensor x=3) -> Tensor", 12, "does not fit type 'Tensor'"},
    {"f(Tensor x=None) -> Tensor", 12, "None does not fit type 'Tensor'"},
    {"f(str s=mean) -> Tensor", 9, "does not fit type 'str'"},
    {"f(int[] x=[1, True]) -> Tensor", 15, "True (a bool) does not fit type 'int[]'"},
    {"f(int[] x=[[1]]) -> Tensor", 12, "nested lists are not supported"},
    {"f(int[] x=[None]) -> Tensor", 12, "default value None does not fit type 'int[]'"},
    {"f(float x=+1) -> Tensor", 11, "expected a default value, found '+'"},
    {"f(int[2 x) -> Tensor", 9, "expected ']' after the list size, found 'x'"},
    {"f(Tensor a, * Tensor b) -> Tensor", 15, "expected ',' after '*', found 'Tensor'"},
    {"f(Tensor, int b) -> Tensor", 9, "empty argument name"},
    {"f(Tensor =1) -> Tensor", 10, "empty argument name"},
    {"f(Tensor a) -> Tensor b", 23, "trailing characters after the returns: 'b'"},
    {"f(str s=\"abc) -> Tensor", 9, "unterminated string"},
    {"f(int x=1.5.2) -> Tensor", 9, "invalid number '1.5.2'"},
    {"f(float x=1e) -> Tensor", 11, "invalid number '1e'"},
    {"f(int x=99999999999999999999) -> Tensor", 9, "out of range"},
    {"f(int x=) -> Tensor", 9, "expected a default value, found ')'"},
    {"f(Tensor a,", 12, "expected an argument type, found end of input"},
    {"f(Tensor a,) -> Tensor", 12, "expected an argument type, found ')'"},
    {"f(..., Tensor a) -> Tensor", 6, "'...' must be the last argument"},
    {"f(Tensor a) -> (Tensor x, Tensor x)", 34, "duplicate return name 'x'"},
    {"f(Tensor a) -> (Tensor x=1)", 25, "returns cannot have default values"},
    {"f(Tensor a) -> Tensor(a", 24, "expected ')' to close the alias annotation, found end of input"},
    {"", 1, "expected an operator name, found end of input"},
    {"aten::(Tensor a) -> Tensor", 7, "expected an operator name after '::'"},
    {"add.(Tensor a) -> Tensor", 5, "expected an overload name after '.'"},
    {"add-Tensor(Tensor a) -> Tensor", 4, "expected '(' after the operator name, found '-'"},
};

TEST(SchemaParser, MalformedSchemasReportColumnAndReason) {
  EXPECT_GE(kMalformed.size(), 15u);
  for (const Malformed& m : kMalformed) {
    SCOPED_TRACE(m.schema);
    try {
      parse_schema(m.schema);
      ADD_FAILURE() << "parsed without error";
    } catch (const SchemaParseError& e) {
      EXPECT_EQ(e.column(), m.column) << e.what();
      EXPECT_NE(e.reason().find(m.reason), std::string::npos) << e.what();
      EXPECT_EQ(e.schema(), m.schema);
    }
  }
}

TEST(SchemaParser, ErrorIsAnError) {  // RuntimeError in Python, as torch raises for a bad schema
  EXPECT_THROW(parse_schema("f(Tensr a) -> Tensor"), SchemaParseError);
  EXPECT_THROW(parse_schema("f(Tensr a) -> Tensor"), Error);
}

}  // namespace
}  // namespace glassbox
