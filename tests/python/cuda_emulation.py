"""Runs a generated CUDA kernel (codegen_cuda) on the CPU, to check its logic where no GPU is:
the kernel's source is compiled by g++ with a shim giving CUDA's thread model (each block's
threads are std::threads, __syncthreads a barrier, __shfl_xor_sync an exchange through memory,
__shared__ variables shared by the block), and the grid runs one block after another.

Float formulas go to the host's libm rather than CUDA's, so results match within rounding, not
bit for bit. float32, float64 and bfloat16 (whose conversions are integer arithmetic); float16's
conversions are inline PTX, which is not emulated."""

import os
import subprocess

import numpy as np

import glassbox as gb
from glassbox.compiler import codegen_cuda

SHIM = r"""
#include <math.h>

#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

struct Dim3 { unsigned x = 1, y = 1, z = 1; };
thread_local Dim3 threadIdx, blockIdx;
Dim3 blockDim, gridDim;
std::barrier<>* block_barrier = nullptr;
#define __global__
#define __device__
#define __restrict__
#define __launch_bounds__(n)
#define __shared__ static
#define asm(...) (void)0
inline void __syncthreads() { block_barrier->arrive_and_wait(); }
template <class T> T __shfl_xor_sync(unsigned, T v, int offset) {
  static T slots[1024];
  slots[threadIdx.x] = v;
  __syncthreads();
  T r = slots[threadIdx.x ^ offset];
  __syncthreads();
  return r;
}
inline float __int_as_float(int i) { float f; std::memcpy(&f, &i, 4); return f; }
inline float __uint_as_float(unsigned i) { float f; std::memcpy(&f, &i, 4); return f; }
inline unsigned __float_as_uint(float f) { unsigned i; std::memcpy(&i, &f, 4); return i; }
inline double __longlong_as_double(long long i) { double d; std::memcpy(&d, &i, 8); return d; }
#define int64_t gb_int64_t  // the prelude declares its own
"""


# dtype -> (type in the kernel, NumPy type of its bits in the files)
_TYPES = {
    "float32": ("float", np.float32),
    "float64": ("double", np.float64),
    "bfloat16": ("gb::bfloat16", np.uint16),
    "bool": ("bool", np.bool_),  # a mask (masked_fill's)
}


def _ctype(v):
    return _TYPES[str(v.dtype).rsplit(".", 1)[-1]][0]


def _np_dtype(v):
    return _TYPES[str(v.dtype).rsplit(".", 1)[-1]][1]


def _to_bits(t, v):
    """t's values as the kernel stores them (bfloat16: the upper half of the float32 bits)."""
    if _np_dtype(v) is np.uint16:
        return (np.asarray(t.to(gb.float32).contiguous()).view(np.uint32) >> 16).astype(np.uint16)
    return np.asarray(t.contiguous()).astype(_np_dtype(v))


def _from_bits(a, v):
    if _np_dtype(v) is np.uint16:
        return (a.astype(np.uint32) << 16).view(np.float32)
    return a


def _main(kernel, blocks, threads):
    inputs, outputs = kernel.inputs, kernel.outputs
    lines = ["#undef int64_t", "int main(int argc, char** argv) {", "  int arg = 1;"]
    call = []
    for k, v in enumerate(inputs):
        if codegen_cuda._is_host_scalar(v):
            lines.append("  double s%d = std::atof(argv[arg++]);" % k)
            call.append("s%d" % k)
            continue
        # (std::vector<bool> has no data(): a mask's bytes are kept as unsigned char)
        storage = "unsigned char" if _ctype(v) == "bool" else _ctype(v)
        lines += [
            "  std::vector<%s> in%d(std::atol(argv[arg++]));" % (storage, k),
            '  { FILE* f = std::fopen(argv[arg++], "rb"); std::fread(in%d.data(), sizeof(in%d[0]), in%d.size(), f);'
            " std::fclose(f); }" % (k, k, k),
        ]
        call.append("reinterpret_cast<const bool*>(in%d.data())" % k if storage != _ctype(v) else "in%d.data()" % k)
    for k, v in enumerate(outputs):
        lines.append("  std::vector<%s> out%d(%d);" % (_ctype(v), k, v.numel))
        call.append("out%d.data()" % k)
    lines += [
        "  blockDim.x = %d; gridDim.x = %d;" % (threads, blocks),
        "  for (unsigned b = 0; b < %d; ++b) {" % blocks,
        "    std::barrier<> bar(%d);" % threads,
        "    block_barrier = &bar;",
        "    std::vector<std::thread> team;",
        "    for (unsigned t = 0; t < %d; ++t)" % threads,
        "      team.emplace_back([&, t, b] { threadIdx.x = t; blockIdx.x = b; %s(%s); });"
        % (kernel.name, ", ".join(call)),
        "    for (auto& th : team) th.join();",
        "  }",
    ]
    for k in range(len(outputs)):
        lines.append(
            '  { FILE* f = std::fopen(argv[arg++], "wb"); std::fwrite(out%d.data(), sizeof(out%d[0]), out%d.size(), f);'
            " std::fclose(f); }" % (k, k, k)
        )
    return "\n".join(lines + ["  return 0;", "}"]) + "\n"


def _launch_shape(kernel):
    """(blocks, threads) as the wrapper launches it."""
    text = kernel.source
    call = text[text.index("kernel.launch(device, ") + len("kernel.launch(device, ") :]
    blocks, threads = call.split(",")[:2]
    return int(blocks), int(threads)


def _storage(t, v):
    """The flat buffer a kernel reads for value v: t's elements placed at v's strides."""
    a = _to_bits(t, v)
    extent = codegen_cuda._extent(v)
    buffer = np.zeros(extent, dtype=a.dtype)
    strided = np.lib.stride_tricks.as_strided(buffer, v.shape, [s * a.itemsize for s in v.stride])
    strided[...] = a
    return buffer


def run(kernel, tensors, directory):
    """The kernel's outputs (NumPy arrays) for input tensors (CPU, one per kernel.inputs)."""
    blocks, threads = _launch_shape(kernel)
    source = os.path.join(directory, kernel.name + ".cpp")
    with open(source, "w") as f:
        f.write(SHIM + codegen_cuda.DEVICE_PRELUDE + kernel.cuda_source + _main(kernel, blocks, threads))
    binary = os.path.join(directory, kernel.name)
    build = subprocess.run(
        ["g++", "-std=c++20", "-O1", "-pthread", "-w", source, "-o", binary], capture_output=True, text=True
    )
    if build.returncode != 0:
        raise RuntimeError("emulation build failed:\n" + build.stderr[-3000:])
    args = []
    for k, (v, t) in enumerate(zip(kernel.inputs, tensors)):
        if codegen_cuda._is_host_scalar(v):
            args.append(repr(float(np.asarray(t))))
            continue
        buffer = _storage(t, v)
        path = os.path.join(directory, "in%d.bin" % k)
        buffer.tofile(path)
        args += [str(buffer.size), path]
    out_paths = [os.path.join(directory, "out%d.bin" % k) for k in range(len(kernel.outputs))]
    ran = subprocess.run([binary] + args + out_paths, capture_output=True, text=True)
    if ran.returncode != 0:
        raise RuntimeError("emulated kernel failed: " + ran.stderr[-2000:])
    return [
        _from_bits(np.fromfile(p, dtype=_np_dtype(v)), v).reshape(v.shape) for p, v in zip(out_paths, kernel.outputs)
    ]
