#pragma once
// Intrusive reference counting: the count lives in the object (as in TensorImpl), so a handle is
// one pointer and can be rebuilt from a raw pointer (what Python bindings and IValue need).
#include <atomic>
#include <cstddef>
#include <utility>

namespace glassbox {

class RefCounted {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;

  size_t use_count() const { return refcount_.load(std::memory_order_relaxed); }

 private:
  template <class T>
  friend class intrusive_ptr;
  mutable std::atomic<size_t> refcount_{0};
};

template <class T>
class intrusive_ptr {
 public:
  intrusive_ptr() = default;
  intrusive_ptr(std::nullptr_t) {}
  // Takes a new reference to p (p may already be owned by other intrusive_ptrs).
  explicit intrusive_ptr(T* p) : p_(p) { retain(); }
  intrusive_ptr(const intrusive_ptr& o) : p_(o.p_) { retain(); }
  intrusive_ptr(intrusive_ptr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  template <class U>
  intrusive_ptr(intrusive_ptr<U> o) : p_(o.release()) {}
  ~intrusive_ptr() { reset(); }

  intrusive_ptr& operator=(intrusive_ptr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }

  // A new object with its first reference. Nothing else can see it yet: the count is set, not
  // incremented (a locked add is a tenth of what making a small tensor costs).
  template <class... Args>
  static intrusive_ptr make(Args&&... args) {
    intrusive_ptr r;
    r.p_ = new T(std::forward<Args>(args)...);
    r.p_->refcount_.store(1, std::memory_order_relaxed);
    return r;
  }

  T* get() const { return p_; }
  T* operator->() const { return p_; }
  T& operator*() const { return *p_; }
  explicit operator bool() const { return p_ != nullptr; }
  size_t use_count() const { return p_ ? p_->use_count() : 0; }

  // The last reference needs no decrement: no other owner is left to race with (the acquire
  // load pairs with the release of the owners that let go before).
  void reset() {
    if (p_ && (p_->refcount_.load(std::memory_order_acquire) == 1 ||
               p_->refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1))
      delete p_;
    p_ = nullptr;
  }
  // Gives up ownership without dropping the reference.
  T* release() { return std::exchange(p_, nullptr); }

  bool operator==(const intrusive_ptr& o) const { return p_ == o.p_; }

 private:
  void retain() {
    if (p_) p_->refcount_.fetch_add(1, std::memory_order_relaxed);
  }
  T* p_ = nullptr;
};

}  // namespace glassbox
