// A C++ program using glassbox: tensors, operators, autograd, printing, and an operator of its own
// registered with GLASSBOX_LIBRARY and called through the dispatcher.
#include <glassbox/glassbox.h>

#include <iostream>

namespace {
// app::scaled_square(x, s) = s * x * x, composed of glassbox operators (so autograd sees through it).
glassbox::Tensor scaled_square(const glassbox::Tensor& x, double scale) {
  return glassbox::mul(glassbox::mul(x, x), scale);
}
}  // namespace

GLASSBOX_LIBRARY(app, m) {
  m.def("scaled_square(Tensor x, float scale) -> Tensor");
  m.impl("scaled_square", glassbox::DispatchKey::CompositeImplicitAutograd, scaled_square);
}

int main() {
  using namespace glassbox;
  Tensor a = ones({2, 3});
  Tensor x = full({2, 3}, 2.0);
  x.requires_grad_(true);
  Tensor y = add(a, x);
  std::cout << "y = " << y << "\n";

  const auto op =
      Dispatcher::singleton().find_schema_or_throw("app::scaled_square").typed<Tensor(const Tensor&, double)>();
  Tensor z = op.call(x, 3.0).sum();
  z.backward();
  std::cout << "z = " << z << "\n";
  std::cout << "dz/dx = " << x.grad() << "\n";
  return 0;
}
