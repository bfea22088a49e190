#include "mechanism_options.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>

#include "errors.h"
#include "ldp/wire/oracle_params.h"
#include "ldp/wire/report.h"
#include "seeding.h"

namespace ldp::tools {
namespace {

using wire::field;
using wire::mechanism;

// Options a mechanism must have and may have, space-separated.
struct option_rules {
  wire::mechanism id;
  const char* required;
  const char* optional;
};

constexpr option_rules rules[] = {
    {mechanism::grr, "--domain", ""},       {mechanism::sue, "--domain", ""},
    {mechanism::oue, "--domain", ""},       {mechanism::blh, "--domain", ""},
    {mechanism::olh, "--domain", "--hash-range"},
    {mechanism::hr, "--domain", ""},        {mechanism::cms, "--domain", "--sketch"},
    {mechanism::hcms, "--domain", "--sketch"},
};

const option_rules& rules_of(wire::mechanism id) {
  for (const option_rules& r : rules) {
    if (r.id == id) return r;
  }
  fail("internal: no option rules for mechanism {}", wire::mechanism_name(id));
}

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

bool given(const mechanism_options& o, const char* option) {
  for (const auto& [name, opt] : o.given) {
    if (std::strcmp(name, option) == 0) return opt->count() > 0;
  }
  return false;
}

// "k:m" with both parts positive integers below 2^32.
void parse_sketch(const std::string& text, uint32_t* k, uint32_t* m) {
  const std::size_t colon = text.find(':');
  unsigned long long a = 0, b = 0;
  char tail = 0;
  if (colon == std::string::npos ||
      std::sscanf(text.substr(0, colon).c_str(), "%llu%c", &a, &tail) != 1 ||
      std::sscanf(text.substr(colon + 1).c_str(), "%llu%c", &b, &tail) != 1 || a == 0 || b == 0 ||
      a > std::numeric_limits<uint32_t>::max() || b > std::numeric_limits<uint32_t>::max() ||
      text.find('-') != std::string::npos) {
    fail("--sketch must be k:m (rows:columns, positive integers), got '{}'", text);
  }
  *k = static_cast<uint32_t>(a);
  *m = static_cast<uint32_t>(b);
}

}  // namespace

const std::vector<tool_mechanism>& tool_mechanisms() {
  static const std::vector<tool_mechanism> all = {
      {"grr", mechanism::grr, input_kind::item, "--domain D"},
      {"sue", mechanism::sue, input_kind::item, "--domain D"},
      {"oue", mechanism::oue, input_kind::item, "--domain D"},
      {"blh", mechanism::blh, input_kind::item, "--domain D"},
      {"olh", mechanism::olh, input_kind::item, "--domain D [--hash-range g]"},
      {"hr", mechanism::hr, input_kind::item, "--domain D"},
      {"cms", mechanism::cms, input_kind::item, "--domain D [--sketch k:m]"},
      {"hcms", mechanism::hcms, input_kind::item, "--domain D [--sketch k:m]"},
  };
  return all;
}

const tool_mechanism* find_tool_mechanism(wire::mechanism id) {
  for (const tool_mechanism& m : tool_mechanisms()) {
    if (m.id == id) return &m;
  }
  return nullptr;
}

void add_mechanism_options(CLI::App& app, mechanism_options& o, bool defaults) {
  CLI::Option* mech = app.add_option("--mechanism,-m", o.name, "mechanism: " + known_names());
  CLI::Option* eps = app.add_option("--epsilon,-e", o.epsilon, "privacy level epsilon, in (0, 40]");
  o.defaults = defaults;
  if (!defaults) {
    mech->required();
    eps->required();
  }
  o.given = {
      {"--domain", app.add_option("--domain,-d", o.domain, "frequency oracles: items, values in [0, D)")},
      {"--hash-range", app.add_option("--hash-range", o.hash_range, "olh: hash range g (default: the optimum)")},
      {"--sketch", app.add_option("--sketch", o.sketch, "cms, hcms: rows:columns (default 16:1024)")},
  };
  app.add_option("--public-seed", o.public_seed,
                 "seed of the public hash functions (cms, hcms; default 0): part of the parameters");
}

parameter_block build_block(const mechanism_options& o) {
  parameter_block out;
  for (const tool_mechanism& m : tool_mechanisms()) {
    if (o.name == m.name) out.mechanism = &m;
  }
  if (out.mechanism == nullptr) fail("unknown mechanism '{}' (known: {})", o.name, known_names());
  const tool_mechanism& m = *out.mechanism;
  if (!(o.epsilon > 0 && o.epsilon <= 40)) fail("--epsilon must be in (0, 40], got {}", o.epsilon);

  const option_rules& r = rules_of(m.id);
  for (const auto& [name, opt] : o.given) {
    if (opt->count() > 0 && !lists(r.required, name) && !lists(r.optional, name)) {
      fail("{} does not apply to --mechanism {} (it takes {})", name, m.name, m.options);
    }
  }
  for (const auto& [name, opt] : o.given) {
    if (!o.defaults && lists(r.required, name) && opt->count() == 0) fail("--mechanism {} needs {}", m.name, m.options);
  }

  wire::derived_params derived;
  if (m.input == input_kind::item) {
    const uint32_t d = o.domain;
    if (d < 2) fail("--domain must be at least 2, got {}", d);
    if (m.id == mechanism::olh && given(o, "--hash-range")) {
      if (o.hash_range < 2) fail("--hash-range must be at least 2, got {}", o.hash_range);
      derived = wire::make_olh(o.epsilon, d, o.hash_range);
    } else if (m.id == mechanism::cms || m.id == mechanism::hcms) {
      uint32_t k = 16, cols = 1024;
      if (given(o, "--sketch")) parse_sketch(o.sketch, &k, &cols);
      if (m.id == mechanism::hcms && (cols & (cols - 1)) != 0) {
        fail("--sketch: hcms needs a power-of-two column count, got {}", cols);
      }
      unsigned char hash_seed[wire::seed_size];
      derive_seed(o.public_seed, seed_purpose::hash_seed, 0, hash_seed);
      derived = wire::make_frequency_oracle(m.id, o.epsilon, d, k, cols, hash_seed);
    } else {
      derived = wire::make_frequency_oracle(m.id, o.epsilon, d);
    }
  }
  if (derived.code != status::ok) {
    fail("cannot build a {} block with epsilon {} and {}: {} (limits: docs/wire_format.md 3.3)", m.name,
         o.epsilon, m.options, describe(derived.code));
  }
  out.params = derived.block;
  out.fingerprint = wire::fingerprint(derived.block);
  out.epsilon_impl = derived.epsilon_impl;
  return out;
}

}  // namespace ldp::tools
