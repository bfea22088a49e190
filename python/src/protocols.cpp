// The multi-round user-level protocols as the tool has them (docs/cli.md "kent", "winsorized-mean"):
// `ldp simulate`'s own runs (user_level_sim.h, winsorized_sim.h) over the caller's rows of reals,
// writing the files simulate writes into paths the caller names; ldpkit.simulate_protocol reads them
// back. What the run prints goes to a log file the caller names.
#include <cstdio>
#include <map>
#include <string>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "binding.h"
#include "errors.h"
#include "files.h"
#include "user_level_sim.h"
#include "winsorized_sim.h"

namespace ldp::python {
namespace {

// The run's summary goes to this file, which ldpkit.simulate_protocol returns as text: the tool's
// stdout is not the caller's, and nothing process-wide is redirected, so the GIL can be released.
struct log_file {
  explicit log_file(const std::string& path) : file(std::fopen(path.c_str(), "w")) {
    if (file == nullptr) raise(status::invalid_argument, fmt::format("cannot create the log file {}", path));
  }
  ~log_file() { std::fclose(file); }
  log_file(const log_file&) = delete;
  log_file& operator=(const log_file&) = delete;
  std::FILE* file;
};

void run_protocol(const std::string& mechanism, double epsilon, const std::map<std::string, std::string>& options,
                  const py::buffer& values, uint64_t seed, const std::map<std::string, std::string>& files,
                  unsigned threads) {
  const py::buffer_info info = values.request();
  if (info.format != py::format_descriptor<double>::format() || info.strides.back() != info.itemsize) {
    throw py::type_error("the users' values must be a C-contiguous float64 buffer");
  }
  const std::unique_ptr<parsed_options> parsed = parse_mechanism_options(mechanism, epsilon, options);
  const tools::input_kind input = tools::checked_mechanism(parsed->options).input;
  if (input != tools::input_kind::observations && input != tools::input_kind::samples) {
    throw py::value_error(mechanism + " is not a multi-round protocol: use ldpkit.Randomizer");
  }
  tools::user_level_run run;
  run.data = "array";
  run.values = span<const double>(static_cast<const double*>(info.ptr), static_cast<std::size_t>(info.size));
  run.seed = seed;
  run.threads = threads;
  const auto file = [&](const char* name) {
    const auto at = files.find(name);
    return at == files.end() ? std::string() : at->second;
  };
  run.out = file("out");
  run.round1_out = file("round1_out");
  run.release_out = file("release_out");
  run.windows_out = file("windows_out");
  run.truth_out = file("truth_out");
  if (run.out.empty()) throw py::value_error("files['out'] is required");
  const log_file log(file("log"));
  run.log = log.file;
  run.progress = false;
  const py::gil_scoped_release unlocked;  // `values` stays alive: the caller holds the array
  if (input == tools::input_kind::observations) {
    tools::simulate_user_level(parsed->options, run);
  } else {
    tools::simulate_winsorized(parsed->options, run);
  }
}

}  // namespace

void bind_protocols(py::module_& m) {
  m.def("run_protocol", &run_protocol, py::arg("mechanism"), py::arg("epsilon"), py::arg("options"), py::arg("values"),
        py::arg("seed"), py::arg("files"), py::arg("threads") = 1,
        "Runs `ldp simulate --mechanism kent|winsorized-mean` on the users' rows of reals (read in place), "
        "writing the files it names (out, round1_out, release_out, windows_out, truth_out as simulate's "
        "options, log for what it prints). ldpkit.simulate_protocol wraps it.");
  m.def(
      "indexed_path",
      [](const std::string& path, const std::string& tag, uint64_t index) {
        return tools::indexed_path(path, tag.c_str(), index);
      },
      py::arg("path"), py::arg("tag"), py::arg("index"),
      "PATH with '.<tag><index>' before its extension: simulate's per-fold and per-query file names.");
}

}  // namespace ldp::python
