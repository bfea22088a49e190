#include "block_text.h"

#include <cmath>

#include <fmt/format.h>

#include "ldp/wire/oracle_params.h"

namespace ldp::tools {
namespace {

using wire::field;

const char* field_name(field f) {
  switch (f) {
    case field::domain: return "domain";
    case field::threshold_bits: return "threshold_bits";
    case field::threshold_keep: return "threshold_keep";
    case field::threshold_other: return "threshold_other";
    case field::hash_range: return "hash_range";
    case field::sketch_rows: return "sketch_rows";
    case field::sketch_columns: return "sketch_columns";
    case field::hadamard_dim: return "hadamard_dim";
    case field::frac_bits: return "frac_bits";
    case field::clip_lo: return "clip_lo";
    case field::clip_hi: return "clip_hi";
    case field::scale_num: return "scale_num";
    case field::scale_den: return "scale_den";
    case field::sparsity: return "sparsity";
    case field::round: return "round";
    case field::interval_lo: return "interval_lo";
    case field::interval_hi: return "interval_hi";
    case field::observations: return "observations";
    case field::hash_seed: return "hash_seed";
    case field::rotation_seed: return "rotation_seed";
    case field::radius: return "radius";
    case field::vector_dim: return "vector_dim";
    case field::fold_coordinate: return "fold_coordinate";
    case field::bin_range: return "bin_range";
    case field::bin_half_width: return "bin_half_width";
    case field::window_half_width: return "window_half_width";
    case field::window_digest: return "window_digest";
    case field::instant_keep: return "instant_keep";
    case field::instant_other: return "instant_other";
    case field::memo_grid: return "memo_grid";
    case field::output_flip: return "output_flip";
    case field::sampled_buckets: return "sampled_buckets";
    case field::hadamard_blocks: return "hadamard_blocks";
    case field::output_scale: return "output_scale";
    case field::cap_threshold: return "cap_threshold";
    case field::projection_dim: return "projection_dim";
    case field::string_length: return "string_length";
    case field::prefix_bits: return "prefix_bits";
    case field::branching: return "branching";
    case field::basis: return "basis";
    case field::vote_threshold: return "vote_threshold";
    case field::grid_size: return "grid_size";
    case field::loss: return "loss";
    case field::marginal_order: return "marginal_order";
    case field::degree: return "degree";
    case field::public_strings: return "public_strings";
    case field::users: return "users";
    case field::noise_sigma2: return "noise_sigma2";
    case field::privacy_delta: return "privacy_delta";
    default: return nullptr;  // a tag newer than this table: shown by number
  }
}

// Fixed-point fields (value * 2^frac_bits), printed also as reals.
bool is_fixed_point(field f) {
  return f == field::clip_lo || f == field::clip_hi || f == field::interval_lo || f == field::interval_hi ||
         f == field::radius || f == field::vote_threshold;
}

}  // namespace

std::string to_hex(const unsigned char* bytes, std::size_t size) {
  std::string out;
  for (std::size_t i = 0; i < size; ++i) out += fmt::format("{:02x}", bytes[i]);
  return out;
}

std::vector<block_field> block_fields(const wire::params& p) {
  std::vector<block_field> out;
  for (int tag = 1; tag <= wire::field_max; ++tag) {
    const auto f = static_cast<field>(tag);
    if (!p.has(f)) continue;
    const char* known = field_name(f);
    block_field entry{known != nullptr ? known : fmt::format("tag_{}", tag), nullptr, ""};
    if (f == field::hash_seed || f == field::rotation_seed) {
      const std::string hex = to_hex(f == field::hash_seed ? p.hash_seed : p.rotation_seed, wire::seed_size);
      entry.value = hex;
      entry.text = hex;
    } else if (is_fixed_point(f)) {
      const int64_t v = p.get_signed(f);
      entry.value = v;
      entry.text =
          fmt::format("{} (= {:g})", v, std::ldexp(static_cast<double>(v), -static_cast<int>(p.get(field::frac_bits))));
    } else {
      entry.value = p.get(f);
      entry.text = std::to_string(p.get(f));
    }
    out.push_back(std::move(entry));
  }
  return out;
}

std::string describe_epsilon(const wire::params& p) {
  const double epsilon = wire::implemented_epsilon(p);
  if (std::isnan(epsilon)) return {};
  // Memoized blocks have a finite longitudinal level; the others none (+inf) or no formula (NaN).
  const double longitudinal = wire::longitudinal_epsilon(p);
  if (!std::isfinite(longitudinal)) return fmt::format("epsilon {:.15g} implemented", epsilon);
  return fmt::format("epsilon {:.15g} implemented per report, {:.15g} longitudinal", epsilon, longitudinal);
}

std::string describe_block(const wire::params& p) {
  std::vector<std::string> parts;
  const auto add = [&](const char* name, field f) {
    if (p.has(f)) parts.push_back(fmt::format("{}={}", name, p.get(f)));
  };
  const int frac = static_cast<int>(p.get(field::frac_bits));
  const auto real = [&](field f) { return std::ldexp(static_cast<double>(p.get_signed(f)), -frac); };
  add("d", field::domain);
  if (p.has(field::marginal_order)) {  // kway-marginals: d = N' conjunctions of at most k of p bits
    parts.push_back(fmt::format("p={} k={}", p.get(field::vector_dim), p.get(field::marginal_order)));
  }
  if (p.has(field::degree)) {  // smooth-queries: d = t^p Chebyshev features of p attributes
    parts.push_back(fmt::format("p={} t={}", p.get(field::vector_dim), p.get(field::degree)));
  }
  add("g", field::hash_range);
  add(p.has(field::rotation_seed) ? "d~" : "K", field::hadamard_dim);
  add("B", field::hadamard_blocks);
  add("B", field::branching);  // hierarchical: the fan-out
  add("k", field::sketch_rows);
  add("m", field::sketch_columns);
  add("s", field::sparsity);
  add("s", field::sampled_buckets);   // dbitflip
  add("tau", field::bin_half_width);  // winsorized: rotated grid units
  add("w", field::window_half_width);
  if (p.has(field::radius)) parts.push_back(fmt::format("R={:g}", real(field::radius)));
  if (p.has(field::clip_lo) && !p.has(field::radius)) {
    parts.push_back(fmt::format("range [{:g}, {:g}]", real(field::clip_lo), real(field::clip_hi)));
  }
  if (p.has(field::interval_lo)) {
    parts.push_back(fmt::format("interval [{:g}, {:g}]", real(field::interval_lo), real(field::interval_hi)));
  }
  add("f", field::frac_bits);
  add("grid", field::memo_grid);  // memoized duchi: k + 1 rounding points
  return fmt::format("{}", fmt::join(parts, " "));
}

}  // namespace ldp::tools
