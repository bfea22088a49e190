#!/usr/bin/python3
"""ldpkit for an analyst: local differential privacy on two real datasets, step by step.

Run it with Debian's interpreter, after `scripts/python.sh install` (docs/python.md, "Install"):

    /usr/bin/python3 examples/python/tour.py OUT_DIR [--workers 2]

It prints what it does and what it finds, and writes its plots (PNG) and batch files to OUT_DIR.
About 10 seconds on 2 cores.

The data are not ours. Both files come with Debian's python3-sklearn, in
/usr/lib/python3/dist-packages/sklearn/datasets/data/ (read here as plain CSV; sklearn itself is not
imported):

- digits.csv.gz: 1,797 handwritten digits, the test set of the UCI "Optical Recognition of
  Handwritten Digits" data (E. Alpaydin, C. Kaynak, 1998; 13 writers, NIST forms). Each row is an 8x8
  image and, in the last column, the digit written (0-9). Here each image is one device, and the
  question is how many devices hold each digit: a frequency question over a domain of 10 items.
- diabetes_data_raw.csv.gz: 442 diabetes patients (Efron, Hastie, Johnstone, Tibshirani, "Least Angle
  Regression", 2004). The third column is the body mass index. Each patient is a device, and the
  question is the mean BMI: a numeric question.

The story: every device randomizes its own value (ldpkit.Randomizer, the device library), the
reports travel as batch files, a Dask cluster counts them into mergeable state
(ldpkit.dask.aggregate), and the server estimates with confidence intervals. Because we hold the
true answer, we check what an analyst usually cannot: how far the estimates are from the truth,
and whether the reported intervals contain it as often as they claim (95%). Those are the "check"
lines the test (python/tests/test_tour.py) reads.
"""
from __future__ import annotations

import argparse
import math
import pathlib
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Sequence

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.figure  # noqa: E402  (after the backend is chosen)
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import ldpkit  # noqa: E402
import ldpkit.dask  # noqa: E402

DATA = pathlib.Path("/usr/lib/python3/dist-packages/sklearn/datasets/data")
CONFIDENCE = 0.95
DIGIT_EPSILON = 2.0  # the frequency question's privacy budget per device
BMI_EPSILON = 1.0  # the mean question's
# The range every device clamps its BMI to. It must be fixed before any data are seen (choosing it
# from the data would leak them); 15-45 covers adult BMIs short of the extremes.
BMI_RANGE = (15.0, 45.0)
SITES = 4  # the digit reports arrive from 4 collection sites, one batch file each


def load_digits() -> np.ndarray:
    """The digit (0-9) written on each of the 1,797 forms."""
    table = np.loadtxt(DATA / "digits.csv.gz", delimiter=",", dtype=np.int64)
    return table[:, -1]


def load_bmi() -> np.ndarray:
    """The body mass index of each of the 442 patients."""
    return np.loadtxt(DATA / "diabetes_data_raw.csv.gz")[:, 2]


def one_run(params: ldpkit.Params, values: np.ndarray, seed: int) -> ldpkit.Estimates:
    """Randomize `values` as one fleet (seed `seed`), aggregate in memory, estimate."""
    aggregator = ldpkit.Aggregator(params)
    aggregator.add_batch(ldpkit.Randomizer(params, seed=seed).randomize(values))
    return aggregator.estimate(CONFIDENCE)


def repeat(params: ldpkit.Params, values: np.ndarray, runs: int, first_seed: int) -> list[ldpkit.Estimates]:
    """`runs` independent fleets holding the same values, on 2 threads.

    ldpkit releases the GIL while it randomizes, counts and estimates (docs/python.md, "Threads"),
    so the two threads run side by side.
    """
    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda r: one_run(params, values, first_seed + r), range(runs)))


def check_line(name: str, estimates: Sequence[pd.DataFrame], truth: np.ndarray) -> str:
    """The interval coverage and the error against the reported variance, over many estimates.

    truth holds the true value of each row of an estimate frame. The ratio compares the root mean
    squared error with the root of the mean reported variance: near 1 when the variances are right.
    """
    frame = pd.concat(estimates, ignore_index=True)
    true = np.tile(truth, len(estimates))
    inside = int(((frame["ci_low"] <= true) & (true <= frame["ci_high"])).sum())
    rmse = math.sqrt(float(((frame["estimate"] - true) ** 2).mean()))
    predicted = math.sqrt(float(frame["variance"].mean()))
    return (f"check {name}: coverage {inside} of {len(frame)} ({100 * inside / len(frame):.1f}%), "
            f"RMSE {rmse:.4g}, predicted {predicted:.4g} (ratio {rmse / predicted:.3f})")


def choose_mechanism(domain: int, epsilon: float, devices: int) -> str:
    """The recommender's first choice (`ldp mechanisms`): the smallest implemented variance."""
    table = ldpkit.mechanisms(domain, epsilon, devices)
    print(table.head(4).to_string(index=False))
    return str(table["mechanism"].iloc[0])


def write_sites(params: ldpkit.Params, digits: np.ndarray, out: pathlib.Path) -> list[pathlib.Path]:
    """Each collection site's devices randomize their digit; the site writes one batch file."""
    paths = []
    for site, part in enumerate(np.array_split(digits, SITES)):
        path = out / f"digits-site{site}.ldpb"
        path.write_bytes(ldpkit.Randomizer(params, seed=100 + site).randomize(part))
        paths.append(path)
    return paths


def aggregate_on_dask(paths: list[pathlib.Path], workers: int) -> ldpkit.Aggregator:
    """Count the batch files on a local Dask cluster, and check it against one machine."""
    from distributed import Client, LocalCluster

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:
        merged = ldpkit.dask.aggregate([str(p) for p in paths], client=client)
    single = ldpkit.Aggregator(merged.params)
    for path in paths:
        single.add_file(str(path))
    same = single.serialize() == merged.serialize()
    print(f"Dask ({workers} worker processes) counted {merged.reports:,} reports, rejected "
          f"{sum(merged.rejected.values())}; its state is "
          f"{'byte-identical to' if same else 'DIFFERENT from'} one machine's")
    if not same:
        raise SystemExit("the merged state differs from the one-machine state")
    return merged


def save(fig: matplotlib.figure.Figure, path: pathlib.Path) -> None:
    """Writes a figure as PNG and frees it."""
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_counts(estimates: ldpkit.Estimates, truth: np.ndarray, path: pathlib.Path) -> None:
    """The estimated counts with their intervals (Estimates.plot) and the true counts."""
    fig, ax = plt.subplots(figsize=(8, 4))
    estimates.plot(ax=ax, title=f"Digits of 1,797 devices at epsilon {DIGIT_EPSILON:g}: estimates, "
                                "95% intervals and the truth")
    ax.scatter(np.arange(len(truth)), truth, color="black", marker="_", s=400, zorder=3, label="true count")
    ax.set_xlabel("digit")
    ax.legend()
    save(fig, path)


def plot_z_scores(estimates: Sequence[pd.DataFrame], truth: np.ndarray, path: pathlib.Path) -> None:
    """(estimate - truth) / reported standard error over many runs, against the standard normal."""
    frame = pd.concat(estimates, ignore_index=True)
    z = (frame["estimate"] - np.tile(truth, len(estimates))) / np.sqrt(frame["variance"])
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.hist(z, bins=40, density=True, alpha=0.6, label=f"{len(z)} estimates")
    grid = np.linspace(-4, 4, 200)
    ax.plot(grid, np.exp(-grid**2 / 2) / math.sqrt(2 * math.pi), color="black", label="N(0, 1)")
    ax.set_xlabel("(estimate - true count) / reported standard error")
    ax.set_title("Are the reported variances right? (digits, many fleets)")
    ax.legend()
    save(fig, path)


def epsilon_sweep(digits: np.ndarray, truth: np.ndarray, path: pathlib.Path) -> None:
    """Error against epsilon: what the privacy budget costs at this number of devices."""
    epsilons = [0.5, 1.0, 2.0, 4.0, 8.0]
    rows = []
    for epsilon in epsilons:
        mechanism = str(ldpkit.mechanisms(10, epsilon, len(digits))["mechanism"].iloc[0])
        params = ldpkit.params(mechanism, epsilon=epsilon, domain=10)
        runs = repeat(params, digits, 20, first_seed=10_000)
        frame = pd.concat(runs, ignore_index=True)
        true = np.tile(truth, len(runs))
        rmse = math.sqrt(float(((frame["estimate"] - true) ** 2).mean()))
        rows.append((epsilon, mechanism, rmse, math.sqrt(float(frame["variance"].mean()))))
        print(f"  epsilon {epsilon:>3g}: {mechanism:<4} RMSE {rmse:7.1f} devices per digit "
              f"(predicted {rows[-1][3]:.1f}; a digit is held by about {truth.mean():.0f})")
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(epsilons, [r[2] for r in rows], "o-", label="measured RMSE (20 fleets)")
    ax.plot(epsilons, [r[3] for r in rows], "k--", label="predicted (reported variance)")
    ax.axhline(truth.mean(), color="grey", linestyle=":", label="devices per digit")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("epsilon")
    ax.set_ylabel("error of a count (devices)")
    ax.set_title("The price of privacy at n = 1,797 devices")
    ax.legend()
    save(fig, path)


def plot_means(runs: dict[str, list[pd.DataFrame]], true_mean: float, path: pathlib.Path) -> None:
    """The spread of the estimated mean BMI over many fleets, one histogram per mechanism."""
    fig, ax = plt.subplots(figsize=(7, 4))
    for mechanism, estimates in runs.items():
        values = [float(e["estimate"].iloc[0]) for e in estimates]
        ax.hist(values, bins=40, alpha=0.5, label=f"{mechanism} ({len(values)} fleets)")
    ax.axvline(true_mean, color="black", label=f"true mean {true_mean:.2f}")
    ax.set_xlabel("estimated mean BMI")
    ax.set_title(f"Mean BMI of 442 patients, epsilon {BMI_EPSILON:g}")
    ax.legend()
    save(fig, path)


def frequencies(out: pathlib.Path, workers: int) -> None:
    """Part 1: how many devices hold each digit."""
    digits = load_digits()
    truth = np.bincount(digits, minlength=10).astype(float)
    print(f"\n1. Digits: {len(digits):,} devices, each holding the digit of one handwritten form\n")
    print(f"Which mechanism? ldpkit.mechanisms(10, {DIGIT_EPSILON:g}, {len(digits)}):")
    mechanism = choose_mechanism(10, DIGIT_EPSILON, len(digits))
    params = ldpkit.params(mechanism, epsilon=DIGIT_EPSILON, domain=10)
    print(f"\nparameters: {params!r}, epsilon implemented {params.epsilon_implemented:.15g}")

    paths = write_sites(params, digits, out)
    print(f"{SITES} collection sites wrote {', '.join(p.name for p in paths)} "
          f"({sum(p.stat().st_size for p in paths):,} bytes)")
    merged = aggregate_on_dask(paths, workers)

    estimates = merged.estimate(CONFIDENCE)
    table = estimates.assign(true=truth)
    print("\nestimated counts, 95% intervals and the true counts:")
    print(table[["item", "estimate", "ci_low", "ci_high", "true"]].round(1).to_string(index=False))
    inside = int(((table["ci_low"] <= truth) & (truth <= table["ci_high"])).sum())
    print(f"check digits: {inside} of 10 intervals contain the true count")
    plot_counts(estimates, truth, out / "digits.png")

    print("\nOne fleet says little about the intervals. 200 fleets (seeds 1000-1199) hold the same digits:")
    calibration = repeat(params, digits, 200, first_seed=1000)
    print(check_line("digits calibration", calibration, truth))
    plot_z_scores(calibration, truth, out / "digits-calibration.png")

    print("\nThe same question at other privacy budgets (each with the recommender's choice):")
    epsilon_sweep(digits, truth, out / "digits-epsilon.png")


def means(out: pathlib.Path) -> None:
    """Part 2: the mean body mass index."""
    bmi = load_bmi()
    lo, hi = BMI_RANGE
    true_mean = float(np.clip(bmi, lo, hi).mean())
    print(f"\n2. Body mass index: {len(bmi)} patients, range fixed in advance at [{lo:g}, {hi:g}]\n")
    runs: dict[str, list[pd.DataFrame]] = {}
    for mechanism in ("laplace", "duchi"):
        params = ldpkit.params(mechanism, epsilon=BMI_EPSILON, range=BMI_RANGE)
        first = one_run(params, bmi, seed=7).iloc[0]
        print(f"{mechanism}: mean BMI {first['estimate']:.2f}, 95% interval "
              f"[{first['ci_low']:.2f}, {first['ci_high']:.2f}], true {true_mean:.2f}")
        runs[mechanism] = repeat(params, bmi, 1000, first_seed=20_000)
        print(check_line(f"bmi {mechanism}", runs[mechanism], np.array([true_mean])))
    plot_means(runs, true_mean, out / "bmi.png")


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tour; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=pathlib.Path, help="directory for the plots and batch files")
    parser.add_argument("--workers", type=int, default=2, help="Dask worker processes (default 2)")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    frequencies(args.out, args.workers)
    means(args.out)
    print(f"\nplots: {', '.join(sorted(p.name for p in args.out.glob('*.png')))} in {args.out}")
    print(f"done in {time.monotonic() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
