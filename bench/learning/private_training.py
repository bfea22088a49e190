#!/usr/bin/python3
"""The measurements of docs/learning.md "Private training": `ldp train --model` (docs/cli.md "ldp train",
docs/mechanisms.md I) for every method the tool lists, on scikit-learn's bundled data sets.

    /usr/bin/python3 bench/learning/private_training.py --ldp build/host/tools/ldp [--seeds 3] [--quick]
        [--methods dp-sgd,levy-sgd,...] [--markdown out.md] [--images docs/images]

What it measures, each cell the mean and the sample standard deviation over --seeds seeds 1, 2, ... (the
split, the user grouping, the devices and the server's noise all follow the seed), every excess risk
against the optimum of the common objective (lambda = 1e-3, the tool's default; clip G = 1, f = 16,
delta 1e-6 throughout):

0. hyper-parameter tuning, not private (as in the papers' experiments; Levy et al. Alg 5 and Ghazi et
   al. Alg 5 are the private ways): for each tuning data set and method, the point of GRIDS (lr, steps,
   radius; ldp-sgd lr and radius; ghazi-output its lambda) with the least training loss on the common
   objective at epsilon 2 on seed 0, which no reported cell uses; those settings then at every epsilon
   (breast cancer's also in the m and n tables, digits' in the d table, the s = 8 sparse set's in the
   s table), and printed in a table;
1. test accuracy and excess empirical risk against epsilon in {0.5, 1, 2, 4, 8} on breast_cancer.csv
   (logistic, the 30 features, label 1 = benign) and digits.csv.gz (softmax, 10 classes, the 64
   pixels), users of --samples-per-user m training rows (n = floor(training rows / m)); and what a
   round costs at epsilon 2 (time per round and per device contribution, bytes a device exchanges);
2. the user-level gain (Levy et al.): excess risk of levy-sgd and dp-sgd against m at a fixed n
   (--users) and epsilon 8, on breast cancer rows dealt with repetition: the script writes exactly
   n m rows, the data set's 569 rows cycled in one fixed shuffled order (each row ceil or floor
   n m / 569 times), no held-out split (the population is the rows' empirical distribution); and
   against n (1 to 300 times --users) at m = 1, the rows dealt the same way;
3. Ghazi et al.'s methods (ghazi-output, ghazi-sgd at --sparsity 0 and, in the s table, also at
   --sparsity s, "ghazi-sgd-sparse") against dp-sgd at epsilon 8 in the model
   dimension d (digits with the p highest-variance pixels, d = 10 (p + 1)) and in the gradient
   sparsity s (a synthetic logistic data set written by the script: 64 features, each row s non-zero
   ones).

Methods the tool does not list, or refuses on the first data set, are skipped with the tool's message.
"""
import argparse
import gzip
import itertools
import math
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple

from ldp_runs import SKLEARN, listed_methods, mean, run_json, slope, spread, table

PRIVATE = ("dp-sgd", "levy-sgd", "levy-phased", "ghazi-output", "ghazi-sgd", "ldp-sgd")
USER_LEVEL = ("levy-sgd", "dp-sgd")      # section 2
PROJECTION = ("ghazi-output", "ghazi-sgd", "dp-sgd")   # section 3
EPSILONS = (0.5, 1, 2, 4, 8)
COST_EPSILON = 2
SCALING_EPSILON = 8  # sections 2 and 3
SPARSE_TUNE_S = 8    # the s table's settings are tuned on its s = 8 data set (seed 0)
# A column of the tables: the method `ldp train` runs; "ghazi-sgd-sparse" is ghazi-sgd with --sparsity
# the data set's row sparsity s (the s table only).
COLUMN_METHOD = {"ghazi-sgd-sparse": "ghazi-sgd"}
L2 = 1e-3          # the tool's default lambda: the common objective every method is measured on
TUNE_SEED = 0      # the tuning runs' seed; the reported cells use seeds 1, 2, ...
TUNE_EPSILON = 2
SGD_GRID = {"--lr": ("0.1", "0.5", "2"), "--steps": ("20", "100"), "--radius": ("0", "10")}
# The hyper-parameter grid of each column (section 0). ldp-sgd's steps stay round(sqrt(n)) (each user
# reports once); ghazi-output has no optimizer settings, only its lambda (its sensitivity is
# 2 G / (lambda n): at 1e-3 its noise is hundreds of times the weights).
GRIDS = {"dp-sgd": SGD_GRID, "levy-sgd": SGD_GRID, "levy-phased": SGD_GRID, "ghazi-sgd": SGD_GRID,
         "ghazi-sgd-sparse": SGD_GRID, "ldp-sgd": {"--lr": SGD_GRID["--lr"], "--radius": SGD_GRID["--radius"]},
         "ghazi-output": {"--l2": ("0.1", "1")}}
Settings = Tuple[Tuple[str, str], ...]
# The JSON keys averaged over seeds (docs/cli.md "ldp train"); None values (e.g. no held-out rows,
# no device) are left out of a mean.
KEYS = ("test_accuracy", "nonprivate_test_accuracy", "excess_risk", "train_loss", "nonprivate_train_loss",
        "epsilon_spent", "delta_spent", "steps", "seconds", "seconds_per_round", "device_seconds_per_contribution",
        "bytes_per_device_round")


@dataclass(frozen=True)
class Data:
    """One `--data` configuration of `ldp train`."""
    name: str
    path: str
    label: str
    model: str
    dim: Optional[int] = None         # --dim, or
    features: Tuple[str, ...] = ()    # --features
    samples_per_user: int = 1
    test_fraction: Optional[float] = None  # None: the tool's default (0.3)
    sparsity: int = 0                 # the rows' non-zero features (the sparse data sets)
    lrs: Optional[Tuple[str, ...]] = None  # the tuning grid's learning rates, if not SGD_GRID's

    def args(self) -> List[str]:
        """The data options of the command line."""
        out = ["--model", self.model, "--data", f"csv:{self.path}", "--label", self.label,
               "--samples-per-user", str(self.samples_per_user)]
        out += ["--features", ",".join(self.features)] if self.features else ["--dim", str(self.dim)]
        if self.test_fraction is not None:
            out += ["--test-fraction", str(self.test_fraction)]
        return out


class Runner:
    """Runs `ldp train --format json --quiet` once per (data, method, epsilon, seed) and keeps the results."""

    def __init__(self, ldp: str, seeds: int, quick: bool) -> None:
        self.ldp, self.seeds, self.quick = ldp, seeds, quick
        self.runs: Dict[Tuple, Dict] = {}
        self.tuned: Dict[Tuple[Data, str], Settings] = {}
        self.over_budget: List[str] = []  # runs whose spent (epsilon, delta) exceeds the request
        self.count = 0

    def run(self, data: Data, column: str, settings: Settings, epsilon: float, seed: int) -> Dict:
        """One run's JSON (or {"error": the tool's message}); progress on stderr. The JSON gains
        "common_loss", the training loss at lambda = L2 (section 0's criterion: a run with its own --l2
        is otherwise measured on its own objective)."""
        key = (data, column, settings, epsilon, seed)
        if key not in self.runs:
            extra = [a for kv in settings for a in kv]
            if column == "ghazi-sgd-sparse":
                extra += ["--sparsity", str(data.sparsity)]
            args = [self.ldp, "train", "--method", COLUMN_METHOD.get(column, column)] + data.args() + extra + [
                "--epsilon", str(epsilon), "--seed", str(seed), "--format", "json", "--quiet"]
            start = time.monotonic()
            r = run_json(args)
            self.count += 1
            print(f"  [{time.monotonic() - start:6.2f} s] {data.name} m={data.samples_per_user} {column} "
                  f"{' '.join(extra)} eps={epsilon} seed={seed}: "
                  f"{r.get('error', '').splitlines()[:1] or (r.get('test_accuracy'), r.get('excess_risk'))}",
                  file=sys.stderr, flush=True)
            self.check_budget(r, " ".join(args[2:]))
            if "error" not in r:
                lam = float(dict(settings).get("--l2", L2))
                r["common_loss"] = r["train_loss"] - (lam - L2) / 2 * sum(t * t for t in r["theta"])
                r.pop("theta", None)
                r.pop("curve", None)
            self.runs[key] = r
        return self.runs[key]

    def tune(self, data: Data, column: str) -> Settings:
        """The grid point of GRIDS[column] with the least training loss at lambda = L2 (the common
        objective) at TUNE_EPSILON on TUNE_SEED; not private (docs/learning.md "Private training")."""
        if (data, column) not in self.tuned:
            grid = dict(GRIDS[column])
            if data.lrs and "--lr" in grid:
                grid["--lr"] = data.lrs
            if self.quick:
                grid = {k: v[1:] if k in ("--lr", "--steps") and len(v) > 1 else v for k, v in grid.items()}
            points = [tuple(zip(grid, values)) for values in itertools.product(*grid.values())]
            losses = [self.run(data, column, p, TUNE_EPSILON, TUNE_SEED).get("common_loss", float("inf"))
                      for p in points]
            self.tuned[(data, column)] = points[min(range(len(points)), key=lambda i: losses[i])]
        return self.tuned[(data, column)]

    def check_budget(self, r: Dict, what: str) -> None:
        """Notes a run that spent more than it was asked to (docs/cli.md: never happens)."""
        if "error" in r or r.get("epsilon") is None:
            return
        delta = r.get("delta") or 0
        if r["epsilon_spent"] > r["epsilon"] or (r.get("delta_spent") or 0) > delta:
            self.over_budget.append(f"{what}: spent ({r['epsilon_spent']}, {r['delta_spent']})")

    def cell(self, data: Data, column: str, epsilon: float, tuned_on: Optional[Data] = None) -> Dict:
        """Means ("<key>") and spreads ("<key>_sd") of KEYS over the seeds at the settings tuned on
        `tuned_on` (default `data`), with n, m, p, d; or the first error. "excess_risk" is against the
        common objective's optimum (lambda = L2: the tool's for a run at that lambda)."""
        settings = self.tune(tuned_on or data, column)
        runs = [self.run(data, column, settings, epsilon, 1 + s) for s in range(self.seeds)]
        failed = [r for r in runs if "error" in r]
        if failed:
            return {"error": failed[0]["error"]}
        for seed, r in enumerate(runs, 1):
            if float(dict(settings).get("--l2", L2)) != L2:
                # The optimum at L2 of the same split and users: the dp-sgd run's (every table has dp-sgd).
                ref = self.run(data, "dp-sgd", self.tune(tuned_on or data, "dp-sgd"), epsilon, seed)
                r["excess_risk"] = r["common_loss"] - ref["nonprivate_train_loss"]
        out: Dict = {k: runs[0].get(k) for k in ("n", "m", "p", "classes", "d")}
        for k in KEYS:
            values = [float(r[k]) for r in runs if r.get(k) is not None]
            out[k], out[k + "_sd"] = mean(values), spread(values)
        return out


def shown(c: Dict, key: str, digits: str = ".3f", sd: bool = True, scale: float = 1) -> str:
    """A cell's mean times `scale` (± its spread over the seeds), "–" where the tool printed null, "refused"
    on an error. digits "risk": four decimals below 100, three significant digits above (a diverged run)."""
    if "error" in c:
        return "refused"
    v = scale * c.get(key, float("nan"))
    if v != v:
        return "–"
    s = scale * c.get(key + "_sd", float("nan"))
    if digits == "risk":
        digits = ".4f" if abs(v) < 100 else ".3g"
    return format(v, digits) + (f" ± {format(s, digits)}" if sd and s == s else "")


def digits_by_variance() -> List[str]:
    """The 64 pixels of digits.csv.gz as 1-based column numbers, highest variance over all rows first
    (ties by column): the feature subsets of section 3."""
    with gzip.open(os.path.join(SKLEARN, "digits.csv.gz"), "rt") as f:
        rows = [[float(v) for v in line.split(",")[:64]] for line in f if line.strip()]
    var = [spread([r[j] for r in rows]) for j in range(64)]
    return [str(j + 1) for j in sorted(range(64), key=lambda j: (-var[j], j))]


def repeated_rows_csv(directory: str, n: int, m: int) -> str:
    """breast_cancer.csv's data rows cycled in one fixed shuffled order to exactly n m rows (section 2)."""
    with open(os.path.join(SKLEARN, "breast_cancer.csv")) as f:
        rows = [line.strip() for line in f if line.strip()][1:]  # the first line is "569,30,malignant,benign"
    order = list(range(len(rows)))
    random.Random(15).shuffle(order)
    path = os.path.join(directory, f"breast_cancer_n{n}_m{m}.csv")
    with open(path, "w") as out:
        for i in range(n * m):
            out.write(rows[order[i % len(rows)]] + "\n")
    return path


def sparse_logistic_csv(directory: str, s: int, rows: int = 2000, p: int = 64) -> str:
    """A logistic data set whose rows have exactly s non-zero features out of p (section 3): positions
    uniform, values uniform on [0.5, 1], label 1 with probability sigmoid(<w, x> + b), w_j ~ N(0, 9 / s)
    fixed by the seed (a row's s terms have total variance 9 whatever s), b centring the margins. As s
    nears p the rows differ less, and so do their margins: the labels get closer to coin flips."""
    rng = random.Random(1000 + s)
    w = [rng.gauss(0, 3 / math.sqrt(s)) for _ in range(p)]
    b = -0.75 * sum(w) * s / p
    path = os.path.join(directory, f"sparse_s{s}.csv")
    with open(path, "w") as out:
        out.write(",".join([f"x{j + 1}" for j in range(p)] + ["y"]) + "\n")
        for _ in range(rows):
            x = [0.0] * p
            for j in rng.sample(range(p), s):
                x[j] = rng.uniform(0.5, 1)
            margin = b + sum(wj * xj for wj, xj in zip(w, x))
            y = 1 if rng.random() < 1 / (1 + math.exp(-margin)) else 0
            out.write(",".join([f"{v:.4f}" for v in x] + [str(y)]) + "\n")
    return path


def available(runner: Runner, data: Data, wanted: Sequence[str]) -> Tuple[List[str], Dict[str, str]]:
    """The wanted methods the tool lists and runs on `data` (first seed, epsilon 1), and why the others are
    skipped."""
    listed = listed_methods(runner.ldp, wanted)
    ok, missing = [], {}
    for m in wanted:
        if m not in listed:
            missing[m] = "not listed by `ldp train --help`"
            continue
        r = runner.run(data, m, runner.tune(data, m), TUNE_EPSILON, TUNE_SEED)
        if "error" in r:
            missing[m] = r["error"].splitlines()[0]
        else:
            ok.append(m)
    return ok, missing


def epsilon_tables(runner: Runner, data: Data, methods: List[str], epsilons: Sequence[float]) -> Tuple[List[str], Dict]:
    """Section 1 for one data set: accuracy and excess risk against epsilon, and the costs of a round."""
    cells = {(m, e): runner.cell(data, m, e) for e in epsilons for m in methods}
    # Every run prints the non-private optimum's accuracy on its own split: its mean over the seeds.
    shape = next((c for c in cells.values() if "error" not in c), {k: "?" for k in ("n", "m", "p", "d")})
    base = {"test_accuracy": shape.get("nonprivate_test_accuracy", float("nan")),
            "test_accuracy_sd": shape.get("nonprivate_test_accuracy_sd", float("nan"))}
    title = (f"{data.name}, {data.model}: n = {shape['n']} users of m = {shape['m']} rows, p = {shape['p']}, "
             f"d = {shape['d']}")
    acc = [[str(e), shown(base, "test_accuracy")] + [shown(cells[(m, e)], "test_accuracy") for m in methods]
           for e in epsilons]
    # A method run with its own --l2 is measured against the optimum of its own objective.
    acc.append(["its objective's optimum", "–"] + [shown(cells[(m, epsilons[-1])], "nonprivate_test_accuracy")
                                                    for m in methods])
    risk = [[str(e)] + [shown(cells[(m, e)], "excess_risk", "risk") for m in methods] for e in epsilons]
    costs = []
    for m in methods:
        c = cells.get((m, COST_EPSILON)) or runner.cell(data, m, COST_EPSILON)
        costs.append([m, shown(c, "steps", ".0f", False), shown(c, "epsilon_spent", ".3f", False),
                      shown(c, "delta_spent", ".2g", False), shown(c, "seconds", ".2f", False),
                      shown(c, "seconds_per_round", ".2f", False, 1e3),
                      shown(c, "device_seconds_per_contribution", ".1f", False, 1e6),
                      shown(c, "bytes_per_device_round", ".0f", False)])
    out = [f"\n#### {title}: test accuracy against epsilon (mean ± sd over {runner.seeds} seeds)\n",
           table(["epsilon", "non-private"] + methods, acc),
           f"\n#### {title}: excess empirical risk against epsilon\n",
           table(["epsilon"] + methods, risk),
           f"\n#### {title}: what ran and what a round costs (epsilon {COST_EPSILON}, delta 1e-6)\n",
           table(["method", "steps", "epsilon spent", "delta spent", "seconds", "ms per round",
                  "µs per device contribution", "bytes per device per round"], costs)]
    return out, {"title": title, "base": base, "cells": cells}


def scaling_table(runner: Runner, label: str, xs: List[int], datas: List[Data], methods: List[str],
                  epsilon: float, tuned_on: Data, accuracy: bool = False) -> Tuple[List[str], Dict[str, List[float]]]:
    """Rows x (one Data each), columns methods at the settings tuned on `tuned_on`, the excess risk and its
    least-squares slope in log x; with `accuracy`, the methods' test accuracies in further columns."""
    curves: Dict[str, List[float]] = {m: [] for m in methods}
    rows = []
    for x, data in zip(xs, datas):
        cells = [runner.cell(data, m, epsilon, tuned_on) for m in methods]
        for m, c in zip(methods, cells):
            curves[m].append(c.get("excess_risk", float("nan")))
        rows.append([str(x)] + [shown(c, "excess_risk", "risk") for c in cells] +
                    ([shown(c, "test_accuracy") for c in cells] if accuracy else []))
    slopes = [f"slope in log {label}"]
    for m in methods:
        s = slope([float(x) for x in xs], curves[m])
        slopes.append("–" if s is None else f"{s:.2f}")
    header = [label] + methods + ([f"{m} accuracy" for m in methods] if accuracy else [])
    return [table(header, rows + [slopes + ["" for _ in methods] * accuracy])], curves


def settings_table(runner: Runner, sets: List[Data], columns: List[str]) -> str:
    """The settings section 0 chose: rows the columns, one column per tuning data set ("–" where the
    column was not tuned on it)."""
    rows = []
    for c in columns:
        cells = [" ".join(f"{k[2:]} {v}" for k, v in runner.tuned[(d, c)]) if (d, c) in runner.tuned else "–"
                 for d in sets]
        if any(x != "–" for x in cells):
            rows.append([c] + [x or "(the defaults)" for x in cells])
    return table(["method"] + [f"tuned on {d.name} (m = {d.samples_per_user})" for d in sets], rows)


def pyplot():
    """matplotlib's pyplot without a display, its SVG ids fixed (a rerun writes the same file for the same numbers)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    plt.rcParams["svg.hashsalt"] = "ldpkit"
    return plt


def save(fig, path: str) -> None:
    fig.tight_layout()
    fig.savefig(path, metadata={"Date": None})


def plot_accuracy(path: str, sets: List[Dict], methods: List[str], epsilons: Sequence[float]) -> None:
    """Test accuracy against epsilon, one panel per data set, the non-private optimum's dashed."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(sets), figsize=(5 * len(sets), 4))
    for ax, s in zip(axes if len(sets) > 1 else [axes], sets):
        for m in methods:
            pts = [(e, s["cells"][(m, e)]) for e in epsilons if "error" not in s["cells"][(m, e)]]
            if pts:
                ax.errorbar([e for e, _ in pts], [c["test_accuracy"] for _, c in pts],
                            yerr=[0 if c["test_accuracy_sd"] != c["test_accuracy_sd"] else c["test_accuracy_sd"]
                                  for _, c in pts], marker="o", capsize=3, label=m)
        ax.axhline(s["base"].get("test_accuracy", float("nan")), color="black", linestyle="--", label="non-private")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("epsilon (delta 1e-6)")
        ax.set_ylabel("test accuracy")
        ax.set_title(s["title"], fontsize=8)
        ax.legend(fontsize=7)
    save(fig, path)


def plot_scaling(path: str, panels: List[Tuple[str, str, List[int], Dict[str, List[float]]]]) -> None:
    """Excess risk against each panel's x (title, x label, xs, the methods' curves), log-log."""
    plt = pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(4.5 * len(panels), 4))
    for ax, (title, xlabel, xs, curves) in zip(axes if len(panels) > 1 else [axes], panels):
        for m, ys in curves.items():
            pts = [(x, y) for x, y in zip(xs, ys) if y == y and y > 0]
            if pts:
                ax.loglog(*zip(*pts), marker="o", label=m)
        ax.set_title(title, fontsize=8)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("excess empirical risk")
        ax.legend(fontsize=7)
    save(fig, path)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ldp", default="build/host/tools/ldp")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--methods", help="only these private methods, comma-separated (default: all the tool has)")
    parser.add_argument("--quick", action="store_true",
                        help="fewer cells and a smaller grid (lr 0.5, 2; steps 100): a smoke run")
    parser.add_argument("--samples-per-user", type=int, default=2, help="m of section 1 (default 2)")
    parser.add_argument("--users", type=int, default=100, help="n of section 2 (default 100)")
    parser.add_argument("--markdown", help="also write the tables here")
    parser.add_argument("--images", help="write private_training_accuracy.svg and private_training_scaling.svg here")
    args = parser.parse_args()
    start = time.monotonic()
    wanted = [m for m in PRIVATE if not args.methods or m in args.methods.split(",")]
    epsilons = (1, 4) if args.quick else EPSILONS
    ms = [1, 8, 64] if args.quick else [1, 8, 64, 256]
    ns = [args.users, 10 * args.users, 100 * args.users] if args.quick else [args.users * k for k in (1, 10, 100, 300)]
    ps = [16, 64] if args.quick else [8, 16, 32, 64]
    ss = [2, 8, 32] if args.quick else [1, 2, 4, 8, 16, 32, 64]
    scale_eps = SCALING_EPSILON
    m1 = args.samples_per_user
    runner = Runner(args.ldp, args.seeds, args.quick)
    cancer = Data("breast_cancer", os.path.join(SKLEARN, "breast_cancer.csv"), "31", "logistic", dim=30,
                  samples_per_user=m1)
    # digits' runs cost ~7 s each (most of it the non-private optimum every run computes): its grid drops lr 0.1.
    digits = Data("digits", os.path.join(SKLEARN, "digits.csv.gz"), "65", "softmax", dim=64, samples_per_user=m1,
                  lrs=("0.5", "2"))
    methods, missing = available(runner, cancer, wanted)
    out = [f"`ldp train --model` measurements: {args.seeds} seeds per cell; methods {', '.join(methods) or 'none'}"]
    if missing:
        out.append("\nSkipped: " + "; ".join(f"`{m}` ({why})" for m, why in missing.items()))
    sets = []
    for data in (cancer, digits) if methods else ():
        lines, s = epsilon_tables(runner, data, methods, epsilons)
        out += lines
        sets.append(s)
        print("\n".join(lines), flush=True)
    panels = []
    tuning_sets = [cancer, digits]
    with tempfile.TemporaryDirectory() as tmp:
        user_level = [m for m in USER_LEVEL if m in methods]
        if user_level:
            datas = [Data("breast_cancer (repeated rows)", repeated_rows_csv(tmp, args.users, m), "31", "logistic",
                          dim=30, samples_per_user=m, test_fraction=0) for m in ms]
            lines, curves = scaling_table(runner, "m", ms, datas, user_level, scale_eps, cancer)
            out += [f"\n#### breast_cancer, logistic: excess empirical risk against m (n = {args.users} users, "
                    f"epsilon {scale_eps})\n"] + lines
            panels.append((f"breast cancer, n = {args.users}, epsilon {scale_eps}", "samples per user m", ms, curves))
            # Against n at m = 1: where the winsorized mean's noise, 1/n like DP-SGD's, gets small.
            datas = [Data("breast_cancer (repeated rows)", repeated_rows_csv(tmp, n, 1), "31", "logistic", dim=30,
                          test_fraction=0) for n in ns]
            lines, curves = scaling_table(runner, "n", ns, datas, user_level, scale_eps, cancer)
            out += [f"\n#### breast_cancer, logistic: excess empirical risk against n (m = 1, epsilon {scale_eps})\n"]
            out += lines
            panels.append((f"breast cancer, m = 1, epsilon {scale_eps}", "users n", ns, curves))
            print("\n".join(out[-4:]), flush=True)
        projection = [m for m in PROJECTION if m in methods]
        if projection:
            ranked = digits_by_variance()
            datas = [digits if p == 64 else Data(f"digits ({p} pixels)", digits.path, "65", "softmax",
                                                 features=tuple(ranked[:p]), samples_per_user=m1) for p in ps]
            dims = [10 * (p + 1) for p in ps]
            lines, curves = scaling_table(runner, "d", dims, datas, projection, scale_eps, digits, accuracy=True)
            out += [f"\n#### digits, softmax: excess empirical risk (against the lambda = 1e-3 optimum) and "
                    f"test accuracy against d = 10 (p + 1) (the p highest-variance pixels, m = {m1}, "
                    f"epsilon {scale_eps})\n"] + lines
            panels.append((f"digits, m = {m1}, epsilon {scale_eps}", "model dimension d = 10 (p + 1)", dims, curves))
            datas = [Data(f"sparse s={s}", sparse_logistic_csv(tmp, s), "y", "logistic", dim=64, samples_per_user=m1,
                          sparsity=s) for s in ss]
            sparse_tune = datas[ss.index(SPARSE_TUNE_S)]
            tuning_sets.append(sparse_tune)
            sparse_cols = [m for m in projection if m != "dp-sgd"] + (
                ["ghazi-sgd-sparse"] if "ghazi-sgd" in projection else []) + [m for m in projection if m == "dp-sgd"]
            lines, curves = scaling_table(runner, "s", ss, datas, sparse_cols, scale_eps, sparse_tune, accuracy=True)
            out += [f"\n#### synthetic sparse logistic (2,000 rows, p = 64, s non-zero features a row, m = {m1}, "
                    f"epsilon {scale_eps}): excess empirical risk (against the lambda = 1e-3 optimum) and "
                    "test accuracy against s\n"] + lines
            panels.append((f"sparse logistic, p = 64, epsilon {scale_eps}", "non-zero features per row s", ss, curves))
            print("\n".join(out[-4:]), flush=True)
    out += [f"\n#### The settings every cell ran with: the least training loss (lambda = {L2} objective) at "
            f"epsilon {TUNE_EPSILON}, seed {TUNE_SEED}, over each method's grid (not private)\n",
            settings_table(runner, tuning_sets, methods + ["ghazi-sgd-sparse"])]
    if runner.over_budget:
        out.append("\nSPENT MORE THAN REQUESTED:\n" + "\n".join(runner.over_budget))
    out.append(f"\n{runner.count} runs, {time.monotonic() - start:.0f} s")
    text = "\n".join(out) + "\n"
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.images and sets:
        plot_accuracy(os.path.join(args.images, "private_training_accuracy.svg"), sets, methods, epsilons)
        if panels:
            plot_scaling(os.path.join(args.images, "private_training_scaling.svg"), panels)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
