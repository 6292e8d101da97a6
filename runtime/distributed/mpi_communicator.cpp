// MpiCommunicator (mpi_communicator.h).
#include "distributed/mpi_communicator.h"

#include <mpi.h>

#include <chrono>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

namespace lazygen::distributed {
namespace {

bool g_we_initialized = false;

MPI_Datatype mpi_type(DType dtype) {
  switch (dtype) {
    case DType::Int32:
      return MPI_INT32_T;
    case DType::Int64:
      return MPI_INT64_T;
    case DType::Float32:
      return MPI_FLOAT;
    case DType::Float64:
      return MPI_DOUBLE;
    case DType::Bool:
      break;
  }
  throw CollectiveError("mpi: no sum for " + std::string(dtype_name(dtype)));
}

std::string mpi_message(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return std::string(text, static_cast<size_t>(length));
}

class MpiCommunicator final : public Communicator {
 public:
  explicit MpiCommunicator(double timeout_s) : timeout_s_(timeout_s) {
    check(MPI_Comm_dup(MPI_COMM_WORLD, &comm_), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &size_);
  }
  ~MpiCommunicator() override {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }

  std::string_view engine() const override { return "mpi"; }
  int rank() const override { return rank_; }
  int world_size() const override { return size_; }

  void all_reduce_sum(void* data, int64_t numel, DType dtype) override {
    const MPI_Datatype type = mpi_type(dtype);
    char* p = static_cast<char*>(data);
    for (int64_t done = 0; done < numel;) {  // counts are int: chunks of at most INT_MAX
      const int n = static_cast<int>(std::min<int64_t>(numel - done, INT_MAX));
      MPI_Request request;
      check(MPI_Iallreduce(MPI_IN_PLACE, p + done * static_cast<int64_t>(itemsize(dtype)), n,
                           type, MPI_SUM, comm_, &request),
            "MPI_Iallreduce");
      wait(request, "all_reduce");
      done += n;
    }
  }
  void all_reduce_max(int64_t* data, int64_t numel) override {
    MPI_Request request;
    check(MPI_Iallreduce(MPI_IN_PLACE, data, checked_int(numel), MPI_INT64_T, MPI_MAX, comm_,
                         &request),
          "MPI_Iallreduce");
    wait(request, "the collective check");
  }
  void all_gather(const void* in, void* out, int64_t bytes) override {
    MPI_Request request;
    const int n = checked_int(bytes);
    check(MPI_Iallgather(in, n, MPI_BYTE, out, n, MPI_BYTE, comm_, &request), "MPI_Iallgather");
    wait(request, "all_gather");
  }
  void broadcast(void* data, int64_t bytes, int root) override {
    MPI_Request request;
    check(MPI_Ibcast(data, checked_int(bytes), MPI_BYTE, root, comm_, &request), "MPI_Ibcast");
    wait(request, "broadcast");
  }
  void barrier() override {
    MPI_Request request;
    check(MPI_Ibarrier(comm_, &request), "MPI_Ibarrier");
    wait(request, "barrier");
  }

 private:
  static int checked_int(int64_t n) {
    if (n > INT_MAX) {
      throw CollectiveError("mpi: a single all_gather or broadcast of more than 2 GiB (" +
                            std::to_string(n) + " bytes) is not supported; split the tensor");
    }
    return static_cast<int>(n);
  }
  void check(int code, const char* call) const {
    if (code != MPI_SUCCESS) {
      throw CollectiveError(std::string(call) + " failed on rank " + std::to_string(rank_) +
                            ": " + mpi_message(code));
    }
  }
  // Polls `request` until it completes: spinning for the first 50 us (small collectives
  // finish in a few), then sleeping 20 us between polls so that a waiting rank leaves its core
  // to the others. Raises CollectiveError after timeout_s_.
  void wait(MPI_Request& request, const char* what) const {
    using clock = std::chrono::steady_clock;
    const auto start = clock::now();
    const auto spin_until = start + std::chrono::microseconds(50);
    const auto deadline = start + std::chrono::duration<double>(timeout_s_);
    for (;;) {
      int done = 0;
      check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
      if (done) return;
      const auto now = clock::now();
      if (now > deadline) {
        char seconds[32];
        std::snprintf(seconds, sizeof seconds, "%g", timeout_s_);
        throw CollectiveError(
            std::string(what) + ": rank " + std::to_string(rank_) + " of " +
            std::to_string(size_) + " waited " + seconds +
            " s for the other ranks to join; one of them died, hung or stopped running "
            "collectives (the timeout is distributed::InitOptions::timeout_s, or "
            "LAZYGEN_COLLECTIVE_TIMEOUT seconds)");
      }
      if (now > spin_until) std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
  }

  double timeout_s_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace

std::shared_ptr<Communicator> make_mpi_communicator(double timeout_s) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = MPI_THREAD_SINGLE;
  if (initialized) {
    MPI_Query_thread(&provided);
  } else {
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    g_we_initialized = true;
  }
  if (provided < MPI_THREAD_SERIALIZED) {
    throw CollectiveError(
        "distributed::init: MPI gives thread level " + std::to_string(provided) +
        "; lazygen runs collectives from its executor thread and needs MPI_THREAD_SERIALIZED");
  }
  return std::make_shared<MpiCommunicator>(timeout_s);
}

int mpi_local_size() {
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  if (local == nullptr) local = std::getenv("MPI_LOCALNRANKS");  // MPICH
  const int n = local != nullptr ? std::atoi(local) : 1;
  return n > 0 ? n : 1;
}

void shutdown_mpi() {
  if (!g_we_initialized) return;
  g_we_initialized = false;
  MPI_Finalize();
}

void abort_mpi(int code) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

}  // namespace lazygen::distributed
