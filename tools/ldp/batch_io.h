// Batch files (docs/wire_format.md section 6). batch_stream reads one chunk by chunk, in memory bounded by the
// largest chunk (16 MiB), however large the file: the wire module's batch_stream_reader makes every
// check (magic, CRCs, lengths, the terminator and what follows it), so the tool and the library
// cannot disagree.
#ifndef LDP_TOOLS_BATCH_IO_H
#define LDP_TOOLS_BATCH_IO_H

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "files.h"
#include "ldp/base/span.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire/batch.h"
#include "ldp/wire/params.h"

namespace ldp::tools {

// The header of a batch for the block, and the terminator chunk.
std::vector<unsigned char> batch_header(const wire::params& p);
std::vector<unsigned char> batch_terminator();

// Counts chunks into an aggregator the way `ldp aggregate` does: each group of chunks as one batch
// (this block's header + the chunks + a terminator) through aggregator::add_batch.
class batch_aggregator {
 public:
  batch_aggregator(server::aggregator& agg, const wire::params& p);
  void add(span<const unsigned char> chunks);  // cli_error if the framing does not read

 private:
  server::aggregator& agg_;
  std::vector<unsigned char> header_, terminator_, buffer_;
};

class batch_stream {
 public:
  // Reads and checks the header; throws cli_error naming the file and the status when it is not a
  // readable batch header.
  explicit batch_stream(input_file& in);

  const wire::params& parameters() const { return reader_.parameters(); }
  uint64_t fingerprint() const { return reader_.fingerprint(); }

  // Reads the next chunk. False when the reading has ended: after the terminator and the end of
  // the file, or after a status() that ends it.
  bool next();
  // The chunk's status: ok or checksum_mismatch (reading goes on), or what ends the reading (a
  // truncated or damaged file, or bytes after the terminator).
  status chunk_status() const { return status_; }
  const wire::chunk_view& chunk() const { return reader_.chunk(); }
  // The chunk's bytes as read (header, body, CRC), for a quarantine file.
  span<const unsigned char> chunk_bytes() const { return reader_.chunk_bytes(); }
  // Counts the chunk into `agg` through aggregator::add_batch (this header, the chunk, and a
  // terminator), which counts it exactly as in the full file; returns the status that ends the
  // reading, if any.
  status add_to(server::aggregator& agg);
  uint64_t chunks() const { return chunks_; }  // chunks read so far, the terminator included

 private:
  input_file& in_;
  std::unique_ptr<unsigned char[]> buffer_;  // untouched pages cost nothing: most chunks are small
  wire::batch_stream_reader reader_;
  std::vector<unsigned char> bytes_, batch_;
  const std::vector<unsigned char> terminator_ = batch_terminator();
  status status_ = status::ok;
  uint64_t chunks_ = 0;
  // Feeds the reader what it asks for until it completes something.
  wire::batch_step step();
};

// A state file given where a batch belongs: cli_error saying so rather than "bad magic". Reads the
// first bytes of `in` (open a new input_file for the batch).
void refuse_state_file(input_file& in);

// ldp aggregate's loop over one batch file (docs/cli.md "aggregate"): counts every chunk into `agg`
// (batch_stream::add_to); `each`, if set, sees the stream after each chunk. Returns ok, or the status
// that ended the reading of a truncated or damaged file (the chunks before it count).
status count_batch(batch_stream& batch, server::aggregator& agg,
                   const std::function<void(const batch_stream&)>& each = {});

}  // namespace ldp::tools

#endif
