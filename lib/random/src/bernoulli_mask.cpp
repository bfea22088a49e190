#include "ldp/random/bernoulli_mask.h"

#include <cstring>

#include "ldp/base/bits.h"
#include "ldp/base/config.h"

namespace ldp::random {

status fill_bernoulli_mask(drbg& rng, span<uint64_t> out, std::size_t nbits, uint64_t threshold,
                           unsigned bits) noexcept {
  if (bits < 1 || bits > 32 || threshold > (uint64_t{1} << bits)) return status::invalid_argument;
  const std::size_t words = (nbits + 63) / 64;
  if (out.size() < words) return status::buffer_too_small;
  constexpr std::size_t chunk_words = kernels::bernoulli_chunk_bits / 64;
  const std::size_t whole_chunks = nbits / kernels::bernoulli_chunk_bits;
  const bool partial = whole_chunks * kernels::bernoulli_chunk_bits != nbits;
  const kernels::bernoulli_chunks_fn kernel = rng.kernel().bernoulli_chunks;

  // Random words are consumed strictly in stream order, and leftovers are carried over rather than
  // dropped, so every kernel table reads the same words and writes the same bits.
  constexpr std::size_t capacity = LDP_CONFIG_MASK_BUFFER_WORDS;
  unsigned char pool[capacity * kernels::bernoulli_word_bytes];
  std::size_t available = 0;
  uint64_t tail[chunk_words];
  std::size_t done = 0;
  const std::size_t total = whole_chunks + (partial ? 1 : 0);
  while (done < total) {
    if (available < bits) {
      const std::size_t bytes = (capacity - available) * kernels::bernoulli_word_bytes;
      rng.fill(pool + available * kernels::bernoulli_word_bytes, bytes);
      available = capacity;
    }
    uint64_t* target = done < whole_chunks ? out.data() + done * chunk_words : tail;
    const std::size_t want = done < whole_chunks ? whole_chunks - done : 1;
    std::size_t used = 0;
    done += kernel(target, want, threshold, bits, pool, available, &used);
    available -= used;
    std::memmove(pool, pool + used * kernels::bernoulli_word_bytes,
                 available * kernels::bernoulli_word_bytes);
  }
  if (partial) {
    const std::size_t first_word = whole_chunks * chunk_words;
    for (std::size_t i = first_word; i < words; ++i) out[i] = tail[i - first_word];
    if (nbits % 64 != 0) out[words - 1] &= (uint64_t{1} << (nbits % 64)) - 1;
  }
  secure_zero(pool, sizeof pool);
  secure_zero(tail, sizeof tail);
  return status::ok;
}

}  // namespace ldp::random
