${banner}
// Python bindings of operator ${base}: gb.${base}(...) and Tensor methods, typed (no boxing).
#include "glassbox/ops/${base}.h"
#include "python/csrc/type_casters.h"

namespace glassbox {

void bind_${base}(py::module_& m, py::class_<Tensor>& tensor) {
  (void)m;
  (void)tensor;
${functions}
${methods}
}

}  // namespace glassbox
