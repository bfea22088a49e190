"""What the measurement scripts of docs/learning.md share: running `ldp train --format json`
(docs/cli.md "ldp train"), the methods a tool lists, summary statistics over seeds, markdown tables
and least-squares slopes on log-log axes.

The scripts import it from their own directory (`/usr/bin/python3 bench/learning/<script>.py` puts
bench/learning first on sys.path).
"""
import json
import math
import re
import subprocess
from typing import Dict, List, Optional, Sequence

SKLEARN = "/usr/lib/python3/dist-packages/sklearn/datasets/data"


def run_json(args: Sequence[str]) -> Dict:
    """One tool run printing JSON, parsed; {"error": stderr} if it exits non-zero."""
    proc = subprocess.run(list(args), capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip()}
    return json.loads(proc.stdout)


def listed_methods(ldp: str, candidates: Sequence[str]) -> List[str]:
    """The candidates `ldp train --help` lists (a line "  name: description"), in the candidates' order."""
    text = subprocess.run([ldp, "train", "--help"], capture_output=True, text=True, check=True).stdout
    return [m for m in candidates if re.search(rf"^\s+{re.escape(m)}:", text, re.MULTILINE)]


def mean(values: List[float]) -> float:
    """The arithmetic mean, NaN for no values."""
    return sum(values) / len(values) if values else float("nan")


def spread(values: List[float]) -> float:
    """The sample standard deviation (n - 1), NaN for fewer than two values."""
    if len(values) < 2:
        return float("nan")
    m = mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def table(header: List[str], rows: List[List[str]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def slope(xs: List[float], values: List[float]) -> Optional[float]:
    """The least-squares slope of log(value) on log(x) over the positive cells (None for fewer than three)."""
    pts = [(math.log(x), math.log(v)) for x, v in zip(xs, values) if x > 0 and v == v and v > 0]
    if len(pts) < 3:
        return None
    mx = mean([p[0] for p in pts])
    my = mean([p[1] for p in pts])
    return sum((x - mx) * (y - my) for x, y in pts) / sum((x - mx) ** 2 for x, _ in pts)
