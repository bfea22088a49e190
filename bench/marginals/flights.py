#!/usr/bin/env python3
"""k-way marginals of real data through ldp (docs/mechanisms.md H.5, "Demonstration").

Reads vega-datasets' flights-3m.csv (231,083 US flights of early 2001; fetch it with
`npm pack vega-datasets@2.8.0` and unpack, as the other benchmarks do: it is never committed), turns
each flight into six bits, runs `ldp simulate --mechanism kway-marginals`, `ldp aggregate` and
`ldp estimate --marginal`, and prints the private cells next to the exact ones as a Markdown table.

    /usr/bin/python3 bench/marginals/flights.py --ldp build/host/tools/ldp \
        --flights /tmp/vega/package/data/flights-3m.csv --work /tmp/marginals --epsilon 4 --order 2
"""
import argparse
import csv
import json
import os
import subprocess
from typing import List, Sequence

HUBS = {"ORD", "ATL", "DFW", "LAX", "DEN"}
ATTRIBUTES = ["delayed (> 15 min)", "long (> 1000 mi)", "evening (dep. >= 17:00)", "early (dep. < 9:00)",
              "hub origin (ORD ATL DFW LAX DEN)", "March"]


def bits(row: dict) -> List[int]:
    """The six attributes of a flight; date is MMDDHHMM."""
    month, hour = int(row["date"][0:2]), int(row["date"][4:6])
    return [int(int(row["delay"]) > 15), int(int(row["distance"]) > 1000), int(hour >= 17), int(hour < 9),
            int(row["origin"] in HUBS), int(month == 3)]


def run(ldp: str, *args: str) -> str:
    return subprocess.run([ldp, *args], check=True, capture_output=True, text=True).stdout


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ldp", required=True)
    parser.add_argument("--flights", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--epsilon", default="4")
    parser.add_argument("--order", default="2")
    parser.add_argument("--marginal", default="0,1")
    parser.add_argument("--seed", default="1")
    a = parser.parse_args()
    os.makedirs(a.work, exist_ok=True)
    with open(a.flights) as f:
        records = [bits(r) for r in csv.DictReader(f)]
    data = os.path.join(a.work, "flights_bits.csv")
    with open(data, "w") as f:
        f.write("delayed,long,evening,early,hub,march\n")
        f.writelines(",".join(map(str, r)) + "\n" for r in records)
    batch, state, truth = (os.path.join(a.work, n) for n in ("f.ldpb", "f.ldps", "f.truth.csv"))
    run(a.ldp, "simulate", "-m", "kway-marginals", "-e", a.epsilon, "--dim", "6", "--order", a.order, "--data",
        f"csv:{data}", "--seed", a.seed, "--out", batch, "--truth-out", truth)
    run(a.ldp, "aggregate", batch, "--out", state)
    j = json.loads(run(a.ldp, "estimate", state, "--format", "json", "--marginal", a.marginal, "--truth", truth))
    names = [ATTRIBUTES[int(i)] for i in a.marginal.split(",")]
    print(f"{len(records)} flights, epsilon {j['epsilon']:.6g}, k = {a.order}; marginal over: {'; '.join(names)}\n")
    print("| cell | exact | estimate | std error | 95% interval |")
    print("| --- | --- | --- | --- | --- |")
    for c in j["cells"]:
        cell = " ".join(map(str, c["values"]))
        print(f"| {cell} | {c['truth']:.4f} | {c['estimate']:.4f} | {c['variance'] ** 0.5:.4f} | "
              f"[{c['ci_low']:.4f}, {c['ci_high']:.4f}] |")


if __name__ == "__main__":
    main()
