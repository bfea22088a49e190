#!/usr/bin/env python3
"""Tests of smooth-queries in the tool (docs/cli.md "Smooth queries", docs/mechanisms.md H.6): ldp simulate
--mechanism smooth-queries --dim p --degree t on numeric CSV columns (scaled to [-1, 1] by their ranges),
ldp estimate STATE --query FILE in JSON and as a table, and the refusals. Run by CTest one case at a time:

    test_smooth_queries.py --ldp build/host/tools/ldp --work <scratch dir> <case>

The helpers (running the binary) are test_cli.py's. The target of each answer is recomputed here
independently of the library: the columns scaled as documented, the query's Chebyshev interpolant
from its values at the nodes by a direct (not separable) cosine sum, averaged over the rows.
"""
import itertools
import json
import math
import random
import sys
from typing import Callable, List, Sequence

import test_cli as cli
from test_cli import check, fails, path, run, write

# z of the answer checks: two-sided P(|N(0,1)| > 5.5) = 3.8e-8; 3 answers fail falsely with
# probability below 2e-7 (each answer sums 20,000 reports' independent noise: near normal). The
# fixed-point features add at most about 1e-4 (H.6's bound at f = 16, t = 5), inside SLACK.
Z = 5.5
SLACK = 1e-3
P, T, N = 2, 5, 20000

QUERIES = [
    {"name": "bump", "kind": "gaussian", "center": [0.2, -0.3], "width": 0.5},
    {"name": "upper", "kind": "smooth-step", "center": [0.0, 0.1], "width": 0.25},
    {"name": "xy2", "kind": "monomial", "powers": [1, 2]},
]


def rows_of(n: int, seed: int = 7) -> List[List[float]]:
    """Two dependent columns on unlike ranges: u in [10, 30], v = 100 + 5 u + noise."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        u = 10 + 20 * rng.betavariate(2, 3)
        out.append([round(u, 4), round(100 + 5 * u + 20 * rng.random(), 4)])
    return out


def query_function(q: dict) -> Callable[[Sequence[float]], float]:
    """The documented formula of each built-in kind."""
    if q["kind"] == "gaussian":
        c, s = q["center"], q["width"]
        return lambda x: math.exp(-sum((a - b) ** 2 for a, b in zip(x, c)) / (2 * s * s))
    if q["kind"] == "smooth-step":
        c, s = q["center"], q["width"]
        return lambda x: math.prod(1 / (1 + math.exp(-(a - b) / s)) for a, b in zip(x, c))
    return lambda x: math.prod(a ** k for a, k in zip(x, q["powers"]))


def interpolant_mean(f: Callable[[Sequence[float]], float], xs: Sequence[Sequence[float]]) -> float:
    """Mean over xs of f's tensor Chebyshev interpolant of degree < T per axis (direct sums)."""
    nodes = [math.cos(math.pi * (k + 0.5) / T) for k in range(T)]
    grid = list(itertools.product(range(T), repeat=P))
    values = {k: f([nodes[i] for i in k]) for k in grid}
    coef = {}
    for v in grid:
        s = sum(values[k] * math.prod(math.cos(math.pi * vi * (ki + 0.5) / T) for vi, ki in zip(v, k)) for k in grid)
        coef[v] = s * math.prod((1 if vi == 0 else 2) / T for vi in v)
    total = 0.0
    for x in xs:
        total += sum(c * math.prod(math.cos(vi * math.acos(xi)) for vi, xi in zip(v, x)) for v, c in coef.items())
    return total / len(xs)


def scaled(rows: Sequence[Sequence[float]]) -> List[List[float]]:
    """Each column mapped from its range over the rows to [-1, 1] (docs/cli.md)."""
    lo = [min(r[j] for r in rows) for j in range(P)]
    hi = [max(r[j] for r in rows) for j in range(P)]
    return [[2 * (r[j] - lo[j]) / (hi[j] - lo[j]) - 1 for j in range(P)] for r in rows]


def state_of(rows: Sequence[Sequence[float]]) -> str:
    """Writes the CSV (a label column first), simulates from column 2, aggregates; returns the state."""
    write("data.csv", "label,u,v\n" + "".join(f"{i % 3},{r[0]},{r[1]}\n" for i, r in enumerate(rows)))
    out, _ = run("simulate", "-m", "smooth-queries", "-e", "4", "--dim", str(P), "--degree", str(T), "--data",
                 f"csv:{path('data.csv')}:u", "--seed", "11", "--out", path("s.ldpb"), "--truth-out",
                 path("s.truth.csv"))
    check("columns scaled to [-1, 1] from their ranges [" in out, f"simulate output:\n{out}")
    run("aggregate", path("s.ldpb"), "--out", path("s.ldps"))
    write("queries.json", json.dumps(QUERIES))
    return "s.ldps"


def case_smooth_queries() -> None:
    """Each answer within Z sd (plus the fixed-point slack) of the interpolant's mean over the scaled
    rows, its interval of half width z sd, the documented keys; the table lists the same queries.
    Fails (checked) when the tool clamps the raw columns to [-1, 1] instead of scaling them."""
    rows = rows_of(N)
    state = state_of(rows)
    xs = scaled(rows)
    out, _ = run("estimate", path(state), "--query", path("queries.json"), "--format", "json")
    j = json.loads(out)
    check(j["mechanism"] == "smooth-queries" and j["reports"] == N, f"header {j}")
    check(j["dim"] == P and j["degree"] == T and j["confidence"] == 0.95, f"header {j}")
    check([a["name"] for a in j["answers"]] == [q["name"] for q in QUERIES], f"names {j['answers']}")
    for q, a in zip(QUERIES, j["answers"]):
        check(list(a) == ["name", "kind", "value", "variance", "ci_low", "ci_high"], f"keys {list(a)}")
        f = query_function(q)
        target = interpolant_mean(f, xs)
        exact = sum(f(x) for x in xs) / len(xs)
        sd = math.sqrt(a["variance"])
        check(abs(a["value"] - target) <= Z * sd + SLACK, f"{q['name']}: {a['value']} vs {target} (sd {sd})")
        check(math.isclose(a["ci_high"] - a["value"], 1.959963984540054 * sd, rel_tol=1e-9), f"interval {a}")
        if q["kind"] == "monomial":  # exact at degree < T: the interpolant is the query itself
            check(math.isclose(target, exact, abs_tol=1e-9), f"{q['name']}: interpolant {target} vs {exact}")
    out, _ = run("estimate", path(state), "--query", path("queries.json"))
    check("bump" in out and "smooth-step" in out and "95% interval" in out, f"table:\n{out}")


def case_smooth_queries_refused() -> None:
    """--degree below 2, too many features, --query on another state, a malformed query, each with a
    short error naming the problem."""
    state = state_of(rows_of(300))
    base = ["simulate", "-m", "smooth-queries", "-e", "1", "--data", "uniform", "--devices", "10", "--seed", "1",
            "--out", path("x.ldpb")]
    fails(*base, "--dim", "2", "--degree", "1", message=r"--degree must be at least 2")
    fails(*base, "--dim", "17", "--degree", "2", message=r"more than 65536 features")
    fails(*base, "--dim", "2", message=r"needs --dim p --degree t")
    fails(*base, "--dim", "2", "--degree", "4", "--frac-bits", "31", message=r"--frac-bits must be at most 30")
    write("bad.json", json.dumps([{"name": "b", "kind": "gaussian", "center": [0.0], "width": 1}]))
    fails("estimate", path(state), "--query", path("bad.json"), message=r"array of 2 numbers")
    write("bad2.json", json.dumps([{"name": "c", "kind": "cubic", "center": [0, 0]}]))
    fails("estimate", path(state), "--query", path("bad2.json"), message=r"\"kind\" must be gaussian")
    write("bad3.json", "not json")
    fails("estimate", path(state), "--query", path("bad3.json"), message=r"is not JSON")
    fails("estimate", path(state), "--query", path("queries.json"), "--format", "csv", message=r"--query prints as")
    run("simulate", "-m", "laplace", "-e", "1", "--range", "0:1", "--data", "uniform", "--devices", "10", "--seed", "1",
        "--out", path("l.ldpb"))
    run("aggregate", path("l.ldpb"), "--out", path("l.ldps"))
    fails("estimate", path("l.ldps"), "--query", path("queries.json"),
          message=r"--query applies to smooth-queries states only")


if __name__ == "__main__":
    sys.exit(cli.main(globals()))
