// A second GLASSBOX_LIBRARY block for the namespace of library_test.cpp: a load error.
#include "registry/library.h"

extern const int kDuplicateLibraryLine = __LINE__ + 1;
GLASSBOX_LIBRARY(t_dup_ns, m) { m.def("b(Tensor x) -> int"); }
