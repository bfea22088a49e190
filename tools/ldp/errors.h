// How every subcommand reports a problem (docs/cli.md, "Exit codes"): throw `cli_error` with a
// message that names the argument or file at fault; main() prints "ldp: <message>" and exits 2.
#ifndef LDP_TOOLS_ERRORS_H
#define LDP_TOOLS_ERRORS_H

#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "ldp/base/status.h"

namespace ldp::tools {

inline constexpr int exit_error = 2;

class cli_error : public std::runtime_error {
 public:
  explicit cli_error(const std::string& message) : std::runtime_error(message) {}
};

template <class... Args>
[[noreturn]] void fail(fmt::format_string<Args...> format, Args&&... args) {
  throw cli_error(fmt::format(format, std::forward<Args>(args)...));
}

// "malformed_report (4)": the stable name and number of a library status.
inline std::string describe(status s) { return fmt::format("{} ({})", status_name(s), static_cast<int>(s)); }

}  // namespace ldp::tools

#endif
