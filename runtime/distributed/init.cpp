// distributed::init, finalize, abort and shard (lazygen/distributed.h).
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "lazygen/distributed.h"
#include "lazygen/generated/ops/narrow.h"
#include "lazygen/operators.h"

#if LAZYGEN_HAVE_MPI
#include "distributed/mpi_communicator.h"
#endif

namespace lazygen::distributed {
namespace {

constexpr double kDefaultTimeoutS = 300;

double timeout_of(const InitOptions& options) {
  if (options.timeout_s > 0) return options.timeout_s;
  if (const char* env = std::getenv("LAZYGEN_COLLECTIVE_TIMEOUT")) {
    char* end = nullptr;
    const double s = std::strtod(env, &end);
    if (end == env || *end != '\0' || !(s > 0)) {
      throw std::invalid_argument("LAZYGEN_COLLECTIVE_TIMEOUT='" + std::string(env) +
                                  "': expected a positive number of seconds");
    }
    return s;
  }
  return kDefaultTimeoutS;
}

}  // namespace

void init(const InitOptions& options) {
  if (has_communicator()) {
    throw std::runtime_error("distributed::init: already initialized (engine " +
                             std::string(communicator().engine()) + ")");
  }
  const double timeout_s = timeout_of(options);
  if (options.engine == "local") {
    set_communicator(local_communicator());
    return;
  }
  if (options.engine != "mpi") {
    throw std::invalid_argument("distributed::init: unknown engine '" + options.engine +
                                "'; engines: 'mpi', 'local'");
  }
#if LAZYGEN_HAVE_MPI
  set_communicator(make_mpi_communicator(timeout_s));
  share_cores(mpi_local_size());
#else
  (void)timeout_s;
  throw std::runtime_error(
      "distributed::init: this lazygen was built without MPI; install Debian's libopenmpi-dev "
      "and openmpi-bin (scripts/setup does) and configure again (LAZYGEN_MPI=AUTO or ON)");
#endif
}

bool is_initialized() { return has_communicator(); }

void finalize() {
  if (!has_communicator()) return;
  barrier();  // after the lazy device's queued collectives (Note [Collective order])
  set_communicator(nullptr);
#if LAZYGEN_HAVE_MPI
  shutdown_mpi();
#endif
}

void abort(int code) {
#if LAZYGEN_HAVE_MPI
  abort_mpi(code);
#else
  std::exit(code);
#endif
}

Tensor shard(const Tensor& global_batch) {
  const int64_t world = world_size(), r = rank();
  if (global_batch.dim() == 0) {
    throw std::invalid_argument("distributed::shard: a 0-dim tensor has no rows to share");
  }
  const int64_t n = global_batch.size(0);
  if (n % world != 0) {
    throw std::invalid_argument("distributed::shard: a batch of " + std::to_string(n) +
                                " rows does not split evenly over " + std::to_string(world) +
                                " ranks; use a global batch divisible by the world size (and "
                                "drop the last, short batch)");
  }
  const int64_t part = n / world;
  return narrow(global_batch, 0, r * part, part).contiguous();
}

}  // namespace lazygen::distributed
