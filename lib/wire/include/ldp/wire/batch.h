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
inline constexpr std::size_t batch_prefix_size = 8;           // magic, version, flags, block length
inline constexpr std::size_t batch_header_trailer_size = 12;  // fingerprint, CRC32C

// The size of a batch header whose parameter block has `block_size` bytes.
[[nodiscard]] constexpr std::size_t batch_header_size(std::size_t block_size) noexcept {
  return batch_prefix_size + block_size + batch_header_trailer_size;
}

// Magic, version, flags, block length, block, fingerprint, CRC32C of all that precedes it.
[[nodiscard]] status encode_batch_header(const params& p, span<unsigned char> out, std::size_t* written) noexcept;

// Builds one chunk in a caller buffer: add() records (report payloads), then finish(). A chunk
// with no records is the terminator. `crc` computes the trailer (a simulator passes its hardware
// CRC32C); null means wire::crc32c. The bytes are the same either way.
class chunk_writer {
 public:
  explicit chunk_writer(span<unsigned char> out, crc32c_fn crc = nullptr) noexcept : out_(out), crc_(crc) {}
  // buffer_too_small when the record does not fit (finish, then start another chunk);
  // invalid_argument for an empty payload or a body past max_chunk_body.
  [[nodiscard]] status add(span<const unsigned char> payload) noexcept;
  // The finished chunk (empty if the buffer cannot hold even the header and trailer).
  [[nodiscard]] span<const unsigned char> finish() noexcept;
  uint32_t records() const noexcept { return records_; }

 private:
  span<unsigned char> out_;
  crc32c_fn crc_;
  std::size_t body_ = 0;
  uint32_t records_ = 0;
};

// The length prefix of a record whose payload has `payload_size` bytes (a LEB128 uvarint); returns
// its size in bytes. A server compares records against it to count a chunk of equal-size payloads
// in one pass.
[[nodiscard]] std::size_t record_prefix(std::size_t payload_size, unsigned char out[10]) noexcept;

struct chunk_view {
  uint32_t records = 0;            // as claimed by the chunk header
  span<const unsigned char> body;  // the records (valid only when the chunk decoded ok)
  std::size_t size = 0;            // bytes of the whole chunk, to skip it
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

// What a call of batch_stream_reader::feed() or finish() completed.
enum class batch_event : uint8_t {
  none,    // nothing: the piece under way needs more bytes
  header,  // the header; when ok, parameters() and fingerprint() are set
  chunk,   // a chunk, described by chunk(): ok or checksum_mismatch and reading goes on, as with
  // batch_reader; malformed_report or buffer_too_small end the reading
  end,  // the input ended (finish) or ran on after the terminator: ok only after a terminator
  // with nothing after it, else wrong_length (truncated, or bytes after the terminator)
};

struct batch_step {
  batch_event event = batch_event::none;
  status result = status::ok;  // the status of what `event` completed
  std::size_t used = 0;        // bytes of the input feed() took
};

// A buffer of this size lets batch_stream_reader hold any header the u16 block length allows and
// then any chunk (16 MiB and a bit).
inline constexpr std::size_t batch_stream_buffer_size =
    batch_header_size(0xffff) + chunk_header_size + max_chunk_body + chunk_trailer_size;

// Reads a batch as it arrives, in memory bounded by its caller's buffer: the header, then one chunk
// at a time, each checked by the rules batch_reader applies (the same statuses, in the same
// order). Feed it bytes in pieces of any size (feed() takes at most wanted() of them and says how
// many it took); call finish() when the input ends. A reader reading a file asks wanted() how
// many to read next, so it never reads past the batch.
//
//   batch_stream_reader r(buffer);
//   while (!r.ended()) {
//     const batch_step step = more ? r.feed(bytes) : r.finish();  // bytes = bytes.subspan(step.used)
//     if (step.event == batch_event::chunk && step.result == status::ok) /* record_cursor(r.chunk()) */;
//   }
class batch_stream_reader {
 public:
  // `buffer` holds the header and then the chunk being read (batch_stream_buffer_size bytes read
  // any batch; a chunk or header larger than the buffer is buffer_too_small). `crc` checks the
  // chunks; null means wire::crc32c.
  explicit batch_stream_reader(span<unsigned char> buffer, crc32c_fn crc = nullptr) noexcept
      : buffer_(buffer), crc_(crc) {}

  // Bytes that complete the piece under way (after the terminator 1: any byte there is an error);
  // 0 once the reading has ended.
  [[nodiscard]] std::size_t wanted() const noexcept;
  [[nodiscard]] batch_step feed(span<const unsigned char> in) noexcept;
  [[nodiscard]] batch_step finish() noexcept;

  bool ended() const noexcept { return stage_ == stage::ended; }
  bool terminated() const noexcept { return terminated_; }  // the terminator has been read
  const params& parameters() const noexcept { return params_; }
  uint64_t fingerprint() const noexcept { return fingerprint_; }
  // The header's bytes, after a header event that was ok.
  span<const unsigned char> header() const noexcept { return span<const unsigned char>(buffer_.data(), header_size_); }
  // The last chunk and its bytes (those read of it, when its header ended the reading); valid
  // after a chunk event until the next feed().
  const chunk_view& chunk() const noexcept { return chunk_; }
  span<const unsigned char> chunk_bytes() const noexcept { return chunk_bytes_; }

 private:
  enum class stage : uint8_t { prefix, header, chunk_header, chunk, trailer, ended };

  batch_step complete(batch_step step) noexcept;
  // The piece under way continues as `rest` (its size known now), if the buffer holds it.
  batch_step expect(stage rest, std::size_t size, batch_step step) noexcept;
  void next_chunk() noexcept;
  batch_step stop(batch_event event, status result, batch_step step) noexcept;
  std::size_t base() const noexcept { return stage_ == stage::prefix || stage_ == stage::header ? 0 : header_size_; }

  span<unsigned char> buffer_;
  crc32c_fn crc_;
  stage stage_ = stage::prefix;
  std::size_t header_size_ = 0;           // chunks go after the header in buffer_
  std::size_t have_ = 0;                  // bytes of the piece under way held
  std::size_t need_ = batch_prefix_size;  // and its size, as far as known
  bool terminated_ = false;
  params params_;
  uint64_t fingerprint_ = 0;
  chunk_view chunk_;
  span<const unsigned char> chunk_bytes_;
};

// Iterates over the records of a chunk that decoded ok. next() gives each payload in turn; it
// returns malformed_report when a record's length prefix is broken or runs past the body (the
// remaining records of the chunk cannot be located), and ok with *payload empty at the end.
class record_cursor {
 public:
  explicit record_cursor(const chunk_view& chunk) noexcept : rest_(chunk.body), left_(chunk.records) {}
  [[nodiscard]] status next(span<const unsigned char>* payload) noexcept;
  uint32_t remaining() const noexcept { return left_; }
  // After next() returned malformed_report: the records lost with it, which a reader counts as
  // rejected. The claimed remainder, but no more than the rest of the body has bytes and at least
  // the one that broke: a CRC proves the chunk arrived as sent, not that its sender was honest,
  // and a forged count of 2^31 records in a 20-byte body must not count 2^31 rejections
  // (docs/wire_format.md section 6).
  uint32_t unreadable() const noexcept { return lost_; }

 private:
  span<const unsigned char> rest_;
  uint32_t left_;
  uint32_t lost_ = 0;
};

}  // namespace ldp::wire

#endif
