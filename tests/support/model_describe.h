// A decoded model broadcast as one line of text (the `expect` lines of tests/golden/model): the
// header's fields and every weight with 17 significant digits, so that equal lines mean equal values.
#ifndef LDP_TEST_MODEL_DESCRIBE_H
#define LDP_TEST_MODEL_DESCRIBE_H

#include <cstdint>
#include <cstdio>
#include <string>

#include "ldp/wire/model_broadcast.h"

namespace ldp::test {

inline std::string describe_model(const wire::model_header& h, const double* theta) {
  char buf[128];
  std::snprintf(buf, sizeof buf,
                "kind=%u p=%u classes=%u format=%u round=%llu weights=", static_cast<unsigned>(h.shape.kind),
                static_cast<unsigned>(h.shape.features), static_cast<unsigned>(h.shape.classes),
                static_cast<unsigned>(h.format), static_cast<unsigned long long>(h.round));
  std::string out = buf;
  for (uint64_t i = 0; i < wire::model_dim(h.shape); ++i) {
    std::snprintf(buf, sizeof buf, "%s%.17g", i == 0 ? "" : ",", theta[i]);
    out += buf;
  }
  return out;
}

}  // namespace ldp::test

#endif
