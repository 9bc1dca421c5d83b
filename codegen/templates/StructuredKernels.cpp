${banner}
// The ${key} kernels of the structured element-wise operators (`structured:` in ops.yaml): every
// variant is the one front end, engine/ops/structured_pointwise.h, with the operator's functor
// (engine/ops/pointwise_functors.h) and ${compute}.
${includes}

namespace glassbox::native {
${kernels}
}  // namespace glassbox::native
