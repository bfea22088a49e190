// ldp aggregate (docs/cli.md): batch files into one aggregator state, streamed chunk by chunk.
#include <algorithm>
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
#include "ldp/wire/state.h"
#include "output.h"
#include "progress.h"
#include "state_io.h"

namespace ldp::tools {
namespace {

struct aggregate_options {
  std::vector<std::string> batches;
  std::string out;
  std::string windows;  // winsorized-sums: the broadcast window list
  bool keep_partial = false;
};

uint64_t total_rejected(const server::aggregator& agg) {
  uint64_t n = 0;
  for (uint64_t c : agg.rejected()) n += c;
  return n;
}

// A state file given where a batch belongs: say so rather than "bad magic". Reads the first bytes.
void refuse_state_file(input_file& in) {
  std::vector<unsigned char> magic;
  in.read_append(4, magic);
  if (magic.size() == 4 && std::equal(magic.begin(), magic.end(), wire::state_magic)) {
    fail("{} is an aggregator state, not a batch: combine states with ldp merge", in.path());
  }
}

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
    fail("{} is a winsorized-mean round-2 batch: counting it needs the broadcast window list, --windows F (written by "
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
    fail("{} is not a window list for {} ({} bytes, {} expected): {}", o.windows, batch, list.size(), size, describe(s));
  }
}

void run(const aggregate_options& o) {
  std::vector<named_file> inputs{{"--windows", o.windows}};
  for (const std::string& path : o.batches) inputs.push_back({"input batch", path});
  refuse_overlaps(inputs, {{"--out", o.out}});
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
      const status s = server::aggregator::create(batch.parameters(), &agg);
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
  for (const std::string& path : o.batches) {
    input_file in(path, "batch file");
    batch_stream batch(in);
    const uint64_t accepted_before = agg->reports(), rejected_before = total_rejected(*agg);
    while (batch.next()) {
      const status s = batch.add_to(*agg);
      bar.update(done_bytes + in.position());
      if (s == status::ok) continue;
      const std::string what =
          fmt::format("{}: the batch cannot be read past chunk {} ({}): the file is truncated or damaged", path,
                      batch.chunks(), describe(s));
      if (!o.keep_partial) fail("{}; nothing written (--keep-partial counts the chunks before it)", what);
      warnings.push_back(what + "; the reports before it count (--keep-partial)");
      break;
    }
    done_bytes += in.size();
    lines.push_back(fmt::format("{}: {} reports accepted, {} rejected", path, format_count(agg->reports() - accepted_before),
                                format_count(total_rejected(*agg) - rejected_before)));
  }
  bar.finish();
  for (const std::string& w : warnings) fmt::print(stderr, "ldp: warning: {}\n", escaped(w, 4000));
  for (const std::string& line : lines) fmt::print("{}\n", line);

  const uint64_t rejected = total_rejected(*agg);
  fmt::print("total: {} reports accepted, {} rejected\n", format_count(agg->reports()), format_count(rejected));
  if (rejected != 0) {
    fmt::print("rejected reports by reason:\n");
    print_text(stdout, rejection_table(agg->rejected().data(), status_count), "  ");
  }
  const uint64_t bytes = save_state(*agg, o.out);
  fmt::print("wrote {}: {}, {}\n", o.out, format_bytes(bytes), describe_state(*agg));
}

}  // namespace

command add_aggregate(CLI::App& parent) {
  auto o = std::make_shared<aggregate_options>();
  CLI::App* app = parent.add_subcommand("aggregate", "count batch files into an aggregator state (streamed)");
  app->add_option("batches", o->batches, "batch files of the same parameters")->required();
  app->add_option("--out,-o", o->out, "state file to write (atomically)")->required();
  app->add_option("--windows", o->windows, "winsorized-mean round 2: the broadcast window list (simulate --windows-out)");
  app->add_flag("--keep-partial", o->keep_partial,
                "count the readable chunks of a truncated or damaged batch instead of failing");
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
