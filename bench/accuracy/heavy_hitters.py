#!/usr/bin/python3
"""String discovery (pem, treehist, sfp) on the word tokens of the Debian package fortunes.

docs/accuracy.md, section "Heavy hitters over strings", records the tables this script prints. The
data are the word tokens of /usr/share/games/fortunes (apt package `fortunes`; tokens as `ldp
simulate --data text:DIR:words` reads them: runs of ASCII letters, digits and the apostrophe,
lowercased, at most --length bytes). A run of n devices draws n tokens i.i.d. from the corpus
(`ldp simulate --devices n`), so the true top K is that of the corpus's word frequencies.

For every method, epsilon, n and K it runs `ldp simulate`, `ldp aggregate` and `ldp estimate
--discover K --truth` (the tool's precision, recall and count RMSE at K, docs/cli.md "Discovery
output and metrics"), and prints them with the wall time of the discovery. The discovery searches
the bytes a token can hold (--alphabet, a public property of the tokenizer, not of the data). Beside them, the ideal
of a frequency oracle that knows the domain: the distinct words numbered, the same true counts
reported by OLH over that domain (the least variance `ldp mechanisms` ranks there, with OUE's,
whose 4 kB reports are impractical; FLH and the block HR lose to it on these skewed counts), its K
largest estimates taken as the discovery, measured with the same definitions.

    bench/accuracy/heavy_hitters.py --ldp build/host/tools/ldp --work /tmp/hh \\
        --devices 100000 1000000 10000000 --epsilons 1 2 4 --ks 10 50 100
"""
import argparse
import csv
import json
import math
import os
import subprocess
import sys
import time
from typing import Dict, List, Optional, Sequence, Tuple

CORPUS = "/usr/share/games/fortunes"
METHODS = ["pem", "treehist", "sfp"]
# What a word token of `ldp simulate --data text:...:words` can hold: the server searches these bytes.
TOKEN_BYTES = "abcdefghijklmnopqrstuvwxyz0123456789'"


def run(args: Sequence[str]) -> str:
    """Runs a command, returning its stdout; stops the script on failure with its stderr."""
    done = subprocess.run(list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout


def number(value: Optional[float], digits: int) -> str:
    """A table cell: the value, or "-" where the tool reports none (nothing discovered: no precision)."""
    return "-" if value is None or value != value else f"{value:,.{digits}f}"


def read_truth(path: str) -> List[Tuple[str, int]]:
    """The truth file of strings (item,count), ranked by count descending then bytes ascending."""
    with open(path, newline="", encoding="utf-8", errors="surrogateescape") as f:
        rows = [(r["item"], int(r["count"])) for r in csv.DictReader(f)]
    return sorted(rows, key=lambda r: (-r[1], r[0].encode("utf-8", "surrogateescape")))


def metrics(found: List[Tuple[str, float]], truth: List[Tuple[str, int]], k: int) -> Dict[str, float]:
    """Precision, recall and count RMSE at k as docs/cli.md "Discovery output and metrics" defines them."""
    top = truth[:k]
    listed = {item for item, _ in found[:k]}
    hits = sum(1 for item, _ in top if item in listed)
    first: Dict[str, float] = {}
    for item, estimate in found:
        first.setdefault(item, estimate)
    rmse = math.sqrt(sum((first.get(item, 0.0) - count) ** 2 for item, count in top) / len(top))
    return {"precision": hits / len(listed) if listed else float("nan"), "recall": hits / len(top),
            "count_rmse": rmse}


def discovery(ldp: str, work: str, method: str, epsilon: float, n: int, ks: Sequence[int], length: int,
              alphabet: str, seed: int) -> Tuple[List[Dict[str, float]], str]:
    """One simulated fleet of `method`, discovered at every K; returns the metrics and the truth file."""
    batch, state, truth = (os.path.join(work, f"{method}.{x}") for x in ("ldpb", "ldps", "truth.csv"))
    run([ldp, "simulate", "-m", method, "-e", str(epsilon), "--string-length", str(length), "--data",
         f"text:{CORPUS}:words", "--devices", str(n), "--seed", str(seed), "-o", batch, "--truth-out", truth])
    run([ldp, "aggregate", batch, "-o", state])
    out = []
    for k in ks:
        start = time.monotonic()
        j = json.loads(run([ldp, "estimate", state, "--discover", str(k), "--alphabet", alphabet, "--truth", truth,
                            "--format", "json"]))
        out.append({"k": k, "precision": j["precision"], "recall": j["recall"], "count_rmse": j["count_rmse"],
                    "seconds": time.monotonic() - start})
    return out, truth


def ideal(ldp: str, work: str, epsilon: float, truth_path: str, n: int, ks: Sequence[int],
          seed: int) -> List[Dict[str, float]]:
    """The frequency oracle that knows the domain, on a fleet with the same true counts."""
    truth = read_truth(truth_path)
    items = os.path.join(work, "ideal-items.csv")
    with open(items, "w") as f:
        for index, (_, count) in enumerate(truth):
            f.write(f"{index}\n" * count)
    batch, state = os.path.join(work, "ideal.ldpb"), os.path.join(work, "ideal.ldps")
    run([ldp, "simulate", "-m", "olh", "-e", str(epsilon), "-d", str(len(truth)), "--data", f"csv:{items}",
         "--seed", str(seed), "-o", batch])
    run([ldp, "aggregate", batch, "-o", state])
    # The oracle's ranking does not depend on K: one estimate, its first K entries for each K.
    j = json.loads(run([ldp, "estimate", state, "--top", str(max(ks)), "--format", "json"]))
    found = [(truth[e["item"]][0], e["estimate"]) for e in j["estimates"]]
    return [{"k": k, **metrics(found[:k], truth, k)} for k in ks]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ldp", required=True, help="the ldp tool")
    parser.add_argument("--work", required=True, help="a directory for batches and states")
    parser.add_argument("--devices", type=int, nargs="+", default=[100000, 1000000])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[1.0, 2.0, 4.0])
    parser.add_argument("--ks", type=int, nargs="+", default=[10, 50, 100])
    parser.add_argument("--methods", nargs="+", default=METHODS + ["ideal"])
    parser.add_argument("--length", type=int, default=16, help="--string-length L (default 16)")
    parser.add_argument("--alphabet", default=TOKEN_BYTES,
                        help="--alphabet of ldp estimate (default: the bytes a word token can hold)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if not os.path.isdir(CORPUS):
        sys.exit(f"{CORPUS} is missing: apt-get install fortunes")
    os.makedirs(args.work, exist_ok=True)
    print("| method | epsilon | n | K | precision | recall | count RMSE | discovery time |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for n in args.devices:
        for epsilon in args.epsilons:
            truth = ""
            for method in [m for m in args.methods if m != "ideal"]:
                rows, truth = discovery(args.ldp, args.work, method, epsilon, n, args.ks, args.length, args.alphabet,
                                        args.seed)
                for r in rows:
                    print(f"| {method} | {epsilon:g} | {n:,} | {r['k']} | {number(r['precision'], 2)} "
                          f"| {number(r['recall'], 2)} | {number(r['count_rmse'], 0)} | {r['seconds']:.1f} s |",
                          flush=True)
            if "ideal" in args.methods:
                if not truth:
                    sys.exit("the ideal needs a method's fleet (its truth file): name one in --methods")
                for r in ideal(args.ldp, args.work, epsilon, truth, n, args.ks, args.seed):
                    print(f"| ideal (olh, known domain) | {epsilon:g} | {n:,} | {r['k']} | {number(r['precision'], 2)} "
                          f"| {number(r['recall'], 2)} | {number(r['count_rmse'], 0)} | |", flush=True)


if __name__ == "__main__":
    main()
