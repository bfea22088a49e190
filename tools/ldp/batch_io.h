// Batch files (docs/wire_format.md section 6). batch_stream reads one chunk by chunk, in memory bounded by the
// largest chunk (16 MiB), however large the file. It only cuts the file into the pieces the format
// delimits; every check (magic, CRCs, lengths, the terminator and what follows it) is the wire
// module's batch_reader, run on "header + one chunk", so the tool and the library cannot disagree.
#ifndef LDP_TOOLS_BATCH_IO_H
#define LDP_TOOLS_BATCH_IO_H

#include <cstdint>
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

  const wire::params& parameters() const { return params_; }
  uint64_t fingerprint() const { return fingerprint_; }
  span<const unsigned char> header() const { return {buffer_.data(), header_size_}; }

  // Reads the next chunk: as many of its bytes as the file holds (after a terminator, also one
  // byte of whatever follows it, which the reader then rejects). False when the previous chunk was
  // the terminator or incomplete, i.e. nothing more can be read.
  bool next();
  // The header and the current chunk: a batch_reader opened on it reads exactly that chunk.
  span<const unsigned char> with_header() const { return buffer_; }
  // The header, the current chunk and, after a complete chunk, a terminator: a whole batch for
  // aggregator::add_batch, which then counts the chunk exactly as in the full file.
  span<const unsigned char> as_batch();
  uint64_t chunks() const { return chunks_; }  // chunks read so far, the terminator included

 private:
  input_file& in_;
  std::vector<unsigned char> buffer_;
  std::size_t header_size_ = 0;
  wire::params params_;
  uint64_t fingerprint_ = 0;
  uint64_t chunks_ = 0;
  bool complete_ = false;    // the current chunk has all its claimed bytes
  bool terminator_ = false;  // the current chunk claims to be the terminator
  bool ended_ = false;
  std::vector<unsigned char> terminator_bytes_ = batch_terminator();
};

}  // namespace ldp::tools

#endif
