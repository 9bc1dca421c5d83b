// The CPU's convolution when glassbox is built with oneDNN (what PyTorch's CPU convolutions use):
// float32 forward, backward-data and backward-weights primitives, created once per geometry and
// kept. The operands stay glassbox's plain NCHW / OIHW tensors; oneDNN picks its own blocked
// layouts for the computation, and reorders copy into and out of them. float64, which oneDNN does
// not compute, goes to the im2col + gemm kernels. CMake compiles this file or
// conv_backend_im2col.cpp, never both.
#include <omp.h>

#include <map>
#include <memory>
#include <mutex>
#include <oneapi/dnnl/dnnl.hpp>
#include <unordered_map>
#include <vector>

#include "engine/core/empty.h"
#include "engine/core/parallel.h"
#include "engine/cpu/conv_im2col.h"
#include "engine/cpu/openmp_threads.h"
#include "engine/ops/kernels/conv.h"

namespace glassbox::cpu {
namespace {
using dnnl::memory;
using Tag = memory::format_tag;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// The geometry in oneDNN's terms. Its dilation counts the gaps (PyTorch's minus one), and it
// wants the far-side padding too: the same as the near side gives PyTorch's output size, since
// both round the last partial window down.
struct Geometry {
  memory::dims src, weights, bias, dst, strides, dilates, padding;
  Tag weights_tag;
  explicit Geometry(const Conv2dShape& s) {
    const Window2d& w = s.window;
    const int64_t g = s.groups, o = s.out_channels, c = s.in_channels;
    src = {s.batch, c, s.height, s.width};
    weights =
        g > 1 ? memory::dims{g, o / g, c / g, w.kernel[0], w.kernel[1]} : memory::dims{o, c, w.kernel[0], w.kernel[1]};
    weights_tag = g > 1 ? Tag::goihw : Tag::oihw;
    bias = {o};
    dst = {s.batch, o, s.out_height, s.out_width};
    strides = {w.stride[0], w.stride[1]};
    dilates = {w.dilation[0] - 1, w.dilation[1] - 1};
    padding = {w.padding[0], w.padding[1]};
  }
  std::vector<int64_t> key(bool bias_too) const {
    std::vector<int64_t> k;
    for (const memory::dims* d : {&src, &weights, &dst, &strides, &dilates, &padding}) {
      k.push_back(static_cast<int64_t>(d->size()));
      k.insert(k.end(), d->begin(), d->end());
    }
    k.push_back(bias_too);
    return k;
  }
};

memory::desc any(const memory::dims& d) { return {d, memory::data_type::f32, Tag::any}; }

// The three primitives of one geometry (the backward ones made on first use).
struct Primitives {
  Geometry g;
  bool bias;
  dnnl::convolution_forward::primitive_desc forward_pd;
  dnnl::convolution_forward forward;
  std::once_flag backward_made;
  dnnl::convolution_backward_data::primitive_desc data_pd;
  dnnl::convolution_backward_data data;
  dnnl::convolution_backward_weights::primitive_desc weights_pd;
  dnnl::convolution_backward_weights weights;

  Primitives(const Geometry& geometry, bool with_bias) : g(geometry), bias(with_bias) {
    const auto algo = dnnl::algorithm::convolution_direct;
    const memory::desc bias_md = with_bias ? any(g.bias) : memory::desc();
    const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_training, algo, any(g.src), any(g.weights),
                                            bias_md, any(g.dst), g.strides, g.dilates, g.padding, g.padding);
    forward_pd = {d, cpu_engine()};
    forward = dnnl::convolution_forward(forward_pd);
  }

  void make_backward() {
    std::call_once(backward_made, [&] {
      const auto algo = dnnl::algorithm::convolution_direct;
      const dnnl::convolution_backward_data::desc dd(algo, any(g.src), any(g.weights), any(g.dst), g.strides, g.dilates,
                                                     g.padding, g.padding);
      data_pd = {dd, cpu_engine(), forward_pd};
      data = dnnl::convolution_backward_data(data_pd);
      const dnnl::convolution_backward_weights::desc wd(algo, any(g.src), any(g.weights), any(g.bias), any(g.dst),
                                                        g.strides, g.dilates, g.padding, g.padding);
      weights_pd = {wd, cpu_engine(), forward_pd};
      weights = dnnl::convolution_backward_weights(weights_pd);
    });
  }
};

// Primitives are costly to create (oneDNN generates code for the geometry): one per geometry and
// thread count, kept. A primitive runs on the OpenMP thread count it was created with, so a
// process forked after the parent made one (which must run on one thread) or a new
// set_num_threads gets its own.
Primitives& primitives_for(const Conv2dShape& s, bool bias) {
  static std::mutex mutex;
  static std::map<std::vector<int64_t>, std::unique_ptr<Primitives>> cache;
  const Geometry g(s);
  const int threads = openmp_threads();
  std::vector<int64_t> key = g.key(bias);
  key.push_back(threads);
  const std::lock_guard lock(mutex);
  auto& slot = cache[key];
  if (!slot) {
    omp_set_num_threads(threads);  // (Run sets it again before each use)
    slot = std::make_unique<Primitives>(g, bias);
  }
  return *slot;
}

memory plain(const memory::dims& d, Tag tag, const Tensor& t) {
  return memory({d, memory::data_type::f32, tag}, cpu_engine(), const_cast<float*>(t.data<float>()));
}

// `user` in the layout `want`: itself, or a reordered copy.
memory laid_out(const memory& user, const memory::desc& want, dnnl::stream& stream) {
  if (user.get_desc() == want) return user;
  memory copy(want, cpu_engine());
  dnnl::reorder(user, copy).execute(stream, const_cast<memory&>(user), copy);
  return copy;
}

// Runs `body(stream)` on glassbox's thread count (oneDNN's OpenMP threads otherwise take every
// core, whatever set_num_threads says), then copies each result into its plain tensor.
struct Run {
  dnnl::stream stream{cpu_engine()};
  std::vector<std::pair<memory, memory>> copies_out;  // (computed, plain destination)
  Run() { omp_set_num_threads(openmp_threads()); }
  // Memory in `want` for the plain tensor `t` that a primitive writes.
  memory output(const memory& user, const memory::desc& want) {
    if (user.get_desc() == want) return user;
    memory m(want, cpu_engine());
    copies_out.emplace_back(m, user);
    return m;
  }
  void finish() {
    for (auto& [from, to] : copies_out) dnnl::reorder(from, to).execute(stream, from, to);
    stream.wait();
  }
};

Tensor forward(const Conv2dShape& s, const Tensor& in, const Tensor& weight, const Tensor& bias) {
  if (in.dtype() != ScalarType::Float32) return im2col_conv_forward(s, in, weight, bias);
  Primitives& p = primitives_for(s, bias.defined());
  Tensor out = empty_tensor(s.output, in.dtype(), in.device());
  Run run;
  std::unordered_map<int, memory> args{
      {DNNL_ARG_SRC, laid_out(plain(p.g.src, Tag::nchw, in), p.forward_pd.src_desc(), run.stream)},
      {DNNL_ARG_WEIGHTS,
       laid_out(plain(p.g.weights, p.g.weights_tag, weight), p.forward_pd.weights_desc(), run.stream)},
      {DNNL_ARG_DST, run.output(plain(p.g.dst, Tag::nchw, out), p.forward_pd.dst_desc())}};
  if (bias.defined()) args.emplace(DNNL_ARG_BIAS, plain(p.g.bias, Tag::x, bias));
  p.forward.execute(run.stream, args);
  run.finish();
  return out;
}

std::tuple<Tensor, Tensor, Tensor> backward(const Conv2dShape& s, const Tensor& grad_out, const Tensor& in,
                                            const Tensor& weight) {
  if (in.dtype() != ScalarType::Float32) return im2col_conv_backward(s, grad_out, in, weight);
  Primitives& p = primitives_for(s, false);
  p.make_backward();
  Tensor grad_in = empty_tensor(in.sizes(), in.dtype(), in.device());
  Tensor grad_w = empty_tensor(weight.sizes(), in.dtype(), in.device());
  const int64_t bias_shape[] = {s.out_channels};
  Tensor grad_b = empty_tensor(bias_shape, in.dtype(), in.device());
  Run run;
  const memory dst_user = plain(p.g.dst, Tag::nchw, grad_out);
  p.data.execute(
      run.stream,
      {{DNNL_ARG_DIFF_DST, laid_out(dst_user, p.data_pd.diff_dst_desc(), run.stream)},
       {DNNL_ARG_WEIGHTS, laid_out(plain(p.g.weights, p.g.weights_tag, weight), p.data_pd.weights_desc(), run.stream)},
       {DNNL_ARG_DIFF_SRC, run.output(plain(p.g.src, Tag::nchw, grad_in), p.data_pd.diff_src_desc())}});
  p.weights.execute(run.stream,
                    {{DNNL_ARG_SRC, laid_out(plain(p.g.src, Tag::nchw, in), p.weights_pd.src_desc(), run.stream)},
                     {DNNL_ARG_DIFF_DST, laid_out(dst_user, p.weights_pd.diff_dst_desc(), run.stream)},
                     {DNNL_ARG_DIFF_WEIGHTS,
                      run.output(plain(p.g.weights, p.g.weights_tag, grad_w), p.weights_pd.diff_weights_desc())},
                     {DNNL_ARG_DIFF_BIAS, run.output(plain(p.g.bias, Tag::x, grad_b), p.weights_pd.diff_bias_desc())}});
  run.finish();
  return {grad_in, grad_w, grad_b};
}

const char* library() { return "oneDNN"; }
const kernels::ConvBackend kConv{forward, backward, nullptr, library};
const kernels::ConvBackends::Registration kRegistered(DeviceType::CPU, kConv);
}  // namespace
}  // namespace glassbox::cpu
