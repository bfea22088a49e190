// The text input of the string mechanisms (tools/ldp/text_input.h, docs/cli.md "Data"): lines and
// word tokens, the refusals naming file and line, a directory's files, the exact counts and the
// truth file of strings.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "errors.h"
#include "text_input.h"

namespace fs = std::filesystem;
using ldp::tools::cli_error;
using ldp::tools::string_count;

namespace {

// A fresh scratch directory per test case, removed at its end.
struct scratch {
  fs::path dir;
  scratch() {
    dir = fs::temp_directory_path() / ("ldp-text-input-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~scratch() { fs::remove_all(dir); }
  std::string write(const std::string& name, const std::string& bytes) const {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
};

std::vector<std::string> lines_of(const std::string& path, std::size_t max = 64) {
  return ldp::tools::read_text_items(ldp::tools::parse_text_spec(path), max).items;
}

std::vector<std::string> words_of(const std::string& path, std::size_t max = 64) {
  return ldp::tools::read_text_items(ldp::tools::parse_text_spec(path + ":words"), max).items;
}

// The cli_error message of f, "" if it does not throw one.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const cli_error& e) {
    return e.what();
  }
  return "";
}

bool same(const std::vector<string_count>& a, const std::vector<string_count>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i].item != b[i].item || a[i].count != b[i].count) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("text spec: a path, or a path and :words") {
  CHECK(ldp::tools::parse_text_spec("a/b.txt").path == "a/b.txt");
  CHECK_FALSE(ldp::tools::parse_text_spec("a/b.txt").words);
  CHECK(ldp::tools::parse_text_spec("c:d:words").path == "c:d");
  CHECK(ldp::tools::parse_text_spec("c:d:words").words);
  CHECK_THROWS_AS(ldp::tools::parse_text_spec(":words"), cli_error);
  CHECK_THROWS_AS(ldp::tools::parse_text_spec(""), cli_error);
}

TEST_CASE("lines: the bytes without \\n or \\r\\n, empty lines skipped, the last line without a newline") {
  const scratch s;
  const std::string f = s.write("l", "a\r\nb  \n\n\r\n x\ry \n\xff\xfe\nlast");
  CHECK(lines_of(f) == std::vector<std::string>{"a", "b  ", " x\ry ", "\xff\xfe", "last"});
}

TEST_CASE("words: runs of ASCII letters, digits and the apostrophe, lowercased") {
  const scratch s;
  const std::string f = s.write("w", std::string("Don't STOP-me now!!\t42x foo_bar caf\xc3\xa9 ab\0cd ' \r\nEnd", 51));
  CHECK(words_of(f) ==
        std::vector<std::string>{"don't", "stop", "me", "now", "42x", "foo", "bar", "caf", "ab", "cd", "'", "end"});
}

TEST_CASE("words longer than the maximum are skipped and counted") {
  const scratch s;
  const std::string f = s.write("w", "abcd abc ABCDE\nxyz");
  const auto r = ldp::tools::read_text_items(ldp::tools::parse_text_spec(f + ":words"), 3);
  CHECK(r.items == std::vector<std::string>{"abc", "xyz"});
  CHECK(r.skipped_long_words == 2);
}

TEST_CASE("lines: a zero byte or an item longer than the maximum is refused, naming file and line") {
  const scratch s;
  const std::string zero = s.write("zero", std::string("ok\n\nx\0y\n", 8));
  CHECK(error_of([&] { lines_of(zero); }) == "text file " + zero + " line 3: holds a zero byte");
  const std::string longer = s.write("long", "abc\r\nabcd\n");
  CHECK(lines_of(longer, 4) == std::vector<std::string>{"abc", "abcd"});  // "\r\n" is not part of the item
  CHECK(error_of([&] { lines_of(longer, 3); }) ==
        "text file " + longer + " line 2: 4 bytes, longer than the 3 of a string item");
}

TEST_CASE("a line longer than 64 MiB is an error like a CSV file's") {
  const scratch s;
  const std::string f = s.write("huge", "a\n" + std::string((std::size_t{64} << 20) + 1, 'x'));
  CHECK(error_of([&] { words_of(f); }) ==
        "text file " + f + " line 2 is too long: more than 67108864 bytes (the limit of docs/cli.md)");
}

TEST_CASE("a directory: its regular files without an extension, sorted by name") {
  const scratch s;
  s.write("b", "two\n");
  s.write("a", "one\n");
  s.write("a.dat", "index\n");
  s.write(".hidden", "hidden\n");
  fs::create_directories(s.dir / "c");
  fs::create_symlink(s.dir / "a", s.dir / "d");     // a link to a regular file is read
  fs::create_symlink(s.dir / "a", s.dir / "a.u8");  // unless its name has an extension
  CHECK(lines_of(s.dir.string()) == std::vector<std::string>{"one", "two", "one"});
  fs::create_directories(s.dir / "empty");
  CHECK_THROWS_AS(lines_of((s.dir / "empty").string()), cli_error);
}

TEST_CASE("counts: count descending, then bytes ascending") {
  const std::vector<string_count> counts = ldp::tools::count_strings({"b", "a", "b", "c", "a", "b", " ", "\xff", "B"});
  CHECK(same(counts, {{"b", 3}, {"a", 2}, {" ", 1}, {"B", 1}, {"c", 1}, {"\xff", 1}}));
}

TEST_CASE("truth file of strings: quoted items round-trip any bytes but zero and newline") {
  const scratch s;
  std::string all_bytes;
  for (int b = 1; b < 256; ++b) {
    if (b != '\n') all_bytes += static_cast<char>(b);
  }
  const std::vector<string_count> counts = {{"a\"b,c", 2}, {"\"", 7},          {" lead", 1},
                                            {"cr\rin", 4}, {"back\\slash", 0}, {all_bytes, 18446744073709551615u}};
  CHECK(ldp::tools::string_truth_csv({{"a\"b,c", 2}}) == "item,count\n\"a\"\"b,c\",2\n");
  const std::string f = (s.dir / "truth.csv").string();
  ldp::tools::write_string_truth(f, counts);
  CHECK(same(ldp::tools::read_string_truth(f), counts));
  // Hand-written files: unquoted items, CRLF, blank lines.
  const std::string hand = s.write("hand.csv", "item,count\r\nthe,5\r\n\r\n\"a,b\",3\nx,y,2\n");
  CHECK(same(ldp::tools::read_string_truth(hand), {{"the", 5}, {"a,b", 3}, {"x,y", 2}}));
}

TEST_CASE("truth file of strings: bad files are refused naming file and line") {
  const scratch s;
  const auto refused = [&](const std::string& text, const std::string& message) {
    const std::string f = s.write("bad.csv", text);
    const std::string got = error_of([&] { ldp::tools::read_string_truth(f); });
    CHECK_MESSAGE(got == "truth file " + f + message, got);
  };
  refused("", " is empty: needs the header item,count");
  refused("item,mean\n\"a\",1\n", " line 1: the header must be item,count");
  refused("item,count\n\"a\",1\n\"b\",2\n\"a\",3\n", " line 4: the item appears twice (first on line 2)");
  refused("item,count\n\"\",3\n", " line 2: the item is empty");
  refused(std::string("item,count\n\"a\0b\",3\n", 19), " line 2: the item holds a zero byte");
  refused("item,count\n\"a\",-1\n", " line 2: '-1' is not a count (a non-negative integer)");
  refused("item,count\n\"a\",1x\n", " line 2: '1x' is not a count (a non-negative integer)");
  refused("item,count\n\"a\",\n", " line 2: '' is not a count (a non-negative integer)");
  refused("item,count\n\"a\",18446744073709551616\n",
          " line 2: '18446744073709551616' is not a count (a non-negative integer)");
  refused("item,count\n\"a,1\n", " line 2: the quoted item does not end");
  refused("item,count\n\"a\"x,1\n", " line 2: needs a comma after the quoted item");
  refused("item,count\nab\"c,1\n", " line 2: an item holding '\"' must be quoted");
  refused("item,count\nabc\n", " line 2: needs item,count");
}
