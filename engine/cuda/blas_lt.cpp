// cuBLASLt's bias epilogue for addmm (engine/cuda/blas_lt.h). The algorithm for a case (shape,
// layouts, types, pointer alignments) comes from cuBLASLt's heuristics once and is remembered; the
// descriptors are made for each call (they are host structs, cheap to make), the workspace comes
// from the caching allocator.
#include "engine/cuda/blas_lt.h"

#include <cublasLt.h>

#include <array>
#include <map>
#include <mutex>
#include <optional>
#include <tuple>

#include "engine/core/empty.h"
#include "engine/core/error.h"
#include "engine/cuda/cuda_error.h"
#include "engine/cuda/device_guard.h"
#include "engine/cuda/library_handle.h"
#include "engine/cuda/stream.h"

namespace glassbox::cuda {

namespace {
// The workspace cuBLASLt may use: room for split-k algorithms, small beside the activations.
constexpr size_t kWorkspaceBytes = size_t{4} << 20;

cublasLtHandle_t lt_handle(int device) {
  return thread_library_handle<cublasLtHandle_t>(device, "cuBLASLt",
                                                 [](cublasLtHandle_t* h) { GB_CUBLAS_CHECK(cublasLtCreate(h)); });
}

// The descriptors of one call, destroyed with it.
struct Descriptors {
  cublasLtMatmulDesc_t op{};
  cublasLtMatrixLayout_t a{}, b{}, c{};
  cublasLtMatmulPreference_t preference{};
  ~Descriptors() {
    if (preference) cublasLtMatmulPreferenceDestroy(preference);
    if (c) cublasLtMatrixLayoutDestroy(c);
    if (b) cublasLtMatrixLayoutDestroy(b);
    if (a) cublasLtMatrixLayoutDestroy(a);
    if (op) cublasLtMatmulDescDestroy(op);
  }
};

template <class T>
void set(cublasLtMatmulDesc_t d, cublasLtMatmulDescAttributes_t attribute, const T& value) {
  GB_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(d, attribute, &value, sizeof(value)));
}

// The stored shape of op(x) [r, c]: x itself is [r, c] untransposed, [c, r] transposed.
void layout(cublasLtMatrixLayout_t* d, cudaDataType_t type, int64_t r, int64_t c, const LtOperand& x) {
  const bool t = x.op != CUBLAS_OP_N;
  GB_CUBLAS_CHECK(
      cublasLtMatrixLayoutCreate(d, type, static_cast<uint64_t>(t ? c : r), static_cast<uint64_t>(t ? r : c), x.ld));
}

// How far a pointer is aligned, up to 16 bytes: cuBLASLt's algorithms differ in what they need.
int64_t alignment(const void* p) {
  const auto v = reinterpret_cast<uintptr_t>(p);
  return v % 16 == 0 ? 16 : v % 8 == 0 ? 8 : v % 4 == 0 ? 4 : v % 2 == 0 ? 2 : 1;
}

using Key = std::array<int64_t, 15>;
std::mutex g_mutex;
// Case -> algorithm, or nullopt where cuBLASLt offered none. Never destroyed: used until exit.
std::map<Key, std::optional<cublasLtMatmulAlgo_t>>& algorithms() {
  static auto* cache = new std::map<Key, std::optional<cublasLtMatmulAlgo_t>>();
  return *cache;
}
}  // namespace

bool lt_gemm_bias(int device, cudaDataType_t type, cublasComputeType_t compute, int64_t rows, int64_t cols, int64_t k,
                  const LtOperand& a, const LtOperand& b, const void* bias, void* c, int64_t ldc) {
  DeviceGuard guard(device);
  Descriptors d;
  GB_CUBLAS_CHECK(cublasLtMatmulDescCreate(&d.op, compute, CUDA_R_32F));
  set(d.op, CUBLASLT_MATMUL_DESC_TRANSA, a.op);
  set(d.op, CUBLASLT_MATMUL_DESC_TRANSB, b.op);
  set(d.op, CUBLASLT_MATMUL_DESC_EPILOGUE, CUBLASLT_EPILOGUE_BIAS);
  set(d.op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, bias);
  layout(&d.a, type, rows, k, a);
  layout(&d.b, type, k, cols, b);
  GB_CUBLAS_CHECK(
      cublasLtMatrixLayoutCreate(&d.c, type, static_cast<uint64_t>(rows), static_cast<uint64_t>(cols), ldc));

  const Key key{device,
                static_cast<int64_t>(type),
                static_cast<int64_t>(compute),
                rows,
                cols,
                k,
                static_cast<int64_t>(a.op),
                a.ld,
                static_cast<int64_t>(b.op),
                b.ld,
                ldc,
                alignment(a.data),
                alignment(b.data),
                alignment(c),
                alignment(bias)};
  std::optional<cublasLtMatmulAlgo_t> algo;
  bool known = false;
  {
    std::lock_guard lock(g_mutex);
    if (auto it = algorithms().find(key); it != algorithms().end()) known = true, algo = it->second;
  }
  cublasLtHandle_t handle = lt_handle(device);
  if (!known) {
    GB_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&d.preference));
    const uint64_t bytes = kWorkspaceBytes;
    GB_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(d.preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes,
                                                         sizeof(bytes)));
    cublasLtMatmulHeuristicResult_t result{};
    int returned = 0;
    const cublasStatus_t status =
        cublasLtMatmulAlgoGetHeuristic(handle, d.op, d.a, d.b, d.c, d.c, d.preference, 1, &result, &returned);
    if (status == CUBLAS_STATUS_SUCCESS && returned > 0 && result.state == CUBLAS_STATUS_SUCCESS) algo = result.algo;
    else if (status != CUBLAS_STATUS_SUCCESS && status != CUBLAS_STATUS_NOT_SUPPORTED) GB_CUBLAS_CHECK(status);
    std::lock_guard lock(g_mutex);
    algorithms()[key] = algo;
  }
  if (!algo) return false;
  const Tensor workspace = empty_tensor(DimVector{static_cast<int64_t>(kWorkspaceBytes)}, ScalarType::UInt8,
                                        Device(DeviceType::CUDA, static_cast<int8_t>(device)));
  const float one = 1.0f, zero = 0.0f;  // beta 0: c is written, not read
  GB_CUBLAS_CHECK(cublasLtMatmul(handle, d.op, &one, a.data, d.a, b.data, d.b, &zero, c, d.c, c, d.c, &*algo,
                                 workspace.data_ptr(), kWorkspaceBytes, current_stream(device).handle()));
  return true;
}

}  // namespace glassbox::cuda
