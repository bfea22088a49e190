// The simulated fleet (docs/cli.md "simulate", "Randomness"): devices run in seeding blocks of
// seeding.h's devices_per_block, block b drawing from its own DRBG, so blocks can run on any number
// of threads and the output is the same bytes. Each block's records are packed into wire chunks
// (docs/wire_format.md section 6) of about chunk_target bytes, and the blocks are handed to the sink
// in device order.
#ifndef LDP_TOOLS_FLEET_H
#define LDP_TOOLS_FLEET_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "datasets.h"
#include "ldp/base/span.h"
#include "mechanism_options.h"
#include "randomizers.h"
#include "seeding.h"

namespace ldp::tools {

inline constexpr std::size_t chunk_target = std::size_t{1} << 20;

struct fleet_timing {
  double randomize_seconds = 0;  // wall time of the device code and chunk packing
  double sink_seconds = 0;       // wall time spent in the sink
};

// sink(chunks, devices_done): one block's complete chunks (no terminator), in device order.
using chunk_sink = std::function<void(span<const unsigned char> chunks, uint64_t devices_done)>;

// A new device program for one worker thread (simulate --days: memoized devices, recorded reports);
// empty: make_device_program(block, data, seed).
using program_factory = std::function<std::unique_ptr<device_program>()>;

// The worker threads run_fleet uses for a --threads value: the value, or one per hardware thread
// for 0.
unsigned worker_threads(unsigned requested);

// Runs data.devices() devices with `threads` worker threads (0: one per hardware thread), block b
// seeded by derive_seed(seed, purpose, b), each thread running a program from `make`. Throws
// cli_error if the device code refuses a device's input.
fleet_timing run_fleet(const parameter_block& block, const dataset& data, uint64_t seed, seed_purpose purpose,
                       unsigned threads, const chunk_sink& sink, const program_factory& make = {});

struct simulated_batch {
  uint64_t bytes = 0;
  fleet_timing timing;
};

// run_fleet into a batch file written atomically (with a progress bar labelled `label`, none if it
// is empty); `also`,
// if set, sees every block's chunks too; `make` as for run_fleet.
simulated_batch simulate_to_file(const std::string& path, const parameter_block& block, const dataset& data,
                                 uint64_t seed, seed_purpose purpose, unsigned threads, const std::string& label,
                                 const chunk_sink& also = {}, const program_factory& make = {});

// The batch simulate_to_file writes, in memory (the Python package's Randomizer, issue 13): the
// same bytes for the same block, data, seed and purpose.
std::vector<unsigned char> simulate_to_bytes(const parameter_block& block, const dataset& data, uint64_t seed,
                                             seed_purpose purpose, unsigned threads);

}  // namespace ldp::tools

#endif
