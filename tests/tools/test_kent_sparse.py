#!/usr/bin/env python3
"""Tests of Kent M4 in the tool (docs/cli.md "kent with --sparse"): ldp simulate --mechanism kent
--dim d --sparse s on spiky s-sparse CSV data, M4a (support selection) and M4b (thresholded M2),
and the refusals. Run by CTest one case at a time:

    test_kent_sparse.py --ldp build/host/tools/ldp --work <scratch dir> <case>

The helpers (running the binary) are test_cli.py's.
"""
import json
import random
import sys
from typing import List

import test_cli as cli
from test_cli import check, fails, path, read, run, write

D, T, N = 8, 60, 6000
MU = [0.8, -0.8] + [0.0] * (D - 2)


def spiky_csv() -> str:
    """N users, each T observations of D coordinates in {-1, +1}: coordinate j is +1 with
    probability (1 + MU[j]) / 2 (fixed seed). Columns: observation after observation."""
    rng = random.Random(20260516)
    rows: List[str] = []
    for _ in range(N):
        values = []
        for _ in range(T):
            values += ["1" if rng.random() < (1 + mu) / 2 else "-1" for mu in MU]
        rows.append(",".join(values))
    write("spiky.csv", "\n".join(rows) + "\n")
    return path("spiky.csv")


def sparse_run(method: str, extra=()) -> str:
    out, _ = run("simulate", "-m", "kent", "-e", "2", "--range", "-1:1", "--observations", str(T), "--dim", str(D),
                 "--sparse", "2", "--sparse-method", method, "--data", f"csv:{path('spiky.csv')}", "--seed", "5",
                 "--out", path(f"{method}.ldpb"), "--truth-out", path(f"{method}.csv"), "--release-out",
                 path(f"{method}.json"), *extra)
    return out


def case_kent_sparse() -> None:
    """M4a selects coordinates 0 and 1 and estimates them within 6 sd; M4b keeps them; every other
    coordinate is 0 with the threshold as its bound. Sizes (alpha = 2, n/2 = 3,000 voters): the
    scores' sd is sqrt((2 + 7.8) / 3000) = 0.057, so 1/2 is 8.7 sd from 0 and 1; a support
    coordinate's local mean (sd 0.077) is 5.5 sd above tau = sqrt(4 ln 8 / 60) = 0.37. An estimate's
    error is a mean of >= 750 discrete Laplace noises: 6 sd has probability < 4e-8 (Chernoff, as in
    test_cli.py's case_kent_folds)."""
    spiky_csv()
    out = sparse_run("select", ["--round1-out", path("votes.ldpb")])
    check("M4a, support selection" in out and "selected: [0, 1]" in out, f"M4a output:\n{out}")
    j = json.loads(read("select.json"))
    check(j["release"]["method"] == "M4a" and j["size"] == D and 1.99 < j["epsilon"] <= 2, f"M4a json {j}")
    for e in j["estimates"]:
        if e["item"] < 2:
            check(abs(e["estimate"] - e["true"]) <= 6 * e["variance"] ** 0.5, f"M4a estimate {e}")
        else:
            check(e["estimate"] == 0 and e["ci_low"] < 0 < e["ci_high"], f"M4a zero {e}")
    run("aggregate", path("votes.ldpb"), "--out", path("votes.ldps"))
    votes = cli.estimate_json("votes.ldps")
    check(votes["mechanism"] == "kent-support" and votes["reports"] == N // 2, f"votes {votes}")
    scores = [e["estimate"] for e in votes["estimates"]]
    check(min(scores[:2]) > 0.5 > max(scores[2:]), f"scores {scores}")
    inspect, _ = run("inspect", path("votes.ldpb"), "--records", "1")
    check("seed=" in inspect and "value=" in inspect, f"inspect:\n{inspect}")

    out = sparse_run("threshold")
    check("M4b, thresholded M2" in out, f"M4b output:\n{out}")
    j = json.loads(read("threshold.json"))
    kept = [e["item"] for e in j["estimates"] if e["estimate"] != 0]
    check(j["release"]["method"] == "M4b" and kept == [0, 1], f"M4b kept {kept}")


def case_kent_sparse_refused() -> None:
    """Clear errors (exit 2) for --sparse without a vector, with l2, --plan or --density, and a stray
    method."""
    bad = ["simulate", "-m", "kent", "-e", "1", "--range", "-1:1", "--observations", "10", "--devices", "100",
           "--data", "uniform", "--seed", "1", "--out", path("x.ldpb")]
    fails(*bad, "--sparse", "2", message=r"--sparse needs --dim")
    fails(*bad, "--dim", "4", "--sparse", "5", message=r"--sparse must be in \[1, --dim\]")
    fails(*bad, "--dim", "4", "--sparse", "2", "--ball", "l2", message=r"--ball l2")
    fails(*bad, "--dim", "4", "--sparse", "2", "--plan", "two-stage", message=r"--plan")
    fails(*bad, "--dim", "4", "--sparse", "2", "--density", message=r"--density \(M5\) and --sparse \(M4\)")
    fails(*bad, "--dim", "4", "--sparse-method", "select", message=r"--sparse-method applies")
    fails(*bad, "--dim", "4", "--sparse", "2", "--sparse-method", "first", message=r"--sparse-method")


if __name__ == "__main__":
    sys.exit(cli.main(globals()))
