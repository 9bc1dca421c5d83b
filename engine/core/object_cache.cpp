#include "engine/core/object_cache.h"

#include <new>

#if defined(__SANITIZE_ADDRESS__)
#define GLASSBOX_OBJECT_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GLASSBOX_OBJECT_CACHE 0
#endif
#endif
#ifndef GLASSBOX_OBJECT_CACHE
#define GLASSBOX_OBJECT_CACHE 1
#endif

namespace glassbox::detail {

#if GLASSBOX_OBJECT_CACHE
namespace {
// Size classes of 64 bytes up to 512; larger objects go to operator new directly. Sanitizer
// builds skip the cache so that use-after-free of these objects is still caught.
constexpr size_t kGranule = 64, kClasses = 8, kPerClass = 32;

struct ObjectCache {
  void* blocks[kClasses][kPerClass];
  unsigned count[kClasses] = {};
};

// As in allocator.cpp: one initial-exec pointer on the hot path; the holder (dynamic TLS, with
// the destructor that returns the blocks at thread exit) is touched once per thread.
constinit thread_local ObjectCache* t_cache __attribute__((tls_model("initial-exec"))) = nullptr;
constinit thread_local bool t_cache_gone __attribute__((tls_model("initial-exec"))) = false;

struct CacheHolder {
  ObjectCache* cache = nullptr;
  ~CacheHolder() {
    t_cache = nullptr;
    t_cache_gone = true;
    if (!cache) return;
    for (size_t c = 0; c < kClasses; ++c)
      for (unsigned i = 0; i < cache->count[c]; ++i) ::operator delete(cache->blocks[c][i]);
    delete cache;
  }
};
thread_local CacheHolder t_holder;

ObjectCache* cache() {
  if (ObjectCache* c = t_cache) [[likely]]
    return c;
  if (t_cache_gone) return nullptr;
  ObjectCache* c = new (std::nothrow) ObjectCache();
  if (!c) return nullptr;
  t_holder.cache = c;
  t_cache = c;
  return c;
}

size_t class_of(size_t size) { return (size + kGranule - 1) / kGranule - 1; }
}  // namespace

void* object_allocate(size_t size) {
  const size_t cls = class_of(size);
  if (cls < kClasses) {
    if (ObjectCache* c = cache(); c && c->count[cls] > 0) return c->blocks[cls][--c->count[cls]];
    return ::operator new((cls + 1) * kGranule);  // the class's full size: any object of the class may reuse it
  }
  return ::operator new(size);
}

void object_deallocate(void* p, size_t size) noexcept {
  if (!p) return;
  const size_t cls = class_of(size);
  if (cls < kClasses) {
    if (ObjectCache* c = cache(); c && c->count[cls] < kPerClass) {
      c->blocks[cls][c->count[cls]++] = p;
      return;
    }
  }
  ::operator delete(p);
}
#else
void* object_allocate(size_t size) { return ::operator new(size); }
void object_deallocate(void* p, size_t) noexcept { ::operator delete(p); }
#endif

}  // namespace glassbox::detail
