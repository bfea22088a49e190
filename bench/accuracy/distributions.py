#!/usr/bin/python3
"""Distributions and ranges of real numeric data: Square Wave, the hierarchical histogram and the Haar
form against a flat OUE histogram on the same buckets.

docs/accuracy.md, section "Distributions and ranges", records the tables this script prints. The data
are columns of vega-datasets 2.8.0 (fetched with `npm pack vega-datasets@2.8.0` into --cache):

  delay     flights-3m.csv's departure delay in minutes (231,083 flights), range [-60, 180]
  distance  flights-3m.csv's distance in miles, range [0, 2400]
  time      flights-200k.json's departure time in hours (231,083 flights), range [0, 24]

Values outside a range are clamped by the device, as the truth here is. Every mechanism uses D = 1024
buckets. For each dataset, epsilon and mechanism it runs `ldp simulate`, `ldp aggregate` and `ldp
estimate` (--runs times, seeds 1, 2, ...) and reports, averaged over the runs:

  range MSE   the mean squared error of the fraction of all ranges of width D / 10 buckets that start
              at a bucket edge (923 ranges), x 10^4
  W1          the Wasserstein-1 distance between the estimated and the true bucket distributions, in
              the data's units: the integral of |F-hat - F| with F-hat the estimated distribution
              function made monotone and clipped to [0, 1] as the server's quantiles take it (G.4)
  q error     the mean absolute error of the 0.1, 0.25, 0.5, 0.75 and 0.9 quantiles, in the data's units
  coverage    the share of the range answers whose 95 % interval holds the truth

The baseline `oue` is ldpkit's OUE over the bucket indices: ranges are sums of its bucket estimates
(variance the sum of theirs), quantiles and W1 from its distribution function as above.

    bench/accuracy/distributions.py --ldp build/host/tools/ldp --cache /tmp/vega --work /tmp/dist-work
"""
import argparse
import json
import os
import subprocess
from typing import Dict, List, Tuple

import numpy as np
import pandas as pd

import vega

BUCKETS = 1024
WIDTH = BUCKETS // 10
QUANTILES = [0.1, 0.25, 0.5, 0.75, 0.9]
MECHANISMS = ["square-wave", "hierarchical", "haar", "oue"]
DATASETS = {"delay": (-60.0, 180.0), "distance": (0.0, 2400.0), "time": (0.0, 24.0)}


def load(cache: str) -> Dict[str, np.ndarray]:
    """The three columns of the module docstring, as float arrays."""
    flights = pd.read_csv(vega.fetch(cache, "flights-3m.csv"))
    times = pd.read_json(vega.fetch(cache, "flights-200k.json"))
    return {"delay": flights["delay"].to_numpy(float), "distance": flights["distance"].to_numpy(float),
            "time": times["time"].to_numpy(float)}


def buckets_of(values: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """The bucket of every clamped value (wire::range_cell up to the fixed-point rounding of the data)."""
    x = np.clip(values, lo, hi)
    return np.minimum(np.floor((x - lo) / (hi - lo) * BUCKETS).astype(np.int64), BUCKETS - 1)


def monotone_cdf(masses: np.ndarray) -> np.ndarray:
    """The distribution function at the D + 1 bucket edges as the server's quantiles take it (mechanisms.md
    G.4): cumulative masses, made monotone by a running maximum and clipped to [0, 1]."""
    return np.clip(np.maximum.accumulate(np.concatenate([[0.0], np.cumsum(masses)])), 0.0, 1.0)


def cdf_quantile(cdf: np.ndarray, q: float, lo: float, hi: float) -> float:
    """The smallest value where the piecewise-linear distribution function reaches q (as G.4)."""
    k = int(np.argmax(cdf >= q)) if np.any(cdf >= q) else BUCKETS
    if k == 0:
        return lo
    inside = (q - cdf[k - 1]) / (cdf[k] - cdf[k - 1]) if cdf[k] > cdf[k - 1] else 1.0
    return lo + (k - 1 + inside) * (hi - lo) / BUCKETS


def run(ldp: str, work: str, mechanism: str, epsilon: float, values: np.ndarray, lo: float, hi: float,
        seed: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One run: range fractions and interval ends (the ranges of the docstring), bucket masses, quantiles."""
    batch, state = os.path.join(work, "run.ldpb"), os.path.join(work, "run.ldps")
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "check": True}
    step = (hi - lo) / BUCKETS
    starts = range(BUCKETS - WIDTH + 1)
    if mechanism == "oue":
        data = os.path.join(work, "buckets.csv")
        np.savetxt(data, buckets_of(values, lo, hi), fmt="%d")
        subprocess.run([ldp, "simulate", "-m", "oue", "-e", str(epsilon), "-d", str(BUCKETS), "--data", f"csv:{data}",
                        "--seed", str(seed), "-o", batch], **quiet)
        subprocess.run([ldp, "aggregate", batch, "-o", state], **quiet)
        out = json.loads(subprocess.run([ldp, "estimate", state, "--format", "json"], stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, check=True, text=True).stdout)
        rows = out["estimates"]
        n = float(out.get("reports", len(values)))
        masses = np.array([r["estimate"] for r in rows]) / n
        variances = np.array([r["variance"] for r in rows]) / n ** 2
        csum, vsum = np.concatenate([[0.0], np.cumsum(masses)]), np.concatenate([[0.0], np.cumsum(variances)])
        est = np.array([csum[k + WIDTH] - csum[k] for k in starts])
        sd = np.sqrt(np.array([vsum[k + WIDTH] - vsum[k] for k in starts]))
        quantiles = np.array([cdf_quantile(monotone_cdf(masses), q, lo, hi) for q in QUANTILES])
        return est, est - 1.96 * sd, est + 1.96 * sd, masses, quantiles
    data = os.path.join(work, "values.csv")
    np.savetxt(data, values, fmt="%.6f")
    subprocess.run([ldp, "simulate", "-m", mechanism, "-e", str(epsilon), "--range", f"{lo}:{hi}", "--buckets",
                    str(BUCKETS), "--data", f"csv:{data}", "--seed", str(seed), "-o", batch], **quiet)
    subprocess.run([ldp, "aggregate", batch, "-o", state], **quiet)
    args = [ldp, "estimate", state, "--format", "json", "--density"]
    for k in starts:
        args += ["--range", f"{lo + k * step!r}:{lo + (k + WIDTH) * step!r}"]
    for q in QUANTILES:
        args += ["--quantile", str(q)]
    out = json.loads(subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, check=True,
                                    text=True).stdout)
    est = np.array([r["estimate"] for r in out["ranges"]])
    low = np.array([r["ci_low"] for r in out["ranges"]])
    high = np.array([r["ci_high"] for r in out["ranges"]])
    masses = np.array([r["value"] for r in out["density"]]) * step
    quantiles = np.array([r["value"] for r in out["quantiles"]])
    return est, low, high, masses, quantiles


def main() -> int:
    """Runs the comparison and prints the markdown table of docs/accuracy.md."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ldp", required=True)
    parser.add_argument("--cache", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--epsilons", default="0.5,1,2,4")
    parser.add_argument("--datasets", default=",".join(DATASETS))
    parser.add_argument("--mechanisms", default=",".join(MECHANISMS))
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    columns = load(args.cache)
    print("| data | ε | mechanism | range MSE ×10⁴ | W1 | q error | coverage |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name in args.datasets.split(","):
        lo, hi = DATASETS[name]
        values = columns[name]
        truth_masses = np.bincount(buckets_of(values, lo, hi), minlength=BUCKETS) / len(values)
        tcum = np.concatenate([[0.0], np.cumsum(truth_masses)])
        truth_ranges = np.array([tcum[k + WIDTH] - tcum[k] for k in range(BUCKETS - WIDTH + 1)])
        truth_q = np.quantile(np.clip(values, lo, hi), QUANTILES)
        step = (hi - lo) / BUCKETS
        for epsilon in [float(e) for e in args.epsilons.split(",")]:
            for mechanism in args.mechanisms.split(","):
                mse: List[float] = []
                w1: List[float] = []
                qerr: List[float] = []
                cover: List[float] = []
                for seed in range(1, args.runs + 1):
                    est, low, high, masses, quantiles = run(args.ldp, args.work, mechanism, epsilon, values, lo, hi,
                                                            seed)
                    mse.append(float(np.mean((est - truth_ranges) ** 2)))
                    cover.append(float(np.mean((low <= truth_ranges) & (truth_ranges <= high))))
                    w1.append(float(np.sum(np.abs(monotone_cdf(masses) - tcum)) * step))
                    qerr.append(float(np.mean(np.abs(quantiles - truth_q))))
                print(f"| {name} | {epsilon:g} | {mechanism} | {1e4 * np.mean(mse):.3g} | {np.mean(w1):.3g} | "
                      f"{np.mean(qerr):.3g} | {np.mean(cover):.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
