#pragma once
// Functions that both the CPU kernels and the CUDA kernels compile: host-only in C++ files,
// host and device in CUDA files.
#if defined(__CUDACC__)
#define GLASSBOX_HOST_DEVICE __host__ __device__
#else
#define GLASSBOX_HOST_DEVICE
#endif
