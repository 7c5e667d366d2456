#pragma once
// ThreadPool: a fixed set of worker threads for data-parallel loops such as
// Monte Carlo. ParallelFor(n, body) runs body(i, thread_index) for every i in
// [0, n) and returns when all are done; the calling thread works too, as
// thread_index 0, so a pool of one thread runs the loop inline and starts no
// thread. Indices are handed out one at a time in increasing order from a
// shared counter (dynamic scheduling), so uneven iterations balance; which
// thread runs which index is not deterministic, so results that must not
// depend on the thread count should be stored per index, not per thread.
//
// One ParallelFor runs at a time per pool (concurrent callers wait);
// calling ParallelFor from inside a body of the same pool throws
// std::logic_error instead of deadlocking.
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace tern {

class ThreadPool {
 public:
  // A pool whose loops run on num_threads threads: the caller of
  // ParallelFor and num_threads - 1 workers, or, with caller_works = false,
  // num_threads workers while the caller waits. The latter keeps the
  // caller's allocations out of the loop: objects a body allocates on the
  // caller's thread come from the same heap arena as the long-lived data
  // every thread reads (a diagram), and writing them then invalidates
  // cache lines the other threads share (false sharing: about 15% more CPU
  // per Monte Carlo sample on 2 threads). Throws std::invalid_argument
  // unless num_threads >= 1.
  explicit ThreadPool(int num_threads, bool caller_works = true);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The number of threads that run a loop (the caller included if it works).
  int num_threads() const {
    return static_cast<int>(workers_.size()) + (caller_works_ ? 1 : 0);
  }

  // Runs body(i, thread_index), thread_index in [0, num_threads()), for i in
  // [0, n). If bodies throw, no further indices are started, the call waits
  // for the running ones and rethrows the exception of the lowest failing
  // index (the same one whatever the thread count). Throws
  // std::invalid_argument if n < 0.
  void ParallelFor(std::int64_t n,
                   const std::function<void(std::int64_t, int)>& body);

  // std::thread::hardware_concurrency(), or 1 if it is unknown.
  static int HardwareConcurrency();

 private:
  void WorkerLoop(int thread_index);
  void Work(int thread_index);

  bool caller_works_{true};
  std::vector<std::thread> workers_;
  std::mutex call_mutex_;  // serializes ParallelFor callers

  std::mutex mutex_;  // guards the fields below
  std::condition_variable start_cv_;
  std::condition_variable done_cv_;
  std::uint64_t generation_{0};  // incremented per loop
  int pending_workers_{0};       // workers still inside the current loop
  bool shutdown_{false};

  // The current loop, set under mutex_ before generation_ changes.
  const std::function<void(std::int64_t, int)>* body_{nullptr};
  std::int64_t n_{0};
  std::int64_t next_index_{0};  // guarded by mutex_ together with stop_
  bool stop_{false};
  std::int64_t error_index_{-1};
  std::exception_ptr error_;
};

}  // namespace tern
