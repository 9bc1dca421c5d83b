#pragma once
// Moving C++ values onto and off an IValue stack, for every type a kernel may take or return.
// Views (IntArrayRef, TensorList, std::string_view) unboxed from a stack point into it.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "registry/cpp_signature.h"
#include "registry/ivalue.h"

namespace glassbox::detail {

template <class D>
struct IValueConv {
  static IValue to(const D& v) { return IValue(v); }
};
template <>
struct IValueConv<Tensor> {
  static IValue to(const Tensor& t) { return IValue(t); }
  static const Tensor& from(IValue& v) { return v.to_tensor(); }
};
template <>
struct IValueConv<int64_t> {
  static IValue to(int64_t v) { return IValue(v); }
  static int64_t from(IValue& v) { return v.to_int(); }
};
template <>
struct IValueConv<double> {
  static IValue to(double v) { return IValue(v); }
  static double from(IValue& v) { return v.to_double(); }
};
template <>
struct IValueConv<bool> {
  static IValue to(bool v) { return IValue(v); }
  static bool from(IValue& v) { return v.to_bool(); }
};
template <>
struct IValueConv<Scalar> {
  static IValue to(const Scalar& v) { return IValue(v); }
  static Scalar from(IValue& v) { return v.to_scalar(); }
};
template <>
struct IValueConv<std::string> {
  static IValue to(const std::string& v) { return IValue(v); }
  static const std::string& from(IValue& v) { return v.to_string_ref(); }
};
template <>
struct IValueConv<std::string_view> {
  static IValue to(std::string_view v) { return IValue(std::string(v)); }
  static std::string_view from(IValue& v) { return v.to_string_ref(); }
};
template <>
struct IValueConv<ScalarType> {
  static IValue to(ScalarType v) { return IValue(v); }
  static ScalarType from(IValue& v) { return v.to_scalar_type(); }
};
template <>
struct IValueConv<Device> {
  static IValue to(Device v) { return IValue(v); }
  static Device from(IValue& v) { return v.to_device(); }
};
template <class T, class Owned>
struct ListConv {
  static IValue to(std::span<const T> v) { return IValue(Owned(v.begin(), v.end())); }
  static const Owned& owned(IValue& v) {
    if constexpr (std::is_same_v<T, int64_t>) return v.to_int_list();
    else if constexpr (std::is_same_v<T, double>) return v.to_double_list();
    else return v.to_tensor_list();
  }
};
template <class T>
struct IValueConv<std::vector<T>> : ListConv<T, std::vector<T>> {
  static const std::vector<T>& from(IValue& v) { return ListConv<T, std::vector<T>>::owned(v); }
};
template <class T>
struct IValueConv<std::span<const T>> : ListConv<T, std::vector<T>> {
  static std::span<const T> from(IValue& v) { return ListConv<T, std::vector<T>>::owned(v); }
};
template <class T>
struct IValueConv<ArrayRef<T>> : ListConv<T, std::vector<T>> {
  static IValue to(ArrayRef<T> v) { return ListConv<T, std::vector<T>>::to(v); }
  static ArrayRef<T> from(IValue& v) { return ListConv<T, std::vector<T>>::owned(v); }
};
// Tensor?[]: the stack holds an owned vector of optional tensors; kernels get a view of it.
template <>
struct IValueConv<std::vector<std::optional<Tensor>>> {
  static IValue to(std::span<const std::optional<Tensor>> v) {
    return IValue(std::vector<std::optional<Tensor>>(v.begin(), v.end()));
  }
  static const std::vector<std::optional<Tensor>>& from(IValue& v) { return v.to_optional_tensor_list(); }
};
template <>
struct IValueConv<OptionalTensorList> {
  static IValue to(OptionalTensorList v) { return IValueConv<std::vector<std::optional<Tensor>>>::to(v); }
  static OptionalTensorList from(IValue& v) { return v.to_optional_tensor_list(); }
};
template <class D>
struct IValueConv<std::optional<D>> {
  static IValue to(const std::optional<D>& v) { return v ? IValueConv<D>::to(*v) : IValue(); }
  static std::optional<D> from(IValue& v) {
    if (v.is_none()) return std::nullopt;
    return D(IValueConv<D>::from(v));
  }
};

template <class T>
IValue box(const T& v) {
  return IValueConv<std::remove_cvref_t<T>>::to(v);
}

// Pushes a kernel's result(s) onto the stack.
template <class R>
void push_result(Stack& stack, R&& r) {
  using D = std::remove_cvref_t<R>;
  if constexpr (requires { std::tuple_size<D>::value; }) {
    std::apply([&](auto&&... e) { (stack.push_back(box(e)), ...); }, r);
  } else {
    stack.push_back(box(r));
  }
}

// Reads a result of type R from stack[0...] (after a boxed kernel ran).
template <class R>
R pop_result(Stack& stack) {
  using D = std::remove_cvref_t<R>;
  if constexpr (requires { std::tuple_size<D>::value; }) {
    return [&]<size_t... I>(std::index_sequence<I...>) {
      return D(
          std::tuple_element_t<I, D>(IValueConv<std::remove_cvref_t<std::tuple_element_t<I, D>>>::from(stack[I]))...);
    }
    (std::make_index_sequence<std::tuple_size_v<D>>{});
  } else {
    return D(IValueConv<D>::from(stack[0]));
  }
}

template <class R>
constexpr size_t num_results() {
  using D = std::remove_cvref_t<R>;
  if constexpr (std::is_void_v<R>) return 0;
  else if constexpr (requires { std::tuple_size<D>::value; }) return std::tuple_size_v<D>;
  else return 1;
}

}  // namespace glassbox::detail
