// ldp ledger inspect (docs/cli.md "ldp ledger"): decodes the two slots of a device privacy ledger
// (docs/ledger.md "File layout": slot 0 then slot 1, each half of the file), says which record a
// load takes, and prints its use cases. Loading is the library's own (ledger::open on a read-only
// view), so the tool and the device cannot disagree on the current record.
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "errors.h"
#include "files.h"
#include "ldp/device/ledger.h"
#include "output.h"

namespace ldp::tools {
namespace {

struct ledger_options {
  std::string file;
  std::string format = "table";
  unsigned erased_byte = 0xFF;
};

const char* slot_state_name(device::ledger_slot_state s) {
  switch (s) {
    case device::ledger_slot_state::erased: return "erased";
    case device::ledger_slot_state::valid: return "valid";
    case device::ledger_slot_state::invalid: return "invalid";
  }
  return "";
}

// Why a slot is invalid, in words (the statuses of device::examine_ledger_slot).
std::string reason_text(status s) {
  switch (s) {
    case status::malformed_report:
      return "not a ledger record (magic, use cases out of order, a zero window length, or an erased header "
             "over written bytes)";
    case status::unsupported_version: return "a record version this build does not read";
    case status::reserved_bits_set: return "a reserved byte is not zero";
    case status::wrong_length: return "more use cases than the slot holds";
    case status::checksum_mismatch: return "the CRC32C does not match";
    default: return "";
  }
}

struct slot_report {
  device::ledger_slot_info info;
  std::vector<device::ledger_entry> entries;
};

nlohmann::ordered_json entry_json(const device::ledger_entry& e) {
  return {{"use_case", e.use_case},
          {"window_seconds", e.window_seconds},
          {"window", e.window},
          {"window_start", e.window * e.window_seconds},
          {"spent", device::ledger_epsilon(e.spent)},
          {"spent_units", e.spent},
          {"budget", device::ledger_epsilon(e.budget)},
          {"budget_units", e.budget}};
}

void run(const ledger_options& o) {
  if (o.erased_byte > 255) fail("--erased-byte must be at most 255, got {}", o.erased_byte);
  const std::vector<unsigned char> bytes = read_file(o.file, "ledger file", uint64_t{1} << 32);
  const std::size_t minimum = 2 * device::ledger_record_size(1);
  if (bytes.size() % 2 != 0 || bytes.size() < minimum) {
    fail("ledger file {}: {} bytes; a ledger file is two slots of equal size, at least {} bytes each",
         escaped(o.file, 200), bytes.size(), minimum / 2);
  }
  const device::ledger_memory memory{bytes.data(), static_cast<uint32_t>(bytes.size() / 2),
                                     static_cast<unsigned char>(o.erased_byte)};
  const device::ledger_storage storage = device::ledger_memory_storage(&memory);
  slot_report slots[2];
  device::ledger_slot_info infos[2];
  for (uint32_t s = 0; s < 2; ++s) {
    if (device::examine_ledger_slot(storage, s, &infos[s]) != status::ok) fail("ledger file: cannot read slot {}", s);
    slots[s].info = infos[s];
    for (uint32_t i = 0; i < infos[s].use_cases; ++i) {
      const std::size_t at = s * std::size_t{memory.slot_size} + device::ledger_record_size(i);
      slots[s].entries.push_back(device::decode_ledger_entry(bytes.data() + at));
    }
  }
  const int current = device::current_ledger_slot(infos);
  std::vector<std::byte> workspace(memory.slot_size);
  device::ledger loaded;
  const status load = device::ledger::open(storage, workspace, &loaded);
  const char* load_text = load != status::ok ? status_name(load) : current < 0 ? "fresh" : "ok";

  if (o.format == "json") {
    nlohmann::ordered_json out = {{"file", o.file}, {"slot_size", memory.slot_size}};
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (uint32_t s = 0; s < 2; ++s) {
      const device::ledger_slot_info& info = slots[s].info;
      nlohmann::ordered_json j = {{"slot", s}, {"state", slot_state_name(info.state)}};
      if (info.state == device::ledger_slot_state::invalid) j["reason"] = status_name(info.reason);
      if (info.state == device::ledger_slot_state::valid) {
        j["counter"] = info.counter;
        j["latest"] = info.latest;
        nlohmann::ordered_json entries = nlohmann::ordered_json::array();
        for (const device::ledger_entry& e : slots[s].entries) entries.push_back(entry_json(e));
        j["use_cases"] = entries;
      }
      list.push_back(j);
    }
    out["slots"] = list;
    out["current"] = current < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(current);
    out["load"] = load_text;
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("ledger file {}: two slots of {} bytes\n", escaped(o.file, 200), memory.slot_size);
  for (uint32_t s = 0; s < 2; ++s) {
    const device::ledger_slot_info& info = slots[s].info;
    if (info.state == device::ledger_slot_state::erased) {
      fmt::print("slot {}: erased (every byte 0x{:02x})\n", s, o.erased_byte);
      continue;
    }
    if (info.state == device::ledger_slot_state::invalid) {
      fmt::print("slot {}: invalid: {}: {}\n", s, describe(info.reason), reason_text(info.reason));
      continue;
    }
    fmt::print("slot {}: valid, counter {}, latest time {} s, {} use case{}\n", s, info.counter, info.latest,
               info.use_cases, info.use_cases == 1 ? "" : "s");
    if (slots[s].entries.empty()) continue;
    table t{{"use case", "window (s)", "window", "window start (s)", "spent", "budget", "remaining"},
            {true, true, true, true, true, true, true},
            {}};
    for (const device::ledger_entry& e : slots[s].entries) {
      const uint64_t left = e.spent < e.budget ? e.budget - e.spent : 0;
      t.rows.push_back({std::to_string(e.use_case), std::to_string(e.window_seconds), std::to_string(e.window),
                        std::to_string(e.window * e.window_seconds),
                        fmt::format("{:.6f}", device::ledger_epsilon(e.spent)),
                        fmt::format("{:.6f}", device::ledger_epsilon(e.budget)),
                        fmt::format("{:.6f}", device::ledger_epsilon(left))});
    }
    print_text(stdout, t, "  ");
  }
  if (current >= 0) {
    fmt::print("current: slot {} (the valid record with the larger counter; slot 0 on a tie)\n", current);
  } else if (load == status::ok) {
    fmt::print("current: none; a load starts a fresh ledger (no valid record, a slot is erased)\n");
  } else {
    fmt::print("current: none; a load fails closed with {} and refuses every charge\n", describe(load));
  }
  if (current >= 0 && load != status::ok) fmt::print("load: {}\n", describe(load));
}

}  // namespace

command add_ledger(CLI::App& parent) {
  auto o = std::make_shared<ledger_options>();
  CLI::App* app = parent.add_subcommand("ledger", "the device privacy ledger (docs/ledger.md)");
  app->require_subcommand(1, 1);
  CLI::App* inspect = app->add_subcommand("inspect", "decode the two slots of a ledger file");
  inspect->add_option("file", o->file, "the ledger file: slot 0 then slot 1, equal halves")->required();
  inspect->add_option("--format,-f", o->format, "table or json")->check(CLI::IsMember({"table", "json"}));
  inspect->add_option("--erased-byte", o->erased_byte, "the value of an erased byte (default 255, NOR flash)");
  return {app, [o] { run(*o); }};
}

}  // namespace ldp::tools
