#pragma once
// What a kernel's C++ signature says in schema terms, so that a kernel can be checked against its
// operator's schema when it is registered (not when it is first called).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "engine/core/array_ref.h"
#include "engine/core/device.h"
#include "engine/core/dispatch_key_set.h"
#include "engine/core/scalar.h"
#include "engine/core/scalar_type.h"
#include "engine/core/tensor.h"
#include "registry/function_schema.h"

namespace glassbox {

using IntArrayRef = ArrayRef<int64_t>;
using TensorList = ArrayRef<Tensor>;
using OptionalTensorList = ArrayRef<std::optional<Tensor>>;  // Tensor?[]

// One C++ parameter or return, described in schema terms.
struct CppArgType {
  BaseType base = BaseType::Tensor;
  bool is_list = false;
  bool optional = false;
  bool element_optional = false;  // a list of optional elements (Tensor?[])
  bool mutable_ref = false;       // Tensor& (an in-place or out= argument)
  std::string cpp_name;           // "const Tensor&", "IntArrayRef", "std::optional<double>"
};

struct CppSignature {
  std::vector<CppArgType> args;
  std::vector<CppArgType> returns;  // empty for void
  bool takes_dispatch_key_set = false;

  // "Tensor (DispatchKeySet, const Tensor&, const Scalar&)": the kernel as written.
  std::string to_string() const;
  // The same without a leading DispatchKeySet: how callers call it. Kernels of one operator (and
  // the typed handles that call them) must agree on this.
  std::string call_string() const;
};

// Empty when the signature fits the schema, else what does not fit (argument index and name,
// schema type and C++ type).
std::string signature_mismatch(const CppSignature& sig, const FunctionSchema& schema);

namespace detail {

template <class D>
struct BaseTraits {
  static_assert(sizeof(D) == 0,
                "glassbox: this C++ type has no schema type. Use Tensor, int64_t, double, bool, Scalar, "
                "std::string/std::string_view, ScalarType, Device, IntArrayRef/std::vector<int64_t>, "
                "std::span<const double>/std::vector<double>, TensorList/std::vector<Tensor>, "
                "OptionalTensorList/std::vector<std::optional<Tensor>>, or std::optional of those");
};
#define GB_BASE_TRAITS(TYPE, BASE, LIST, NAME)       \
  template <>                                        \
  struct BaseTraits<TYPE> {                          \
    static constexpr BaseType base = BaseType::BASE; \
    static constexpr bool is_list = LIST;            \
    static constexpr bool optional = false;          \
    static constexpr bool element_optional = false;  \
    static std::string name() { return NAME; }       \
  };
GB_BASE_TRAITS(Tensor, Tensor, false, "Tensor")
GB_BASE_TRAITS(int64_t, Int, false, "int64_t")
GB_BASE_TRAITS(double, Float, false, "double")
GB_BASE_TRAITS(bool, Bool, false, "bool")
GB_BASE_TRAITS(Scalar, Scalar, false, "Scalar")
GB_BASE_TRAITS(std::string, Str, false, "std::string")
GB_BASE_TRAITS(std::string_view, Str, false, "std::string_view")
GB_BASE_TRAITS(ScalarType, ScalarType, false, "ScalarType")
GB_BASE_TRAITS(Device, Device, false, "Device")
GB_BASE_TRAITS(std::vector<int64_t>, Int, true, "std::vector<int64_t>")
GB_BASE_TRAITS(IntArrayRef, Int, true, "IntArrayRef")
GB_BASE_TRAITS(std::vector<double>, Float, true, "std::vector<double>")
GB_BASE_TRAITS(std::span<const double>, Float, true, "std::span<const double>")
GB_BASE_TRAITS(ArrayRef<double>, Float, true, "ArrayRef<double>")
GB_BASE_TRAITS(std::vector<Tensor>, Tensor, true, "std::vector<Tensor>")
GB_BASE_TRAITS(TensorList, Tensor, true, "TensorList")
#undef GB_BASE_TRAITS

// Tensor?[]: a list whose elements may be None.
struct OptionalTensorListTraits {
  static constexpr BaseType base = BaseType::Tensor;
  static constexpr bool is_list = true;
  static constexpr bool optional = false;
  static constexpr bool element_optional = true;
};
template <>
struct BaseTraits<OptionalTensorList> : OptionalTensorListTraits {
  static std::string name() { return "OptionalTensorList"; }
};
template <>
struct BaseTraits<std::vector<std::optional<Tensor>>> : OptionalTensorListTraits {
  static std::string name() { return "std::vector<std::optional<Tensor>>"; }
};

template <class D>
struct BaseTraits<std::optional<D>> {
  static constexpr BaseType base = BaseTraits<D>::base;
  static constexpr bool is_list = BaseTraits<D>::is_list;
  static constexpr bool optional = true;
  static constexpr bool element_optional = BaseTraits<D>::element_optional;
  static std::string name() { return "std::optional<" + BaseTraits<D>::name() + ">"; }
};

// A parameter type as written: by value, const&, or Tensor& (mutable).
template <class T>
CppArgType describe_arg() {
  using D = std::remove_cvref_t<T>;
  constexpr bool lref = std::is_lvalue_reference_v<T>;
  constexpr bool is_const = std::is_const_v<std::remove_reference_t<T>>;
  static_assert(!std::is_rvalue_reference_v<T>, "glassbox: kernels take arguments by value or by const&");
  static_assert(!lref || is_const || std::is_same_v<D, Tensor>,
                "glassbox: only Tensor may be taken by non-const reference (an in-place or out= argument)");
  CppArgType a;
  a.base = BaseTraits<D>::base;
  a.is_list = BaseTraits<D>::is_list;
  a.optional = BaseTraits<D>::optional;
  a.element_optional = BaseTraits<D>::element_optional;
  a.mutable_ref = lref && !is_const;
  a.cpp_name = (is_const && lref ? "const " : "") + BaseTraits<D>::name() + (lref ? "&" : "");
  return a;
}

template <class R>
struct ReturnTraits {
  static std::vector<CppArgType> describe() { return {describe_arg<R>()}; }
};
template <>
struct ReturnTraits<void> {
  static std::vector<CppArgType> describe() { return {}; }
};
template <class... Rs>
struct ReturnTraits<std::tuple<Rs...>> {
  static std::vector<CppArgType> describe() { return {describe_arg<Rs>()...}; }
};

template <class... Args>
struct ArgList {};

// Splits off a leading DispatchKeySet parameter (kernels that redispatch take one).
template <class Sig>
struct KernelSignature;
template <class R, class... Args>
struct KernelSignature<R(Args...)> {
  using Return = R;
  using Params = ArgList<Args...>;
  static constexpr bool takes_keys = false;
  using Schema = R(Args...);
};
template <class R, class... Args>
struct KernelSignature<R(DispatchKeySet, Args...)> {
  using Return = R;
  using Params = ArgList<Args...>;
  static constexpr bool takes_keys = true;
  using Schema = R(Args...);
};

}  // namespace detail

// The schema-facing signature of a function type R(Args...) (without a leading DispatchKeySet).
template <class FuncType>
CppSignature make_cpp_signature() {
  using KS = detail::KernelSignature<FuncType>;
  CppSignature sig;
  sig.takes_dispatch_key_set = KS::takes_keys;
  sig.returns = detail::ReturnTraits<typename KS::Return>::describe();
  [&]<class... Args>(detail::ArgList<Args...>) { sig.args = {detail::describe_arg<Args>()...}; }(typename KS::Params{});
  return sig;
}

}  // namespace glassbox
