#include "tern/mpi/monte_carlo_mpi.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>

#include "tern/common/thread_pool.h"

namespace tern {
namespace {

using Clock = std::chrono::steady_clock;
using Seconds = std::chrono::duration<double>;

// The generator travels as bytes in the "no more work" message.
static_assert(std::is_trivially_copyable_v<RandomGenerator>);

// Message layouts (bytes). To rank 0, tag to_root, first byte the type:
//   kRequest    [type][int32 threads of the sender]
//   kResults    [type][int64 first][int64 count][count doubles]
//               [count uint32 error lengths][error characters]
//   kHeartbeat  [type]
// From rank 0, tag from_root, the answer to a request:
//   [int64 first][int64 count][count uint64 seeds]; count 0 means no more
//   work and is followed by rank 0's generator (sizeof(RandomGenerator)).
enum MessageType : char { kRequest = 1, kResults = 2, kHeartbeat = 3 };

class Writer {
 public:
  template <class T>
  void Put(const T& value) {
    PutBytes(&value, sizeof(T));
  }
  void PutBytes(const void* data, std::size_t n) {
    if (n == 0) return;
    const std::size_t old_size = bytes_.size();
    bytes_.resize(old_size + n);
    std::memcpy(bytes_.data() + old_size, data, n);
  }
  std::vector<char> Take() { return std::move(bytes_); }

 private:
  std::vector<char> bytes_;
};

class Reader {
 public:
  Reader(const std::vector<char>& bytes, int from)
      : p_(bytes.data()), end_(bytes.data() + bytes.size()), from_(from) {}
  template <class T>
  T Get() {
    T value;
    GetBytes(&value, sizeof(T));
    return value;
  }
  void GetBytes(void* out, std::size_t n) {
    if (static_cast<std::size_t>(end_ - p_) < n) {
      throw std::logic_error(fmt::format(
          "DistributedMonteCarloSimulation: truncated message from rank {}",
          from_));
    }
    std::memcpy(out, p_, n);
    p_ += n;
  }

 private:
  const char* p_;
  const char* end_;
  int from_;
};

[[noreturn]] void AbortJob(MPI_Comm comm, const std::string& message) {
  std::fprintf(stderr,
               "DistributedMonteCarloSimulation: %s; aborting the job\n",
               message.c_str());
  std::fflush(stderr);
  MPI_Abort(comm, 1);
  std::abort();  // MPI_Abort does not return; this is for the compiler.
}

// Sends without blocking; keeps each buffer until its send completes.
class Outbox {
 public:
  explicit Outbox(MPI_Comm comm) : comm_(comm) {}
  void Send(int dest, int tag, std::vector<char> bytes) {
    pending_.push_back({MPI_REQUEST_NULL, std::move(bytes)});
    Pending& p = pending_.back();
    MPI_Isend(p.bytes.data(), static_cast<int>(p.bytes.size()), MPI_BYTE, dest,
              tag, comm_, &p.request);
  }
  void Progress() {
    for (auto it = pending_.begin(); it != pending_.end();) {
      int done = 0;
      MPI_Test(&it->request, &done, MPI_STATUS_IGNORE);
      it = done ? pending_.erase(it) : std::next(it);
    }
  }
  bool empty() const { return pending_.empty(); }

 private:
  struct Pending {
    MPI_Request request;
    std::vector<char> bytes;
  };
  MPI_Comm comm_;
  std::list<Pending> pending_;  // a list: buffers must not move
};

// Receives a message with `tag` from `source` if one has arrived.
bool TryReceive(MPI_Comm comm, int source, int tag, std::vector<char>* bytes,
                int* from) {
  int flag = 0;
  MPI_Message message;
  MPI_Status status;
  MPI_Improbe(source, tag, comm, &flag, &message, &status);
  if (!flag) return false;
  int count = 0;
  MPI_Get_count(&status, MPI_BYTE, &count);
  bytes->resize(count);
  MPI_Mrecv(bytes->data(), count, MPI_BYTE, &message, MPI_STATUS_IGNORE);
  *from = status.MPI_SOURCE;
  return true;
}

// An idle main thread polls the network with a sleep that doubles from
// 50 µs up to poll_interval and restarts at 50 µs when something happens:
// prompt answers while messages flow, few wake-ups while samples run.
class Backoff {
 public:
  explicit Backoff(double max_seconds) : max_(max_seconds) {}
  void Reset() { current_ = std::min(kMin, max_); }
  double Next() {
    const double s = current_;
    current_ = std::min(2 * current_, max_);
    return s;
  }

 private:
  static constexpr double kMin = 50e-6;
  double max_;
  double current_{std::min(kMin, max_)};
};

double Since(Clock::time_point t) { return Seconds(Clock::now() - t).count(); }

// Joins the threads however the scope is left; `stop` makes them return.
class ThreadGroup {
 public:
  explicit ThreadGroup(std::function<void()> stop) : stop_(std::move(stop)) {}
  ~ThreadGroup() {
    if (!threads_.empty() && !joined_) stop_();
    Join();
  }
  template <class F>
  void Start(int n, F body) {
    for (int i = 0; i < n; ++i) threads_.emplace_back(body);
  }
  void Join() {
    for (std::thread& t : threads_) {
      if (t.joinable()) t.join();
    }
    joined_ = true;
  }

 private:
  std::function<void()> stop_;
  std::vector<std::thread> threads_;
  bool joined_{false};
};

// How many calls this rank has made on `comm` before this one, kept on the
// communicator as an MPI attribute (freed with it). Every rank of the
// communicator makes the same calls, so they agree on the number.
int DeleteCallCount(MPI_Comm, int, void* value, void*) {
  delete static_cast<std::uint64_t*>(value);
  return MPI_SUCCESS;
}

std::uint64_t NextCallNumber(MPI_Comm comm) {
  static const int keyval = [] {
    int k = MPI_KEYVAL_INVALID;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, DeleteCallCount, &k, nullptr);
    return k;
  }();
  void* value = nullptr;
  int found = 0;
  MPI_Comm_get_attr(comm, keyval, &value, &found);
  if (!found) {
    value = new std::uint64_t(0);
    MPI_Comm_set_attr(comm, keyval, value);
  }
  return (*static_cast<std::uint64_t*>(value))++;
}

struct Setup {
  const SimulatorFactory* make_simulator;
  const ScalarSystemFunction* output;
  double final_time;
  std::int64_t num_samples;
  int threads;
  const DistributedMonteCarloOptions* options;
  int rank;
  int size;
  int to_root;  // the tags of this call
  int from_root;
};

// What every rank shares: the study, the MPI lock and the main thread's
// wake-up. Communication is one Progress() step at a time under mpi_mutex_:
// the main thread runs it when it wakes, and, if MPI allows any thread to
// call it (MPI_THREAD_SERIALIZED or more), the sample threads run it
// between two samples when nobody else is: then messages are handled within
// one sample's time at almost no cost (an MPI_Improbe is ~0.1 µs), and the
// main thread can sleep long (options.poll_interval). With
// MPI_THREAD_FUNNELED only the main thread communicates and it polls at
// least every 0.5 ms.
class RankBase {
 protected:
  RankBase(const Setup& s, bool threads_call_mpi)
      : s_(s),
        comm_(s.options->comm),
        threads_call_mpi_(threads_call_mpi),
        outbox_(s.options->comm) {}

  // A sample thread's turn at communication, if the lock is free.
  template <class F>
  void MaybeProgress(F progress) {
    if (!threads_call_mpi_ || !mpi_mutex_.try_lock()) return;
    try {
      progress();
    } catch (const std::exception& e) {
      // A broken protocol on a sample thread: nobody could catch it there.
      AbortJob(comm_, e.what());
    }
    mpi_mutex_.unlock();
  }

  // Wakes the main thread now (its sleep restarts short).
  void Poke() {
    std::lock_guard<std::mutex> lock(wake_mutex_);
    poked_ = true;
    wake_cv_.notify_one();
  }

  // The main thread: progress(), until finished() (both called under the
  // MPI lock), sleeping between steps. Each wake-up costs ~20 µs of CPU on a
  // virtual machine, so it sleeps poll_interval while the sample threads
  // communicate, and polls fast (from 50 µs, doubling up to 1 ms) only
  // while urgent(): when its threads have nothing to do until a message
  // arrives. With MPI_THREAD_FUNNELED it alone communicates and polls from
  // 50 µs up to min(poll_interval, 0.5 ms), restarting after each message.
  template <class F, class G, class H>
  void MainLoop(F progress, G finished, H urgent) {
    Backoff fast(1e-3);
    Backoff funneled(std::min(s_.options->poll_interval, 5e-4));
    bool was_urgent = false;
    for (;;) {
      bool active = false, now_urgent = false;
      {
        std::lock_guard<std::mutex> lock(mpi_mutex_);
        active = progress();
        if (finished()) return;
        now_urgent = urgent();
      }
      double sleep = s_.options->poll_interval;
      if (!threads_call_mpi_) {
        if (active) funneled.Reset();
        sleep = funneled.Next();
      } else if (now_urgent) {
        if (!was_urgent) fast.Reset();
        sleep = fast.Next();
      }
      was_urgent = now_urgent;
      if (active && !threads_call_mpi_) continue;
      std::unique_lock<std::mutex> lock(wake_mutex_);
      wake_cv_.wait_for(lock, Seconds(sleep), [&] { return poked_; });
      poked_ = false;
    }
  }

  RandomSimulationResult Sample(std::int64_t index, std::uint64_t seed) const {
    if (s_.options->before_sample) s_.options->before_sample(index);
    return RunMonteCarloSample(*s_.make_simulator, *s_.output, s_.final_time,
                               index, seed);
  }

  const Setup& s_;
  MPI_Comm comm_;
  const bool threads_call_mpi_;
  std::mutex mpi_mutex_;  // one communicator at a time; guards outbox_
  Outbox outbox_;

 private:
  std::mutex wake_mutex_;
  std::condition_variable wake_cv_;
  bool poked_{false};
};

// ---- Rank 0: coordinator and worker.
class Root : public RankBase {
 public:
  Root(const Setup& s, bool threads_call_mpi, RandomGenerator* generator)
      : RankBase(s, threads_call_mpi),
        n_(s.num_samples),
        generator_(generator),
        results_(s.num_samples),
        last_heard_(s.size, Clock::now()),
        held_(s.size, 0),
        finished_(s.size, 0),
        workers_left_(s.size - 1),
        granted_once_(s.size, 0),
        ranks_not_granted_(s.size - 1),
        all_granted_(!s.options->wait_for_all_ranks || s.size == 1) {
    // All seeds first, in order, as MonteCarloSimulation draws them.
    for (RandomSimulationResult& r : results_) r.seed = generator->NextSeed();
  }

  std::vector<RandomSimulationResult> Run(DistributedMonteCarloStats* stats) {
    ThreadGroup threads([&] { next_.store(n_); });
    threads.Start(std::min<std::int64_t>(s_.threads, n_), [&] {
      // options.wait_for_all_ranks: no local sample before every rank
      // has its first chunk; meanwhile this thread helps communicate.
      while (!all_granted_.load()) {
        MaybeProgress([&] { Progress(); });
        std::this_thread::sleep_for(std::chrono::microseconds(200));
      }
      for (;;) {
        const std::int64_t i = next_.fetch_add(1);
        if (i >= n_) break;
        results_[i] = Sample(i, results_[i].seed);
        local_done_.fetch_add(1);
        MaybeProgress([&] { Progress(); });
      }
      Poke();  // the main thread takes over, and may be finished
    });
    MainLoop([&] { return Progress(); },
             [&] {
               return local_done_.load() + remote_done_ == n_ &&
                      workers_left_ == 0 && outbox_.empty();
             },
             [&] { return next_.load() >= n_; });
    threads.Join();
    if (stats != nullptr) stats->samples_run = local_done_.load();
    return std::move(results_);
  }

 private:
  // Takes up to `want` samples from the shared counter: [first, first+count).
  std::int64_t Take(std::int64_t want, std::int64_t* first) {
    std::int64_t cur = next_.load();
    std::int64_t count = 0;
    do {
      count = std::clamp<std::int64_t>(n_ - cur, 0, want);
    } while (count > 0 && !next_.compare_exchange_weak(cur, cur + count));
    *first = cur;
    return count;
  }

  void Grant(int to, std::int32_t their_threads) {
    // Guided: half of an equal share of what is left, at least a sample per
    // thread; or the fixed chunk size.
    const std::int64_t remaining = std::max<std::int64_t>(0, n_ - next_);
    const std::int64_t want =
        s_.options->chunk_size > 0
            ? s_.options->chunk_size
            : std::max<std::int64_t>(
                  std::max(1, their_threads),
                  (remaining + 2 * s_.size - 1) / (2 * s_.size));
    std::int64_t first = 0;
    const std::int64_t count = Take(want, &first);
    Writer out;
    out.Put<std::int64_t>(first);
    out.Put<std::int64_t>(count);
    for (std::int64_t i = first; i < first + count; ++i) {
      out.Put<std::uint64_t>(results_[i].seed);
    }
    if (count == 0) {
      out.PutBytes(generator_, sizeof(RandomGenerator));
      finished_[to] = 1;
      --workers_left_;
    }
    held_[to] += count;
    if (!granted_once_[to]) {
      granted_once_[to] = 1;
      if (--ranks_not_granted_ == 0) all_granted_.store(true);
    }
    outbox_.Send(to, s_.from_root, out.Take());
  }

  void Store(int from, Reader* in) {
    const auto first = in->Get<std::int64_t>();
    const auto count = in->Get<std::int64_t>();
    if (first < 0 || count < 0 || first + count > n_) {
      throw std::logic_error(fmt::format(
          "DistributedMonteCarloSimulation: rank {} returned samples [{}, {}) "
          "of {}",
          from, first, first + count, n_));
    }
    for (std::int64_t i = first; i < first + count; ++i) {
      results_[i].output = in->Get<double>();
    }
    std::vector<std::uint32_t> lengths(count);
    for (auto& length : lengths) length = in->Get<std::uint32_t>();
    for (std::int64_t i = first; i < first + count; ++i) {
      results_[i].error.resize(lengths[i - first]);
      in->GetBytes(results_[i].error.data(), lengths[i - first]);
    }
    held_[from] -= count;
    remote_done_ += count;
  }

  // One step under the MPI lock; true if a message arrived.
  bool Progress() {
    bool active = false;
    int from = 0;
    while (TryReceive(comm_, MPI_ANY_SOURCE, s_.to_root, &bytes_, &from)) {
      active = true;
      last_heard_[from] = Clock::now();
      Reader in(bytes_, from);
      const char type = in.Get<char>();
      if (type == kRequest) {
        if (finished_[from]) {
          throw std::logic_error(fmt::format(
              "DistributedMonteCarloSimulation: rank {} asked for work after "
              "being told there is none",
              from));
        }
        Grant(from, in.Get<std::int32_t>());
      } else if (type == kResults) {
        Store(from, &in);
      }  // kHeartbeat: last_heard_ is all it updates.
    }
    outbox_.Progress();
    if (active && workers_left_ == 0 && remote_done_ + local_done_ == n_) {
      Poke();
    }
    for (int r = 1; r < s_.size; ++r) {
      const bool expected = !finished_[r] || held_[r] > 0;
      if (expected && Since(last_heard_[r]) > s_.options->rank_timeout) {
        AbortJob(comm_,
                 fmt::format("rank {} has sent nothing for {:.3g} s while {} "
                             "(dead, stopped or unreachable)",
                             r, s_.options->rank_timeout,
                             held_[r] > 0
                                 ? fmt::format("holding {} samples", held_[r])
                                 : std::string("expected to ask for work")));
      }
    }
    return active;
  }

  const std::int64_t n_;
  RandomGenerator* generator_;
  std::vector<RandomSimulationResult> results_;  // (n) by sample index
  std::atomic<std::int64_t> next_{0};  // the first sample nobody has taken
  std::atomic<std::int64_t> local_done_{0};
  // Under the MPI lock:
  std::vector<Clock::time_point> last_heard_;  // (ranks)
  std::vector<std::int64_t> held_;  // (ranks) samples granted, not returned
  std::vector<char> finished_;      // (ranks) told there is no more work
  int workers_left_;
  std::vector<char> granted_once_;  // (ranks) granted a first chunk
  int ranks_not_granted_;
  std::atomic<bool> all_granted_;  // see options.wait_for_all_ranks
  std::int64_t remote_done_{0};
  std::vector<char> bytes_;
};

// ---- Ranks 1...: ask rank 0 for chunks, run them, send the results back.
struct Chunk {
  std::int64_t first{0};
  std::vector<std::uint64_t> seeds;  // (count)
  std::vector<RandomSimulationResult> results;
  std::int64_t next{0};       // the next sample to start, local index
  std::int64_t remaining{0};  // samples not yet finished
};

class Worker : public RankBase {
 public:
  Worker(const Setup& s, bool threads_call_mpi, RandomGenerator* generator)
      : RankBase(s, threads_call_mpi),
        generator_(generator),
        // Ask for more while two samples per thread still wait, so the
        // answer arrives before the threads run dry.
        low_water_(2 * static_cast<std::int64_t>(s.threads)),
        heartbeat_(s.options->rank_timeout / 8) {}

  void Run(DistributedMonteCarloStats* stats) {
    ThreadGroup group([&] {
      std::lock_guard<std::mutex> lock(mutex_);
      no_more_ = true;
      for (; current_ < chunks_.size(); ++current_) {
        chunks_[current_]->next =
            static_cast<std::int64_t>(chunks_[current_]->seeds.size());
      }
      work_cv_.notify_all();
    });
    group.Start(s_.threads, [&] { SampleLoop(); });
    {
      std::lock_guard<std::mutex> lock(mpi_mutex_);
      Request();
    }
    MainLoop([&] { return Progress(); },
             [&] {
               return got_last_ && num_sent_ == num_chunks_ && outbox_.empty();
             },
             [&] {
               std::lock_guard<std::mutex> lock(mutex_);
               return !got_last_ && waiting_ == 0;  // threads will starve
             });
    group.Join();
    if (stats != nullptr) {
      stats->samples_run = samples_run_;
      stats->chunks_run = static_cast<std::int64_t>(num_chunks_);
      stats->first_chunk = first_chunk_;
      stats->largest_chunk = largest_chunk_;
    }
  }

 private:
  void SampleLoop() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      while (current_ < chunks_.size() &&
             chunks_[current_]->next ==
                 static_cast<std::int64_t>(chunks_[current_]->seeds.size())) {
        ++current_;
      }
      if (current_ == chunks_.size()) {
        if (no_more_) break;
        Poke();  // starving: the main thread polls for the next chunk
        work_cv_.wait(lock);
        continue;
      }
      Chunk* c = chunks_[current_].get();
      const std::int64_t j = c->next++;
      --waiting_;
      lock.unlock();
      RandomSimulationResult r = Sample(c->first + j, c->seeds[j]);
      lock.lock();
      c->results[j] = std::move(r);
      ++samples_run_;
      if (--c->remaining == 0) ready_.push_back(c);
      lock.unlock();
      MaybeProgress([&] { Progress(); });
      lock.lock();
    }
    lock.unlock();
    Poke();
  }

  void Request() {
    Writer out;
    out.Put<char>(kRequest);
    out.Put<std::int32_t>(s_.threads);
    outbox_.Send(0, s_.to_root, out.Take());
    outstanding_ = true;
    request_time_ = last_sent_ = Clock::now();
  }

  void Receive(const std::vector<char>& bytes) {
    Reader in(bytes, 0);
    auto chunk = std::make_unique<Chunk>();
    chunk->first = in.Get<std::int64_t>();
    const auto count = in.Get<std::int64_t>();
    if (count == 0) {
      in.GetBytes(generator_, sizeof(RandomGenerator));
      got_last_ = true;
      std::lock_guard<std::mutex> lock(mutex_);
      no_more_ = true;
      work_cv_.notify_all();
      return;
    }
    chunk->seeds.resize(count);
    for (auto& seed : chunk->seeds) seed = in.Get<std::uint64_t>();
    chunk->results.resize(count);
    chunk->remaining = count;
    if (num_chunks_ == 0) first_chunk_ = count;
    largest_chunk_ = std::max<std::int64_t>(largest_chunk_, count);
    ++num_chunks_;
    std::lock_guard<std::mutex> lock(mutex_);
    chunks_.push_back(std::move(chunk));
    waiting_ += count;
    work_cv_.notify_all();
  }

  void SendResults(Chunk* c) {
    Writer out;
    out.Put<char>(kResults);
    out.Put<std::int64_t>(c->first);
    out.Put<std::int64_t>(static_cast<std::int64_t>(c->seeds.size()));
    for (const auto& r : c->results) out.Put<double>(r.output);
    for (const auto& r : c->results) {
      out.Put<std::uint32_t>(static_cast<std::uint32_t>(r.error.size()));
    }
    for (const auto& r : c->results)
      out.PutBytes(r.error.data(), r.error.size());
    outbox_.Send(0, s_.to_root, out.Take());
    last_sent_ = Clock::now();
    ++num_sent_;
    // Sent: free the results (the chunk stays as a marker in chunks_).
    std::lock_guard<std::mutex> lock(mutex_);
    c->results.clear();
    c->results.shrink_to_fit();
  }

  // One step under the MPI lock; true if something was received or sent.
  bool Progress() {
    bool active = false;
    int from = 0;
    if (outstanding_ && TryReceive(comm_, 0, s_.from_root, &bytes_, &from)) {
      outstanding_ = false;
      active = true;
      Receive(bytes_);
    }
    std::vector<Chunk*> to_send;
    std::int64_t waiting = 0;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      to_send.swap(ready_);
      waiting = waiting_;
    }
    for (Chunk* c : to_send) SendResults(c);
    active = active || !to_send.empty();
    if (!outstanding_ && !got_last_ && waiting < low_water_) {
      Request();
      active = true;
    }
    outbox_.Progress();
    // A heartbeat never follows an unanswered request, so rank 0 has read
    // every message of this call once it has answered the last request and
    // received the last results.
    if (!outstanding_ && Since(last_sent_) > heartbeat_) {
      Writer out;
      out.Put<char>(kHeartbeat);
      outbox_.Send(0, s_.to_root, out.Take());
      last_sent_ = Clock::now();
    }
    if (outstanding_ && Since(request_time_) > s_.options->rank_timeout) {
      AbortJob(comm_, fmt::format("rank {}: rank 0 has not answered a request "
                                  "for work for {:.3g} s (dead, stopped or "
                                  "unreachable)",
                                  s_.rank, s_.options->rank_timeout));
    }
    return active;
  }

  RandomGenerator* generator_;
  const std::int64_t low_water_;
  const double heartbeat_;  // s

  std::mutex mutex_;  // guards the work queue below
  std::condition_variable work_cv_;
  std::deque<std::unique_ptr<Chunk>> chunks_;
  std::size_t current_{0};     // the first chunk with samples to start
  std::int64_t waiting_{0};    // samples received and not started
  bool no_more_{false};        // rank 0 has no more work (or we stop)
  std::vector<Chunk*> ready_;  // finished chunks to send
  std::int64_t samples_run_{0};

  // Under the MPI lock:
  bool outstanding_{false};  // a request rank 0 has not answered
  bool got_last_{false};
  Clock::time_point request_time_, last_sent_;
  std::size_t num_chunks_{0}, num_sent_{0};
  std::int64_t first_chunk_{0}, largest_chunk_{0};
  std::vector<char> bytes_;
};

}  // namespace

std::vector<RandomSimulationResult> DistributedMonteCarloSimulation(
    const SimulatorFactory& make_simulator, const ScalarSystemFunction& output,
    double final_time, int num_samples, RandomGenerator* generator,
    const DistributedMonteCarloOptions& options,
    DistributedMonteCarloStats* stats) {
  constexpr const char* kFunc = "DistributedMonteCarloSimulation";
  CheckMonteCarloArguments(kFunc, make_simulator, output, final_time,
                           num_samples, generator, options.threads_per_rank);
  if (options.chunk_size < 0) {
    throw std::invalid_argument(
        fmt::format("{}: chunk_size must be >= 0 (0: guided), got {}", kFunc,
                    options.chunk_size));
  }
  if (!(options.rank_timeout > 0) || !(options.poll_interval > 0)) {
    throw std::invalid_argument(fmt::format(
        "{}: rank_timeout and poll_interval must be positive, got {} and {}",
        kFunc, options.rank_timeout, options.poll_interval));
  }
  if (options.comm == MPI_COMM_NULL) {
    throw std::invalid_argument(
        fmt::format("{}: comm is MPI_COMM_NULL", kFunc));
  }
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) {
    throw std::logic_error(fmt::format(
        "{}: MPI is not initialized (use tern::MpiSession)", kFunc));
  }
  int provided = MPI_THREAD_SINGLE, is_main = 0;
  MPI_Query_thread(&provided);
  MPI_Is_thread_main(&is_main);
  if (provided < MPI_THREAD_FUNNELED ||
      (provided == MPI_THREAD_FUNNELED && !is_main)) {
    throw std::logic_error(fmt::format(
        "{}: needs MPI initialized with MPI_THREAD_FUNNELED or more (got "
        "level {}), and with MPI_THREAD_FUNNELED must be called from the "
        "thread that initialized it (use tern::MpiSession)",
        kFunc, provided));
  }
  Setup s{&make_simulator,
          &output,
          final_time,
          num_samples,
          options.threads_per_rank == kNumThreadsAutomatic
              ? ThreadPool::HardwareConcurrency()
              : options.threads_per_rank,
          &options,
          0,
          1,
          0,
          0};
  const int pair = static_cast<int>(NextCallNumber(options.comm) % 2);
  s.to_root = kMpiFirstTag + 2 * pair;
  s.from_root = kMpiFirstTag + 2 * pair + 1;
  MPI_Comm_rank(options.comm, &s.rank);
  MPI_Comm_size(options.comm, &s.size);
  if (stats != nullptr) *stats = DistributedMonteCarloStats{0, 0, s.size, 0, 0};
  const bool threads_call_mpi = provided >= MPI_THREAD_SERIALIZED;
  if (s.rank == 0) return Root(s, threads_call_mpi, generator).Run(stats);
  Worker(s, threads_call_mpi, generator).Run(stats);
  return {};
}

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = MPI_THREAD_SINGLE;
  if (!initialized) {
    MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided);
    owns_ = true;
  } else {
    MPI_Query_thread(&provided);
  }
  if (provided < MPI_THREAD_FUNNELED) {
    throw std::runtime_error(fmt::format(
        "MpiSession: MPI provides thread level {}, below MPI_THREAD_FUNNELED",
        provided));
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (owns_ && !finalized) MPI_Finalize();
}

}  // namespace tern
