#!/usr/bin/python3
"""The measurements of docs/learning.md: `ldp train` (docs/cli.md "ldp train") on scikit-learn's bundled
data sets, excess empirical risk against n, epsilon and p for every private method the tool lists,
beside the non-private optimum (every run prints it) and the LDP-SGD baseline; and the bytes and
device time per report.

    /usr/bin/python3 bench/learning/wang.py --ldp build/host/tools/ldp [--seeds 3] [--quick]
        [--markdown out.md] [--plot docs/images/learning_excess_n.svg]

Data (python3-sklearn, /usr/lib/python3/dist-packages/sklearn/datasets/data): breast_cancer.csv (569
rows, label 1 = benign) under the logistic and hinge losses, and diabetes (442 rows, the raw features
and the target, space-separated in two .csv.gz files, joined into a CSV in a temporary directory)
under the squared loss. Features: the strongest few by the non-private fit, chosen once (FEATURES),
each scaled to [0, 1] by the tool, plus an intercept (it counts in p). n above the training rows
repeats them (`--users`): the population is the training rows' empirical distribution, not new people.
Every cell is the mean over --seeds seeds (the split, the devices and the solvers all follow the seed).
"""
import argparse
import gzip
import os
import sys
import tempfile
from typing import Dict, List, Sequence, Tuple

from ldp_runs import SKLEARN, listed_methods, mean, run_json, slope, table

# (name, CSV maker, label column, loss, the feature columns in order of use)
FEATURES = {
    "breast_cancer": ["28", "21", "8"],  # worst concave points, worst radius, mean concave points
    "diabetes": ["3", "9", "4"],         # BMI, s5 (log serum triglycerides), blood pressure
}
PRIVATE = ("ldp-sgd", "wang-bernstein", "wang-1bit", "wang-genprot", "wang-glm")
GLM_LOSSES = ("logistic", "hinge")  # wang-glm learns GLMs only (docs/mechanisms.md H.4)


def diabetes_csv(directory: str) -> str:
    """The diabetes features and target as one CSV with a header (columns 1-10 features, 11 target)."""
    with gzip.open(os.path.join(SKLEARN, "diabetes_data_raw.csv.gz"), "rt") as f:
        rows = [line.split() for line in f if line.strip()]
    with gzip.open(os.path.join(SKLEARN, "diabetes_target.csv.gz"), "rt") as f:
        target = [line.strip() for line in f if line.strip()]
    path = os.path.join(directory, "diabetes.csv")
    with open(path, "w") as out:
        out.write(",".join(["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6", "target"]) + "\n")
        for r, y in zip(rows, target):
            out.write(",".join(r + [y]) + "\n")
    return path


def methods(ldp: str) -> List[str]:
    """The private methods `ldp train --help` lists, in PRIVATE's order."""
    return listed_methods(ldp, PRIVATE)


def train(ldp: str, data: str, label: str, loss: str, method: str, features: Sequence[str], epsilon: float,
          users: int, seed: int, extra: Sequence[str] = ()) -> Dict:
    """One `ldp train --format json` run, parsed."""
    args = [ldp, "train", "--method", method, "--loss", loss, "--data", f"csv:{data}", "--label", label,
            "--features", ",".join(features), "--intercept", "--seed", str(seed), "--format", "json"]
    if method != "nonprivate":
        args += ["--epsilon", str(epsilon)]
    if users:
        args += ["--users", str(users)]
    if method == "wang-glm":
        args += ["--delta", "1e-6"]
    return run_json(args + list(extra))


CELLS: Dict[Tuple, Dict] = {}


def cell(ldp: str, data: str, label: str, loss: str, method: str, features: Sequence[str], epsilon: float,
         users: int, seeds: int) -> Dict:
    """The mean excess risk, accuracy and costs over the seeds (or the error of the first failed run);
    each cell runs once (the tables share cells)."""
    key = (data, label, loss, method, tuple(features), epsilon, users, seeds)
    if key not in CELLS:
        CELLS[key] = measure(ldp, data, label, loss, method, features, epsilon, users, seeds)
    return CELLS[key]


def measure(ldp: str, data: str, label: str, loss: str, method: str, features: Sequence[str], epsilon: float,
            users: int, seeds: int) -> Dict:
    """cell()'s runs."""
    runs = [train(ldp, data, label, loss, method, features, epsilon, users, 1 + s) for s in range(seeds)]
    failed = [r for r in runs if "error" in r]
    if failed:
        return {"error": failed[0]["error"]}
    out = {k: mean([r[k] for r in runs]) for k in ("excess_risk", "train_loss", "nonprivate_train_loss")}
    for k in ("test_accuracy", "nonprivate_test_accuracy", "bytes_per_report", "device_seconds_per_report"):
        out[k] = mean([r[k] for r in runs if r[k] is not None])
    out["n"] = runs[0]["n"]
    out["us"] = 1e6 * out["device_seconds_per_report"]
    return out


def shown(c: Dict, key: str = "excess_risk", digits: str = ".4f") -> str:
    if "error" in c:
        return "refused"
    v = c.get(key, float("nan"))
    return "–" if v != v else format(v, digits)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ldp", default="build/host/tools/ldp")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="fewer cells (a smoke run)")
    parser.add_argument("--markdown", help="also write the tables here")
    parser.add_argument("--plot", help="an SVG of excess risk against n (matplotlib)")
    parser.add_argument("--methods", help="only these private methods, comma-separated (default: all)")
    args = parser.parse_args()
    learners = [m for m in methods(args.ldp) if not args.methods or m in args.methods.split(",")]
    ns = [0, 4000, 40000] if args.quick else [0, 4000, 40000, 400000]  # 0: one user per training row
    epsilons = [1, 4] if args.quick else [0.5, 1, 2, 4, 8]
    dims = [1, 2] if args.quick else [1, 2, 3]  # features before the intercept: p = 2, 3, 4
    base_n, base_eps, base_dim = 40000, 2, 1
    out: List[str] = [f"ldp train measurements: {args.seeds} seeds per cell, methods {', '.join(learners)}"]
    plots: Dict[str, Tuple[List[int], List[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        sets = [("breast_cancer", os.path.join(SKLEARN, "breast_cancer.csv"), "31", "logistic"),
                ("breast_cancer", os.path.join(SKLEARN, "breast_cancer.csv"), "31", "hinge"),
                ("diabetes", diabetes_csv(tmp), "target", "squared")]
        for name, data, label, loss in sets:
            usable = [m for m in learners if m != "wang-glm" or loss in GLM_LOSSES]
            feats = FEATURES[name]
            title = f"{name}, {loss} loss"
            # Against n.
            rows, cells = [], {}
            for n in ns:
                row = [str(n) if n else "rows"]
                for m in usable:
                    c = cell(args.ldp, data, label, loss, m, feats[:base_dim], base_eps, n, args.seeds)
                    cells[(m, n)] = c
                    row.append(shown(c))
                rows.append(row)
            for m in usable:
                sizes = [cells[(m, n)].get("n", 0) for n in ns]
                plots[f"{title}: {m}"] = (sizes, [cells[(m, n)].get("excess_risk", float("nan")) for n in ns])
            slopes = ["slope in log n"] + [
                "–" if (s := slope(*plots[f"{title}: {m}"])) is None else f"{s:.2f}" for m in usable]
            out += [f"\n#### {title}: excess risk against n (p = {base_dim + 1}, epsilon {base_eps})\n",
                    table(["n"] + usable, rows + [slopes])]
            # Against epsilon.
            rows = []
            for e in epsilons:
                rows.append([str(e)] + [shown(cell(args.ldp, data, label, loss, m, feats[:base_dim], e, base_n,
                                                   args.seeds)) for m in usable])
            out += [f"\n#### {title}: excess risk against epsilon (p = {base_dim + 1}, n = {base_n})\n",
                    table(["epsilon"] + usable, rows)]
            # Against p, with the costs per report.
            rows, costs = [], []
            for d in dims:
                cs = [cell(args.ldp, data, label, loss, m, feats[:d], base_eps, base_n, args.seeds) for m in usable]
                rows.append([str(d + 1)] + [shown(c) for c in cs])
                costs.append([str(d + 1)] + [f"{shown(c, 'bytes_per_report', '.1f')} B, {shown(c, 'us', '.1f')} µs"
                                             for c in cs])
            out += [f"\n#### {title}: excess risk against p (epsilon {base_eps}, n = {base_n})\n",
                    table(["p"] + usable, rows),
                    f"\n#### {title}: bytes and device time per report (epsilon {base_eps}, n = {base_n})\n",
                    table(["p"] + usable, costs)]
            if loss != "squared":
                c = {m: cell(args.ldp, data, label, loss, m, feats[:base_dim], base_eps, base_n, args.seeds)
                     for m in usable}
                first = next(iter(c.values()))
                out += [f"\n#### {title}: test accuracy (p = {base_dim + 1}, epsilon {base_eps}, n = {base_n})\n",
                        table(["non-private"] + usable,
                              [[shown(first, "nonprivate_test_accuracy")] + [shown(c[m], "test_accuracy") for m in usable]])]
            print("\n".join(out[-12:]), flush=True)
    text = "\n".join(out) + "\n"
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write(text)
    if args.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(7, 4.5))
        for key, (sizes, values) in plots.items():
            pts = [(n, v) for n, v in zip(sizes, values) if v == v and v > 0]
            if pts:
                ax.loglog(*zip(*pts), marker="o", label=key)
        ax.set_xlabel("users n")
        ax.set_ylabel(f"excess empirical risk (epsilon {base_eps}, p = {base_dim + 1})")
        ax.legend(fontsize=6)
        fig.tight_layout()
        fig.savefig(args.plot)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
