// Batches and saved-state headers: round trips, and corruption confined to what it touches.
#include <doctest/doctest.h>

#include <algorithm>
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

// What a reading yields, in a form both readers produce: every chunk that was read (its status,
// ok or checksum_mismatch, its records and body), the terminator left out, then the status that
// ended the reading (ok after a terminator and nothing more).
struct trace {
  std::vector<std::string> chunks;
  status final = status::ok;
  bool operator==(const trace& o) const { return chunks == o.chunks && final == o.final; }
};

std::string chunk_text(status s, const ldp::wire::chunk_view& c) {
  return std::string(ldp::status_name(s)) + " " + std::to_string(c.records) + " " +
         ldp::test::to_hex(c.body.data(), c.body.size());
}

trace in_memory(const std::vector<unsigned char>& bytes) {
  trace t;
  ldp::wire::batch_reader reader;
  t.final = reader.open(bytes);
  while (t.final == status::ok && !reader.done()) {
    ldp::wire::chunk_view chunk;
    const status s = reader.next_chunk(&chunk);
    const bool read = s == status::checksum_mismatch || (s == status::ok && chunk.records != 0);
    if (read) t.chunks.push_back(chunk_text(s, chunk));
    if (!read) t.final = s;
  }
  return t;
}

// Feeds `bytes` in pieces of `piece` bytes (0: all at once), then ends the input.
trace streamed(const std::vector<unsigned char>& bytes, std::size_t piece,
               std::size_t buffer_size = ldp::wire::batch_stream_buffer_size) {
  trace t;
  std::vector<unsigned char> buffer(buffer_size);
  ldp::wire::batch_stream_reader reader(buffer);
  ldp::span<const unsigned char> rest(bytes);
  const auto record = [&](const ldp::wire::batch_step& step) {
    const bool chunk = step.event == ldp::wire::batch_event::chunk;
    const bool read = chunk && (step.result == status::checksum_mismatch ||
                                (step.result == status::ok && reader.chunk().records != 0));
    if (read) {
      t.chunks.push_back(chunk_text(step.result, reader.chunk()));
      CHECK(reader.chunk_bytes().size() == reader.chunk().size);
    } else if (step.event != ldp::wire::batch_event::none && (step.result != status::ok || !chunk)) {
      t.final = step.result;
    }
  };
  while (!reader.ended() && !rest.empty()) {
    const std::size_t wanted = reader.wanted();
    const ldp::wire::batch_step step = reader.feed(rest.first(piece == 0 || piece > rest.size() ? rest.size() : piece));
    REQUIRE(step.used <= wanted);
    rest = rest.subspan(step.used);
    record(step);
  }
  if (!reader.ended()) record(reader.finish());
  CHECK(reader.ended());
  CHECK(reader.wanted() == 0);
  return t;
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
  CHECK(got.chunk_statuses == std::vector<status>{status::ok, status::checksum_mismatch, status::ok, status::ok});
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
  CHECK(cursor.unreadable() == 1);  // the missing second record
  const unsigned char zero_length[1] = {0};
  view.body = zero_length;
  ldp::wire::record_cursor zero(view);
  CHECK(zero.next(&payload) == status::malformed_report);
  CHECK(zero.unreadable() == 1);  // both claimed, one byte left: at most one record was there
  // A count forged under a valid CRC: no more records are lost than the body has bytes.
  view.records = 0x80000000u;
  const unsigned char broken[3] = {9, 1, 2};
  view.body = broken;
  ldp::wire::record_cursor forged(view);
  CHECK(forged.next(&payload) == status::malformed_report);
  CHECK(forged.unreadable() == 3);
}

namespace {

uint32_t portable_crc(uint32_t crc, const unsigned char* bytes, std::size_t size) {
  // wire::crc32c's running value: continuing from `crc` over `bytes`.
  return ldp::wire::crc32c(ldp::span<const unsigned char>(bytes, size), crc);
}

uint32_t fixed_crc(uint32_t, const unsigned char*, std::size_t) { return 0x01234567u; }

// One chunk of three records written with `crc` (null: the writer's own).
std::vector<unsigned char> chunk_with(ldp::wire::crc32c_fn crc) {
  std::vector<unsigned char> buffer(64);
  ldp::wire::chunk_writer w(buffer, crc);
  const unsigned char records[3][2] = {{1, 2}, {3, 4}, {5, 6}};
  for (const auto& r : records) REQUIRE(w.add(r) == status::ok);
  const auto chunk = w.finish();
  return {chunk.begin(), chunk.end()};
}

}  // namespace

TEST_CASE("chunk_writer: the caller's CRC32C writes the trailer") {
  const auto own = chunk_with(nullptr);
  CHECK(chunk_with(portable_crc) == own);
  const auto fixed = chunk_with(fixed_crc);
  REQUIRE(fixed.size() == own.size());
  CHECK(std::vector<unsigned char>(fixed.end() - 4, fixed.end()) == std::vector<unsigned char>{0x67, 0x45, 0x23, 0x01});
  CHECK(std::equal(own.begin(), own.end() - 4, fixed.begin()));
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

TEST_CASE("the stream reader reads what batch_reader reads, however the bytes arrive") {
  for (mechanism m : ldp::test::all_mechanisms()) {
    const std::string oracle_name = ldp::wire::mechanism_name(m);
    CAPTURE(oracle_name);
    const auto b = build(ldp::test::example_params(m), 3, 4);
    const trace expected = in_memory(b.bytes);
    REQUIRE(expected.final == status::ok);
    REQUIRE(expected.chunks.size() == 3);
    CHECK(streamed(b.bytes, 0) == expected);
    CHECK(streamed(b.bytes, 1) == expected);  // byte by byte
    CHECK(streamed(b.bytes, 7) == expected);
  }
}

TEST_CASE("the stream reader: truncation at every offset and damage at every byte give batch_reader's status") {
  const auto p = ldp::test::example_params(mechanism::grr);
  const auto b = build(p, 2, 3);
  for (std::size_t n = 0; n < b.bytes.size(); ++n) {
    CAPTURE(n);
    const std::vector<unsigned char> cut(b.bytes.begin(), b.bytes.begin() + static_cast<std::ptrdiff_t>(n));
    const trace expected = in_memory(cut);
    CHECK(expected.final == status::wrong_length);
    CHECK(streamed(cut, 0) == expected);
    CHECK(streamed(cut, 1) == expected);
  }
  const trace clean = in_memory(b.bytes);
  for (std::size_t i = 0; i < b.bytes.size(); ++i) {
    CAPTURE(i);
    auto damaged = b.bytes;
    damaged[i] ^= 0x21;
    const trace expected = in_memory(damaged);
    CHECK(!(expected == clean));  // every byte is covered by a CRC or a framing rule
    CHECK(streamed(damaged, 0) == expected);
    CHECK(streamed(damaged, 1) == expected);
  }
  auto trailing = b.bytes;
  trailing.push_back(0);
  CHECK(streamed(trailing, 1) == in_memory(trailing));
  CHECK(streamed(trailing, 1).final == status::wrong_length);
}

TEST_CASE("the stream reader: events, header bytes, and a buffer too small") {
  const auto p = ldp::test::example_params(mechanism::oue);
  const auto b = build(p, 2, 3);
  std::vector<unsigned char> buffer(ldp::wire::batch_stream_buffer_size);
  ldp::wire::batch_stream_reader reader(buffer);
  CHECK(reader.wanted() == ldp::wire::batch_prefix_size);
  ldp::span<const unsigned char> rest(b.bytes);
  ldp::wire::batch_step step = reader.feed(rest);
  CHECK(step.event == ldp::wire::batch_event::none);  // the prefix tells the header's size
  CHECK(reader.wanted() == b.chunk_offsets[0] - ldp::wire::batch_prefix_size);
  rest = rest.subspan(step.used);
  step = reader.feed(rest);
  CHECK(step.event == ldp::wire::batch_event::header);
  CHECK(step.result == status::ok);
  CHECK(reader.fingerprint() == ldp::wire::fingerprint(p));
  CHECK(ldp::wire::fingerprint(reader.parameters()) == ldp::wire::fingerprint(p));
  CHECK(std::vector<unsigned char>(reader.header().begin(), reader.header().end()) ==
        std::vector<unsigned char>(b.bytes.begin(), b.bytes.begin() + static_cast<std::ptrdiff_t>(b.chunk_offsets[0])));
  CHECK(reader.wanted() == ldp::wire::chunk_header_size);

  // Room for the header but not for the first chunk: buffer_too_small ends the reading.
  const std::size_t first_chunk = b.chunk_offsets[1] - b.chunk_offsets[0];
  trace small = streamed(b.bytes, 0, b.chunk_offsets[0] + first_chunk - 1);
  CHECK(small.chunks.empty());
  CHECK(small.final == status::buffer_too_small);
  CHECK(streamed(b.bytes, 0, b.chunk_offsets[0] + first_chunk) == in_memory(b.bytes));
  CHECK(streamed(b.bytes, 0, 4).final == status::buffer_too_small);
}

TEST_CASE("peek_header tells batch, state and report apart, from the header alone") {
  const auto p = ldp::test::example_params(mechanism::olh);
  const uint64_t fp = ldp::wire::fingerprint(p);
  const auto b = build(p, 1, 2);
  ldp::wire::header_info info;
  REQUIRE(ldp::wire::peek_header(b.bytes, &info) == status::ok);
  CHECK(info.kind == ldp::wire::file_kind::batch);
  CHECK(info.version == ldp::wire::batch_version);
  CHECK(info.mech == mechanism::olh);
  CHECK(info.fingerprint == fp);
  CHECK(info.header_size == b.chunk_offsets[0]);
  CHECK(info.body_size == info.header_size - ldp::wire::batch_header_size(0));
  // The first peek_size bytes give the kind and the header size; the rest of the header the fields.
  const std::vector<unsigned char> start(b.bytes.begin(), b.bytes.begin() + ldp::wire::peek_size);
  CHECK(ldp::wire::peek_header(start, &info) == status::wrong_length);
  CHECK(info.kind == ldp::wire::file_kind::batch);
  CHECK(info.header_size == b.chunk_offsets[0]);
  for (std::size_t n = 0; n < b.chunk_offsets[0]; ++n) {
    CAPTURE(n);
    const std::vector<unsigned char> cut(b.bytes.begin(), b.bytes.begin() + static_cast<std::ptrdiff_t>(n));
    CHECK(ldp::wire::peek_header(cut, &info) == (n < 4 ? status::malformed_report : status::wrong_length));
  }
  auto flags = b.bytes;
  flags[5] = 1;
  CHECK(ldp::wire::peek_header(flags, &info) == status::reserved_bits_set);

  const std::vector<unsigned char> body = {1, 2, 3};
  std::vector<unsigned char> state(ldp::wire::state_header_size);
  REQUIRE(ldp::wire::encode_state_header(mechanism::olh, fp, body, state) == status::ok);
  REQUIRE(ldp::wire::peek_header(state, &info) == status::ok);  // the body need not follow
  CHECK(info.kind == ldp::wire::file_kind::state);
  CHECK(info.mech == mechanism::olh);
  CHECK(info.fingerprint == fp);
  CHECK(info.header_size == ldp::wire::state_header_size);
  CHECK(info.body_size == body.size());
  state[20] ^= 1;
  CHECK(ldp::wire::peek_header(state, &info) == status::checksum_mismatch);

  const auto e = ldp::test::make_report(p, 1);
  std::vector<unsigned char> report(ldp::wire::max_report_size(p));
  std::size_t n = 0;
  REQUIRE(ldp::wire::encode_report(p, fp, e.fields, report, &n) == status::ok);
  REQUIRE(ldp::wire::peek_header(report, &info) == status::ok);
  CHECK(info.kind == ldp::wire::file_kind::report);
  CHECK(info.mech == mechanism::olh);
  CHECK(info.fingerprint == fp);
  CHECK(info.header_size == ldp::wire::report_header_size);
  report[1] = 200;
  CHECK(ldp::wire::peek_header(report, &info) == status::unknown_mechanism);
  CHECK(info.kind == ldp::wire::file_kind::report);
  report[0] = 2;
  CHECK(ldp::wire::peek_header(report, &info) == status::malformed_report);
  CHECK(info.kind == ldp::wire::file_kind::unknown);
}
