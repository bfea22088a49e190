// Mechanism names and options, the same in every subcommand (issue 6, docs/cli.md "Mechanisms"):
// the frequency oracles grr sue oue blh olh flh hr cms hcms take --domain (olh also --hash-range,
// flh --hash-range and --hash-functions k, cms/hcms --sketch k:m, dbitflip --sampled-buckets s); laplace and duchi take --range lo:hi; laplace-vector --dim and --range;
// vector-mean --dim and --radius; the trusted-aggregator (central DP) protocols sparse-projection
// (--dim --sparsity --radius) and winsorized-mean (--dim --range --observations, and its window,
// budget rule and number of queries); kent takes --range
// --observations and, for M2/M3, --dim [--ball]. Turns the options into the parameter block the devices and the
// server share, built by the wire routines (so thresholds and epsilon are the implemented ones).
#ifndef LDP_TOOLS_MECHANISM_OPTIONS_H
#define LDP_TOOLS_MECHANISM_OPTIONS_H

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ldp/wire/distribution_params.h"
#include "ldp/wire/params.h"

namespace ldp::tools {

// What a mechanism's devices hold, which decides the datasets it accepts and its truth file.
enum class input_kind {
  item,          // one item in [0, d): frequency oracles (truth: item,count)
  value,         // one real in [lo, hi]: laplace, duchi (truth: coordinate,mean with coordinate 0)
  vector,        // d reals: laplace-vector (each in [lo, hi]), vector-mean (L2 norm <= R)
  observations,  // T reals in [lo, hi]: the user-level protocol kent (truth: the mean local mean)
  sparse,        // d reals of which the device keeps the s largest: sparse-projection (central DP)
  samples,       // m samples of d reals in [lo, hi]: winsorized-mean (central DP, user level)
  string,        // one byte string of 1..L bytes: pem, treehist, sfp (truth: item,count with quoted strings)
  record,        // p bits, read as p reals, bit j = [real j >= 1/2]: kway-marginals (truth: the conjunction fractions)
};

// The trusted-aggregator mechanisms: devices add no noise, the server's release does.
constexpr bool is_central(input_kind k) { return k == input_kind::sparse || k == input_kind::samples; }

struct tool_mechanism {
  const char* name;    // as typed on the command line: the mechanism table's cli_name
  wire::mechanism id;  // the table's first row of that name (vector-mean: vector-duchi, or
                       // vector-laplace with --noise laplace; kent and winsorized-mean: round 1)
  input_kind input;
  const char* required;  // options it must have, space-separated
  const char* optional;  // options it may have
  const char* usage;     // the options as help and errors show them
};

// Every mechanism the tool can simulate, in the order of the mechanism table (that of docs/cli.md).
const std::vector<tool_mechanism>& tool_mechanisms();

struct mechanism_options {
  std::string name;
  double epsilon = 0;
  uint32_t domain = 0;
  uint32_t hash_range = 0;
  uint32_t hash_functions = 0;   // flh: k (0: wire::flh_default_functions)
  std::string sketch;            // "k:m"
  uint32_t sampled_buckets = 0;  // dbitflip: s (default 1)
  std::string range;             // "lo:hi"
  unsigned frac_bits = 16;
  uint32_t dim = 0;
  double radius = 0;
  uint32_t projection_dim = 0;  // projunit, fastprojunit: k (0: wire::default_projection_dim)
  std::string noise = "duchi";
  double beta = 1e-3;
  uint32_t observations = 0;     // kent: T per user; winsorized-mean: m samples per user
  uint32_t sparsity = 0;         // sparse-projection: s
  double delta = 0;              // central DP: 0 for pure DP
  double tau = 0;                // winsorized-mean: l2 concentration radius, 0 for Levy Cor. 1's
  double gamma = 1e-3;           // winsorized-mean: Cor. 1's failure probability (server::user_mean_tau)
  std::string window = "safe";   // winsorized-mean: safe (+-3 tau) or paper (+-2 tau)
  std::string budget = "tight";  // winsorized-mean: tight or paper (server::budget_rule)
  uint32_t queries = 1;          // winsorized-mean: K queries of one session over the same users
  uint32_t cap = 0;              // kent: T*, 0 for the protocol's rule
  std::string plan = "choose";   // kent: choose, two-stage, single-stage
  std::string ball;              // kent with --dim d > 1: linf (M2, the default) or l2 (M3)
  bool density = false;          // kent: M5, the density of the observations on --range
  uint64_t public_seed = 0;      // the deployment's public randomness (hash functions, rotation)
  uint32_t string_length = 16;   // pem, treehist, sfp: L, the longest string item in bytes
  uint32_t prefix_bits = 8;      // pem, treehist: eta, the bits a group adds to the prefix
  uint32_t buckets = wire::distribution_default_buckets;  // square-wave, hierarchical, haar: D
  uint32_t branching = 0;                                 // hierarchical: B (0: wire::default_branching)
  int64_t half_width = -1;                                // square-wave: b (-1: wire::square_wave_half_width)
  uint32_t order = 0;                                     // kway-marginals: k, conjunctions of at most k attributes
  uint32_t degree = 0;                                    // smooth-queries: t, Chebyshev degrees 0..t-1

  // kent --sparse s (M4, s-sparse means): s (0: none) and the method, choose, select (M4a) or
  // threshold (M4b).
  uint32_t sparse = 0;
  std::string sparse_method = "choose";

  // Set by add_mechanism_options: which options the command line gave, and whether the values
  // above are defaults that stand for missing required options (the demo).
  std::vector<std::pair<const char*, CLI::Option*>> given;
  bool defaults = false;
};

// --mechanism, --epsilon and the mechanism options, on a subcommand. `defaults` makes --mechanism
// and --epsilon optional (the demo), otherwise they are required.
void add_mechanism_options(CLI::App& app, mechanism_options& o, bool defaults = false);

struct parameter_block {
  wire::params params;
  uint64_t fingerprint = 0;
  double epsilon_impl = 0;
  const tool_mechanism* mechanism = nullptr;
  std::vector<unsigned char> windows;  // winsorized-sums: the broadcast window list its devices need
};

// Whether the command line gave `option` (one of add_mechanism_options').
bool given(const mechanism_options& o, const char* option);

// "lo:hi" with lo < hi, or cli_error naming --range.
void parse_range(const std::string& text, double* lo, double* hi);

// The mechanism the options name, with its options checked (unknown name, --epsilon out of range,
// an option it does not take or a required one missing: cli_error).
const tool_mechanism& checked_mechanism(const mechanism_options& o);

// --delta in [0, 1), or cli_error.
void check_delta(double delta);

// "(0, 40]", the levels wire::valid_epsilon accepts, as --epsilon's help and errors show them.
std::string epsilon_range();
// --epsilon in that range, or cli_error.
void check_epsilon(double epsilon);

// Issue 21: "; the smallest usable epsilon for these parameters is about X (...)" when `builds`
// refuses `epsilon` but accepts a larger one up to 40 (found by doubling, then bisection on
// `builds`), else "". Appended to the refusal of a block or protocol built from a tiny epsilon.
std::string smallest_epsilon_hint(double epsilon, const std::function<bool(double)>& builds);

// The block for the options (not for kent or winsorized-mean, whose blocks come from its protocol); public seeds (CMS/HCMS/FLH hash functions, vector-mean rotation signs)
// derive from --public-seed (seeding.h), not from the simulation's --seed, so fleets simulated
// with different seeds share one block and their states merge. Throws cli_error naming the option
// at fault.
parameter_block build_block(const mechanism_options& o);
// The parameter_block of a block built elsewhere (the kent protocol's).
parameter_block block_of(const wire::params& p, const tool_mechanism& m);

}  // namespace ldp::tools

#endif
