"""Strings (docs/python.md "Strings"): the string-discovery blocks pem, treehist and sfp through
Randomizer and Aggregator -- discovery of a synthetic fleet's heavy strings, candidate estimates in
the caller's order, exact bytes through str, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

import ldpkit

# Three heavy strings -- ASCII, UTF-8 beyond ASCII, and bytes that are not UTF-8 -- each held by a
# quarter of the devices; the last quarter holds light strings (800 random 3-letter words, about 9
# devices each).
HEAVY = ["the", "été", b"a\xffb"]
HEAVY_TEXT = ["the", "été", "a\udcffb"]  # how discover() returns them (surrogateescape)
ALPHABET = b"abcdefghijklmnopqrstuvwxyz\xc3\xa9\xff"
LENGTH = 6
DEVICES = 24_000


def fleet(seed: int) -> list:
    """The devices' strings, shuffled."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    light = ["".join(rng.choice(letters, 3)) for _ in range(800)]
    light = [w for w in light if w != "the"]
    quarter = DEVICES // 4
    strings = [s for s in HEAVY for _ in range(quarter)] + [light[i] for i in rng.integers(0, len(light), quarter)]
    return [strings[i] for i in rng.permutation(len(strings))]


BLOCKS = {
    "pem": dict(epsilon=4.0, string_length=LENGTH, prefix_bits=8),
    "treehist": dict(epsilon=4.0, string_length=LENGTH, prefix_bits=8, sketch=(16, 1024), public_seed=7),
    "sfp": dict(epsilon=4.0, string_length=LENGTH, sketch=(16, 1024), public_seed=7),
}


@pytest.fixture(scope="module")
def states():
    """An aggregator per mechanism over the same fleet (fixed seeds)."""
    strings = fleet(seed=1)
    out = {}
    for mechanism, options in BLOCKS.items():
        p = ldpkit.params(mechanism, **options)
        agg = ldpkit.Aggregator(p)
        agg.add_batch(ldpkit.Randomizer(p, seed=2).randomize(strings))
        out[mechanism] = agg
    return out


def light_prefix_counts(strings: list) -> int:
    """The most devices any prefix holds that is not a prefix of a heavy string."""
    heavy = [h.encode() if isinstance(h, str) else h for h in HEAVY]
    counts: dict = {}
    for s in strings:
        b = s.encode() if isinstance(s, str) else s
        for end in range(1, len(b) + 1):
            if not any(h.startswith(b[:end]) for h in heavy):
                counts[b[:end]] = counts.get(b[:end], 0) + 1
    return max(counts.values())


@pytest.mark.parametrize("mechanism", list(BLOCKS))
def test_discover_finds_the_heavy_strings(mechanism, states):
    """The three heavy strings are the three found, each within 6 sd of its true count 6000.

    False-failure probability (normal tails of the estimates, sums of thousands of bounded reports):
    no other prefix, fragment or string holds more than 400 devices (asserted), and every standard
    deviation is at most 6000 / 12 (asserted for the heavy strings, whose variance also carries the
    group draw; a candidate without devices has less), so displacing a heavy string or prefix from
    the kept ones, ranked by interval lower end, needs an estimate more than (6000 - 400 - 2.58 * 500)
    / 500 > 8 sd off; over fewer than 10^7 candidates that is < 10^7 * 7e-16 < 1e-8. The three 6 sd
    checks fail with probability < 6e-9. In all < 1e-7."""
    assert light_prefix_counts(fleet(seed=1)) <= 400
    agg = states[mechanism]
    found = agg.discover(3, alphabet=ALPHABET, confidence=0.99)
    assert list(found.columns) == ["item", "estimate", "variance", "ci_low", "ci_high"]
    assert sorted(found["item"]) == sorted(HEAVY_TEXT)
    truth = DEVICES // 4
    sd = np.sqrt(found["variance"].to_numpy())
    assert (truth >= 12 * sd).all(), sd
    assert (np.abs(found["estimate"].to_numpy() - truth) < 6 * sd).all(), found
    assert (found["ci_low"] < found["estimate"]).all() and (found["estimate"] < found["ci_high"]).all()
    # Rank order: by the lower end of the interval (docs/mechanisms.md F.2), best first.
    assert list(found["ci_low"]) == sorted(found["ci_low"], reverse=True)
    assert found.attrs["k"] == 3 and found.attrs["reports"] == DEVICES and found.attrs["confidence"] == 0.99
    assert found.attrs["mechanism"] == mechanism
    # Exact bytes through str: the bytes string comes back as the str that encodes to it.
    assert "a\udcffb".encode("utf-8", "surrogateescape") == b"a\xffb"
    # At most k rows.
    assert len(agg.discover(1, alphabet=ALPHABET)) == 1


@pytest.mark.parametrize("mechanism", list(BLOCKS))
def test_estimate_strings_keeps_the_given_order(mechanism, states):
    """estimate_strings answers in the caller's order; str and bytes of the same string agree; an absent
    string is near 0 and a heavy one near its count (6 sd: the same bound as above)."""
    agg = states[mechanism]
    asked = ["zzzz", b"a\xffb", "the", "été"]
    frame = agg.estimate_strings(asked)
    assert list(frame["item"]) == ["zzzz", "a\udcffb", "the", "été"]
    sd = np.sqrt(frame["variance"].to_numpy())
    truth = np.array([0, DEVICES // 4, DEVICES // 4, DEVICES // 4])
    assert (np.abs(frame["estimate"].to_numpy() - truth) < 6 * sd).all(), frame
    again = agg.estimate_strings(["été", "a\udcffb", "the"], confidence=0.5)
    assert list(again["estimate"]) == list(frame["estimate"][[3, 1, 2]])
    assert (again["ci_high"] - again["ci_low"] < frame["ci_high"][[3, 1, 2]].to_numpy()
            - frame["ci_low"][[3, 1, 2]].to_numpy()).all()
    assert len(agg.estimate_strings([])) == 0


def test_refusals():
    p = ldpkit.params("pem", epsilon=2.0, string_length=4)
    r = ldpkit.Randomizer(p, seed=1)
    with pytest.raises(ValueError, match=r"string 2 has 5 bytes, more than the block's string_length 4"):
        r.randomize(["a", "bb", "abcde"])
    with pytest.raises(ValueError, match=r"string 1 has 5 bytes"):
        r.randomize(["a", "ééa"])  # 3 characters, 5 bytes of UTF-8
    with pytest.raises(ValueError, match=r"string 1 holds a zero byte at byte 1"):
        r.randomize(["a", b"a\x00b"])
    with pytest.raises(ValueError, match=r"string 0 is empty"):
        r.randomize([""])
    with pytest.raises(ValueError, match="no strings"):
        r.randomize([])
    with pytest.raises(TypeError, match="string 1 must be a str or bytes"):
        r.randomize(["a", 7])
    with pytest.raises(TypeError, match="sequence"):
        r.randomize("abc")
    with pytest.raises(TypeError, match="sequence"):
        r.randomize(b"abc")
    assert r.calls == 0  # nothing refused was drawn
    assert r.randomize(np.array(["ab", "c"]))[:4] == b"LDPB"  # numpy str arrays are sequences of str
    # A numeric block refuses strings, a string block numbers.
    with pytest.raises(TypeError):
        ldpkit.Randomizer(ldpkit.params("grr", epsilon=1.0, domain=4), seed=1).randomize(["a"])
    with pytest.raises(TypeError):
        r.randomize(np.array([1, 2]))

    agg = ldpkit.Aggregator(p)
    with pytest.raises(ValueError, match=r"discover\(k\).*estimate_strings"):
        agg.estimate()
    with pytest.raises(ValueError, match="candidate 1 has 5 bytes"):
        agg.estimate_strings(["ab", "abcde"])
    with pytest.raises(ValueError, match="k must be in"):
        agg.discover(0)
    with pytest.raises(TypeError):
        agg.discover(2, alphabet=5)
    with pytest.raises(ValueError, match="confidence"):
        agg.discover(2, confidence=1.0)
    olh = ldpkit.Aggregator(ldpkit.params("olh", epsilon=1.0, domain=8))
    with pytest.raises(ValueError, match=r"discover\(\) applies to pem, treehist and sfp"):
        olh.discover(3)
    with pytest.raises(ValueError, match=r"estimate_strings\(\) applies"):
        olh.estimate_strings(["a"])
    with pytest.raises(ValueError, match=r"discover\(\) applies"):
        olh._core.discover(3, 0, b"", 0.95)  # the compiled module checks too


def test_empty_state_discovers_nothing():
    """A state without reports has no group to extend: an empty frame, not an error."""
    agg = ldpkit.Aggregator(ldpkit.params("pem", epsilon=2.0, string_length=4))
    found = agg.discover(5)
    assert len(found) == 0 and list(found.columns) == ["item", "estimate", "variance", "ci_low", "ci_high"]


def test_merge_and_state_bytes():
    """A string state merges and saves through the generic aggregator: halves merged == the whole."""
    p = ldpkit.params("sfp", epsilon=4.0, string_length=4, sketch=(4, 64))
    strings = ["ab", "cd", "ab", "efg"] * 250
    whole = ldpkit.Aggregator(p)
    whole.add_batch(ldpkit.Randomizer(p, seed=3).randomize(strings))
    batch = ldpkit.Randomizer(p, seed=3).randomize(strings)
    a, b = ldpkit.Aggregator(p), ldpkit.Aggregator(p)
    a.add_batch(batch)
    b.merge(a)
    assert b.serialize() == whole.serialize()
    copy = ldpkit.Aggregator.deserialize(whole.serialize())
    assert list(copy.estimate_strings(["ab"])["estimate"]) == list(whole.estimate_strings(["ab"])["estimate"])
