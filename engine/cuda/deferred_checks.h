#pragma once
// Checks made on the device whose verdict the host reads later. An operator that checks its index
// tensor on the device and waits for the answer before returning makes the host wait for all the
// work queued before it: in a training step the host could no longer queue the next kernels while
// the GPU works (an embedding's backward waited ~1.9 ms per call that way). A deferred check copies
// its verdict to pinned host memory behind the check kernel and returns at once. The verdict is
// read at the next synchronisation (Stream::synchronize, so every copy to the host, .item() and
// gb.cuda.synchronize()) or at the next deferred check, whichever comes first, and a failed one
// raises its error there. The kernels behind a deferred check must never touch memory outside their
// operands, whatever the indices say. GLASSBOX_CUDA_SYNC_CHECKS=1 waits at each check instead.
#include <cstdint>
#include <functional>

#include "engine/core/tensor.h"

namespace glassbox::cuda {

// `flag` is a one-element int64 tensor on a CUDA device: the verdict, `none` when it passed, else a
// value `raise` turns into the error (and throws).
void defer_check(const Tensor& flag, int64_t none, std::function<void(int64_t)> raise);

// Raises the error of the first failed check whose verdict has arrived (all of them once `wait`
// has waited for them); checks that passed are forgotten.
void raise_failed_checks(bool wait);

// Whether checks wait for their verdict (GLASSBOX_CUDA_SYNC_CHECKS=1).
bool synchronous_checks();

}  // namespace glassbox::cuda
