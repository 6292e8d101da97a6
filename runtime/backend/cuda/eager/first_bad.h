// FirstBad: how an eager CUDA kernel reports a data-dependent error (a pooling index or a loss
// target out of range) that the cpu kernel throws for. The kernel lowers one device word to the
// position of the first bad element it meets (report_bad in training.cuh) and skips that
// element; the host reads the word back after the launch and throws as the cpu would.
// Reading synchronizes the stream, so only kernels with such checks pay for it.
#pragma once

#include <cstdint>
#include <optional>

#include "lazygen/tensor.h"

namespace lazygen::cuda {

class FirstBad {
 public:
  // One word on `device`, set to "none". Throws as empty_device().
  explicit FirstBad(Device device);

  // The device word to pass to the kernel.
  unsigned long long* slot() const;
  // The smallest reported position, or nullopt when the kernels reported none. Synchronizes.
  std::optional<int64_t> read() const;

 private:
  Tensor word_;
};

// Element `pos` of the int64 device tensor `t` (contiguous), copied to the host.
int64_t read_int64(const Tensor& t, int64_t pos);

}  // namespace lazygen::cuda
