#include "fleet.h"

#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>

#include "batch_io.h"
#include "errors.h"
#include "files.h"
#include "ldp/wire/batch.h"
#include "ldp/wire/report.h"
#include "progress.h"
#include "randomizers.h"
#include "seeding.h"

namespace ldp::tools {
namespace {

using clock_type = std::chrono::steady_clock;

double seconds_since(clock_type::time_point start) {
  return std::chrono::duration<double>(clock_type::now() - start).count();
}

// Room for one record: the payload and its uvarint length prefix.
std::size_t record_room(const wire::params& p) { return wire::max_payload_size(p) + 10; }

// The first device whose input the device code refused, and its status; ok if none.
struct block_result {
  status code = status::ok;
  uint64_t device = 0;
};

// Runs devices [first, last) of seeding block b into `out` as complete chunks.
block_result run_block(const parameter_block& block, device_program& program, uint64_t seed, seed_purpose purpose,
                       uint64_t b, uint64_t first, uint64_t last, std::vector<unsigned char>& payload,
                       std::vector<unsigned char>& out) {
  out.clear();
  random::drbg rng = seeded_drbg(seed, purpose, b);
  const std::size_t capacity =
      wire::chunk_header_size + std::max(chunk_target, record_room(block.params)) + wire::chunk_trailer_size;
  std::size_t chunk_start = 0;
  wire::chunk_writer writer{span<unsigned char>()};
  const auto start_chunk = [&] {
    chunk_start = out.size();
    out.resize(chunk_start + capacity);
    // The chunk CRC on the DRBG's table, the hardware one where it has it (same bytes as
    // wire::crc32c; the portable one was a tenth of `ldp demo`, issue 19).
    writer = wire::chunk_writer(span<unsigned char>(out.data() + chunk_start, capacity), rng.kernel().crc32c);
  };
  const auto finish_chunk = [&] {
    const std::size_t size = writer.finish().size();
    out.resize(chunk_start + size);
  };
  start_chunk();
  for (uint64_t i = first; i < last; ++i) {
    std::size_t written = 0;
    const status s = program.run(i, rng, payload, &written);
    if (s != status::ok) return {s, i};
    const span<const unsigned char> record(payload.data(), written);
    status added = writer.add(record);
    if (added == status::buffer_too_small) {
      finish_chunk();
      start_chunk();
      added = writer.add(record);
    }
    if (added != status::ok) return {added, i};
  }
  finish_chunk();
  return {};
}

}  // namespace

unsigned worker_threads(unsigned requested) {
  return requested != 0 ? requested : std::max(1u, std::thread::hardware_concurrency());
}

fleet_timing run_fleet(const parameter_block& block, const dataset& data, uint64_t seed, seed_purpose purpose,
                       unsigned threads, const chunk_sink& sink, const program_factory& make) {
  threads = worker_threads(threads);
  const uint64_t devices = data.devices();
  const uint64_t blocks = (devices + devices_per_block - 1) / devices_per_block;
  threads = static_cast<unsigned>(std::min<uint64_t>(threads, std::max<uint64_t>(blocks, 1)));

  struct worker {
    std::unique_ptr<device_program> program;
    std::vector<unsigned char> payload;
    std::vector<unsigned char> chunks;
    block_result result;
    std::exception_ptr error;
  };
  std::vector<worker> workers(threads);
  for (worker& w : workers) {
    w.program = make ? make() : make_device_program(block, data, seed);
    w.payload.resize(wire::max_payload_size(block.params));
  }

  fleet_timing timing;
  // Waves of one block per thread; the sink takes them in order between waves.
  for (uint64_t wave = 0; wave < blocks; wave += threads) {
    const auto start = clock_type::now();
    const auto work = [&](unsigned t) {
      worker& w = workers[t];
      const uint64_t b = wave + t;
      w.chunks.clear();
      w.result = {};
      if (b >= blocks) return;
      try {
        const uint64_t first = b * devices_per_block, last = std::min(devices, first + devices_per_block);
        w.result = run_block(block, *w.program, seed, purpose, b, first, last, w.payload, w.chunks);
      } catch (...) {
        w.error = std::current_exception();
      }
    };
    std::vector<std::thread> running;
    for (unsigned t = 1; t < threads; ++t) running.emplace_back(work, t);
    work(0);
    for (std::thread& t : running) t.join();
    timing.randomize_seconds += seconds_since(start);

    const auto sink_start = clock_type::now();
    for (unsigned t = 0; t < threads && wave + t < blocks; ++t) {
      worker& w = workers[t];
      if (w.error) std::rethrow_exception(w.error);
      if (w.result.code != status::ok) {
        fail("the device code refused device {}: {}", w.result.device, describe(w.result.code));
      }
      sink(w.chunks, std::min(devices, (wave + t + 1) * devices_per_block));
    }
    timing.sink_seconds += seconds_since(sink_start);
  }
  return timing;
}

simulated_batch simulate_to_file(const std::string& path, const parameter_block& block, const dataset& data,
                                 uint64_t seed, seed_purpose purpose, unsigned threads, const std::string& label,
                                 const chunk_sink& also, const program_factory& make) {
  atomic_output out(path, "batch file");
  const std::vector<unsigned char> header = batch_header(block.params), terminator = batch_terminator();
  out.write(header);
  progress bar(label, data.devices(), false);
  simulated_batch result;
  result.timing = run_fleet(
      block, data, seed, purpose, threads,
      [&](span<const unsigned char> chunks, uint64_t done) {
        out.write(chunks);
        if (also) also(chunks, done);
        bar.update(done);
      },
      make);
  out.write(terminator);
  out.commit();
  bar.finish();
  result.bytes = out.written();
  return result;
}

std::vector<unsigned char> simulate_to_bytes(const parameter_block& block, const dataset& data, uint64_t seed,
                                             seed_purpose purpose, unsigned threads) {
  std::vector<unsigned char> out = batch_header(block.params);
  run_fleet(block, data, seed, purpose, threads,
            [&](span<const unsigned char> chunks, uint64_t) { out.insert(out.end(), chunks.begin(), chunks.end()); });
  const std::vector<unsigned char> terminator = batch_terminator();
  out.insert(out.end(), terminator.begin(), terminator.end());
  return out;
}

}  // namespace ldp::tools
