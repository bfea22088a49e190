#!/usr/bin/env python3
"""Tests of the string-discovery mechanisms in the tool (docs/cli.md "Strings"): ldp simulate
--mechanism pem|treehist|sfp --data text:..., ldp aggregate and merge of their batches, ldp estimate
--discover K (with --truth) and --candidates of strings, and the refusals. Run by CTest one case at
a time:

    test_strings.py --ldp build/host/tools/ldp --work <scratch dir> <case>

The helpers (running the binary) are test_cli.py's.
"""
import csv
import json
import sys
from typing import Dict, List, Tuple

import test_cli as cli
from test_cli import check, fails, path, read, run, write

METHODS = {
    "pem": ["--string-length", "6"],
    "treehist": ["--string-length", "6", "--prefix-bits", "4", "--sketch", "8:256"],
    "sfp": ["--string-length", "6"],
}

# A text of known word frequencies: "privacy" is too long for L = 6 and is left out.
WORDS: List[Tuple[str, int]] = [("data", 400), ("local", 250), ("noise", 160), ("bits", 100), ("hash", 60),
                                ("ab", 25), ("zz", 5), ("privacy", 30)]


def corpus() -> str:
    """Writes the text (one word per line, in a fixed interleaved order) and returns its name."""
    lines = []
    for i in range(max(c for _, c in WORDS)):
        lines += [w for w, c in WORDS if i < c]
    write("words.txt", "\n".join(lines) + "\n")
    return path("words.txt")


def simulate(method: str, out: str, devices: int, seed: int = 1, epsilon: str = "4", extra=()) -> str:
    stdout, _ = run("simulate", "--mechanism", method, "--epsilon", epsilon, *METHODS[method], "--data",
                    f"text:{corpus()}:words", "--devices", str(devices), "--seed", str(seed), "--out", path(out), *extra)
    return stdout


def state_of(method: str, name: str, devices: int) -> str:
    simulate(method, name + ".ldpb", devices, extra=["--truth-out", path(name + ".truth.csv")])
    run("aggregate", path(name + ".ldpb"), "--out", path(name + ".ldps"))
    return name + ".ldps"


def discover(state: str, k: int, *extra) -> Dict:
    out, _ = run("estimate", path(state), "--discover", str(k), "--format", "json", *extra)
    return json.loads(out)


# ---- Cases ---------------------------------------------------------------------------------------

def case_strings_discover() -> None:
    """Each method finds the top 4 words of the text, in order, from 60,000 devices at epsilon 4; their
    estimates are near the true counts; --truth gives precision and recall 1 at K = 4; the words longer
    than L are left out and said so; the table names the mechanism. False-failure probability: the
    gaps between the top counts are over 10 standard deviations of the scaled group estimates (pem:
    G = 6 groups, sd about 600 at 60,000 devices against gaps of 5,400 and more), below 1e-9 each."""
    for method in METHODS:
        out = simulate(method, f"{method}.ldpb", 60000, extra=["--truth-out", path(f"{method}.truth.csv")])
        check("left out" in out and "longer than 6 bytes" in out, f"{method}: simulate did not report the long word:\n{out}")
        run("aggregate", path(f"{method}.ldpb"), "--out", path(f"{method}.ldps"))
        # sfp's fragment search over the text's letters only (the default, printable ASCII, costs 13 times more).
        letters = ["--alphabet", "abcdefghijklmnopqrstuvwxyz"] if method == "sfp" else []
        j = discover(f"{method}.ldps", 4, "--truth", path(f"{method}.truth.csv"), *letters)
        found = [d["item"] for d in j["discovered"]]
        check(found == ["data", "local", "noise", "bits"], f"{method}: discovered {found}")
        check(j["mechanism"] == method and j["reports"] == 60000 and j["k"] == 4, f"{method}: header {j}")
        check(j["precision"] == 1 and j["recall"] == 1, f"{method}: precision {j['precision']} recall {j['recall']}")
        with open(path(f"{method}.truth.csv"), newline="") as f:
            truth = {r["item"]: int(r["count"]) for r in csv.DictReader(f)}
        check("privacy" not in truth and sum(truth.values()) == 60000, f"{method}: truth {truth}")
        for d in j["discovered"]:
            sd = d["variance"] ** 0.5
            check(abs(d["estimate"] - truth[d["item"]]) < 6 * sd, f"{method}: {d} against {truth[d['item']]}")
            check(d["ci_low"] < d["estimate"] < d["ci_high"], f"{method}: interval {d}")
        table, _ = run("estimate", path(f"{method}.ldps"), "--discover", "3", *letters)
        check(method in table and "local" in table, f"{method}: table:\n{table}")


def case_strings_candidates() -> None:
    """--candidates of strings on a string state: the listed words in file order, the true ones near
    their counts (6 sd: false failure below 1e-8 each), a word nobody holds near 0."""
    for method in ("sfp", "pem"):
        state = state_of(method, method, 60000)
        write("cand.txt", "noise\nnever\ndata\n")
        j = json.loads(run("estimate", path(state), "--candidates", path("cand.txt"), "--format", "json")[0])
        items = [d["item"] for d in j["discovered"]]
        check(items == ["noise", "never", "data"], f"{method}: candidates {items}")
        with open(path(f"{method}.truth.csv"), newline="") as f:
            truth = {r["item"]: int(r["count"]) for r in csv.DictReader(f)}
        for d in j["discovered"]:
            want = truth.get(d["item"], 0)
            check(abs(d["estimate"] - want) < 6 * d["variance"] ** 0.5, f"{method}: {d} against {want}")


def case_strings_merge() -> None:
    """The batch is the same bytes for any thread count; two halves aggregated and merged give the
    state of the whole; inspect shows a record's group."""
    for method in METHODS:
        simulate(method, "a.ldpb", 20000, seed=5, extra=["--threads", "1"])
        simulate(method, "b.ldpb", 20000, seed=5, extra=["--threads", "3"])
        check(read("a.ldpb") == read("b.ldpb"), f"{method}: batch depends on the thread count")
        simulate(method, "c.ldpb", 7000, seed=6)
        run("aggregate", path("a.ldpb"), path("c.ldpb"), "--out", path("whole.ldps"))
        run("aggregate", path("c.ldpb"), "--out", path("c.ldps"))
        run("aggregate", path("a.ldpb"), "--out", path("a.ldps"))
        run("merge", path("c.ldps"), path("a.ldps"), "--out", path("merged.ldps"))
        check(read("whole.ldps") == read("merged.ldps"), f"{method}: merge differs from one aggregate")
        out, _ = run("inspect", path("a.ldpb"), "--records", "1")
        check("record 0:" in out and "group=" in out, f"{method}: inspect:\n{out}")


def case_strings_refused() -> None:
    """Clear errors (exit 2) for data, options and states that do not fit."""
    corpus()
    fails("simulate", "-m", "pem", "-e", "1", "--data", "zipf:1.1", "--devices", "10", "--seed", "1", "--out",
          path("x.ldpb"), message="text:")
    write("long.txt", "ok\nmuch too long a line\n")
    fails("simulate", "-m", "pem", "-e", "1", "--string-length", "6", "--data", f"text:{path('long.txt')}",
          "--seed", "1", "--out", path("x.ldpb"), message="long.txt.*2")
    fails("simulate", "-m", "sfp", "-e", "1", "--prefix-bits", "4", "--data", f"text:{path('words.txt')}",
          "--seed", "1", "--out", path("x.ldpb"), message="--prefix-bits")
    fails("simulate", "-m", "sfp", "-e", "1", "--string-length", "7", "--data", f"text:{path('words.txt')}",
          "--seed", "1", "--out", path("x.ldpb"), message="--string-length")
    fails("simulate", "-m", "pem", "-e", "1", "--prefix-bits", "3", "--data", f"text:{path('words.txt')}",
          "--seed", "1", "--out", path("x.ldpb"), message="--prefix-bits")
    state = state_of("pem", "p", 2000)
    fails("estimate", path(state), message="--discover K")
    fails("estimate", path(state), "--discover", "3", "--top", "2", message="--top")
    run("simulate", "-m", "cms", "-e", "1", "-d", "100", "--data", "zipf:1.1", "--devices", "100", "--seed", "1",
        "--out", path("cms.ldpb"))
    run("aggregate", path("cms.ldpb"), "--out", path("cms.ldps"))
    fails("estimate", path("cms.ldps"), "--discover", "3", message="--discover applies to pem, treehist and sfp")


if __name__ == "__main__":
    sys.exit(cli.main(globals()))
