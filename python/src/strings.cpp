// The strings of the string-discovery blocks pem, treehist, sfp in Python calls (docs/python.md
// "Strings"): refused here, by their index, for what wire::pad_string refuses (docs/mechanisms.md F.1),
// so a device never sees one and the caller learns which element to fix.
#include <fmt/format.h>

#include "binding.h"
#include "ldp/wire/string_params.h"

namespace ldp::python {

void check_strings(const std::vector<std::string>& strings, const wire::params& p, const char* what) {
  const uint64_t length = p.get(wire::field::string_length);
  for (std::size_t i = 0; i < strings.size(); ++i) {
    const std::string& s = strings[i];
    wire::padded_string padded;
    const span<const unsigned char> bytes(reinterpret_cast<const unsigned char*>(s.data()), s.size());
    if (wire::pad_string(p, bytes, &padded) == status::ok) continue;
    const std::size_t zero = s.find('\0');
    const std::string why = s.empty()           ? std::string("is empty")
                            : s.size() > length ? fmt::format(
                                                      "has {} bytes, more than the block's "
                                                      "string_length {}",
                                                      s.size(), length)
                            : zero != s.npos ? fmt::format("holds a zero byte at byte {}", zero)
                                             : std::string("is refused by the block");
    throw py::value_error(
        fmt::format("{} {} {} (strings are 1..{} bytes without a zero byte; str as UTF-8)", what, i, why, length));
  }
}

}  // namespace ldp::python
