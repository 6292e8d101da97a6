// The installed communicator, the fingerprint check and the local communicator
// (lazygen/distributed/communicator.h).
#include "lazygen/distributed/communicator.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>

#include "core/tensor/device_hooks.h"
#include "core/thread_pool.h"
#include "lazygen/metrics.h"
#include "lazygen/tls.h"

namespace lazygen::distributed {
namespace {

std::mutex& install_mutex() {
  static std::mutex m;
  return m;
}
std::shared_ptr<Communicator>& installed() {
  static std::shared_ptr<Communicator> c;
  return c;
}
std::mutex& collective_mutex() {
  static std::mutex m;
  return m;
}
int64_t next_sequence = 0;  // the installed communicator's next collective; collective_mutex()
thread_local uint64_t tls_graph_hash LAZYGEN_FAST_TLS = 0;

class LocalCommunicator final : public Communicator {
 public:
  std::string_view engine() const override { return "local"; }
  int rank() const override { return 0; }
  int world_size() const override { return 1; }
  void all_reduce_sum(void*, int64_t, DType) override {}
  void all_reduce_max(int64_t*, int64_t) override {}
  void all_gather(const void* in, void* out, int64_t bytes) override {
    if (bytes > 0 && in != out) std::memcpy(out, in, static_cast<size_t>(bytes));
  }
  void broadcast(void*, int64_t, int) override {}
  void barrier() override {}
};

// The fields of a fingerprint, in exchange order (See Note [Collective fingerprints]).
constexpr int kFields = 6;
constexpr const char* kFieldWhat[kFields] = {
    "the number of collectives run so far", "the collective called",   "the source rank",
    "the dtype",                            "the number of elements", "the graph running it"};

const char* kind_name(int64_t kind) {
  switch (static_cast<CollectiveKind>(kind)) {
    case CollectiveKind::AllReduceSum:
      return "all_reduce(sum)";
    case CollectiveKind::AllReduceMean:
      return "all_reduce(mean)";
    case CollectiveKind::AllGather:
      return "all_gather";
    case CollectiveKind::Broadcast:
      return "broadcast";
  }
  return "?";
}

std::string field_value(int field, int64_t v) {
  if (field == 1) return kind_name(v);
  if (field == 3) return std::string(dtype_name(static_cast<DType>(v)));
  if (field == 5) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%#llx", static_cast<unsigned long long>(v));
    return buf;
  }
  return std::to_string(v);
}

void check_fingerprint(Communicator& c, std::string_view op, const CollectiveCall& call,
                       int64_t sequence) {
  const int64_t mine[kFields] = {sequence,
                                 static_cast<int64_t>(call.kind),
                                 call.root,
                                 static_cast<int64_t>(call.dtype),
                                 call.numel,
                                 static_cast<int64_t>(GraphTag::current() >> 2)};  // >= 0
  int64_t both[2 * kFields];
  for (int i = 0; i < kFields; ++i) {
    both[i] = mine[i];
    both[kFields + i] = -mine[i];
  }
  c.all_reduce_max(both, 2 * kFields);
  for (int i = 0; i < kFields; ++i) {
    const int64_t hi = both[i], lo = -both[kFields + i];
    if (hi == lo) continue;
    throw CollectiveMismatch(
        std::string(op) + ": the ranks disagree about collective #" + std::to_string(sequence) +
        " (this is rank " + std::to_string(c.rank()) + " of " + std::to_string(c.world_size()) +
        "): " + kFieldWhat[i] + " ranges from " + field_value(i, lo) + " to " +
        field_value(i, hi) + " across ranks, here " + field_value(i, mine[i]) +
        ". Every rank must run the same collectives, in the same order, on tensors of the same "
        "sizes and dtype, in the same traced step (See Note [Collective fingerprints])");
  }
}

// See Note [Collective order]. Through the lazy device's wait hook (wait_device_ops), which the
// executor above this layer registers; without a lazy device nothing was traced.
void wait_for_traced_collectives() {
  if (has_device_hooks(DeviceType::Lazy)) {
    if (auto wait = device_hooks(DeviceType::Lazy).wait) wait();
  }
}

}  // namespace

void set_communicator(std::shared_ptr<Communicator> communicator) {
  std::lock_guard<std::mutex> collectives(collective_mutex());
  std::lock_guard<std::mutex> lock(install_mutex());
  installed() = std::move(communicator);
  next_sequence = 0;  // numbered per communicator
}

bool has_communicator() {
  std::lock_guard<std::mutex> lock(install_mutex());
  return installed() != nullptr;
}

Communicator& communicator(std::string_view op) {
  std::lock_guard<std::mutex> lock(install_mutex());
  if (installed() == nullptr) {
    throw std::runtime_error(
        std::string(op) +
        ": no distributed engine: call lazygen::distributed::init() first (run the program "
        "with mpirun -np N), or install distributed::local_communicator() for one process");
  }
  return *installed();
}

std::shared_ptr<Communicator> local_communicator() { return std::make_shared<LocalCommunicator>(); }

int rank() { return communicator("rank").rank(); }
int world_size() { return communicator("world_size").world_size(); }
void barrier() {
  wait_for_traced_collectives();
  std::lock_guard<std::mutex> lock(collective_mutex());
  communicator("barrier").barrier();
}

void share_cores(int local_ranks) {
  if (local_ranks <= 1 || std::getenv("LAZYGEN_NUM_THREADS") != nullptr) return;
  const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  cpu::set_num_threads(std::max(1, hw / local_ranks));
}

GraphTag::GraphTag(uint64_t graph_hash) : previous_(tls_graph_hash) { tls_graph_hash = graph_hash; }
GraphTag::~GraphTag() { tls_graph_hash = previous_; }
uint64_t GraphTag::current() { return tls_graph_hash; }

namespace detail {

struct CollectiveScope::State {
  std::unique_lock<std::mutex> lock{collective_mutex()};
  Communicator* communicator = nullptr;
  std::chrono::steady_clock::time_point start;
  int64_t bytes = 0;
};

CollectiveScope::CollectiveScope(std::string_view op, const CollectiveCall& call) {
  if (GraphTag::current() == 0) wait_for_traced_collectives();
  state_ = std::make_unique<State>();
  Communicator& c = distributed::communicator(op);
  state_->communicator = &c;
  const int64_t sequence = next_sequence++;
  state_->start = std::chrono::steady_clock::now();
  if (c.world_size() > 1) check_fingerprint(c, op, call, sequence);
  state_->bytes = call.numel * static_cast<int64_t>(itemsize(call.dtype));
}

Communicator& CollectiveScope::communicator() const { return *state_->communicator; }

CollectiveScope::~CollectiveScope() {
  static metrics::Counter& calls = metrics::counter("distributed.collectives");
  static metrics::Counter& bytes = metrics::counter("distributed.bytes");
  static metrics::TimedMetric& ms = metrics::timed("distributed.collective_ms");
  calls.add();
  bytes.add(state_->bytes);
  ms.record(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                      state_->start)
                .count());
}

}  // namespace detail
}  // namespace lazygen::distributed
