#include "ldp/wire/mechanism.h"

namespace ldp::wire {

const char* mechanism_name(mechanism m) noexcept {
  switch (m) {
    case mechanism::grr: return "grr";
    case mechanism::sue: return "sue";
    case mechanism::oue: return "oue";
    case mechanism::blh: return "blh";
    case mechanism::olh: return "olh";
    case mechanism::hr: return "hr";
    case mechanism::cms: return "cms";
    case mechanism::hcms: return "hcms";
    case mechanism::kent_vote: return "kent-vote";
    case mechanism::laplace: return "laplace";
    case mechanism::laplace_vector: return "laplace-vector";
    case mechanism::duchi: return "duchi";
    case mechanism::vector_duchi: return "vector-duchi";
    case mechanism::vector_laplace: return "vector-laplace";
    case mechanism::sparse_projection: return "sparse-projection";
    case mechanism::kent_refine: return "kent-refine";
    case mechanism::winsorized_bins: return "winsorized-bins";
    case mechanism::winsorized_sums: return "winsorized-sums";
    case mechanism::none: break;
  }
  return "";
}

}  // namespace ldp::wire
