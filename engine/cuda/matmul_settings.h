#pragma once
// How float32 matrix products run on CUDA. With TF32 allowed, cuBLAS may round the inputs to
// TensorFloat-32 (10-bit mantissa) and use the tensor cores: several times faster, less precise.
// Off by default, as torch.backends.cuda.matmul.allow_tf32. Needs no CUDA headers.
namespace glassbox::cuda {

bool matmul_allow_tf32();
void set_matmul_allow_tf32(bool allow);

}  // namespace glassbox::cuda
