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

// Message layouts (bytes). To rank 0, tag kMpiTagToRoot, first byte the type:
//   kRequest    [type][int32 threads of the sender]
//   kResults    [type][int64 first][int64 count][count doubles]
//               [count uint32 error lengths][error characters]
//   kHeartbeat  [type]
// From rank 0, tag kMpiTagFromRoot, the answer to a request:
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
    const char* p = static_cast<const char*>(data);
    bytes_.insert(bytes_.end(), p, p + n);
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

struct Setup {
  const SimulatorFactory* make_simulator;
  const ScalarSystemFunction* output;
  double final_time;
  std::int64_t num_samples;
  int threads;
  const DistributedMonteCarloOptions* options;
  int rank;
  int size;
};

// ---- Rank 0: coordinator and worker.
std::vector<RandomSimulationResult> RunRoot(const Setup& s,
                                            RandomGenerator* generator,
                                            DistributedMonteCarloStats* stats) {
  const std::int64_t n = s.num_samples;
  MPI_Comm comm = s.options->comm;
  // All seeds first, in order, as MonteCarloSimulation draws them.
  std::vector<RandomSimulationResult> results(n);
  for (RandomSimulationResult& r : results) r.seed = generator->NextSeed();

  std::atomic<std::int64_t> next{0};  // the first sample nobody has taken
  std::atomic<std::int64_t> local_done{0};
  ThreadGroup threads([&] { next.store(n); });
  threads.Start(std::min<std::int64_t>(s.threads, n), [&] {
    for (;;) {
      const std::int64_t i = next.fetch_add(1);
      if (i >= n) return;
      results[i] = RunMonteCarloSample(*s.make_simulator, *s.output,
                                       s.final_time, i, results[i].seed);
      local_done.fetch_add(1);
    }
  });

  // Takes up to `want` samples from the shared counter: [first, first+count).
  auto take = [&](std::int64_t want, std::int64_t* first) {
    std::int64_t cur = next.load();
    std::int64_t count = 0;
    do {
      count = std::clamp<std::int64_t>(n - cur, 0, want);
    } while (count > 0 && !next.compare_exchange_weak(cur, cur + count));
    *first = cur;
    return count;
  };

  Outbox outbox(comm);
  std::vector<Clock::time_point> last_heard(s.size, Clock::now());
  std::vector<std::int64_t> held(s.size, 0);  // samples granted, not returned
  std::vector<char> finished(s.size, 0);      // told there is no more work
  int workers_left = s.size - 1;
  std::int64_t remote_done = 0;
  std::vector<char> bytes;
  Backoff backoff(s.options->poll_interval);
  for (;;) {
    int from = 0;
    bool active = false;
    while (TryReceive(comm, MPI_ANY_SOURCE, kMpiTagToRoot, &bytes, &from)) {
      active = true;
      last_heard[from] = Clock::now();
      Reader in(bytes, from);
      const char type = in.Get<char>();
      if (type == kRequest) {
        const int their_threads = std::max(1, in.Get<std::int32_t>());
        const std::int64_t remaining = std::max<std::int64_t>(0, n - next);
        const std::int64_t want =
            s.options->chunk_size > 0
                ? s.options->chunk_size
                : std::max<std::int64_t>(
                      their_threads,
                      (remaining + 2 * s.size - 1) / (2 * s.size));
        std::int64_t first = 0;
        const std::int64_t count = take(want, &first);
        Writer out;
        out.Put<std::int64_t>(first);
        out.Put<std::int64_t>(count);
        for (std::int64_t i = first; i < first + count; ++i) {
          out.Put<std::uint64_t>(results[i].seed);
        }
        if (count == 0) {
          out.PutBytes(generator, sizeof(RandomGenerator));
          finished[from] = 1;
          --workers_left;
        }
        held[from] += count;
        outbox.Send(from, kMpiTagFromRoot, out.Take());
      } else if (type == kResults) {
        const auto first = in.Get<std::int64_t>();
        const auto count = in.Get<std::int64_t>();
        if (first < 0 || count < 0 || first + count > n) {
          throw std::logic_error(fmt::format(
              "DistributedMonteCarloSimulation: rank {} returned samples [{}, "
              "{}) of {}",
              from, first, first + count, n));
        }
        for (std::int64_t i = first; i < first + count; ++i) {
          results[i].output = in.Get<double>();
        }
        std::vector<std::uint32_t> lengths(count);
        for (auto& length : lengths) length = in.Get<std::uint32_t>();
        for (std::int64_t i = first; i < first + count; ++i) {
          results[i].error.resize(lengths[i - first]);
          in.GetBytes(results[i].error.data(), lengths[i - first]);
        }
        held[from] -= count;
        remote_done += count;
      }  // kHeartbeat: last_heard is all it updates.
    }
    outbox.Progress();
    if (local_done.load() + remote_done == n && workers_left == 0 &&
        outbox.empty()) {
      break;
    }
    for (int r = 1; r < s.size; ++r) {
      const bool expected = !finished[r] || held[r] > 0;
      if (expected && Since(last_heard[r]) > s.options->rank_timeout) {
        AbortJob(
            comm,
            fmt::format("rank {} has sent nothing for {:.3g} s while {} "
                        "(dead, stopped or unreachable)",
                        r, s.options->rank_timeout,
                        held[r] > 0 ? fmt::format("holding {} samples", held[r])
                                    : std::string("expected to ask for "
                                                  "work")));
      }
    }
    if (active) {
      backoff.Reset();
    } else {
      std::this_thread::sleep_for(Seconds(backoff.Next()));
    }
  }
  threads.Join();
  if (stats != nullptr) stats->samples_run = local_done.load();
  return results;
}

// ---- Ranks 1...: ask rank 0 for chunks, run them, send the results back.
struct Chunk {
  std::int64_t first{0};
  std::vector<std::uint64_t> seeds;  // (count)
  std::vector<RandomSimulationResult> results;
  std::int64_t next{0};       // the next sample to start, local index
  std::int64_t remaining{0};  // samples not yet finished
};

void RunWorker(const Setup& s, RandomGenerator* generator,
               DistributedMonteCarloStats* stats) {
  MPI_Comm comm = s.options->comm;
  const int threads = s.threads;

  std::mutex mutex;  // guards the fields below
  std::condition_variable work_cv;
  std::condition_variable main_cv;
  std::deque<std::unique_ptr<Chunk>> chunks;
  std::size_t current = 0;    // the first chunk with samples to start
  std::int64_t waiting = 0;   // samples received and not started
  bool no_more = false;       // rank 0 has no more work (or we stop)
  std::vector<Chunk*> ready;  // finished chunks to send
  std::int64_t samples_run = 0;

  ThreadGroup group([&] {
    std::lock_guard<std::mutex> lock(mutex);
    no_more = true;
    for (; current < chunks.size(); ++current) {
      chunks[current]->next =
          static_cast<std::int64_t>(chunks[current]->seeds.size());
    }
    work_cv.notify_all();
  });
  group.Start(threads, [&] {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      while (current < chunks.size() &&
             chunks[current]->next ==
                 static_cast<std::int64_t>(chunks[current]->seeds.size())) {
        ++current;
      }
      if (current == chunks.size()) {
        if (no_more) return;
        work_cv.wait(lock);
        continue;
      }
      Chunk* c = chunks[current].get();
      const std::int64_t j = c->next++;
      --waiting;
      if (waiting < threads) main_cv.notify_one();  // time to ask for more
      lock.unlock();
      RandomSimulationResult r =
          RunMonteCarloSample(*s.make_simulator, *s.output, s.final_time,
                              c->first + j, c->seeds[j]);
      lock.lock();
      c->results[j] = std::move(r);
      ++samples_run;
      if (--c->remaining == 0) {
        ready.push_back(c);
        main_cv.notify_one();
      }
    }
  });

  Outbox outbox(comm);
  auto send = [&](std::vector<char> bytes) {
    outbox.Send(0, kMpiTagToRoot, std::move(bytes));
  };
  auto request = [&] {
    Writer out;
    out.Put<char>(kRequest);
    out.Put<std::int32_t>(threads);
    send(out.Take());
  };
  bool outstanding = true;  // a request rank 0 has not answered
  Clock::time_point request_time = Clock::now();
  Clock::time_point last_sent = request_time;
  request();
  std::size_t num_chunks = 0, num_sent = 0;
  bool got_last = false;
  const double heartbeat = s.options->rank_timeout / 8;
  Backoff backoff(s.options->poll_interval);
  std::vector<char> bytes;
  for (;;) {
    bool active = false;
    int from = 0;
    if (outstanding && TryReceive(comm, 0, kMpiTagFromRoot, &bytes, &from)) {
      active = true;
      outstanding = false;
      Reader in(bytes, 0);
      auto chunk = std::make_unique<Chunk>();
      chunk->first = in.Get<std::int64_t>();
      const auto count = in.Get<std::int64_t>();
      if (count == 0) {
        in.GetBytes(generator, sizeof(RandomGenerator));
        got_last = true;
        std::lock_guard<std::mutex> lock(mutex);
        no_more = true;
        work_cv.notify_all();
      } else {
        chunk->seeds.resize(count);
        for (auto& seed : chunk->seeds) seed = in.Get<std::uint64_t>();
        chunk->results.resize(count);
        chunk->remaining = count;
        ++num_chunks;
        std::lock_guard<std::mutex> lock(mutex);
        chunks.push_back(std::move(chunk));
        waiting += count;
        work_cv.notify_all();
      }
    }
    std::vector<Chunk*> to_send;
    std::int64_t now_waiting = 0;
    {
      std::lock_guard<std::mutex> lock(mutex);
      to_send.swap(ready);
      now_waiting = waiting;
    }
    for (Chunk* c : to_send) {
      const auto count = static_cast<std::int64_t>(c->seeds.size());
      Writer out;
      out.Put<char>(kResults);
      out.Put<std::int64_t>(c->first);
      out.Put<std::int64_t>(count);
      for (const auto& r : c->results) out.Put<double>(r.output);
      for (const auto& r : c->results) {
        out.Put<std::uint32_t>(static_cast<std::uint32_t>(r.error.size()));
      }
      for (const auto& r : c->results)
        out.PutBytes(r.error.data(), r.error.size());
      send(out.Take());
      // The results are sent; free them (the chunk stays as a marker).
      std::lock_guard<std::mutex> lock(mutex);
      c->results.clear();
      c->results.shrink_to_fit();
      ++num_sent;
      last_sent = Clock::now();
      active = true;
    }
    outbox.Progress();
    if (!outstanding && !got_last && now_waiting < threads) {
      request();
      outstanding = true;
      request_time = last_sent = Clock::now();
      active = true;
    }
    if (got_last && num_sent == num_chunks && outbox.empty()) break;
    // A heartbeat never follows an unanswered request, so rank 0 has read
    // every message of this call when it has answered the last request and
    // received the last results.
    if (!outstanding && Since(last_sent) > heartbeat) {
      Writer out;
      out.Put<char>(kHeartbeat);
      send(out.Take());
      last_sent = Clock::now();
    }
    if (outstanding && Since(request_time) > s.options->rank_timeout) {
      AbortJob(comm, fmt::format("rank {}: rank 0 has not answered a request "
                                 "for work for {:.3g} s (dead, stopped or "
                                 "unreachable)",
                                 s.rank, s.options->rank_timeout));
    }
    if (active) {
      backoff.Reset();
      continue;
    }
    std::unique_lock<std::mutex> lock(mutex);
    main_cv.wait_for(lock, Seconds(backoff.Next()), [&] {
      return !ready.empty() || (!outstanding && !got_last && waiting < threads);
    });
  }
  group.Join();
  if (stats != nullptr) {
    stats->samples_run = samples_run;
    stats->chunks_run = static_cast<std::int64_t>(num_chunks);
  }
}

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
  if (provided < MPI_THREAD_FUNNELED || !is_main) {
    throw std::logic_error(fmt::format(
        "{}: needs MPI initialized with MPI_THREAD_FUNNELED or more (got "
        "level {}) and must be called from the thread that initialized it "
        "(use tern::MpiSession)",
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
          1};
  MPI_Comm_rank(options.comm, &s.rank);
  MPI_Comm_size(options.comm, &s.size);
  if (stats != nullptr) *stats = DistributedMonteCarloStats{0, 0, s.size};
  if (s.rank == 0) return RunRoot(s, generator, stats);
  RunWorker(s, generator, stats);
  return {};
}

MpiSession::MpiSession(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  int provided = MPI_THREAD_SINGLE;
  if (!initialized) {
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
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
