// ldp: the ldpkit command-line tool (docs/cli.md). Exit codes: 0 success, 2 any error, always with
// a one-line message on stderr naming the problem; nothing escapes as an uncaught exception.
#include <cstdio>
#include <exception>
#include <new>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "commands.h"
#include "errors.h"

int main(int argc, char** argv) {
  using namespace ldp::tools;
  try {
    CLI::App app{"ldpkit command-line tool: simulate a fleet of devices, aggregate their reports, estimate "
                 "with confidence intervals (docs/cli.md)",
                 "ldp"};
    app.require_subcommand(1, 1);
    app.set_version_flag("--version", "ldp (ldpkit) 0.1.0");
    const std::vector<command> commands = {add_simulate(app), add_aggregate(app),  add_merge(app),
                                           add_estimate(app),  add_inspect(app),    add_mechanisms(app),
                                           add_demo(app)};
    try {
      app.parse(argc, argv);
    } catch (const CLI::Success& e) {
      return app.exit(e);  // --help, --version
    } catch (const CLI::ParseError& e) {
      fmt::print(stderr, "ldp: {}\nrun 'ldp --help' or 'ldp <subcommand> --help' for the options\n", e.what());
      return exit_error;
    }
    for (const command& c : commands) {
      if (c.app->parsed()) c.run();
    }
    return 0;
  } catch (const cli_error& e) {
    std::fflush(stdout);
    fmt::print(stderr, "ldp: {}\n", e.what());
  } catch (const std::bad_alloc&) {
    std::fflush(stdout);
    fmt::print(stderr, "ldp: out of memory\n");
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "ldp: {}\n", e.what());
  } catch (...) {
    std::fflush(stdout);
    fmt::print(stderr, "ldp: unexpected error\n");
  }
  return exit_error;
}
