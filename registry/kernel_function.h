#pragma once
// KernelFunction: one kernel in a dispatch table, callable both ways.
//  - unboxed: a typed C++ call through one function pointer (no std::function, no allocation,
//    no lock on the call path);
//  - boxed: a call on a Stack of IValues (Python, fallbacks, the trace).
// Every unboxed kernel also gets a boxed entry point generated at registration; a boxed-only
// kernel called unboxed has its arguments boxed on the way in.
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>

#include "engine/core/dispatch_key_set.h"
#include "engine/core/error.h"
#include "registry/boxing.h"
#include "registry/cpp_signature.h"
#include "registry/ivalue.h"

namespace glassbox {

class OperatorHandle;
class KernelFunction;

// The signature of a boxed kernel written by hand: a fallback, or a Python kernel.
using BoxedKernel = void (*)(const OperatorHandle& op, DispatchKeySet keys, Stack* stack);

namespace detail {
using AnyFn = void (*)();
[[noreturn]] void throw_bad_argument(const OperatorHandle& op, size_t index, const std::exception& e);
[[noreturn]] void throw_stack_too_short(const OperatorHandle& op, size_t have, size_t want);
[[noreturn]] void throw_wrong_result_count(const OperatorHandle& op, size_t have, size_t want);
void fallthrough_boxed(const KernelFunction&, const OperatorHandle& op, DispatchKeySet keys, Stack* stack);
}  // namespace detail

class KernelFunction {
 public:
  using BoxedEntry = void (*)(const KernelFunction& self, const OperatorHandle& op, DispatchKeySet keys, Stack* stack);

  KernelFunction() = default;  // no kernel

  // A plain function: Ret f(Args...) or Ret f(DispatchKeySet, Args...).
  template <class Ret, class... Args>
  static KernelFunction from_function(Ret (*f)(Args...));
  // A callable object (a lambda with captures, a functor); stateless lambdas become functions.
  template <class F>
  static KernelFunction from_callable(F&& f);
  // A boxed kernel: fallbacks and Python kernels.
  static KernelFunction from_boxed(BoxedKernel f);
  template <class F>
  static KernelFunction from_boxed_callable(F&& f);
  // Skips this key: the call goes on to the next key below.
  static KernelFunction fallthrough();

  bool valid() const { return boxed_ != nullptr; }
  bool is_fallthrough() const { return boxed_ == &detail::fallthrough_boxed; }
  bool has_unboxed() const { return unboxed_ != nullptr; }

  void call_boxed(const OperatorHandle& op, DispatchKeySet keys, Stack* stack) const { boxed_(*this, op, keys, stack); }

  // Args must be exactly the kernel's parameter types (checked when the typed handle is made).
  template <class Ret, class... Args>
  Ret call(const OperatorHandle& op, DispatchKeySet keys, Args... args) const {
    if (unboxed_) [[likely]] {
      using Fn = Ret (*)(const KernelFunction&, DispatchKeySet, Args...);
      return reinterpret_cast<Fn>(unboxed_)(*this, keys, std::forward<Args>(args)...);
    }
    return call_through_boxed<Ret, Args...>(op, keys, std::forward<Args>(args)...);
  }

  // A copy that does not keep a stateful functor alive (dispatch tables hold these; the
  // registration that owns the functor outlives every table that can reach it).
  KernelFunction unowned() const {
    KernelFunction k = *this;
    k.owner_.reset();
    return k;
  }

  // Built with the kernel, for the registration-time schema check (nullopt for boxed kernels).
  template <class F>
  static std::optional<CppSignature> signature_of();

 private:
  template <class Ret, class... Args>
  Ret call_through_boxed(const OperatorHandle& op, DispatchKeySet keys, Args... args) const;

  template <class FnPtr, bool TakesKeys, class Ret, class... Params>
  static Ret call_function(const KernelFunction& k, DispatchKeySet keys, Params... p) {
    auto f = reinterpret_cast<FnPtr>(k.fn_);
    if constexpr (TakesKeys) return f(keys, std::forward<Params>(p)...);
    else return f(std::forward<Params>(p)...);
  }
  template <class F, bool TakesKeys, class Ret, class... Params>
  static Ret call_functor(const KernelFunction& k, DispatchKeySet keys, Params... p) {
    auto& f = *static_cast<F*>(k.functor_);
    if constexpr (TakesKeys) return f(keys, std::forward<Params>(p)...);
    else return f(std::forward<Params>(p)...);
  }
  // The boxed entry of an unboxed kernel: unbox the arguments, call, box the results.
  template <class Ret, class... Params>
  static void boxed_from_unboxed(const KernelFunction& k, const OperatorHandle& op, DispatchKeySet keys, Stack* stack);
  template <class Sig, class Make>
  static KernelFunction make_unboxed(Make make_entry);

  detail::AnyFn fn_ = nullptr;       // the user's function (from_function, from_boxed)
  void* functor_ = nullptr;          // the user's callable (from_callable)
  detail::AnyFn unboxed_ = nullptr;  // Ret(*)(const KernelFunction&, DispatchKeySet, Args...)
  BoxedEntry boxed_ = nullptr;
  std::shared_ptr<void> owner_;  // keeps functor_ alive
};

// A kernel that redispatches to the next key: register it for a key (or as a fallback) to make
// that key transparent for an operator.
inline KernelFunction fallthrough_kernel() { return KernelFunction::fallthrough(); }

// ---- implementation ------------------------------------------------------------------------

namespace detail {
template <class T>
struct FunctionTraits;
template <class R, class... A>
struct FunctionTraits<R (*)(A...)> {
  using Sig = R(A...);
};
template <class C, class R, class... A>
struct FunctionTraits<R (C::*)(A...) const> {
  using Sig = R(A...);
};
template <class C, class R, class... A>
struct FunctionTraits<R (C::*)(A...)> {
  using Sig = R(A...);
};
template <class F>
using CallableSig = typename FunctionTraits<decltype(&std::remove_cvref_t<F>::operator())>::Sig;

template <class Sig>
struct FnPtrOf;
template <class R, class... A>
struct FnPtrOf<R(A...)> {
  using type = R (*)(A...);
};
}  // namespace detail

template <class Sig, class Make>
KernelFunction KernelFunction::make_unboxed(Make make_entry) {
  using KS = detail::KernelSignature<Sig>;
  KernelFunction k;
  [&]<class... Params>(detail::ArgList<Params...>) {
    using Ret = typename KS::Return;
    k.unboxed_ = reinterpret_cast<detail::AnyFn>(make_entry.template operator()<KS::takes_keys, Ret, Params...>());
    k.boxed_ = &boxed_from_unboxed<Ret, Params...>;
      }(typename KS::Params{});
  return k;
}

template <class Ret, class... Args>
KernelFunction KernelFunction::from_function(Ret (*f)(Args...)) {
  using FnPtr = Ret (*)(Args...);
  KernelFunction k = make_unboxed<Ret(Args...)>(
      []<bool TakesKeys, class R, class... P>() { return &call_function<FnPtr, TakesKeys, R, P...>; });
  k.fn_ = reinterpret_cast<detail::AnyFn>(f);
  return k;
}

template <class F>
KernelFunction KernelFunction::from_callable(F&& f) {
  using D = std::remove_cvref_t<F>;
  using Sig = detail::CallableSig<D>;
  using FnPtr = typename detail::FnPtrOf<Sig>::type;
  if constexpr (std::is_convertible_v<D, FnPtr>) {
    return from_function(static_cast<FnPtr>(f));
  } else {
    KernelFunction k =
        make_unboxed<Sig>([]<bool TakesKeys, class R, class... P>() { return &call_functor<D, TakesKeys, R, P...>; });
    auto owned = std::make_shared<D>(std::forward<F>(f));
    k.functor_ = owned.get();
    k.owner_ = std::move(owned);
    return k;
  }
}

template <class F>
KernelFunction KernelFunction::from_boxed_callable(F&& f) {
  using D = std::remove_cvref_t<F>;
  KernelFunction k;
  auto owned = std::make_shared<D>(std::forward<F>(f));
  k.functor_ = owned.get();
  k.owner_ = std::move(owned);
  k.boxed_ = [](const KernelFunction& self, const OperatorHandle& op, DispatchKeySet keys, Stack* stack) {
    (*static_cast<D*>(self.functor_))(op, keys, stack);
  };
  return k;
}

template <class F>
std::optional<CppSignature> KernelFunction::signature_of() {
  using D = std::remove_cvref_t<F>;
  if constexpr (std::is_pointer_v<D>) {
    return make_cpp_signature<typename detail::FunctionTraits<D>::Sig>();
  } else {
    return make_cpp_signature<detail::CallableSig<D>>();
  }
}

template <class Ret, class... Params>
void KernelFunction::boxed_from_unboxed(const KernelFunction& k, const OperatorHandle& op, DispatchKeySet keys,
                                        Stack* stack) {
  constexpr size_t n = sizeof...(Params);
  if (stack->size() < n) detail::throw_stack_too_short(op, stack->size(), n);
  const size_t base = stack->size() - n;
  using Holders = std::tuple<std::remove_cvref_t<Params>...>;
  // Unboxed values live here during the call; views among them point into *stack.
  auto holders = [&]<size_t... I>(std::index_sequence<I...>) {
    auto unbox = [&]<size_t J>() -> std::tuple_element_t<J, Holders> {
      using H = std::tuple_element_t<J, Holders>;
      try {
        return H(detail::IValueConv<H>::from((*stack)[base + J]));
      } catch (const Error& e) {
        detail::throw_bad_argument(op, J, e);
      }
    };
    return Holders{unbox.template operator()<I>()...};
  }
  (std::index_sequence_for<Params...>{});
  using Fn = Ret (*)(const KernelFunction&, DispatchKeySet, Params...);
  auto fn = reinterpret_cast<Fn>(k.unboxed_);
  auto invoke = [&]<size_t... I>(std::index_sequence<I...>)->Ret {
    return fn(k, keys, static_cast<Params>(std::get<I>(holders))...);
  };
  if constexpr (std::is_void_v<Ret>) {
    invoke(std::index_sequence_for<Params...>{});
    stack->resize(base);
  } else {
    decltype(auto) result = invoke(std::index_sequence_for<Params...>{});
    Stack results;
    detail::push_result(results, result);
    stack->resize(base);
    for (auto& r : results) stack->push_back(std::move(r));
  }
}

namespace detail {
template <class A>
Tensor* as_mutable_tensor(A& a) {
  if constexpr (std::is_same_v<A, Tensor>) return &a;
  else return nullptr;
}
}  // namespace detail

template <class Ret, class... Args>
Ret KernelFunction::call_through_boxed(const OperatorHandle& op, DispatchKeySet keys, Args... args) const {
  Stack stack;
  stack.reserve(sizeof...(Args));
  (stack.push_back(detail::box(args)), ...);
  boxed_(*this, op, keys, &stack);
  if constexpr (std::is_lvalue_reference_v<Ret>) {
    // In-place and out= operators return the Tensor& they were given.
    Tensor* self = nullptr;
    ((self = self ? self : (std::is_same_v<Args, Tensor&> ? detail::as_mutable_tensor(args) : nullptr)), ...);
    if (!self) detail::throw_wrong_result_count(op, stack.size(), 1);
    return *self;
  } else {
    constexpr size_t want = detail::num_results<Ret>();
    if (stack.size() != want) detail::throw_wrong_result_count(op, stack.size(), want);
    if constexpr (!std::is_void_v<Ret>) return detail::pop_result<Ret>(stack);
  }
}

}  // namespace glassbox
