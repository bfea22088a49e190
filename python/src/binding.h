// What the parts of the ldpkit._core module share (docs/python.md): the error type, the parameter
// block object, and reading caller buffers in place.
#ifndef LDP_PYTHON_BINDING_H
#define LDP_PYTHON_BINDING_H

#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "ldp/base/span.h"
#include "ldp/base/status.h"
#include "mechanism_options.h"

namespace ldp::python {

namespace py = pybind11;

// A library status with a message; the module's translator raises it as ldpkit.Error (.status the
// library's name of the status, .code its number). Thrown where the GIL may be released.
class status_error : public std::runtime_error {
 public:
  status_error(status s, const std::string& message) : std::runtime_error(message), code(s) {}
  status code;
};

[[noreturn]] void raise(status s, const std::string& message);

// A cli_error's status: the tool names the library status behind a refusal as describe() prints it,
// "limit_exceeded (16)"; a message without one is an argument the tool refused (invalid_argument).
status status_in(const std::string& message);

// ldpkit.Params: a parameter block as the tool holds it (the block, its fingerprint, the
// implemented epsilon, the tool's mechanism).
struct params_object {
  tools::parameter_block block;
};

// The tool's mechanism of a block (the table's command-line name of block.mech); unknown_mechanism
// for a block no tool mechanism produces.
const tools::tool_mechanism& tool_mechanism_of(const wire::params& p);
params_object params_of(const wire::params& p);

// The mechanism options of a Python call, parsed by the tool's own command-line options
// (add_mechanism_options), so conversions and checks are those of `ldp simulate`. The options keep
// pointers into the parser (mechanism_options::given), which lives as long as they do.
struct parsed_options {
  CLI::App app;
  tools::mechanism_options options;
};
// `options` maps the tool's option names without "--" ("hash-range") to their text; a parse error
// is a ValueError.
std::unique_ptr<parsed_options> parse_mechanism_options(const std::string& mechanism, double epsilon,
                                                        const std::map<std::string, std::string>& options);

// A read-only view of a bytes-like object (the buffer protocol), held while the view lives.
class byte_view {
 public:
  explicit byte_view(const py::buffer& b);
  span<const unsigned char> bytes() const { return bytes_; }

 private:
  py::buffer_info info_;
  span<const unsigned char> bytes_;
};

py::bytes to_bytes(span<const unsigned char> bytes);

// A ValueError naming the first of `strings` (device strings or candidates of a pem, treehist or sfp
// block) that wire::pad_string refuses (empty, longer than the block's string_length, a zero byte):
// "`what` INDEX has ...".
void check_strings(const std::vector<std::string>& strings, const wire::params& p, const char* what);

void bind_params(py::module_& m);
void bind_randomizer(py::module_& m);
void bind_aggregator(py::module_& m);
void bind_protocols(py::module_& m);
void bind_training(py::module_& m);

}  // namespace ldp::python

#endif
