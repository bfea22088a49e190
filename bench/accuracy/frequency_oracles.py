#!/usr/bin/python3
"""Frequency oracles of ldpkit against pure-LDP on a real skewed categorical dataset.

docs/accuracy.md, section "Frequency oracles against pure-LDP", records the tables this script prints.
The data are the origin airports of vega-datasets' flights-3m.csv (231,083 flights, 59 airports),
fetched with `npm pack vega-datasets@2.8.0` into --cache, as two items:

  origin        the origin airport, d = 59 (airports in alphabetical order)
  origin-delay  the origin airport and a delay class (17 classes of 5 minutes from <= -20 to >= 60),
                d = 59 * 17 = 1003

For every dataset, epsilon and oracle it runs `ldp simulate`, `ldp aggregate` and `ldp estimate`
(--runs times, seeds 1, 2, ...) and, given --peer (a checkout of Samuel-Maddock/pure-LDP, which this
script neither fetches nor builds), the peer's client and server of the same oracle on the same
items (--peer-runs times, Python's and numpy's generators seeded 1, 2, ...). It reports the mean
squared error of the frequency estimates (c-hat_v / n - c_v / n, averaged over the d items and the
runs), the ratio of ldpkit's MSE to the peer's with its standard error (delta method over the runs),
ldpkit's MSE over its own reported variance (the closed form with the implemented parameters,
averaged over items and runs) and the share of items whose 95 % interval covers the truth.

    bench/accuracy/frequency_oracles.py --ldp build/host/tools/ldp --peer /work/peers/pure-LDP \\
        --cache /tmp/vega --work /tmp/fo-work
"""
import argparse
import csv
import json
import math
import os
import random
import subprocess
import sys
from typing import Dict, List, Tuple

import numpy as np

import vega

ORACLES = ["grr", "sue", "oue", "olh", "blh", "hr", "hcms"]
DELAY_CLASSES = 17


def load_datasets(path: str) -> Dict[str, Tuple[np.ndarray, int]]:
    """The two item columns of the flights (see the module docstring): name -> (items, d)."""
    origins: List[str] = []
    delays: List[int] = []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            origins.append(row["origin"])
            delays.append(int(row["delay"]))
    airports = sorted(set(origins))
    index = {a: i for i, a in enumerate(airports)}
    origin = np.array([index[a] for a in origins], dtype=np.int64)
    delay_class = np.clip((np.array(delays) + 20) // 5 + 1, 0, DELAY_CLASSES - 1)
    return {
        "origin": (origin, len(airports)),
        "origin-delay": (origin * DELAY_CLASSES + delay_class, len(airports) * DELAY_CLASSES),
    }


def ldp_run(ldp: str, work: str, oracle: str, epsilon: float, items_csv: str, d: int,
            seed: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One ldpkit run: estimates, variances and 95 % interval ends of the d counts."""
    batch, state = os.path.join(work, "run.ldpb"), os.path.join(work, "run.ldps")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": True}
    subprocess.run([ldp, "simulate", "-m", oracle, "-e", str(epsilon), "-d", str(d), "--data", f"csv:{items_csv}",
                    "--seed", str(seed), "-o", batch], **quiet)
    subprocess.run([ldp, "aggregate", batch, "-o", state], **quiet)
    out = subprocess.run([ldp, "estimate", state, "--format", "json"], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, check=True, text=True).stdout
    rows = json.loads(out)["estimates"]
    pick = [np.array([r[k] for r in rows], dtype=float) for k in ("estimate", "variance", "ci_low", "ci_high")]
    return pick[0], pick[1], pick[2], pick[3]


def peer_run(oracle: str, epsilon: float, items: np.ndarray, d: int, seed: int) -> np.ndarray:
    """One run of pure-LDP's oracle (the package must be importable): the estimated d counts."""
    import pure_ldp.frequency_oracles as fo  # noqa: E402 (the peer's path is only known at run time)

    random.seed(seed)
    np.random.seed(seed)
    identity = {"index_mapper": lambda x: x}
    if oracle == "grr":
        client, server = fo.DEClient(epsilon, d, **identity), fo.DEServer(epsilon, d, **identity)
    elif oracle in ("sue", "oue"):
        oue = oracle == "oue"
        client = fo.UEClient(epsilon, d, use_oue=oue, **identity)
        server = fo.UEServer(epsilon, d, use_oue=oue, **identity)
    elif oracle in ("olh", "blh"):
        olh = oracle == "olh"
        client = fo.LHClient(epsilon, d, use_olh=olh, **identity)
        server = fo.LHServer(epsilon, d, use_olh=olh, **identity)
    elif oracle == "hr":
        server = fo.HadamardResponseServer(epsilon, d, **identity)
        client = fo.HadamardResponseClient(epsilon, d, server.get_hash_funcs(), **identity)
    elif oracle == "hcms":
        server = fo.CMSServer(epsilon, 16, 1024, is_hadamard=True, **identity)
        client = fo.CMSClient(epsilon, server.get_hash_funcs(), 1024, is_hadamard=True)
        client.index_mapper = identity["index_mapper"]
    else:
        raise ValueError(oracle)
    for x in items.tolist():
        server.aggregate(client.privatise(x))
    return np.array(server.estimate_all(range(d), suppress_warnings=True), dtype=float)


class Series:
    """Per-run MSEs of one (dataset, oracle, epsilon, library)."""

    def __init__(self) -> None:
        self.mse: List[float] = []
        self.variance: List[float] = []
        self.covered: List[float] = []

    def mean_se(self) -> Tuple[float, float]:
        """Mean MSE over the runs and its standard error."""
        a = np.array(self.mse)
        return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else float("nan")


def ratio_se(a: Tuple[float, float], b: Tuple[float, float]) -> Tuple[float, float]:
    """a / b with its delta-method standard error (independent runs)."""
    r = a[0] / b[0]
    return r, r * math.sqrt((a[1] / a[0]) ** 2 + (b[1] / b[0]) ** 2)


def main() -> int:
    """Runs the comparison and prints the markdown table of docs/accuracy.md."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ldp", required=True, help="the built ldp tool")
    parser.add_argument("--peer", help="a pure-LDP checkout (omit: ldpkit only)")
    parser.add_argument("--cache", required=True, help="directory of the fetched vega-datasets package")
    parser.add_argument("--work", required=True, help="scratch directory")
    parser.add_argument("--runs", type=int, default=40, help="ldpkit runs per cell")
    parser.add_argument("--peer-runs", type=int, default=10, help="peer runs per cell")
    parser.add_argument("--epsilons", default="1,2,4")
    parser.add_argument("--oracles", default=",".join(ORACLES))
    parser.add_argument("--datasets", default="origin,origin-delay")
    parser.add_argument("--peer-oracles", help="run the peer for these oracles only (default: all)")
    parser.add_argument("--json", help="also write every run's numbers here")
    args = parser.parse_args()
    if args.peer:
        sys.path.insert(0, os.path.abspath(args.peer))
    os.makedirs(args.work, exist_ok=True)
    data = load_datasets(vega.fetch(args.cache, "flights-3m.csv"))
    results = {}
    print("| data | d | ε | oracle | ldpkit MSE | peer MSE | ldpkit / peer | ldpkit MSE / variance | 95 % coverage |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name in args.datasets.split(","):
        items, d = data[name]
        n = len(items)
        truth = np.bincount(items, minlength=d).astype(float)
        items_csv = os.path.join(args.work, f"{name}.csv")
        np.savetxt(items_csv, items, fmt="%d")
        for epsilon in [float(e) for e in args.epsilons.split(",")]:
            for oracle in args.oracles.split(","):
                own, peer = Series(), Series()
                for seed in range(1, args.runs + 1):
                    est, var, lo, hi = ldp_run(args.ldp, args.work, oracle, epsilon, items_csv, d, seed)
                    own.mse.append(float(np.mean((est - truth) ** 2)) / n**2)
                    own.variance.append(float(np.mean(var)) / n**2)
                    own.covered.append(float(np.mean((lo <= truth) & (truth <= hi))))
                if args.peer and (not args.peer_oracles or oracle in args.peer_oracles.split(",")):
                    for seed in range(1, args.peer_runs + 1):
                        est = peer_run(oracle, epsilon, items, d, seed)
                        peer.mse.append(float(np.mean((est - truth) ** 2)) / n**2)
                a = own.mean_se()
                closed = ratio_se(a, (float(np.mean(own.variance)), 0.0))
                coverage = float(np.mean(own.covered))
                cells = [name, str(d), f"{epsilon:g}", oracle, f"{a[0]:.3e} ± {a[1]:.1e}"]
                if peer.mse:
                    b = peer.mean_se()
                    r = ratio_se(a, b)
                    cells += [f"{b[0]:.3e} ± {b[1]:.1e}", f"{r[0]:.3f} ± {r[1]:.3f}"]
                else:
                    cells += ["", ""]
                cells += [f"{closed[0]:.3f} ± {closed[1]:.3f}", f"{100 * coverage:.1f} %"]
                print("| " + " | ".join(cells) + " |", flush=True)
                results[f"{name}/{epsilon:g}/{oracle}"] = {"ldp": vars(own), "peer": vars(peer)}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
