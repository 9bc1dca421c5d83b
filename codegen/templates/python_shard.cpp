${banner}
// Python bindings, shard ${shard}: gb.<op>(...) functions and Tensor methods, typed (no boxing).
${includes}
#include "python/csrc/refused_call.h"
#include "python/csrc/type_casters.h"

namespace glassbox {

void bind_shard_${shard}(py::module_& m, py::class_<Tensor>& tensor) {
  (void)m;
  (void)tensor;
${bindings}
}

}  // namespace glassbox
