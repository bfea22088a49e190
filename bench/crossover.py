#!/usr/bin/env python3
"""Each table's ChaCha20 crossover (kernel_table.h, chacha20_min_blocks) from one ldp_bench run.

Usage:
    taskset -c 1 ldp_bench --benchmark_filter='BM_chacha20_blocks' \\
        --benchmark_repetitions=N --benchmark_enable_random_interleaving=true \\
        --benchmark_report_aggregates_only=true --benchmark_format=json --benchmark_out=FILE
    python3 bench/crossover.py [--cpu-time] FILE

Reads the medians of BM_chacha20_blocks/<table>/<blocks> (ratios.load_times) and prints a Markdown
table of ns per call by block count, then each table's crossover: the fewest blocks from which the
table is faster than the scalar one at every swept size. A table never faster than scalar within
the sweep reports "> max" (keep scalar up to the largest size swept). Times are `real_time`, or
`cpu_time` with --cpu-time (better when other processes share the core).
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ratios import load_times  # noqa: E402

PREFIX = "BM_chacha20_blocks/"


def sweep(times: dict) -> dict[str, dict[int, float]]:
    """Maps table name to {blocks: ns per call} for the BM_chacha20_blocks runs."""
    out = {}
    for name, (ns, _record) in times.items():
        if not name.startswith(PREFIX):
            continue
        table, blocks = name[len(PREFIX):].split("/")[:2]
        out.setdefault(table, {})[int(blocks)] = ns
    return out


def crossover(scalar: dict[int, float], wide: dict[int, float]) -> int | None:
    """Fewest blocks n with wide faster than scalar at n and every larger swept size, else None."""
    sizes = sorted(set(scalar) & set(wide))
    first = None
    for n in reversed(sizes):
        if wide[n] >= scalar[n]:
            break
        first = n
    return first


def main(argv: list[str]) -> None:
    """Prints the sweep and the crossovers of the JSON file named in argv."""
    args = argv[1:]
    clock = "real_time"
    if args[:1] == ["--cpu-time"]:
        clock, args = "cpu_time", args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    _context, times = load_times(args[0], clock)
    tables = sweep(times)
    if "scalar" not in tables:
        sys.exit("no BM_chacha20_blocks/scalar runs in " + args[0])
    names = ["scalar"] + sorted(t for t in tables if t != "scalar")
    sizes = sorted(tables["scalar"])
    print("| blocks | " + " | ".join(f"{t} ns" for t in names) + " |")
    print("| --- " * (len(names) + 1) + "|")
    for n in sizes:
        cells = [f"{tables[t][n]:.1f}" if n in tables[t] else "n/a" for t in names]
        print(f"| {n} | " + " | ".join(cells) + " |")
    print()
    print("| table | chacha20_min_blocks |")
    print("| --- | --- |")
    for t in names[1:]:
        first = crossover(tables["scalar"], tables[t])
        print(f"| {t} | {first if first is not None else '> ' + str(sizes[-1])} |")


if __name__ == "__main__":
    main(sys.argv)
