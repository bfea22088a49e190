#include "npy.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "errors.h"
#include "files.h"
#include "ldp/base/bits.h"
#include "output.h"

namespace ldp::tools {
namespace {

// What a .npy header states.
struct npy_header {
  char kind = 'f';          // 'f' floating point, 'i' signed integer, 'u' unsigned integer
  unsigned item_bytes = 8;  // bytes per element
  bool big_endian = false;
  bool fortran_order = false;
  std::vector<uint64_t> shape;  // 1 or 2 dimensions
  uint64_t data_offset = 0;     // where the data begin: 10 or 12 + the header's length
};

constexpr unsigned char magic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr std::size_t max_header_bytes = std::size_t{64} << 10;

// The header is a Python dict literal, {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), },
// padded with blanks and ended by '\n'; this reads exactly that grammar (any key order, the last
// comma optional, blanks between tokens) and nothing else.
class header_parser {
 public:
  header_parser(const char* text, std::size_t size, const std::string& path)
      : at_(text), end_(text + size), path_(path) {}

  npy_header parse() {
    npy_header h;
    bool descr = false, order = false, shape = false;
    expect('{');
    while (!take('}')) {
      const std::string key = string_literal();
      expect(':');
      if (key == "descr" && !descr) {
        descr = true;
        dtype(&h);
      } else if (key == "fortran_order" && !order) {
        order = true;
        h.fortran_order = boolean();
      } else if (key == "shape" && !shape) {
        shape = true;
        h.shape = tuple();
      } else {
        bad(fmt::format("an unexpected or repeated key '{}'", escaped(key, 40)));
      }
      if (!take(',')) {
        expect('}');
        break;
      }
    }
    skip_blanks();
    if (at_ != end_) bad("text after the dictionary");
    if (!descr || !order || !shape) bad("'descr', 'fortran_order' and 'shape' are required");
    return h;
  }

 private:
  [[noreturn]] void bad(const std::string& what) const {
    fail("npy file {}: malformed header: {} (docs/cli.md \"Data\")", path_, what);
  }
  void skip_blanks() {
    while (at_ != end_ && (*at_ == ' ' || *at_ == '\n' || *at_ == '\t')) ++at_;
  }
  bool take(char c) {
    skip_blanks();
    if (at_ == end_ || *at_ != c) return false;
    ++at_;
    return true;
  }
  void expect(char c) {
    if (!take(c)) bad(fmt::format("'{}' expected", c));
  }
  std::string string_literal() {
    skip_blanks();
    if (at_ == end_ || (*at_ != '\'' && *at_ != '"')) bad("a quoted key or dtype expected");
    const char quote = *at_++;
    const char* begin = at_;
    while (at_ != end_ && *at_ != quote) {
      if (*at_ == '\\' || static_cast<unsigned char>(*at_) < 0x20 || static_cast<unsigned char>(*at_) > 0x7e)
        bad("a string with escapes or non-ASCII characters");
      ++at_;
    }
    if (at_ == end_) bad("an unterminated string");
    return std::string(begin, at_++);
  }
  bool boolean() {
    skip_blanks();
    for (const char* word : {"True", "False"}) {
      const std::size_t n = std::strlen(word);
      if (static_cast<std::size_t>(end_ - at_) >= n && std::memcmp(at_, word, n) == 0) {
        at_ += n;
        return word[0] == 'T';
      }
    }
    bad("fortran_order must be True or False");
  }
  uint64_t integer() {
    skip_blanks();
    if (at_ == end_ || *at_ < '0' || *at_ > '9') bad("a dimension must be a non-negative integer");
    uint64_t v = 0;
    while (at_ != end_ && *at_ >= '0' && *at_ <= '9') {
      if (v > (UINT64_MAX - 9) / 10) bad("a dimension above 2^64");
      v = v * 10 + static_cast<uint64_t>(*at_++ - '0');
    }
    return v;
  }
  std::vector<uint64_t> tuple() {
    expect('(');
    std::vector<uint64_t> dims;
    while (!take(')')) {
      if (dims.size() == 2) bad("more than 2 dimensions (one row per device: reshape to 2-D)");
      dims.push_back(integer());
      if (!take(',')) {
        expect(')');
        break;
      }
    }
    if (dims.empty()) bad("a 0-dimensional array (one number): no rows");
    return dims;
  }
  // '<' or '>' (any for one byte: '|'), then f4 f8 i1 i2 i4 i8 u1 u2 u4 u8.
  void dtype(npy_header* h) {
    skip_blanks();
    if (at_ != end_ && *at_ == '[') bad("a structured dtype (a list of fields): save a plain numeric array");
    const std::string d = string_literal();
    const bool known = d.size() == 3 && std::strchr("<>|", d[0]) != nullptr && std::strchr("fiu", d[1]) != nullptr &&
                       std::strchr("1248", d[2]) != nullptr;
    const unsigned bytes = known ? static_cast<unsigned>(d[2] - '0') : 0;
    if (!known || (d[1] == 'f' && bytes < 4) || (bytes > 1 && d[0] == '|')) {
      fail(
          "npy file {}: dtype '{}' is not supported: little- ('<') or big-endian ('>') f4, f8, i2, i4, i8, u2, u4, "
          "u8, or i1, u1 (docs/cli.md \"Data\")",
          path_, escaped(d, 40));
    }
    h->kind = d[1];
    h->item_bytes = bytes;
    h->big_endian = d[0] == '>';
  }

  const char* at_;
  const char* end_;
  const std::string& path_;
};

// Elements as doubles (exact for every value but integers above 2^53, which round to nearest
// as strtod rounds their decimal digits). U is the unsigned integer of T's size: the bytes are
// assembled in the file's order whatever the host's, which compilers turn into a load (and a swap).
using decoder = void (*)(const unsigned char* bytes, std::size_t count, double* out);

template <typename T, typename U, bool big>
void decode(const unsigned char* p, std::size_t count, double* out) {
  for (std::size_t i = 0; i < count; ++i, p += sizeof(U)) {
    U bits = 0;
    for (std::size_t k = 0; k < sizeof(U); ++k)
      bits = static_cast<U>(bits | U{p[big ? sizeof(U) - 1 - k : k]} << (8 * k));
    T v;
    std::memcpy(&v, &bits, sizeof v);
    out[i] = static_cast<double>(v);
  }
}

template <bool big>
decoder decoder_of(char kind, unsigned bytes) {
  switch (bytes) {
    case 1: return kind == 'i' ? decode<int8_t, uint8_t, big> : decode<uint8_t, uint8_t, big>;
    case 2: return kind == 'i' ? decode<int16_t, uint16_t, big> : decode<uint16_t, uint16_t, big>;
    case 4:
      if (kind == 'f') return decode<float, uint32_t, big>;
      return kind == 'i' ? decode<int32_t, uint32_t, big> : decode<uint32_t, uint32_t, big>;
    default:
      if (kind == 'f') return decode<double, uint64_t, big>;
      return kind == 'i' ? decode<int64_t, uint64_t, big> : decode<uint64_t, uint64_t, big>;
  }
}

// Parses the header at the start of `bytes` (the file's first bytes, at least all of its header)
// for a file of `file_bytes` bytes; throws cli_error naming `path` and the problem.
npy_header parse_npy_header(const unsigned char* bytes, std::size_t size, uint64_t file_bytes,
                            const std::string& path) {
  if (size < 10 || std::memcmp(bytes, magic, sizeof magic) != 0)
    fail("npy file {} is not a .npy file (no \\x93NUMPY magic; {} bytes)", path, file_bytes);
  const unsigned major = bytes[6], minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0)
    fail("npy file {}: format version {}.{} is not supported (1.0, 2.0, 3.0)", path, major, minor);
  const std::size_t prelude = major == 1 ? 10 : 12;
  if (size < prelude) fail("npy file {} ends inside its header", path);
  const uint64_t length = major == 1 ? uint64_t{bytes[8]} | uint64_t{bytes[9]} << 8 : load_le32(bytes + 8);
  if (length > max_header_bytes) {
    fail("npy file {}: a header of {} bytes is longer than {} (the limit of docs/cli.md)", path, length,
         max_header_bytes);
  }
  if (prelude + length > size) fail("npy file {} ends inside its header ({} bytes stated)", path, length);
  npy_header h = header_parser(reinterpret_cast<const char*>(bytes) + prelude, length, path).parse();
  h.data_offset = prelude + length;
  uint64_t count = 1;
  for (const uint64_t d : h.shape) {
    if (d != 0 && count > UINT64_MAX / d) fail("npy file {}: its shape has more than 2^64 elements", path);
    count *= d;
  }
  if (file_bytes < h.data_offset) fail("npy file {} is not a regular file (its size is not known)", path);
  const uint64_t data = file_bytes - h.data_offset;
  if (count > data / h.item_bytes || count * h.item_bytes != data) {
    fail(
        "npy file {}: its header states {} element(s) of {} byte(s), but {} bytes of data follow it (truncated or "
        "not what the header says)",
        path, count, h.item_bytes, data);
  }
  return h;
}

}  // namespace

npy_rows read_npy(const std::string& path, uint32_t width, uint64_t max_rows) {
  input_file in(path, "npy file");
  std::vector<unsigned char> buffer;
  in.read_append(12 + max_header_bytes, buffer);
  const npy_header h = parse_npy_header(buffer.data(), buffer.size(), in.size(), path);
  const uint64_t columns = h.shape.size() == 2 ? h.shape[1] : 1;
  if (columns != width) {
    fail("npy file {} has {} column(s) per row, the mechanism needs {} (one row per device; docs/cli.md \"Data\")",
         path, columns, width);
  }
  npy_rows out;
  out.rows = h.shape[0];
  if (out.rows == 0) fail("npy file {} has no data rows", path);
  const uint64_t kept = max_rows == 0 ? out.rows : std::min(out.rows, max_rows);
  out.values.resize(static_cast<std::size_t>(kept * width));
  // Stream the data in blocks, in file order: element k is row k / width, column k % width (C
  // order) or row k % rows, column k / rows (Fortran order); rows beyond `kept` are checked, then
  // dropped.
  const decoder read = h.big_endian ? decoder_of<true>(h.kind, h.item_bytes) : decoder_of<false>(h.kind, h.item_bytes);
  buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(h.data_offset));
  const uint64_t count = out.rows * width, kept_count = kept * width;
  std::vector<double> block;
  std::size_t at = 0;
  for (uint64_t k = 0; k < count;) {
    if (buffer.size() - at < h.item_bytes) {
      buffer.erase(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(at));
      at = 0;
      if (in.read_append(std::size_t{1} << 20, buffer) == 0)
        fail("npy file {} ends early: it changed while read", path);
      continue;
    }
    const auto n = static_cast<std::size_t>(std::min<uint64_t>(count - k, (buffer.size() - at) / h.item_bytes));
    block.resize(n);
    read(buffer.data() + at, n, block.data());
    at += n * h.item_bytes;
    for (std::size_t i = 0; i < n; ++i) {
      if (!std::isfinite(block[i])) {
        const uint64_t e = k + i, row = h.fortran_order ? e % out.rows : e / width;
        const uint64_t column = h.fortran_order ? e / out.rows : e % width;
        fail("npy file {} row {} column {}: {} is not a finite number", path, row + 1, column + 1, block[i]);
      }
    }
    if (!h.fortran_order) {
      if (k < kept_count) std::copy_n(block.begin(), std::min<uint64_t>(n, kept_count - k), out.values.begin() + k);
    } else {
      for (std::size_t i = 0; i < n; ++i) {
        const uint64_t e = k + i, row = e % out.rows;
        if (row < kept) out.values[static_cast<std::size_t>(row * width + e / out.rows)] = block[i];
      }
    }
    k += n;
  }
  return out;
}

}  // namespace ldp::tools
