// The multi-round user-level protocols as the tool has them (docs/cli.md "kent", "winsorized-mean"):
// `ldp simulate`'s own runs (user_level_sim.h, winsorized_sim.h) over the caller's rows of reals,
// writing the files simulate writes into paths the caller names; ldpkit.simulate_protocol reads them
// back. What the run prints is captured and returned.
#include <cstdio>
#include <map>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "binding.h"
#include "errors.h"
#include "files.h"
#include "user_level_sim.h"
#include "winsorized_sim.h"

namespace ldp::python {
namespace {

// Standard output and error of the process into a file while it lives (the tool prints its summary
// and progress there); text() gives what was written. Process-wide: the run holds the GIL.
class captured_output {
 public:
  explicit captured_output(const std::string& path) {
    std::fflush(stdout);
    std::fflush(stderr);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) raise(status::invalid_argument, fmt::format("cannot create the log file {}", path));
    saved_out_ = ::dup(1);
    saved_err_ = ::dup(2);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::close(fd);
  }
  ~captured_output() {
    std::fflush(stdout);
    std::fflush(stderr);
    ::dup2(saved_out_, 1);
    ::dup2(saved_err_, 2);
    ::close(saved_out_);
    ::close(saved_err_);
  }
  captured_output(const captured_output&) = delete;
  captured_output& operator=(const captured_output&) = delete;

 private:
  int saved_out_ = -1, saved_err_ = -1;
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
  const captured_output capture(file("log"));
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
