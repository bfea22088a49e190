#include "mechanism_options.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>

#include "errors.h"
#include "ldp/wire/central_params.h"
#include "ldp/wire/chebyshev.h"
#include "ldp/wire/hash.h"
#include "ldp/wire/marginals.h"
#include "ldp/wire/mean_params.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/projunit_params.h"
#include "ldp/wire/smooth_params.h"
#include "ldp/wire/string_params.h"
#include "ldp/wire/unit_vector_params.h"
#include "ldp/wire/vector_params.h"
#include "seeding.h"

namespace ldp::tools {
namespace {

using wire::mechanism;

bool lists(const char* names, const char* option) {
  const std::size_t n = std::strlen(option);
  for (const char* at = std::strstr(names, option); at != nullptr; at = std::strstr(at + 1, option)) {
    const bool starts = at == names || at[-1] == ' ';
    if (starts && (at[n] == '\0' || at[n] == ' ')) return true;
  }
  return false;
}

std::string known_names() {
  std::string out;
  for (const tool_mechanism& m : tool_mechanisms()) out += (out.empty() ? "" : ", ") + std::string(m.name);
  return out;
}

// "a:b" as two numbers; false if the text is not of that form.
bool parse_pair(const std::string& text, double* a, double* b) {
  const std::size_t colon = text.find(':', 1);  // a leading '-' is a sign, not a separator
  if (colon == std::string::npos) return false;
  const std::string left = text.substr(0, colon), right = text.substr(colon + 1);
  char* end = nullptr;
  *a = std::strtod(left.c_str(), &end);
  if (left.empty() || *end != '\0') return false;
  *b = std::strtod(right.c_str(), &end);
  return !right.empty() && *end == '\0' && std::isfinite(*a) && std::isfinite(*b);
}

void parse_sketch(const std::string& text, uint32_t* k, uint32_t* m) {
  double a = 0, b = 0;
  const bool ok = parse_pair(text, &a, &b) && a >= 1 && b >= 1 && a == std::floor(a) && b == std::floor(b) &&
                  a <= std::numeric_limits<uint32_t>::max() && b <= std::numeric_limits<uint32_t>::max();
  if (!ok) fail("--sketch must be k:m (rows:columns, positive integers), got '{}'", text);
  *k = static_cast<uint32_t>(a);
  *m = static_cast<uint32_t>(b);
}

}  // namespace

bool given(const mechanism_options& o, const char* option) {
  for (const auto& [name, opt] : o.given) {
    if (std::strcmp(name, option) == 0) return opt->count() > 0;
  }
  return false;
}

void parse_range(const std::string& text, double* lo, double* hi) {
  if (!parse_pair(text, lo, hi) || !(*lo < *hi)) fail("--range must be lo:hi with lo < hi, got '{}'", text);
}

namespace {

wire::derived_params frequency_block(const tool_mechanism& m, const mechanism_options& o) {
  const uint32_t d = o.domain;
  if (d < 2) fail("--domain must be at least 2, got {}", d);
  const mechanism id = m.id;
  if (id == mechanism::olh && given(o, "--hash-range")) {
    if (o.hash_range < 2) fail("--hash-range must be at least 2, got {}", o.hash_range);
    return wire::make_olh(o.epsilon, d, o.hash_range);
  }
  if (id == mechanism::flh) {
    if (given(o, "--hash-range") && o.hash_range < 2) fail("--hash-range must be at least 2, got {}", o.hash_range);
    const uint32_t k = given(o, "--hash-functions") ? o.hash_functions : wire::flh_default_functions;
    if (k < 1 || k > 65536) fail("--hash-functions must be in [1, 65536], got {}", k);
    unsigned char hash_seed[wire::seed_size];
    derive_seed(o.public_seed, seed_purpose::hash_seed, 0, hash_seed);
    return wire::make_flh(o.epsilon, d, k, hash_seed, given(o, "--hash-range") ? o.hash_range : 0);
  }
  if (id == mechanism::cms || id == mechanism::hcms) {
    uint32_t k = 16, cols = 1024;
    if (given(o, "--sketch")) parse_sketch(o.sketch, &k, &cols);
    if (id == mechanism::hcms && (cols & (cols - 1)) != 0) {
      fail("--sketch: hcms needs a power-of-two column count, got {}", cols);
    }
    unsigned char hash_seed[wire::seed_size];
    derive_seed(o.public_seed, seed_purpose::hash_seed, 0, hash_seed);
    return wire::make_frequency_oracle(id, o.epsilon, d, k, cols, hash_seed);
  }
  if (id == mechanism::dbitflip) {
    const uint32_t sampled = given(o, "--sampled-buckets") ? o.sampled_buckets : 1;
    if (sampled < 1 || sampled > std::min<uint32_t>(d, wire::dbitflip_max_sampled)) {
      fail("--sampled-buckets must be in [1, min(--domain, {})], got {}", wire::dbitflip_max_sampled, sampled);
    }
    return wire::make_dbitflip(o.epsilon, d, sampled);
  }
  return wire::make_frequency_oracle(id, o.epsilon, d);
}

// pem, treehist, sfp (docs/mechanisms.md F): the inner oracle's block on the derived domain (--domain,
// default 2^31), the string length and the prefix step.
wire::derived_params string_block(const tool_mechanism& m, const mechanism_options& o) {
  const uint32_t d = given(o, "--domain") ? o.domain : wire::string_default_domain;
  if (d < 2) fail("--domain must be at least 2, got {}", d);
  const uint32_t length = o.string_length;
  if (length < 1 || length > wire::max_string_bytes || (m.id == mechanism::sfp && length % 2 != 0)) {
    fail("--string-length must be in [1, {}]{}, got {}", wire::max_string_bytes,
         m.id == mechanism::sfp ? " and even" : "", length);
  }
  const uint32_t eta = o.prefix_bits;
  if (eta != 1 && eta != 2 && eta != 4 && eta != 8) fail("--prefix-bits must be 1, 2, 4 or 8, got {}", eta);
  if (m.id == mechanism::pem) return wire::make_pem(o.epsilon, length, eta, d);
  uint32_t k = 16, cols = 1024;
  if (given(o, "--sketch")) parse_sketch(o.sketch, &k, &cols);
  if (m.id == mechanism::treehist && (cols & (cols - 1)) != 0) {
    fail("--sketch: treehist needs a power-of-two column count, got {}", cols);
  }
  unsigned char hash_seed[wire::seed_size];
  derive_seed(o.public_seed, seed_purpose::hash_seed, 0, hash_seed);
  return m.id == mechanism::treehist ? wire::make_treehist(o.epsilon, length, eta, k, cols, hash_seed, d)
                                     : wire::make_sfp(o.epsilon, length, k, cols, hash_seed, d);
}

// square-wave, hierarchical, haar (docs/mechanisms.md G): D buckets of the range; hierarchical needs D a
// power of its fan-out, haar a power of two.
wire::derived_params distribution_block(const tool_mechanism& m, const mechanism_options& o, double lo, double hi) {
  const uint32_t d = o.buckets;
  if (d < 2 || d > wire::distribution_max_buckets) {
    fail("--buckets must be in [2, {}], got {}", wire::distribution_max_buckets, d);
  }
  if (m.id == mechanism::square_wave) {
    if (given(o, "--half-width") && (o.half_width < 0 || o.half_width > d)) {
      fail("--half-width must be in [0, --buckets], got {}", o.half_width);
    }
    return wire::make_square_wave(o.epsilon, d, lo, hi, o.frac_bits, o.half_width);
  }
  if (m.id == mechanism::haar) {
    if ((d & (d - 1)) != 0) fail("--buckets: haar needs a power of two, got {}", d);
    return wire::make_haar(o.epsilon, d, lo, hi, o.frac_bits);
  }
  const uint32_t b = given(o, "--branching") ? o.branching : wire::default_branching(d);
  if (b < 2 || b > 256)
    fail("--branching must be in [2, 256]{}, got {}", b == 0 ? " (--buckets is a power of none up to 16)" : "", b);
  wire::params shape;
  shape.mech = mechanism::hierarchical;
  shape.set(wire::field::domain, d).set(wire::field::branching, b);
  if (wire::distribution_levels(shape) == 0) fail("--buckets must be a power of --branching {}, got {}", b, d);
  return wire::make_hierarchical(o.epsilon, d, b, lo, hi, o.frac_bits);
}

wire::derived_params numeric_block(const tool_mechanism& m, const mechanism_options& o) {
  if (o.frac_bits > 62) fail("--frac-bits must be at most 62, got {}", o.frac_bits);
  if (m.id == mechanism::vector_duchi) {
    if (o.dim < 1) fail("--dim must be at least 1, got {}", o.dim);
    if (!(o.radius > 0 && std::isfinite(o.radius))) fail("--radius must be positive, got {}", o.radius);
    if (!(o.beta > 0 && o.beta < 1)) fail("--beta must be in (0, 1), got {}", o.beta);
    unsigned char rotation_seed[wire::seed_size];
    derive_seed(o.public_seed, seed_purpose::rotation_seed, 0, rotation_seed);
    if (o.noise == "laplace")
      return wire::make_vector_laplace(o.dim, o.radius, o.frac_bits, o.epsilon, o.beta, rotation_seed);
    return wire::make_vector_duchi(o.dim, o.radius, o.frac_bits, o.epsilon, o.beta, rotation_seed);
  }
  if (m.id == mechanism::l2_ball || m.id == mechanism::privunitg || wire::is_projected_unit(m.id)) {
    if (o.dim < 1) fail("--dim must be at least 1, got {}", o.dim);
    if (!(o.radius > 0 && std::isfinite(o.radius))) fail("--radius must be positive, got {}", o.radius);
    if (m.id == mechanism::l2_ball) return wire::make_l2_ball(o.dim, o.radius, o.frac_bits, o.epsilon);
    if (o.epsilon < 1e-3) fail("{} needs --epsilon at least 0.001, got {}", m.name, o.epsilon);
    if (m.id == mechanism::privunitg) return wire::make_privunitg(o.dim, o.radius, o.frac_bits, o.epsilon);
    if (o.projection_dim > o.dim) fail("--projection-dim must be at most --dim, got {}", o.projection_dim);
    return m.id == mechanism::projunit
               ? wire::make_projunit(o.dim, o.projection_dim, o.radius, o.frac_bits, o.epsilon)
               : wire::make_fastprojunit(o.dim, o.projection_dim, o.radius, o.frac_bits, o.epsilon);
  }
  if (m.id == mechanism::kway_marginals) {
    // Indicators on [0, 1]: the grid adds nothing but report bytes, so f = 0 unless asked.
    if (o.dim < 1 || o.dim > wire::marginals_max_attributes)
      fail("--dim must be in [1, {}], got {}", wire::marginals_max_attributes, o.dim);
    if (o.order < 1 || o.order > o.dim) fail("--order must be in [1, --dim], got {}", o.order);
    if (wire::conjunction_count(o.dim, o.order) > wire::marginals_max_coordinates) {
      fail("--dim {} --order {} gives {} conjunctions, above {} (docs/wire_format.md 3.14)", o.dim, o.order,
           wire::conjunction_count(o.dim, o.order), wire::marginals_max_coordinates);
    }
    return wire::make_kway_marginals(o.dim, o.order, given(o, "--frac-bits") ? o.frac_bits : 0, o.epsilon);
  }
  if (m.id == mechanism::smooth_queries) {
    // Features on [-1, 1] (docs/mechanisms.md H.6); f <= 30 keeps the recurrence's products in 64 bits.
    if (o.dim < 1) fail("--dim must be at least 1, got {}", o.dim);
    if (o.degree < 2) fail("--degree must be at least 2, got {}", o.degree);
    if (wire::smooth_feature_count(o.dim, o.degree) == 0) {
      fail("--dim {} --degree {} gives more than {} features t^p (docs/wire_format.md 3.15)", o.dim, o.degree,
           wire::smooth_max_features);
    }
    if (o.frac_bits > wire::chebyshev_max_frac_bits)
      fail("--frac-bits must be at most {} for smooth-queries, got {}", wire::chebyshev_max_frac_bits, o.frac_bits);
    return wire::make_smooth_queries(o.dim, o.degree, o.frac_bits, o.epsilon);
  }
  double lo = 0, hi = 0;
  parse_range(o.range, &lo, &hi);
  if (wire::in_family(m.id, wire::mechanism_family::distribution)) return distribution_block(m, o, lo, hi);
  if (m.id == mechanism::laplace_vector) {
    if (o.dim < 1) fail("--dim must be at least 1, got {}", o.dim);
    return wire::make_laplace_vector(o.dim, lo, hi, o.frac_bits, o.epsilon);
  }
  return m.id == mechanism::duchi ? wire::make_duchi(lo, hi, o.frac_bits, o.epsilon)
                                  : wire::make_laplace(lo, hi, o.frac_bits, o.epsilon);
}

}  // namespace

namespace {

// What the tool adds to each command-line name of the mechanism table (wire/mechanism_table.h).
struct cli_mechanism {
  const char* name;
  input_kind input;
  const char* required;
  const char* optional;
  const char* usage;
};

constexpr cli_mechanism cli_mechanisms[] = {
    {"grr", input_kind::item, "--domain", "", "--domain D"},
    {"sue", input_kind::item, "--domain", "", "--domain D"},
    {"oue", input_kind::item, "--domain", "", "--domain D"},
    {"blh", input_kind::item, "--domain", "", "--domain D"},
    {"olh", input_kind::item, "--domain", "--hash-range", "--domain D [--hash-range g]"},
    {"flh", input_kind::item, "--domain", "--hash-range --hash-functions --public-seed",
     "--domain D [--hash-range g] [--hash-functions k] [--public-seed P]"},
    {"hr", input_kind::item, "--domain", "", "--domain D"},
    {"cms", input_kind::item, "--domain", "--sketch --public-seed", "--domain D [--sketch k:m] [--public-seed P]"},
    {"hcms", input_kind::item, "--domain", "--sketch --public-seed", "--domain D [--sketch k:m] [--public-seed P]"},
    {"dbitflip", input_kind::item, "--domain", "--sampled-buckets", "--domain D [--sampled-buckets s]"},
    {"laplace", input_kind::value, "--range", "--frac-bits", "--range lo:hi [--frac-bits f]"},
    {"duchi", input_kind::value, "--range", "--frac-bits", "--range lo:hi [--frac-bits f]"},
    {"laplace-vector", input_kind::vector, "--dim --range", "--frac-bits", "--dim d --range lo:hi [--frac-bits f]"},
    {"kway-marginals", input_kind::record, "--dim --order", "--frac-bits", "--dim p --order k [--frac-bits f]"},
    {"smooth-queries", input_kind::vector, "--dim --degree", "--frac-bits", "--dim p --degree t [--frac-bits f]"},
    {"vector-mean", input_kind::vector, "--dim --radius", "--noise --beta --frac-bits --public-seed",
     "--dim d --radius r [--noise duchi|laplace] [--beta b] [--frac-bits f] [--public-seed P]"},
    {"l2-ball", input_kind::vector, "--dim --radius", "--frac-bits", "--dim d --radius r [--frac-bits f]"},
    {"privunitg", input_kind::vector, "--dim --radius", "--frac-bits", "--dim d --radius r [--frac-bits f]"},
    {"projunit", input_kind::vector, "--dim --radius", "--projection-dim --frac-bits",
     "--dim d --radius r [--projection-dim k] [--frac-bits f]"},
    {"fastprojunit", input_kind::vector, "--dim --radius", "--projection-dim --frac-bits",
     "--dim d --radius r [--projection-dim k] [--frac-bits f]"},
    {"kent", input_kind::observations, "--range --observations",
     "--dim --ball --plan --cap --frac-bits --public-seed --sparse --sparse-method --density",
     "--range lo:hi --observations T [--dim d [--ball linf|l2] [--public-seed P] "
     "[--sparse s [--sparse-method choose|select|threshold]] | --density] "
     "[--plan choose|two-stage|single-stage] [--cap T*] [--frac-bits f]"},
    {"sparse-projection", input_kind::sparse, "--dim --sparsity --radius", "--delta --frac-bits",
     "--dim d --sparsity s --radius L [--delta D] [--frac-bits f]"},
    {"winsorized-mean", input_kind::samples, "--dim --range --observations",
     "--delta --tau --gamma --beta --window --budget --queries --frac-bits --public-seed",
     "--dim d --range lo:hi --observations m [--delta D] [--tau t] [--gamma g] [--beta b] [--window safe|paper] "
     "[--budget tight|paper] [--queries K] [--frac-bits f] [--public-seed P]"},
    {"pem", input_kind::string, "", "--string-length --prefix-bits --domain",
     "[--string-length L] [--prefix-bits 1|2|4|8] [--domain D]"},
    {"treehist", input_kind::string, "", "--string-length --prefix-bits --sketch --domain --public-seed",
     "[--string-length L] [--prefix-bits 1|2|4|8] [--sketch k:m] [--domain D] [--public-seed P]"},
    {"sfp", input_kind::string, "", "--string-length --sketch --domain --public-seed",
     "[--string-length L] [--sketch k:m] [--domain D] [--public-seed P]"},
    {"square-wave", input_kind::value, "--range", "--buckets --half-width --frac-bits",
     "--range lo:hi [--buckets D] [--half-width b] [--frac-bits f]"},
    {"hierarchical", input_kind::value, "--range", "--buckets --branching --frac-bits",
     "--range lo:hi [--buckets D] [--branching B] [--frac-bits f]"},
    {"haar", input_kind::value, "--range", "--buckets --frac-bits", "--range lo:hi [--buckets D] [--frac-bits f]"},
    // Its devices hold a labelled example and report their losses on a grid (docs/mechanisms.md H.1):
    // `ldp train` runs it; the other commands read its batches and states as laplace-vector ones.
    {"bernstein", input_kind::vector, "", "", "(run by ldp train --method wang-bernstein)"},
    // Labelled examples, not a vector to average: `ldp train --method wang-glm` makes its reports.
    {"glm-copies", input_kind::vector, "", "", "(ldp train --method wang-glm)"},
};

// One entry per command-line name, in the table's order; a name without its options above (or
// options for a name the table lacks) is a build of the tool that cannot run.
std::vector<tool_mechanism> table_mechanisms() {
  std::vector<tool_mechanism> out;
  for (const wire::mechanism_row& row : wire::mechanism_table) {
    // The public-coin learners take a labelled example and a user index: `ldp train` runs them
    // (docs/mechanisms.md H.2, H.3, H.7), not simulate.
    if (row.family == wire::mechanism_family::public_coin) continue;
    const auto same = [&](const auto& m) { return std::strcmp(m.name, row.cli_name) == 0; };
    if (std::any_of(out.begin(), out.end(), same)) continue;
    const cli_mechanism* c = std::find_if(std::begin(cli_mechanisms), std::end(cli_mechanisms), same);
    if (c == std::end(cli_mechanisms)) fail("internal: no options for mechanism {}", row.cli_name);
    out.push_back({row.cli_name, row.id, c->input, c->required, c->optional, c->usage});
  }
  if (out.size() != std::size(cli_mechanisms)) fail("internal: options for a mechanism the wire table lacks");
  return out;
}

}  // namespace

const std::vector<tool_mechanism>& tool_mechanisms() {
  static const std::vector<tool_mechanism> all = table_mechanisms();
  return all;
}

void add_mechanism_options(CLI::App& app, mechanism_options& o, bool defaults) {
  CLI::Option* mech = app.add_option("--mechanism,-m", o.name, "mechanism: " + known_names());
  CLI::Option* eps = app.add_option("--epsilon,-e", o.epsilon, "privacy level epsilon, in " + epsilon_range());
  o.defaults = defaults;
  if (!defaults) {
    mech->required();
    eps->required();
  }
  o.given = {
      {"--domain",
       app.add_option(
           "--domain,-d", o.domain,
           "frequency oracles: items, values in [0, D); pem, treehist, sfp: the derived domain (default 2^31)")},
      {"--hash-range", app.add_option("--hash-range", o.hash_range, "olh, flh: hash range g (default: the optimum)")},
      {"--hash-functions",
       app.add_option("--hash-functions", o.hash_functions, "flh: number k of public hash functions (default 1024)")},
      {"--sketch", app.add_option("--sketch", o.sketch, "cms, hcms, treehist, sfp: rows:columns (default 16:1024)")},
      {"--sampled-buckets", app.add_option("--sampled-buckets", o.sampled_buckets,
                                           "dbitflip: buckets s each device samples and reports (default 1)")},
      {"--range",
       app.add_option("--range", o.range, "laplace, duchi, laplace-vector, kent, winsorized-mean: value range lo:hi")},
      {"--frac-bits",
       app.add_option("--frac-bits", o.frac_bits, "numeric: fraction bits of the fixed-point grid (default 16)")},
      {"--dim", app.add_option("--dim", o.dim,
                               "laplace-vector, vector-mean, l2-ball, privunitg, projunit, fastprojunit, "
                               "sparse-projection, winsorized-mean, "
                               "kent: dimension d")},
      {"--radius",
       app.add_option(
           "--radius", o.radius,
           "vector-mean, l2-ball, privunitg, projunit, fastprojunit, sparse-projection: L2 radius R of the inputs")},
      {"--projection-dim",
       app.add_option("--projection-dim", o.projection_dim,
                      "projunit, fastprojunit: dimension k <= d of the projection (default min(d, 1000))")},
      {"--noise", app.add_option("--noise", o.noise, "vector-mean: duchi (one bit, default) or laplace")
                      ->check(CLI::IsMember({"duchi", "laplace"}))},
      {"--beta",
       app.add_option("--beta", o.beta,
                      "vector-mean, winsorized-mean: clipping probability of a rotated coordinate (default 0.001)")},
      {"--public-seed",
       app.add_option(
           "--public-seed", o.public_seed,
           "cms, hcms, flh, vector-mean, kent --ball l2: seed of the public hash functions or rotation (default 0)")},
      {"--observations", app.add_option("--observations", o.observations,
                                        "kent: observations T each user holds; winsorized-mean: samples m")},
      {"--cap", app.add_option("--cap", o.cap, "kent: observation cap T* (default: the vote-reliability rule)")},
      {"--ball", app.add_option("--ball", o.ball, "kent with --dim d > 1: linf (M2, default) or l2 (M3, rotated)")
                     ->check(CLI::IsMember({"linf", "l2"}))},
      {"--density", app.add_flag("--density", o.density,
                                 "kent: M5, the density of the observations on --range (trigonometric basis)")},
      {"--plan", app.add_option("--plan", o.plan, "kent: choose (default), two-stage or single-stage")
                     ->check(CLI::IsMember({"choose", "two-stage", "single-stage"}))},
      {"--sparsity",
       app.add_option("--sparsity", o.sparsity, "sparse-projection: non-zero coordinates s a device keeps")},
      {"--sparse", app.add_option("--sparse", o.sparse, "kent with --dim d: the mean is s-sparse (M4)")},
      {"--sparse-method", app.add_option("--sparse-method", o.sparse_method,
                                         "kent --sparse: choose (default: the rule), select (M4a) or threshold (M4b)")
                              ->check(CLI::IsMember({"choose", "select", "threshold"}))},
      {"--delta", app.add_option("--delta", o.delta,
                                 "sparse-projection, winsorized-mean: delta of (epsilon, delta)-DP (default 0: pure)")},
      {"--tau", app.add_option("--tau", o.tau,
                               "winsorized-mean: l2 radius around a common point holding the users' means "
                               "(default: Levy et al. Cor. 1's, from m and --gamma)")},
      {"--gamma", app.add_option("--gamma", o.gamma,
                                 "winsorized-mean: probability that a user's mean leaves the default --tau "
                                 "(default 0.001)")},
      {"--window",
       app.add_option("--window", o.window, "winsorized-mean: safe (+-3 tau windows, default) or paper (+-2 tau)")
           ->check(CLI::IsMember({"safe", "paper"}))},
      {"--budget",
       app.add_option("--budget", o.budget, "winsorized-mean: tight (default) or paper per-coordinate budget")
           ->check(CLI::IsMember({"tight", "paper"}))},
      {"--string-length", app.add_option("--string-length", o.string_length,
                                         "pem, treehist, sfp: the longest string in bytes, at most 64 (default 16)")},
      {"--prefix-bits",
       app.add_option("--prefix-bits", o.prefix_bits, "pem, treehist: bits each group adds to the prefix (default 8)")},
      {"--buckets",
       app.add_option("--buckets", o.buckets, "square-wave, hierarchical, haar: buckets of the range (default 1024)")},
      {"--branching", app.add_option("--branching", o.branching,
                                     "hierarchical: the tree's fan-out; --buckets must be a power of it "
                                     "(default: the rule of docs/mechanisms.md G.2)")},
      {"--half-width", app.add_option("--half-width", o.half_width,
                                      "square-wave: the window's half width in buckets (default: Li et al.'s rule)")},
      {"--order",
       app.add_option("--order", o.order,
                      "kway-marginals: k, the largest marginal (conjunctions of at most k of the --dim bits)")},
      {"--degree", app.add_option("--degree", o.degree,
                                  "smooth-queries: t, the Chebyshev degrees 0..t-1 per attribute (t^p <= 65536)")},
      {"--queries", app.add_option("--queries", o.queries,
                                   "winsorized-mean: K queries of one session over the same users "
                                   "(default 1)")},
  };
}

const tool_mechanism& checked_mechanism(const mechanism_options& o) {
  const tool_mechanism* found = nullptr;
  for (const tool_mechanism& m : tool_mechanisms()) {
    if (o.name == m.name) found = &m;
  }
  if (found == nullptr) fail("unknown mechanism '{}' (known: {})", o.name, known_names());
  const tool_mechanism& m = *found;
  check_epsilon(o.epsilon);
  for (const auto& [name, opt] : o.given) {
    if (opt->count() > 0 && !lists(m.required, name) && !lists(m.optional, name)) {
      fail("{} does not apply to --mechanism {} (it takes {})", name, m.name, m.usage);
    }
    if (!o.defaults && lists(m.required, name) && opt->count() == 0) fail("--mechanism {} needs {}", m.name, m.usage);
  }
  return m;
}

parameter_block block_of(const wire::params& p, const tool_mechanism& m) {
  parameter_block out;
  out.params = p;
  out.fingerprint = wire::fingerprint(p);
  out.epsilon_impl = wire::implemented_epsilon(p);
  out.mechanism = &m;
  return out;
}

void check_delta(double delta) {
  if (!(delta >= 0 && delta < 1)) fail("--delta must be in [0, 1), got {}", delta);
}

std::string epsilon_range() { return fmt::format("({}, {}]", wire::epsilon_min_exclusive, wire::epsilon_max); }

void check_epsilon(double epsilon) {
  if (!wire::valid_epsilon(epsilon)) fail("--epsilon must be in {}, got {}", epsilon_range(), epsilon);
}

namespace {

// sparse-projection: the device block carries no epsilon (the server's release spends it).
parameter_block sparse_block(const tool_mechanism& m, const mechanism_options& o) {
  if (o.dim < 1) fail("--dim must be at least 1, got {}", o.dim);
  if (o.sparsity < 1 || o.sparsity > o.dim) fail("--sparsity must be in [1, --dim], got {}", o.sparsity);
  if (!(o.radius > 0 && std::isfinite(o.radius))) fail("--radius must be positive, got {}", o.radius);
  if (o.frac_bits > 62) fail("--frac-bits must be at most 62, got {}", o.frac_bits);
  check_delta(o.delta);
  int64_t radius = 0;
  wire::params p;
  if (wire::to_fixed(o.radius, o.frac_bits, &radius) != status::ok ||
      wire::make_sparse_projection(o.dim, o.sparsity, o.frac_bits, radius, &p) != status::ok) {
    fail(
        "cannot build a sparse-projection block for --dim {} --sparsity {} --radius {} --frac-bits {} (the rules of "
        "docs/wire_format.md 3.3: s <= 65535, 1 <= L 2^f, L^2 2^2f s < 2^63)",
        o.dim, o.sparsity, o.radius, o.frac_bits);
  }
  return block_of(p, m);
}

}  // namespace

std::string smallest_epsilon_hint(double epsilon, const std::function<bool(double)>& builds) {
  double lo = epsilon, hi = epsilon;
  while (!builds(hi)) {
    if (hi >= 40) return {};
    lo = hi;
    hi = std::min(40.0, hi * 2);
  }
  for (int step = 0; step < 64; ++step) {
    const double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    (builds(mid) ? hi : lo) = mid;
  }
  // Printed rounded up to 3 significant digits when that value builds too.
  std::string smallest = fmt::format("{:.3g}", hi * (1 + 5e-3));
  if (!builds(std::strtod(smallest.c_str(), nullptr))) smallest = fmt::format("{:.17g}", hi);
  return fmt::format(
      "; the smallest usable epsilon for these parameters is about {} (found by doubling, then bisection on the "
      "block builder)",
      smallest);
}

parameter_block build_block(const mechanism_options& o) {
  const tool_mechanism& m = checked_mechanism(o);
  if (m.input == input_kind::observations || m.input == input_kind::samples) {
    fail("internal: {} blocks come from its protocol", m.name);
  }
  if (m.input == input_kind::sparse) return sparse_block(m, o);
  if (m.id == mechanism::bernstein) fail("--mechanism bernstein is run by ldp train --method wang-bernstein");
  if (m.id == mechanism::glm_copies) {
    fail("glm-copies devices send labelled examples (docs/mechanisms.md H.4): use ldp train --method wang-glm");
  }
  const auto derive = [&](double epsilon) {
    mechanism_options at = o;
    at.epsilon = epsilon;
    if (m.input == input_kind::string) return string_block(m, at);
    return m.input == input_kind::item ? frequency_block(m, at) : numeric_block(m, at);
  };
  const wire::derived_params derived = derive(o.epsilon);
  if (derived.code != status::ok) {
    // Issue 21: an epsilon so small that the integer thresholds implement no privacy (epsilon <= 0,
    // a degenerate threshold) or the noise scale passes its limit is refused with the way out.
    const std::string hint = smallest_epsilon_hint(o.epsilon, [&](double e) { return derive(e).code == status::ok; });
    if (!hint.empty()) {
      fail("cannot build a {} block with epsilon {} and these options: {}{}", m.name, o.epsilon, describe(derived.code),
           hint);
    }
    fail(
        "cannot build a {} block with epsilon {} and these options ({}): {}; see the limits in docs/wire_format.md 3.3",
        m.name, o.epsilon, m.usage, describe(derived.code));
  }
  parameter_block out = block_of(derived.block, m);
  out.epsilon_impl = derived.epsilon_impl;
  return out;
}

}  // namespace ldp::tools
