#include "ldp/random/bernoulli_mask.h"

#include "ldp/base/bits.h"

namespace ldp::random {

static_assert(drbg::max_peek >= 32 * kernels::bernoulli_word_bytes,
              "the DRBG buffer must hold the worst case of one chunk (LDP_CONFIG_DRBG_BLOCKS)");

status fill_bernoulli_mask(drbg& rng, span<uint64_t> out, std::size_t nbits, uint64_t threshold,
                           unsigned bits) noexcept {
  if (bits < 1 || bits > 32 || threshold > (uint64_t{1} << bits)) return status::invalid_argument;
  const std::size_t words = (nbits + 63) / 64;
  if (out.size() < words) return status::buffer_too_small;
  constexpr std::size_t chunk_words = kernels::bernoulli_chunk_bits / 64;
  const std::size_t whole_chunks = nbits / kernels::bernoulli_chunk_bits;
  const bool partial = whole_chunks * kernels::bernoulli_chunk_bits != nbits;
  const std::size_t total = whole_chunks + (partial ? 1 : 0);
  const kernels::bernoulli_chunks_fn kernel = rng.kernel().bernoulli_chunks;

  // The kernel reads random words in place from the generator's buffer, in stream order; words it
  // does not need stay there for the next caller. Every table therefore reads the same words.
  uint64_t tail[chunk_words];
  std::size_t done = 0;
  while (done < total) {
    const span<const unsigned char> random = rng.peek(bits * kernels::bernoulli_word_bytes);
    uint64_t* target = done < whole_chunks ? out.data() + done * chunk_words : tail;
    const std::size_t want = done < whole_chunks ? whole_chunks - done : 1;
    std::size_t used = 0;
    done += kernel(target, want, threshold, bits, random.data(), random.size() / kernels::bernoulli_word_bytes, &used);
    rng.consume(used * kernels::bernoulli_word_bytes);
  }
  if (partial) {
    const std::size_t first_word = whole_chunks * chunk_words;
    for (std::size_t i = first_word; i < words; ++i) out[i] = tail[i - first_word];
    if (nbits % 64 != 0) out[words - 1] &= (uint64_t{1} << (nbits % 64)) - 1;
    secure_zero(tail, sizeof tail);
  }
  return status::ok;
}

}  // namespace ldp::random
