#include "tern/common/thread_pool.h"

#include <stdexcept>
#include <string>

namespace tern {
namespace {
// The pool whose loop body the current thread is running, to catch nested
// ParallelFor calls.
thread_local const ThreadPool* current_pool = nullptr;
}  // namespace

ThreadPool::ThreadPool(int num_threads, bool caller_works)
    : caller_works_(caller_works) {
  if (num_threads < 1) {
    throw std::invalid_argument(
        "ThreadPool: num_threads must be at least 1, got " +
        std::to_string(num_threads));
  }
  // Thread index 0 is the caller's when it works.
  const int first_worker = caller_works ? 1 : 0;
  workers_.reserve(num_threads - first_worker);
  for (int t = first_worker; t < num_threads; ++t) {
    workers_.emplace_back([this, t] { WorkerLoop(t); });
  }
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    shutdown_ = true;
  }
  start_cv_.notify_all();
  for (std::thread& w : workers_) w.join();
}

int ThreadPool::HardwareConcurrency() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

void ThreadPool::ParallelFor(
    std::int64_t n, const std::function<void(std::int64_t, int)>& body) {
  if (n < 0) {
    throw std::invalid_argument(
        "ThreadPool::ParallelFor: n must be >= 0, got " + std::to_string(n));
  }
  if (current_pool == this) {
    throw std::logic_error(
        "ThreadPool::ParallelFor: called from inside a loop body of the same "
        "pool (nested loops would deadlock)");
  }
  std::lock_guard<std::mutex> call_lock(call_mutex_);
  if (n == 0) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    body_ = &body;
    n_ = n;
    next_index_ = 0;
    stop_ = false;
    error_index_ = -1;
    error_ = nullptr;
    pending_workers_ = static_cast<int>(workers_.size());
    ++generation_;
  }
  start_cv_.notify_all();
  if (caller_works_) Work(0);
  std::exception_ptr error;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    done_cv_.wait(lock, [this] { return pending_workers_ == 0; });
    body_ = nullptr;
    error = error_;
    error_ = nullptr;
  }
  if (error) std::rethrow_exception(error);
}

void ThreadPool::WorkerLoop(int thread_index) {
  std::uint64_t seen = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      start_cv_.wait(lock, [&] { return shutdown_ || generation_ != seen; });
      if (shutdown_) return;
      seen = generation_;
    }
    Work(thread_index);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_workers_ == 0) done_cv_.notify_one();
    }
  }
}

void ThreadPool::Work(int thread_index) {
  current_pool = this;
  for (;;) {
    std::int64_t i;
    const std::function<void(std::int64_t, int)>* body;
    {
      // One lock per index: Monte Carlo iterations take milliseconds, so
      // the simplicity is worth more than an atomic counter.
      std::lock_guard<std::mutex> lock(mutex_);
      if (stop_ || next_index_ >= n_) break;
      i = next_index_++;
      body = body_;
    }
    try {
      (*body)(i, thread_index);
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      if (error_index_ < 0 || i < error_index_) {
        error_index_ = i;
        error_ = std::current_exception();
      }
    }
  }
  current_pool = nullptr;
}

}  // namespace tern
