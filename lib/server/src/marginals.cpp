#include "ldp/server/marginals.h"

#include <cmath>

#include "estimation.h"
#include "ldp/wire/marginals.h"

namespace ldp::server {
namespace {

using wire::field;

uint32_t popcount(uint64_t v) {
  uint32_t n = 0;
  for (; v != 0; v &= v - 1) ++n;
  return n;
}

uint32_t attributes_of(const wire::params& p) { return static_cast<uint32_t>(p.get(field::vector_dim)); }

bool valid_set(const wire::params& p, uint64_t set) {
  const uint32_t attributes = attributes_of(p), size = popcount(set);
  return (attributes >= 64 || (set >> attributes) == 0) && size >= 1 && size <= p.get(field::marginal_order);
}

bool fits(const wire::params& p, span<const estimate> coordinates) {
  return p.mech == wire::mechanism::kway_marginals && coordinates.size() == p.get(field::domain);
}

// Accumulates sum_S w_S f-hat(S) and sum_S w_S^2 var(S); the empty set is 1 exactly.
struct combination {
  const wire::params& p;
  span<const estimate> coordinates;
  double value = 0;
  double variance = 0;

  void add(uint64_t set, double weight) {
    if (set == 0) {
      value += weight;
      return;
    }
    const estimate& e = coordinates[wire::conjunction_index(attributes_of(p), set)];
    value += weight * e.value;
    variance += weight * weight * e.variance;
  }
};

// The product of two polynomials given by their monomial coefficients.
std::vector<double> times(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> out(a.size() + b.size() - 1, 0.0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    for (std::size_t j = 0; j < b.size(); ++j) out[i + j] += a[i] * b[j];
  }
  return out;
}

// The degree r of the Chebyshev factor and its power m (0, 0: the exact polynomial is used).
struct chebyshev_shape {
  uint32_t r = 0;
  uint32_t m = 0;
};

chebyshev_shape shape_of(uint32_t k, double gamma) {
  if (k < 2) return {};
  const auto r = static_cast<uint32_t>(std::ceil(std::sqrt(static_cast<double>(k - 1))));
  const auto m = static_cast<uint32_t>(std::ceil(std::log2(1 / gamma)));
  if (static_cast<uint64_t>(r) * m >= k) return {};
  return {r, m};
}

double chebyshev_value(uint32_t r, double u) {
  double previous = 1, current = u;
  if (r == 0) return previous;
  for (uint32_t i = 1; i < r; ++i) {
    const double next = 2 * u * current - previous;
    previous = current;
    current = next;
  }
  return current;
}

}  // namespace

status conjunction_estimate(const wire::params& p, span<const estimate> coordinates, uint64_t set, double confidence,
                            estimate* out) noexcept {
  if (!fits(p, coordinates) || !valid_set(p, set)) return status::invalid_argument;
  const estimate& e = coordinates[wire::conjunction_index(attributes_of(p), set)];
  *out = detail::make_estimate(e.item, e.value, e.variance, detail::confidence_z(confidence), e.kind);
  return status::ok;
}

status marginal_estimate(const wire::params& p, span<const estimate> coordinates, span<const uint32_t> attributes,
                         double confidence, marginal_table* out) noexcept {
  uint64_t set = 0;
  for (uint32_t a : attributes) {
    if (a >= attributes_of(p) || (set >> a & 1) != 0) return status::invalid_argument;
    set |= uint64_t{1} << a;
  }
  if (!fits(p, coordinates) || !valid_set(p, set)) return status::invalid_argument;
  try {
    const std::size_t width = attributes.size();
    // The conjunction of the attributes at the positions `positions` (bit i: attributes[i]).
    const auto conjunction = [&](uint64_t positions) {
      uint64_t s = 0;
      for (std::size_t i = 0; i < width; ++i) {
        if ((positions >> i & 1) != 0) s |= uint64_t{1} << attributes[i];
      }
      return s;
    };
    marginal_table table;
    table.attributes.assign(attributes.begin(), attributes.end());
    const uint64_t all = (uint64_t{1} << width) - 1;
    for (uint64_t cell = 0; cell <= all; ++cell) {
      // Inclusion-exclusion over the zeros of the cell: T = ones(c) plus a subset U of its zeros.
      combination sum{p, coordinates};
      const uint64_t zeros = all & ~cell;
      for (uint64_t u = zeros;; u = (u - 1) & zeros) {
        sum.add(conjunction(cell | u), popcount(u) % 2 == 0 ? 1.0 : -1.0);
        if (u == 0) break;
      }
      table.cells.push_back(detail::make_estimate(static_cast<uint32_t>(cell), sum.value, sum.variance,
                                                  detail::confidence_z(confidence), coordinates[0].kind));
    }
    *out = std::move(table);
    return status::ok;
  } catch (...) {
    return status::overflow;
  }
}

status disjunction_estimate(const wire::params& p, span<const estimate> coordinates, uint64_t set,
                            span<const double> weights, double confidence, estimate* out) noexcept {
  if (!fits(p, coordinates) || !valid_set(p, set)) return status::invalid_argument;
  combination sum{p, coordinates};
  for (uint64_t s = set; s != 0; s = (s - 1) & set) {
    const uint32_t size = popcount(s);
    if (size <= weights.size()) sum.add(s, weights[size - 1]);
  }
  *out = detail::make_estimate(0, sum.value, sum.variance, detail::confidence_z(confidence), coordinates[0].kind);
  return status::ok;
}

std::vector<double> disjunction_polynomial(uint32_t k, double gamma) {
  if (k == 0 || !(gamma > 0 && gamma < 1)) return {};
  const chebyshev_shape shape = shape_of(k, gamma);
  std::vector<double> q{1.0};
  if (shape.r == 0) {
    // prod_{j=1..k} (1 - x / j): 1 at x = 0, 0 at x = 1..k.
    for (uint32_t j = 1; j <= k; ++j) q = times(q, {1.0, -1.0 / j});
  } else {
    // T_r(u) / T_r(alpha) at u = alpha + beta x, alpha = k / (k - 1), beta = -1 / (k - 1), by
    // Horner's rule over the monomials of T_r (T_{i+1} = 2 u T_i - T_{i-1}); then its m-th power.
    const double alpha = static_cast<double>(k) / (k - 1), beta = -1.0 / (k - 1);
    std::vector<double> previous{1.0}, current{0.0, 1.0};
    for (uint32_t i = 1; i < shape.r; ++i) {
      std::vector<double> next(current.size() + 1, 0.0);
      for (std::size_t j = 0; j < current.size(); ++j) next[j + 1] += 2 * current[j];
      for (std::size_t j = 0; j < previous.size(); ++j) next[j] -= previous[j];
      previous = std::move(current);
      current = std::move(next);
    }
    std::vector<double> factor{current.back()};
    for (std::size_t j = current.size() - 1; j-- > 0;) {
      factor = times(factor, {alpha, beta});
      factor[0] += current[j];
    }
    const double scale = chebyshev_value(shape.r, alpha);
    for (double& c : factor) c /= scale;
    for (uint32_t i = 0; i < shape.m; ++i) q = times(q, factor);
  }
  for (double& c : q) c = -c;
  q[0] = 0;  // 1 - q(0) with q(0) = 1 exactly (the ratio of equal values; the product's constant 1)
  return q;
}

double disjunction_polynomial_value(uint32_t k, double gamma, double x) noexcept {
  const chebyshev_shape shape = shape_of(k, gamma);
  double q = 1;
  if (shape.r == 0) {
    for (uint32_t j = 1; j <= k; ++j) q *= 1 - x / j;
  } else {
    const double ratio =
        chebyshev_value(shape.r, (k - x) / (k - 1)) / chebyshev_value(shape.r, static_cast<double>(k) / (k - 1));
    for (uint32_t i = 0; i < shape.m; ++i) q *= ratio;
  }
  return 1 - q;
}

std::vector<double> subset_weights(const std::vector<double>& monomials, uint32_t k) {
  if (monomials.empty()) return {};
  const std::size_t degree = monomials.size() - 1;
  const std::size_t sizes = degree < k ? degree : k;
  // surjections[s] = F(m, s) = s! S(m, s) (the surjections of m onto s) for the current m, from
  // S(m, s) = s S(m - 1, s) + S(m - 1, s - 1): F(m, s) = s (F(m - 1, s) + F(m - 1, s - 1)), F(0, 0) = 1.
  std::vector<double> surjections(degree + 1, 0.0), weights(sizes, 0.0);
  surjections[0] = 1;
  for (std::size_t m = 1; m <= degree; ++m) {
    for (std::size_t s = m; s >= 1; --s)
      surjections[s] = static_cast<double>(s) * (surjections[s] + surjections[s - 1]);
    surjections[0] = 0;
    for (std::size_t s = 1; s <= sizes && s <= m; ++s) weights[s - 1] += monomials[m] * surjections[s];
  }
  return weights;
}

}  // namespace ldp::server
