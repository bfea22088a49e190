// ldp inspect (docs/cli.md): decodes a batch, a state or a single report and prints its fields.
// The kind comes from wire::peek_header (the magic "LDPB" or "LDPS"); anything else is read as a report.
#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "batch_io.h"
#include "block_text.h"
#include "commands.h"
#include "errors.h"
#include "files.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/peek.h"
#include "ldp/wire/report.h"
#include "ldp/wire/state.h"
#include "output.h"
#include "state_io.h"

namespace ldp::tools {
namespace {

struct inspect_options {
  std::string file;
  std::string params;
  std::size_t records = 5;
  server::limits limits;
};

// What the file's first bytes say it is (its magic, or a report's version byte).
wire::file_kind kind_of(const std::string& path) {
  input_file in(path, "file");
  std::vector<unsigned char> start;
  in.read_append(wire::peek_size, start);
  wire::header_info info;
  static_cast<void>(wire::peek_header(start, &info));  // a damaged header is its reader's to report
  return info.kind;
}

void print_block(const wire::params& p, uint64_t fingerprint) {
  const std::string epsilon = describe_epsilon(p);
  // Central-DP blocks (sparse-projection, winsorized) carry no epsilon: the server's release spends it.
  fmt::print("parameters: {} (id {}), fingerprint {:016x}, {}\n", wire::mechanism_name(p.mech),
             static_cast<int>(p.mech), fingerprint, epsilon.empty() ? "central DP (no device noise)" : epsilon);
  for (const block_field& f : block_fields(p)) fmt::print("  {}: {}\n", f.name, f.text);
}

// Set positions of a packed bit string, the first few of them.
std::string bit_positions(span<const unsigned char> bits, std::size_t nbits) {
  std::string list;
  std::size_t set = 0;
  for (std::size_t j = 0; j < nbits; ++j) {
    if (((bits[j / 8] >> (j % 8)) & 1) == 0) continue;
    if (++set <= 16) list += fmt::format("{}{}", list.empty() ? "" : ",", j);
  }
  return fmt::format("{} of {} set{}{}", set, nbits, list.empty() ? "" : ": " + list, set > 16 ? ",..." : "");
}

std::string describe_report(const wire::params& p, const wire::report& r) {
  using wire::field;
  switch (wire::kind_of(p.mech)) {
    case wire::payload_kind::index: return fmt::format("index={}", r.index);
    case wire::payload_kind::unary_bits:
      return fmt::format("bits {}", bit_positions(r.bits, static_cast<std::size_t>(p.get(field::domain))));
    case wire::payload_kind::hash_bucket: return fmt::format("seed={:016x} bucket={}", r.seed, r.index);
    case wire::payload_kind::sketch_row:
      return fmt::format("row={} bits {}", r.index,
                         bit_positions(r.bits, static_cast<std::size_t>(p.get(field::sketch_columns))));
    case wire::payload_kind::sketch_cell:
      return fmt::format("row={} column={} sign={}", r.index, r.column, r.bit ? "+1" : "-1");
    case wire::payload_kind::fixed_value: return fmt::format("value={}", r.value);
    case wire::payload_kind::seeded_value: return fmt::format("seed={:016x} value={}", r.seed, r.value);
    case wire::payload_kind::bit: return fmt::format("bit={}", r.bit);
    case wire::payload_kind::coordinate_bit: return fmt::format("coordinate={} bit={}", r.index, r.bit);
    case wire::payload_kind::coordinate_value: return fmt::format("coordinate={} value={}", r.index, r.value);
    case wire::payload_kind::fixed_vector:
    case wire::payload_kind::projected_unit:
    case wire::payload_kind::unit_vector: {
      std::vector<int64_t> values(r.count);
      if (wire::read_vector(r, values) != status::ok) return "unreadable vector";
      const bool seeded = wire::kind_of(p.mech) == wire::payload_kind::projected_unit;
      return fmt::format("{}vector={}", seeded ? fmt::format("seed={:016x} ", r.seed) : "", fmt::join(values, ","));
    }
    case wire::payload_kind::group_round:
      return fmt::format("group={} {}", r.group, describe_report(wire::group_inner_block(p), r));
    case wire::payload_kind::sparse_pairs: {
      std::vector<uint32_t> indices(r.count);
      std::vector<int64_t> values(r.count);
      if (wire::read_sparse(p, r, indices, values) != status::ok) return "unreadable pairs";
      std::string list;
      for (uint32_t i = 0; i < r.count; ++i) list += fmt::format("{}{}:{}", i == 0 ? "" : ",", indices[i], values[i]);
      return fmt::format("pairs={}", list);
    }
  }
  return "";
}

void inspect_batch(const inspect_options& o) {
  input_file in(o.file, "batch file");
  batch_stream batch(in);
  fmt::print("{}: batch (wire format section 6), {}\n", o.file, format_bytes(in.size()));
  print_block(batch.parameters(), batch.fingerprint());
  server::rejection_counts statuses{};  // by status; [0]: valid records
  uint64_t records = 0, bad_chunks = 0, shown = 0, min_size = UINT64_MAX, max_size = 0;
  status framing = status::ok;
  while (batch.next()) {
    const wire::chunk_view& chunk = batch.chunk();
    const status s = batch.chunk_status();
    if (s == status::checksum_mismatch) {
      ++bad_chunks;
      // Its record count is among the damaged bytes: shown as a claim, counted nowhere.
      fmt::print("chunk {}: CRC32C does not match: damaged, its records unknown (its header claims {})\n",
                 batch.chunks(), chunk.records);
      continue;
    }
    if (s != status::ok) {
      framing = s;
      break;
    }
    wire::record_cursor cursor(chunk);
    for (;;) {
      span<const unsigned char> payload;
      const status rs = cursor.next(&payload);
      if (rs != status::ok) {
        // wrong_length (bytes after the claimed records) loses no record but is counted once.
        const uint32_t lost = rs == status::malformed_report ? cursor.unreadable() : 0;
        statuses[static_cast<std::size_t>(rs)] += std::max<uint32_t>(lost, 1);
        fmt::print("chunk {}: record framing broken ({}), {} records unreadable\n", batch.chunks(), describe(rs), lost);
        break;
      }
      if (payload.empty()) break;
      ++records;
      min_size = std::min<uint64_t>(min_size, payload.size());
      max_size = std::max<uint64_t>(max_size, payload.size());
      wire::report r;
      const status ds = wire::decode_payload(batch.parameters(), payload, &r);
      ++statuses[static_cast<std::size_t>(ds)];
      if (shown < o.records) {
        ++shown;
        fmt::print("record {}: {} bytes: {}\n", records - 1, payload.size(),
                   ds == status::ok ? describe_report(batch.parameters(), r) : "rejected: " + describe(ds));
      }
    }
  }
  fmt::print("chunks: {} (terminator included), {} with a bad CRC32C\n", batch.chunks(), bad_chunks);
  fmt::print("records: {} readable, {} valid", format_count(records), format_count(statuses[0]));
  if (records != 0) fmt::print(", payload {}..{} bytes", min_size, max_size);
  fmt::print("\n");
  if (std::any_of(statuses.begin() + 1, statuses.end(), [](uint64_t c) { return c != 0; })) {
    fmt::print("rejected records by reason:\n");
    print_text(stdout, rejection_table(statuses), "  ");
  }
  if (framing != status::ok) {
    fail("{}: the batch cannot be read past chunk {}: {} (truncated or damaged)", o.file, batch.chunks(),
         describe(framing));
  }
}

void inspect_state(const inspect_options& o) {
  const std::vector<unsigned char> bytes = read_state_file(o.file, o.limits);
  wire::state_header header;
  span<const unsigned char> body;
  fmt::print("{}: aggregator state (wire format section 7), {}\n", o.file, format_bytes(bytes.size()));
  const status s = wire::decode_state(bytes, &header, &body);
  if (s != status::ok) fail("{}: the state header does not decode: {}", o.file, describe(s));
  fmt::print("header: mechanism {} (id {}), fingerprint {:016x}, body {} (CRC32C ok)\n",
             wire::mechanism_name(header.mech), static_cast<int>(header.mech), header.fingerprint,
             format_bytes(header.body_size));
  const std::unique_ptr<server::aggregator> agg = decode_state_file(o.file, bytes, o.limits);
  print_block(agg->parameters(), agg->fingerprint());
  fmt::print("reports: {} accepted{}\n", format_count(agg->reports()), damaged_text(agg->damaged_chunks()));
  const table rejected = rejection_table(agg->rejected());
  if (!rejected.rows.empty()) {
    fmt::print("rejected reports by reason:\n");
    print_text(stdout, rejected, "  ");
  }
  fmt::print("estimates: ldp estimate {}\n", o.file);
}

wire::params params_from(const std::string& path, const server::limits& lim, uint64_t* fingerprint) {
  const wire::file_kind kind = kind_of(path);
  if (kind == wire::file_kind::batch) {
    input_file in(path, "batch file");
    batch_stream batch(in);
    *fingerprint = batch.fingerprint();
    return batch.parameters();
  }
  if (kind == wire::file_kind::state) {
    const std::unique_ptr<server::aggregator> agg = load_state(path, lim);
    *fingerprint = agg->fingerprint();
    return agg->parameters();
  }
  fail("--params {} is neither a batch nor a state file", path);
}

[[noreturn]] void unknown_kind(const std::string& path) {
  fail("{} is not a batch (LDPB), a state (LDPS) or a version-1 report", path);
}

void inspect_report(const inspect_options& o) {
  const std::vector<unsigned char> bytes = read_file(o.file, "report file", 1 << 26);
  wire::header_info header;
  if (wire::peek_header(bytes, &header) != status::ok || header.kind != wire::file_kind::report) unknown_kind(o.file);
  const wire::mechanism mech = header.mech;
  const uint64_t fingerprint = header.fingerprint;
  fmt::print("{}: report (wire format section 4), {} bytes\n", o.file, bytes.size());
  fmt::print("header: version 1, mechanism {} (id {}), fingerprint {:016x}\n", wire::mechanism_name(mech),
             static_cast<int>(mech), fingerprint);
  fmt::print("payload: {} bytes: {}\n", bytes.size() - wire::report_header_size,
             to_hex(bytes.data() + wire::report_header_size,
                    std::min<std::size_t>(bytes.size() - wire::report_header_size, 64)) +
                 (bytes.size() - wire::report_header_size > 64 ? "..." : ""));
  if (o.params.empty()) {
    fmt::print("(decode the payload with --params BATCH_OR_STATE, which names its parameters)\n");
    return;
  }
  uint64_t expected = 0;
  const wire::params p = params_from(o.params, o.limits, &expected);
  wire::report r;
  const status s = wire::decode_report(p, expected, bytes, &r);
  if (s != status::ok)
    fail("{}: the report does not decode under the parameters of {}: {}", o.file, o.params, describe(s));
  fmt::print("fields: {}\n", describe_report(p, r));
}

void run(const inspect_options& o) {
  switch (kind_of(o.file)) {
    case wire::file_kind::batch: return inspect_batch(o);
    case wire::file_kind::state: return inspect_state(o);
    case wire::file_kind::report: return inspect_report(o);
    case wire::file_kind::unknown: unknown_kind(o.file);  // before reading more than its first bytes
  }
}

}  // namespace

command add_inspect(CLI::App& parent) {
  auto o = std::make_shared<inspect_options>();
  CLI::App* app = parent.add_subcommand("inspect", "decode a batch, state or report file and print its fields");
  app->add_option("file", o->file, "batch, state or report file")->required();
  app->add_option("--records", o->records, "batch: records to print (default 5)");
  app->add_option("--params", o->params, "report: a batch or state file whose parameters decode it");
  add_max_state_bytes_option(*app, &o->limits.max_state_bytes, "refuse a state that needs more memory");
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
