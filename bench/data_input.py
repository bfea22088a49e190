#!/usr/bin/python3
"""Issue 20 "Faster real-data input": times `ldp simulate --mechanism vector-mean --dim 784` reading
a ~300 MB CSV (`--data csv:`) and the same numbers as a .npy (`--data npy:`) against `cat FILE >
/dev/null` (the page-cache read speed, measured in the same run) and an older `ldp` build (the
baseline), and prints a Markdown table of medians (docs/benchmarks.md "Issue 20: real-data input").

    bench/data_input.py --ldp build/host/tools/ldp --baseline /tmp/ldp-main [--dir /tmp/ldp-data]

The data are real pixels: sklearn's digits (1,797 images of 8 x 8, Debian's python3-sklearn),
each upsampled 3x to 24 x 24 and padded to 28 x 28 = 784 pixels, scaled by 1/28 (so every row lies in
the unit L2 ball) and repeated until the CSV reaches 300 MiB; written once under --dir, never in the
repository. Each command runs --repeat times after one warm-up run (the files are then in the page
cache); wall and CPU (user + system) seconds are medians. "load" rows pass --devices 1, so the time is
the reading of the whole file (every row is still parsed and checked) and almost no randomizing.
"""
import argparse
import gzip
import os
import resource
import statistics
import subprocess
import time
from typing import List, Tuple

import numpy as np

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"
TARGET_BYTES = 300 << 20


def make_data(directory: str) -> Tuple[str, str]:
    """Writes (once) the 784-column CSV and the .npy of the same float64 numbers; returns their paths."""
    csv_path = os.path.join(directory, "digits784.csv")
    npy_path = os.path.join(directory, "digits784.npy")
    if os.path.exists(csv_path) and os.path.exists(npy_path):
        return csv_path, npy_path
    os.makedirs(directory, exist_ok=True)
    with gzip.open(DIGITS, "rt") as f:
        digits = np.loadtxt(f, delimiter=",")
    images = digits[:, :64].reshape(-1, 8, 8) / 16.0
    padded = np.pad(np.kron(images, np.ones((3, 3))), ((0, 0), (2, 2), (2, 2)))
    pixels = padded.reshape(-1, 784) / 28.0
    lines = [",".join(repr(float(v)) for v in row) + "\n" for row in pixels]
    rows: List[int] = []
    size = 0
    with open(csv_path, "w") as f:
        f.write(",".join(f"p{i}" for i in range(784)) + "\n")
        while size < TARGET_BYTES:
            i = len(rows) % len(lines)
            f.write(lines[i])
            size += len(lines[i])
            rows.append(i)
    np.save(npy_path, pixels[rows])
    return csv_path, npy_path


def timed(command: List[str]) -> Tuple[float, float]:
    """(wall, user + system CPU) seconds of one run of command, its output discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def medians(command: List[str], repeat: int) -> Tuple[float, float]:
    """Median wall and CPU seconds over `repeat` runs after a warm-up run."""
    timed(command)
    runs = [timed(command) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def main() -> None:
    """Runs every command and prints the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ldp", required=True, help="the ldp build under test")
    parser.add_argument("--baseline", help="an older ldp build (csv: only)")
    parser.add_argument("--dir", default="/tmp/ldp-data", help="where the data files are written")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    csv_path, npy_path = make_data(args.dir)
    out = os.path.join(args.dir, "bench.ldpb")
    simulate = ["simulate", "--mechanism", "vector-mean", "--epsilon", "1", "--dim", "784", "--radius", "1",
                "--seed", "1", "--out", out]
    rows = [("cat CSV > /dev/null", ["sh", "-c", f"cat '{csv_path}' > /dev/null"]),
            ("cat npy > /dev/null", ["sh", "-c", f"cat '{npy_path}' > /dev/null"])]
    for name, binary in (("baseline", args.baseline), ("new", args.ldp)):
        if binary is None:
            continue
        specs = [("csv", f"csv:{csv_path}")] + ([("npy", f"npy:{npy_path}")] if name == "new" else [])
        for kind, spec in specs:
            rows.append((f"{name} {kind} load (--devices 1)", [binary, *simulate, "--data", spec, "--devices", "1"]))
            rows.append((f"{name} {kind} simulate (all rows)", [binary, *simulate, "--data", spec]))
    sizes = {"CSV": os.path.getsize(csv_path), "npy": os.path.getsize(npy_path)}
    print(f"CSV {sizes['CSV'] / 1e6:.1f} MB, npy {sizes['npy'] / 1e6:.1f} MB, {os.cpu_count()} CPUs, "
          f"median of {args.repeat} runs\n")
    print("| command | wall s | CPU s |")
    print("| --- | ---: | ---: |")
    for name, command in rows:
        wall, cpu = medians(command, args.repeat)
        print(f"| {name} | {wall:.2f} | {cpu:.2f} |", flush=True)


if __name__ == "__main__":
    main()
