${banner}
// Binds every operator family's functions (into glassbox._C._functions) and Tensor methods.
#include "python/csrc/type_casters.h"

namespace glassbox {

${declarations}

void bind_generated(py::module_& m, py::class_<Tensor>& tensor) {
${calls}
}

}  // namespace glassbox
