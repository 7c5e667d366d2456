#include "tern/common/thread_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace tern {
namespace {

TEST(ThreadPoolTest, RejectsNonPositiveThreadCount) {
  try {
    ThreadPool pool(0);
    FAIL() << "expected a throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("num_threads"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("0"), std::string::npos);
  }
  ThreadPool pool(2);
  EXPECT_THROW(pool.ParallelFor(-1, [](std::int64_t, int) {}),
               std::invalid_argument);
  EXPECT_GE(ThreadPool::HardwareConcurrency(), 1);
}

TEST(ThreadPoolTest, EachIndexRunsExactlyOnce) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    EXPECT_EQ(pool.num_threads(), threads);
    std::vector<std::atomic<int>> hits(1000);
    std::atomic<bool> bad_thread{false};
    pool.ParallelFor(1000, [&](std::int64_t i, int t) {
      hits[i].fetch_add(1);
      if (t < 0 || t >= threads) bad_thread = true;
    });
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(hits[i].load(), 1) << i;
    EXPECT_FALSE(bad_thread);
    int calls = 0;
    pool.ParallelFor(0, [&](std::int64_t, int) { ++calls; });
    EXPECT_EQ(calls, 0);
  }
}

TEST(ThreadPoolTest, OneThreadRunsInlineInOrder) {
  ThreadPool pool(1);
  std::vector<std::int64_t> order;
  const auto caller = std::this_thread::get_id();
  bool other_thread = false;
  pool.ParallelFor(50, [&](std::int64_t i, int) {
    order.push_back(i);
    other_thread |= std::this_thread::get_id() != caller;
  });
  ASSERT_EQ(order.size(), 50u);
  for (int i = 0; i < 50; ++i) EXPECT_EQ(order[i], i);
  EXPECT_FALSE(other_thread);
}

// With caller_works = false every body runs on a worker, with thread
// indices 0..n-1, and the pool still runs each index once and concurrently.
TEST(ThreadPoolTest, CallerCanWaitWhileWorkersRun) {
  ThreadPool pool(2, /*caller_works=*/false);
  EXPECT_EQ(pool.num_threads(), 2);
  const auto caller = std::this_thread::get_id();
  std::vector<std::atomic<int>> hits(200);
  std::atomic<bool> on_caller{false}, bad_thread{false};
  std::atomic<int> arrived{0};
  pool.ParallelFor(200, [&](std::int64_t i, int t) {
    hits[i].fetch_add(1);
    on_caller = on_caller || std::this_thread::get_id() == caller;
    if (t < 0 || t >= 2) bad_thread = true;
    if (i < 2) {
      // The first two indices wait for each other: they need two workers.
      arrived.fetch_add(1);
      const auto deadline =
          std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (arrived.load() < 2 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::yield();
    }
  });
  for (int i = 0; i < 200; ++i) ASSERT_EQ(hits[i].load(), 1) << i;
  EXPECT_FALSE(on_caller);
  EXPECT_FALSE(bad_thread);
  EXPECT_EQ(arrived.load(), 2);
  ThreadPool single(1, /*caller_works=*/false);
  bool ran_elsewhere = false;
  single.ParallelFor(1, [&](std::int64_t, int t) {
    ran_elsewhere = std::this_thread::get_id() != caller && t == 0;
  });
  EXPECT_TRUE(ran_elsewhere);
}

// Two bodies that each wait for the other finish only if they run at once.
TEST(ThreadPoolTest, TwoThreadsRunConcurrently) {
  ThreadPool pool(2);
  std::atomic<int> arrived{0};
  std::atomic<bool> timed_out{false};
  pool.ParallelFor(2, [&](std::int64_t, int) {
    arrived.fetch_add(1);
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (arrived.load() < 2) {
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out = true;
        return;
      }
      std::this_thread::yield();
    }
  });
  EXPECT_FALSE(timed_out);
}

TEST(ThreadPoolTest, RethrowsLowestFailingIndexAndStaysUsable) {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    try {
      pool.ParallelFor(200, [](std::int64_t i, int) {
        if (i == 37 || i == 38 || i == 150) {
          throw std::runtime_error("index " + std::to_string(i));
        }
      });
      FAIL() << "expected a throw";
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "index 37") << threads << " threads";
    }
    std::atomic<int> count{0};
    pool.ParallelFor(100, [&](std::int64_t, int) { count.fetch_add(1); });
    EXPECT_EQ(count.load(), 100);
  }
}

TEST(ThreadPoolTest, NestedCallThrowsInsteadOfDeadlocking) {
  ThreadPool pool(2);
  try {
    pool.ParallelFor(4, [&](std::int64_t, int) {
      pool.ParallelFor(2, [](std::int64_t, int) {});
    });
    FAIL() << "expected a throw";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("nested"), std::string::npos);
  }
}

TEST(ThreadPoolTest, ManyLoopsAndConcurrentCallers) {
  ThreadPool pool(3);
  std::atomic<std::int64_t> total{0};
  auto run = [&] {
    for (int rep = 0; rep < 50; ++rep) {
      pool.ParallelFor(20, [&](std::int64_t i, int) { total.fetch_add(i); });
    }
  };
  std::thread a(run), b(run);
  a.join();
  b.join();
  EXPECT_EQ(total.load(), 2 * 50 * (19 * 20 / 2));
}

}  // namespace
}  // namespace tern
