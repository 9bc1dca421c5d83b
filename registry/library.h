#pragma once
// Library: the registration API of one GLASSBOX_LIBRARY / _FRAGMENT / _IMPL block.
//
//   GLASSBOX_LIBRARY(myops, m) {                 // defines namespace myops (once per process)
//     m.def("scale(Tensor self, float factor) -> Tensor");
//   }
//   GLASSBOX_LIBRARY_IMPL(myops, CPU, m) {       // kernels for one dispatch key
//     m.impl("scale", &scale_cpu);
//   }
//   GLASSBOX_LIBRARY_IMPL(_, Trace, m) {         // a fallback for every operator
//     m.fallback(&trace_fallback);
//   }
//
// The blocks run from static initialisers. Every def/impl/fallback records the file:line it was
// written at, and the Library deregisters all of it when destroyed (e.g. on dlclose).
#include <optional>
#include <source_location>
#include <string>
#include <string_view>
#include <vector>

#include "registry/dispatcher.h"

namespace glassbox {

class Library {
 public:
  enum class Kind { DEF, FRAGMENT, IMPL };

  // file/line: where the block is (the macros pass __FILE__ and __LINE__).
  Library(Kind kind, std::string ns, std::optional<DispatchKey> key, const char* file, uint32_t line);
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  Library(Library&&) = default;
  Library& operator=(Library&&) = default;
  ~Library() = default;

  // Defines an operator: "name.overload(args) -> returns" (the namespace is the library's).
  Library& def(std::string_view schema, std::vector<std::string> tags = {},
               std::source_location where = std::source_location::current());

  // Registers a kernel. In an IMPL block it serves the block's key; in a DEF/FRAGMENT block it
  // is a CompositeImplicitAutograd ("math") kernel, unless a key is given.
  template <class F>
  Library& impl(std::string_view op, F&& kernel, std::source_location where = std::source_location::current()) {
    return impl_kernel(op, std::nullopt, make(std::forward<F>(kernel)), signature<F>(), where);
  }
  template <class F>
  Library& impl(std::string_view op, DispatchKey key, F&& kernel,
                std::source_location where = std::source_location::current()) {
    return impl_kernel(op, key, make(std::forward<F>(kernel)), signature<F>(), where);
  }

  // A boxed kernel for every operator at this block's key (IMPL blocks only).
  template <class F>
  Library& fallback(F&& kernel, std::source_location where = std::source_location::current()) {
    return fallback_kernel(make_boxed(std::forward<F>(kernel)), where);
  }

  Kind kind() const { return kind_; }
  const std::string& ns() const { return ns_; }
  std::optional<DispatchKey> key() const { return key_; }
  const std::string& debug() const { return debug_; }  // "file:line" of the block

 private:
  template <class F>
  static KernelFunction make(F&& f) {
    using D = std::decay_t<F>;  // a function name decays to a function pointer
    if constexpr (std::is_same_v<D, KernelFunction>) return f;
    else if constexpr (std::is_pointer_v<D>) return KernelFunction::from_function(static_cast<D>(f));
    else return KernelFunction::from_callable(std::forward<F>(f));
  }
  template <class F>
  static std::optional<CppSignature> signature() {
    if constexpr (std::is_same_v<std::decay_t<F>, KernelFunction>) return std::nullopt;
    else return KernelFunction::signature_of<std::decay_t<F>>();
  }
  template <class F>
  static KernelFunction make_boxed(F&& f) {
    using D = std::remove_cvref_t<F>;
    if constexpr (std::is_same_v<D, KernelFunction>) return f;
    else if constexpr (std::is_convertible_v<D, BoxedKernel>) return KernelFunction::from_boxed(f);
    else return KernelFunction::from_boxed_callable(std::forward<F>(f));
  }

  Library& impl_kernel(std::string_view op, std::optional<DispatchKey> key, KernelFunction kernel,
                       std::optional<CppSignature> sig, const std::source_location& where);
  Library& fallback_kernel(KernelFunction kernel, const std::source_location& where);
  OperatorName qualify(std::string_view op, const std::string& where) const;
  std::string block_name() const;  // "GLASSBOX_LIBRARY_IMPL(myops, CPU)"

  Kind kind_;
  std::string ns_;
  std::optional<DispatchKey> key_;
  std::string debug_;
  std::vector<RegistrationHandle> registrations_;
};

// "file:line" of a source location (file names are repo-relative in glassbox's own build).
std::string debug_string(const std::source_location& where);

namespace detail {
// Runs a block's body at static-initialisation time. Errors cannot propagate out of a static
// initialiser (or out of dlopen), so they are reported and kept in Dispatcher::load_errors().
class LibraryInitializer {
 public:
  LibraryInitializer(Library::Kind kind, const char* ns, std::optional<DispatchKey> key, void (*body)(Library&),
                     const char* file, uint32_t line);

 private:
  std::optional<Library> library_;
};
}  // namespace detail

}  // namespace glassbox

#define GLASSBOX_CONCAT_INNER(a, b) a##b
#define GLASSBOX_CONCAT(a, b) GLASSBOX_CONCAT_INNER(a, b)

// The symbol names are part of the interface: tools find blocks in a binary by them
// (glassbox_library_init_<ns>, glassbox_library_fragment_init_<ns>_<n>,
// glassbox_library_impl_init_<ns>_<key>_<n>).
#define GLASSBOX_LIBRARY(ns, m)                                                                            \
  static void glassbox_library_init_##ns(::glassbox::Library&);                                            \
  static const ::glassbox::detail::LibraryInitializer glassbox_library_static_init_##ns(                   \
      ::glassbox::Library::Kind::DEF, #ns, std::nullopt, &glassbox_library_init_##ns, __FILE__, __LINE__); \
  void glassbox_library_init_##ns(::glassbox::Library& m)

#define GLASSBOX_LIBRARY_FRAGMENT(ns, m) GLASSBOX_LIBRARY_FRAGMENT_UID(ns, m, __COUNTER__)
#define GLASSBOX_LIBRARY_FRAGMENT_UID(ns, m, uid)                                                                    \
  static void GLASSBOX_CONCAT(glassbox_library_fragment_init_##ns##_, uid)(::glassbox::Library&);                    \
  static const ::glassbox::detail::LibraryInitializer GLASSBOX_CONCAT(glassbox_library_fragment_static_init_##ns##_, \
                                                                      uid)(                                          \
      ::glassbox::Library::Kind::FRAGMENT, #ns, std::nullopt,                                                        \
      &GLASSBOX_CONCAT(glassbox_library_fragment_init_##ns##_, uid), __FILE__, __LINE__);                            \
  void GLASSBOX_CONCAT(glassbox_library_fragment_init_##ns##_, uid)(::glassbox::Library & m)

#define GLASSBOX_LIBRARY_IMPL(ns, key, m) GLASSBOX_LIBRARY_IMPL_UID(ns, key, m, __COUNTER__)
#define GLASSBOX_LIBRARY_IMPL_UID(ns, key, m, uid)                                                    \
  static void GLASSBOX_CONCAT(glassbox_library_impl_init_##ns##_##key##_, uid)(::glassbox::Library&); \
  static const ::glassbox::detail::LibraryInitializer GLASSBOX_CONCAT(                                \
      glassbox_library_impl_static_init_##ns##_##key##_, uid)(                                        \
      ::glassbox::Library::Kind::IMPL, #ns, ::glassbox::DispatchKey::key,                             \
      &GLASSBOX_CONCAT(glassbox_library_impl_init_##ns##_##key##_, uid), __FILE__, __LINE__);         \
  void GLASSBOX_CONCAT(glassbox_library_impl_init_##ns##_##key##_, uid)(::glassbox::Library & m)
