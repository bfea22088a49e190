// Batches and saved-state headers: round trips, and corruption confined to what it touches.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ldp/wire.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::mechanism;

namespace {

struct built_batch {
  std::vector<unsigned char> bytes;
  std::vector<std::size_t> chunk_offsets;  // where each chunk starts
  std::vector<std::string> described;      // every record, in order
};

// `chunks` chunks of `per_chunk` records each, then the terminator.
built_batch build(const ldp::wire::params& p, int chunks, int per_chunk) {
  built_batch b;
  b.bytes.resize(1024);
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_batch_header(p, b.bytes, &size) == status::ok);
  b.bytes.resize(size);
  unsigned variant = 0;
  for (int c = 0; c <= chunks; ++c) {
    std::vector<unsigned char> buffer(4096);
    ldp::wire::chunk_writer w(buffer);
    for (int i = 0; c < chunks && i < per_chunk; ++i, ++variant) {
      const auto e = ldp::test::make_report(p, variant);
      std::vector<unsigned char> payload(ldp::wire::max_payload_size(p));
      std::size_t n = 0;
      REQUIRE(ldp::wire::encode_payload(p, e.fields, payload, &n) == status::ok);
      REQUIRE(w.add(ldp::span<const unsigned char>(payload.data(), n)) == status::ok);
      ldp::wire::report r;
      REQUIRE(ldp::wire::decode_payload(p, ldp::span<const unsigned char>(payload.data(), n), &r) == status::ok);
      b.described.push_back(ldp::test::describe(p, r));
    }
    const auto chunk = w.finish();
    b.chunk_offsets.push_back(b.bytes.size());
    b.bytes.insert(b.bytes.end(), chunk.begin(), chunk.end());
  }
  return b;
}

struct read_result {
  status open = status::ok;
  std::vector<std::string> records;
  std::vector<status> chunk_statuses;
  bool done = false;
};

read_result read_all(const std::vector<unsigned char>& bytes) {
  read_result out;
  ldp::wire::batch_reader reader;
  out.open = reader.open(bytes);
  if (out.open != status::ok) return out;
  while (!reader.done()) {
    ldp::wire::chunk_view chunk;
    const status s = reader.next_chunk(&chunk);
    out.chunk_statuses.push_back(s);
    if (s != status::ok) continue;
    ldp::wire::record_cursor cursor(chunk);
    for (;;) {
      ldp::span<const unsigned char> payload;
      if (cursor.next(&payload) != status::ok || payload.empty()) break;
      ldp::wire::report r;
      if (ldp::wire::decode_payload(reader.parameters(), payload, &r) == status::ok) {
        out.records.push_back(ldp::test::describe(reader.parameters(), r));
      }
    }
  }
  out.done = true;
  return out;
}

}  // namespace

TEST_CASE("a batch of every mechanism reads back record for record") {
  for (mechanism m : ldp::test::all_mechanisms()) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const auto p = ldp::test::example_params(m);
    const auto b = build(p, 3, 4);
    const auto got = read_all(b.bytes);
    REQUIRE(got.open == status::ok);
    CHECK(got.records == b.described);
    CHECK(got.chunk_statuses == std::vector<status>(4, status::ok));
  }
}

TEST_CASE("a corrupted chunk is reported and the other chunks still count") {
  const auto p = ldp::test::example_params(mechanism::oue);
  const auto b = build(p, 3, 5);
  auto bad = b.bytes;
  bad[b.chunk_offsets[1] + 12] ^= 0x01;  // a byte inside chunk 1's first record
  const auto got = read_all(bad);
  REQUIRE(got.open == status::ok);
  CHECK(got.chunk_statuses ==
        std::vector<status>{status::ok, status::checksum_mismatch, status::ok, status::ok});
  std::vector<std::string> expected(b.described.begin(), b.described.begin() + 5);
  expected.insert(expected.end(), b.described.begin() + 10, b.described.end());
  CHECK(got.records == expected);
}

TEST_CASE("batch header and framing defects") {
  const auto p = ldp::test::example_params(mechanism::grr);
  const auto b = build(p, 2, 3);
  const auto open_status = [](std::vector<unsigned char> bytes) {
    ldp::wire::batch_reader r;
    return r.open(bytes);
  };
  auto magic = b.bytes;
  magic[0] = 'X';
  CHECK(open_status(magic) == status::malformed_report);
  auto version = b.bytes;
  version[4] = 2;
  CHECK(open_status(version) == status::unsupported_version);
  auto flags = b.bytes;
  flags[5] = 1;
  CHECK(open_status(flags) == status::reserved_bits_set);
  auto header_crc = b.bytes;
  header_crc[b.chunk_offsets[0] - 1] ^= 0x80;
  CHECK(open_status(header_crc) == status::checksum_mismatch);
  CHECK(open_status(std::vector<unsigned char>(b.bytes.begin(), b.bytes.begin() + 7)) == status::wrong_length);

  // Truncation: the terminator is missing, or a chunk is cut.
  const auto cut = read_all(std::vector<unsigned char>(b.bytes.begin(), b.bytes.begin() + b.chunk_offsets[2]));
  CHECK(cut.chunk_statuses.back() == status::wrong_length);
  CHECK(cut.records.size() == 6);  // both data chunks still count
  const auto cut_mid = read_all(std::vector<unsigned char>(b.bytes.begin(), b.bytes.end() - 2));
  CHECK(cut_mid.chunk_statuses.back() == status::wrong_length);
  auto trailing = b.bytes;
  trailing.push_back(0);
  CHECK(read_all(trailing).chunk_statuses.back() == status::wrong_length);
  // A body length past the limit cannot be skipped: reading stops.
  auto huge = b.bytes;
  huge[b.chunk_offsets[0] + 7] = 0x7f;
  const auto big = read_all(huge);
  CHECK(big.chunk_statuses == std::vector<status>{status::malformed_report});
}

TEST_CASE("record framing inside a chunk") {
  std::vector<unsigned char> buffer(64);
  ldp::wire::chunk_writer w(buffer);
  const unsigned char one[1] = {7};
  CHECK(w.add(ldp::span<const unsigned char>()) == status::invalid_argument);
  REQUIRE(w.add(one) == status::ok);
  std::vector<unsigned char> big(60, 1);
  CHECK(w.add(big) == status::buffer_too_small);
  const auto chunk = w.finish();
  CHECK(chunk.size() == 8 + 2 + 4);
  // A chunk claiming two records but holding one: the cursor reports the broken framing.
  ldp::wire::chunk_view view;
  view.records = 2;
  const unsigned char body[2] = {1, 7};
  view.body = body;
  ldp::wire::record_cursor cursor(view);
  ldp::span<const unsigned char> payload;
  CHECK(cursor.next(&payload) == status::ok);
  CHECK(payload.size() == 1);
  CHECK(cursor.next(&payload) == status::malformed_report);
  const unsigned char zero_length[1] = {0};
  view.body = zero_length;
  ldp::wire::record_cursor zero(view);
  CHECK(zero.next(&payload) == status::malformed_report);
}

TEST_CASE("aggregator state header: round trip and each defect") {
  const auto p = ldp::test::example_params(mechanism::hr);
  const uint64_t fp = ldp::wire::fingerprint(p);
  const std::vector<unsigned char> body = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  std::vector<unsigned char> file(ldp::wire::state_header_size);
  REQUIRE(ldp::wire::encode_state_header(mechanism::hr, fp, body, file) == status::ok);
  file.insert(file.end(), body.begin(), body.end());
  const auto decode = [](const std::vector<unsigned char>& bytes) {
    ldp::wire::state_header h;
    ldp::span<const unsigned char> b;
    return ldp::wire::decode_state(bytes, &h, &b);
  };
  ldp::wire::state_header h;
  ldp::span<const unsigned char> got;
  REQUIRE(ldp::wire::decode_state(file, &h, &got) == status::ok);
  CHECK(h.mech == mechanism::hr);
  CHECK(h.fingerprint == fp);
  CHECK(std::vector<unsigned char>(got.begin(), got.end()) == body);

  auto magic = file;
  magic[3] = 'X';
  CHECK(decode(magic) == status::malformed_report);
  auto version = file;
  version[4] = 7;
  CHECK(decode(version) == status::unsupported_version);
  auto reserved = file;
  reserved[6] = 1;
  CHECK(decode(reserved) == status::reserved_bits_set);
  auto header = file;
  header[10] ^= 1;  // inside the fingerprint
  CHECK(decode(header) == status::checksum_mismatch);
  auto body_bit = file;
  body_bit.back() ^= 1;
  CHECK(decode(body_bit) == status::checksum_mismatch);
  CHECK(decode(std::vector<unsigned char>(file.begin(), file.end() - 1)) == status::wrong_length);
  CHECK(decode(std::vector<unsigned char>(file.begin(), file.begin() + 31)) == status::wrong_length);
  std::vector<unsigned char> out(32);
  CHECK(ldp::wire::encode_state_header(mechanism::none, fp, body, out) == status::unknown_mechanism);
}
