// How many threads the server may use for one call (docs/architecture.md "Threads"). Only work of
// O(n d) or O(k d) splits over threads (BLH/OLH support counting in estimates and in the counts form
// of the saved state, docs/performance.md 5; FLH's decode in estimates; Square Wave's bootstrap
// replicates); the threads live for that call only, and the result is the same to the bit for every
// setting (the parts are integer counts, summed in a fixed order, blocks of items each counted by
// one thread, or replicates each drawn from its own DRBG).
#ifndef LDP_SERVER_THREADS_H
#define LDP_SERVER_THREADS_H

namespace ldp::server {

// Process-wide; 0 (the default) means the CPUs the process may run on (its affinity mask on
// Linux, so `taskset -c 1` gives 1; elsewhere std::thread::hardware_concurrency(), or 1 where that
// is unknown). 1 keeps every call on the caller's thread. Safe to call at any time from any thread: a
// call already running keeps the count it started with.
void set_thread_limit(unsigned threads) noexcept;

// The count in effect: at least 1.
[[nodiscard]] unsigned thread_limit() noexcept;

}  // namespace ldp::server

#endif
