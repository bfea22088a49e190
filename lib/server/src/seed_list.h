// The pending BLH/OLH reports of an aggregator (local_hashing.cpp): (seed, bucket) pairs in arrival
// order, 12 bytes a report, kept in fixed segments of `segment_reports` so that growing never copies
// or re-touches what is already stored (a vector's doubling costs a copy of everything and the page
// faults of twice the memory: about 45 % of an ingestion profile, issue 19).
#ifndef LDP_SERVER_SRC_SEED_LIST_H
#define LDP_SERVER_SRC_SEED_LIST_H

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace ldp::server::detail {

class seed_list {
 public:
  // 48 KiB a segment: below malloc's mmap threshold, and a multiple of the support blocks.
  static constexpr std::size_t segment_reports = 4096;

  struct segment {
    uint64_t seed[segment_reports];
    uint32_t bucket[segment_reports];
  };

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }

  // Room for `more` push() calls without allocating (may throw, changing nothing else).
  void reserve(std::size_t more) {
    const std::size_t need = (size_ + more + segment_reports - 1) / segment_reports;
    if (need <= segments_.size()) return;
    segments_.reserve(need);
    while (segments_.size() < need) segments_.emplace_back(new segment);  // uninitialized: written before read
  }

  // Appends a report; needs room (reserve).
  void push(uint64_t seed, uint32_t bucket) noexcept {
    segment& s = *segments_[size_ / segment_reports];
    s.seed[size_ % segment_reports] = seed;
    s.bucket[size_ % segment_reports] = bucket;
    ++size_;
  }

  // Appends `count` reports (needs room, see reserve): read(k, &seed, &bucket) writes the k-th.
  template <class Read>
  void append(std::size_t count, Read&& read) noexcept {
    std::size_t i = size_;  // a local: the stores below cannot alias it
    for (std::size_t k = 0; k < count;) {
      segment& s = *segments_[i / segment_reports];
      const std::size_t at = i % segment_reports;
      const std::size_t n = count - k < segment_reports - at ? count - k : segment_reports - at;
      for (std::size_t j = 0; j < n; ++j) read(k + j, &s.seed[at + j], &s.bucket[at + j]);
      k += n;
      i += n;
    }
    size_ = i;
  }

  // Drops the reports from the n-th on (n <= size()), keeping the room.
  void truncate(std::size_t n) noexcept { size_ = n; }

  // The segment holding report i, and i's position in it.
  const segment& segment_of(std::size_t i) const noexcept { return *segments_[i / segment_reports]; }
  uint64_t seed(std::size_t i) const noexcept { return segment_of(i).seed[i % segment_reports]; }
  uint32_t bucket(std::size_t i) const noexcept { return segment_of(i).bucket[i % segment_reports]; }

 private:
  std::vector<std::unique_ptr<segment>> segments_;
  std::size_t size_ = 0;
};

}  // namespace ldp::server::detail

#endif
