#!/usr/bin/python3
"""MSE / reported variance of CMS, HCMS and FLH at fixed public hash families on real data
(docs/accuracy.md "Variances conditional on the public hash family").

Data: the airports (every flight's origin and its destination: 462,166 devices, d = 59) and the
origin-destination routes (231,083 devices, 669 routes in a domain of d = 1000) of the flights of
vega-datasets 2.8.0's data/flights-3m.csv, fetched with
``npm pack`` into the work directory (never committed). Items are ranked by frequency (0 the most
common). For every mechanism, epsilon and public seed, ``runs`` simulations with device seeds
1..runs go through the built ``ldp`` (simulate, aggregate, estimate --format json --truth); a run's
ratio is sum_v (estimate - true)^2 / sum_v variance over the items, and the table gives the mean
ratio over the runs with its standard error, the share of 95 % intervals that cover the truth,
and, for CMS/HCMS, the same ratio against the variance averaged over hash families that ldpkit
reported before (docs/mechanisms.md A.6), recomputed from the same estimates.

Usage: /usr/bin/python3 bench/accuracy/sketch_variance.py --ldp build/host/tools/ldp
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import math
import os
import subprocess
from typing import Dict, List, Sequence, Tuple

import vega


def write_items(rows: Sequence[str], path: str) -> int:
    """Writes the rows' categories as items ranked by frequency (one per line); returns how many
    distinct categories there are."""
    rank = {c: i for i, (c, _) in enumerate(collections.Counter(rows).most_common())}
    with open(path, "w") as out:
        out.writelines(f"{rank[c]}\n" for c in rows)
    return len(rank)


def datasets(work: str) -> List[Tuple[str, str, int]]:
    """(name, items CSV, domain d) of the two categoricals."""
    with open(vega.fetch(work, "flights-3m.csv")) as f:
        flights = list(csv.DictReader(f))
    airport = os.path.join(work, "airport.csv")
    route = os.path.join(work, "route.csv")
    d_airport = write_items([r["origin"] for r in flights] + [r["destination"] for r in flights], airport)
    write_items([r["origin"] + "-" + r["destination"] for r in flights], route)
    return [("airport", airport, d_airport), ("route", route, 1000)]


def averaged_variances(obj: dict) -> List[float]:
    """The CMS/HCMS variance averaged over hash families (docs/mechanisms.md A.6), from an estimate
    JSON object: the noise term plus sum_{w != v} f_w (f_w - 1) / (k (m - 1)), f clipped to [0, n]."""
    p = obj["parameters"]
    k, m, n = p["sketch_rows"], p["sketch_columns"], obj["reports"]
    c = 1 / (1 - 2 * p["threshold_other"] / 2**32)
    ratio = m / (m - 1)
    counts = [min(max(e["estimate"], 0.0), n) for e in obj["estimates"]]
    pairs = [max(f * (f - 1), 0.0) for f in counts]
    total = sum(pairs)
    out = []
    for f, own in zip(counts, pairs):
        if obj["mechanism"] == "cms":
            noise = ratio * ratio * n * (c * c - 1) / 4 + (n - f) / (m - 1)
        else:
            noise = ratio * ratio * (n * c * c - f - (n - f) / (m * m))
        out.append(noise + max(total - own, 0.0) / (k * (m - 1)))
    return out


def run(ldp: str, work: str, mech: str, eps: float, data: str, d: int, public: int, seed: int) -> dict:
    """One simulation through the tool; the estimate JSON object with the truth."""
    batch, state, truth = (os.path.join(work, f"run.{x}") for x in ("ldpb", "ldps", "truth.csv"))
    subprocess.run([ldp, "simulate", "-m", mech, "-e", str(eps), "-d", str(d), "--data", f"csv:{data}",
                    "--public-seed", str(public), "--seed", str(seed), "-o", batch, "--truth-out", truth,
                    "--threads", "1"], check=True, capture_output=True)
    subprocess.run([ldp, "aggregate", batch, "-o", state], check=True, capture_output=True)
    out = subprocess.run([ldp, "estimate", state, "--truth", truth, "--format", "json"], check=True,
                         capture_output=True, text=True)
    return json.loads(out.stdout)


def mean_se(xs: Sequence[float]) -> Tuple[float, float]:
    """Mean and its standard error."""
    mean = sum(xs) / len(xs)
    var = sum((x - mean) ** 2 for x in xs) / (len(xs) - 1)
    return mean, math.sqrt(var / len(xs))


def main() -> None:
    """Prints the Markdown table of docs/accuracy.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ldp", default="build/host/tools/ldp")
    ap.add_argument("--work", default="/tmp/ldpkit-sketch-variance")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--mechanisms", default="cms,hcms,flh")
    ap.add_argument("--epsilons", default="2,4")
    ap.add_argument("--public-seeds", default="0,1,2")
    ap.add_argument("--datasets", default="airport,route")
    ap.add_argument("--no-header", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if not args.no_header:
        print("| data | d | mechanism | ε | public seed | variance kind | MSE / variance | 95 % coverage |"
              " MSE / averaged variance (before) |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, data, d in datasets(args.work):
        if name not in args.datasets.split(","):
            continue
        for mech in args.mechanisms.split(","):
            for eps in (float(e) for e in args.epsilons.split(",")):
                for public in (int(s) for s in args.public_seeds.split(",")):
                    ratios: List[float] = []
                    before: List[float] = []
                    covered = total = 0
                    kinds: Dict[str, int] = collections.Counter()
                    for seed in range(1, args.runs + 1):
                        obj = run(args.ldp, args.work, mech, eps, data, d, public, seed)
                        est = obj["estimates"]
                        squares = sum((e["estimate"] - e["true"]) ** 2 for e in est)
                        ratios.append(squares / sum(e["variance"] for e in est))
                        if mech in ("cms", "hcms"):
                            before.append(squares / sum(averaged_variances(obj)))
                        covered += obj["error"]["covered"]
                        total += obj["error"]["size"]
                        kinds[obj["variance_kind"]] += 1
                    r, se = mean_se(ratios)
                    old = "{:.3f} ± {:.3f}".format(*mean_se(before)) if before else "(same)"
                    print(f"| {name} | {d} | {mech} | {eps:g} | {public} | {'/'.join(sorted(kinds))} |"
                          f" {r:.3f} ± {se:.3f} | {100 * covered / total:.1f} % | {old} |", flush=True)


if __name__ == "__main__":
    main()
