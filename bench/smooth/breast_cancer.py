#!/usr/bin/env python3
"""Smooth queries of real data through ldp (docs/mechanisms.md H.6, "Demonstration").

Reads scikit-learn's breast_cancer.csv as Debian packages it (python3-sklearn:
/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv, 569 tumours; its first line
is a count, not a header), keeps two numeric columns (mean radius, mean texture), runs `ldp simulate
--mechanism smooth-queries`, `ldp aggregate` and `ldp estimate --query`, and prints each private
answer next to the exact mean of the query over the scaled data and the mean of its interpolant
(what the answer is unbiased for) as a Markdown table. `--copies c` repeats every record c times, to
show how the error falls with n on the same distribution (labelled as such in the table).

    /usr/bin/python3 bench/smooth/breast_cancer.py --ldp build/host/tools/ldp --work /tmp/smooth \
        --epsilon 4 --degree 4 [--copies 100]
"""
import argparse
import csv
import itertools
import json
import math
import os
import subprocess
from typing import Callable, List, Sequence

DATA = "/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv"
COLUMNS = [0, 1]  # mean radius, mean texture
QUERIES = [
    {"name": "small and smooth", "kind": "gaussian", "center": [-0.5, -0.5], "width": 0.4},
    {"name": "radius above mid", "kind": "smooth-step", "center": [0.0, -1.0], "width": 0.1},
    {"name": "radius x texture", "kind": "monomial", "powers": [1, 1]},
]


def run(ldp: str, *args: str) -> str:
    """Runs the tool; its standard output."""
    return subprocess.run([ldp, *args], check=True, capture_output=True, text=True).stdout


def records() -> List[List[float]]:
    """The two columns of every tumour (the file's first line is its shape)."""
    with open(DATA, newline="") as f:
        rows = list(csv.reader(f))[1:]
    return [[float(r[j]) for j in COLUMNS] for r in rows]


def scaled(rows: Sequence[Sequence[float]]) -> List[List[float]]:
    """Each column from its range to [-1, 1], as the tool does."""
    lo = [min(r[j] for r in rows) for j in range(len(COLUMNS))]
    hi = [max(r[j] for r in rows) for j in range(len(COLUMNS))]
    return [[2 * (r[j] - lo[j]) / (hi[j] - lo[j]) - 1 for j in range(len(COLUMNS))] for r in rows]


def function(q: dict) -> Callable[[Sequence[float]], float]:
    """The built-in query's formula (docs/cli.md "Smooth queries")."""
    if q["kind"] == "gaussian":
        return lambda x: math.exp(-sum((a - c) ** 2 for a, c in zip(x, q["center"])) / (2 * q["width"] ** 2))
    if q["kind"] == "smooth-step":
        return lambda x: math.prod(1 / (1 + math.exp(-(a - c) / q["width"])) for a, c in zip(x, q["center"]))
    return lambda x: math.prod(a ** k for a, k in zip(x, q["powers"]))


def interpolant_mean(f: Callable[[Sequence[float]], float], xs: Sequence[Sequence[float]], t: int) -> float:
    """Mean over xs of f's tensor Chebyshev interpolant of degree < t per axis."""
    p = len(COLUMNS)
    nodes = [math.cos(math.pi * (k + 0.5) / t) for k in range(t)]
    grid = list(itertools.product(range(t), repeat=p))
    values = {k: f([nodes[i] for i in k]) for k in grid}
    coef = {v: sum(values[k] * math.prod(math.cos(math.pi * a * (b + 0.5) / t) for a, b in zip(v, k)) for k in grid)
            * math.prod((1 if a == 0 else 2) / t for a in v) for v in grid}
    return sum(sum(c * math.prod(math.cos(a * math.acos(b)) for a, b in zip(v, x)) for v, c in coef.items())
               for x in xs) / len(xs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ldp", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--epsilon", default="4")
    parser.add_argument("--degree", type=int, default=4)
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--seed", default="1")
    a = parser.parse_args()
    os.makedirs(a.work, exist_ok=True)
    rows = records() * a.copies
    data = os.path.join(a.work, "columns.csv")
    with open(data, "w") as f:
        f.write("radius,texture\n" + "".join(f"{r[0]},{r[1]}\n" for r in rows))
    queries = os.path.join(a.work, "queries.json")
    with open(queries, "w") as f:
        json.dump(QUERIES, f)
    batch, state = os.path.join(a.work, "s.ldpb"), os.path.join(a.work, "s.ldps")
    run(a.ldp, "simulate", "-m", "smooth-queries", "-e", a.epsilon, "--dim", str(len(COLUMNS)), "--degree",
        str(a.degree), "--data", f"csv:{data}", "--seed", a.seed, "--out", batch)
    run(a.ldp, "aggregate", batch, "--out", state)
    answers = json.loads(run(a.ldp, "estimate", state, "--query", queries, "--format", "json"))["answers"]
    xs = scaled(rows)
    print(f"n = {len(rows)} ({a.copies} copies of 569), epsilon {a.epsilon}, t = {a.degree} ({a.degree ** 2} features)")
    print()
    print("| query | exact mean | interpolant mean | answer | std error | 95% interval |")
    print("| --- | --- | --- | --- | --- | --- |")
    for q, ans in zip(QUERIES, answers):
        f = function(q)
        exact = sum(f(x) for x in xs) / len(xs)
        target = interpolant_mean(f, xs, a.degree)
        print(f"| {q['name']} ({q['kind']}) | {exact:.4f} | {target:.4f} | {ans['value']:.4f} | "
              f"{math.sqrt(ans['variance']):.4f} | [{ans['ci_low']:.4f}, {ans['ci_high']:.4f}] |")


if __name__ == "__main__":
    main()
