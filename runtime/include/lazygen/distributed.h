// lazygen::distributed: data-parallel training across processes, on MPI (link
// lazygen::distributed; its engines are optional at build time: LAZYGEN_MPI=AUTO|ON|OFF).
//
//   distributed::init();                                  // mpirun's environment
//   model.to(kLazy);
//   distributed::DistributedDataParallel ddp(model);      // rank 0's parameters everywhere
//   for (...) {
//     const Tensor x = distributed::shard(images), y = distributed::shard(targets);
//     opt.zero_grad();
//     nll_loss(model.forward(x.to(kLazy)), y.to(kLazy)).backward();
//     ddp.all_reduce_gradients();                         // traced: part of the step's graph
//     opt.step();
//     mark_step();                                        // one graph per step, as before
//   }
//   distributed::finalize();
//
// Launch with `mpirun -np N program ...`. The collectives themselves are ops (all_reduce,
// all_gather, broadcast in ops.yaml), traced like any other and run by the engine through
// lazygen/distributed/communicator.h, which checks every call against the other ranks (See
// Note [Collective fingerprints]).
//
// Note [Gradient buckets]
// DistributedDataParallel groups the parameters, in reverse registration order (the order in
// which backward produces their gradients) and by dtype and device, into buckets of at most
// DdpOptions::bucket_bytes (a larger parameter is a bucket of its own). all_reduce_gradients
// flattens each bucket's gradients into one contiguous tensor (cat), all-reduces it with
// 'mean' as one collective, and copies the slices back into the gradients in place. So a step
// makes a few large collectives instead of one per parameter: each costs a fixed latency and a
// fingerprint exchange, and the bytes all-reduced per step equal the parameter bytes. On the
// lazy device all of it is traced into the step's one graph. The cpu backend runs a graph's
// steps one after the other, so a bucket's all-reduce does not overlap the rest of backward
// there; the buckets keep the order in which an overlapping backend could start them.
//
// Thread safety: init, finalize and the DistributedDataParallel calls belong to one thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "lazygen/distributed/communicator.h"
#include "lazygen/generated/ops/all_gather.h"  // the collectives, for programs calling them
#include "lazygen/generated/ops/all_reduce.h"
#include "lazygen/generated/ops/broadcast.h"
#include "lazygen/nn/module.h"
#include "lazygen/tensor.h"

namespace lazygen::distributed {

struct InitOptions {
  std::string engine = "mpi";  // "mpi" (needs the build's MPI), or "local": a world of one
  // A collective that some rank does not join within this many seconds raises CollectiveError
  // (a rank hung, or left the loop); LAZYGEN_COLLECTIVE_TIMEOUT (seconds) sets the default.
  double timeout_s = 0;  // 0: LAZYGEN_COLLECTIVE_TIMEOUT, else 300
};

// Installs the engine's communicator for this process, from the launcher's environment. With
// MPI it also gives each process its share of the node's cores (hardware threads divided by
// the ranks on the node) as lazygen's thread count, unless LAZYGEN_NUM_THREADS sets it. Throws std::runtime_error when the engine
// is unknown, was not built (naming the packages to install), or is already initialized.
void init(const InitOptions& options = {});
bool is_initialized();
// Waits for the lazy device's queued work, meets the other ranks, uninstalls the communicator
// and shuts the engine down. A no-op when not initialized.
void finalize();
// Ends every rank of the job now with exit status `code` (MPI_Abort), e.g. after a
// CollectiveError, which leaves the engine unusable; without MPI, std::exit(code).
[[noreturn]] void abort(int code);

// Rows [rank * n / W, (rank + 1) * n / W) of dim 0 of a global batch of n rows, contiguous:
// this rank's share. Throws std::invalid_argument naming the sizes when W does not divide n
// (unequal shares would weight the ranks' gradients unequally in the mean).
Tensor shard(const Tensor& global_batch);

struct DdpOptions {
  int64_t bucket_bytes = int64_t{25} << 20;  // See Note [Gradient buckets]
  bool broadcast_parameters = true;          // start every rank from rank 0's parameters
};

// Data-parallel gradients for an nn::Module on every rank (torch.nn.parallel's DDP, with an
// explicit call instead of hooks). See Note [Gradient buckets].
class DistributedDataParallel {
 public:
  // Plans the buckets and, unless options say otherwise, copies rank 0's parameters and buffers
  // into every rank's module (materialized at once on the lazy device). The module must outlive
  // this object and keep its parameters. Throws std::runtime_error when not initialized.
  explicit DistributedDataParallel(nn::Module& module, DdpOptions options = {});

  // Replaces every parameter's gradient by its mean over the ranks, in place. Call it after
  // backward and before the optimizer's step, on every rank. Throws std::runtime_error naming
  // the parameter when one that requires grad has no gradient on this rank (every parameter
  // must take part in the loss, or be frozen with requires_grad_(false)).
  void all_reduce_gradients();

  // The buckets, as indices into the module's parameters(), in all-reduce order.
  const std::vector<std::vector<size_t>>& buckets() const { return buckets_; }

 private:
  std::vector<std::pair<std::string, Tensor>> params_;
  std::vector<std::vector<size_t>> buckets_;
};

}  // namespace lazygen::distributed
