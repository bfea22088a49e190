// Post-processing of frequency estimates, docs/mechanisms.md A.9. Pure post-processing (no effect on
// privacy) that trades the raw estimates' unbiasedness for consistency; variances and intervals no
// longer apply, so they are set to NaN.
//
// - clip_renormalize: max(c, 0), rescaled to sum n (all zeros stay zeros).
// - norm_sub (Wang et al. 2020): max(c + delta, 0) with delta such that the sum is n, found by
//   sorting (the largest prefix whose shifted values stay positive).
// - simplex: the Euclidean projection of the frequencies c/n onto the probability simplex (Duchi,
//   Shalev-Shwartz, Singer, Chandra 2008; Wang & Carreira-Perpinan 2013), times n.
// Norm-Sub is itself the Euclidean projection onto {x >= 0, sum x = n}, so the last two agree up to
// rounding; both are idempotent.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "ldp/server/frequency.h"

namespace ldp::server {
namespace {

// Returns shift with sum_i max(v_i + shift, 0) = target, for target > 0 (sort-based, O(d log d)).
double shift_to_sum(const std::vector<double>& values, double target) {
  std::vector<double> sorted(values);
  std::sort(sorted.begin(), sorted.end(), std::greater<double>());
  double prefix = 0, best_prefix = 0;
  std::size_t best = 0;
  for (std::size_t j = 0; j < sorted.size(); ++j) {
    prefix += sorted[j];
    // Keep the largest j + 1 with sorted[j] + (target - prefix)/(j + 1) > 0; it holds for a prefix
    // of j (always for j = 0 when target > 0).
    if (sorted[j] + (target - prefix) / static_cast<double>(j + 1) > 0) {
      best = j + 1;
      best_prefix = prefix;
    }
  }
  return best == 0 ? 0.0 : (target - best_prefix) / static_cast<double>(best);
}

void project(std::vector<double>& values, double target) {
  if (!(target > 0) || values.empty()) {
    std::fill(values.begin(), values.end(), 0.0);
    return;
  }
  const double shift = shift_to_sum(values, target);
  for (double& v : values) v = std::max(v + shift, 0.0);
}

}  // namespace

std::vector<estimate> apply_postprocess(span<const estimate> raw, uint64_t n, postprocess how) {
  try {
    std::vector<estimate> out(raw.begin(), raw.end());
    if (how == postprocess::none) return out;
    std::vector<double> c(out.size());
    for (std::size_t i = 0; i < out.size(); ++i) c[i] = std::isfinite(out[i].value) ? out[i].value : 0.0;
    const auto total = static_cast<double>(n);
    switch (how) {
      case postprocess::clip_renormalize: {
        double sum = 0;
        for (double& v : c) {
          v = std::max(v, 0.0);
          sum += v;
        }
        if (sum > 0) {
          for (double& v : c) v = v / sum * total;
        }
        break;
      }
      case postprocess::norm_sub: project(c, total); break;
      case postprocess::simplex: {
        if (n == 0) {
          std::fill(c.begin(), c.end(), 0.0);
          break;
        }
        for (double& v : c) v /= total;
        project(c, 1.0);
        for (double& v : c) v *= total;
        break;
      }
      default: return {};
    }
    const double nan = std::numeric_limits<double>::quiet_NaN();
    for (std::size_t i = 0; i < out.size(); ++i) {
      out[i].value = c[i];
      out[i].variance = out[i].ci_low = out[i].ci_high = nan;
    }
    return out;
  } catch (...) {
    return {};
  }
}

}  // namespace ldp::server
