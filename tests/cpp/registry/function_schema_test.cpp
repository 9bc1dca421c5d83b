#include <gtest/gtest.h>

#include <string>
#include <unordered_set>

#include "registry/function_schema.h"
#include "registry/operator_name.h"

namespace glassbox {
namespace {

SchemaType list_of(BaseType base, std::optional<int64_t> size = std::nullopt) {
  SchemaType t;
  t.base = base;
  t.is_list = true;
  t.fixed_size = size;
  return t;
}

TEST(FunctionSchema, BaseTypeNames) {
  EXPECT_EQ(to_string(BaseType::Tensor), "Tensor");
  EXPECT_EQ(to_string(BaseType::Int), "int");
  EXPECT_EQ(to_string(BaseType::SymInt), "SymInt");
  EXPECT_EQ(to_string(BaseType::Float), "float");
  EXPECT_EQ(to_string(BaseType::Bool), "bool");
  EXPECT_EQ(to_string(BaseType::Str), "str");
  EXPECT_EQ(to_string(BaseType::Scalar), "Scalar");
  EXPECT_EQ(to_string(BaseType::ScalarType), "ScalarType");
  EXPECT_EQ(to_string(BaseType::Device), "Device");
  EXPECT_EQ(to_string(BaseType::Layout), "Layout");
  EXPECT_EQ(to_string(BaseType::MemoryFormat), "MemoryFormat");
  EXPECT_EQ(to_string(BaseType::Generator), "Generator");
}

TEST(FunctionSchema, SchemaTypeToString) {
  EXPECT_EQ(SchemaType{}.to_string(), "Tensor");
  SchemaType opt;
  opt.optional = true;
  EXPECT_EQ(opt.to_string(), "Tensor?");
  EXPECT_EQ(list_of(BaseType::Int).to_string(), "int[]");
  EXPECT_EQ(list_of(BaseType::SymInt, 2).to_string(), "SymInt[2]");
  SchemaType opt_list = list_of(BaseType::Int, 1);
  opt_list.optional = true;
  EXPECT_EQ(opt_list.to_string(), "int[1]?");
  SchemaType opt_elems = list_of(BaseType::Tensor);
  opt_elems.element_optional = true;
  EXPECT_EQ(opt_elems.to_string(), "Tensor?[]");
  opt_elems.optional = true;
  EXPECT_EQ(opt_elems.to_string(), "Tensor?[]?");
}

TEST(FunctionSchema, AliasInfoToString) {
  EXPECT_EQ((AliasInfo{{"a"}, {}, false}).to_string(), "(a)");
  EXPECT_EQ((AliasInfo{{"a"}, {}, true}).to_string(), "(a!)");
  EXPECT_EQ((AliasInfo{{"a"}, {"*"}, false}).to_string(), "(a -> *)");
  EXPECT_EQ((AliasInfo{{"a", "b"}, {}, false}).to_string(), "(a|b)");
  EXPECT_EQ((AliasInfo{{"a"}, {"a", "b"}, true}).to_string(), "(a! -> a|b)");
}

// Builds add.out by hand and checks the printer, including the '*' marker and alias placement.
TEST(FunctionSchema, PrintsHandBuiltSchema) {
  FunctionSchema s;
  s.name = {"aten", "add", "out"};
  s.arguments.push_back({"self", SchemaType{}, std::nullopt, std::nullopt, false});
  s.arguments.push_back({"other", SchemaType{}, std::nullopt, std::nullopt, false});
  SchemaType scalar;
  scalar.base = BaseType::Scalar;
  s.arguments.push_back({"alpha", scalar, std::nullopt, DefaultValue{DefaultValue::Kind::Int, "1"}, true});
  s.arguments.push_back({"out", SchemaType{}, AliasInfo{{"a"}, {}, true}, std::nullopt, true});
  s.returns.push_back({"", SchemaType{}, AliasInfo{{"a"}, {}, true}});
  EXPECT_EQ(s.to_string(),
            "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> "
            "Tensor(a!)");
  EXPECT_TRUE(s.is_mutable());
  EXPECT_EQ(parse_schema(s.to_string()), s);
}

TEST(FunctionSchema, AliasGoesBetweenBaseTypeAndSuffixes) {
  FunctionSchema s;
  s.name = {"", "f", ""};
  SchemaType list = list_of(BaseType::Tensor);
  SchemaType opt;
  opt.optional = true;
  s.arguments.push_back({"xs", list, AliasInfo{{"a"}, {}, true}, std::nullopt, false});
  s.arguments.push_back({"y", opt, AliasInfo{{"b"}, {}, true}, std::nullopt, false});
  s.returns.push_back({"", list, AliasInfo{{"a"}, {}, false}});
  EXPECT_EQ(s.to_string(), "f(Tensor(a!)[] xs, Tensor(b!)? y) -> Tensor(a)[]");
  EXPECT_EQ(parse_schema(s.to_string()), s);
}

TEST(FunctionSchema, ReturnsPrinting) {
  FunctionSchema s;
  s.name = {"", "f", ""};
  EXPECT_EQ(s.to_string(), "f() -> ()");
  s.returns.push_back({"out", SchemaType{}, std::nullopt});
  // A lone named return keeps its parentheses so the name survives a round trip.
  EXPECT_EQ(s.to_string(), "f() -> (Tensor out)");
  EXPECT_EQ(parse_schema(s.to_string()), s);
  s.returns[0].name.clear();
  EXPECT_EQ(s.to_string(), "f() -> Tensor");
  s.returns.push_back({"", list_of(BaseType::Int), std::nullopt});
  EXPECT_EQ(s.to_string(), "f() -> (Tensor, int[])");
  s.is_varret = true;
  EXPECT_EQ(s.to_string(), "f() -> (Tensor, int[], ...)");
  s.returns.clear();
  EXPECT_EQ(s.to_string(), "f() -> ...");
  s.is_vararg = true;
  EXPECT_EQ(s.to_string(), "f(...) -> ...");
}

TEST(FunctionSchema, IsMutable) {
  EXPECT_TRUE(parse_schema("add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)").is_mutable());
  EXPECT_TRUE(parse_schema("f(Tensor(a!)[] self) -> ()").is_mutable());
  EXPECT_FALSE(parse_schema("transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)").is_mutable());
  EXPECT_FALSE(parse_schema("f() -> Tensor(a!)").is_mutable());
}

TEST(FunctionSchema, RoundTripOfNonCanonicalInput) {
  const char* inputs[] = {
      "f( Tensor(a->*)self , int[ 2 ]stride=[1,1] ,*, str s = 'x' )->( Tensor(a) [ ] r )",
      "  aten::max.dim(Tensor self,int dim,bool keepdim=False)->(Tensor values,Tensor indices) ",
      "f(float x=-.5, Tensor? y = None)->()",
  };
  for (const char* input : inputs) {
    SCOPED_TRACE(input);
    const FunctionSchema s = parse_schema(input);
    const std::string printed = s.to_string();
    EXPECT_EQ(parse_schema(printed), s);
    EXPECT_EQ(parse_schema(printed).to_string(), printed);
  }
}

TEST(FunctionSchema, ParseErrorMessageLayout) {
  try {
    parse_schema("add.Tensor(Tensor self Tensor other) -> Tensor");
    FAIL() << "expected a SchemaParseError";
  } catch (const SchemaParseError& e) {
    EXPECT_EQ(e.column(), 24);
    EXPECT_EQ(std::string(e.what()),
              "schema error at column 24: expected ',' or ')' after an argument, found 'Tensor'\n"
              "  add.Tensor(Tensor self Tensor other) -> Tensor\n"
              "                         ^");
  }
  const SchemaParseError end("missing '->' after the arguments, found end of input", "f()", 4);
  EXPECT_EQ(std::string(end.what()),
            "schema error at column 4: missing '->' after the arguments, found end of input\n"
            "  f()\n"
            "     ^");
  EXPECT_EQ(end.reason(), "missing '->' after the arguments, found end of input");
  EXPECT_EQ(end.schema(), "f()");
}

TEST(OperatorName, Full) {
  EXPECT_EQ((OperatorName{"aten", "add", "Tensor"}).full(), "aten::add.Tensor");
  EXPECT_EQ((OperatorName{"aten", "relu", ""}).full(), "aten::relu");
  EXPECT_EQ((OperatorName{"", "add", "out"}).full(), "add.out");
  EXPECT_EQ((OperatorName{"", "cat", ""}).full(), "cat");
}

TEST(OperatorName, Parse) {
  EXPECT_EQ(OperatorName::parse("aten::add.Tensor"), (OperatorName{"aten", "add", "Tensor"}));
  EXPECT_EQ(OperatorName::parse("myops::my_relu"), (OperatorName{"myops", "my_relu", ""}));
  EXPECT_EQ(OperatorName::parse("sum.dim_IntList"), (OperatorName{"", "sum", "dim_IntList"}));
  EXPECT_EQ(OperatorName::parse("__and__"), (OperatorName{"", "__and__", ""}));
  for (const char* name : {"aten::add.Tensor", "relu", "add.out", "_foo", "glassbox::x2.y_3"})
    EXPECT_EQ(OperatorName::parse(name).full(), name);
}

TEST(OperatorName, ParseRejectsBadText) {
  for (const char* bad : {"", "aten::", "::add", "add.", ".out", "a::b::c", "add.Tensor.x", "1add", "add-x",
                          "aten::add (", " add", "add.Tensor(Tensor self) -> Tensor"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(OperatorName::parse(bad), Error);
  }
  try {
    OperatorName::parse("aten::");
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'aten::'"), std::string::npos) << e.what();
  }
}

TEST(OperatorName, HashAndEquality) {
  std::unordered_set<OperatorName> names = {OperatorName::parse("aten::add.Tensor"), OperatorName::parse("aten::add"),
                                            OperatorName::parse("add.Tensor")};
  EXPECT_EQ(names.size(), 3u);
  EXPECT_TRUE(names.contains(OperatorName{"aten", "add", "Tensor"}));
  EXPECT_FALSE(names.contains(OperatorName{"aten", "add", "out"}));
}

}  // namespace
}  // namespace glassbox
