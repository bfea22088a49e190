// SFP's search (docs/mechanisms.md F.4). Fragment group g reports (puzzle of the word, bytes 2g and
// 2g + 1), so the server estimates every (puzzle r, fragment) with fragment bytes from the alphabet
// and the padding byte 0 (a zero first byte only with a zero second byte, and not at offset 0: a
// word has a nonzero first byte), keeps those above the noise threshold (at most `keep` per offset,
// the best), then, puzzle by puzzle, assembles the words the kept fragments of every offset spell:
// once a fragment holds a zero byte the word has ended and the later fragments are zeros (what its
// devices send is then fixed, so they need not be found). A word is kept only if its own puzzle is r,
// which rejects most false assemblies; the survivors are estimated on the word group, the best k
// returned. The candidate tables (256 puzzles x fragments per offset, the assemblies) are bounded by
// o.max_candidates before they are allocated or enumerated. The inner CMS costs k per candidate.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "string_groups.h"

namespace ldp::server::detail {
namespace {

using wire::padded_string;

struct fragment {
  uint32_t puzzle;
  unsigned char bytes[wire::sfp_fragment_bytes];
};

// The alphabet's distinct nonzero bytes, 0x20..0x7e when it is empty.
std::vector<unsigned char> alphabet_of(const std::string& given) {
  if (!given.empty()) return alphabet_bytes(given);
  std::vector<unsigned char> out;
  for (unsigned c = 0x20; c <= 0x7e; ++c) out.push_back(static_cast<unsigned char>(c));
  return out;
}

// The fragments tried at offset g (without the puzzle): (a, b) with a in the alphabet and b in it or
// 0, then (0, 0) past offset 0.
std::vector<fragment> fragments_at(uint32_t g, const std::vector<unsigned char>& alphabet) {
  std::vector<fragment> out;
  out.reserve(alphabet.size() * (alphabet.size() + 1) + 1);
  for (const unsigned char a : alphabet) {
    out.push_back(fragment{0, {a, 0}});
    for (const unsigned char b : alphabet) out.push_back(fragment{0, {a, b}});
  }
  if (g != 0) out.push_back(fragment{0, {0, 0}});
  return out;
}

bool ends_word(const fragment& f) noexcept { return f.bytes[0] == 0 || f.bytes[1] == 0; }

// Assembles the words of puzzle r from the kept fragments (by offset, each sorted by puzzle),
// depth first; false when more than `budget` assemblies would be enumerated.
class assembler {
 public:
  assembler(const wire::params& p, const std::vector<std::vector<fragment>>& kept, uint64_t budget)
      : params_(p), kept_(kept), budget_(budget) {}

  bool run(uint32_t r, std::vector<padded_string>* words) {
    padded_string word;
    return step(r, 0, &word, words);
  }

 private:
  bool step(uint32_t r, uint32_t g, padded_string* word, std::vector<padded_string>* words) {
    if (g == kept_.size()) {
      if (++enumerated_ > budget_) return false;
      if (wire::sfp_puzzle(params_, *word) == r) words->push_back(*word);
      return true;
    }
    const auto& at = kept_[g];
    const auto first =
        std::lower_bound(at.begin(), at.end(), r, [](const fragment& f, uint32_t puzzle) { return f.puzzle < puzzle; });
    for (auto f = first; f != at.end() && f->puzzle == r; ++f) {
      word->bytes[2 * g] = f->bytes[0];
      word->bytes[2 * g + 1] = f->bytes[1];
      // After the word's end every byte is padding: the later offsets are fixed.
      const uint32_t next = ends_word(*f) ? static_cast<uint32_t>(kept_.size()) : g + 1;
      if (!step(r, next, word, words)) return false;
    }
    word->bytes[2 * g] = 0;
    word->bytes[2 * g + 1] = 0;
    return true;
  }

  const wire::params& params_;
  const std::vector<std::vector<fragment>>& kept_;
  uint64_t budget_;
  uint64_t enumerated_ = 0;
};

}  // namespace

status discover_words(const group_view& v, const discovery_options& o, uint64_t keep,
                      std::vector<discovered_string>* out) {
  const wire::params& p = v.parameters();
  const uint32_t offsets = v.groups() - 1;  // the last group is the word group
  const std::vector<unsigned char> alphabet = alphabet_of(o.alphabet);
  std::vector<std::vector<fragment>> kept(offsets);
  std::vector<uint32_t> items;
  std::vector<estimate> est;
  std::vector<unsigned char> eligible;
  for (uint32_t g = 0; g < offsets; ++g) {
    if (v.reports(g) == 0) return status::ok;  // nothing speaks to these fragments: nothing found
    const uint64_t size = uint64_t{wire::sfp_puzzle_values} * (alphabet.size() * (alphabet.size() + 1) + 1);
    if (size > o.max_candidates) return status::limit_exceeded;
    const std::vector<fragment> tried = fragments_at(g, alphabet);
    items.clear();
    items.reserve(static_cast<std::size_t>(size));
    for (uint32_t r = 0; r < wire::sfp_puzzle_values; ++r) {
      for (const fragment& f : tried) items.push_back(wire::sfp_fragment_item(p, g, r, f.bytes));
    }
    const status s = v.scaled(g, items, o.confidence, &est);
    if (s != status::ok) return s;
    const double t = noise_threshold(est);
    eligible.clear();
    for (const estimate& e : est) eligible.push_back(e.value > t ? 1 : 0);
    for (const std::size_t i : best_of(est, keep, eligible)) {
      fragment f = tried[i % tried.size()];
      f.puzzle = static_cast<uint32_t>(i / tried.size());
      kept[g].push_back(f);
    }
    std::stable_sort(kept[g].begin(), kept[g].end(),
                     [](const fragment& a, const fragment& b) { return a.puzzle < b.puzzle; });
  }
  const uint32_t word_group = offsets;
  if (v.reports(word_group) == 0) return status::ok;
  std::vector<padded_string> words;
  assembler assemble(p, kept, o.max_candidates);
  for (uint32_t r = 0; r < wire::sfp_puzzle_values; ++r) {
    if (!assemble.run(r, &words)) return status::limit_exceeded;
  }
  items.clear();
  for (const padded_string& w : words) items.push_back(wire::sfp_word_item(p, w));
  const status s = v.scaled(word_group, items, o.confidence, &est);
  if (s != status::ok) return s;
  for (const std::size_t i : best_of(est, o.k, {})) out->push_back(discovered_string{unpadded(words[i]), est[i]});
  return status::ok;
}

}  // namespace ldp::server::detail
