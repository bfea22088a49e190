// ldp: the ldpkit command-line tool (docs/cli.md). Exit codes: 0 success, 2 any error (a failed
// write to stdout included), always with a one-line message on stderr naming the problem, its
// untrusted bytes escaped; nothing escapes as an uncaught exception.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "commands.h"
#include "errors.h"
#include "output.h"

namespace {

// Every unsigned integer option (CLI11's "UINT") takes a decimal, hex (0x) or octal (0) number
// that fits 64 bits, with no sign: CLI11 alone reads "-1" as 2^64 - 1 and 2^64 as a wrapped value
// (issue 21). Narrower options are then range-checked by CLI11's conversion.
std::string unsigned_integer(std::string& text) {
  const std::string shown = ldp::tools::escaped(text, 40);
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos || text[first] == '-' || text[first] == '+') {
    return fmt::format("must be a non-negative integer, got '{}'", shown);
  }
  char* end = nullptr;
  errno = 0;
  std::strtoull(text.c_str(), &end, 0);
  if (end != text.c_str() + text.size()) return fmt::format("must be a non-negative integer, got '{}'", shown);
  if (errno == ERANGE) return fmt::format("is too large: at most 18446744073709551615, got '{}'", shown);
  return {};
}

void check_integer_options(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    if (option->get_type_name() == "UINT") option->check(CLI::Validator(unsigned_integer, "", "unsigned"));
  }
  for (CLI::App* sub : app.get_subcommands({})) check_integer_options(*sub);
}

// Buffered output is written at exit; a failure there (a full disk, a closed pipe) is an error.
bool stdout_written() {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return true;
  const int error = errno;
  fmt::print(stderr, "ldp: cannot write to standard output: {}\n", error != 0 ? std::strerror(error) : "write error");
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ldp::tools;
  try {
    CLI::App app{
        "ldpkit command-line tool: simulate a fleet of devices, aggregate their reports, estimate "
        "with confidence intervals (docs/cli.md)",
        "ldp"};
    app.require_subcommand(1, 1);
    app.set_version_flag("--version", "ldp (ldpkit) 0.1.0");
    const std::vector<command> commands = {add_simulate(app), add_aggregate(app), add_merge(app),
                                           add_estimate(app), add_inspect(app),   add_mechanisms(app),
                                           add_demo(app),     add_ledger(app),    add_train(app)};
    check_integer_options(app);
    try {
      app.parse(argc, argv);
    } catch (const CLI::Success& e) {
      const int code = app.exit(e);  // --help, --version
      return stdout_written() ? code : exit_error;
    } catch (const CLI::ParseError& e) {
      fmt::print(stderr, "ldp: {}\nrun 'ldp --help' or 'ldp <subcommand> --help' for the options\n",
                 escaped(e.what(), 1000));
      return exit_error;
    }
    for (const command& c : commands) {
      if (c.app->parsed()) c.run();
    }
    return stdout_written() ? 0 : exit_error;
  } catch (const cli_error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "ldp: {}\n", escaped(e.what(), 4000));
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    fmt::print(stderr, "ldp: out of memory\n");
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "ldp: {}\n", escaped(e.what(), 4000));
  } catch (...) {
    std::fflush(stdout);
    fmt::print(stderr, "ldp: unexpected error\n");
  }
  return exit_error;
}
