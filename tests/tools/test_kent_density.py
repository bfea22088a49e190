#!/usr/bin/env python3
"""Tests of `ldp simulate --mechanism kent --density` (docs/cli.md "kent --density", docs/mechanisms.md
C.1 M5): the density of the observations on --range by Kent M5, its JSON (`density`: x, value,
ci_low, ci_high, clipped) and its refusals. Run by CTest one case at a time:

    test_kent_density.py --ldp build/host/tools/ldp --work <scratch dir> <case>

The helpers are test_cli.py's. The statistical check uses a fixed seed and states its false-failure
probability.
"""
import json
import math
import sys
from typing import Callable

import test_cli as cli
from test_cli import check, fails, path, read, run


def kumaraswamy(x: float) -> float:
    """The density of --data builtin's observations on [0, 1], Kumaraswamy(2, 5): 10 x (1 - x^2)^4."""
    return 10 * x * (1 - x * x) ** 4


def projection(f: Callable[[float], float], k: int, grid: int = 20000) -> Callable[[float], float]:
    """The projection of the density f on [0, 1] onto its first k trigonometric basis functions,
    x -> 1 + 2 sum_m (a_m cos 2 pi m x + b_m sin 2 pi m x), the coefficients by the midpoint rule."""
    ts = [(i + 0.5) / grid for i in range(grid)]
    fs = [f(t) for t in ts]
    coefficients = []
    for m in range(1, (k - 1) // 2 + 1):
        a = sum(v * math.cos(2 * math.pi * m * t) for t, v in zip(ts, fs)) / grid
        b = sum(v * math.sin(2 * math.pi * m * t) for t, v in zip(ts, fs)) / grid
        coefficients.append((m, a, b))

    def value(x: float) -> float:
        return 1 + 2 * sum(a * math.cos(2 * math.pi * m * x) + b * math.sin(2 * math.pi * m * x)
                           for m, a, b in coefficients)
    return value


def case_kent_density() -> None:
    """M5 on [10, 20]: 100 density points in real units integrating to 1, the clipped form >= 0
    with the same mass, each point within 7 of its stated standard deviations of the projection of
    the data's density (the point is a combination of the k - 1 independent fold means, each a mean
    of at least 1,000 discrete Laplace noises plus the users' local-mean spread, below 0.1% of the
    variance: a Chernoff bound with the Laplace MGF, as in test_cli.py's case_kent_folds, gives below
    1e-8 per point, 1e-6 for the 100); bad combinations exit 2. Fails (checked): a density not
    divided by the range's width (the mass check)."""
    n = 40000
    out, _ = run("simulate", "-m", "kent", "--density", "-e", "1", "--range", "10:20", "--observations", "64",
                 "--devices", str(n), "--data", "builtin", "--seed", "4", "--out", path("m5.ldpb"), "--release-out",
                 path("m5.json"))
    check("kent (M5, density)" in out and "density (95% intervals" in out, f"M5 output:\n{out}")
    j = json.loads(read("m5.json"))
    k = j["release"]["basis_size"]
    check(j["release"]["method"] == "M5" and j["release"]["folds"] == k - 1 and k >= 3 and k % 2 == 1, f"M5 {j}")
    check(j["parameters"]["basis"] == 1 and j["size"] == k - 1 and j["reports"] > n // 3, f"M5 json {j}")
    d = j["density"]
    check(len(d) == 100, f"{len(d)} density points")
    check(abs(sum(p["value"] for p in d) * 10 / 100 - 1) < 1e-9, "the density does not integrate to 1")
    check(abs(sum(p["clipped"] for p in d) * 10 / 100 - 1) < 1e-9, "the clipped density does not integrate to 1")
    f_k = projection(kumaraswamy, k)
    for i, p in enumerate(d):
        check(abs(p["x"] - (10 + 10 * (i + 0.5) / 100)) < 1e-9 and p["clipped"] >= 0, f"point {p}")
        check(p["ci_low"] < p["value"] < p["ci_high"], f"point {p}")
        sd = (p["ci_high"] - p["value"]) / 1.959964
        target = f_k((p["x"] - 10) / 10) / 10
        check(abs(p["value"] - target) <= 7 * sd, f"point {p}: the projection is {target}")

    bad = ["simulate", "-m", "kent", "--density", "-e", "1", "--observations", "50", "--devices", "100", "--data",
           "builtin", "--seed", "1", "--out", path("x.ldpb"), "--range", "0:1"]
    fails(*bad, "--dim", "3", message=r"--density \(Kent M5\) takes no --dim")
    fails(*bad, "--truth-out", path("t.csv"), message=r"--truth-out does not apply to kent --density")
    fails("simulate", "-m", "laplace", "--density", "-e", "1", "--range", "0:1", "--devices", "100", "--data",
          "builtin", "--seed", "1", "--out", path("x.ldpb"), message=r"--density does not apply")


if __name__ == "__main__":
    sys.exit(cli.main(globals()))
