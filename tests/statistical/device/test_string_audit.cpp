// Monte-Carlo privacy audit of the string path (docs/mechanisms.md F.1, D.2 (b), Table D.2): pem,
// treehist and sfp through string_context::fields on the real DRBG, for two strings that differ in
// their first byte (so every group derives different items). The event is Table D.2's event of the
// inner oracle (OLH, HCMS, CMS) for the items v_g and w_g that the report's group g derives from the
// two strings; within every group its likelihood ratio is e^{epsilon_impl}, so it is over the whole
// report too. check_audit_event: the Clopper-Pearson lower bound of the empirical epsilon must not
// exceed epsilon_impl, the point estimate must reach 0.9 epsilon_impl. Each proportion is two-sided
// at 1e-7, so a correct build fails a member with probability below 4e-7 and the suite below 1.2e-6;
// at 100,000 reports per string the 0.9 check sits more than 10 standard errors below the truth.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>

#include "audit.h"
#include "device_context.h"
#include "ldp/device.h"
#include "ldp/wire.h"
#include "tables.h"

using ldp::wire::field;
using ldp::wire::mechanism;

namespace {

constexpr double alpha = 1e-7;
constexpr uint64_t runs = 100000;
const unsigned char sketch_seed[32] = {4, 4, 4};

bool bit(const ldp::wire::report& r, uint32_t j) { return ((r.bits[j / 8] >> (j % 8)) & 1) != 0; }

// Table D.2's event of the inner oracle of block p for the items v and w.
bool in_event(const ldp::wire::params& p, const ldp::wire::report& r, uint32_t v, uint32_t w) {
  const ldp::wire::sketch_hash hash(p.hash_seed);
  switch (ldp::wire::string_of(p.mech)) {
    case ldp::wire::string_member::pem: {  // OLH given its revealed seed
      const auto key = ldp::wire::report_hash_key(r.seed);
      const auto g = static_cast<uint32_t>(p.get(field::hash_range));
      const uint32_t hv = ldp::wire::hash_to_range(key, v, g), hw = ldp::wire::hash_to_range(key, w, g);
      return hv != hw && r.index == hv;
    }
    case ldp::wire::string_member::treehist: {  // HCMS: v's and w's true signs differ, b carries v's
      const auto m = static_cast<uint32_t>(p.get(field::sketch_columns));
      const uint32_t hv = hash(r.index, v, m), hw = hash(r.index, w, m);
      const bool tv = (ldp::popcount32(r.column & hv) & 1) == 0;
      const bool tw = (ldp::popcount32(r.column & hw) & 1) == 0;
      return tv != tw && r.bit == (tv ? 1 : 0);
    }
    case ldp::wire::string_member::sfp: {  // CMS: v's sign +1 and w's -1 in the revealed row
      const auto m = static_cast<uint32_t>(p.get(field::sketch_columns));
      const uint32_t hv = hash(r.index, v, m), hw = hash(r.index, w, m);
      return hv != hw && bit(r, hv) && !bit(r, hw);
    }
  }
  FAIL("not a string-discovery block");
  return false;
}

ldp::wire::padded_string padded(const ldp::wire::params& p, const std::string& s) {
  ldp::wire::padded_string out;
  REQUIRE(ldp::wire::pad_string(p, {reinterpret_cast<const unsigned char*>(s.data()), s.size()}, &out) ==
          ldp::status::ok);
  return out;
}

// Reports of `input` that fall in the event of (s, t) for their group.
uint64_t count_event(const ldp::wire::params& p, const std::string& input, const std::string& s, const std::string& t,
                     ldp::random::drbg& rng) {
  ldp::test::owned_context<ldp::device::string_context> device(p);
  REQUIRE(device.code == ldp::status::ok);
  const auto ps = padded(p, s), pt = padded(p, t);
  ldp::device::drbg_coins coins(rng);
  const auto bytes = reinterpret_cast<const unsigned char*>(input.data());
  uint64_t hits = 0, failures = 0;
  for (uint64_t i = 0; i < runs; ++i) {
    ldp::wire::report r;
    failures += device->fields({bytes, input.size()}, coins, &r) != ldp::status::ok;
    hits += in_event(p, r, ldp::wire::string_item(p, r.group, ps), ldp::wire::string_item(p, r.group, pt));
  }
  REQUIRE(failures == 0);
  return hits;
}

}  // namespace

TEST_CASE("Monte-Carlo audit of the string path: no leak and no wasted noise, pem, treehist and sfp") {
  const ldp::wire::derived_params members[] = {
      ldp::wire::make_pem(2.0, 6, 8, 1u << 20),
      ldp::wire::make_treehist(2.0, 6, 8, 4, 64, sketch_seed, 1u << 20),
      ldp::wire::make_sfp(2.0, 6, 4, 32, sketch_seed, 1u << 20),
  };
  for (const auto& derived : members) {
    REQUIRE(derived.code == ldp::status::ok);
    const ldp::wire::params& p = derived.block;
    const std::string name = ldp::wire::mechanism_name(p.mech);
    CAPTURE(name);
    auto rng = ldp::test::seeded_drbg(name.c_str());
    const std::string s = "apple", t = "melon";
    const uint64_t k1 = count_event(p, s, s, t, rng);
    const uint64_t k0 = count_event(p, t, s, t, rng);
    ldp::test::check_audit_event(k1, k0, runs, alpha, derived.epsilon_impl);
  }
}
