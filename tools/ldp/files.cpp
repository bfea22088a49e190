#include "files.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>
#include <zlib.h>

#include "errors.h"
#include "output.h"

namespace ldp::tools {
namespace {

std::string reason() { return std::strerror(errno); }

std::string directory_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Temporary outputs are ".ldp-<pid>.XXXXXX" (mkstemp's six letters and digits): short, so a name
// of NAME_MAX bytes still has room, and the pid says whether the writer may still be running.
constexpr char temp_prefix[] = ".ldp-";
constexpr std::size_t temp_random = 6;

// The writer pid of a name of the tool's temporary pattern, or 0.
pid_t temp_writer(const char* name) {
  const std::size_t prefix = sizeof temp_prefix - 1;
  if (std::strncmp(name, temp_prefix, prefix) != 0) return 0;
  const char* digits = name + prefix;
  const char* dot = std::strchr(digits, '.');
  if (dot == nullptr || dot == digits || dot - digits > 9 || std::strlen(dot + 1) != temp_random) return 0;
  for (const char* c = digits; c != dot; ++c) {
    if (!std::isdigit(static_cast<unsigned char>(*c))) return 0;
  }
  for (const char* c = dot + 1; *c != '\0'; ++c) {
    if (!std::isalnum(static_cast<unsigned char>(*c))) return 0;
  }
  return static_cast<pid_t>(std::strtol(digits, nullptr, 10));
}

// docs/cli.md "Files": a temporary file of the tool's pattern is stale when its writer is not
// running on this host and it has not been modified for 10 minutes (a writer on another host
// sharing the directory writes more often than that). Removed once per directory per run, with a
// line on stderr; one that cannot be removed is left and reported.
void remove_stale_temporaries(const std::string& dir) {
  static std::set<std::string> cleaned;
  if (!cleaned.insert(dir).second) return;
  DIR* listing = ::opendir(dir.c_str());
  if (listing == nullptr) return;  // creating the output reports the problem
  const std::time_t cutoff = std::time(nullptr) - 600;
  std::vector<std::string> stale;
  while (const dirent* entry = ::readdir(listing)) {
    const pid_t writer = temp_writer(entry->d_name);
    if (writer <= 0 || writer == ::getpid()) continue;
    if (::kill(writer, 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
    const std::string path = dir + "/" + entry->d_name;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_mtime > cutoff) continue;
    stale.push_back(path);
  }
  ::closedir(listing);
  for (const std::string& path : stale) {
    if (::unlink(path.c_str()) == 0) {
      fmt::print(stderr, "ldp: removed stale temporary file {} (its writer is no longer running)\n", escaped(path));
    } else {
      fmt::print(stderr, "ldp: warning: cannot remove stale temporary file {}: {}\n", escaped(path), reason());
    }
  }
}

// What names a file for refuse_overlaps: device and inode of an existing file; else those of its
// directory and its name; else (no such directory) the path itself.
struct file_identity {
  dev_t device = 0;
  ino_t inode = 0;
  std::string name;
  bool operator<(const file_identity& o) const {
    return std::tie(device, inode, name) < std::tie(o.device, o.inode, o.name);
  }
  bool operator==(const file_identity& o) const {
    return std::tie(device, inode, name) == std::tie(o.device, o.inode, o.name);
  }
};

file_identity identity_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return {st.st_dev, st.st_ino, ""};
  if (::stat(directory_of(path).c_str(), &st) == 0) return {st.st_dev, st.st_ino, name_of(path)};
  return {0, 0, path};
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

input_file::input_file(const std::string& path, const char* what, bool gunzip) : path_(path), what_(what) {
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) fail("cannot open {} {}: {}", what_, path_, reason());
  struct stat st {};
  if (::fstat(fd_, &st) != 0) fail("cannot stat {} {}: {}", what_, path_, reason());
  if (S_ISDIR(st.st_mode)) fail("{} {} is a directory", what_, path_);
  size_ = static_cast<uint64_t>(st.st_size);
  if (gunzip) {
    gz_ = gzdopen(fd_, "rb");
    if (gz_ == nullptr) fail("cannot read {} {}: out of memory for its decompression", what_, path_);
    fd_ = -1;
  }
}

input_file::~input_file() {
  if (gz_ != nullptr) gzclose(gz_);
  if (fd_ >= 0) ::close(fd_);
}

std::size_t input_file::read_append(std::size_t n, std::vector<unsigned char>& out) {
  const std::size_t start = out.size();
  out.resize(start + n);
  std::size_t got = 0;
  while (got < n && gz_ != nullptr) {
    // gzread takes an unsigned count: at most 1 GiB a call.
    const int r =
        gzread(gz_, out.data() + start + got, static_cast<unsigned>(std::min<std::size_t>(n - got, 1u << 30)));
    if (r < 0) {
      int code = 0;
      const char* message = gzerror(gz_, &code);
      fail("cannot read {} {}: {}", what_, path_, code == Z_ERRNO ? reason() : std::string(message));
    }
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  while (got < n && gz_ == nullptr) {
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
  const std::string dir = directory_of(path);
  remove_stale_temporaries(dir);
  std::string pattern = fmt::format("{}/{}{}.{}", dir, temp_prefix, ::getpid(), std::string(temp_random, 'X'));
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

void refuse_overlaps(const std::vector<named_file>& inputs, const std::vector<named_file>& outputs) {
  std::map<file_identity, const named_file*> seen;
  for (const named_file& in : inputs) {
    if (!in.path.empty()) seen.emplace(identity_of(in.path), &in);
  }
  for (const named_file& out : outputs) {
    if (out.path.empty()) continue;
    const auto [at, added] = seen.emplace(identity_of(out.path), &out);
    if (!added) {
      fail("{} {} is the same file as {} {}: an output never replaces an input or another output", out.option, out.path,
           at->second->option, at->second->path);
    }
  }
}

namespace {

bool same_bytes(const std::string& a, const std::string& b) {
  input_file in_a(a, "input file"), in_b(b, "input file");
  std::vector<unsigned char> bytes_a, bytes_b;
  for (;;) {
    bytes_a.clear();
    bytes_b.clear();
    const std::size_t got = in_a.read_append(1 << 20, bytes_a);
    in_b.read_append(1 << 20, bytes_b);
    if (bytes_a != bytes_b) return false;
    if (got == 0) return true;
  }
}

}  // namespace

void refuse_duplicate_inputs(const std::vector<named_file>& inputs, const char* allow_option) {
  std::vector<struct stat> st(inputs.size());
  std::vector<bool> exists(inputs.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) exists[i] = ::stat(inputs[i].path.c_str(), &st[i]) == 0;
  for (std::size_t j = 1; j < inputs.size(); ++j) {
    for (std::size_t i = 0; i < j; ++i) {
      if (!exists[i] || !exists[j]) continue;  // opening it reports the problem
      const named_file &a = inputs[i], &b = inputs[j];
      const bool same_file = identity_of(a.path) == identity_of(b.path);  // as refuse_overlaps judges it
      // Pipes and devices cannot be read twice: only regular files are compared.
      if (same_file || (S_ISREG(st[i].st_mode) && S_ISREG(st[j].st_mode) && st[i].st_size == st[j].st_size &&
                        same_bytes(a.path, b.path))) {
        fail("{} {} is {} {} {}: it would be counted twice ({} counts it anyway)", b.option, b.path,
             same_file ? "the same file as" : "a byte-identical copy of", a.option, a.path, allow_option);
      }
    }
  }
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
