// ldpkit.Aggregator (docs/python.md "Servers"): server::aggregator under the limits of
// docs/security_model.md "Memory contract", files read by `ldp aggregate`'s bounded streaming reader
// (batch_io.h), states by its bounded state reader (state_io.h), estimates and releases by
// `ldp estimate`'s code (estimates.h, central_release.h). The GIL is released while it counts,
// merges, serializes and estimates; a mutex per aggregator orders the threads that share one.
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "batch_io.h"
#include "binding.h"
#include "block_text.h"
#include "central_release.h"
#include "errors.h"
#include "estimates.h"
#include "files.h"
#include "ldp/server/central/winsorized.h"
#include "ldp/server/frequency.h"
#include "ldp/server/string_discovery.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/oracle_params.h"
#include "state_io.h"

namespace ldp::python {
namespace {

server::limits limits_of(uint64_t max_state_bytes) {
  server::limits lim;
  lim.max_state_bytes = max_state_bytes;
  return lim;
}

// `ldp estimate --format json`'s object without its "estimates" list (the columns hold them).
std::string summary_json(const server::aggregator& agg, const tools::estimate_report& r) {
  tools::estimate_report summary = r;
  summary.listed.clear();
  nlohmann::ordered_json meta = tools::estimate_json(agg, summary);
  meta.erase("estimates");
  return meta.dump();
}

// The estimates as columns (item, estimate, variance, ci_low, ci_high: numpy arrays, the items
// given) and the summary.
py::tuple columns_of(py::object items, const std::vector<server::estimate>& all, const std::string& summary) {
  const auto n = static_cast<py::ssize_t>(all.size());
  py::array_t<double> value(n), variance(n), lo(n), hi(n);
  auto v = value.mutable_unchecked<1>(), s = variance.mutable_unchecked<1>(), l = lo.mutable_unchecked<1>(),
       h = hi.mutable_unchecked<1>();
  for (py::ssize_t k = 0; k < n; ++k) {
    const server::estimate& e = all[static_cast<std::size_t>(k)];
    v(k) = e.value;
    s(k) = e.variance;
    l(k) = e.ci_low;
    h(k) = e.ci_high;
  }
  return py::make_tuple(std::move(items), value, variance, lo, hi, summary);
}

// The numbered items (int64) of frequency oracles and numeric mechanisms.
py::tuple estimates_of(const std::vector<server::estimate>& all, const std::string& summary) {
  py::array_t<int64_t> item(static_cast<py::ssize_t>(all.size()));
  auto i = item.mutable_unchecked<1>();
  for (std::size_t k = 0; k < all.size(); ++k) i(static_cast<py::ssize_t>(k)) = all[k].item;
  return columns_of(item, all, summary);
}

// The summary `ldp estimate --discover K --format json` prints around its "discovered" list of a
// pem, treehist or sfp state (k for discover), with the counters estimate()'s summary has.
std::string strings_summary(const server::aggregator& agg, std::size_t size, double confidence, uint32_t k) {
  const wire::params& p = agg.parameters();
  nlohmann::ordered_json parameters = nlohmann::ordered_json::object();
  for (const tools::block_field& f : tools::block_fields(p)) parameters[f.name] = f.value;
  nlohmann::ordered_json rejected = nlohmann::ordered_json::object();
  for (std::size_t s = 1; s < agg.rejected().size(); ++s) {
    if (agg.rejected()[s] != 0) rejected[status_name(static_cast<status>(s))] = agg.rejected()[s];
  }
  nlohmann::ordered_json meta = {{"mechanism", wire::mechanism_name(p.mech)},
                                 {"epsilon", wire::implemented_epsilon(p)},
                                 {"fingerprint", fmt::format("{:016x}", agg.fingerprint())},
                                 {"parameters", parameters},
                                 {"kind", "count"},
                                 {"size", size},
                                 {"confidence", confidence},
                                 {"reports", agg.reports()},
                                 {"rejected", rejected},
                                 {"damaged_chunks", agg.damaged_chunks()}};
  if (k != 0) meta["k"] = k;
  return meta.dump();
}

// The strings (a list of bytes; ldpkit decodes them) as the item column.
py::tuple strings_of(const std::vector<std::string>& strings, const std::vector<server::estimate>& all,
                     const std::string& summary) {
  py::list items;
  for (const std::string& s : strings) items.append(py::bytes(s));
  return columns_of(items, all, summary);
}

void check_confidence(double confidence) {
  if (!(confidence > 0 && confidence < 1)) throw py::value_error("confidence must be in (0, 1)");
}

class aggregator_object {
 public:
  explicit aggregator_object(std::unique_ptr<server::aggregator> agg, uint64_t max_state_bytes)
      : agg_(std::move(agg)), max_state_bytes_(max_state_bytes) {}

  static std::unique_ptr<aggregator_object> create(const params_object& p, uint64_t max_state_bytes,
                                                   const std::optional<py::buffer>& windows) {
    const wire::params& block = p.block.params;
    const bool sums = block.mech == wire::mechanism::winsorized_sums;
    if (windows.has_value() != sums) {
      throw py::value_error(sums ? "a winsorized-sums (winsorized-mean round 2) aggregator needs windows=, the "
                                   "broadcast window list of its round 1"
                                 : "windows= applies to winsorized-sums (winsorized-mean round 2) blocks only");
    }
    std::unique_ptr<server::aggregator> agg;
    const status s = server::aggregator::create(block, limits_of(max_state_bytes), &agg);
    if (s == status::limit_exceeded) {
      uint64_t need = 0;
      static_cast<void>(server::aggregator_bytes(block, &need));
      raise(s, fmt::format("an aggregator for {} needs {} bytes of memory, above max_state_bytes {}: {}",
                           p.block.mechanism->name, need == 0 ? std::string("more than 2^64") : std::to_string(need),
                           max_state_bytes, tools::describe(s)));
    }
    if (s != status::ok) raise(s, fmt::format("no aggregator for these parameters: {}", tools::describe(s)));
    if (sums) {
      const byte_view list(*windows);
      const status w = static_cast<server::winsorized_sums_aggregator&>(*agg).set_windows(list.bytes());
      if (w != status::ok) {
        raise(w, fmt::format("not the window list of this block ({} bytes, {} expected, digest checked): {}",
                             list.bytes().size(), wire::window_list_size(block), tools::describe(w)));
      }
    }
    return std::make_unique<aggregator_object>(std::move(agg), max_state_bytes);
  }

  static std::unique_ptr<aggregator_object> deserialize(const py::buffer& b, uint64_t max_state_bytes) {
    const byte_view view(b);
    py::gil_scoped_release released;
    return std::make_unique<aggregator_object>(
        tools::decode_state_file("the state bytes", view.bytes(), limits_of(max_state_bytes)), max_state_bytes);
  }

  static std::unique_ptr<aggregator_object> load(const std::string& path, uint64_t max_state_bytes) {
    py::gil_scoped_release released;
    return std::make_unique<aggregator_object>(tools::load_state(path, limits_of(max_state_bytes)), max_state_bytes);
  }

  void add_batch(const py::buffer& b) {
    const byte_view view(b);
    py::gil_scoped_release released;
    const std::lock_guard<std::mutex> lock(mutex_);
    const status s = agg_->add_batch(view.bytes());
    if (s == status::parameter_mismatch) {
      raise(s, fmt::format("the batch has other parameters than this aggregator (fingerprint {:016x}): {}",
                           agg_->fingerprint(), tools::describe(s)));
    }
    if (s != status::ok) {
      raise(s, fmt::format("the batch cannot be read to its terminator ({}): it is truncated or damaged; the "
                           "chunks before the damage count",
                           tools::describe(s)));
    }
  }

  bool add_report(const py::buffer& b) {
    const byte_view view(b);
    py::gil_scoped_release released;
    const std::lock_guard<std::mutex> lock(mutex_);
    return agg_->add_report(view.bytes()) == status::ok;
  }

  // `ldp aggregate`'s reading of one file: the header checked first, then chunk by chunk.
  void add_file(const std::string& path) {
    py::gil_scoped_release released;
    {
      tools::input_file in(path, "batch file");
      tools::refuse_state_file(in);
    }
    tools::input_file in(path, "batch file");
    tools::batch_stream batch(in);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (batch.fingerprint() != agg_->fingerprint()) {
      raise(status::parameter_mismatch,
            fmt::format("{} has other parameters than this aggregator (fingerprint {:016x}, not {:016x}): {}", path,
                        batch.fingerprint(), agg_->fingerprint(), tools::describe(status::parameter_mismatch)));
    }
    const status s = tools::count_batch(batch, *agg_);
    if (s != status::ok) {
      raise(s, fmt::format("{}: the batch cannot be read past chunk {} ({}): the file is truncated or damaged; the "
                           "chunks before it count",
                           path, batch.chunks(), tools::describe(s)));
    }
  }

  void merge(aggregator_object& other) {
    if (&other == this) throw py::value_error("an aggregator cannot merge itself (serialize and deserialize a copy)");
    py::gil_scoped_release released;
    const std::scoped_lock lock(mutex_, other.mutex_);
    const status s = agg_->merge(*other.agg_);
    if (s == status::parameter_mismatch) {
      raise(s, fmt::format("the other state has other parameters (fingerprint {:016x}, not {:016x}) or another "
                           "window list: {}",
                           other.agg_->fingerprint(), agg_->fingerprint(), tools::describe(s)));
    }
    if (s != status::ok) raise(s, fmt::format("the states do not merge: {}", tools::describe(s)));
  }

  py::bytes serialize() {
    std::vector<unsigned char> bytes;
    {
      py::gil_scoped_release released;
      const std::lock_guard<std::mutex> lock(mutex_);
      bytes = agg_->serialize();
    }
    if (bytes.empty()) raise(status::overflow, "cannot serialize the state: out of memory");
    return to_bytes(bytes);
  }

  // The tool's atomic write (temporary file, fsync, rename, fsync of the directory): a state on
  // disk is whole or absent, as `ldp aggregate --out` leaves it.
  void save(const std::string& path) {
    py::gil_scoped_release released;
    const std::lock_guard<std::mutex> lock(mutex_);
    static_cast<void>(tools::save_state(*agg_, path));
  }

  py::tuple estimate(double confidence) {
    check_confidence(confidence);
    if (strings() != nullptr) {
      throw py::value_error(fmt::format(
          "a {} state has no list of numbered items (the domain is every string, as `ldp estimate` refuses "
          "it without --discover): discover(k) finds its k most frequent strings, estimate_strings(strings) "
          "estimates given ones",
          wire::mechanism_name(agg_->parameters().mech)));
    }
    if (tools::is_central(agg_->parameters().mech)) {
      throw py::value_error(
          fmt::format("a {} state holds exact, not private, sums (central DP): release() adds the server's noise",
                      wire::mechanism_name(agg_->parameters().mech)));
    }
    tools::estimate_report r;
    std::string summary;
    {
      py::gil_scoped_release released;
      const std::lock_guard<std::mutex> lock(mutex_);
      r = tools::make_estimate_report(*agg_, confidence, 0);
      summary = summary_json(*agg_, r);
    }
    return estimates_of(r.all, summary);
  }

  // `ldp estimate --discover K [--keep N] [--alphabet B]` (docs/mechanisms.md F), best first.
  py::tuple discover(uint32_t k, uint32_t keep, const std::string& alphabet, double confidence) {
    check_confidence(confidence);
    const server::string_discovery_aggregator& agg = string_state("discover");
    if (k == 0) throw py::value_error("k must be at least 1");
    server::discovery_options o;
    o.k = k;
    o.keep = keep;
    o.alphabet = alphabet;
    o.confidence = confidence;
    std::vector<server::discovered_string> found;
    std::vector<std::string> items;
    std::vector<server::estimate> all;
    std::string summary;
    {
      py::gil_scoped_release released;
      const std::lock_guard<std::mutex> lock(mutex_);
      const status s = agg.discover(o, &found);
      if (s != status::ok) raise(s, fmt::format("cannot discover strings: {}", tools::describe(s)));
      for (server::discovered_string& f : found) {
        items.push_back(std::move(f.item));
        all.push_back(f.est);
      }
      summary = strings_summary(agg, all.size(), confidence, k);
    }
    return strings_of(items, all, summary);
  }

  // `ldp estimate --candidates FILE` of a string state: the given strings in their order.
  py::tuple estimate_strings(const std::vector<std::string>& strings, double confidence) {
    check_confidence(confidence);
    const server::string_discovery_aggregator& agg = string_state("estimate_strings");
    check_strings(strings, agg.parameters(), "candidate");
    std::vector<server::estimate> all;
    std::string summary;
    {
      py::gil_scoped_release released;
      const std::lock_guard<std::mutex> lock(mutex_);
      const status s = agg.estimate_strings(strings, confidence, &all);
      if (s != status::ok) raise(s, fmt::format("cannot estimate the strings: {}", tools::describe(s)));
      summary = strings_summary(agg, all.size(), confidence, 0);
    }
    return strings_of(strings, all, summary);
  }

  py::tuple release(const tools::release_request& q, double confidence) {
    check_confidence(confidence);
    const wire::mechanism mech = agg_->parameters().mech;
    if (mech != wire::mechanism::sparse_projection && mech != wire::mechanism::winsorized_sums) {
      throw py::value_error(fmt::format("release() applies to sparse-projection and winsorized-sums states; this is {}",
                                        wire::mechanism_name(mech)));
    }
    tools::estimate_report r;
    std::string summary;
    {
      py::gil_scoped_release released;
      const std::lock_guard<std::mutex> lock(mutex_);
      r = mech == wire::mechanism::sparse_projection ? tools::sparse_release_report(*agg_, q, confidence, 0)
                                                     : tools::winsorized_release_report(*agg_, q, confidence, 0);
      summary = summary_json(*agg_, r);
    }
    return estimates_of(r.all, summary);
  }

  // Readers of the counters take the lock without the GIL, so a thread counting never waits on it.
  template <class F>
  auto locked(F f) {
    py::gil_scoped_release released;
    const std::lock_guard<std::mutex> lock(mutex_);
    return f(*agg_);
  }

  uint64_t max_state_bytes() const { return max_state_bytes_; }

 private:
  // The string-discovery aggregator of a pem, treehist or sfp state, else null (its block never changes).
  const server::string_discovery_aggregator* strings() const {
    return dynamic_cast<const server::string_discovery_aggregator*>(agg_.get());
  }

  const server::string_discovery_aggregator& string_state(const char* method) const {
    const server::string_discovery_aggregator* out = strings();
    if (out == nullptr) {
      throw py::value_error(fmt::format("{}() applies to pem, treehist and sfp states; this is {}: estimate() it",
                                        method, wire::mechanism_name(agg_->parameters().mech)));
    }
    return *out;
  }

  std::unique_ptr<server::aggregator> agg_;
  uint64_t max_state_bytes_;
  std::mutex mutex_;
};

}  // namespace

void bind_aggregator(py::module_& m) {
  py::class_<tools::release_request>(m, "ReleaseRequest", "The options of a central-DP release (central_release.h).")
      .def(py::init<>())
      .def_readwrite("epsilon", &tools::release_request::epsilon)
      .def_readwrite("delta", &tools::release_request::delta)
      .def_readwrite("seed", &tools::release_request::seed)
      .def_readwrite("queries", &tools::release_request::queries)
      .def_readwrite("budget", &tools::release_request::budget)
      .def_readwrite("users", &tools::release_request::users);

  py::class_<aggregator_object>(m, "Aggregator", "The server's exact, mergeable state of one parameter block.")
      .def(py::init(&aggregator_object::create), py::arg("params"), py::arg("max_state_bytes"),
           py::arg("windows") = std::nullopt)
      .def_static("deserialize", &aggregator_object::deserialize, py::arg("data"), py::arg("max_state_bytes"),
                  "An aggregator from a saved state (docs/wire_format.md section 7), checked field by field.")
      .def_static("load", &aggregator_object::load, py::arg("path"), py::arg("max_state_bytes"),
                  "An aggregator from a state file, read as `ldp estimate` reads it (bounded by max_state_bytes).")
      .def("add_batch", &aggregator_object::add_batch, py::arg("data"), "Counts a wire batch held in memory.")
      .def("add_report", &aggregator_object::add_report, py::arg("data"), "Counts one wire report; False if rejected.")
      .def("add_file", &aggregator_object::add_file, py::arg("path"), "Counts a batch file as `ldp aggregate` does.")
      .def("merge", &aggregator_object::merge, py::arg("other"), "Adds another aggregator's counts.")
      .def("serialize", &aggregator_object::serialize, "The saved state (bytes), as `ldp aggregate` writes it.")
      .def("save", &aggregator_object::save, py::arg("path"), "Writes the state file atomically, as `ldp aggregate`.")
      .def("estimate", &aggregator_object::estimate, py::arg("confidence"),
           "(item, estimate, variance, ci_low, ci_high, JSON of the rest): `ldp estimate --format json`'s numbers.")
      .def("discover", &aggregator_object::discover, py::arg("k"), py::arg("keep"), py::arg("alphabet"),
           py::arg("confidence"),
           "pem, treehist, sfp: (strings as bytes, estimate, variance, ci_low, ci_high, JSON of the rest), the "
           "at most k strings `ldp estimate --discover K --keep N --alphabet B` finds, best first.")
      .def("estimate_strings", &aggregator_object::estimate_strings, py::arg("strings"), py::arg("confidence"),
           "pem, treehist, sfp: the given strings' estimates in their order, in discover()'s form "
           "(`ldp estimate --candidates FILE`).")
      .def("release", &aggregator_object::release, py::arg("request"), py::arg("confidence"),
           "A central-DP release as `ldp estimate --epsilon --release-seed` makes it, in estimate()'s form.")
      .def_property_readonly(
          "params", [](aggregator_object& a) { return params_of(a.locked([](auto& g) { return g.parameters(); })); },
          "The parameter block.")
      .def_property_readonly(
          "reports", [](aggregator_object& a) { return a.locked([](auto& g) { return g.reports(); }); },
          "Reports accepted.")
      .def_property_readonly(
          "damaged_chunks", [](aggregator_object& a) { return a.locked([](auto& g) { return g.damaged_chunks(); }); },
          "Batch chunks whose CRC32C failed (their records are unknown and counted nowhere).")
      .def_property_readonly(
          "rejected",
          [](aggregator_object& a) {
            const server::rejection_counts counts = a.locked([](auto& g) { return g.rejected(); });
            py::dict out;
            for (std::size_t s = 1; s < counts.size(); ++s) {
              if (counts[s] != 0) out[status_name(static_cast<status>(s))] = counts[s];
            }
            return out;
          },
          "Rejected reports by status name (only nonzero counts).")
      .def_property_readonly("max_state_bytes", &aggregator_object::max_state_bytes,
                             "The memory ceiling of this aggregator (server::limits).");
}

}  // namespace ldp::python
