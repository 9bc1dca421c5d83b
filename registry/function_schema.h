#pragma once
// FunctionSchema: the typed signature of an operator, parsed from the schema language
//   ns::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
// Printing round-trips: parse_schema(to_string(s)) == s.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "engine/core/error.h"
#include "registry/operator_name.h"

namespace glassbox {

// The element types of the schema language.
enum class BaseType : uint8_t {
  Tensor,
  Int,
  SymInt,
  Float,
  Bool,
  Str,
  Scalar,
  ScalarType,
  Device,
  Layout,
  MemoryFormat,
  Generator,
};
std::string_view to_string(BaseType t);

// A schema type: a base type, optionally a list (`int[]`, `int[2]`), optionally optional
// (`Tensor?`, `int[]?`), with optional elements (`Tensor?[]`).
struct SchemaType {
  BaseType base = BaseType::Tensor;
  bool element_optional = false;  // Tensor?[]  (only meaningful for lists)
  bool is_list = false;
  std::optional<int64_t> fixed_size;  // int[2]
  bool optional = false;              // T? or T[]?

  std::string to_string() const;
  bool operator==(const SchemaType&) const = default;
};

// Tensor(a), Tensor(a!), Tensor(a -> *): which alias set a tensor belongs to, and whether the
// operator writes to it.
struct AliasInfo {
  std::vector<std::string> before_sets;  // "a" (or "a|b")
  std::vector<std::string> after_sets;   // after "->", e.g. "*"
  bool is_write = false;

  std::string to_string() const;  // "(a!)"
  bool operator==(const AliasInfo&) const = default;
};

// A default value as it was written (`1`, `-1`, `1e-05`, `True`, `None`, `"mean"`, `[0, 1]`,
// `Mean`, `contiguous_format`); `kind` tells how to read `text`.
struct DefaultValue {
  enum class Kind : uint8_t { None, Bool, Int, Float, String, List, Identifier } kind = Kind::None;
  std::string text;  // canonical spelling, printed back as is
  bool operator==(const DefaultValue&) const = default;
};

struct Argument {
  std::string name;
  SchemaType type;
  std::optional<AliasInfo> alias;
  std::optional<DefaultValue> default_value;
  bool kwarg_only = false;

  bool is_out() const { return alias && alias->is_write; }
  bool operator==(const Argument&) const = default;
};

struct Return {
  std::string name;  // empty when unnamed
  SchemaType type;
  std::optional<AliasInfo> alias;
  bool operator==(const Return&) const = default;
};

struct FunctionSchema {
  OperatorName name;
  std::vector<Argument> arguments;
  std::vector<Return> returns;
  bool is_vararg = false;  // `...` in the arguments
  bool is_varret = false;  // `...` in the returns

  // "ns::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
  std::string to_string() const;
  // True when some argument is written to (Tensor(a!)).
  bool is_mutable() const;
  bool operator==(const FunctionSchema&) const = default;
};

// A schema that does not parse. what() reads
//   schema error at column 24: expected ',' or ')' after an argument, found 'Tensor'
//     add.Tensor(Tensor self Tensor other) -> Tensor
//                            ^
class SchemaParseError : public Error {
 public:
  SchemaParseError(std::string message, std::string schema, int column);
  const std::string& reason() const { return reason_; }
  const std::string& schema() const { return schema_; }
  int column() const { return column_; }  // 1-based

 private:
  std::string reason_;
  std::string schema_;
  int column_;
};

// Parses a full schema "ns::name.overload(args) -> returns". A schema without "->" is an error.
FunctionSchema parse_schema(std::string_view text);
// The name part "ns::name.overload" of either a full schema (which must then parse whole) or a bare
// operator name; used by def("name") without a schema. Throws SchemaParseError.
OperatorName parse_schema_name(std::string_view text);

}  // namespace glassbox
