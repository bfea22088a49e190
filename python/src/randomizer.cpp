// ldpkit.Randomizer (docs/python.md "Devices"): the tool's fleet (fleet.h run_fleet, seeding.h)
// over the caller's array, read in place, or the caller's strings (string_sim.h's dataset), so a
// batch is byte-identical to `ldp simulate --seed S` on the same values.
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "binding.h"
#include "datasets.h"
#include "errors.h"
#include "fleet.h"
#include "seeding.h"
#include "string_sim.h"

namespace ldp::python {
namespace {

class randomizer_object {
 public:
  randomizer_object(const params_object& p, uint64_t seed, unsigned threads)
      : block_(p.block), seed_(seed), threads_(threads) {
    if (block_.mechanism->input == tools::input_kind::observations ||
        block_.mechanism->input == tools::input_kind::samples) {
      raise(status::unsupported,
            fmt::format("{} is a multi-round protocol: its devices run inside ldpkit.simulate_protocol",
                        block_.mechanism->name));
    }
  }

  py::bytes randomize(const py::buffer& values) {
    if (block_.mechanism->input == tools::input_kind::string) {
      throw py::type_error(
          fmt::format("{} devices hold strings: randomize_strings takes them", block_.mechanism->name));
    }
    const py::buffer_info info = values.request();
    const bool items = block_.mechanism->input == tools::input_kind::item;
    const std::string want = items ? py::format_descriptor<int64_t>::format() : py::format_descriptor<double>::format();
    const bool contiguous = info.ndim == 1 ? info.strides[0] == info.itemsize
                                           : info.ndim == 2 && info.strides[1] == info.itemsize &&
                                                 info.strides[0] == info.itemsize * info.shape[1];
    if (info.format != want && !(items && info.itemsize == 8 && (info.format == "l" || info.format == "q"))) {
      throw py::type_error(fmt::format("{} values must be a buffer of {} (format '{}'), got format '{}'",
                                       block_.mechanism->name, items ? "int64" : "float64", want, info.format));
    }
    if (!contiguous) throw py::value_error("values must be a C-contiguous 1-D or 2-D array");
    return batch_of([&]() -> std::unique_ptr<tools::dataset> {
      if (items) {
        return tools::item_array(
            span<const int64_t>(static_cast<const int64_t*>(info.ptr), static_cast<std::size_t>(info.size)),
            static_cast<uint32_t>(block_.params.get(wire::field::domain)));
      }
      return tools::value_array(
          span<const double>(static_cast<const double*>(info.ptr), static_cast<std::size_t>(info.size)),
          tools::shape_of(block_));
    });
  }

  // One device per string in order, as `ldp simulate --data text:FILE` runs one per line of FILE
  // (string_sim.h: device i holds line i).
  py::bytes randomize_strings(std::vector<std::string> strings) {
    if (block_.mechanism->input != tools::input_kind::string) {
      throw py::type_error(
          fmt::format("{} devices do not hold strings: randomize takes their array", block_.mechanism->name));
    }
    if (strings.empty()) throw py::value_error("no strings: a batch needs at least one device");
    if (strings.size() > UINT32_MAX) throw py::value_error("more than 2^32 - 1 strings in one batch");
    check_strings(strings, block_.params, "string");
    return batch_of([&] {
      std::vector<uint32_t> of_device(strings.size());
      for (std::size_t i = 0; i < of_device.size(); ++i) of_device[i] = static_cast<uint32_t>(i);
      return std::make_unique<tools::string_dataset>(std::move(strings), std::move(of_device));
    });
  }

  const tools::parameter_block& block() const { return block_; }
  uint64_t seed() const { return seed_; }
  uint64_t calls() const { return calls_; }

 private:
  // The batch of the devices make_data() holds, made without the GIL: call k = 0 draws from the
  // seed as `ldp simulate --seed` does, call k >= 1 from call_seed_of(seed, k).
  template <class MakeData>
  py::bytes batch_of(MakeData make_data) {
    std::vector<unsigned char> batch;
    {
      py::gil_scoped_release released;
      const std::lock_guard<std::mutex> lock(mutex_);
      const std::unique_ptr<tools::dataset> data = make_data();
      const uint64_t seed = calls_ == 0 ? seed_ : tools::call_seed_of(seed_, calls_);
      batch = tools::simulate_to_bytes(block_, *data, seed, tools::seed_purpose::device_block, threads_);
      ++calls_;
    }
    return to_bytes(batch);
  }

  tools::parameter_block block_;
  uint64_t seed_;
  unsigned threads_;
  uint64_t calls_ = 0;
  std::mutex mutex_;
};

}  // namespace

void bind_randomizer(py::module_& m) {
  py::class_<randomizer_object>(m, "Randomizer",
                                "The devices of one parameter block, run by the ldp tool's fleet (ldpkit.Randomizer "
                                "checks the array first).")
      .def(py::init<const params_object&, uint64_t, unsigned>(), py::arg("params"), py::arg("seed"),
           py::arg("threads") = 1)
      .def("randomize", &randomizer_object::randomize, py::arg("values"),
           "One wire batch (bytes) for the values, read in place (int64 items, or float64 rows); the GIL is "
           "released. Call k = 0 draws from `seed` as `ldp simulate --seed` does, call k >= 1 from "
           "call_seed_of(seed, k) (fresh randomness).")
      .def("randomize_strings", &randomizer_object::randomize_strings, py::arg("strings"),
           "One wire batch (bytes) for the strings of a pem, treehist or sfp block (bytes each; "
           "ldpkit.Randomizer encodes str as UTF-8), one device per string in order, byte-identical to "
           "`ldp simulate --data text:FILE` with one string per line; seeded as randomize(). ValueError "
           "naming the index of an empty string, one longer than string_length or one holding a zero byte.")
      .def_property_readonly(
          "params", [](const randomizer_object& r) { return params_object{r.block()}; }, "The parameter block.")
      .def_property_readonly("seed", &randomizer_object::seed, "The simulation seed S.")
      .def_property_readonly("calls", &randomizer_object::calls, "How many batches randomize() has made.");
  m.def("call_seed_of", &tools::call_seed_of, py::arg("seed"), py::arg("call"),
        "The seed of Randomizer call `call` >= 1 (the tool's seeding.h).");
}

}  // namespace ldp::python
