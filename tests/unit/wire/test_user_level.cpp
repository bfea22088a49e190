// The Kent blocks (docs/mechanisms.md C.1; docs/wire_format.md tables 3, 3.2, 3.3): the three shapes
// M1, M2, M3 and the rules on them, the builders' implemented levels, the round-2 block through the
// wire format, and the cell grid device and server share.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "ldp/wire.h"
#include "wire_examples.h"

using ldp::status;
using ldp::wire::field;
using ldp::wire::kent_shape;
using ldp::wire::mechanism;
using ldp::wire::params;

namespace {

constexpr int64_t one = int64_t{1} << 16;
const unsigned char rotation_seed[32] = {7, 1, 7};

kent_shape shape_m1() {
  kent_shape s;
  s.frac_bits = 16;
  s.clip_lo = -one;
  s.clip_hi = one;
  s.observations = 100;
  return s;
}

kent_shape shape_m2() {
  kent_shape s = shape_m1();
  s.vector_dim = 5;
  s.fold_coordinate = 4;
  return s;
}

kent_shape shape_m3() {
  kent_shape s = shape_m2();
  s.fold_coordinate = 7;  // a padded coordinate: M3 folds run over d~
  s.hadamard_dim = 8;
  s.rotation_seed = rotation_seed;
  return s;
}

std::vector<unsigned char> encoded(const params& p) {
  std::vector<unsigned char> out(ldp::wire::params_max_size);
  std::size_t size = 0;
  REQUIRE(ldp::wire::encode_params(p, out, &size) == status::ok);
  out.resize(size);
  return out;
}

}  // namespace

TEST_CASE("kent-vote: SUE thresholds over the cells, epsilon_impl <= alpha and within 1e-6 of it") {
  for (double alpha : {0.1, 0.5, 1.0}) {
    for (const kent_shape& s : {shape_m1(), shape_m2(), shape_m3()}) {
      CAPTURE(alpha);
      const auto vote = ldp::wire::make_kent_vote(alpha, 12, s);
      REQUIRE(vote.code == status::ok);
      const auto sue = ldp::wire::make_sue(alpha, 12);
      CHECK(vote.block.get(field::threshold_keep) == sue.block.get(field::threshold_keep));
      CHECK(vote.block.get(field::threshold_other) == sue.block.get(field::threshold_other));
      CHECK(vote.block.get(field::round) == 1);
      CHECK(vote.block.get(field::domain) == 12);
      // Per-bit keep e^(alpha/2) / (1 + e^(alpha/2)): two bits differ between one-hot votes.
      const double keep = static_cast<double>(vote.block.get(field::threshold_keep)) / 4294967296.0;
      CHECK(keep <= std::exp(alpha / 2) / (1 + std::exp(alpha / 2)));
      CHECK(vote.epsilon_impl <= alpha);
      CHECK(vote.epsilon_impl >= alpha - 1e-6);
      CHECK(vote.epsilon_impl == doctest::Approx(2 * std::log(keep / (1 - keep))).epsilon(1e-12));
      CHECK(ldp::wire::shape_of(vote.block).vector_dim == s.vector_dim);
    }
  }
  CHECK(ldp::wire::make_kent_vote(1.0, 1, shape_m1()).code == status::invalid_argument);
  CHECK(ldp::wire::make_kent_vote(0.0, 10, shape_m1()).code == status::invalid_argument);
}

TEST_CASE("kent-refine: scale (U - L) / alpha grid units, minimal t_num, epsilon_impl <= alpha") {
  for (double alpha : {0.25, 1.0}) {
    for (int64_t width : {int64_t{1}, int64_t{3}, one / 3, 5 * one / 4}) {
      CAPTURE(alpha);
      CAPTURE(width);
      const auto refine = ldp::wire::make_kent_refine(alpha, -one / 2, -one / 2 + width, shape_m1());
      REQUIRE(refine.code == status::ok);
      const params& p = refine.block;
      const uint64_t t_num = p.get(field::scale_num), t_den = p.get(field::scale_den);
      CHECK(t_den == 65536);
      // t_num = ceil(t_den * width * (1 + 2^-40) / alpha): one less fails the D.1 check
      // epsilon_impl * (1 + 2^-40) <= alpha.
      const auto level = [&](uint64_t t) {
        return static_cast<double>(width) * static_cast<double>(t_den) / static_cast<double>(t);
      };
      CHECK(refine.epsilon_impl == doctest::Approx(level(t_num)).epsilon(1e-15));
      CHECK(refine.epsilon_impl <= alpha);
      CHECK(level(t_num - 1) * (1 + 0x1p-40) > alpha);
      CHECK(p.get(field::round) == 2);
    }
  }
  CHECK(ldp::wire::make_kent_refine(1.0, 10, 10, shape_m1()).code == status::invalid_argument);
  // The interval lies inside the range.
  CHECK(ldp::wire::make_kent_refine(1.0, -one - 1, 0, shape_m1()).code == status::invalid_argument);
  CHECK(ldp::wire::make_kent_refine(1.0, 0, one + 1, shape_m1()).code == status::invalid_argument);
  CHECK(ldp::wire::make_kent_refine(1.0, -one, one, shape_m1()).code == status::ok);
}

TEST_CASE("Kent shapes: M1 without fold fields, M2 with the fold, M3 with fold and rotation") {
  const kent_shape shapes[] = {shape_m1(), shape_m2(), shape_m3()};
  for (const kent_shape& s : shapes) {
    for (const params& p :
         {ldp::wire::make_kent_vote(1.0, 10, s).block, ldp::wire::make_kent_refine(1.0, -100, 100, s).block}) {
      REQUIRE(ldp::wire::validate(p) == status::ok);
      CHECK(p.has(field::vector_dim) == (s.vector_dim != 0));
      CHECK(p.has(field::fold_coordinate) == (s.vector_dim != 0));
      CHECK(p.has(field::hadamard_dim) == (s.hadamard_dim != 0));
      CHECK(p.has(field::rotation_seed) == (s.hadamard_dim != 0));
      // Any other subset of the four optional fields is invalid.
      for (field f : {field::vector_dim, field::fold_coordinate, field::hadamard_dim, field::rotation_seed}) {
        params q = p;
        if (q.has(f)) {
          q.present &= ~(1u << static_cast<int>(f));
        } else if (f == field::rotation_seed) {
          q.set_seed(f, rotation_seed);
        } else {
          q.set(f, f == field::hadamard_dim ? 8 : 3);
        }
        CAPTURE(static_cast<int>(f));
        CHECK(ldp::wire::validate(q) == status::invalid_parameters);
      }
    }
  }
}

TEST_CASE("Kent validation rules (wire_format.md 3.3)") {
  const auto valid = [](const kent_shape& s) {
    return ldp::wire::validate(ldp::wire::make_kent_vote(1.0, 10, s).block) == status::ok &&
           ldp::wire::make_kent_vote(1.0, 10, s).code == status::ok;
  };
  CHECK(valid(shape_m1()));
  kent_shape s = shape_m2();
  s.fold_coordinate = 5;  // = d
  CHECK_FALSE(valid(s));
  s = shape_m3();
  s.fold_coordinate = 8;  // = d~
  CHECK_FALSE(valid(s));
  s = shape_m3();
  s.hadamard_dim = 4;  // < d
  CHECK_FALSE(valid(s));
  s.hadamard_dim = 12;  // not a power of two
  CHECK_FALSE(valid(s));
  s = shape_m3();
  s.clip_lo = -one + 1;  // M3 ranges are [-R, R]
  CHECK_FALSE(valid(s));
  s = shape_m3();
  s.clip_lo = -(int64_t{1} << 28);
  s.clip_hi = int64_t{1} << 28;
  CHECK_FALSE(valid(s));  // d~ R = 2^31: the int32 rotation could overflow
  s.clip_lo = -(int64_t{1} << 28) + 1;
  s.clip_hi = (int64_t{1} << 28) - 1;
  CHECK(valid(s));
  s = shape_m2();
  s.vector_dim = 0;  // the builder then drops the fold fields; a block with d = 0 is invalid
  CHECK(valid(s));
  params zero_dim = ldp::wire::make_kent_vote(1.0, 10, shape_m2()).block;
  zero_dim.set(field::vector_dim, 0);
  CHECK(ldp::wire::validate(zero_dim) == status::invalid_parameters);
  // T~ max(|lo|, |hi|) < 2^63: the device's int64 sum is exact.
  s = shape_m1();
  s.clip_lo = -(int64_t{1} << 40);
  s.observations = (uint32_t{1} << 23) - 1;
  CHECK(valid(s));
  s.observations = uint32_t{1} << 23;
  CHECK_FALSE(valid(s));
  s.observations = 0;
  CHECK_FALSE(valid(s));
}

TEST_CASE("the round-2 block round-trips through the wire format") {
  for (const kent_shape& s : {shape_m1(), shape_m2(), shape_m3()}) {
    const auto refine = ldp::wire::make_kent_refine(0.7, -12345, 23456, s);
    REQUIRE(refine.code == status::ok);
    const auto bytes = encoded(refine.block);
    params back;
    REQUIRE(ldp::wire::decode_params(bytes, &back) == status::ok);
    CHECK(encoded(back) == bytes);
    CHECK(ldp::wire::fingerprint(back) == ldp::wire::fingerprint(refine.block));
    CHECK(back.get_signed(field::interval_lo) == -12345);
    CHECK(back.get_signed(field::interval_hi) == 23456);
    const kent_shape t = ldp::wire::shape_of(back);
    CHECK(t.clip_lo == s.clip_lo);
    CHECK(t.clip_hi == s.clip_hi);
    CHECK(t.observations == s.observations);
    CHECK(t.vector_dim == s.vector_dim);
    CHECK(t.fold_coordinate == s.fold_coordinate);
    CHECK(t.hadamard_dim == s.hadamard_dim);
    CHECK((t.rotation_seed != nullptr) == (s.rotation_seed != nullptr));
    if (t.rotation_seed != nullptr) CHECK(t.rotation_seed[2] == 7);
    // A truncated block and one with an unknown tag do not decode.
    std::vector<unsigned char> cut(bytes.begin(), bytes.end() - 1);
    CHECK(ldp::wire::decode_params(cut, &back) == status::wrong_length);
    std::vector<unsigned char> extra = bytes;
    extra[2] = static_cast<unsigned char>(extra[2] + 1);
    extra.insert(extra.end(), {static_cast<unsigned char>(ldp::wire::field_max + 1), 1, 0, 0, 0});
    CHECK(ldp::wire::decode_params(extra, &back) == status::malformed_report);
  }
}

TEST_CASE("cell grid: every grid point in exactly the cell between its edges") {
  struct grid {
    int64_t lo, hi;
    uint32_t cells;
  };
  for (const grid g :
       {grid{-10, 10, 2}, grid{-10, 10, 3}, grid{-7, 30, 7}, grid{0, 9, 10}, grid{5, 100, 11}, grid{-1, 1, 2}}) {
    kent_shape s = shape_m1();
    s.clip_lo = g.lo;
    s.clip_hi = g.hi;
    const auto vote = ldp::wire::make_kent_vote(1.0, g.cells, s);
    REQUIRE(vote.code == status::ok);
    const params& p = vote.block;
    const uint64_t width = static_cast<uint64_t>(g.hi - g.lo);
    CHECK(ldp::wire::range_cell_edge(p, 0) == g.lo);
    CHECK(ldp::wire::range_cell_edge(p, g.cells) == g.hi);
    for (uint64_t k = 0; k < g.cells; ++k) {
      // edge(k) = lo + ceil(k W / N)
      const uint64_t step = (k * width + g.cells - 1) / g.cells;
      CHECK(ldp::wire::range_cell_edge(p, k) == g.lo + static_cast<int64_t>(step));
    }
    for (int64_t x = g.lo - 3; x <= g.hi + 3; ++x) {
      CAPTURE(x);
      const int64_t c = x < g.lo ? g.lo : x > g.hi ? g.hi : x;
      const uint32_t k = ldp::wire::range_cell(p, x);
      REQUIRE(k < g.cells);
      CHECK(ldp::wire::range_cell_edge(p, k) <= c);
      if (k + 1 < g.cells) CHECK(c < ldp::wire::range_cell_edge(p, k + 1));
    }
  }
}

TEST_CASE("cell grid at the extremes of the int64 range and of the cell count") {
  kent_shape s = shape_m1();
  s.clip_lo = -(int64_t{1} << 62);
  s.clip_hi = (int64_t{1} << 62) + 12345;
  s.observations = 1;
  const uint32_t cells = (uint32_t{1} << 24) - 3;
  const auto vote = ldp::wire::make_kent_vote(1.0, cells, s);
  REQUIRE(vote.code == status::ok);
  const params& p = vote.block;
  uint64_t state = 0x1234567;
  const double width = std::ldexp(1.0, 63) + 12345.0;
  for (int i = 0; i < 2000; ++i) {
    state = state * 6364136223846793005u + 1442695040888963407u;
    const int64_t x = static_cast<int64_t>(state >> 1) - (int64_t{1} << 62);
    const uint32_t k = ldp::wire::range_cell(p, x);
    REQUIRE(k < cells);
    CHECK(ldp::wire::range_cell_edge(p, k) <= x);
    if (k + 1 < cells) CHECK(x < ldp::wire::range_cell_edge(p, k + 1));
    // Against the real-valued cell (exact but for points within a few cells of rounding).
    const double position = (static_cast<double>(x) - static_cast<double>(s.clip_lo)) / width * cells;
    CHECK(std::fabs(position - static_cast<double>(k)) <= 1.0 + 1e-6);
  }
  CHECK(ldp::wire::range_cell(p, s.clip_hi) == cells - 1);
  CHECK(ldp::wire::range_cell(p, INT64_MAX) == cells - 1);
  CHECK(ldp::wire::range_cell(p, INT64_MIN) == 0);
}
