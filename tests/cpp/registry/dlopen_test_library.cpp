// A library of its own, registering with the macros; dlopen_test.cpp loads and unloads it.
#include "registry/library.h"

namespace {
int64_t triple(const glassbox::Tensor&, int64_t n) { return 3 * n; }
}  // namespace

GLASSBOX_LIBRARY(t_dl, m) { m.def("triple(Tensor x, int n) -> int"); }
GLASSBOX_LIBRARY_IMPL(t_dl, CPU, m) { m.impl("triple", &triple); }
