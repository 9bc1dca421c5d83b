// glassbox_demo: the registry and the dispatcher on their own (glassbox_core, without the engine).
// Its operators compute output shapes only, so that all there is to see is how calls are routed
// (examples/registry_tour.py shows the same on the engine's real operators):
//   y = A @ x;  z = y.sum();  loss = mse_loss(sigmoid(y), target)
// Usage: glassbox_demo [--calls-only] [--json FILE]
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

#include "registry/library.h"
#include "registry/registry_dump.h"

using namespace glassbox;

namespace {
Tensor shaped(const Tensor& like, std::vector<int64_t> sizes) {
  return Tensor(intrusive_ptr<TensorImpl>::make(like.key_set(), like.dtype(), like.device(), std::move(sizes)));
}
Tensor matmul_shape(const Tensor& a, const Tensor& b) {
  GB_CHECK(a.dim() == 2 && b.dim() >= 1 && a.sizes()[1] == b.sizes()[0], "demo::matmul: shapes do not fit");
  return shaped(a,
                b.dim() == 1 ? std::vector<int64_t>{a.sizes()[0]} : std::vector<int64_t>{a.sizes()[0], b.sizes()[1]});
}
Tensor sum_shape(const Tensor& a) { return shaped(a, {}); }
Tensor same_shape(const Tensor& a) { return shaped(a, a.sizes().vec()); }
Tensor same_shape2(const Tensor& a, const Tensor&) { return shaped(a, a.sizes().vec()); }

OperatorHandle op(const char* name) { return Dispatcher::singleton().find_schema_or_throw(name); }
using Unary = Tensor(const Tensor&);
using Binary = Tensor(const Tensor&, const Tensor&);

// Autograd kernels: here they would record a backward node; then they hand the call down.
template <const char* Name, class Sig>
struct Autograd;
template <const char* Name>
struct Autograd<Name, Unary> {
  static Tensor run(DispatchKeySet keys, const Tensor& a) {
    static const auto h = op(Name).typed<Unary>();
    return h.redispatch(keys.below(DispatchKey::AutogradCPU), a);
  }
};
template <const char* Name>
struct Autograd<Name, Binary> {
  static Tensor run(DispatchKeySet keys, const Tensor& a, const Tensor& b) {
    static const auto h = op(Name).typed<Binary>();
    return h.redispatch(keys.below(DispatchKey::AutogradCPU), a, b);
  }
};
constexpr char kMatmul[] = "demo::matmul", kSum[] = "demo::sum", kSigmoid[] = "demo::sigmoid";
constexpr char kSub[] = "demo::sub", kMul[] = "demo::mul", kMean[] = "demo::mean";

// mse_loss as a decomposition (a math kernel): the calls it makes show up nested in the trace.
Tensor mse_loss_math(const Tensor& input, const Tensor& target) {
  static const auto sub = op(kSub).typed<Binary>(), mul = op(kMul).typed<Binary>();
  static const auto mean = op(kMean).typed<Unary>();
  const Tensor diff = sub.call(input, target);
  return mean.call(mul.call(diff, diff));
}
}  // namespace

GLASSBOX_LIBRARY(demo, m) {
  m.def("matmul(Tensor self, Tensor other) -> Tensor");
  m.def("sum(Tensor self) -> Tensor", {"reduction"});
  m.def("mean(Tensor self) -> Tensor", {"reduction"});
  m.def("sigmoid(Tensor self) -> Tensor", {"pointwise"});
  m.def("sub(Tensor self, Tensor other) -> Tensor", {"pointwise"});
  m.def("mul(Tensor self, Tensor other) -> Tensor", {"pointwise"});
  m.def("mse_loss(Tensor self, Tensor target) -> Tensor");
  m.impl("mse_loss", &mse_loss_math);
}
GLASSBOX_LIBRARY_IMPL(demo, CPU, m) {
  m.impl("matmul", &matmul_shape);
  m.impl("sum", &sum_shape);
  m.impl("mean", &sum_shape);
  m.impl("sigmoid", &same_shape);
  m.impl("sub", &same_shape2);
  m.impl("mul", &same_shape2);
}
GLASSBOX_LIBRARY_IMPL(demo, Meta, m) {
  m.impl("matmul", &matmul_shape);
  m.impl("sum", &sum_shape);
}
GLASSBOX_LIBRARY_IMPL(demo, AutogradCPU, m) {
  m.impl("matmul", &Autograd<kMatmul, Binary>::run);
  m.impl("sum", &Autograd<kSum, Unary>::run);
  m.impl("mean", &Autograd<kMean, Unary>::run);
  m.impl("sigmoid", &Autograd<kSigmoid, Unary>::run);
  m.impl("sub", &Autograd<kSub, Binary>::run);
  m.impl("mul", &Autograd<kMul, Binary>::run);
}

namespace {
Tensor make(DeviceType device, std::vector<int64_t> sizes) {
  return Tensor(
      intrusive_ptr<TensorImpl>::make(default_key_set(device), ScalarType::Float32, Device(device), std::move(sizes)));
}
void heading(const std::string& s) { std::printf("\n== %s ==\n", s.c_str()); }
std::string shape(const Tensor& t) {
  std::string s = "[";
  for (size_t i = 0; i < t.sizes().size(); ++i) s += (i ? ", " : "") + std::to_string(t.sizes()[i]);
  return s + "]";
}

void run_calls(bool print) {
  const auto matmul = op(kMatmul).typed<Binary>();
  const auto sum = op(kSum).typed<Unary>();
  const auto sigmoid = op(kSigmoid).typed<Unary>();
  const auto mse = op("demo::mse_loss").typed<Binary>();
  const Tensor A = make(DeviceType::CPU, {3, 4}), x = make(DeviceType::CPU, {4});
  {
    DispatchTraceCapture trace;
    const Tensor y = matmul.call(A, x);
    const Tensor z = sum.call(y);
    if (print) {
      heading("dispatch trace: y = A @ x; z = y.sum()   (y: " + shape(y) + ", z: " + shape(z) + ")");
      std::printf("%s", trace.to_string().c_str());
    }
  }
  {
    DispatchTraceCapture trace;
    const Tensor y = matmul.call(A, x);
    const Tensor loss = mse.call(sigmoid.call(y), make(DeviceType::CPU, {3}));
    if (print) {
      heading("dispatch trace: loss = mse_loss(sigmoid(A @ x), target)   (a math kernel decomposes mse_loss)");
      std::printf("%s", trace.to_string().c_str());
    }
    (void)loss;
  }
  {
    DispatchTraceCapture trace;
    const Tensor y = matmul.call(make(DeviceType::Meta, {3, 4}), make(DeviceType::Meta, {4, 5}));
    if (print) {
      heading("dispatch trace: the same matmul on the meta device (shapes only): " + shape(y));
      std::printf("%s", trace.to_string().c_str());
    }
  }
  if (print) {
    heading("a call with no kernel for its key");
    try {
      sigmoid.call(make(DeviceType::CUDA, {2}));
    } catch (const Error& e) {
      std::printf("glassbox::Error: %s\n", e.what());
    }
  }
}
}  // namespace

int main(int argc, char** argv) {
  bool calls_only = false;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--calls-only")) calls_only = true;
    else if (!std::strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--calls-only] [--json FILE]\n", argv[0]);
      return 2;
    }
  }
  if (calls_only) {  // for GLASSBOX_DISPATCH_TRACE=1: the trace goes to stderr, nothing else is printed
    run_calls(false);
    return 0;
  }
  std::printf("glassbox demo: the operator registry and the dispatcher\n");
  std::printf("(the demo operators compute shapes only; tensors and kernels arrive with the engine)\n");
  heading("registry: demo::matmul");
  std::printf("%s", dump(op(kMatmul)).c_str());
  heading("dispatch table: demo::matmul");
  std::printf("%s", dump_table(op(kMatmul)).c_str());
  heading("dispatch table: demo::mse_loss (CompositeImplicitAutograd only)");
  std::printf("%s", dump_table(op("demo::mse_loss")).c_str());
  heading("registrations for dispatch key AutogradCPU");
  std::printf("%s", dump_registrations(DispatchKey::AutogradCPU).c_str());
  run_calls(true);
  if (!json_path.empty()) {
    std::ofstream(json_path) << registry_to_json() << "\n";
    heading("the whole registry as JSON");
    std::printf("written to %s\n", json_path.c_str());
  }
  return 0;
}
