// Ghazi et al. Algorithm 7 (docs/mechanisms.md I.3.3): the sparse net, the integer scores and the exact
// exponential-mechanism draw.
#include "ldp/server/central/sparse_net.h"

#include <algorithm>
#include <cmath>
#include <new>

#include "ldp/base/bits.h"
#include "ldp/base/int128.h"
#include "ldp/server/central/exact_sampling.h"
#include "ldp/wire/epsilon.h"

namespace ldp::server {
namespace {

constexpr int epsilon_bits = 20;  // eps' = floor(eps 2^20) / 2^20

bool valid(const sparse_net_options& o) {
  return o.d >= 1 && o.sparsity >= 1 && o.sparsity <= o.d && o.levels >= 1 && o.radius > 0 && std::isfinite(o.radius) &&
         o.n >= 1 && o.loss_bound > 0 && std::isfinite(o.loss_bound) && wire::valid_epsilon(o.epsilon) &&
         o.frac_bits >= 1 && o.frac_bits <= 30;
}

// Depth-first enumeration of the integer multiples c (lexicographic: c_j from -q to q); false once the
// net passes max_points.
struct enumerator {
  const sparse_net_options& o;
  std::vector<int64_t> c;
  std::vector<double>& out;
  uint64_t size = 0;

  bool visit(uint32_t j, uint32_t nonzero, uint64_t mass) {
    if (j == o.d) {
      if (++size > o.max_points) return false;
      const double step = o.radius / o.levels;
      for (int64_t v : c) out.push_back(static_cast<double>(v) * step);
      return true;
    }
    const auto room = static_cast<int64_t>(nonzero < o.sparsity ? o.levels - mass : 0);
    for (int64_t v = -room; v <= room; ++v) {
      c[j] = v;
      const uint64_t magnitude = static_cast<uint64_t>(v < 0 ? -v : v);
      if (!visit(j + 1, nonzero + (v != 0 ? 1 : 0), mass + magnitude)) return false;
    }
    c[j] = 0;
    return true;
  }
};

}  // namespace

double sparse_net_epsilon(double epsilon) noexcept {
  if (!wire::valid_epsilon(epsilon)) return 0;
  return std::floor(std::ldexp(epsilon, epsilon_bits)) / std::ldexp(1.0, epsilon_bits);
}

status sparse_net(const sparse_net_options& options, std::vector<double>* points) noexcept {
  points->clear();
  if (!valid(options)) return status::invalid_argument;
  try {
    enumerator e{options, std::vector<int64_t>(options.d, 0), *points};
    if (!e.visit(0, 0, 0)) {
      points->clear();
      return status::invalid_argument;
    }
  } catch (const std::bad_alloc&) {
    points->clear();
    return status::overflow;
  }
  return status::ok;
}

status sparse_net_scores(const sparse_net_options& options, span<const double> points, const sparse_net_loss& loss,
                         std::vector<uint64_t>* scores) noexcept {
  scores->clear();
  if (!valid(options) || !loss || points.size() % options.d != 0) return status::invalid_argument;
  const std::size_t size = points.size() / options.d;
  const double unit = std::ldexp(1.0, static_cast<int>(options.frac_bits)) / options.loss_bound;
  try {
    scores->assign(size, 0);
    for (std::size_t p = 0; p < size; ++p) {
      const span<const double> w(points.data() + p * options.d, options.d);
      uint64_t total = 0;
      for (std::size_t i = 0; i < options.n; ++i) {
        const double value = loss(i, w);
        if (std::isnan(value)) return status::invalid_argument;
        // Clamping keeps each sample's part in [0, 2^f] grid units: the sensitivity of U is 2^f.
        const double clamped = std::min(std::max(value, 0.0), options.loss_bound);
        if (!checked_add(total, static_cast<uint64_t>(std::nearbyint(clamped * unit)), &total) ||
            total > (uint64_t{1} << 62)) {
          return status::overflow;
        }
      }
      (*scores)[p] = total;
    }
  } catch (const std::bad_alloc&) {
    scores->clear();
    return status::overflow;
  }
  return status::ok;
}

status sparse_net_draw(const sparse_net_options& options, span<const uint64_t> scores, random::drbg& rng,
                       std::size_t* index) noexcept {
  *index = 0;
  if (!valid(options) || scores.size() == 0) return status::invalid_argument;
  const auto eps_num = static_cast<uint64_t>(std::floor(std::ldexp(options.epsilon, epsilon_bits)));
  const uint64_t lowest = *std::min_element(scores.begin(), scores.end());
  // exp(-eps' (U - min U) / (2 2^f)) = exp(-a / b), a = eps_num (U - min U), b = 2^(21 + f): U < 2^63 and
  // eps_num < 2^26 keep a below 2^89.
  const u128 b{0, uint64_t{1} << (epsilon_bits + 1 + options.frac_bits)};
  for (;;) {
    const std::size_t candidate = static_cast<std::size_t>(random::uniform_below64(rng, scores.size()));
    u128 a;
    if (!checked_mul(u128{0, scores[candidate] - lowest}, eps_num, &a)) return status::overflow;
    if (detail::bern_exp_wide(rng, a, b)) {
      *index = candidate;
      return status::ok;
    }
  }
}

status sparse_exponential_mechanism(const sparse_net_options& options, const sparse_net_loss& loss, random::drbg& rng,
                                    sparse_net_choice* out) noexcept {
  *out = sparse_net_choice{};
  try {
    std::vector<double> points;
    status s = sparse_net(options, &points);
    if (s != status::ok) return s;
    std::vector<uint64_t> scores;
    s = sparse_net_scores(options, points, loss, &scores);
    if (s != status::ok) return s;
    std::size_t index = 0;
    s = sparse_net_draw(options, scores, rng, &index);
    if (s != status::ok) return s;
    sparse_net_choice r;
    r.w.assign(points.begin() + static_cast<std::ptrdiff_t>(index * options.d),
               points.begin() + static_cast<std::ptrdiff_t>((index + 1) * options.d));
    r.epsilon_impl = sparse_net_epsilon(options.epsilon);
    r.net_size = scores.size();
    *out = std::move(r);
  } catch (const std::bad_alloc&) {
    return status::overflow;
  }
  return status::ok;
}

}  // namespace ldp::server
