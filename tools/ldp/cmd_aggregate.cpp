// ldp aggregate (docs/cli.md): batch files into one aggregator state, streamed chunk by chunk.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "batch_io.h"
#include "commands.h"
#include "errors.h"
#include "files.h"
#include "ldp/base/bits.h"
#include "ldp/server/central/winsorized.h"
#include "ldp/wire/central_params.h"
#include "output.h"
#include "progress.h"
#include "state_io.h"

namespace ldp::tools {
namespace {

struct aggregate_options {
  std::vector<std::string> batches;
  std::string out;
  std::string windows;     // winsorized-sums: the broadcast window list
  std::string quarantine;  // damaged chunks' bytes
  bool keep_partial = false;
  bool allow_duplicates = false;
  server::limits limits;
};

// docs/cli.md "aggregate": the quarantine file keeps the raw bytes of every chunk whose CRC failed,
// each after a header naming its source file and offset, so nothing the tool skips is destroyed.
//   "LDPQ", version 1, 3 zero bytes; then per chunk: u16 path length, path, u64 offset in that
//   file, u32 chunk length, the chunk (header, body, CRC as read). Little-endian.
class quarantine {
 public:
  void add(const std::string& path, uint64_t offset, span<const unsigned char> chunk) {
    put(path.size(), 2);
    bytes_.insert(bytes_.end(), path.begin(), path.end());
    put(offset, 8);
    put(chunk.size(), 4);
    bytes_.insert(bytes_.end(), chunk.begin(), chunk.end());
  }
  void write(const std::string& path) const { write_file_atomically(path, "quarantine file", bytes_); }

 private:
  std::vector<unsigned char> bytes_{'L', 'D', 'P', 'Q', 1, 0, 0, 0};
  void put(uint64_t v, int size) {
    for (int i = 0; i < size; ++i) bytes_.push_back(static_cast<unsigned char>(v >> (8 * i)));
  }
};

// A winsorized-mean round-2 batch counts only against the window list its devices were sent
// (wire_format.md 3.6: the block carries the list's digest); the state then carries the list.
void set_windows(server::aggregator& agg, const aggregate_options& o, const std::string& batch) {
  const wire::params& p = agg.parameters();
  if (p.mech != wire::mechanism::winsorized_sums) {
    if (!o.windows.empty()) {
      fail("--windows applies to winsorized-mean round-2 (winsorized-sums) batches only; {} is {}", batch,
           wire::mechanism_name(p.mech));
    }
    return;
  }
  if (o.windows.empty()) {
    fail(
        "{} is a winsorized-mean round-2 batch: counting it needs the broadcast window list, --windows F (written by "
        "ldp simulate --windows-out)",
        batch);
  }
  const std::size_t size = wire::window_list_size(p);
  const std::vector<unsigned char> list = read_file(o.windows, "window list file", size);
  const status s = static_cast<server::winsorized_sums_aggregator&>(agg).set_windows(list);
  if (s == status::parameter_mismatch) {
    fail("{} is not the window list of {}: its digest is not the block's window_digest {:016x} ({})", o.windows, batch,
         p.get(wire::field::window_digest), describe(s));
  }
  if (s != status::ok) {
    fail("{} is not a window list for {} ({} bytes, {} expected): {}", o.windows, batch, list.size(), size,
         describe(s));
  }
}

void run(const aggregate_options& o) {
  std::vector<named_file> inputs{{"--windows", o.windows}}, batches;
  for (const std::string& path : o.batches) batches.push_back({"input batch", path});
  inputs.insert(inputs.end(), batches.begin(), batches.end());
  refuse_overlaps(inputs, {{"--out", o.out}, {"--quarantine", o.quarantine}});
  if (!o.allow_duplicates) refuse_duplicate_inputs(batches, "--allow-duplicates");
  // Every header first: a file of other parameters fails before any counting.
  std::unique_ptr<server::aggregator> agg;
  uint64_t total_bytes = 0;
  for (const std::string& path : o.batches) {
    input_file in(path, "batch file");
    refuse_state_file(in);
  }
  for (const std::string& path : o.batches) {
    input_file in(path, "batch file");
    const batch_stream batch(in);
    total_bytes += in.size();
    if (!agg) {
      const status s = server::aggregator::create(batch.parameters(), o.limits, &agg);
      if (s == status::limit_exceeded) {
        uint64_t need = 0;
        static_cast<void>(server::aggregator_bytes(batch.parameters(), &need));
        fail("cannot aggregate {}: its parameters need {} of aggregator memory, above --max-state-bytes {}: {}", path,
             need == 0 ? std::string("more than 2^64 bytes") : format_bytes(need), o.limits.max_state_bytes,
             describe(s));
      }
      if (s != status::ok) fail("cannot aggregate {}: no aggregator for its parameters: {}", path, describe(s));
      set_windows(*agg, o, path);
    } else if (batch.fingerprint() != agg->fingerprint()) {
      fail("{} has other parameters than {} (fingerprint {:016x}, not {:016x}): aggregate them separately", path,
           o.batches.front(), batch.fingerprint(), agg->fingerprint());
    }
  }

  progress bar("aggregate", total_bytes, true);
  uint64_t done_bytes = 0;
  std::vector<std::string> lines, warnings;  // printed after the bar
  quarantine damaged;
  for (const std::string& path : o.batches) {
    input_file in(path, "batch file");
    batch_stream batch(in);
    const uint64_t accepted_before = agg->reports(), rejected_before = agg->rejected_total(),
                   damaged_before = agg->damaged_chunks();
    const status s = count_batch(batch, *agg, [&](const batch_stream& b) {
      bar.update(done_bytes + in.position());
      if (b.chunk_status() == status::checksum_mismatch) {
        damaged.add(path, in.position() - b.chunk_bytes().size(), b.chunk_bytes());
      }
    });
    if (s != status::ok) {
      const std::string what =
          fmt::format("{}: the batch cannot be read past chunk {} ({}): the file is truncated or damaged", path,
                      batch.chunks(), describe(s));
      if (!o.keep_partial) fail("{}; nothing written (--keep-partial counts the chunks before it)", what);
      warnings.push_back(what + "; the reports before it count (--keep-partial)");
    }
    done_bytes += in.size();
    const uint64_t lost = agg->damaged_chunks() - damaged_before;
    if (lost != 0) {
      warnings.push_back(
          fmt::format("{}: {} damaged chunk{} (CRC32C mismatch): {} records are unknown and not counted{}", path,
                      format_count(lost), lost == 1 ? "" : "s", lost == 1 ? "its" : "their",
                      o.quarantine.empty() ? " (--quarantine F keeps their bytes)" : ""));
    }
    lines.push_back(fmt::format("{}: {} reports accepted, {} rejected{}", path,
                                format_count(agg->reports() - accepted_before),
                                format_count(agg->rejected_total() - rejected_before), damaged_text(lost)));
  }
  bar.finish();
  for (const std::string& w : warnings) fmt::print(stderr, "ldp: warning: {}\n", escaped(w, 4000));
  for (const std::string& line : lines) fmt::print("{}\n", line);

  const uint64_t rejected = agg->rejected_total();
  fmt::print("total: {} reports accepted, {} rejected{}\n", format_count(agg->reports()), format_count(rejected),
             damaged_text(agg->damaged_chunks()));
  if (rejected != 0) {
    fmt::print("rejected reports by reason:\n");
    print_text(stdout, rejection_table(agg->rejected()), "  ");
  }
  if (!o.quarantine.empty()) damaged.write(o.quarantine);
  const uint64_t bytes = save_state(*agg, o.out);
  fmt::print("wrote {}: {}, {}\n", o.out, format_bytes(bytes), describe_state(*agg));
}

}  // namespace

command add_aggregate(CLI::App& parent) {
  auto o = std::make_shared<aggregate_options>();
  CLI::App* app = parent.add_subcommand("aggregate", "count batch files into an aggregator state (streamed)");
  app->add_option("batches", o->batches, "batch files of the same parameters")->required();
  app->add_option("--out,-o", o->out, "state file to write (atomically)")->required();
  app->add_option("--windows", o->windows,
                  "winsorized-mean round 2: the broadcast window list (simulate --windows-out)");
  app->add_flag("--keep-partial", o->keep_partial,
                "count the readable chunks of a truncated or damaged batch instead of failing");
  app->add_option("--quarantine", o->quarantine, "write the raw bytes of chunks whose CRC32C fails to this file");
  app->add_flag("--allow-duplicates", o->allow_duplicates,
                "count a batch given twice (the same file, or a byte-identical copy) instead of refusing");
  add_max_state_bytes_option(*app, &o->limits.max_state_bytes,
                             "refuse a batch whose parameters need more aggregator memory");
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
