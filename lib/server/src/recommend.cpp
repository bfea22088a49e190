// Choosing an oracle, docs/mechanisms.md A.8: every frequency oracle's block is built with the shared
// wire routines (so the thresholds, and integer g, are the implemented ones) and ranked by the
// coefficient of n in Var[c-hat_v] at c_v = 0:
//   GRR, SUE, OUE   q(1 - q)/(p - q)^2 with the implemented p-hat, q-hat (A.0)
//   BLH, OLH        the same with q* = 1/g (A.4)
//   FLH             OLH's, plus the shared-hash term at its smallest: sum_w c_w (c_w - 1) / (k (g - 1))
//                   is at least n (n/d - 1) / (k (g - 1)) (users spread evenly over the d items), so
//                   (n/d - 1)/(k (g - 1)) per report when positive (A.4)
//   HR              1/(2 p-hat - 1)^2 (A.5)
//   CMS             (m/(m-1))^2 (c^2 - 1)/4 + 1/(m - 1), c = 1/(1 - 2 q-hat_f) (A.6 at f(x) = 0)
//   HCMS            (m/(m-1))^2 (c^2 - 1/m^2),           c = 1/(1 - 2 q-hat)  (A.6 at f(x) = 0)
// The sketches' data-dependent collision term is left out. [impl] CMS and HCMS are sized k = 16
// rows by m = 1024 columns (a power of two, as HCMS needs), with an all-zero public hash seed
// (the variance does not depend on it). OLH takes the wire's choice of integer g; when that
// choice is 2 the block is BLH, listed once. FLH has k = wire::flh_default_functions and OLH's g.
//
// The estimate's cost, in elementary steps after ingestion (A.8): GRR, SUE, OUE d; BLH, OLH n d
// hashes; FLH k d; HR K log2 K; CMS k d; HCMS k m log2 m + k d. An oracle whose cost exceeds
// estimate_budget is ranked after every oracle within it (each group by variance): at large n d
// that moves OLH behind FLH, HR and the others.

#include <algorithm>
#include <cmath>

#include "ldp/server/frequency.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/report.h"
#include "support_model.h"

namespace ldp::server {
namespace {

using wire::field;
using wire::frequency_oracle;
using wire::mechanism;

constexpr uint32_t sketch_rows = 16;
constexpr uint32_t sketch_columns = 1024;

// About 15 s of OLH decoding on one core (issue 19: n = 10^6, d = 10^5).
constexpr double estimate_budget = 1e11;

wire::derived_params oracle_block(wire::mechanism m, double epsilon, uint32_t d) {
  const unsigned char seed[wire::seed_size] = {};
  if (m == mechanism::flh) return wire::make_flh(epsilon, d, wire::flh_default_functions, seed);
  return wire::make_frequency_oracle(m, epsilon, d, sketch_rows, sketch_columns, seed);
}

double leading_variance(const wire::params& p, uint64_t n) {
  switch (wire::oracle_of(p.mech)) {
    case frequency_oracle::grr:
    case frequency_oracle::sue:
    case frequency_oracle::oue:
    case frequency_oracle::blh:
    case frequency_oracle::olh:
    case frequency_oracle::hr: return detail::pure_model(p).leading();  // HR: 1/(2 p-hat - 1)^2
    case frequency_oracle::flh: {
      const double shared =
          (static_cast<double>(n) / static_cast<double>(p.get(field::domain)) - 1) /
          (static_cast<double>(p.get(field::sketch_rows)) * static_cast<double>(p.get(field::hash_range) - 1));
      return detail::pure_model(p).leading() + (shared > 0 ? shared : 0);
    }
    case frequency_oracle::cms:
    case frequency_oracle::hcms: {
      const double c = detail::sketch_scale(p);
      const auto m = static_cast<double>(p.get(field::sketch_columns));
      const double ratio2 = (m / (m - 1)) * (m / (m - 1));
      if (p.mech == mechanism::cms) return ratio2 * (c * c - 1) / 4 + 1 / (m - 1);
      return ratio2 * (c * c - 1 / (m * m));
    }
    // dBitFlip (docs/mechanisms.md E.3) is for repeated reporting: one report is dominated by SUE at
    // the same epsilon (its variance is k/d times SUE's leading term), so it is not recommended.
    case frequency_oracle::dbitflip: break;
  }
  return std::nan("");
}

double log2_of(uint64_t x) { return std::log2(static_cast<double>(x)); }

double estimate_cost(const wire::params& p, uint64_t n) {
  const auto d = static_cast<double>(p.get(field::domain));
  const auto k = static_cast<double>(p.get(field::sketch_rows));
  switch (wire::oracle_of(p.mech)) {
    case frequency_oracle::grr:
    case frequency_oracle::sue:
    case frequency_oracle::oue: return d;
    case frequency_oracle::blh:
    case frequency_oracle::olh: return static_cast<double>(n) * d;
    case frequency_oracle::flh:
    case frequency_oracle::cms: return k * d;
    case frequency_oracle::dbitflip: return static_cast<double>(n) * static_cast<double>(p.get(field::sampled_buckets));
    case frequency_oracle::hr:
      return static_cast<double>(p.get(field::hadamard_dim)) * log2_of(p.get(field::hadamard_dim));
    case frequency_oracle::hcms: {
      const uint64_t m = p.get(field::sketch_columns);
      return k * static_cast<double>(m) * log2_of(m) + k * d;
    }
  }
  return std::nan("");
}

}  // namespace

std::vector<recommendation> recommend(uint32_t d, double epsilon, uint64_t n) {
  try {
    std::vector<recommendation> out;
    for (const wire::mechanism_row& row : wire::mechanism_table) {
      if (row.family != wire::mechanism_family::frequency_oracle) continue;
      const wire::derived_params c = oracle_block(row.id, epsilon, d);
      if (c.code != status::ok) continue;
      const wire::params& p = c.block;
      const bool seen = std::any_of(out.begin(), out.end(), [&](const recommendation& r) { return r.mech == p.mech; });
      if (seen) continue;  // make_olh chose g = 2: that is BLH
      recommendation r;
      r.mech = p.mech;
      if (p.mech == mechanism::blh || p.mech == mechanism::olh) {
        r.g_or_k = static_cast<uint32_t>(p.get(field::hash_range));
      } else if (p.mech == mechanism::flh) {
        r.g_or_k = static_cast<uint32_t>(p.get(field::sketch_rows));
        r.m = static_cast<uint32_t>(p.get(field::hash_range));
      } else if (p.mech == mechanism::cms || p.mech == mechanism::hcms) {
        r.g_or_k = static_cast<uint32_t>(p.get(field::sketch_rows));
        r.m = static_cast<uint32_t>(p.get(field::sketch_columns));
      }
      r.variance_per_report = leading_variance(p, n);
      r.estimate_cost = estimate_cost(p, n);
      if (!std::isfinite(r.variance_per_report)) continue;
      r.std_error = std::sqrt(static_cast<double>(n) * r.variance_per_report);
      r.report_bytes = wire::max_report_size(p);
      out.push_back(r);
    }
    std::stable_sort(out.begin(), out.end(), [](const recommendation& a, const recommendation& b) {
      const bool a_over = a.estimate_cost > estimate_budget, b_over = b.estimate_cost > estimate_budget;
      if (a_over != b_over) return b_over;
      return a.variance_per_report < b.variance_per_report;
    });
    return out;
  } catch (...) {
    return {};
  }
}

}  // namespace ldp::server
