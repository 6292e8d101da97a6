// The seam between lazygen's collective ops and a communication engine.
//
// all_reduce, all_gather and broadcast (ops.yaml, "collectives") are traced like any op; their
// cpu kernels (ops/cpu/collective.cpp) run on the process-wide Communicator installed here.
// An engine (MPI in lazygen::distributed, lazygen/distributed.h; a test double; a user's own)
// implements the few primitives below over contiguous cpu memory; this layer adds what every
// engine needs: the cross-rank check of each call, the sequence numbers, the metrics.
//
// Note [Collective fingerprints]
// A collective that one rank calls and another does not, or calls on other sizes, deadlocks or
// corrupts memory in every engine. So before its payload each collective exchanges a fingerprint
// of the call: its sequence number, kind, reduce op or root, dtype, element count and the
// structural hash of the graph it runs in (0 outside lazy graphs: See GraphTag). The ranks take
// the element-wise max of [f, -f] in one small engine all-reduce, so every rank learns the
// maximum and minimum of each field; if any field differs, every rank raises CollectiveMismatch
// naming the field and its values, and nobody enters the payload. A rank that stops calling
// collectives altogether (it hangs, or left the loop early) is caught by the engine's timeout
// instead (InitOptions::timeout_s); a rank that dies is reported by the launcher.
// The cost is one 6-element all-reduce per collective: small against a bucket of gradients,
// and the reason buckets are large (See Note [Gradient buckets] in lazygen/distributed.h).
//
// Note [Collective order]
// Ranks must issue collectives in the same order, and so must each process's own threads: a
// collective traced into a lazy graph runs when the graph executes, on the executor's worker
// thread, in launch order; an eager one (cpu tensors, outside any graph) runs at once on the
// caller's. So an eager collective, and barrier(), first wait for the lazy device's queued
// launches (wait_device_ops): without it, evaluating on cpu tensors right after the last traced
// training step would all-reduce before that step's gradient all-reduce on one rank and after
// it on another (the fingerprint check reported exactly that).
//
// Metrics: distributed.collectives, distributed.bytes (payload bytes each rank contributed),
// distributed.collective_ms (payload time, the fingerprint exchange included).
// Thread safety: collectives are serialized by a process-wide lock (the lazy executor runs them
// from its worker thread, eager code from the caller's); set_communicator must not race with
// them.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>

#include "lazygen/dtype.h"

namespace lazygen::distributed {

// Raised by collectives: engine failures and timeouts.
class CollectiveError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Raised on every rank when the ranks disagree about a call (See Note [Collective fingerprints]).
class CollectiveMismatch : public CollectiveError {
 public:
  using CollectiveError::CollectiveError;
};

// An engine's primitives, over contiguous cpu memory. Each is collective: every rank calls it
// with the same arguments (counts, root), which the caller has checked. An implementation
// raises CollectiveError on failure or when a peer does not join within its timeout.
class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual std::string_view engine() const = 0;  // "mpi", "local", ...
  virtual int rank() const = 0;
  virtual int world_size() const = 0;
  // data[i] = the sum over ranks of data[i], in place. dtype is never Bool.
  virtual void all_reduce_sum(void* data, int64_t numel, DType dtype) = 0;
  // data[i] = the max over ranks of data[i], in place (the fingerprint exchange).
  virtual void all_reduce_max(int64_t* data, int64_t numel) = 0;
  // out = every rank's `bytes` bytes at `in`, in rank order (world_size() * bytes).
  virtual void all_gather(const void* in, void* out, int64_t bytes) = 0;
  // data = rank root's `bytes` bytes at data.
  virtual void broadcast(void* data, int64_t bytes, int root) = 0;
  virtual void barrier() = 0;
};

// Installs the process-wide communicator (null uninstalls it) and numbers its collectives from
// 0. Collectives traced before a communicator exists raise; lazygen::distributed::init is the
// usual way in.
void set_communicator(std::shared_ptr<Communicator> communicator);
bool has_communicator();
// The installed communicator. Throws std::runtime_error naming `op` when there is none.
Communicator& communicator(std::string_view op = "distributed");

// A communicator for a world of one process: every collective is the identity. For tests, and
// for running a data-parallel program without a launcher.
std::shared_ptr<Communicator> local_communicator();

// This process's rank and the number of processes. Throw when no communicator is installed.
int rank();
int world_size();
// Returns once every rank has called it.
void barrier();

// Gives each of the `local_ranks` processes on this node its share of the hardware threads as
// lazygen's thread count, unless LAZYGEN_NUM_THREADS sets it. Engines call it at init.
void share_cores(int local_ranks);

// What kind of collective a fingerprint describes.
enum class CollectiveKind : int64_t { AllReduceSum = 1, AllReduceMean, AllGather, Broadcast };

// One collective call, as every rank must agree on it.
struct CollectiveCall {
  CollectiveKind kind = CollectiveKind::AllReduceSum;
  DType dtype = DType::Float32;
  int64_t numel = 0;
  int64_t root = 0;  // broadcast's source rank; 0 otherwise
};

// Checks `call` against the other ranks (See Note [Collective fingerprints]) and runs `payload`
// under the collectives' lock, counting it in the metrics. Throws CollectiveMismatch on every
// rank when they disagree.
template <class Payload>
void run_collective(std::string_view op, const CollectiveCall& call, Payload&& payload);

// The structural hash of the lazy graph the calling thread is executing, while a GraphTag lives
// on it (the executor sets one around each execution); 0 otherwise.
class GraphTag {
 public:
  explicit GraphTag(uint64_t graph_hash);
  ~GraphTag();
  GraphTag(const GraphTag&) = delete;
  GraphTag& operator=(const GraphTag&) = delete;
  static uint64_t current();

 private:
  uint64_t previous_;
};

namespace detail {
// Takes the collectives' lock, checks the fingerprint and starts the timer; the destructor
// records the metrics.
class CollectiveScope {
 public:
  CollectiveScope(std::string_view op, const CollectiveCall& call);
  ~CollectiveScope();
  CollectiveScope(const CollectiveScope&) = delete;
  CollectiveScope& operator=(const CollectiveScope&) = delete;
  Communicator& communicator() const;  // the one the call was checked on

 private:
  struct State;
  std::unique_ptr<State> state_;
};
}  // namespace detail

template <class Payload>
void run_collective(std::string_view op, const CollectiveCall& call, Payload&& payload) {
  detail::CollectiveScope scope(op, call);
  payload(scope.communicator());
}

}  // namespace lazygen::distributed
