// ldpkit.Params and what makes one (docs/python.md "Parameters"): the tool's option parsing and block
// builders (mechanism_options.h), the wire codec, batch headers read by the tool's bounded reader,
// and the recommender of `ldp mechanisms`.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "batch_io.h"
#include "binding.h"
#include "block_text.h"
#include "errors.h"
#include "files.h"
#include "ldp/wire/batch.h"
#include "ldp/wire/mechanism.h"
#include "ldp/wire/oracle_params.h"
#include "recommend.h"

namespace ldp::python {
namespace {

const char* input_name(tools::input_kind k) {
  switch (k) {
    case tools::input_kind::item: return "item";
    case tools::input_kind::value: return "value";
    case tools::input_kind::vector: return "vector";
    case tools::input_kind::observations: return "observations";
    case tools::input_kind::sparse: return "sparse";
    case tools::input_kind::samples: return "samples";
    case tools::input_kind::string: return "string";
    case tools::input_kind::record: return "record";
  }
  return "";
}

// "--domain --hash-range" -> ["domain", "hash_range"]: the Python spelling.
std::vector<std::string> python_names(const char* options) {
  std::vector<std::string> out;
  std::string word;
  for (const char* c = options;; ++c) {
    if (*c == ' ' || *c == '\0') {
      if (!word.empty()) out.push_back(word);
      word.clear();
      if (*c == '\0') break;
    } else if (*c != '-' || !word.empty()) {
      word += *c == '-' ? '_' : *c;
    }
  }
  return out;
}

py::bytes encoded(const wire::params& p) {
  unsigned char out[wire::params_max_size];
  std::size_t written = 0;
  const status s = wire::encode_params(p, out, &written);
  if (s != status::ok) raise(s, "the parameter block does not encode");
  return to_bytes(span<const unsigned char>(out, written));
}

params_object decode(const py::buffer& b) {
  const byte_view view(b);
  wire::params p;
  const status s = wire::decode_params(view.bytes(), &p);
  if (s != status::ok) raise(s, fmt::format("not a parameter block: {}", tools::describe(s)));
  return params_of(p);
}

// The parameter block of a batch header in memory, read by the wire module's streaming reader (the
// checks `ldp aggregate` makes), never past the header.
params_object header_params(const py::buffer& b) {
  const byte_view view(b);
  std::vector<unsigned char> buffer(wire::batch_header_size(0xffff));
  wire::batch_stream_reader reader(buffer);
  span<const unsigned char> rest = view.bytes();
  wire::batch_step step;
  while (step.event == wire::batch_event::none) {
    step = rest.empty() ? reader.finish() : reader.feed(rest);
    rest = rest.subspan(step.used);
  }
  if (step.event != wire::batch_event::header || step.result != status::ok) {
    const status s = step.result == status::ok ? status::wrong_length : step.result;
    raise(s, fmt::format("not a readable batch: the header is {}", tools::describe(s)));
  }
  return params_of(reader.parameters());
}

params_object file_params(const std::string& path) {
  {
    tools::input_file in(path, "batch file");
    tools::refuse_state_file(in);
  }
  tools::input_file in(path, "batch file");
  const tools::batch_stream batch(in);
  return params_of(batch.parameters());
}

std::string params_repr(const params_object& o) {
  const wire::params& p = o.block.params;
  const double eps = o.block.epsilon_impl;
  const std::string privacy = std::isnan(eps) ? "central DP" : fmt::format("epsilon_implemented={:.15g}", eps);
  return fmt::format("Params({} [{}: {}], {}, fingerprint={:016x})", o.block.mechanism->name,
                     wire::mechanism_name(p.mech), tools::describe_block(p), privacy, o.block.fingerprint);
}

}  // namespace

const tools::tool_mechanism& tool_mechanism_of(const wire::params& p) {
  const wire::mechanism_row* row = wire::find_mechanism(p.mech);
  for (const tools::tool_mechanism& m : tools::tool_mechanisms()) {
    if (row != nullptr && std::strcmp(m.name, row->cli_name) == 0) return m;
  }
  raise(status::unknown_mechanism,
        fmt::format("no ldp mechanism produces wire mechanism {}", static_cast<int>(p.mech)));
}

params_object params_of(const wire::params& p) {
  const status s = wire::validate(p);
  if (s != status::ok) raise(s, fmt::format("not a valid parameter block: {}", tools::describe(s)));
  return {tools::block_of(p, tool_mechanism_of(p))};
}

std::unique_ptr<parsed_options> parse_mechanism_options(const std::string& mechanism, double epsilon,
                                                        const std::map<std::string, std::string>& options) {
  auto out = std::make_unique<parsed_options>();
  tools::add_mechanism_options(out->app, out->options);
  std::vector<std::string> args{"--mechanism=" + mechanism, fmt::format("--epsilon={:.17g}", epsilon)};
  for (const auto& [name, text] : options) args.push_back("--" + name + "=" + text);
  std::reverse(args.begin(), args.end());  // CLI11 parses a vector from its back
  try {
    out->app.parse(args);
  } catch (const CLI::ParseError& e) {
    throw py::value_error(e.what());
  }
  return out;
}

void bind_params(py::module_& m) {
  py::class_<params_object>(m, "Params",
                            "A parameter block (docs/wire_format.md section 3): what devices and server agree on, "
                            "with its fingerprint and implemented epsilon. Made by ldpkit.params, "
                            "ldpkit.params_from_bytes or ldpkit.batch_params; immutable, hashable, picklable.")
      .def_property_readonly(
          "mechanism", [](const params_object& o) { return o.block.mechanism->name; },
          "The mechanism's name as `ldp simulate --mechanism` takes it (e.g. 'olh', 'vector-mean', 'kent').")
      .def_property_readonly(
          "wire_mechanism", [](const params_object& o) { return wire::mechanism_name(o.block.params.mech); },
          "The wire mechanism of the block (docs/wire_format.md table 2), e.g. 'vector-duchi', 'kent-refine'.")
      .def_property_readonly(
          "epsilon_implemented", [](const params_object& o) { return o.block.epsilon_impl; },
          "The epsilon the block's integer thresholds implement (at most the requested one); NaN for the "
          "central-DP blocks, whose devices add no noise.")
      .def_property_readonly(
          "fingerprint", [](const params_object& o) { return o.block.fingerprint; },
          "The block's 64-bit fingerprint (SipHash-2-4 of its canonical encoding), as an int.")
      .def_property_readonly(
          "fields",
          [](const params_object& o) {
            py::dict out;
            for (const tools::block_field& f : tools::block_fields(o.block.params)) {
              out[py::str(f.name)] = f.value.is_string()            ? py::object(py::str(f.value.get<std::string>()))
                                     : f.value.is_number_unsigned() ? py::object(py::int_(f.value.get<uint64_t>()))
                                                                    : py::object(py::int_(f.value.get<int64_t>()));
            }
            return out;
          },
          "Every field of the block by its docs/wire_format.md name (integers; seeds as hex strings).")
      .def(
          "to_bytes", [](const params_object& o) { return encoded(o.block.params); },
          "The block's canonical encoding (docs/wire_format.md section 3); ldpkit.params_from_bytes reads it.")
      .def(
          "__eq__",
          [](const params_object& a, const py::object& b) {
            if (!py::isinstance<params_object>(b)) return false;
            return std::string(encoded(a.block.params)) ==
                   std::string(encoded(b.cast<const params_object&>().block.params));
          },
          py::is_operator())
      .def("__hash__", [](const params_object& o) { return static_cast<py::ssize_t>(o.block.fingerprint >> 1); })
      .def("__repr__", &params_repr)
      .def(py::pickle([](const params_object& o) { return encoded(o.block.params); },
                      [](const py::bytes& b) { return decode(b); }));

  m.def("params_from_bytes", &decode, py::arg("data"),
        "The Params of a parameter block's canonical encoding (Params.to_bytes()). Raises ldpkit.Error "
        "(malformed_report, wrong_length, invalid_parameters, ...) for anything else.");
  m.def("batch_params_from_bytes", &header_params, py::arg("data"),
        "The Params of the batch header at the start of `data` (the rest may follow or not).");
  m.def("batch_params_from_file", &file_params, py::arg("path"),
        "The Params of a batch file's header, read as `ldp aggregate` reads it (only the header).");
  m.def(
      "make_params",
      [](const std::string& mechanism, double epsilon, const std::map<std::string, std::string>& options) {
        const std::unique_ptr<parsed_options> parsed = parse_mechanism_options(mechanism, epsilon, options);
        return params_object{tools::build_block(parsed->options)};
      },
      py::arg("mechanism"), py::arg("epsilon"), py::arg("options"),
      "The block `ldp simulate` builds for the mechanism and its options (names without '--', values as "
      "the command line writes them). ldpkit.params checks and converts the arguments first.");
  m.def(
      "mechanism_table",
      [] {
        py::list out;
        for (const tools::tool_mechanism& t : tools::tool_mechanisms()) {
          py::dict row;
          row["name"] = t.name;
          row["input"] = input_name(t.input);
          row["required"] = python_names(t.required);
          row["optional"] = python_names(t.optional);
          row["usage"] = t.usage;
          out.append(row);
        }
        return out;
      },
      "Every mechanism of `ldp simulate`, in its order: name, input kind, required and optional options "
      "(Python names) and the tool's usage text.");
  m.def(
      "recommend",
      [](uint32_t domain, double epsilon, uint64_t devices) {
        py::list out;
        for (const server::recommendation& r : tools::ranked_oracles(domain, epsilon, devices)) {
          out.append(py::make_tuple(wire::mechanism_name(r.mech), tools::recommendation_parameters(r), r.g_or_k, r.m,
                                    r.variance_per_report, r.std_error, r.report_bytes, r.estimate_cost));
        }
        return out;
      },
      py::arg("domain"), py::arg("epsilon"), py::arg("devices"),
      "`ldp mechanisms`' ranking, best first: (mechanism, parameters, g_or_k, m, variance_per_report, "
      "std_error, report_bytes, estimate_steps) tuples.");
}

}  // namespace ldp::python
