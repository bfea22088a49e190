#!/usr/bin/env python3
"""Tests of the distribution family in the tool (docs/cli.md "Distributions and ranges"): ldp simulate
--mechanism square-wave|hierarchical|haar --range lo:hi, ldp estimate STATE --range a:b, --quantile q,
--density and --plot, in text and JSON, their refusals; and ldp estimate --l1-ball R on vector means
(docs/mechanisms.md C.3 "LDP extension"). Run by CTest one case at a time:

    test_distribution.py --ldp build/host/tools/ldp --work <scratch dir> <case>

The helpers (running the binary) are test_cli.py's. Statistical checks use fixed seeds and state their
false-failure probability.
"""
import csv
import json
import math
import random
import re
import sys
import xml.etree.ElementTree as ElementTree
from typing import Dict, List, Sequence, Tuple

import test_cli as cli
from test_cli import check, fails, path, read, run, write

# Every form on 64 buckets of [0, 64]: bucket k is [k, k + 1), so ranges with integer ends are whole
# buckets and their true fraction is exact.
LO, HI, BUCKETS = 0, 64, 64
FORMS = {
    "square-wave": ["--range", f"{LO}:{HI}", "--buckets", str(BUCKETS)],
    "hierarchical": ["--range", f"{LO}:{HI}", "--buckets", str(BUCKETS)],
    "haar": ["--range", f"{LO}:{HI}", "--buckets", str(BUCKETS)],
}
RANGES = [(0, 64), (10, 30), (15, 16), (30, 50), (0, 20), (40, 63)]
QUANTILES = [0.1, 0.5, 0.9]

# z of every statistical check: two-sided P(|N(0,1)| > 5.5) = 3.8e-8, so the 3 forms x 6 ranges of
# case_distribution_ranges fail falsely with probability below 1e-6 (normal approximation, plug-in
# variances: 20,000 reports).
Z = 5.5
# Square Wave's interval is the bootstrap's spread of its EMS estimate, which leaves out EMS's
# smoothing bias (docs/mechanisms.md G.1): its range checks allow this much more.
SMOOTHING_BIAS = {"square-wave": 0.02}
RANGE_KEYS = ["lo", "hi", "estimate", "count", "variance", "ci_low", "ci_high"]


def values(n: int, seed: int = 11) -> List[float]:
    """A two-peaked sample in (0, 64), no value within 0.01 of a bucket edge (integers)."""
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        x = rng.gauss(20, 5) if rng.random() < 0.6 else rng.gauss(45, 8)
        if not 0.5 < x < 63.5:
            continue
        if abs(x - round(x)) < 0.01:
            x = math.floor(x) + 0.5
        out.append(x)
    return out


def data_file(n: int) -> Tuple[str, List[float]]:
    xs = values(n)
    write("values.csv", "value\n" + "".join(f"{x:.6f}\n" for x in xs))
    return f"csv:{path('values.csv')}", xs


def state_of(form: str, n: int = 20000, epsilon: str = "2", seed: int = 1) -> Tuple[str, List[float]]:
    """Simulates and aggregates a fleet of the form on the two-peaked data."""
    data, xs = data_file(n)
    run("simulate", "-m", form, "-e", epsilon, *FORMS[form], "--data", data, "--seed", str(seed), "--out",
        path(form + ".ldpb"), "--truth-out", path(form + ".truth.csv"))
    run("aggregate", path(form + ".ldpb"), "--out", path(form + ".ldps"))
    return form + ".ldps", xs


def estimate(state: str, *args: str) -> Dict:
    out, _ = run("estimate", path(state), "--format", "json", *args)
    return json.loads(out)


def fraction(xs: Sequence[float], lo: float, hi: float) -> float:
    return sum(1 for x in xs if lo <= x < hi) / len(xs)


def quantile(xs: Sequence[float], q: float) -> float:
    s = sorted(xs)
    return s[min(len(s) - 1, max(0, math.ceil(q * len(s)) - 1))]


def range_args(ranges: Sequence[Tuple[float, float]]) -> List[str]:
    out = []
    for lo, hi in ranges:
        out += ["--range", f"{lo}:{hi}"]
    return out


# ---- Cases ---------------------------------------------------------------------------------------

def case_distribution_ranges() -> None:
    """Every form estimates the fraction of the values in whole-bucket ranges within Z of its standard
    deviation; the JSON has the documented fields, count = estimate x reports, and the truth file
    counts the buckets."""
    for form in FORMS:
        state, xs = state_of(form)
        with open(path(form + ".truth.csv")) as f:
            rows = list(csv.reader(f))
        check(rows[0] == ["item", "count"] and len(rows) == BUCKETS + 1, f"{form}: truth header {rows[:2]}")
        counts = [int(r[1]) for r in rows[1:]]
        check(counts == [sum(1 for x in xs if k <= x < k + 1) for k in range(BUCKETS)], f"{form}: truth counts")
        j = estimate(state, *range_args(RANGES))
        check(j["mechanism"] == form and j["reports"] == len(xs), f"{form}: header {j['mechanism']} {j['reports']}")
        check(1.99 < j["epsilon"] <= 2 and j["confidence"] == 0.95, f"{form}: epsilon {j['epsilon']}")
        check("estimates" not in j and "quantiles" not in j and "density" not in j, f"{form}: unasked fields")
        check(len(j["ranges"]) == len(RANGES), f"{form}: {len(j['ranges'])} ranges")
        for (lo, hi), r in zip(RANGES, j["ranges"]):
            check(list(r) == RANGE_KEYS, f"{form}: range fields {list(r)}")
            check(r["lo"] == lo and r["hi"] == hi, f"{form}: range {r}")
            check(math.isclose(r["count"], r["estimate"] * len(xs), rel_tol=1e-12, abs_tol=1e-9), f"{form}: count {r}")
            check(r["ci_low"] <= r["estimate"] <= r["ci_high"] and r["variance"] >= 0, f"{form}: interval {r}")
            truth = fraction(xs, lo, hi)
            allowed = Z * math.sqrt(r["variance"]) + SMOOTHING_BIAS.get(form, 0) + 1e-12
            check(abs(r["estimate"] - truth) <= allowed,
                  f"{form}: [{lo}, {hi}] estimate {r['estimate']:.5f}, true {truth:.5f}, allowed {allowed:.5f}")
        # The table shows the same ranges.
        out, _ = run("estimate", path(state), *range_args(RANGES[:2]))
        check("ranges (the fraction" in out and "[10, 30]" in out and "95% CI" in out, f"{form}: table:\n{out}")


def case_distribution_quantiles() -> None:
    """Quantiles: increasing in q, each interval holds its value, and the true quantile lies within
    the interval widened by a bucket (the buckets are the resolution). The intervals invert the
    pointwise distribution-function intervals at 1 - 1e-6 confidence here, so a miss has probability
    about 1e-6 per quantile (normal approximation; square-wave: plus EMS's smoothing bias, within the
    bucket of slack)."""
    for form in ("hierarchical", "haar", "square-wave"):
        state, xs = state_of(form)
        j = estimate(state, "--confidence", "0.999999", *sum((["--quantile", str(q)] for q in QUANTILES), []))
        qs = j["quantiles"]
        check([q["q"] for q in qs] == QUANTILES and all(list(q) == ["q", "value", "ci_low", "ci_high"] for q in qs),
              f"{form}: quantile fields {qs}")
        check(all(a["value"] <= b["value"] for a, b in zip(qs, qs[1:])), f"{form}: quantiles decrease {qs}")
        width = (HI - LO) / BUCKETS
        for q in qs:
            check(LO <= q["ci_low"] <= q["value"] <= q["ci_high"] <= HI, f"{form}: quantile interval {q}")
            truth = quantile(xs, q["q"])
            check(q["ci_low"] - width <= truth <= q["ci_high"] + width, f"{form}: q={q['q']} {q}, true {truth:.4f}")
        out, _ = run("estimate", path(state), "--quantile", "0.5")
        check(re.search(r"quantiles:\n", out) and "0.5" in out, f"{form}: table:\n{out}")


def case_distribution_density() -> None:
    """--density: one entry per bucket at its midpoint; the densities times the bucket width are the
    bucket fractions (so they sum to the whole range's fraction); --plot draws it as a band and a
    line; the text table lists every bucket."""
    for form in FORMS:
        state, xs = state_of(form, n=5000)
        j = estimate(state, "--density", "--range", f"{LO}:{HI}", "--range", "10:11")
        d = j["density"]
        width = (HI - LO) / BUCKETS
        check(len(d) == BUCKETS and all(list(e) == ["x", "value", "ci_low", "ci_high"] for e in d),
              f"{form}: density fields")
        check(all(math.isclose(e["x"], LO + (k + 0.5) * width, rel_tol=1e-12) for k, e in enumerate(d)),
              f"{form}: midpoints")
        check(all(e["ci_low"] <= e["value"] <= e["ci_high"] for e in d), f"{form}: density intervals")
        whole, bucket10 = j["ranges"]
        check(math.isclose(sum(e["value"] for e in d) * width, whole["estimate"], rel_tol=1e-9, abs_tol=1e-9),
              f"{form}: densities integrate to {sum(e['value'] for e in d) * width}, the range gives {whole}")
        check(math.isclose(d[10]["value"] * width, bucket10["estimate"], rel_tol=1e-9, abs_tol=1e-12),
              f"{form}: bucket 10 {d[10]} vs range {bucket10}")
        out, _ = run("estimate", path(state), "--density", "--plot", path(form + ".svg"))
        check("density (fraction" in out and f"plot: {path(form + '.svg')}" in out, f"{form}: table:\n{out[:400]}")
        check(len([line for line in out.splitlines() if re.match(r"^\s+\d", line)]) == BUCKETS, f"{form}: rows")
        root = ElementTree.fromstring(read(form + ".svg"))
        ns = "{http://www.w3.org/2000/svg}"
        check(root.tag == ns + "svg", f"{form}: not an SVG document")
        band = list(root.iter(ns + "polygon"))
        line = list(root.iter(ns + "polyline"))
        check(len(band) == 1 and len(line) == 1, f"{form}: {len(band)} bands, {len(line)} lines")
        check(len(band[0].get("points").split()) == 2 * BUCKETS and len(line[0].get("points").split()) == BUCKETS,
              f"{form}: band or line points")
        # --plot with a range only draws the density without listing it.
        j = estimate(state, "--range", "1:2", "--plot", path("only.svg"))
        check("density" not in j and len(read("only.svg")) > 0, f"{form}: --plot with --range")


def case_distribution_options() -> None:
    """--no-consistency changes hierarchical's answers; --bootstrap-seed makes square-wave's reproducible
    (the same seed, the same bytes; another seed, other variances); the refusals name the problem."""
    state, _ = state_of("hierarchical", n=5000)
    plain = estimate(state, *range_args(RANGES))
    again = estimate(state, *range_args(RANGES))
    check(plain == again, "hierarchical: two runs differ")
    raw = estimate(state, "--no-consistency", *range_args(RANGES))
    check([r["estimate"] for r in raw["ranges"]] != [r["estimate"] for r in plain["ranges"]],
          "hierarchical: --no-consistency changes nothing")
    fails("estimate", path(state), "--range", "1:2", "--bootstrap", "50", message="--bootstrap applies to")

    sw, _ = state_of("square-wave", n=5000)
    a, _ = run("estimate", path(sw), "--format", "json", "--range", "10:30", "--bootstrap-seed", "3",
               "--bootstrap", "40")
    b, _ = run("estimate", path(sw), "--format", "json", "--range", "10:30", "--bootstrap-seed", "3",
               "--bootstrap", "40")
    c = estimate(sw, "--range", "10:30", "--bootstrap-seed", "4", "--bootstrap", "40")
    check(a == b, "square-wave: the same bootstrap seed gives another answer")
    check(json.loads(a)["ranges"][0]["variance"] != c["ranges"][0]["variance"], "square-wave: the seed is ignored")
    fails("estimate", path(sw), "--range", "1:2", "--no-consistency", message="--no-consistency applies to")
    fails("estimate", path(sw), "--bootstrap-seed", "3", message="--bootstrap-seed applies with --range")
    # One value per --range or --quantile: the state may follow them.
    j = json.loads(run("estimate", "--range", "10:30", "--quantile", "0.5", path(state), "--format", "json")[0])
    check(len(j["ranges"]) == 1 and len(j["quantiles"]) == 1, f"options before the state: {j}")

    fails("estimate", path(state), "--range", "5:3", message="--range")
    fails("estimate", path(state), "--quantile", "1.5", message="--quantile must be in")
    fails("estimate", path(state), "--density", "--top", "3", message="--top")
    fails("estimate", path(state), "--density", "--format", "csv", message="table or json")
    run("simulate", "-m", "oue", "-e", "1", "-d", "16", "--data", "zipf:1.1", "--devices", "100", "--seed", "1",
        "--out", path("oue.ldpb"))
    run("aggregate", path("oue.ldpb"), "--out", path("oue.ldps"))
    fails("estimate", path("oue.ldps"), "--range", "1:2", message="apply to square-wave, hierarchical and haar")
    fails("estimate", path("oue.ldps"), "--no-consistency", message="--no-consistency applies to")
    data, _ = data_file(100)
    common = ["-e", "1", "--range", "0:64", "--data", data, "--seed", "1", "--out", path("x.ldpb")]
    fails("simulate", "-m", "haar", "--buckets", "48", *common, message="power of two")
    fails("simulate", "-m", "hierarchical", "--buckets", "64", "--branching", "3", *common, message="power of")
    fails("simulate", "-m", "square-wave", "--branching", "4", *common, message="--branching")
    fails("simulate", "-m", "square-wave", "--days", "3", *common, message="--days applies to")


def case_distribution_merge() -> None:
    """Split fleets aggregated apart and merged (either order) give the state of one aggregation; the
    batch does not depend on the thread count."""
    data, _ = data_file(3000)
    for form in FORMS:
        base = ["simulate", "-m", form, "-e", "1", *FORMS[form], "--data", data, "--devices", "3000"]
        run(*base, "--seed", "1", "--out", path("a.ldpb"), "--threads", "1")
        run(*base, "--seed", "1", "--out", path("a3.ldpb"), "--threads", "3")
        check(read("a.ldpb") == read("a3.ldpb"), f"{form}: the batch depends on the thread count")
        run(*base, "--seed", "2", "--out", path("b.ldpb"))
        run("aggregate", path("a.ldpb"), "--out", path("a.ldps"))
        run("aggregate", path("b.ldpb"), "--out", path("b.ldps"))
        run("aggregate", path("a.ldpb"), path("b.ldpb"), "--out", path("ab.ldps"))
        run("merge", path("a.ldps"), path("b.ldps"), "--out", path("m1.ldps"))
        run("merge", path("b.ldps"), path("a.ldps"), "--out", path("m2.ldps"))
        check(read("m1.ldps") == read("ab.ldps") == read("m2.ldps"), f"{form}: merged state differs")
        out, _ = run("inspect", path("a.ldpb"), "--records", "1")
        check("record 0:" in out, f"{form}: inspect:\n{out}")


def sparse_vectors(n: int, d: int, radius: float) -> str:
    """1-sparse vectors of l2 norm `radius` on skewed coordinates (so the mean lies in the l1 ball of
    that radius, docs/mechanisms.md C.3: s = 1); returns the --data spec."""
    rng = random.Random(5)
    lines = [",".join(f"c{j}" for j in range(d))]
    for _ in range(n):
        row = ["0"] * d
        row[min(int(rng.expovariate(0.7)), d - 1)] = f"{radius:g}"
        lines.append(",".join(row))
    write("sparse.csv", "\n".join(lines) + "\n")
    return f"csv:{path('sparse.csv')}"


def l2(a: Sequence[float], b: Sequence[float]) -> float:
    return math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)))


def case_l1_ball() -> None:
    """--l1-ball R on vector means: the projected vector is the soft threshold of the unprojected one
    at the reported threshold, on the sphere of radius R when it was outside; the unprojected values
    are the plain estimates; since the true mean lies in the ball, the projection is never farther
    from it (non-expansive, an identity of the geometry: no false failures), and on this 1-sparse data
    it is nearer by 5% at least (fixed seeds, deterministic: the ratios are 0.41 for vector-duchi,
    0.70 for vector-laplace, 0.91 for l2-ball); the refusals."""
    d, radius = 16, 2.0
    data = sparse_vectors(4000, d, radius)
    for mech, extra in (("vector-mean", []), ("vector-mean", ["--noise", "laplace"]), ("l2-ball", [])):
        name = f"{mech}{len(extra)}"
        run("simulate", "-m", mech, "-e", "1", "--dim", str(d), "--radius", str(radius), *extra, "--data", data,
            "--seed", "1", "--out", path(name + ".ldpb"), "--truth-out", path(name + ".truth.csv"))
        run("aggregate", path(name + ".ldpb"), "--out", path(name + ".ldps"))
        with open(path(name + ".truth.csv")) as f:
            truth = [float(r[1]) for r in list(csv.reader(f))[1:]]
        check(sum(abs(t) for t in truth) <= radius * (1 + 1e-12), f"{name}: the true mean is outside the ball")
        plain = estimate(name + ".ldps")
        j = estimate(name + ".ldps", "--l1-ball", str(radius), "--truth", path(name + ".truth.csv"))
        y = [e["estimate"] for e in plain["estimates"]]
        x = [e["estimate"] for e in j["estimates"]]
        ball = j["l1_ball"]
        check(list(ball) == ["radius", "threshold", "unprojected_norm"] and ball["radius"] == radius, f"{name}: {ball}")
        check([e["unprojected"] for e in j["estimates"]] == y, f"{name}: unprojected values are not the estimates")
        check([e["variance"] for e in j["estimates"]] == [e["variance"] for e in plain["estimates"]],
              f"{name}: the variances changed")
        norm = sum(abs(v) for v in y)
        check(math.isclose(ball["unprojected_norm"], norm, rel_tol=1e-12), f"{name}: norm {ball} vs {norm}")
        check(norm > radius and ball["threshold"] > 0, f"{name}: the noisy mean is inside the ball ({norm})")
        theta = ball["threshold"]
        for xj, yj in zip(x, y):
            want = math.copysign(max(abs(yj) - theta, 0.0), yj)
            check(math.isclose(xj, want, rel_tol=1e-9, abs_tol=1e-12),
                  f"{name}: {xj} is not the soft threshold of {yj}")
        check(math.isclose(sum(abs(v) for v in x), radius, rel_tol=1e-9), f"{name}: l1 norm {sum(abs(v) for v in x)}")
        before, after = l2(y, truth), l2(x, truth)
        check(after <= before * (1 + 1e-12), f"{name}: the projection moved away from the mean: {after} > {before}")
        check(after < 0.95 * before, f"{name}: the projection barely helps: {after} vs {before}")
        check(math.isclose(j["error"]["rmse"], after / math.sqrt(d), rel_tol=1e-9), f"{name}: error {j['error']}")
        # Inside the ball nothing moves.
        big = estimate(name + ".ldps", "--l1-ball", str(2 * norm))
        check([e["estimate"] for e in big["estimates"]] == y and big["l1_ball"]["threshold"] == 0,
              f"{name}: a radius above the norm changed the estimates")
    out, _ = run("estimate", path("vector-mean0.ldps"), "--l1-ball", "2")
    check("projected onto the l1 ball of radius 2" in out, f"table:\n{out}")
    out, _ = run("estimate", path("vector-mean0.ldps"), "--l1-ball", "2", "--format", "csv")
    check(out.splitlines()[0] == "coordinate,estimate,variance,ci_low,ci_high,unprojected", f"csv:\n{out[:200]}")
    fails("estimate", path("vector-mean0.ldps"), "--l1-ball", "-1", message="--l1-ball must be")
    run("simulate", "-m", "duchi", "-e", "1", "--range", "0:1", "--data", "uniform", "--devices", "100", "--seed", "1",
        "--out", path("duchi.ldpb"))
    run("aggregate", path("duchi.ldpb"), "--out", path("duchi.ldps"))
    fails("estimate", path("duchi.ldps"), "--l1-ball", "1", message="--l1-ball applies to")


if __name__ == "__main__":
    sys.exit(cli.main(globals()))
