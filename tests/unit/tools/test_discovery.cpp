// Discovery metrics and output (tools/ldp/discovery_metrics.h, discovered_output.h; docs/cli.md
// "Discovery output and metrics"), against values computed by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "discovered_output.h"
#include "discovery_metrics.h"

using ldp::tools::discovered_string;
using ldp::tools::discovery_metrics;
using ldp::tools::measure_discovery;
using ldp::tools::printable_string;
using ldp::tools::string_count;

namespace {

discovered_string found(const std::string& item, double estimate) {
  return {item, estimate, 4.0, estimate - 1, estimate + 1};
}

// Truth in no particular order: the metrics rank it themselves. b and c tie at 8.
const std::vector<string_count> truth = {{"d", 5}, {"c", 8}, {"e", 1}, {"a", 10}, {"b", 8}};
// Rank order: b (a true top-2 string) only at rank 4.
const std::vector<discovered_string> discovered = {found("c", 7), found("a", 12), found("x", 3), found("b", 9)};

}  // namespace

TEST_CASE("precision and recall at K: the true top K breaks a tie at the K-th count by bytes ascending") {
  // T_2 = {a, b} (b before c), D_2 = {c, a}: one hit. The count error of T_2 uses b's estimate from
  // rank 4: a 12 - 10 = 2, b 9 - 8 = 1.
  const discovery_metrics k2 = measure_discovery(discovered, truth, 2);
  CHECK(k2.k == 2);
  CHECK(k2.precision == 0.5);
  CHECK(k2.recall == 0.5);
  CHECK(k2.count_rmse == doctest::Approx(std::sqrt(2.5)).epsilon(1e-15));
  // T_3 = {a, b, c}, D_3 = {c, a, x}: two hits; errors 2, 1, -1.
  const discovery_metrics k3 = measure_discovery(discovered, truth, 3);
  CHECK(k3.precision == doctest::Approx(2.0 / 3).epsilon(1e-15));
  CHECK(k3.recall == doctest::Approx(2.0 / 3).epsilon(1e-15));
  CHECK(k3.count_rmse == doctest::Approx(std::sqrt(2.0)).epsilon(1e-15));
}

TEST_CASE("K beyond both lists: D_K and T_K are the whole lists; an undiscovered string counts with 0") {
  // T = {a, b, c, d, e}, D = {c, a, x, b}: hits a, b, c; errors 2, 1, -1, -5 (d not found), -1 (e).
  const discovery_metrics m = measure_discovery(discovered, truth, 10);
  CHECK(m.precision == 0.75);
  CHECK(m.recall == 0.6);
  CHECK(m.count_rmse == doctest::Approx(std::sqrt(32.0 / 5)).epsilon(1e-15));
}

TEST_CASE("a repeated discovered string counts once; empty lists give NaN where undefined") {
  const discovery_metrics twice = measure_discovery({found("a", 1), found("a", 5)}, {{"a", 1}, {"b", 1}}, 2);
  CHECK(twice.precision == 0.5);
  CHECK(twice.recall == 0.5);
  CHECK(twice.count_rmse == doctest::Approx(std::sqrt(0.5)).epsilon(1e-15));  // a's first entry: 1 - 1; b: 0 - 1
  const discovery_metrics none = measure_discovery({}, truth, 2);
  CHECK(std::isnan(none.precision));
  CHECK(none.recall == 0);
  CHECK(none.count_rmse == doctest::Approx(std::sqrt((100.0 + 64.0) / 2)).epsilon(1e-15));
  const discovery_metrics no_truth = measure_discovery(discovered, {}, 2);
  CHECK(no_truth.precision == 0);
  CHECK(std::isnan(no_truth.recall));
  CHECK(std::isnan(no_truth.count_rmse));
}

TEST_CASE("printable_string: backslash doubled, control and non-UTF-8 bytes as \\xNN, valid UTF-8 kept") {
  CHECK(printable_string("plain words") == "plain words");
  CHECK(printable_string("a\\x41\\") == "a\\\\x41\\\\");
  CHECK(printable_string("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80") == "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80");
  CHECK(printable_string("\xff\xc3") == "\\xff\\xc3");           // a stray byte, a cut sequence
  CHECK(printable_string("\xc0\xaf") == "\\xc0\\xaf");           // an overlong '/'
  CHECK(printable_string("\xed\xa0\x80") == "\\xed\\xa0\\x80");  // a surrogate
  CHECK(printable_string("tab\there\r\n") == "tab\\x09here\\x0d\\x0a");
}

TEST_CASE("discovered_json: any bytes dump without throwing; metrics only with a truth, NaN as null") {
  const std::vector<discovered_string> list = {{"\xff\xfe\\", 12.5, 4, 8.5, 16.5}, {"the", 3, 2, 1, 5}};
  const nlohmann::ordered_json plain = ldp::tools::discovered_json(list, std::nullopt);
  std::string text;
  CHECK_NOTHROW(text = plain.dump());
  CHECK(text ==
        "{\"discovered\":[{\"item\":\"\\\\xff\\\\xfe\\\\\\\\\",\"estimate\":12.5,\"variance\":4.0,\"ci_low\":8.5,"
        "\"ci_high\":16.5},{\"item\":\"the\",\"estimate\":3.0,\"variance\":2.0,\"ci_low\":1.0,\"ci_high\":5.0}]}");
  const discovery_metrics m{2, std::nan(""), 0.5, 1.25};
  const nlohmann::ordered_json with = ldp::tools::discovered_json(list, m);
  CHECK(with.dump().substr(text.size() - 1) == ",\"precision\":null,\"recall\":0.5,\"count_rmse\":1.25}");
}

TEST_CASE("print_discovered_table: rank, estimate, interval, string; the metrics line with a truth") {
  char* buffer = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&buffer, &size);
  REQUIRE(out != nullptr);
  const std::vector<discovered_string> list = {{"the", 1234.4, 9, 1200.2, 1268.6}, {"a\xff", 7.6, 9, -20, 35.2}};
  ldp::tools::print_discovered_table(out, list, 0.95, discovery_metrics{10, 0.5, 0.25, 12.5});
  std::fclose(out);
  const std::string text(buffer, size);
  std::free(buffer);
  CHECK(text ==
        "discovered strings with 95% confidence intervals (2 strings):\n"
        "  rank  estimate        95% CI  string\n"
        "  ----  --------  ------------  ------\n"
        "     1      1234  [1200, 1269]  the\n"
        "     2         8     [-20, 35]  a\\xff\n"
        "against the true top 10: precision 0.5000, recall 0.2500, count RMSE 12.5\n");
}
