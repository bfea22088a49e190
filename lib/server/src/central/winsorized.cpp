// The two rounds of Levy et al.'s WinsorizedMeanHighD as aggregator families, the window selection
// between them, the release, and the one-shot form (docs/mechanisms.md C.2; winsorized.h states the
// variants).
//
// State bodies (after the common part of aggregator.cpp), little-endian:
//   winsorized-bins   d~ x l u64   counts[j][k], coordinate-major: users whose rotated coordinate j
//                                  fell in bin k (each coordinate's counts sum to n)
//   winsorized-sums   the window list (wire_format.md 3.6; its digest must be the block's), then
//                     d~ x i64 sums[j] of the clamped rotated values (|sums[j] - n mid_j| <= n w).
//                     A state saved before set_windows has an all-zero list and does not load
//                     (unsupported_version: its version byte is 0).
#include <algorithm>
#include <cmath>

#include "estimation.h"
#include "family.h"
#include "integer_fwht.h"
#include "kernel_access.h"
#include "ldp/base/bits.h"
#include "ldp/base/int128.h"
#include "ldp/random/rotation.h"
#include "ldp/server/central/winsorized.h"
#include "ldp/wire/central_params.h"
#include "state_io.h"
#include "winsorized_detail.h"

namespace ldp::server {
namespace {

using wire::field;

std::size_t rotated_dim(const wire::params& p) { return static_cast<std::size_t>(p.get(field::hadamard_dim)); }

status sign_words(const wire::params& p, std::vector<uint32_t>* words) {
  const auto padded = static_cast<uint32_t>(p.get(field::hadamard_dim));
  words->assign(random::rotation_sign_words(padded), 0);
  return random::rotation_signs(p.rotation_seed, padded, *words);
}

}  // namespace

// ---- Rotation on the server -------------------------------------------------------------------------

status detail::rotate_mean(const wire::params& p, span<const int64_t> mean, std::vector<int32_t>& y) {
  const auto d = static_cast<std::size_t>(p.get(field::vector_dim));
  if (mean.size() != d) return status::invalid_argument;
  const int64_t lo = p.get_signed(field::clip_lo), hi = p.get_signed(field::clip_hi);
  y.assign(rotated_dim(p), 0);
  for (std::size_t i = 0; i < d; ++i) y[i] = static_cast<int32_t>(std::clamp(mean[i], lo, hi));  // |x| < 2^31
  std::vector<uint32_t> words;
  const status s = sign_words(p, &words);
  if (s != status::ok) return s;
  kernel_table().rotate_i32(y.data(), words.data(), padded_log2(static_cast<uint32_t>(y.size())));
  return status::ok;
}

status detail::unrotate(const wire::params& p, std::vector<double> y, double scale, std::vector<double>* x) {
  std::vector<uint32_t> words;
  const status s = sign_words(p, &words);
  if (s != status::ok) return s;
  fwht(y.data(), y.size());  // H is symmetric and H H = d~ I: x = D H y / d~
  const auto d = static_cast<std::size_t>(p.get(field::vector_dim));
  x->assign(d, 0);
  const double factor = scale / static_cast<double>(y.size());
  for (std::size_t i = 0; i < d; ++i) {
    const bool negative = ((words[i / 32] >> (i % 32)) & 1u) != 0;
    (*x)[i] = (negative ? -y[i] : y[i]) * factor;
  }
  return status::ok;
}

// ---- Round 1 ------------------------------------------------------------------------------------

winsorized_bins_aggregator::winsorized_bins_aggregator(const wire::params& p, std::size_t cells)
    : aggregator(p),
      bins_(static_cast<std::size_t>(wire::winsorized_bin_count(p))),
      counts_(cells, 0),
      scratch_(rotated_dim(p)) {}

status winsorized_bins_aggregator::ingest(const wire::report& r) noexcept {
  const status s = wire::read_vector(r, scratch_);
  if (s != status::ok) return s;
  for (int64_t k : scratch_) {
    if (k < 0 || static_cast<uint64_t>(k) >= bins_) return status::out_of_range;
  }
  for (std::size_t j = 0; j < scratch_.size(); ++j) ++counts_[j * bins_ + static_cast<std::size_t>(scratch_[j])];
  return status::ok;
}

status winsorized_bins_aggregator::merge_counts(const aggregator& other) {
  const auto& o = static_cast<const winsorized_bins_aggregator&>(other);
  for (std::size_t i = 0; i < counts_.size(); ++i) counts_[i] += o.counts_[i];  // each <= n <= 2^62
  return status::ok;
}

void winsorized_bins_aggregator::write_body(std::vector<unsigned char>& out) const { detail::put_u64s(out, counts_); }

status winsorized_bins_aggregator::read_body(span<const unsigned char> body) {
  const status s = detail::read_u64s(body, counts_);
  if (s != status::ok) return s;
  for (std::size_t j = 0; j < rotated_dim(params_); ++j) {
    uint64_t total = 0;
    for (std::size_t k = 0; k < bins_; ++k) {
      if (!checked_add(total, counts_[j * bins_ + k], &total)) return status::malformed_report;
    }
    if (total != reports_) return status::malformed_report;
  }
  return status::ok;
}

std::vector<bin_count> winsorized_bins_aggregator::histogram(std::size_t j) const {
  std::vector<bin_count> out;
  for (std::size_t k = 0; k < bins_; ++k) {
    if (counts_[j * bins_ + k] != 0) out.push_back({k, counts_[j * bins_ + k]});
  }
  return out;
}

std::vector<estimate> winsorized_bins_aggregator::estimate_impl(double) const {
  std::vector<estimate> out;
  for (std::size_t j = 0; j < rotated_dim(params_); ++j) {
    uint64_t below = 0;
    std::size_t k = 0;
    while (k + 1 < bins_ && 2 * (below + counts_[j * bins_ + k]) <= reports_) below += counts_[j * bins_ + k++];
    const auto mid = static_cast<double>(wire::winsorized_midpoint(params_, static_cast<uint32_t>(k)));
    out.push_back(estimate{static_cast<uint32_t>(j), mid, 0.0, mid, mid});
  }
  return out;
}

status detail::make_winsorized_bins_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  uint64_t cells = 0;
  std::size_t size = 0;
  if (!checked_mul(p.get(field::hadamard_dim), wire::winsorized_bin_count(p), &cells) || !cell_count(cells, &size)) {
    return status::overflow;
  }
  *out = std::make_unique<winsorized_bins_aggregator>(p, size);
  return status::ok;
}

bool detail::winsorized_bins_body_size(const wire::params& p, uint64_t, uint64_t* bytes) {
  uint64_t cells = 0;
  return checked_mul(p.get(field::hadamard_dim), wire::winsorized_bin_count(p), &cells) && checked_mul(cells, 8, bytes);
}

status select_windows(const aggregator& round1, double eps_coordinate, window_rule rule, random::drbg& rng,
                      window_selection* out) noexcept {
  *out = window_selection{};
  const auto* bins = dynamic_cast<const winsorized_bins_aggregator*>(&round1);
  if (bins == nullptr || round1.reports() == 0) return status::invalid_argument;
  const wire::params& p = round1.parameters();
  try {
    window_selection r;
    const uint64_t l = wire::winsorized_bin_count(p);
    for (std::size_t j = 0; j < rotated_dim(p); ++j) {
      uint64_t k = 0;
      const std::vector<bin_count> h = bins->histogram(j);
      const status s = private_range(h, l, eps_coordinate / 2, rng, &k, &r.epsilon_impl);
      if (s != status::ok) return s;
      r.bins.push_back(static_cast<uint32_t>(k));
    }
    r.window_list.resize(wire::window_list_size(p));
    std::size_t written = 0;
    status s = wire::encode_window_list(p, r.bins, r.window_list, &written);
    if (s != status::ok) return s;
    s = wire::make_winsorized_sums(p, window_half_width(p.get(field::bin_half_width), rule), r.window_list, &r.round2);
    if (s != status::ok) return status::invalid_argument;  // B + w beyond the format's limit
    *out = std::move(r);
    return status::ok;
  } catch (...) {
    return status::overflow;
  }
}

// ---- Round 2 ------------------------------------------------------------------------------------

winsorized_sums_aggregator::winsorized_sums_aggregator(const wire::params& p)
    : aggregator(p), sums_(rotated_dim(p), 0), scratch_(rotated_dim(p)) {}

status winsorized_sums_aggregator::set_windows(span<const unsigned char> window_list) noexcept {
  const status s = wire::check_window_list(params_, window_list);
  if (s != status::ok) return s;
  if (has_windows()) {
    return std::equal(windows_.begin(), windows_.end(), window_list.begin()) ? status::ok : status::parameter_mismatch;
  }
  try {
    std::vector<uint32_t> bins(rotated_dim(params_));
    for (std::size_t j = 0; j < bins.size(); ++j) bins[j] = wire::window_list_bin(params_, window_list, j);
    windows_.assign(window_list.begin(), window_list.end());
    bins_ = std::move(bins);
    return status::ok;
  } catch (...) {
    windows_.clear();
    return status::overflow;
  }
}

status winsorized_sums_aggregator::ingest(const wire::report& r) noexcept {
  if (!has_windows()) return status::invalid_argument;
  const status s = wire::read_vector(r, scratch_);
  if (s != status::ok) return s;
  const auto w = static_cast<int64_t>(params_.get(field::window_half_width));
  for (std::size_t j = 0; j < scratch_.size(); ++j) {
    const int64_t mid = wire::winsorized_midpoint(params_, bins_[j]);
    if (scratch_[j] < mid - w || scratch_[j] > mid + w) return status::out_of_range;
    int64_t unused = 0;
    if (!checked_add(sums_[j], scratch_[j], &unused)) return status::overflow;
  }
  for (std::size_t j = 0; j < scratch_.size(); ++j) sums_[j] += scratch_[j];
  return status::ok;
}

status winsorized_sums_aggregator::merge_counts(const aggregator& other) {
  const auto& o = static_cast<const winsorized_sums_aggregator&>(other);
  // Equal blocks have equal digests, so two window lists never differ; a state without windows
  // merges only if it is empty, and into one without windows only what has none.
  if (o.windows_ != windows_ && !(o.reports() == 0 && !o.has_windows())) return status::parameter_mismatch;
  std::vector<int64_t> merged(sums_.size());
  for (std::size_t j = 0; j < sums_.size(); ++j) {
    if (!checked_add(sums_[j], o.sums_[j], &merged[j])) return status::overflow;
  }
  sums_.swap(merged);
  return status::ok;
}

void winsorized_sums_aggregator::write_body(std::vector<unsigned char>& out) const {
  if (has_windows()) {
    out.insert(out.end(), windows_.begin(), windows_.end());
  } else {
    out.resize(out.size() + wire::window_list_size(params_), 0);
  }
  for (int64_t v : sums_) detail::put_u64(out, static_cast<uint64_t>(v));
}

status winsorized_sums_aggregator::read_body(span<const unsigned char> body) {
  const std::size_t list = wire::window_list_size(params_);
  if (body.size() != list + 8 * sums_.size()) return status::wrong_length;
  const status s = set_windows(body.first(list));
  if (s != status::ok) return s;
  const auto w = static_cast<uint64_t>(params_.get(field::window_half_width));
  for (std::size_t j = 0; j < sums_.size(); ++j) {
    sums_[j] = static_cast<int64_t>(load_le64(body.data() + list + 8 * j));
    // |sums[j] - n mid_j| <= n (w + 1), exactly in 128 bits: one unit of slack per report, so that
    // the rule holds for the sum of two states that hold it (a merge), which a fixed slack did not.
    const int64_t mid = wire::winsorized_midpoint(params_, bins_[j]);
    const u128 n_mid = mul_64x64(reports_, mid < 0 ? 0 - static_cast<uint64_t>(mid) : static_cast<uint64_t>(mid));
    const i128 n_mid_signed = mid < 0 ? i128{} - i128{n_mid.hi, n_mid.lo} : i128{n_mid.hi, n_mid.lo};
    const u128 offset = magnitude(to_i128(sums_[j]) - n_mid_signed);
    if (mul_64x64(reports_, w + 1) < offset) return status::malformed_report;
  }
  return status::ok;
}

std::vector<estimate> winsorized_sums_aggregator::estimate_impl(double) const {
  if (reports_ == 0 || !has_windows()) return {};
  std::vector<double> y(sums_.begin(), sums_.end());
  std::vector<double> x;
  if (detail::unrotate(params_, std::move(y), detail::grid_step(params_) / static_cast<double>(reports_), &x) !=
      status::ok) {
    return {};
  }
  std::vector<estimate> out;
  for (std::size_t i = 0; i < x.size(); ++i) out.push_back(estimate{static_cast<uint32_t>(i), x[i], 0.0, x[i], x[i]});
  return out;
}

status detail::make_winsorized_sums_aggregator(const wire::params& p, std::unique_ptr<aggregator>* out) {
  *out = std::make_unique<winsorized_sums_aggregator>(p);
  return status::ok;
}

bool detail::winsorized_sums_body_size(const wire::params& p, uint64_t, uint64_t* bytes) {
  uint64_t sums = 0;
  return checked_mul(p.get(field::hadamard_dim), 8, &sums) && checked_add(sums, wire::window_list_size(p), bytes);
}

status release_winsorized_mean(const aggregator& round2, double eps_coordinate, uint64_t users, random::drbg& rng,
                               winsorized_release* out) noexcept {
  *out = winsorized_release{};
  const auto* sums = dynamic_cast<const winsorized_sums_aggregator*>(&round2);
  if (sums == nullptr || !sums->has_windows()) return status::invalid_argument;
  const uint64_t n = users == 0 ? round2.reports() : users;
  if (n == 0 || n < round2.reports()) return status::invalid_argument;
  const wire::params& p = round2.parameters();
  try {
    winsorized_release r;
    r.users = n;
    const uint64_t width = 2 * p.get(field::window_half_width);  // the clamped sum's sensitivity
    const uint64_t missing = n - round2.reports();
    std::vector<double> noisy(rotated_dim(p));
    for (std::size_t j = 0; j < noisy.size(); ++j) {
      // Missing users count as the midpoint: a data-independent value inside the window.
      const double padded =
          static_cast<double>(sums->sums()[j]) +
          static_cast<double>(missing) * static_cast<double>(wire::winsorized_midpoint(p, sums->window_bin(j)));
      detail::noisy_value v;
      const status s = detail::noisy_sum(0, width, eps_coordinate / 2, rng, &v);
      if (s != status::ok) return s;
      noisy[j] = padded + v.value;
      r.scale_num = v.scale_num;
      r.scale_den = v.scale_den;
      r.epsilon_impl = v.epsilon_impl;
    }
    const double nd = static_cast<double>(n);
    for (double v : noisy) r.rotated_mean.push_back(v / nd);
    const status s = detail::unrotate(p, std::move(noisy), detail::grid_step(p) / nd, &r.mean);
    if (s != status::ok) return s;
    const double t = static_cast<double>(r.scale_num) / static_cast<double>(r.scale_den);
    const double alpha = std::exp(-1 / t);
    const double step = detail::grid_step(p) / nd;
    r.noise_variance = 2 * alpha / ((1 - alpha) * (1 - alpha)) * step * step / static_cast<double>(rotated_dim(p));
    *out = std::move(r);
    return status::ok;
  } catch (...) {
    return status::overflow;
  }
}

// ---- One shot -------------------------------------------------------------------------------------

status winsorized_mean_highd(const wire::params& round1, span<const int64_t> user_means, double eps_coordinate,
                             window_rule rule, random::drbg& rng, winsorized_highd_result* out) noexcept {
  *out = winsorized_highd_result{};
  if (round1.mech != wire::mechanism::winsorized_bins || wire::validate(round1) != status::ok) {
    return status::invalid_argument;
  }
  const auto d = static_cast<std::size_t>(round1.get(field::vector_dim));
  if (user_means.empty() || user_means.size() % d != 0) return status::invalid_argument;
  const std::size_t n = user_means.size() / d;
  try {
    // The users' rotated means and the two payloads they imply, through the aggregators of the
    // two-round form so that both forms share every step.
    std::vector<std::vector<int32_t>> rotated(n);
    for (std::size_t u = 0; u < n; ++u) {
      const status s = detail::rotate_mean(round1, user_means.subspan(u * d, d), rotated[u]);
      if (s != status::ok) return s;
    }
    const auto payload = [](const wire::params& p, const std::vector<int64_t>& values,
                            std::vector<unsigned char>& bytes) {
      wire::report r;
      r.mech = p.mech;
      r.values = values;
      bytes.resize(wire::max_payload_size(p));
      std::size_t size = 0;
      const status s = wire::encode_payload(p, r, bytes, &size);
      bytes.resize(size);
      return s;
    };
    std::unique_ptr<aggregator> bins;
    status s = aggregator::create(round1, &bins);
    if (s != status::ok) return s;
    std::vector<int64_t> values(rotated_dim(round1));
    std::vector<unsigned char> bytes;
    for (const auto& y : rotated) {
      for (std::size_t j = 0; j < values.size(); ++j) values[j] = wire::winsorized_bin(round1, y[j]);
      if ((s = payload(round1, values, bytes)) != status::ok || (s = bins->add_payload(bytes)) != status::ok) return s;
    }
    winsorized_highd_result r;
    if ((s = select_windows(*bins, eps_coordinate, rule, rng, &r.windows)) != status::ok) return s;
    const wire::params& round2 = r.windows.round2;
    std::unique_ptr<aggregator> sums;
    if ((s = aggregator::create(round2, &sums)) != status::ok) return s;
    auto& round2_sums = static_cast<winsorized_sums_aggregator&>(*sums);
    if ((s = round2_sums.set_windows(r.windows.window_list)) != status::ok) return s;
    for (const auto& y : rotated) {
      for (std::size_t j = 0; j < values.size(); ++j)
        values[j] = wire::winsorized_clamp(round2, r.windows.bins[j], y[j]);
      if ((s = payload(round2, values, bytes)) != status::ok || (s = sums->add_payload(bytes)) != status::ok) return s;
    }
    if ((s = release_winsorized_mean(*sums, eps_coordinate, 0, rng, &r.release)) != status::ok) return s;
    *out = std::move(r);
    return status::ok;
  } catch (...) {
    return status::overflow;
  }
}

}  // namespace ldp::server
