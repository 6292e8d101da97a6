// The persistent worker pool behind parallel_for (thread_pool.h).
//
// One job at a time. The caller publishes a Job (on its own stack) through an atomic pointer and
// bumps a generation number; workers and the caller claim chunk indices with an atomic counter.
// The caller returns once every chunk is done and no worker still holds the job: a worker counts
// itself active before it loads the job pointer, and the caller clears the pointer before it
// waits for the active count to drop, so no worker can touch a finished job.
// Workers spin (yielding) for kSpinTime after a job before sleeping on the condition variable,
// because programs issue parallel sections back to back: a lazy graph runs a group or library op
// after another, each splitting over the pool, with serial work of up to a few hundred
// microseconds between. A sleeping worker takes a futex wake-up to start: with 50 us of spin,
// ResNet-18's training step spent ~15% of its time waiting on wake-ups (134 -> 114 ms a step with
// 1 ms, the tutorial CNN unchanged, the MLP's lazy step 20% faster). Spinning yields, so a thread
// that has work (the tracing thread, another process) still gets the core.
#include "core/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "lazygen/tls.h"

namespace lazygen::cpu {
namespace {

constexpr int kDefaultThreads = 2;
constexpr auto kSpinTime = std::chrono::microseconds(1000);
constexpr int64_t kChunkAlignment = 64;  // elements: chunk edges stay on cache lines
constexpr int64_t kMinAlignedChunk = 8 * kChunkAlignment;

thread_local bool t_in_pool_task LAZYGEN_FAST_TLS = false;

struct Job {
  Job(detail::RangeFn f, void* c, int64_t b, int64_t e, int n)
      : fn(f), ctx(c), begin(b), end(e), chunks(n) {}

  detail::RangeFn fn;
  void* ctx;
  int64_t begin, end;
  int chunks;
  std::atomic<int> next{0};
  std::atomic<int> done{0};
  std::mutex error_mutex;
  std::exception_ptr error;

  // Chunk edges fall on multiples of kChunkAlignment when chunks are long enough for that to
  // leave them balanced; short ranges (rows, samples, parts) are split exactly.
  int64_t edge(int k) const {
    if (k == chunks) return end;
    const int64_t length = end - begin, raw = length * k / chunks;
    if (length / chunks < kMinAlignedChunk) return begin + raw;
    return begin + raw / kChunkAlignment * kChunkAlignment;
  }
};

void run_chunks(Job& job) {
  for (int c; (c = job.next.fetch_add(1)) < job.chunks;) {
    try {
      if (job.edge(c) < job.edge(c + 1)) job.fn(job.ctx, job.edge(c), job.edge(c + 1));
    } catch (...) {
      std::lock_guard<std::mutex> lock(job.error_mutex);
      if (!job.error) job.error = std::current_exception();
    }
    job.done.fetch_add(1, std::memory_order_release);
  }
}

class ThreadPool {
 public:
  explicit ThreadPool(int threads) { resize(threads); }
  void resize(int threads);
  // false when another caller is using the pool: the caller then runs serially.
  bool run(Job& job);

 private:
  void worker_loop(uint64_t seen);
  bool wait_for_job(uint64_t& seen);

  std::mutex run_mutex_;  // one job at a time
  std::mutex mutex_;      // guards stopping_ and generation changes (for the condition variable)
  std::condition_variable wake_;
  std::vector<std::thread> workers_;
  bool stopping_ = false;
  std::atomic<uint64_t> generation_{0};
  std::atomic<Job*> job_{nullptr};
  std::atomic<int> active_{0};
};

void ThreadPool::resize(int threads) {
  std::lock_guard<std::mutex> job(run_mutex_);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
  workers_.clear();
  stopping_ = false;
  // Workers start from the generation current now (no job can be published while run_mutex_ is
  // held), so a job published before a new thread gets going is still picked up.
  const uint64_t start = generation_.load();
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, start] { worker_loop(start); });
}

// Waits for a generation other than `seen`; false when the pool is stopping.
bool ThreadPool::wait_for_job(uint64_t& seen) {
  const auto spin_until = std::chrono::steady_clock::now() + kSpinTime;
  while (generation_.load() == seen && std::chrono::steady_clock::now() < spin_until) {
    std::this_thread::yield();
  }
  std::unique_lock<std::mutex> lock(mutex_);
  wake_.wait(lock, [&] { return stopping_ || generation_.load() != seen; });
  seen = generation_.load();
  return !stopping_;
}

void ThreadPool::worker_loop(uint64_t seen) {
  t_in_pool_task = true;  // a kernel running here must not wait on the pool again
  while (wait_for_job(seen)) {
    active_.fetch_add(1);
    if (Job* job = job_.load()) run_chunks(*job);
    active_.fetch_sub(1);
  }
}

bool ThreadPool::run(Job& job) {
  std::unique_lock<std::mutex> exclusive(run_mutex_, std::try_to_lock);
  if (!exclusive.owns_lock()) return false;
  job_.store(&job);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  t_in_pool_task = true;
  run_chunks(job);
  t_in_pool_task = false;
  while (job.done.load(std::memory_order_acquire) < job.chunks) std::this_thread::yield();
  job_.store(nullptr);
  while (active_.load() > 0) std::this_thread::yield();
  if (job.error) std::rethrow_exception(job.error);
  return true;
}

std::atomic<int> g_threads{0};

ThreadPool& pool() {
  // Leaked: workers must not be joined during static destruction.
  static auto* p = new ThreadPool(num_threads());
  return *p;
}

}  // namespace

int num_threads() {
  int n = g_threads.load();
  if (n == 0) {
    const int hw = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    n = std::min(kDefaultThreads, hw);
    if (const char* env = std::getenv("LAZYGEN_NUM_THREADS")) {
      const int wanted = std::atoi(env);
      if (wanted >= 1) n = wanted;  // anything else keeps the default
    }
    g_threads.store(n);
  }
  return n;
}

void set_num_threads(int n) {
  g_threads.store(std::max(1, n));
  pool().resize(g_threads.load());
}

namespace detail {

void parallel_for_impl(int64_t begin, int64_t end, int64_t grain, RangeFn fn, void* ctx) {
  const int chunks = static_cast<int>(std::min<int64_t>(num_threads(), (end - begin) / grain));
  if (chunks <= 1 || t_in_pool_task) {
    fn(ctx, begin, end);
    return;
  }
  Job job(fn, ctx, begin, end, chunks);
  if (!pool().run(job)) fn(ctx, begin, end);
}

}  // namespace detail
}  // namespace lazygen::cpu
