#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#include "ldp/server/threads.h"

#if defined(__linux__)
#include <sched.h>
#endif

namespace ldp::server {
namespace {
std::atomic<unsigned> requested{0};  // set_thread_limit's value; 0: the CPUs we may run on

// The CPUs this process may run on: its affinity mask where the system has one (taskset, a
// container's cpuset), which hardware_concurrency() ignores; else the hardware's count.
unsigned available_cpus() noexcept {
#if defined(__linux__)
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return static_cast<unsigned>(CPU_COUNT(&set));
#endif
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

void set_thread_limit(unsigned threads) noexcept { requested.store(threads, std::memory_order_relaxed); }

unsigned thread_limit() noexcept {
  const unsigned n = requested.load(std::memory_order_relaxed);
  return n != 0 ? n : available_cpus();
}

namespace detail {

std::size_t part_count(uint64_t work, uint64_t min_part) noexcept {
  const uint64_t by_work = min_part == 0 ? work : work / min_part;
  return static_cast<std::size_t>(std::max<uint64_t>(1, std::min<uint64_t>(thread_limit(), by_work)));
}

void run_parts(std::size_t parts, const std::function<void(std::size_t)>& job) noexcept {
  std::vector<std::thread> workers;
  std::size_t started = 1;  // parts [1, started) run on workers
  try {
    workers.reserve(parts);
    for (; started < parts; ++started) workers.emplace_back(job, started);
  } catch (...) {  // std::system_error (no more threads), std::bad_alloc: the rest run here
  }
  job(0);
  for (std::size_t i = started; i < parts; ++i) job(i);
  for (std::thread& t : workers) t.join();
}

}  // namespace detail
}  // namespace ldp::server
