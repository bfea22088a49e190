// Parameter blocks for people and scripts: field names as in docs/wire_format.md table 3, signed
// and fixed-point fields shown as such, seeds in hex.
#ifndef LDP_TOOLS_BLOCK_TEXT_H
#define LDP_TOOLS_BLOCK_TEXT_H

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ldp/wire/params.h"

namespace ldp::tools {

struct block_field {
  std::string name;
  nlohmann::ordered_json value;  // integer, or hex string for seeds
  std::string text;              // for tables: fixed-point fields also as reals ("-65536 (= -1)")
};

// Every field present in the block, in tag order.
std::vector<block_field> block_fields(const wire::params& p);

// "d=1000 g=8", "d=1000 k=16 m=1024": the block's size parameters in one line.
std::string describe_block(const wire::params& p);

// "epsilon 0.999999999174482 implemented", and for a memoized block (docs/mechanisms.md E.1, E.2)
// "epsilon 0.999999999174482 implemented per report, 3.99999999990448 longitudinal": the
// block's implemented levels; "" for a block without an epsilon (central DP).
std::string describe_epsilon(const wire::params& p);

std::string to_hex(const unsigned char* bytes, std::size_t size);

}  // namespace ldp::tools

#endif
