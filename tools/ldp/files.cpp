#include "files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "errors.h"

namespace ldp::tools {
namespace {

std::string reason() { return std::strerror(errno); }

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// The directory entry of a rename is durable only once the directory itself is synced.
void sync_directory(const std::string& dir, const std::string& path) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) fail("cannot open directory {} to sync {}: {}", dir, path, reason());
  const int rc = ::fsync(fd);
  const int error = errno;
  ::close(fd);
  // Some file systems cannot sync a directory (EINVAL); the rename itself has happened.
  if (rc != 0 && error != EINVAL) fail("cannot sync directory {}: {}", dir, std::strerror(error));
}

}  // namespace

input_file::input_file(const std::string& path, const char* what) : path_(path), what_(what) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail("cannot open {} {}: {}", what_, path_, reason());
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail("cannot stat {} {}: {}", what_, path_, reason());
  if (S_ISDIR(st.st_mode)) fail("{} {} is a directory", what_, path_);
  size_ = static_cast<uint64_t>(st.st_size);
}

input_file::~input_file() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t input_file::read_append(std::size_t n, std::vector<unsigned char>& out) {
  const std::size_t start = out.size();
  out.resize(start + n);
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::read(fd_, out.data() + start + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail("cannot read {} {}: {}", what_, path_, reason());
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  out.resize(start + got);
  position_ += got;
  return got;
}

std::vector<unsigned char> read_file(const std::string& path, const char* what, uint64_t max_bytes) {
  input_file in(path, what);
  if (in.size() > max_bytes) fail("{} {} is too large ({} bytes)", what, path, in.size());
  std::vector<unsigned char> bytes;
  bytes.reserve(static_cast<std::size_t>(in.size()));
  // Read to the end rather than trusting the size (a pipe or a growing file).
  while (in.read_append(1 << 20, bytes) != 0) {
    if (bytes.size() > max_bytes) fail("{} {} is too large", what, path);
  }
  return bytes;
}

atomic_output::atomic_output(const std::string& path, const char* what) : path_(path), what_(what) {
  if (path.empty()) fail("empty {} path", what_);
  std::string pattern = path + ".tmp-XXXXXX";
  fd_ = ::mkstemp(pattern.data());
  if (fd_ < 0) fail("cannot create {} {}: {}", what_, path_, reason());
  temp_ = pattern;
  ::fchmod(fd_, 0644);  // mkstemp creates 0600; outputs are ordinary files
}

atomic_output::~atomic_output() {
  if (fd_ >= 0) ::close(fd_);
  if (!temp_.empty()) ::unlink(temp_.c_str());
}

void atomic_output::write(span<const unsigned char> bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::write(fd_, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) fail("cannot write {} {}: {}", what_, path_, reason());
    done += static_cast<std::size_t>(w);
  }
  written_ += bytes.size();
}

void atomic_output::write(const std::string& text) {
  write(span<const unsigned char>(reinterpret_cast<const unsigned char*>(text.data()), text.size()));
}

void atomic_output::commit() {
  if (::fsync(fd_) != 0) fail("cannot sync {} {}: {}", what_, path_, reason());
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) fail("cannot close {} {}: {}", what_, path_, reason());
  if (::rename(temp_.c_str(), path_.c_str()) != 0) fail("cannot write {} {}: {}", what_, path_, reason());
  temp_.clear();
  sync_directory(directory_of(path_), path_);
}

void write_file_atomically(const std::string& path, const char* what, span<const unsigned char> bytes) {
  atomic_output out(path, what);
  out.write(bytes);
  out.commit();
}

std::string indexed_path(const std::string& path, const char* tag, uint64_t index) {
  const std::size_t slash = path.find_last_of('/');
  const std::size_t dot = path.find_last_of('.');
  const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash + 1);
  const std::string suffix = fmt::format(".{}{}", tag, index);
  return has_ext ? path.substr(0, dot) + suffix + path.substr(dot) : path + suffix;
}

}  // namespace ldp::tools
