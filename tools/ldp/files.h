// File access for the tool: whole small files, streamed large ones, and atomic replacement of an
// output (temporary file in the same directory, fsync, rename, fsync of the directory), so a
// crash or an error never leaves a half-written batch, state or plot under the requested name;
// the check that no output is an input or another output (docs/cli.md "Files"). POSIX only.
// Every failure throws cli_error naming the path and the system's reason.
#ifndef LDP_TOOLS_FILES_H
#define LDP_TOOLS_FILES_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ldp/base/span.h"

struct gzFile_s;  // zlib's

namespace ldp::tools {

// The whole file; `what` names it in errors ("state file", ...). Refuses files above max_bytes.
std::vector<unsigned char> read_file(const std::string& path, const char* what, uint64_t max_bytes = uint64_t{1} << 34);

// Sequential reads of a file that may be larger than memory.
class input_file {
 public:
  // gunzip: the file is gzip-compressed (ldp train's csv:FILE.gz, docs/cli.md "ldp train"); the reads
  // and position() are of the decompressed bytes, size() is the file's.
  input_file(const std::string& path, const char* what, bool gunzip = false);
  ~input_file();
  input_file(const input_file&) = delete;
  input_file& operator=(const input_file&) = delete;

  // Appends up to n bytes to `out`; fewer only at the end of the file. Returns the count.
  std::size_t read_append(std::size_t n, std::vector<unsigned char>& out);
  uint64_t size() const { return size_; }
  uint64_t position() const { return position_; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string what_;
  int fd_ = -1;
  gzFile_s* gz_ = nullptr;  // owns the descriptor when set
  uint64_t size_ = 0;
  uint64_t position_ = 0;
};

// Writes to a temporary file next to `path`, named ".ldp-<pid>.XXXXXX" (short, so that any legal
// name can be written; the pid tells a later run whether its writer is alive). The first output
// into a directory removes the stale temporary files there (docs/cli.md "Files": of a writer that
// is no longer running, not modified for 10 minutes) and says so on stderr. commit() makes it appear under `path` atomically.
// Destroyed without commit(), the temporary file is removed and `path` is untouched.
class atomic_output {
 public:
  atomic_output(const std::string& path, const char* what);
  ~atomic_output();
  atomic_output(const atomic_output&) = delete;
  atomic_output& operator=(const atomic_output&) = delete;

  void write(span<const unsigned char> bytes);
  void write(const std::string& text);
  void commit();
  uint64_t written() const { return written_; }

 private:
  std::string path_;
  std::string what_;
  std::string temp_;
  int fd_ = -1;
  uint64_t written_ = 0;
};

// PATH with ".<tag><index>" before its extension (kent.ldpb, "fold", 3 -> kent.fold3.ldpb): the
// names of the per-fold and per-query files of one simulate run.
std::string indexed_path(const std::string& path, const char* tag, uint64_t index);

// A file a command names: the option (or argument) that names it, and the path.
struct named_file {
  std::string option;  // "--out", "--truth", "batch" (an argument), ...
  std::string path;
};

// Refuses (cli_error naming both options) an output that is the same file as an input or as
// another output: the same device and inode when it exists, otherwise the same directory (device
// and inode) and name. Empty paths are skipped. Every command calls it before any work.
void refuse_overlaps(const std::vector<named_file>& inputs, const std::vector<named_file>& outputs);

// Refuses (cli_error naming both and `allow_option`) two inputs that are one file (the same device
// and inode: hard links, symbolic links, other spellings) or byte-identical regular files (equal
// sizes, then compared byte by byte): counting one input twice (docs/cli.md "Files").
void refuse_duplicate_inputs(const std::vector<named_file>& inputs, const char* allow_option);

// Whole-buffer convenience for small outputs (state files, plots).
void write_file_atomically(const std::string& path, const char* what, span<const unsigned char> bytes);

}  // namespace ldp::tools

#endif
