// A custom operator outside glassbox's tree: myops::mul_add(x, y, z) = x * y + z, element-wise, with
// a CPU kernel, a Meta kernel (shapes only), and an Autograd kernel that records its own backward
// node. mul_add_cuda.cu adds the CUDA kernel. Build it either way:
//   gb.utils.cpp_extension.load("mul_add", sources=["mul_add.cpp"])         (examples/extension/mul_add.py)
//   cmake -S examples/extension -B /tmp/ext -DCMAKE_PREFIX_PATH=...          (CMakeLists.txt here)
#include <glassbox/glassbox.h>

#include "engine/autograd/autograd_meta.h"
#include "engine/autograd/generated_support.h"  // BelowAutogradGuard
#include "mul_add.h"

namespace myops {
using glassbox::Tensor;

void check_mul_add(const Tensor& x, const Tensor& y, const Tensor& z) {
  GB_CHECK(x.sizes() == y.sizes() && x.sizes() == z.sizes(), "myops::mul_add: x, y and z must have one shape, got ",
           glassbox::shape_to_string(x.sizes()), ", ", glassbox::shape_to_string(y.sizes()), " and ",
           glassbox::shape_to_string(z.sizes()));
  GB_CHECK(x.dtype() == y.dtype() && x.dtype() == z.dtype(), "myops::mul_add: x, y and z must have one dtype");
  GB_CHECK(x.dtype() == glassbox::ScalarType::Float32 || x.dtype() == glassbox::ScalarType::Float64,
           "myops::mul_add: expected float32 or float64, got ", glassbox::to_string(x.dtype()));
  GB_CHECK(x.device() == y.device() && x.device() == z.device(), "myops::mul_add: x, y and z must be on one device");
}

namespace {
// Meta: the same checks and the same result, without the arithmetic.
Tensor mul_add_meta(const Tensor& x, const Tensor& y, const Tensor& z) {
  check_mul_add(x, y, z);
  return glassbox::empty(x.sizes(), x.dtype(), x.device());
}

template <class T>
void mul_add_loop(const T* x, const T* y, const T* z, T* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = x[i] * y[i] + z[i];
}

Tensor mul_add_cpu(const Tensor& x, const Tensor& y, const Tensor& z) {
  check_mul_add(x, y, z);
  const Tensor xc = x.contiguous(), yc = y.contiguous(), zc = z.contiguous();
  Tensor out = glassbox::empty(x.sizes(), x.dtype(), x.device());
  if (x.dtype() == glassbox::ScalarType::Float32)
    mul_add_loop(xc.data<float>(), yc.data<float>(), zc.data<float>(), out.data<float>(), out.numel());
  else mul_add_loop(xc.data<double>(), yc.data<double>(), zc.data<double>(), out.data<double>(), out.numel());
  return out;
}

// d(x*y + z) = (grad*y, grad*x, grad), computed with glassbox's own operators (so it runs on any device,
// and a second derivative would see them too).
class MulAddBackward : public glassbox::autograd::Node {
 public:
  MulAddBackward(Tensor x, Tensor y) : x_(std::move(x)), y_(std::move(y)) {}
  std::string name() const override { return "MulAddBackward"; }
  glassbox::autograd::variable_list apply(glassbox::autograd::variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {glassbox::mul(g, y_), glassbox::mul(g, x_), g};
  }
  void release_variables() override { x_ = y_ = Tensor(); }

 private:
  Tensor x_, y_;
};

// Autograd: run the backend kernel below this key, then record MulAddBackward as the result's history.
Tensor mul_add_autograd(glassbox::DispatchKeySet keys, const Tensor& x, const Tensor& y, const Tensor& z) {
  static const auto op = glassbox::Dispatcher::singleton()
                             .find_schema_or_throw("myops::mul_add")
                             .typed<Tensor(const Tensor&, const Tensor&, const Tensor&)>();
  Tensor out;
  {
    glassbox::autograd::BelowAutogradGuard below;
    out = op.redispatch(keys.below(glassbox::DispatchKey::AutogradCPU), x, y, z);
  }
  if (glassbox::autograd::compute_requires_grad(x, y, z)) {
    auto node = std::make_shared<MulAddBackward>(x.detach(), y.detach());
    node->set_next_edges(glassbox::autograd::collect_next_edges(x, y, z));
    glassbox::autograd::set_history(out, node);
  }
  return out;
}
}  // namespace
}  // namespace myops

GLASSBOX_LIBRARY(myops, m) { m.def("mul_add(Tensor x, Tensor y, Tensor z) -> Tensor"); }

GLASSBOX_LIBRARY_IMPL(myops, CPU, m) { m.impl("mul_add", &myops::mul_add_cpu); }
GLASSBOX_LIBRARY_IMPL(myops, Meta, m) { m.impl("mul_add", &myops::mul_add_meta); }
GLASSBOX_LIBRARY_IMPL(myops, Autograd, m) { m.impl("mul_add", &myops::mul_add_autograd); }
