// ldp.h keeps its own enum of mechanism ids (a C header cannot include the C++ table); these
// checks tie each LDP_MECH_* constant to the wire mechanism table's row of that name, and fail the
// build when the table gains a row without its constant.
#include <cstddef>
#include <iterator>

#include "ldp.h"
#include "ldp/wire/mechanism.h"

namespace {

struct c_mechanism {
  ldp_mechanism id;
  const char* wire_name;
};

// LDP_MECH_SPARSE_VECTOR is an alias of LDP_MECH_SPARSE_PROJECTION, not a row of its own.
constexpr c_mechanism c_mechanisms[] = {
    {LDP_MECH_GRR, "grr"},
    {LDP_MECH_SUE, "sue"},
    {LDP_MECH_OUE, "oue"},
    {LDP_MECH_BLH, "blh"},
    {LDP_MECH_OLH, "olh"},
    {LDP_MECH_HR, "hr"},
    {LDP_MECH_CMS, "cms"},
    {LDP_MECH_HCMS, "hcms"},
    {LDP_MECH_KENT_VOTE, "kent-vote"},
    {LDP_MECH_FLH, "flh"},
    {LDP_MECH_DBITFLIP, "dbitflip"},
    {LDP_MECH_LAPLACE, "laplace"},
    {LDP_MECH_LAPLACE_VECTOR, "laplace-vector"},
    {LDP_MECH_DUCHI, "duchi"},
    {LDP_MECH_VECTOR_DUCHI, "vector-duchi"},
    {LDP_MECH_VECTOR_LAPLACE, "vector-laplace"},
    {LDP_MECH_SPARSE_PROJECTION, "sparse-projection"},
    {LDP_MECH_KENT_REFINE, "kent-refine"},
    {LDP_MECH_WINSORIZED_BINS, "winsorized-bins"},
    {LDP_MECH_WINSORIZED_SUMS, "winsorized-sums"},
    {LDP_MECH_L2_BALL, "l2-ball"},
    {LDP_MECH_PRIVUNITG, "privunitg"},
    {LDP_MECH_PROJUNIT, "projunit"},
    {LDP_MECH_FASTPROJUNIT, "fastprojunit"},
    {LDP_MECH_PEM, "pem"},
    {LDP_MECH_TREEHIST, "treehist"},
    {LDP_MECH_SFP, "sfp"},
    {LDP_MECH_SQUARE_WAVE, "square-wave"},
    {LDP_MECH_HIERARCHICAL, "hierarchical"},
    {LDP_MECH_HAAR, "haar"},
    {LDP_MECH_KENT_SUPPORT, "kent-support"},
    {LDP_MECH_BERNSTEIN, "bernstein"},
    {LDP_MECH_KWAY_MARGINALS, "kway-marginals"},
    {LDP_MECH_SMOOTH_QUERIES, "smooth-queries"},
    {LDP_MECH_BERNSTEIN_1BIT, "bernstein-1bit"},
    {LDP_MECH_BERNSTEIN_GENPROT, "bernstein-genprot"},
    {LDP_MECH_GLM_COPIES, "glm-copies"},
};

constexpr bool every_constant_is_its_row() {
  for (const c_mechanism& c : c_mechanisms) {
    const ldp::wire::mechanism_row* row = ldp::wire::find_mechanism_named(c.wire_name);
    if (row == nullptr || static_cast<ldp_mechanism>(row->id) != c.id) return false;
  }
  return true;
}

static_assert(every_constant_is_its_row(), "an LDP_MECH_* constant differs from the wire table's id");
static_assert(std::size(c_mechanisms) == ldp::wire::mechanism_count,
              "a wire mechanism without its LDP_MECH_* constant");
static_assert(LDP_MECH_SPARSE_VECTOR == LDP_MECH_SPARSE_PROJECTION);

}  // namespace
