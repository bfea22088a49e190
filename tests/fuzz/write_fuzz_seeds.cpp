// Seed corpora for the fuzz targets: `write_fuzz_seeds GOLDEN_DIR OUT_DIR` writes
//   OUT_DIR/report/<golden name>.bin  every golden file as [u16 LE block length][block][report]
//   OUT_DIR/batch/<name>.bin          per mechanism a valid batch (2 chunks of 3 records and the
//                                     terminator) and corrupted variants of it
//   OUT_DIR/state/<name>.bin          aggregator state bodies (without the 32-byte header): per
//                                     mechanism with a server side an empty one and ones after six
//                                     and twelve example payloads (the BLH/OLH examples' d = 10
//                                     saves 6 as a list, 12 as counts: docs/wire_format.md 7.1),
//                                     and per valid golden file one after its report (accepted,
//                                     or counted as a rejection)
//   OUT_DIR/model/<name>.bin          every golden model broadcast (golden/model, wire_format.md 10)
//   OUT_DIR/ledger/<name>.bin         device privacy ledger files (two slots back to back): fresh,
//                                     configured and charged, one slot newer than the other, one
//                                     slot damaged, an erased slot beside a damaged one
// so the fuzzers start from inputs that reach every payload kind, every batch status and every
// aggregator family.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ldp/device/ledger.h"
#include "ldp/server/aggregator.h"
#include "ldp/wire.h"
#include "ledger_flash.h"
#include "wire_examples.h"

namespace {

namespace fs = std::filesystem;
using ldp::status;
using bytes = std::vector<unsigned char>;

struct golden {
  std::string name;
  bool valid = false;  // from golden/valid: the report is accepted
  bytes params;
  bytes report;
};

std::vector<golden> read_golden(const fs::path& root) {
  std::vector<golden> out;
  for (const char* sub : {"valid", "invalid"}) {
    for (const auto& entry : fs::directory_iterator(root / sub)) {
      if (entry.path().extension() != ".txt") continue;
      golden g;
      g.name = entry.path().stem().string();
      g.valid = std::string(sub) == "valid";
      std::ifstream in(entry.path());
      std::string line;
      while (std::getline(in, line)) {
        if (line.rfind("params ", 0) == 0) g.params = ldp::test::from_hex(line.substr(7));
        if (line.rfind("report ", 0) == 0) g.report = ldp::test::from_hex(line.substr(7));
      }
      out.push_back(g);
    }
  }
  return out;
}

void write(const fs::path& path, const bytes& b) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.string().c_str());
    std::exit(1);
  }
}

void check(status s, const char* what) {
  if (s != status::ok) {
    std::fprintf(stderr, "%s: %s\n", what, ldp::status_name(s));
    std::exit(1);
  }
}

bytes header(const ldp::wire::params& p) {
  bytes out(64 + ldp::wire::params_max_size);
  std::size_t size = 0;
  check(ldp::wire::encode_batch_header(p, out, &size), "encode_batch_header");
  out.resize(size);
  return out;
}

bytes chunk(const std::vector<bytes>& payloads) {
  std::size_t total = 0;
  for (const bytes& b : payloads) total += b.size() + ldp::wire::varint_max_size;
  bytes buffer(ldp::wire::chunk_header_size + total + ldp::wire::chunk_trailer_size);
  ldp::wire::chunk_writer writer(buffer);
  for (const bytes& b : payloads) check(writer.add(b), "chunk_writer::add");
  const auto done = writer.finish();
  return bytes(done.begin(), done.end());
}

bytes payload(const ldp::wire::params& p, unsigned variant) {
  const auto e = ldp::test::make_report(p, variant);
  bytes out(ldp::wire::max_payload_size(p));
  std::size_t size = 0;
  check(ldp::wire::encode_payload(p, e.fields, out, &size), "encode_payload");
  out.resize(size);
  return out;
}

void append(bytes& to, const bytes& from) { to.insert(to.end(), from.begin(), from.end()); }

// The body of a's saved state: what fuzz_state takes (it writes the header itself).
void write_state_body(const fs::path& path, const ldp::server::aggregator& a) {
  const bytes state = a.serialize();
  if (state.size() < ldp::wire::state_header_size) {
    std::fprintf(stderr, "serialize failed for %s\n", path.string().c_str());
    std::exit(1);
  }
  write(path, bytes(state.begin() + ldp::wire::state_header_size, state.end()));
}

// State seeds for every mechanism aggregator::create accepts (the others have no server side).
void write_state_seeds(const fs::path& dir, const std::vector<golden>& goldens) {
  std::unique_ptr<ldp::server::aggregator> a;
  for (ldp::wire::mechanism m : ldp::test::all_mechanisms()) {
    const auto p = ldp::test::example_params(m);
    if (ldp::server::aggregator::create(p, &a) != status::ok) continue;
    const std::string name = ldp::wire::mechanism_name(m);
    write_state_body(dir / (name + "_empty.bin"), *a);
    // Six example payloads; those the family rejects (the examples' values need not be in range)
    // are counted as rejections, which the state holds too.
    for (const char* count : {"_six.bin", "_twelve.bin"}) {
      for (unsigned variant = 0; variant < 6; ++variant) {
        const bytes encoded = payload(p, variant);
        static_cast<void>(a->add_payload(encoded));
      }
      write_state_body(dir / (name + count), *a);
    }
  }
  for (const golden& g : goldens) {
    ldp::wire::params p;
    if (!g.valid || ldp::wire::decode_params(g.params, &p) != status::ok) continue;
    if (ldp::server::aggregator::create(p, &a) != status::ok) continue;
    static_cast<void>(a->add_report(g.report));  // the server may check more (a sparse vector's L2 ball)
    write_state_body(dir / (g.name + ".bin"), *a);
  }
}

// Ledger files as a device's flash holds them, written by the ledger itself on the simulated flash.
void write_ledger_seeds(const fs::path& dir) {
  constexpr uint32_t slot_size = 256;
  ldp::test::ledger_flash flash(slot_size);
  std::vector<std::byte> workspace(slot_size);
  ldp::device::ledger l;
  check(ldp::device::ledger::open(flash.storage(), workspace, &l), "ledger::open");
  write(dir / "fresh.bin", flash.bytes());
  check(l.configure(9, 1.0, 86400), "configure");
  check(l.configure(4, 0.5, 7 * 86400), "configure");
  check(l.charge(9, 0.25, 100 * 86400), "charge");
  check(l.charge(4, 0.125, 100 * 86400 + 5), "charge");
  write(dir / "charged.bin", flash.bytes());
  // Power fails as the second slot's erase begins: slot 1 holds a newer record than slot 0.
  flash.cut_after(slot_size + ldp::device::ledger_record_size(2), false);
  static_cast<void>(l.charge(9, 0.5, 100 * 86400 + 9));
  flash.power_on();
  write(dir / "newer_slot.bin", flash.bytes());
  bytes damaged = flash.bytes();
  damaged[40] ^= 0x01;
  write(dir / "damaged_slot.bin", damaged);
  for (std::size_t i = slot_size; i < 2 * slot_size; ++i) damaged[i] = 0xFF;
  write(dir / "erased_and_damaged.bin", damaged);
}

}  // namespace

// The golden model broadcasts as raw inputs of fuzz_model_broadcast.
void write_model_seeds(const fs::path& golden_dir, const fs::path& dir) {
  fs::create_directories(dir);
  for (const auto& entry : fs::directory_iterator(golden_dir)) {
    std::ifstream in(entry.path());
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("broadcast ", 0) == 0) {
        write(dir / (entry.path().stem().string() + ".bin"), ldp::test::from_hex(line.substr(10)));
      }
    }
  }
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: write_fuzz_seeds GOLDEN_DIR OUT_DIR\n");
    return 2;
  }
  const fs::path out = argv[2];
  fs::create_directories(out / "report");
  fs::create_directories(out / "batch");
  fs::create_directories(out / "state");
  fs::create_directories(out / "ledger");

  const std::vector<golden> goldens = read_golden(argv[1]);
  if (goldens.empty()) {
    std::fprintf(stderr, "no golden files in %s\n", argv[1]);
    return 1;
  }
  std::map<uint8_t, std::vector<bytes>> broken_payloads;  // per mechanism id of the block
  for (const golden& g : goldens) {
    bytes seed{static_cast<unsigned char>(g.params.size()), static_cast<unsigned char>(g.params.size() >> 8)};
    append(seed, g.params);
    append(seed, g.report);
    write(out / "report" / (g.name + ".bin"), seed);
    if (g.report.size() > ldp::wire::report_header_size && g.params.size() > 1) {
      broken_payloads[g.params[1]].emplace_back(g.report.begin() + ldp::wire::report_header_size, g.report.end());
    }
  }

  const bytes terminator = chunk({});
  for (ldp::wire::mechanism m : ldp::test::all_mechanisms()) {
    const auto p = ldp::test::example_params(m);
    std::string name = ldp::wire::mechanism_name(m);
    const bytes first = chunk({payload(p, 0), payload(p, 1), payload(p, 2)});
    const bytes second = chunk({payload(p, 3), payload(p, 4), payload(p, 5)});
    bytes valid = header(p);
    const std::size_t header_size = valid.size();
    append(valid, first);
    append(valid, second);
    append(valid, terminator);
    write(out / "batch" / (name + "_valid.bin"), valid);

    bytes flipped = valid;  // a body byte of the first chunk: checksum_mismatch, then chunk two
    flipped[header_size + ldp::wire::chunk_header_size + 1] ^= 0x40;
    write(out / "batch" / (name + "_chunk_crc.bin"), flipped);

    bytes unterminated(valid.begin(), valid.end() - static_cast<std::ptrdiff_t>(terminator.size()));
    write(out / "batch" / (name + "_unterminated.bin"), unterminated);

    bytes trailing = valid;
    trailing.push_back(0);
    write(out / "batch" / (name + "_trailing_byte.bin"), trailing);

    bytes bad_header = valid;  // the header's CRC no longer matches
    bad_header[header_size - 5] ^= 0x01;
    write(out / "batch" / (name + "_header_crc.bin"), bad_header);

    // A correct CRC over a chunk that claims four records and holds three.
    bytes overcount = first;
    overcount[0] = 4;
    const uint32_t crc = ldp::wire::crc32c(
        ldp::span<const unsigned char>(overcount.data(), overcount.size() - ldp::wire::chunk_trailer_size));
    for (int i = 0; i < 4; ++i) {
      overcount[overcount.size() - 4 + static_cast<std::size_t>(i)] = static_cast<unsigned char>(crc >> (8 * i));
    }
    bytes miscounted = header(p);
    append(miscounted, overcount);
    append(miscounted, terminator);
    write(out / "batch" / (name + "_record_count.bin"), miscounted);

    // Well-framed records holding the payload of every golden file of the mechanism, most of which
    // the decoder rejects.
    const auto broken = broken_payloads.find(static_cast<uint8_t>(m));
    if (broken != broken_payloads.end()) {
      bytes rejected = header(p);
      append(rejected, chunk(broken->second));
      append(rejected, terminator);
      write(out / "batch" / (name + "_bad_records.bin"), rejected);
    }
  }
  write_state_seeds(out / "state", goldens);
  write_ledger_seeds(out / "ledger");
  write_model_seeds(fs::path(argv[1]) / "model", out / "model");
  return 0;
}
