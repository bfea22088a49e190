#include "ldp/device/ledger.h"

#include <cstring>

#include "ldp/base/bits.h"
#include "ldp/wire/checksum.h"
#include "ldp/wire/epsilon.h"

namespace ldp::device {

namespace {

constexpr double unit_scale = static_cast<double>(uint64_t{1} << ledger_unit_bits);

// Header fields (docs/ledger.md "Record layout"): the CRC covers bytes [0, 28) and the entries.
constexpr std::size_t version_at = 4;
constexpr std::size_t reserved_at = 5;
constexpr std::size_t count_at = 6;
constexpr std::size_t counter_at = 8;
constexpr std::size_t latest_at = 16;
constexpr std::size_t reserved_word_at = 24;
constexpr std::size_t crc_at = 28;

bool all_equal(const unsigned char* bytes, std::size_t n, unsigned char value) noexcept {
  for (std::size_t i = 0; i < n; ++i) {
    if (bytes[i] != value) return false;
  }
  return true;
}

// A slot whose header reads erased: erased if every byte does, else invalid.
status examine_erased(const ledger_storage& s, uint32_t slot, ledger_slot_info* out) noexcept {
  unsigned char chunk[ledger_entry_size];
  for (uint32_t at = ledger_header_size; at < s.slot_size; at += static_cast<uint32_t>(sizeof chunk)) {
    const uint32_t n = s.slot_size - at < sizeof chunk ? s.slot_size - at : static_cast<uint32_t>(sizeof chunk);
    const status st = s.read(s.context, slot, at, chunk, n);
    if (st != status::ok) return st;
    if (!all_equal(chunk, n, s.erased_byte)) {
      out->reason = status::malformed_report;
      return status::ok;
    }
  }
  out->state = ledger_slot_state::erased;
  return status::ok;
}

status memory_read(void* context, uint32_t slot, uint32_t offset, unsigned char* out, uint32_t size) {
  const auto* m = static_cast<const ledger_memory*>(context);
  if (slot > 1 || offset > m->slot_size || size > m->slot_size - offset) return status::invalid_argument;
  std::memcpy(out, m->bytes + std::size_t{slot} * m->slot_size + offset, size);
  return status::ok;
}

status memory_write(void*, uint32_t, uint32_t, const unsigned char*, uint32_t) { return status::invalid_argument; }

status memory_erase(void*, uint32_t) { return status::invalid_argument; }

void encode_entry(const ledger_entry& e, unsigned char* out) noexcept {
  store_le32(out, e.use_case);
  store_le32(out + 4, e.window_seconds);
  store_le64(out + 8, e.window);
  store_le64(out + 16, e.spent);
  store_le64(out + 24, e.budget);
}

}  // namespace

uint64_t ledger_units_up(double epsilon) noexcept {
  if (!(epsilon > 0 && epsilon <= ledger_budget_max)) return 0;
  const double x = epsilon * unit_scale;  // exact: a power of two, far from overflow
  auto units = static_cast<uint64_t>(x);
  if (static_cast<double>(units) < x) ++units;
  return units;
}

uint64_t ledger_units_down(double epsilon) noexcept {
  if (!(epsilon > 0 && epsilon <= ledger_budget_max)) return 0;
  return static_cast<uint64_t>(epsilon * unit_scale);
}

double ledger_epsilon(uint64_t units) noexcept { return static_cast<double>(units) / unit_scale; }

ledger_storage ledger_memory_storage(const ledger_memory* memory) noexcept {
  ledger_storage s;
  s.read = memory_read;
  s.write = memory_write;
  s.erase = memory_erase;
  s.context = const_cast<ledger_memory*>(memory);  // read() only reads through it
  s.slot_size = memory->slot_size;
  s.erased_byte = memory->erased_byte;
  return s;
}

ledger_entry decode_ledger_entry(const unsigned char bytes[ledger_entry_size]) noexcept {
  ledger_entry e;
  e.use_case = load_le32(bytes);
  e.window_seconds = load_le32(bytes + 4);
  e.window = load_le64(bytes + 8);
  e.spent = load_le64(bytes + 16);
  e.budget = load_le64(bytes + 24);
  return e;
}

status examine_ledger_slot(const ledger_storage& s, uint32_t slot, ledger_slot_info* out) noexcept {
  *out = ledger_slot_info{};
  unsigned char header[ledger_header_size];
  status st = s.read(s.context, slot, 0, header, sizeof header);
  if (st != status::ok) return st;
  if (all_equal(header, sizeof header, s.erased_byte)) return examine_erased(s, slot, out);
  const uint32_t count = header[count_at] | uint32_t{header[count_at + 1]} << 8;
  if (std::memcmp(header, ledger_magic, sizeof ledger_magic) != 0) {
    out->reason = status::malformed_report;
  } else if (header[version_at] != ledger_version) {
    out->reason = status::unsupported_version;
  } else if (header[reserved_at] != 0 || load_le32(header + reserved_word_at) != 0) {
    out->reason = status::reserved_bits_set;
  } else if (ledger_record_size(count) > s.slot_size) {
    out->reason = status::wrong_length;
  }
  if (out->reason != status::ok) return status::ok;
  // The entries stream through a small buffer: a record larger than any workspace is still judged.
  uint32_t crc = wire::crc32c({header, crc_at});
  bool well_formed = true;  // use cases strictly ascending, window lengths not zero
  uint32_t previous = 0;
  unsigned char bytes[ledger_entry_size];
  for (uint32_t i = 0; i < count; ++i) {
    st = s.read(s.context, slot, static_cast<uint32_t>(ledger_record_size(i)), bytes, sizeof bytes);
    if (st != status::ok) return st;
    crc = wire::crc32c({bytes, sizeof bytes}, crc);
    const ledger_entry e = decode_ledger_entry(bytes);
    if (e.window_seconds == 0 || (i > 0 && e.use_case <= previous)) well_formed = false;
    previous = e.use_case;
  }
  if (crc != load_le32(header + crc_at)) {
    out->reason = status::checksum_mismatch;
  } else if (!well_formed) {
    out->reason = status::malformed_report;
  } else {
    out->state = ledger_slot_state::valid;
    out->counter = load_le64(header + counter_at);
    out->latest = load_le64(header + latest_at);
    out->use_cases = count;
  }
  return status::ok;
}

int current_ledger_slot(const ledger_slot_info (&slots)[2]) noexcept {
  const bool valid0 = slots[0].state == ledger_slot_state::valid;
  const bool valid1 = slots[1].state == ledger_slot_state::valid;
  if (valid0 && valid1) return slots[1].counter > slots[0].counter ? 1 : 0;
  if (valid0) return 0;
  return valid1 ? 1 : -1;
}

status ledger::open(const ledger_storage& storage, span<std::byte> workspace, ledger* out) noexcept {
  ledger& l = *out;
  l.image_ = nullptr;
  l.count_ = 0;
  l.counter_ = 0;
  l.latest_ = 0;
  l.current_ = 0;
  l.capacity_ = 0;
  l.state_ = status::invalid_argument;
  if (storage.read == nullptr || storage.write == nullptr || storage.erase == nullptr ||
      storage.slot_size < ledger_record_size(1)) {
    return l.state_;
  }
  const std::size_t slot_capacity = ledger_capacity(storage.slot_size);
  const std::size_t workspace_capacity = ledger_capacity(workspace.size());
  l.capacity_ = slot_capacity < workspace_capacity ? slot_capacity : workspace_capacity;
  if (l.capacity_ == 0) return l.state_ = status::workspace_too_small;
  l.storage_ = storage;
  l.image_ = reinterpret_cast<unsigned char*>(workspace.data());
  ledger_slot_info slots[2];
  for (uint32_t s = 0; s < 2; ++s) {
    const status st = examine_ledger_slot(storage, s, &slots[s]);
    if (st != status::ok) return l.state_ = st;
  }
  const int current = current_ledger_slot(slots);
  if (current < 0) {
    // Only a charge that never completed leaves an erased slot beside an invalid one (docs/ledger.md
    // "Loading"); two slots that are neither valid nor erased fail closed.
    const bool erased = slots[0].state == ledger_slot_state::erased || slots[1].state == ledger_slot_state::erased;
    return l.state_ = erased ? status::ok : status::checksum_mismatch;
  }
  const ledger_slot_info& chosen = slots[current];
  if (chosen.use_cases > l.capacity_) return l.state_ = status::limit_exceeded;
  const std::size_t size = ledger_record_size(chosen.use_cases);
  const status st =
      storage.read(storage.context, static_cast<uint32_t>(current), 0, l.image_, static_cast<uint32_t>(size));
  if (st != status::ok) return l.state_ = st;
  // The copy in memory is checked again, so the state is a valid record even if the storage
  // answered differently the second time.
  const ledger_memory copy{l.image_, static_cast<uint32_t>(size), storage.erased_byte};
  ledger_slot_info again;
  if (examine_ledger_slot(ledger_memory_storage(&copy), 0, &again) != status::ok ||
      again.state != ledger_slot_state::valid || again.counter != chosen.counter) {
    return l.state_ = status::checksum_mismatch;
  }
  l.count_ = again.use_cases;
  l.counter_ = again.counter;
  l.latest_ = again.latest;
  l.current_ = static_cast<uint32_t>(current);
  return l.state_ = status::ok;
}

ledger_entry ledger::entry(std::size_t i) const noexcept { return decode_ledger_entry(image_ + ledger_record_size(i)); }

void ledger::store_entry(std::size_t i, const ledger_entry& e) noexcept {
  encode_entry(e, image_ + ledger_record_size(i));
}

std::size_t ledger::find(uint32_t use_case, bool* found) const noexcept {
  std::size_t lo = 0;
  std::size_t hi = count_;
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (entry(mid).use_case < use_case) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  *found = lo < count_ && entry(lo).use_case == use_case;
  return lo;
}

ledger_entry ledger::at_time(std::size_t i, uint64_t now, uint64_t* time) const noexcept {
  // docs/ledger.md "Windows": time never runs backwards on the ledger, and a window only advances.
  *time = now > latest_ ? now : latest_;
  ledger_entry e = entry(i);
  const uint64_t window = *time / e.window_seconds;
  if (window > e.window) {
    e.window = window;
    e.spent = 0;
  }
  return e;
}

status ledger::configure(uint32_t use_case, double budget, uint32_t window_seconds) noexcept {
  if (state_ != status::ok) return state_;
  const uint64_t units = ledger_units_down(budget);
  if (units == 0 || window_seconds == 0) return status::invalid_argument;
  bool found = false;
  const std::size_t i = find(use_case, &found);
  if (found) {
    ledger_entry e = entry(i);
    if (e.window_seconds != window_seconds) return status::invalid_argument;
    if (e.budget == units) return status::ok;
    e.budget = units;
    store_entry(i, e);
    return persist();
  }
  if (count_ == capacity_) return status::limit_exceeded;
  unsigned char* at = image_ + ledger_record_size(i);
  std::memmove(at + ledger_entry_size, at, (count_ - i) * ledger_entry_size);
  ++count_;
  ledger_entry e;
  e.use_case = use_case;
  e.window_seconds = window_seconds;
  e.budget = units;
  store_entry(i, e);
  return persist();
}

status ledger::charge(uint32_t use_case, double epsilon, uint64_t now) noexcept {
  if (state_ != status::ok) return state_;
  if (!wire::valid_epsilon(epsilon)) return status::invalid_argument;
  const uint64_t units = ledger_units_up(epsilon);
  bool found = false;
  const std::size_t i = find(use_case, &found);
  if (!found) return status::invalid_argument;
  uint64_t time = 0;
  ledger_entry e = at_time(i, now, &time);
  if (e.spent > e.budget || units > e.budget - e.spent) return status::budget_exhausted;
  // Counted in memory first: if the write fails, the spend stays counted (never under-count).
  e.spent += units;
  store_entry(i, e);
  latest_ = time;
  return persist();
}

status ledger::remaining(uint32_t use_case, uint64_t now, uint64_t* units) const noexcept {
  if (units == nullptr) return status::invalid_argument;
  *units = 0;
  if (state_ != status::ok) return state_;
  bool found = false;
  const std::size_t i = find(use_case, &found);
  if (!found) return status::invalid_argument;
  uint64_t time = 0;
  const ledger_entry e = at_time(i, now, &time);
  *units = e.spent < e.budget ? e.budget - e.spent : 0;
  return status::ok;
}

status ledger::persist() noexcept {
  uint64_t next = 0;
  if (!checked_add(counter_, 1, &next)) return status::overflow;
  counter_ = next;  // never reused, even when this write fails: one counter, one content
  std::memcpy(image_, ledger_magic, sizeof ledger_magic);
  image_[version_at] = ledger_version;
  image_[reserved_at] = 0;
  image_[count_at] = static_cast<unsigned char>(count_);
  image_[count_at + 1] = static_cast<unsigned char>(count_ >> 8);
  store_le64(image_ + counter_at, counter_);
  store_le64(image_ + latest_at, latest_);
  store_le32(image_ + reserved_word_at, 0);
  const std::size_t size = ledger_record_size(count_);
  uint32_t crc = wire::crc32c({image_, crc_at});
  crc = wire::crc32c({image_ + ledger_header_size, size - ledger_header_size}, crc);
  store_le32(image_ + crc_at, crc);
  // docs/ledger.md "Write protocol": the slot not holding the current record first, then the other;
  // at every instant one slot holds a valid record at least as new as every released report.
  const uint32_t order[2] = {1 - current_, current_};
  for (const uint32_t slot : order) {
    const status st = write_slot(slot, size);
    if (st != status::ok) return st;
    current_ = slot;
  }
  return status::ok;
}

status ledger::write_slot(uint32_t slot, std::size_t size) noexcept {
  status st = storage_.erase(storage_.context, slot);
  if (st != status::ok) return st;
  st = storage_.write(storage_.context, slot, 0, image_, static_cast<uint32_t>(size));
  if (st != status::ok) return st;
  // Durable means read back equal: a write the storage acknowledged but did not keep is caught here.
  unsigned char chunk[ledger_entry_size];
  for (std::size_t at = 0; at < size; at += sizeof chunk) {
    st = storage_.read(storage_.context, slot, static_cast<uint32_t>(at), chunk, sizeof chunk);
    if (st != status::ok) return st;
    if (std::memcmp(chunk, image_ + at, sizeof chunk) != 0) return status::checksum_mismatch;
  }
  return status::ok;
}

}  // namespace ldp::device
