// The driver of the Kent, Berrett and Yu protocols (ldp/server/user_level.h states the design).
#include "ldp/server/user_level.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "estimation.h"
#include "integer_fwht.h"
#include "ldp/random/rotation.h"
#include "ldp/wire/epsilon.h"
#include "ldp/wire/mean_params.h"
#include "ldp/wire/oracle_params.h"

namespace ldp::server {
namespace {

using wire::field;

constexpr double vote_gap = 0.45;                  // vote-share gap of the best neighbour over a wrong cell
constexpr double vote_miss = 1e-3;                 // N Phi(-z) at most this
constexpr uint64_t max_cells = uint64_t{1} << 24;  // unary_bits reports (wire_format.md 3.3)
constexpr double infinity = std::numeric_limits<double>::infinity();

// The largest T~ whose cells keep the vote reliable for m voters per fold (user_level.h):
// N_max = floor(10^-3 / Phi(-z)) cells, and h(T~) >= W / N_max.
uint32_t reliable_cap(uint64_t voters, double alpha, double log_term, double c_h, double spread) {
  const double z = std::sqrt(2.0 * static_cast<double>(voters)) * std::tanh(alpha / 4) * vote_gap;
  const double tail = 0.5 * std::erfc(z / std::sqrt(2.0));
  const double cells = std::max(2.0, std::floor(vote_miss / tail));  // inf when the tail is 0
  const double cap = std::floor(c_h * log_term * cells * cells / (4 * spread));
  return cap >= 4294967295.0 ? UINT32_MAX : cap < 1 ? 1 : static_cast<uint32_t>(cap);
}

bool same_shape(const wire::kent_shape& a, const wire::kent_shape& b) {
  if (a.basis != b.basis || a.frac_bits != b.frac_bits || a.clip_lo != b.clip_lo || a.clip_hi != b.clip_hi ||
      a.observations != b.observations || a.vector_dim != b.vector_dim || a.fold_coordinate != b.fold_coordinate ||
      a.hadamard_dim != b.hadamard_dim || (a.rotation_seed == nullptr) != (b.rotation_seed == nullptr)) {
    return false;
  }
  return a.rotation_seed == nullptr || std::equal(a.rotation_seed, a.rotation_seed + wire::seed_size, b.rotation_seed);
}

}  // namespace

uint32_t user_level_protocol::m5_basis_size(uint64_t users, uint32_t observations, uint32_t cap, double alpha,
                                            double smoothness, double constant) noexcept {
  if (!wire::valid_epsilon(alpha) || users == 0 || observations == 0 || !(smoothness > 0) || !(constant > 0)) {
    return 0;
  }
  const double t = cap != 0 && cap < observations ? cap : observations;
  const double signal = static_cast<double>(users) * alpha * alpha;
  const double balance = std::pow(signal * t, 1 / (2 * smoothness + 2));
  const double folds = signal / (constant * std::max(1.0, std::log(signal)));
  const double k = std::floor(std::min({balance, folds, 4294967295.0}));
  if (!(k >= 3)) return 3;
  const auto odd = static_cast<uint32_t>(k);
  return odd % 2 == 1 ? odd : odd - 1;
}

status user_level_protocol::create(const user_level_config& given, user_level_protocol* out) noexcept {
  if (out == nullptr) return status::invalid_argument;
  try {
    user_level_config c = given;
    if (c.method == user_level_method::m5) {  // the features' range and count (user_level.h)
      const uint32_t k = c.basis_size != 0
                             ? c.basis_size
                             : m5_basis_size(c.users, c.observations, c.cap, c.alpha, c.smoothness, c.basis_constant);
      if (k < 2) return status::invalid_argument;
      c.basis_size = k;
      c.dimension = k - 1;
      c.lo = -1;
      c.hi = 1;
    }
    user_level_protocol p;
    p.config_ = c;
    const uint32_t d = c.dimension;
    if (!wire::valid_epsilon(c.alpha) || c.observations == 0 || !(c.c_h > 0) || !(c.lo < c.hi) || d == 0 ||
        d > (uint32_t{1} << 30) || (c.method != user_level_method::m2 && !c.coordinates.empty())) {
      return status::invalid_argument;
    }
    switch (c.method) {
      case user_level_method::m1:
        if (d != 1) return status::invalid_argument;
        p.folds_ = 1;
        break;
      case user_level_method::m2: {
        const std::vector<uint32_t>& cs = c.coordinates;
        for (std::size_t i = 0; i < cs.size(); ++i) {
          if (cs[i] >= d || (i > 0 && cs[i] <= cs[i - 1])) return status::invalid_argument;
        }
        p.folds_ = cs.empty() ? d : static_cast<uint32_t>(cs.size());
        break;
      }
      case user_level_method::m5: p.folds_ = d; break;
      case user_level_method::m3:
        if (c.lo != -c.hi) return status::invalid_argument;
        p.folds_ = random::padded_dim(d);
        break;
      default: return status::invalid_argument;
    }
    if (wire::to_fixed(c.lo, c.frac_bits, &p.lo_) != status::ok ||
        wire::to_fixed(c.hi, c.frac_bits, &p.hi_) != status::ok || p.lo_ >= p.hi_) {
      return status::invalid_argument;
    }
    const uint64_t folds = p.folds_, n = c.users;
    const bool two_possible = n / 2 >= folds && n - n / 2 >= folds;
    if (n < folds || (c.plan == user_level_plan::two_stage && !two_possible)) return status::invalid_argument;

    const double width = c.hi - c.lo;
    const double spread = c.method == user_level_method::m3 ? static_cast<double>(folds) : 1.0;
    const double signal = static_cast<double>(n) * c.alpha * c.alpha / static_cast<double>(folds);
    const double log_term = std::max(1.0, std::log(signal));
    const uint32_t cap = c.cap != 0 ? c.cap : reliable_cap(n / 2 / folds, c.alpha, log_term, c.c_h, spread);
    p.used_ = std::min(c.observations, cap);
    const double h = width / 2 * std::sqrt(c.c_h * log_term / (spread * p.used_));
    const uint64_t grid = static_cast<uint64_t>(p.hi_) - static_cast<uint64_t>(p.lo_);
    const double wanted = std::ceil(width / h);
    const uint64_t limit = std::min(max_cells, grid);  // no cell narrower than one grid unit
    p.cells_ = wanted >= static_cast<double>(limit) ? static_cast<uint32_t>(limit)
                                                    : static_cast<uint32_t>(std::max(2.0, wanted));
    if (p.cells_ < 2) return status::invalid_argument;
    p.cell_width_ = width / p.cells_;
    p.data_variance_ = width * width / 4 / (spread * p.used_);
    p.refiners_two_ = (n - n / 2) / folds;
    p.refiners_single_ = n / folds;
    p.two_stage_ = c.plan == user_level_plan::two_stage || (c.plan == user_level_plan::choose && two_possible &&
                                                            p.predicted_error(true) < p.predicted_error(false));

    p.vote_blocks_.reserve(p.folds_);
    p.single_blocks_.reserve(p.folds_);
    for (uint32_t f = 0; f < p.folds_; ++f) {
      const wire::derived_params vote = wire::make_kent_vote(c.alpha, p.cells_, p.shape(f));
      const wire::derived_params single = wire::make_kent_refine(c.alpha, p.lo_, p.hi_, p.shape(f));
      if (vote.code != status::ok || single.code != status::ok) return status::invalid_argument;
      p.vote_blocks_.push_back(vote.block);
      p.single_blocks_.push_back(single.block);
    }
    *out = std::move(p);
    return status::ok;
  } catch (...) {  // std::bad_alloc
    return status::overflow;
  }
}

double user_level_protocol::predicted_error(bool two_stage) const noexcept {
  const double width = config_.hi - config_.lo;
  const double interval = two_stage ? std::min(width, (2.0 * config_.expansion + 1) * cell_width_) : width;
  const double noise = 2 * (interval / config_.alpha) * (interval / config_.alpha);  // Laplace: 2 b^2
  const uint64_t refiners = two_stage ? refiners_two_ : refiners_single_;
  return refiners == 0 ? infinity : (data_variance_ + noise) / static_cast<double>(refiners);
}

user_assignment user_level_protocol::assign(uint64_t user) const noexcept {
  user_assignment a;
  const uint64_t n = config_.users;
  if (user >= n) return a;
  const uint64_t voters = two_stage_ ? n / 2 : 0;
  a.round = user < voters ? 1 : 2;
  a.fold = static_cast<uint32_t>((user < voters ? user : user - voters) % folds_);
  return a;
}

wire::kent_shape user_level_protocol::shape(uint32_t fold) const noexcept {
  wire::kent_shape s;
  s.frac_bits = config_.frac_bits;
  s.clip_lo = lo_;
  s.clip_hi = hi_;
  s.observations = used_;
  if (config_.method != user_level_method::m1) {
    s.vector_dim = config_.dimension;
    s.fold_coordinate = coordinate(fold);
  }
  if (config_.method == user_level_method::m3) {
    s.hadamard_dim = folds_;
    s.rotation_seed = config_.rotation_seed;
  }
  if (config_.method == user_level_method::m5) s.basis = 1;
  return s;
}

status user_level_protocol::refine_block(uint32_t fold, const aggregator& votes, wire::params* out) const noexcept {
  if (out == nullptr || !two_stage_ || fold >= folds_) return status::invalid_argument;
  const wire::params& vote = vote_blocks_[fold];
  if (votes.fingerprint() != wire::fingerprint(vote)) return status::parameter_mismatch;
  try {
    const std::vector<estimate> counts = votes.estimate_all();
    if (counts.size() != cells_) return status::overflow;
    uint32_t best = 0;
    for (uint32_t k = 1; k < cells_; ++k) {
      if (counts[k].value > counts[best].value) best = k;  // strict: ties keep the lowest index
    }
    const uint32_t e = config_.expansion;
    const uint64_t first = best > e ? best - e : 0;
    const uint64_t last = std::min<uint64_t>(uint64_t{best} + 1 + e, cells_);
    const wire::derived_params refine = wire::make_kent_refine(config_.alpha, wire::range_cell_edge(vote, first),
                                                               wire::range_cell_edge(vote, last), shape(fold));
    if (refine.code != status::ok) return status::invalid_argument;
    *out = refine.block;
    return status::ok;
  } catch (...) {
    return status::overflow;
  }
}

status user_level_protocol::estimate_all(span<const aggregator* const> refines, double confidence,
                                         std::vector<estimate>* out) const noexcept {
  if (out == nullptr) return status::invalid_argument;
  try {
    out->clear();
    if (refines.size() != folds_) return status::invalid_argument;
    std::vector<estimate> folds(folds_);
    for (uint32_t f = 0; f < folds_; ++f) {
      if (refines[f] == nullptr) return status::invalid_argument;
      const wire::params& p = refines[f]->parameters();
      if (p.mech != wire::mechanism::kent_refine || !same_shape(wire::shape_of(p), shape(f))) {
        return status::parameter_mismatch;
      }
      const std::vector<estimate> one = refines[f]->estimate_all(confidence);
      if (one.size() != 1) return status::overflow;
      folds[f] = one[0];
      folds[f].item = coordinate(f);
    }
    if (config_.method != user_level_method::m3) {
      *out = std::move(folds);
      return status::ok;
    }
    // x-hat = D H theta-hat / sqrt(d~); Var(x-hat_i) = sum_j Var(theta-hat_j) / d~ for every i.
    std::vector<double> theta(folds_);
    double variance = 0;
    for (uint32_t f = 0; f < folds_; ++f) {
      theta[f] = folds[f].value;
      variance += folds[f].variance;
    }
    detail::fwht(theta.data(), theta.size());
    std::vector<uint32_t> signs(random::rotation_sign_words(folds_));
    if (random::rotation_signs(config_.rotation_seed, folds_, signs) != status::ok) {
      return status::invalid_argument;
    }
    const double scale = 1 / std::sqrt(static_cast<double>(folds_));
    const double z = detail::confidence_z(confidence);
    out->reserve(config_.dimension);
    for (uint32_t i = 0; i < config_.dimension; ++i) {
      const bool flip = ((signs[i / 32] >> (i % 32)) & 1u) != 0;
      const double value = (flip ? -theta[i] : theta[i]) * scale;
      out->push_back(detail::make_estimate(i, value, variance / folds_, z, variance_kind::exact));
    }
    return status::ok;
  } catch (...) {
    out->clear();
    return status::overflow;
  }
}

// f-hat(x) = 1 + 2 sum_j theta-hat_j c_j(x), Var = 4 sum_j c_j(x)^2 Var(theta-hat_j) (user_level.h);
// c_j in double here: the server needs no bit identity with the devices for it.
status user_level_protocol::density(span<const estimate> features, uint32_t points, double confidence, bool clip,
                                    std::vector<density_point>* out) const noexcept {
  if (out == nullptr) return status::invalid_argument;
  try {
    out->clear();
    if (config_.method != user_level_method::m5 || points == 0 || features.size() != folds_) {
      return status::invalid_argument;
    }
    const double z = detail::confidence_z(confidence);
    const double two_pi = 2 * std::acos(-1.0);
    out->resize(points);
    for (uint32_t i = 0; i < points; ++i) {
      density_point& d = (*out)[i];
      d.x = (i + 0.5) / points;
      d.value = 1;
      for (uint32_t j = 0; j < folds_; ++j) {
        const double angle = two_pi * (j / 2 + 1) * d.x;
        const double c = j % 2 == 0 ? std::cos(angle) : std::sin(angle);
        d.value += 2 * features[j].value * c;
        d.variance += 4 * c * c * features[j].variance;
      }
      const double half = z * std::sqrt(d.variance);
      d.ci_low = d.value - half;
      d.ci_high = d.value + half;
    }
    if (!clip) return status::ok;
    double mass = 0;
    for (const density_point& d : *out) mass += std::max(d.value, 0.0) / points;
    if (!(mass > 0)) return status::ok;  // nothing positive to renormalize: left unclipped
    for (density_point& d : *out) {
      d.value = std::max(d.value, 0.0) / mass;
      d.ci_low = std::max(d.ci_low, 0.0) / mass;
      d.ci_high = std::max(d.ci_high, 0.0) / mass;
    }
    return status::ok;
  } catch (...) {
    out->clear();
    return status::overflow;
  }
}

}  // namespace ldp::server
