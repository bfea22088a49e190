#include "ldp/device/public_coin.h"

#include "ldp/kernels/kernel_table.h"
#include "ldp/wire/loss.h"

namespace ldp::device {

using wire::field;

status public_coin_context::init(span<std::byte> workspace, const wire::params& p, public_coin_context* out) noexcept {
  *out = public_coin_context{};
  if (!wire::in_family(p.mech, wire::mechanism_family::public_coin)) return status::invalid_argument;
  const status valid = wire::validate(p);
  if (valid != status::ok) return valid;
  const std::size_t bytes = workspace_size(p);
  const status checked = check_workspace(workspace, bytes);
  if (checked != status::ok) return checked;
  out->point_ = carve<double>(workspace, 0, static_cast<std::size_t>(p.get(field::vector_dim)));
  out->block_.accept(p);
  out->partition_ = random::public_partition(kernels::native(), out->block_.params.hash_seed,
                                             static_cast<uint32_t>(p.get(field::users)));
  return status::ok;
}

uint32_t public_coin_context::group_of(uint32_t user) const noexcept {
  return partition_.group(user, wire::coin_groups(block_.params));
}

int64_t public_coin_context::sample(uint32_t user, uint32_t string) const noexcept {
  return random::public_sample(kernels::native(), block_.params.hash_seed, block_.params.get(field::scale_num),
                               block_.params.get(field::scale_den), user, string);
}

status public_coin_context::loss_at_group(const learner_example& e, double* ell) noexcept {
  const wire::params& p = block_.params;
  const auto dim = static_cast<uint32_t>(p.get(field::vector_dim));
  if (e.user >= p.get(field::users)) return status::invalid_argument;
  wire::grid_point(dim, static_cast<uint32_t>(p.get(field::grid_size)), group_of(e.user), point_.data());
  const auto kind = static_cast<wire::loss_kind>(p.get(field::loss));
  double value = 0;
  if (kind == wire::loss_kind::caller) {
    if (e.loss == nullptr) return status::invalid_argument;
    value = e.loss(point_.data(), dim, e.loss_user);
  } else {
    if (e.x == nullptr || e.dim != dim) return status::invalid_argument;
    value = wire::loss_value(kind, point_.data(), e.x, dim, e.label);
  }
  if (value != value) return status::invalid_argument;  // NaN, before anything is drawn
  *ell = value < 0 ? 0 : (value > 1 ? 1 : value);
  return status::ok;
}

status public_coin_context::randomize(const learner_example& e, random::drbg& rng, span<unsigned char> out, framing f,
                                      std::size_t* written) noexcept {
  drbg_coins coins(rng);
  return emit(
      block_.params, block_.fingerprint, [&](wire::report* r) { return fields(e, coins, r); }, f, out, written);
}

}  // namespace ldp::device
