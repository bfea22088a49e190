#include "wire_examples.h"

#include <stdexcept>

namespace ldp::test {

using wire::field;
using wire::mechanism;

std::vector<mechanism> all_mechanisms() {
  std::vector<mechanism> out;
  for (int v = 1; v < 256; ++v) {
    if (wire::is_known(static_cast<mechanism>(v))) out.push_back(static_cast<mechanism>(v));
  }
  return out;
}

std::vector<mechanism> mechanisms_of(wire::mechanism_family f) {
  std::vector<mechanism> out;
  for (const mechanism m : all_mechanisms()) {
    if (wire::in_family(m, f)) out.push_back(m);
  }
  return out;
}

std::vector<mechanism> memoized_oracles() {
  std::vector<mechanism> out;
  for (const mechanism m : all_mechanisms()) {
    // The oracles only: duchi's memo fields are E.2's (memoized numeric telemetry).
    if (wire::in_family(m, wire::mechanism_family::frequency_oracle) && wire::memo_fields(m) != 0) out.push_back(m);
  }
  return out;
}

wire::params example_params(mechanism m) {
  wire::params p;
  p.mech = m;
  unsigned char seed[wire::seed_size];
  for (std::size_t i = 0; i < wire::seed_size; ++i) seed[i] = static_cast<unsigned char>(0xa0 + i);
  const auto frequency = [&](uint64_t keep) {
    p.set(field::domain, 10).set(field::threshold_bits, 32).set(field::threshold_keep, keep);
  };
  const auto range = [&] {
    p.set(field::frac_bits, 16).set_signed(field::clip_lo, -(int64_t{1} << 16));
    p.set_signed(field::clip_hi, int64_t{1} << 16);
  };
  const auto scale = [&] { p.set(field::scale_num, 3 * 65536).set(field::scale_den, 65536); };
  switch (m) {
    case mechanism::grr: frequency(996300628); break;
    case mechanism::sue:
    case mechanism::oue:
      frequency(m == mechanism::sue ? 2673442470u : 2147483648u);
      p.set(field::threshold_other, m == mechanism::sue ? 1621524826u : 1155094610u);
      break;
    case mechanism::blh:
    case mechanism::olh:
      frequency(m == mechanism::blh ? 3139872686u : 2041685230u);
      p.set(field::hash_range, m == mechanism::blh ? 2 : 4);
      break;
    case mechanism::flh:
      frequency(2041685230u);
      p.set(field::hash_range, 4).set(field::sketch_rows, 8);
      p.set_seed(field::hash_seed, seed);
      break;
    case mechanism::dbitflip:  // E.3: SUE's thresholds at epsilon 1, 3 of 10 buckets sampled
      frequency(2673442470u);
      p.set(field::threshold_other, 1621524826u).set(field::sampled_buckets, 3);
      break;
    case mechanism::hr:
      frequency(3139872686u);
      p.set(field::hadamard_dim, 16);
      break;
    case mechanism::cms:
    case mechanism::hcms:
      p.set(field::domain, 1000).set(field::threshold_bits, 32);
      p.set(field::threshold_other, m == mechanism::cms ? 1621524826u : 1155094610u);
      p.set(field::sketch_rows, 16).set(field::sketch_columns, m == mechanism::cms ? 100 : 128);
      p.set_seed(field::hash_seed, seed);
      break;
    case mechanism::pem:
    case mechanism::treehist:
    case mechanism::sfp:
      // The inner oracle's example on strings of 8 bytes: pem 8 groups of 8-bit steps, treehist 16 of
      // 4-bit steps, sfp 4 fragment groups and the word group.
      p = example_params(wire::string_inner_mechanism(m));
      p.mech = m;
      p.set(field::string_length, 8);
      if (m != mechanism::sfp) p.set(field::prefix_bits, m == mechanism::pem ? 8 : 4);
      break;
    case mechanism::square_wave:  // G.1: 16 buckets of [-1, 1], window 2 * 3 + 1, keep 1/2: ln(15 / 7)
      p.set(field::domain, 16).set(field::threshold_bits, 32).set(field::threshold_keep, 2147483648u);
      p.set(field::window_half_width, 3);
      range();
      break;
    case mechanism::hierarchical:
    case mechanism::haar:
      // G.2, G.3: OLH's example on 16 buckets of [-1, 1]: two levels of fan-out 4, or four of Haar.
      p = example_params(mechanism::olh);
      p.mech = m;
      p.set(field::domain, 16);
      if (m == mechanism::hierarchical) p.set(field::branching, 4);
      range();
      break;
    case mechanism::kent_vote:
      frequency(2673442470u);
      p.set(field::threshold_other, 1621524826u).set(field::round, 1).set(field::observations, 64);
      range();
      break;
    case mechanism::laplace:
      range();
      scale();
      break;
    case mechanism::laplace_vector:
      p.set(field::domain, 4);
      range();
      scale();
      break;
    case mechanism::kway_marginals:  // H.5: p = 4 attributes, k = 2, N' = 4 + 6 = 10 indicators on [0, 1], f = 0
      p.set(field::domain, 10).set(field::vector_dim, 4).set(field::marginal_order, 2);
      p.set(field::frac_bits, 0).set_signed(field::clip_lo, 0).set_signed(field::clip_hi, 1);
      p.set(field::scale_num, 10 * 65536).set(field::scale_den, 65536);  // t = N' / eps at eps 1
      break;
    case mechanism::duchi:
      p.set(field::threshold_bits, 32).set(field::threshold_keep, 3139872686u);
      p.set(field::threshold_other, 1155094610u);
      range();
      break;
    case mechanism::vector_duchi:
    case mechanism::vector_laplace:
      p.set(field::domain, 100).set(field::hadamard_dim, 128).set_seed(field::rotation_seed, seed);
      range();
      p.set_signed(field::radius, int64_t{2} << 16);
      if (m == mechanism::vector_duchi) {
        p.set(field::threshold_bits, 32).set(field::threshold_keep, 3139872686u);
        p.set(field::threshold_other, 1155094610u);
      } else {
        scale();
      }
      break;
    case mechanism::sparse_projection:
      p.set(field::domain, 1000).set(field::sparsity, 4);
      range();
      break;
    case mechanism::kent_refine:
      p.set(field::round, 2).set_signed(field::interval_lo, -6554);
      p.set_signed(field::interval_hi, 19661).set(field::observations, 64);
      range();
      scale();
      break;
    case mechanism::winsorized_bins:
    case mechanism::winsorized_sums:
      // d = 5 rotated to d~ = 8; rotated values within d * 2^16; 40 bins of 2 * 8192.
      p.set(field::domain, 8).set(field::hadamard_dim, 8).set(field::vector_dim, 5).set(field::observations, 16);
      p.set_seed(field::rotation_seed, seed).set(field::bin_range, 5 << 16).set(field::bin_half_width, 8192);
      range();
      if (m == mechanism::winsorized_sums) p.set(field::window_half_width, 3 * 8192).set(field::window_digest, 0x5eed);
      break;
    case mechanism::l2_ball:
      // d = 8 in the unit ball, epsilon 1; output_scale about 1 / ((2 T / 2^32 - 1) c_8) 2^32.
      p.set(field::domain, 8).set(field::frac_bits, 16).set_signed(field::radius, int64_t{1} << 16);
      p.set(field::threshold_bits, 32).set(field::threshold_keep, 3139872686u).set(field::output_scale, 31914800000u);
      break;
    case mechanism::privunitg:
      // make_privunitg(8, 1.0, 16, 1.0): t = 0.373 (g = 382 2^16), output_scale = round(2^35 / mean).
      p.set(field::domain, 8).set(field::frac_bits, 16).set_signed(field::radius, int64_t{1} << 16);
      p.set(field::threshold_bits, 32).set(field::threshold_keep, 2572304735u).set(field::output_scale, 86473331787u);
      p.set(field::cap_threshold, 25034752u);
      break;
    case mechanism::projunit:
    case mechanism::fastprojunit:
      // make_projunit / make_fastprojunit(8, 4, 1.0, 16, 1.0): PrivUnitG's cap and keep in k = 4
      // dimensions, its output_scale over projection_norm_mean (1 - 1/16; 1 - 4/112).
      p.set(field::domain, 8).set(field::frac_bits, 16).set_signed(field::radius, int64_t{1} << 16);
      p.set(field::threshold_bits, 32).set(field::threshold_keep, 2613049760u).set(field::cap_threshold, 23396352u);
      p.set(field::output_scale, m == mechanism::projunit ? 92320109879u : 89755662383u).set(field::projection_dim, 4);
      break;
    case mechanism::kent_support:
      // d = 1000, s = 4, T~ = 64, tau = 1/4 on [-1, 1]; t = 2 s / alpha = 8 at alpha 1 (C.1 P4).
      p.set(field::domain, 1000).set(field::sparsity, 4).set(field::observations, 64);
      p.set(field::vote_threshold, 16384).set(field::scale_num, 8 * 65536 + 1).set(field::scale_den, 65536);
      range();
      break;
    case mechanism::bernstein:
      // H.1: p = 2, k = 2 (N = 9 grid losses), logistic, f = 16 on [0, 1]; t = 9 2^16 / 1 + a step.
      p.set(field::domain, 9).set(field::vector_dim, 2).set(field::grid_size, 2).set(field::loss, 2);
      p.set(field::frac_bits, 16).set_signed(field::clip_lo, 0).set_signed(field::clip_hi, int64_t{1} << 16);
      p.set(field::scale_num, 9 * (uint64_t{1} << 32) + 1).set(field::scale_den, 65536);
      break;
    case mechanism::smooth_queries:  // H.6: p = 2 attributes, t = 2 degrees, t^p = 4 features on [-1, 1]
      p.set(field::vector_dim, 2).set(field::degree, 2).set(field::domain, 4);
      range();
      scale();
      break;
    case mechanism::bernstein_1bit:
    case mechanism::bernstein_genprot:
      // H.2, H.3: p = 2, k = 3 (16 groups), squared loss, 1000 users, V = 2^10; the scales of
      // make_bernstein_1bit at epsilon 1 (t = V / 0.49) and make_bernstein_genprot at 2 with T = 16.
      p.set(field::vector_dim, 2).set(field::grid_size, 3).set(field::loss, 1).set(field::users, 1000);
      p.set(field::frac_bits, 10).set_seed(field::hash_seed, seed).set(field::scale_den, 65536);
      p.set(field::scale_num, m == mechanism::bernstein_1bit ? 136990379u : 96817626u);
      if (m == mechanism::bernstein_genprot) p.set(field::public_strings, 16);
      break;
    case mechanism::glm_copies:
      // make_glm_copies(1, 1e-6, {p = 2, d = 1, f = 8}): 3 copies of (x_0, x_1, s), rho = 0.02436 (H.4).
      p.set(field::domain, 9).set(field::vector_dim, 2).set(field::frac_bits, 8).set(field::degree, 1);
      p.set(field::noise_sigma2, 24216814).set(field::privacy_delta, 18446744073709u);
      break;
    case mechanism::none: throw std::invalid_argument("no example for mechanism none");
  }
  return p;
}

uint64_t unit_payload_count(const wire::params& p) {
  return wire::kind_of(p.mech) == wire::payload_kind::projected_unit ? p.get(field::projection_dim)
                                                                     : p.get(field::domain);
}

example_report make_report(const wire::params& p, unsigned variant) {
  example_report e;
  wire::report& r = e.fields;
  r.mech = p.mech;
  const uint64_t v = variant;
  const uint64_t d = p.get(field::domain);
  switch (wire::kind_of(p.mech)) {
    case wire::payload_kind::index: r.index = static_cast<uint32_t>((3 + 5 * v) % wire::index_payload_bound(p)); break;
    case wire::payload_kind::unary_bits:
    case wire::payload_kind::sketch_row: {
      const uint64_t nbits = wire::kind_of(p.mech) == wire::payload_kind::unary_bits ? d : p.get(field::sketch_columns);
      e.bits.assign(static_cast<std::size_t>((nbits + 7) / 8), 0);
      for (uint64_t j = 0; j < nbits; ++j) {
        const auto byte = static_cast<std::size_t>(j / 8);
        if ((j * 7 + v) % 3 == 0) e.bits[byte] = static_cast<unsigned char>(e.bits[byte] | (1u << (j % 8)));
      }
      r.bits = e.bits;
      if (p.mech == mechanism::cms) r.index = static_cast<uint32_t>(v % p.get(field::sketch_rows));
      break;
    }
    case wire::payload_kind::hash_bucket:
      r.seed = 0x0123456789abcdefu ^ (v * 0x9e3779b97f4a7c15u);
      r.index = static_cast<uint32_t>(v % wire::hash_bucket_bound(p));
      break;
    case wire::payload_kind::sketch_cell:
      r.index = static_cast<uint32_t>((5 + v) % p.get(field::sketch_rows));
      r.column = static_cast<uint32_t>((77 + 13 * v) % p.get(field::sketch_columns));
      r.bit = static_cast<uint8_t>(v & 1);
      break;
    case wire::payload_kind::fixed_value: r.value = (v % 2 ? -1 : 1) * static_cast<int64_t>(12345 + 1000 * v); break;
    case wire::payload_kind::fixed_vector:
      for (uint64_t i = 0; i < d; ++i)
        e.values.push_back(static_cast<int64_t>(i * 70000) - 100000 + static_cast<int64_t>(v));
      r.values = e.values;
      break;
    case wire::payload_kind::projected_unit:
    case wire::payload_kind::unit_vector:
      if (wire::kind_of(p.mech) == wire::payload_kind::projected_unit) r.seed = 0x5eed0000u + v;
      for (uint64_t i = 0; i < unit_payload_count(p); ++i)
        e.values.push_back(static_cast<int64_t>(i * 3000) - 10000 + static_cast<int64_t>(v));
      r.values = e.values;
      break;
    case wire::payload_kind::seeded_value:
      r.seed = 0x5eed5eed00000000u + v;
      r.value = (v % 2 ? -1 : 1) * static_cast<int64_t>(7 + 3 * v);
      break;
    case wire::payload_kind::bit: r.bit = static_cast<uint8_t>(1 - (v & 1)); break;
    case wire::payload_kind::coordinate_bit:
      r.index = static_cast<uint32_t>((17 + 31 * v) % wire::coordinate_bound(p));
      r.bit = static_cast<uint8_t>(v & 1);
      break;
    case wire::payload_kind::coordinate_value:
      r.index = static_cast<uint32_t>((17 + 31 * v) % wire::coordinate_bound(p));
      // bernstein-genprot's value is a sample index g < T (docs/wire_format.md 3.12).
      r.value = p.mech == mechanism::bernstein_genprot ? static_cast<int64_t>((5 + v) % p.get(field::public_strings))
                                                       : -static_cast<int64_t>(300000 + v);
      break;
    case wire::payload_kind::group_round:
      e = make_report(wire::group_inner_block(p), variant);
      e.fields.mech = p.mech;
      e.fields.group = static_cast<uint32_t>((1 + 3 * v) % wire::group_count(p));
      break;
    case wire::payload_kind::sparse_pairs: {
      const uint64_t count = (v % p.get(field::sparsity)) + 1;
      for (uint64_t i = 0; i < count; ++i) {
        e.indices.push_back(static_cast<uint32_t>(2 + i * 250 + v));
        e.values.push_back((i % 2 ? -1 : 1) * static_cast<int64_t>(1000 * (i + 1) + v));
      }
      r.indices = e.indices;
      r.values = e.values;
      break;
    }
  }
  return e;
}

std::string to_hex(const unsigned char* data, std::size_t size) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < size; ++i) {
    out += digits[data[i] >> 4];
    out += digits[data[i] & 15];
  }
  return out;
}

std::string spaced_hex(const std::vector<unsigned char>& b) {
  std::string out;
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i > 0) out += ' ';
    out += to_hex(&b[i], 1);
  }
  return out;
}

std::vector<unsigned char> from_hex(const std::string& hex) {
  std::vector<unsigned char> out;
  int high = -1;
  for (char c : hex) {
    int v;
    if (c >= '0' && c <= '9')
      v = c - '0';
    else if (c >= 'a' && c <= 'f')
      v = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      v = c - 'A' + 10;
    else if (c == ' ' || c == '\t')
      continue;
    else
      throw std::invalid_argument("not a hex digit");
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<unsigned char>(high * 16 + v));
      high = -1;
    }
  }
  if (high >= 0) throw std::invalid_argument("odd number of hex digits");
  return out;
}

std::string describe(const wire::params& p, const wire::report& r) {
  std::string s;
  const auto add = [&](const std::string& key, const std::string& value) {
    if (!s.empty()) s += ' ';
    s += key + '=' + value;
  };
  switch (wire::kind_of(p.mech)) {
    case wire::payload_kind::index: add("index", std::to_string(r.index)); break;
    case wire::payload_kind::unary_bits: add("bits", to_hex(r.bits.data(), r.bits.size())); break;
    case wire::payload_kind::hash_bucket:
      add("seed", std::to_string(r.seed));
      add("bucket", std::to_string(r.index));
      break;
    case wire::payload_kind::sketch_row:
      add("row", std::to_string(r.index));
      add("bits", to_hex(r.bits.data(), r.bits.size()));
      break;
    case wire::payload_kind::sketch_cell:
      add("row", std::to_string(r.index));
      add("column", std::to_string(r.column));
      add("bit", std::to_string(r.bit));
      break;
    case wire::payload_kind::fixed_value: add("value", std::to_string(r.value)); break;
    case wire::payload_kind::seeded_value:
      add("seed", std::to_string(r.seed));
      add("value", std::to_string(r.value));
      break;
    case wire::payload_kind::fixed_vector:
    case wire::payload_kind::projected_unit:
    case wire::payload_kind::unit_vector: {
      if (wire::kind_of(p.mech) == wire::payload_kind::projected_unit) add("seed", std::to_string(r.seed));
      std::vector<int64_t> values(r.count);
      if (wire::read_vector(r, values) != status::ok) return "unreadable";
      std::string list;
      for (int64_t v : values) list += (list.empty() ? "" : ",") + std::to_string(v);
      add("vector", list);
      break;
    }
    case wire::payload_kind::bit: add("bit", std::to_string(r.bit)); break;
    case wire::payload_kind::coordinate_bit:
      add("coordinate", std::to_string(r.index));
      add("bit", std::to_string(r.bit));
      break;
    case wire::payload_kind::coordinate_value:
      add("coordinate", std::to_string(r.index));
      add("value", std::to_string(r.value));
      break;
    case wire::payload_kind::group_round:
      add("group", std::to_string(r.group));
      add("inner", describe(wire::group_inner_block(p), r));
      break;
    case wire::payload_kind::sparse_pairs: {
      std::vector<uint32_t> idx(r.count);
      std::vector<int64_t> val(r.count);
      if (wire::read_sparse(p, r, idx, val) != status::ok) return "unreadable";
      std::string list;
      for (uint32_t i = 0; i < r.count; ++i) {
        list += (list.empty() ? "" : ",") + std::to_string(idx[i]) + ":" + std::to_string(val[i]);
      }
      add("sparse", list);
      break;
    }
  }
  return s;
}

}  // namespace ldp::test
