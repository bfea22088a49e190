// The device CSPRNG: a ChaCha20 DRBG with fast key erasure (Bernstein, "Fast-key-erasure random-
// number generators", 2017). Each refill runs ChaCha20 under the current key and nonce 0; the first
// 32 bytes become the next key and the rest is handed out, each byte wiped as it is handed out. A
// captured state therefore reveals nothing about earlier output. No heap; about 1 KiB of state.
#ifndef LDP_RANDOM_DRBG_H
#define LDP_RANDOM_DRBG_H

#include <cstddef>
#include <cstdint>

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
  static constexpr std::size_t refill_blocks = 16;

  // A deterministic generator from an explicit seed (tests, reproducible simulations, and public
  // streams). The kernel table only changes speed: every table yields the same bytes.
  explicit drbg(const unsigned char seed[seed_size],
                const kernels::table& k = kernels::native()) noexcept;

  // A generator keyed from an entropy source; entropy_failure leaves *out untouched.
  [[nodiscard]] static status from_entropy(entropy_fn source, void* context, drbg* out,
                                           const kernels::table& k = kernels::native()) noexcept;

  drbg(const drbg&) = delete;
  drbg& operator=(const drbg&) = delete;
  ~drbg();

  void fill(unsigned char* out, std::size_t size) noexcept;
  void fill(span<unsigned char> out) noexcept { fill(out.data(), out.size()); }
  uint32_t next_u32() noexcept;
  uint64_t next_u64() noexcept;

  const kernels::table& kernel() const noexcept { return *kernels_; }

 private:
  drbg() noexcept = default;
  void refill() noexcept;

  const kernels::table* kernels_ = nullptr;
  unsigned char key_[seed_size] = {};
  unsigned char buffer_[refill_blocks * 64 - seed_size] = {};
  std::size_t position_ = sizeof(buffer_);  // next unread byte; == sizeof(buffer_) when empty
};

}  // namespace ldp::random

#endif
