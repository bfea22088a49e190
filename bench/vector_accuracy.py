#!/usr/bin/python3
"""L2 error of the mean on real vectors: ldp's vector mechanisms against PrivUnitG's closed form.

The data are sklearn's digits (1797 images of 8 x 8 pixels, Debian's python3-sklearn), each vector
divided by the largest norm in the set so that all lie in the unit L2 ball. For each mechanism and
epsilon the fleet is simulated with --seeds seeds; the table gives the root mean squared L2 error of
the estimated mean over the seeds, and the closed forms (docs/mechanisms.md B.5, B.6, and PrivUnitG
from Asi, Feldman, Talwar 2022 with its parameters optimized numerically) evaluated on the same data.

    bench/vector_accuracy.py --ldp build/host/tools/ldp --work /tmp/vector-accuracy
"""
import argparse
import csv
import gzip
import math
import os
import subprocess
from typing import Dict, List, Sequence

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"


def load_digits() -> List[List[float]]:
    """The 1797 digit images as 64 reals each, scaled so that the largest norm is 1."""
    with gzip.open(DIGITS, "rt") as f:
        rows = [[float(v) for v in line.split(",")[:64]] for line in f if line.strip()]
    largest = max(math.sqrt(sum(v * v for v in r)) for r in rows)
    return [[v / largest for v in r] for r in rows]


def run(ldp: str, *args: str) -> str:
    """Runs the tool and returns its standard output."""
    return subprocess.run([ldp, *args], check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True).stdout


def read_column(path: str, column: str) -> List[float]:
    """One column of a CSV written by the tool."""
    with open(path) as f:
        return [float(r[column]) for r in csv.DictReader(f)]


def simulated_error(ldp: str, work: str, data: str, options: Sequence[str], epsilon: float,
                    seeds: int) -> float:
    """Root mean squared L2 error of the estimated mean over `seeds` simulated fleets."""
    total = 0.0
    for seed in range(1, seeds + 1):
        batch, state, truth = (os.path.join(work, n) for n in ("v.ldpb", "v.ldps", "truth.csv"))
        run(ldp, "simulate", *options, "--epsilon", str(epsilon), "--dim", "64", "--radius", "1",
            "--data", f"csv:{data}", "--seed", str(seed), "--out", batch, "--truth-out", truth)
        run(ldp, "aggregate", batch, "--out", state)
        estimates = os.path.join(work, "estimates.csv")
        with open(estimates, "w") as f:
            f.write(run(ldp, "estimate", state, "--format", "csv"))
        est = read_column(estimates, "estimate")
        true = read_column(truth, "mean")
        total += sum((a - b) ** 2 for a, b in zip(est, true))
    return math.sqrt(total / seeds)


def normal_tail(t: float) -> float:
    """P(N(0, 1) >= t)."""
    return 0.5 * math.erfc(t / math.sqrt(2))


def privunitg_second_moment(d: int, epsilon: float) -> float:
    """min over the cap threshold of E||m U||^2 for PrivUnitG (AFT 2022, Algorithm 2) at level epsilon.

    U ~ N(0, I/d) conditioned on <U, v> >= gamma with probability p, else on < gamma, with
    p / (1 - p) = e^epsilon q / (1 - q), q = P(<U, v> >= gamma); m = 1 / E<U, v> makes m U unbiased.
    """
    sigma = 1 / math.sqrt(d)
    best = math.inf
    for i in range(1, 4000):
        t = -2 + i * 0.002  # gamma / sigma
        q = normal_tail(t)
        if q <= 0 or q >= 1:
            continue
        p = math.exp(epsilon) * q / (1 - q + math.exp(epsilon) * q)
        phi = math.exp(-t * t / 2) / math.sqrt(2 * math.pi)
        mean = sigma * phi * (p / q - (1 - p) / (1 - q))
        if mean <= 0:
            continue
        alpha2 = sigma ** 2 * (p * (1 + t * phi / q) + (1 - p) * (1 - t * phi / (1 - q)))
        best = min(best, (alpha2 + (d - 1) * sigma ** 2) / mean ** 2)
    return best


def l2_ball_second_moment(d: int, epsilon: float) -> float:
    """B^2 / R^2 of l2-ball with the implemented threshold (docs/mechanisms.md B.6)."""
    keep = 1 - math.ceil(2 ** 32 / (math.exp(epsilon) + 1)) / 2 ** 32
    c = math.exp(math.lgamma(d / 2) - math.lgamma((d + 1) / 2)) / math.sqrt(math.pi)
    return 1 / ((2 * keep - 1) * c) ** 2


def main() -> None:
    """Prints the markdown table of docs/accuracy.md "Vector means"."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--ldp", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    rows = load_digits()
    data = os.path.join(args.work, "digits_unit_ball.csv")
    with open(data, "w") as f:
        f.writelines(",".join(repr(v) for v in r) + "\n" for r in rows)
    n, d = len(rows), len(rows[0])
    norms2 = sum(sum(v * v for v in r) for r in rows) / n
    mean = [sum(r[j] for r in rows) / n for j in range(d)]
    print(f"digits: n = {n}, d = {d}, mean squared norm {norms2:.4f}, norm of the mean "
          f"{math.sqrt(sum(v * v for v in mean)):.4f}")
    mechanisms: Dict[str, List[str]] = {
        "l2-ball": ["-m", "l2-ball"],
        "vector-mean (duchi)": ["-m", "vector-mean"],
        "vector-mean (laplace)": ["-m", "vector-mean", "--noise", "laplace"],
    }
    print("| epsilon | " + " | ".join(mechanisms) + " | l2-ball closed form | PrivUnitG closed form |")
    print("| --- |" + " --- |" * (len(mechanisms) + 2))
    for epsilon in (1.0, 2.0, 4.0):
        measured = [simulated_error(args.ldp, args.work, data, o, epsilon, args.seeds) for o in mechanisms.values()]
        l2 = math.sqrt((l2_ball_second_moment(d, epsilon) * (1 + d * 2 ** -30) - norms2) / n)
        pug = math.sqrt((privunitg_second_moment(d, epsilon) - norms2) / n)
        print(f"| {epsilon:g} | " + " | ".join(f"{m:.3f}" for m in measured) + f" | {l2:.3f} | {pug:.3f} |")


if __name__ == "__main__":
    main()
