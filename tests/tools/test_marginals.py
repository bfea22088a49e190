#!/usr/bin/env python3
"""Tests of kway-marginals in the tool (docs/cli.md "Marginals", docs/mechanisms.md H.5): ldp simulate
--mechanism kway-marginals --dim p --order k on a CSV of 0/1 columns, ldp estimate STATE --marginal a,b,c
in JSON and as a table (with --truth), and the refusals. Run by CTest one case at a time:

    test_marginals.py --ldp build/host/tools/ldp --work <scratch dir> <case>

The helpers (running the binary) are test_cli.py's. The statistical check uses fixed data and seed and
states its false-failure probability.
"""
import itertools
import json
import math
import random
import sys
from typing import Dict, List, Sequence, Tuple

import test_cli as cli
from test_cli import check, fails, path, run, write

# z of the cell checks: two-sided P(|N(0,1)| > 5.5) = 3.8e-8; 8 + 4 cells fail falsely with
# probability below 5e-7 (normal approximation: each cell sums 20,000 reports' noise).
Z = 5.5
P, K, N = 5, 3, 20000


def records(n: int, seed: int = 5) -> List[List[int]]:
    """Dependent bits: attribute j is 1 with probability about 0.2 + 0.1 j, and 1 and 2 agree more often."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        row = [1 if rng.random() < 0.2 + 0.1 * j else 0 for j in range(P)]
        if rng.random() < 0.5:
            row[2] = row[1]
        out.append(row)
    return out


def state_of(rows: Sequence[Sequence[int]], epsilon: str = "2") -> str:
    """Writes the CSV, simulates, aggregates; returns the state's name."""
    header = ",".join(f"a{j}" for j in range(P))
    write("records.csv", header + "\n" + "".join(",".join(map(str, r)) + "\n" for r in rows))
    run("simulate", "-m", "kway-marginals", "-e", epsilon, "--dim", str(P), "--order", str(K), "--data",
        f"csv:{path('records.csv')}", "--seed", "3", "--out", path("m.ldpb"), "--truth-out", path("m.truth.csv"))
    run("aggregate", path("m.ldpb"), "--out", path("m.ldps"))
    return "m.ldps"


def cells(rows: Sequence[Sequence[int]], attributes: Sequence[int]) -> Dict[Tuple[int, ...], float]:
    out = {values: 0.0 for values in itertools.product((0, 1), repeat=len(attributes))}
    for r in rows:
        out[tuple(r[a] for a in attributes)] += 1 / len(rows)
    return out


def case_marginals() -> None:
    """Every cell of two marginals within Z standard deviations of the cell counted from the CSV, its
    interval around it, the cells in pattern order with the documented keys, the truth equal to the
    count; the table shows the same cells."""
    rows = records(N)
    state = state_of(rows)
    for attributes in ([0, 2, 4], [2, 1]):
        out, _ = run("estimate", path(state), "--format", "json", "--marginal", ",".join(map(str, attributes)),
                     "--truth", path("m.truth.csv"))
        j = json.loads(out)
        check(j["mechanism"] == "kway-marginals" and j["reports"] == N, f"header {j['mechanism']} {j['reports']}")
        check(j["attributes"] == attributes and j["confidence"] == 0.95 and 1.99 < j["epsilon"] <= 2, f"{j}")
        exact = cells(rows, attributes)
        check(len(j["cells"]) == 2 ** len(attributes), f"{len(j['cells'])} cells")
        for index, cell in enumerate(j["cells"]):
            check(list(cell) == ["values", "estimate", "variance", "ci_low", "ci_high", "truth"], f"keys {list(cell)}")
            values = tuple(cell["values"])
            check(values == tuple((index >> i) & 1 for i in range(len(attributes))), f"cell {index}: {values}")
            truth = exact[values]
            check(math.isclose(cell["truth"], truth, abs_tol=1e-12), f"{values}: truth {cell['truth']} vs {truth}")
            sd = math.sqrt(cell["variance"])
            check(abs(cell["estimate"] - truth) <= Z * sd, f"{values}: {cell['estimate']} vs {truth} (sd {sd})")
            check(math.isclose(cell["ci_high"] - cell["estimate"], 1.959963984540054 * sd, rel_tol=1e-9),
                  f"{values}: interval {cell}")
        check(math.isclose(sum(c["estimate"] for c in j["cells"]), 1, abs_tol=1e-9), "cells do not sum to 1")
    out, _ = run("estimate", path(state), "--marginal", "0,2,4")
    check("marginal over attributes 0 2 4 (95% intervals)" in out and "0 0 0" in out and "1 1 1" in out,
          f"table:\n{out}")


def case_marginals_refused() -> None:
    """--order outside [1, --dim], a marginal of more than k or repeated or unknown attributes, and
    --marginal on a state of another mechanism, each with a short error naming the problem."""
    state = state_of(records(200))
    base = ["simulate", "-m", "kway-marginals", "-e", "1", "--data", "uniform", "--devices", "10", "--seed", "1",
            "--out", path("x.ldpb")]
    fails(*base, "--dim", "4", "--order", "5", message=r"--order must be in \[1, --dim\]")
    fails(*base, "--dim", "4", message=r"needs --dim p --order k")
    fails(*base, "--dim", "64", "--order", "4", message=r"conjunctions, above 65536")
    fails("estimate", path(state), "--marginal", "0,1,2,3", message=r"above the state's order k = 3")
    fails("estimate", path(state), "--marginal", "1,1", message=r"distinct attributes")
    fails("estimate", path(state), "--marginal", "0,5", message=r"attribute numbers in \[0, 5\)")
    fails("estimate", path(state), "--marginal", "0,1", "--format", "csv", message=r"--marginal prints as")
    run("simulate", "-m", "laplace", "-e", "1", "--range", "0:1", "--data", "uniform", "--devices", "10", "--seed", "1",
        "--out", path("l.ldpb"))
    run("aggregate", path("l.ldpb"), "--out", path("l.ldps"))
    fails("estimate", path("l.ldps"), "--marginal", "0", message=r"--marginal applies to kway-marginals states only")


if __name__ == "__main__":
    sys.exit(cli.main(globals()))
