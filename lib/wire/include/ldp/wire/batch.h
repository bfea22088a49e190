// Batches (docs/wire_format.md, "Batch"): the container for files and transport. A header carries
// the parameter block once; then chunks of records, each with its own CRC32C so corruption is
// detected and confined to one chunk; an empty chunk ends the batch, so truncation is detected.
// Readers return views into the input and never allocate from a length field.
#ifndef LDP_WIRE_BATCH_H
#define LDP_WIRE_BATCH_H

#include <cstddef>
#include <cstdint>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "ldp/wire/checksum.h"
#include "ldp/wire/params.h"

namespace ldp::wire {

inline constexpr unsigned char batch_magic[4] = {'L', 'D', 'P', 'B'};
inline constexpr uint8_t batch_version = 1;
inline constexpr std::size_t chunk_header_size = 8;   // record count, body length
inline constexpr std::size_t chunk_trailer_size = 4;  // CRC32C
inline constexpr uint32_t max_chunk_body = uint32_t{1} << 24;

// Magic, version, flags, block length, block, fingerprint, CRC32C of all that precedes it.
[[nodiscard]] status encode_batch_header(const params& p, span<unsigned char> out,
                                         std::size_t* written) noexcept;

// Builds one chunk in a caller buffer: add() records (report payloads), then finish(). A chunk
// with no records is the terminator.
class chunk_writer {
 public:
  explicit chunk_writer(span<unsigned char> out) noexcept : out_(out) {}
  // buffer_too_small when the record does not fit (finish, then start another chunk);
  // invalid_argument for an empty payload or a body past max_chunk_body.
  [[nodiscard]] status add(span<const unsigned char> payload) noexcept;
  // The finished chunk (empty if the buffer cannot hold even the header and trailer).
  [[nodiscard]] span<const unsigned char> finish() noexcept;
  uint32_t records() const noexcept { return records_; }

 private:
  span<unsigned char> out_;
  std::size_t body_ = 0;
  uint32_t records_ = 0;
};

// The length prefix of a record whose payload has `payload_size` bytes (a LEB128 uvarint); returns
// its size in bytes. A server compares records against it to count a chunk of equal-size payloads
// in one pass.
[[nodiscard]] std::size_t record_prefix(std::size_t payload_size, unsigned char out[10]) noexcept;

struct chunk_view {
  uint32_t records = 0;             // as claimed by the chunk header
  span<const unsigned char> body;   // the records (valid only when the chunk decoded ok)
  std::size_t size = 0;             // bytes of the whole chunk, to skip it
};

// Reads a batch held in memory: open(), then next_chunk() until done(). A chunk whose CRC fails is
// reported (checksum_mismatch) with its size set, and reading goes on after it; a length that runs
// past the input (wrong_length) or past max_chunk_body (malformed_report) ends the reading.
class batch_reader {
 public:
  // `crc` checks the chunks (a server passes its hardware CRC32C); null means wire::crc32c.
  [[nodiscard]] status open(span<const unsigned char> bytes, crc32c_fn crc = nullptr) noexcept;
  [[nodiscard]] status next_chunk(chunk_view* out) noexcept;
  bool done() const noexcept { return done_; }
  const params& parameters() const noexcept { return params_; }
  uint64_t fingerprint() const noexcept { return fingerprint_; }

 private:
  span<const unsigned char> rest_;
  params params_;
  uint64_t fingerprint_ = 0;
  crc32c_fn crc_ = nullptr;
  bool done_ = true;
};

// Iterates over the records of a chunk that decoded ok. next() gives each payload in turn; it
// returns malformed_report when a record's length prefix is broken or runs past the body (the
// remaining records of the chunk cannot be located), and ok with *payload empty at the end.
class record_cursor {
 public:
  explicit record_cursor(const chunk_view& chunk) noexcept : rest_(chunk.body), left_(chunk.records) {}
  [[nodiscard]] status next(span<const unsigned char>* payload) noexcept;
  uint32_t remaining() const noexcept { return left_; }

 private:
  span<const unsigned char> rest_;
  uint32_t left_;
};

}  // namespace ldp::wire

#endif
