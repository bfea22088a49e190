// Private training's building blocks for Python (docs/python.md "Training", docs/mechanisms.md I.0,
// I.1): the model broadcast (wire/model_broadcast.h), a device's contribution to a round
// (device/gradient.h) over numpy arrays, and the discrete Gaussian's accountant
// (server/central/accountant.h, dp_sgd.h). Each is the library's own call; a refused input raises
// ldpkit.Error with the library's status. And `ldp train` itself (train_run.h run_train), from the
// tool's option names, so ldpkit.train answers what `ldp train --format json` prints.
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "binding.h"
#include "errors.h"
#include "ldp/device/gradient.h"
#include "ldp/random/discrete_gaussian.h"
#include "ldp/server/central/accountant.h"
#include "ldp/server/central/dp_sgd.h"
#include "ldp/wire/model_broadcast.h"
#include "train_run.h"

namespace ldp::python {
namespace {

template <class T>
using c_array = py::array_t<T, py::array::c_style | py::array::forcecast>;

void check(status s, const char* what) {
  if (s != status::ok) raise(s, fmt::format("{}: {}", what, tools::describe(s)));
}

const char* kind_name(wire::model_kind k) {
  switch (k) {
    case wire::model_kind::linear: return "linear";
    case wire::model_kind::logistic: return "logistic";
    case wire::model_kind::softmax: return "softmax";
  }
  return "unknown";
}

wire::model_kind kind_of(const std::string& name) {
  if (name == "linear") return wire::model_kind::linear;
  if (name == "logistic") return wire::model_kind::logistic;
  if (name == "softmax") return wire::model_kind::softmax;
  throw py::value_error(fmt::format("model must be linear, logistic or softmax, got '{}'", name));
}

wire::weight_format format_of(const std::string& name) {
  if (name == "f32") return wire::weight_format::f32;
  if (name == "f64") return wire::weight_format::f64;
  throw py::value_error(fmt::format("weight_format must be 'f32' or 'f64', got '{}'", name));
}

py::dict header_dict(const wire::model_header& h, span<const unsigned char> bytes) {
  py::dict out;
  out["model"] = kind_name(h.shape.kind);
  out["features"] = h.shape.features;
  out["classes"] = h.shape.classes;
  out["dim"] = wire::model_dim(h.shape);
  out["weight_format"] = h.format == wire::weight_format::f32 ? "f32" : "f64";
  out["round"] = h.round;
  out["digest"] = wire::model_broadcast_digest(bytes);
  out["size"] = bytes.size();
  return out;
}

py::bytes encode(const std::string& model, uint32_t features, uint32_t classes, uint64_t round,
                 const c_array<double>& theta, const std::string& weight_format) {
  const wire::model_header h{{kind_of(model), features, classes}, format_of(weight_format), round};
  std::vector<unsigned char> out(wire::model_broadcast_size(h));
  std::size_t written = 0;
  check(wire::encode_model_broadcast(h, span<const double>(theta.data(), static_cast<std::size_t>(theta.size())), out,
                                     &written),
        "the model broadcast");
  return to_bytes(span<const unsigned char>(out.data(), written));
}

py::dict peek(const py::buffer& data) {
  const byte_view view(data);
  wire::model_header h;
  check(wire::peek_model_broadcast(view.bytes(), &h), "the model broadcast");
  return header_dict(h, view.bytes());
}

py::tuple decode(const py::buffer& data) {
  const byte_view view(data);
  wire::model_header h;
  check(wire::peek_model_broadcast(view.bytes(), &h), "the model broadcast");
  py::array_t<double> theta(static_cast<py::ssize_t>(wire::model_dim(h.shape)));
  check(wire::decode_model_broadcast<double>(
            view.bytes(), &h, span<double>(theta.mutable_data(), static_cast<std::size_t>(theta.size()))),
        "the model broadcast");
  return py::make_tuple(header_dict(h, view.bytes()), theta);
}

device::gradient_bound bound_of(uint64_t digest, uint32_t max_samples, unsigned frac_bits, int64_t radius_fixed) {
  return device::gradient_bound{digest, max_samples, frac_bits, radius_fixed};
}

// The workspace and output of a contribution: sized by the broadcast's header when it decodes; empty
// otherwise, so user_gradient reports the broadcast's status in its own order (gradient.h).
struct contribution_buffers {
  wire::model_header header;
  bool valid = false;
  std::size_t dim = 0;
};

contribution_buffers buffers_of(span<const unsigned char> broadcast) {
  contribution_buffers b;
  b.valid = wire::peek_model_broadcast(broadcast, &b.header) == status::ok;
  if (b.valid) b.dim = static_cast<std::size_t>(wire::model_dim(b.header.shape));
  return b;
}

// device::user_gradient on dense or sparse samples, without the GIL, into a new int64 array of d.
template <class T, class Samples>
py::array_t<int64_t> contribute(const byte_view& view, const contribution_buffers& b, const Samples& samples,
                                const device::gradient_bound& bound) {
  std::vector<T> workspace(2 * b.dim);
  py::array_t<int64_t> out(static_cast<py::ssize_t>(b.dim));
  status s;
  {
    const py::gil_scoped_release unlocked;
    s = device::user_gradient<T>(view.bytes(), bound, samples, span<T>(workspace.data(), workspace.size()),
                                 span<int64_t>(out.mutable_data(), b.dim));
  }
  check(s, "the contribution");
  return out;
}

// One user's contribution from dense samples: features is n x p (the broadcast's p), labels n.
template <class T>
py::array_t<int64_t> dense_gradient(const py::buffer& broadcast, const c_array<T>& features, const c_array<T>& labels,
                                    uint32_t max_samples, unsigned frac_bits, int64_t radius_fixed, uint64_t digest) {
  const byte_view view(broadcast);
  const contribution_buffers b = buffers_of(view.bytes());
  if (features.ndim() != 2 || labels.ndim() != 1 || features.shape(0) != labels.shape(0)) {
    throw py::value_error("features must be n x p and labels n (one label per sample)");
  }
  if (b.valid && static_cast<uint64_t>(features.shape(1)) != b.header.shape.features) {
    throw py::value_error(
        fmt::format("the model has p = {} features, the samples {}", b.header.shape.features, features.shape(1)));
  }
  const device::user_samples<T> samples{features.data(), labels.data(), static_cast<std::size_t>(labels.shape(0))};
  return contribute<T>(view, b, samples, bound_of(digest, max_samples, frac_bits, radius_fixed));
}

// The same from sparse samples (CSR: offsets n + 1, index and values nnz).
template <class T>
py::array_t<int64_t> sparse_gradient(const py::buffer& broadcast, const c_array<uint64_t>& offsets,
                                     const c_array<uint32_t>& index, const c_array<T>& values, const c_array<T>& labels,
                                     uint32_t max_samples, unsigned frac_bits, int64_t radius_fixed, uint64_t digest) {
  const byte_view view(broadcast);
  const contribution_buffers b = buffers_of(view.bytes());
  if (offsets.ndim() != 1 || index.ndim() != 1 || values.ndim() != 1 || labels.ndim() != 1 ||
      offsets.shape(0) != labels.shape(0) + 1 || index.shape(0) != values.shape(0)) {
    throw py::value_error("offsets must hold n + 1 entries for n labels, index and values the same count");
  }
  // The library checks the offsets' order; that none points past the index is the caller's promise,
  // kept here so that no read leaves the arrays.
  std::vector<std::size_t> starts(offsets.data(), offsets.data() + offsets.size());
  for (const std::size_t at : starts) {
    if (at > static_cast<std::size_t>(index.shape(0))) throw py::value_error("an offset points past the index array");
  }
  const device::sparse_samples<T> samples{starts.data(), index.data(), values.data(), labels.data(),
                                          static_cast<std::size_t>(labels.shape(0))};
  return contribute<T>(view, b, samples, bound_of(digest, max_samples, frac_bits, radius_fixed));
}

py::array_t<int64_t> clip_and_quantize(const c_array<double>& g, unsigned frac_bits, int64_t radius_fixed) {
  const auto d = static_cast<std::size_t>(g.size());
  py::array_t<int64_t> out(static_cast<py::ssize_t>(d));
  check(device::clip_and_quantize<double>(span<const double>(g.data(), d), frac_bits, radius_fixed,
                                          span<int64_t>(out.mutable_data(), d)),
        "clip_and_quantize");
  return out;
}

// What one of `ldp train`'s options sets in the request, from the Python value of that option.
// `method` marks the method options, which run_train checks against the method's row (they go to
// train_request::given, as cmd_train.cpp puts the ones given on the command line).
struct train_option {
  bool method;
  std::function<void(tools::train_request&, const std::string& name, const py::handle&)> set;
};

template <class T>
T cast_option(const std::string& name, const py::handle& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    if (!py::isinstance<py::str>(value)) throw py::type_error(fmt::format("{} must be a str", name));
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    if (!py::isinstance<py::list>(value)) throw py::type_error(fmt::format("{} must be a list of str", name));
  } else if constexpr (std::is_same_v<T, bool>) {
    if (!py::isinstance<py::bool_>(value)) throw py::type_error(fmt::format("{} must be a bool", name));
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!py::isinstance<py::float_>(value) && !py::isinstance<py::int_>(value)) {
      throw py::type_error(fmt::format("{} must be a real number", name));
    }
  } else {
    if (!py::isinstance<py::int_>(value)) throw py::type_error(fmt::format("{} must be an int", name));
    if (value.cast<py::int_>() < py::int_(0)) throw py::value_error(fmt::format("{} must be >= 0", name));
  }
  try {
    return value.cast<T>();
  } catch (const py::cast_error&) {
    throw py::value_error(fmt::format("{} is out of range", name));
  }
}

// `ldp train`'s options (cmd_train.cpp) by their command-line names.
const std::map<std::string, train_option>& train_options() {
  using request = tools::train_request;
  const auto data = [](auto member) {
    return train_option{false, [member](request& r, const std::string& name, const py::handle& v) {
                          using T = std::decay_t<decltype(r.data.*member)>;
                          r.data.*member = cast_option<T>(name, v);
                        }};
  };
  const auto setting = [](auto member) {
    return train_option{true, [member](request& r, const std::string& name, const py::handle& v) {
                          using T = std::decay_t<decltype(r.settings.*member)>;
                          r.settings.*member = cast_option<T>(name, v);
                        }};
  };
  using o = tools::train_data_options;
  using s = tools::train_settings;
  static const std::map<std::string, train_option> options{
      {"--label", data(&o::label)},
      {"--dim", data(&o::dim)},
      {"--intercept", data(&o::intercept)},
      {"--positive", data(&o::positive)},
      {"--test-fraction", data(&o::test_fraction)},
      {"--users", data(&o::users)},
      {"--samples-per-user", data(&o::samples_per_user)},
      {"--user-column", data(&o::user_column)},
      {"--seed", data(&o::seed)},
      {"--features", data(&o::features)},
      {"--epsilon", setting(&s::epsilon)},
      {"--delta", setting(&s::delta)},
      {"--grid", setting(&s::grid)},
      {"--order", setting(&s::order)},
      {"--strings", setting(&s::strings)},
      {"--degree", setting(&s::degree)},
      {"--steps", setting(&s::steps)},
      {"--lr", setting(&s::lr)},
      {"--clip", setting(&s::clip)},
      {"--l2", setting(&s::l2)},
      {"--phases", setting(&s::phases)},
      {"--radius", setting(&s::radius)},
      {"--sparsity", setting(&s::sparsity)},
      {"--sgd-mechanism", setting(&s::sgd_mechanism)},
  };
  return options;
}

// Python's progress callback under the GIL; its first exception is kept (the training loops are
// not stopped from outside: some run inside noexcept library calls) and raised after the run.
struct progress_relay {
  py::object callback;
  std::exception_ptr failure;

  void operator()(uint64_t step, uint64_t steps, double loss) {
    if (failure) return;
    const py::gil_scoped_acquire locked;
    try {
      callback(step, steps, loss);
    } catch (...) {
      failure = std::current_exception();
    }
  }
};

std::string run_train(const std::string& method, const std::string& loss, const std::string& model,
                      const std::string& data, const std::optional<std::vector<std::string>>& names,
                      const std::vector<c_array<double>>& columns, const py::dict& options, const std::string& plot,
                      const py::object& progress) {
  tools::train_request r;
  r.method = method;
  r.loss = loss;
  r.model = model;
  r.data.data = data;
  r.plot = plot;
  if (names) {
    tools::train_table table;
    table.names = *names;
    for (const c_array<double>& c : columns) {
      if (c.ndim() != 1) throw py::value_error("a table column must be 1-D");
      table.columns.emplace_back(c.data(), c.data() + c.size());
    }
    r.data.table = std::move(table);
  }
  for (const auto& [key, value] : options) {
    const std::string name = key.cast<std::string>();
    const auto at = train_options().find(name);
    if (at == train_options().end()) throw py::type_error(fmt::format("ldp train has no option {}", name));
    at->second.set(r, name, value);
    if (at->second.method) r.given.push_back(name);
  }
  progress_relay relay{progress, nullptr};
  tools::train_progress report;
  if (!progress.is_none()) report = std::ref(relay);
  std::string out;
  {
    const py::gil_scoped_release unlocked;
    try {
      out = tools::run_train(r, report).dump(2);
    } catch (const tools::cli_error& e) {
      // The tool's refusal of an argument is a ValueError with its message; a library status it
      // names is ldpkit.Error (the module's translator).
      if (status_in(e.what()) == status::invalid_argument) throw py::value_error(e.what());
      throw;
    }
  }
  if (relay.failure) std::rethrow_exception(relay.failure);
  return out;
}

}  // namespace

void bind_training(py::module_& m) {
  m.def("encode_model_broadcast", &encode, py::arg("model"), py::arg("features"), py::arg("classes"), py::arg("round"),
        py::arg("theta"), py::arg("weight_format"),
        "The model broadcast of theta (wire::encode_model_broadcast, docs/wire_format.md 10).");
  m.def("peek_model_broadcast", &peek, py::arg("data"),
        "The broadcast's header checked (wire::peek_model_broadcast), with its digest, dimension and size.");
  m.def("decode_model_broadcast", &decode, py::arg("data"),
        "The broadcast's header and its weights as float64 (wire::decode_model_broadcast<double>).");
  m.def(
      "model_broadcast_digest",
      [](const py::buffer& data) { return wire::model_broadcast_digest(byte_view(data).bytes()); }, py::arg("data"),
      "SipHash-2-4 of the bytes under the key 'ldpkit model v01' (wire::model_broadcast_digest).");
  m.def("user_gradient_f64", &dense_gradient<double>, py::arg("broadcast"), py::arg("features"), py::arg("labels"),
        py::arg("max_samples"), py::arg("frac_bits"), py::arg("radius_fixed"), py::arg("digest"),
        "device::user_gradient<double> over dense samples.");
  m.def("user_gradient_f32", &dense_gradient<float>, py::arg("broadcast"), py::arg("features"), py::arg("labels"),
        py::arg("max_samples"), py::arg("frac_bits"), py::arg("radius_fixed"), py::arg("digest"),
        "device::user_gradient<float> over dense samples.");
  m.def("user_gradient_sparse_f64", &sparse_gradient<double>, py::arg("broadcast"), py::arg("offsets"),
        py::arg("index"), py::arg("values"), py::arg("labels"), py::arg("max_samples"), py::arg("frac_bits"),
        py::arg("radius_fixed"), py::arg("digest"), "device::user_gradient<double> over sparse (CSR) samples.");
  m.def("user_gradient_sparse_f32", &sparse_gradient<float>, py::arg("broadcast"), py::arg("offsets"), py::arg("index"),
        py::arg("values"), py::arg("labels"), py::arg("max_samples"), py::arg("frac_bits"), py::arg("radius_fixed"),
        py::arg("digest"), "device::user_gradient<float> over sparse (CSR) samples.");
  m.def("clip_and_quantize", &clip_and_quantize, py::arg("g"), py::arg("frac_bits"), py::arg("radius_fixed"),
        "device::clip_and_quantize<double>: the contribution's bounding step alone.");
  m.def("discrete_gaussian_rho", &server::discrete_gaussian_rho, py::arg("sensitivity"), py::arg("sigma2"),
        py::arg("steps"), "server::discrete_gaussian_rho: steps Delta^2 / (2 sigma2); NaN for invalid arguments.");
  m.def("zcdp_to_epsilon", &server::zcdp_to_epsilon, py::arg("rho"), py::arg("delta"),
        "server::zcdp_to_epsilon (the tight conversion, CKS 2020 Corollary 13); NaN for invalid arguments.");
  m.def("zcdp_to_epsilon_simple", &server::zcdp_to_epsilon_simple, py::arg("rho"), py::arg("delta"),
        "server::zcdp_to_epsilon_simple: rho + 2 sqrt(rho ln(1/delta)); NaN for invalid arguments.");
  m.def("discrete_gaussian_sigma2_for", &server::discrete_gaussian_sigma2_for, py::arg("epsilon"), py::arg("delta"),
        py::arg("steps"), py::arg("sensitivity"), "server::discrete_gaussian_sigma2_for; 0 when none fits.");
  m.def("dp_sgd_sigma2_for", &server::dp_sgd_sigma2_for, py::arg("epsilon"), py::arg("delta"), py::arg("steps"),
        py::arg("clip"), py::arg("frac_bits"), "server::dp_sgd_sigma2_for; 0 when none fits.");
  m.def("dp_sgd_clip_units", &server::dp_sgd_clip_units, py::arg("clip"), py::arg("frac_bits"),
        "server::dp_sgd_clip_units: floor(G 2^frac_bits).");
  m.def(
      "train_option_names",
      [] {
        std::vector<std::string> names;
        for (const auto& entry : train_options()) names.push_back(entry.first);
        return names;
      },
      "The `ldp train` options run_train takes ('--epsilon', ...), sorted.");
  m.def("run_train", &run_train, py::arg("method"), py::arg("loss"), py::arg("model"), py::arg("data"),
        py::arg("names"), py::arg("columns"), py::arg("options"), py::arg("plot"), py::arg("progress"),
        "`ldp train --format json`'s document (tools::run_train) as JSON text. data: 'csv:PATH' or '' with "
        "names and columns (the in-memory table); options: the tool's option names ('--epsilon') to values; "
        "progress(step, steps, loss) or None. The GIL is released while training.");
  m.attr("discrete_gaussian_max_sigma2") = random::discrete_gaussian_max_sigma2;
}

}  // namespace ldp::python
