#!/usr/bin/env python3
"""Tests of `ldp estimate STATE --candidates FILE` (docs/cli.md "estimate"): the estimates of the
listed items of a frequency-oracle state, in the file's order, and the refusals. Run by CTest one
case at a time:

    test_candidates.py --ldp build/host/tools/ldp --work <scratch dir> <case>

The helpers (running the binary, the mechanisms' options) are test_cli.py's.
"""
import sys
from typing import Dict, List

import test_cli as cli
from test_cli import check, estimate_json, fails, path, run, simulate, write


def state_of(config: str, name: str, extra: List[str] = ()) -> str:
    """Simulates and aggregates a run of config; returns the state file's name."""
    simulate(config, name + ".ldpb", extra=extra)
    run("aggregate", path(name + ".ldpb"), "--out", path(name + ".ldps"))
    return name + ".ldps"


def by_item(estimates: List[Dict]) -> Dict[int, Dict]:
    return {e["item"]: e for e in estimates}


# ---- Cases ---------------------------------------------------------------------------------------

def case_candidates_cms() -> None:
    """CMS over a large domain (d = 5000, where the full estimate is what --candidates avoids): the
    candidates' estimates are the full estimate's rows of exactly those items, in the file's order
    (blank lines, blanks around an item, CRLF and a missing final newline allowed), with the variance
    kind of a candidate list; --top ranks them; --truth compares the candidates' rows."""
    config = "cms/large"
    cli.MECHANISMS[config] = (["--domain", "5000", "--sketch", "8:64"], 5000)
    simulate(config, "large.ldpb", extra=["--truth-out", path("truth.csv")])
    run("aggregate", path("large.ldpb"), "--out", path("large.ldps"))
    items = [4999, 0, 17, 3, 1, 2500]
    write("cand.txt", "4999\n\n  0 \n17\r\n\t3\n1\n\n2500")
    full = by_item(estimate_json("large.ldps")["estimates"])
    got = estimate_json("large.ldps", "--candidates", path("cand.txt"))
    check([e["item"] for e in got["estimates"]] == items, f"{config}: items {[e['item'] for e in got['estimates']]}")
    for e in got["estimates"]:
        check(e["estimate"] == full[e["item"]]["estimate"],
              f"{config}: item {e['item']} estimate {e['estimate']}, full estimate {full[e['item']]['estimate']}")
        check(e["ci_low"] < e["estimate"] < e["ci_high"], f"{config}: item {e['item']} interval {e}")
    check(got["size"] == len(items) and got["variance_kind"] == "average", f"{config}: {got['size']} {got['variance_kind']}")
    check(got["mechanism"] == "cms" and got["reports"] == 3000, f"{config}: {got['mechanism']} {got['reports']}")

    top = estimate_json("large.ldps", "--candidates", path("cand.txt"), "--top", "2")["estimates"]
    ranked = sorted(got["estimates"], key=lambda e: -e["estimate"])[:2]
    check([e["item"] for e in top] == [e["item"] for e in ranked], f"--top 2: {top}")

    truth = {}
    with open(path("truth.csv")) as f:
        for line in f.read().split()[1:]:
            item, count = line.split(",")
            truth[int(item)] = float(count)
    with_truth = estimate_json("large.ldps", "--candidates", path("cand.txt"), "--truth", path("truth.csv"))
    check([e["true"] for e in with_truth["estimates"]] == [truth[i] for i in items], f"true column {with_truth}")
    check(with_truth["error"]["size"] == len(items), f"error over {with_truth['error']['size']} items")

    text, _ = run("estimate", path("large.ldps"), "--candidates", path("cand.txt"))
    check("(6 items)" in text and "2500" in text, f"table output:\n{text}")


def case_candidates_every_oracle() -> None:
    """Every frequency oracle of test_cli.py takes --candidates: the estimates of the items 49, 0 and
    7, in this order, are the full estimate's."""
    write("cand.txt", "49\n0\n7\n")
    for config in [c for c in cli.MECHANISMS if cli.is_frequency(c)]:
        name = config.replace("/", "-")
        state = state_of(config, name)
        full = by_item(estimate_json(state)["estimates"])
        got = estimate_json(state, "--candidates", path("cand.txt"))["estimates"]
        check([e["item"] for e in got] == [49, 0, 7], f"{config}: items {[e['item'] for e in got]}")
        for e in got:
            check(e["estimate"] == full[e["item"]]["estimate"],
                  f"{config}: item {e['item']} estimate {e['estimate']}, full {full[e['item']]['estimate']}")


def case_candidates_refused() -> None:
    """Bad candidate files name the file and line (exit 2); non-frequency states are refused."""
    state = state_of("olh", "olh")
    cases = {
        "out.txt": ("1\n50\n", r"candidate file .*out\.txt line 2: item 50 is not in the state's domain \[0, 50\)"),
        "huge.txt": ("99999999999999999999999\n", r"huge\.txt line 1: item 9+ is not in the state's domain"),
        "word.txt": ("3\n\nthree\n", r"word\.txt line 3: 'three' is not an item number"),
        "negative.txt": ("-1\n", r"negative\.txt line 1: '-1' is not an item number"),
        "fraction.txt": ("1.5\n", r"fraction\.txt line 1: '1\.5' is not an item number"),
        "twice.txt": ("4\n5\n4\n", r"twice\.txt line 3: item 4 appears twice \(first on line 1\)"),
        "empty.txt": ("\n \n", r"candidate file .*empty\.txt holds no candidates"),
    }
    for name, (text, message) in cases.items():
        write(name, text)
        fails("estimate", path(state), "--candidates", path(name), message=message)
    fails("estimate", path(state), "--candidates", path("missing.txt"), message=r"missing\.txt")
    write("cand.txt", "0\n")
    numeric = state_of("duchi", "duchi")
    fails("estimate", path(numeric), "--candidates", path("cand.txt"),
          message=r"--candidates applies to frequency-oracle states only; .*duchi\.ldps is duchi")


if __name__ == "__main__":
    sys.exit(cli.main(globals()))
