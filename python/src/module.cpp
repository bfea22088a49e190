// ldpkit._core (issue 13, docs/python.md): the pybind11 module over the ldp tool's library. The
// pure-Python package ldpkit re-exports it and adds the argument checks, pandas and plotting.
#include <string>

#include <pybind11/pybind11.h>

#include "binding.h"
#include "errors.h"
#include "ldp/server/threads.h"

namespace ldp::python {
namespace {

py::handle error_type;  // ldpkit.Error, created at import and never freed (it outlives the module)

void set_error(status s, const std::string& message) {
  py::object e = error_type(message);
  e.attr("status") = status_name(s);
  e.attr("code") = static_cast<int>(s);
  PyErr_SetObject(error_type.ptr(), e.ptr());
}

}  // namespace

status status_in(const std::string& message) {
  std::size_t first = std::string::npos;
  status found = status::invalid_argument;
  for (int32_t code = 1; code < status_count; ++code) {
    const std::size_t at = message.find(tools::describe(static_cast<status>(code)));
    if (at < first) {
      first = at;
      found = static_cast<status>(code);
    }
  }
  return found;
}

void raise(status s, const std::string& message) { throw status_error(s, message); }

byte_view::byte_view(const py::buffer& b) : info_(b.request()) {
  py::ssize_t stride = info_.itemsize;  // C order: each dimension's stride is the size of the ones after it
  for (py::ssize_t d = info_.ndim - 1; d >= 0; --d) {
    const auto at = static_cast<std::size_t>(d);
    if (info_.shape[at] > 1 && info_.strides[at] != stride) throw py::type_error("the buffer is not C-contiguous");
    stride *= info_.shape[at];
  }
  bytes_ = span<const unsigned char>(static_cast<const unsigned char*>(info_.ptr),
                                     static_cast<std::size_t>(info_.size * info_.itemsize));
}

py::bytes to_bytes(span<const unsigned char> bytes) {
  return py::bytes(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

}  // namespace ldp::python

PYBIND11_MODULE(_core, m) {
  using namespace ldp::python;
  m.doc() = "ldpkit's compiled core: the ldp tool's library (parameters, fleet, readers, estimates) for Python.";
  PyObject* type = PyErr_NewExceptionWithDoc(
      "ldpkit.Error",
      "An ldpkit operation failed. .status is the library's status name (e.g. 'malformed_report', "
      "'parameter_mismatch', 'limit_exceeded'), .code its stable number (ldp/base/status.h).",
      PyExc_Exception, nullptr);
  if (type == nullptr) throw py::error_already_set();
  error_type = type;
  error_type.attr("status") = "";
  error_type.attr("code") = -1;
  m.attr("Error") = error_type;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const status_error& e) {
      set_error(e.code, e.what());
    } catch (const ldp::tools::cli_error& e) {
      set_error(status_in(e.what()), e.what());
    }
  });
  m.def(
      "status_names",
      [] {
        py::dict out;
        for (int32_t code = 0; code < ldp::status_count; ++code) {
          out[py::int_(code)] = ldp::status_name(static_cast<ldp::status>(code));
        }
        return out;
      },
      "The library's status names by code (ldp/base/status.h).");
  m.def(
      "set_thread_limit", [](unsigned threads) { ldp::server::set_thread_limit(threads); }, py::arg("threads"),
      "How many threads the server may use for one call (docs/architecture.md \"Threads\"): the O(n d) "
      "support counting of OLH/BLH/FLH estimates and saved states. Process-wide; 0 (the default) means "
      "the CPUs the process may run on, 1 keeps the work on the calling thread. Results are the same "
      "for every setting.");
  m.def(
      "thread_limit", [] { return ldp::server::thread_limit(); }, "The server's thread count in effect (at least 1).");
  bind_params(m);
  bind_randomizer(m);
  bind_aggregator(m);
  bind_protocols(m);
  bind_training(m);
}
