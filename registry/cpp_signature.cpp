#include "registry/cpp_signature.h"

namespace glassbox {

namespace {
std::string join_names(const std::vector<CppArgType>& v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + v[i].cpp_name;
  return out;
}

bool base_matches(BaseType schema, BaseType cpp) {
  if (schema == BaseType::SymInt) schema = BaseType::Int;
  return schema == cpp;
}

// Empty when the C++ type can carry the schema type.
std::string type_mismatch(const SchemaType& t, const std::optional<AliasInfo>& alias, const CppArgType& c) {
  if (!base_matches(t.base, c.base) || t.is_list != c.is_list || t.optional != c.optional ||
      (t.is_list && t.element_optional != c.element_optional))
    return "the schema says " + t.to_string() + ", the kernel takes " + c.cpp_name;
  if (c.mutable_ref && !(alias && alias->is_write))
    return "the kernel takes " + c.cpp_name + " (mutable) but the schema does not mark it written, e.g. Tensor(a!)";
  return {};
}
}  // namespace

std::string CppSignature::call_string() const {
  const std::string ret = returns.empty()       ? "void"
                          : returns.size() == 1 ? returns[0].cpp_name
                                                : "std::tuple<" + join_names(returns) + ">";
  return ret + " (" + join_names(args) + ")";
}

std::string CppSignature::to_string() const {
  if (!takes_dispatch_key_set) return call_string();
  std::string s = call_string();
  const size_t open = s.find(" (");
  return s.insert(open + 2, args.empty() ? "DispatchKeySet" : "DispatchKeySet, ");
}

std::string signature_mismatch(const CppSignature& sig, const FunctionSchema& schema) {
  if (schema.is_vararg || schema.is_varret) return {};  // `...` schemas take boxed kernels of any shape
  if (sig.args.size() != schema.arguments.size())
    return "the schema has " + std::to_string(schema.arguments.size()) + " arguments, the kernel takes " +
           std::to_string(sig.args.size());
  for (size_t i = 0; i < sig.args.size(); ++i) {
    const Argument& a = schema.arguments[i];
    std::string why = type_mismatch(a.type, a.alias, sig.args[i]);
    if (!why.empty()) return "argument " + std::to_string(i + 1) + " '" + a.name + "': " + why;
  }
  if (sig.returns.size() != schema.returns.size())
    return "the schema has " + std::to_string(schema.returns.size()) + " returns, the kernel returns " +
           std::to_string(sig.returns.size());
  for (size_t i = 0; i < sig.returns.size(); ++i) {
    const Return& r = schema.returns[i];
    CppArgType c = sig.returns[i];
    c.mutable_ref = false;  // a Tensor& return is how in-place operators hand back self
    std::string why = type_mismatch(r.type, r.alias, c);
    if (!why.empty()) return "return " + std::to_string(i + 1) + ": " + why;
  }
  return {};
}

}  // namespace glassbox
