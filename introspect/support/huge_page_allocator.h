#pragma once
// An allocator for the few vectors that hold a whole symbol table (half a million entries for
// libtorch_cpu.so): blocks of 8 MiB and more are 2 MiB-aligned and advised into transparent huge
// pages, which spares the kernel tens of thousands of page faults (a tenth of a `glassbox symbols`
// run). Smaller blocks, and kernels without huge pages, behave as std::allocator.
#include <sys/mman.h>

#include <cstdlib>
#include <new>

namespace glassbox::introspect {

template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHuge = std::size_t{2} << 20;
  static constexpr std::size_t kThreshold = std::size_t{8} << 20;

  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kThreshold) return static_cast<T*>(::operator new(bytes));
    const std::size_t rounded = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = std::aligned_alloc(kHuge, rounded);
    if (!p) throw std::bad_alloc();
    madvise(p, rounded, MADV_HUGEPAGE);  // advice only: a kernel without THP ignores it
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kThreshold) ::operator delete(p);
    else std::free(p);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace glassbox::introspect
