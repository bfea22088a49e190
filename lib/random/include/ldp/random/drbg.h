// The device CSPRNG: a ChaCha20 DRBG with fast key erasure (Bernstein, "Fast-key-erasure random-
// number generators", 2017). The output is a stream of units: ChaCha20 under the current key with
// nonce 0 gives 16 blocks (1024 bytes); the first 992 are output and the last 32 become the next
// key. Bytes are wiped as they are handed out, so a captured state reveals nothing about earlier
// output.
//
// The stream does not depend on how it is read (fill sizes, word draws, peek/consume), on the
// buffer size or on the kernel table: the same seed gives the same bytes everywhere. 16-block units
// keep every SIMD table busy with whole groups. No heap; the state is LDP_CONFIG_DRBG_BLOCKS * 64
// bytes plus the key.
#ifndef LDP_RANDOM_DRBG_H
#define LDP_RANDOM_DRBG_H

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "ldp/base/bits.h"
#include "ldp/base/config.h"
#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/kernels/kernel_table.h"

namespace ldp::random {

// An entropy callback in the Mbed TLS f_rng/p_rng style: fills `size` bytes or returns
// entropy_failure. platform::fill_entropy has this shape; firmware passes its TRNG driver.
using entropy_fn = status (*)(void* context, unsigned char* out, std::size_t size);

class drbg {
 public:
  static constexpr std::size_t seed_size = 32;
  static constexpr std::size_t unit_blocks = 16;
  static constexpr std::size_t unit_output = unit_blocks * 64 - seed_size;
  static constexpr std::size_t buffer_size = LDP_CONFIG_DRBG_BLOCKS * 64;
  // peek() can always make this many bytes readable.
  static constexpr std::size_t max_peek = buffer_size - unit_blocks * 64;

  // A deterministic generator from an explicit seed (tests, reproducible simulations). The kernel
  // table only changes speed.
  explicit drbg(const unsigned char seed[seed_size], const kernels::table& k = kernels::native()) noexcept;

  // A generator keyed from an entropy source; entropy_failure leaves *out untouched.
  [[nodiscard]] static status from_entropy(entropy_fn source, void* context, drbg* out,
                                           const kernels::table& k = kernels::native()) noexcept;

  drbg(const drbg&) = delete;
  drbg& operator=(const drbg&) = delete;
  ~drbg();

  void fill(unsigned char* out, std::size_t size) noexcept;
  void fill(span<unsigned char> out) noexcept { fill(out.data(), out.size()); }
  // Word draws are inline: the exact samplers make about ten per discrete Laplace sample.
  uint32_t next_u32() noexcept {
    if (end_ - begin_ < 4) top_up();
    const uint32_t v = load_le32(buffer_ + begin_);
    consume(4);
    return v;
  }
  uint64_t next_u64() noexcept {
    if (end_ - begin_ < 8) top_up();
    const uint64_t v = load_le64(buffer_ + begin_);
    consume(8);
    return v;
  }

  // In-place access for bulk consumers (the Bernoulli mask filler): peek() returns the buffered
  // bytes, at least min(min_bytes, max_peek) of them, in stream order; consume(n) wipes and skips
  // the first n. Bytes peeked but not consumed stay for the next call.
  span<const unsigned char> peek(std::size_t min_bytes) noexcept;
  // A member store is never dead (the object outlives it), so a plain memset wipes.
  void consume(std::size_t n) noexcept {
    std::memset(buffer_ + begin_, 0, n);
    begin_ += n;
  }

  const kernels::table& kernel() const noexcept { return *kernels_; }

 private:
  drbg() noexcept = default;
  void top_up() noexcept;
  void next_unit(unsigned char* out) noexcept;  // writes unit_blocks * 64 bytes, rekeys

  const kernels::table* kernels_ = nullptr;
  unsigned char key_[seed_size] = {};
  unsigned char buffer_[buffer_size] = {};
  std::size_t begin_ = 0;  // first unread byte
  std::size_t end_ = 0;    // one past the last buffered byte
};

}  // namespace ldp::random

#endif
