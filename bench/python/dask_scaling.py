#!/usr/bin/env python3
"""Scaling of ldpkit.dask.aggregate: one worker against two (docs/dask.md, docs/benchmarks.md).

    PYTHONPATH=build/python/python /usr/bin/python3 bench/python/dask_scaling.py \\
        [--ldp build/python/tools/ldp] [--work /tmp/ldp-dask-bench] [--gib 1] [--olh-seconds 300] [--check-cli]

For each mechanism (OLH at d = 10^4, OUE at d = 1024, epsilon 2) it writes batch files with
`ldp simulate` (kept in --work and reused by later runs with the same sizes), then counts the same
files with ldpkit.dask.aggregate on a distributed.LocalCluster of one worker and of two workers
(processes, one thread each), in this run, and prints both times, their ratio against the goal
(issue 13: >= 1.7 for OLH, >= 1.5 for OUE) and whether the two states are byte-identical (with
--check-cli, also to `ldp aggregate` of the same files). Exit status 1 if any differ.

Sizes: --gib of batch files per mechanism, in FILES files. OLH's count costs about d hash
evaluations per report (the support counting where its state is serialized), so --olh-seconds caps
the one-worker OLH count: a probe file is counted in this process first, and OLH gets fewer bytes
when the whole --gib would take longer (the output says so). Times are wall-clock seconds of the
aggregate() call only (cluster start-up and a warm-up call that loads ldpkit on the workers are not
timed); the files are in the page cache (just written or read by the warm-up). OUE is timed five
times per cluster and OLH once; the fastest run counts.
"""
import argparse
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Tuple

from distributed import Client, LocalCluster, get_task_stream

import ldpkit
import ldpkit.dask

REPO = Path(__file__).resolve().parents[2]
FILES = 16  # per mechanism: 8 partitions per worker with two workers
PROBE_DEVICES = 200_000
# (options of `ldp simulate`, scaling goal of issue 13, timed runs: the fastest counts; OLH's take
# minutes each, OUE's about a second, where one run is at the mercy of any other load)
MECHANISMS: Dict[str, Tuple[List[str], float, int]] = {
    "olh": (["--mechanism", "olh", "--domain", "10000"], 1.7, 1),
    "oue": (["--mechanism", "oue", "--domain", "1024"], 1.5, 5),
}


def simulate(tool: str, options: List[str], devices: int, seed: int, out: Path) -> Path:
    if not out.exists():
        partial = out.with_suffix(".tmp")
        subprocess.run([tool, "simulate", *options, "--epsilon", "2", "--devices", str(devices), "--data", "zipf:1.1",
                        "--seed", str(seed), "--out", str(partial)], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        partial.rename(out)
    return out


def plan(tool: str, work: Path, name: str, gib: float, olh_seconds: float) -> List[Path]:
    """Writes (or reuses) the batch files of one mechanism; returns their paths."""
    options = MECHANISMS[name][0]
    probe = simulate(tool, options, PROBE_DEVICES, 999, work / f"{name}-probe.ldpb")
    bytes_per_report = probe.stat().st_size / PROBE_DEVICES
    devices = int(gib * (1 << 30) / bytes_per_report)
    if name == "olh":
        # The one-worker count is serial: time the probe's count here (ingest and the serialize
        # that does the support counting) and cap the reports at olh_seconds of it.
        start = time.perf_counter()
        agg = ldpkit.Aggregator(ldpkit.batch_params(str(probe)))
        agg.add_file(str(probe))
        agg.serialize()
        per_report = (time.perf_counter() - start) / PROBE_DEVICES
        cap = int(olh_seconds / per_report)
        print(f"olh: counting costs {per_report * 1e6:.2f} us per report on one core (d = 10^4 support counting)")
        if cap < devices:
            print(f"olh: {devices:,} reports ({gib:g} GiB) would take about {devices * per_report:.0f} s on one worker,"
                  f" over --olh-seconds {olh_seconds:g}: counting {cap:,} reports "
                  f"({cap * bytes_per_report / (1 << 30):.2f} GiB) instead")
            devices = cap
    per_file = devices // FILES
    files = [simulate(tool, options, per_file, seed, work / f"{name}-{per_file}-{seed}.ldpb")
             for seed in range(1, FILES + 1)]
    total = sum(f.stat().st_size for f in files)
    print(f"{name}: {FILES} files of {per_file:,} reports, {total / (1 << 20):,.0f} MiB in all")
    return files


def count(files: List[Path], workers: int, repeat: int) -> Tuple[float, float, bytes]:
    """ldpkit.dask.aggregate on a LocalCluster of `workers` processes, `repeat` times: (the fastest
    run's wall seconds and the seconds its workers spent computing tasks in all, from Dask's task
    stream; the state)."""
    with LocalCluster(n_workers=workers, processes=True, threads_per_worker=1, dashboard_address=":0",
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as client:
        ldpkit.dask.aggregate(files[:1], client=client)  # warm-up: imports ldpkit on the workers
        runs = []
        for _ in range(repeat):
            with get_task_stream(client) as stream:
                start = time.perf_counter()
                agg = ldpkit.dask.aggregate([str(f) for f in files], client=client)
                wall = time.perf_counter() - start
            busy = sum(s["stop"] - s["start"] for task in stream.data for s in task["startstops"]
                       if s["action"] == "compute")
            runs.append((wall, busy))
        wall, busy = min(runs)
        return wall, busy, agg.serialize()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ldp", default=os.environ.get("LDP_TOOL", str(REPO / "build/python/tools/ldp")))
    parser.add_argument("--work", default="/tmp/ldp-dask-bench")
    parser.add_argument("--gib", type=float, default=1.0, help="batch files per mechanism, GiB")
    parser.add_argument("--olh-seconds", type=float, default=300.0, help="cap of the one-worker OLH count")
    parser.add_argument("--mechanisms", default="olh,oue")
    parser.add_argument("--check-cli", action="store_true",
                        help="also compare with `ldp aggregate` of the same files (after the timed runs)")
    parser.add_argument("--clean", action="store_true", help="remove --work at the end")
    args = parser.parse_args()
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; {os.cpu_count()} CPUs")
    failed = False
    for name in args.mechanisms.split(","):
        files = plan(args.ldp, work, name, args.gib, args.olh_seconds)
        _, goal, repeat = MECHANISMS[name]
        one, busy1, state1 = count(files, 1, repeat)
        two, busy2, state2 = count(files, 2, repeat)
        ratio = one / two
        identical = state1 == state2
        print(f"{name}: 1 worker {one:.2f} s, 2 workers {two:.2f} s, ratio {ratio:.2f} (goal >= {goal}: "
              f"{'met' if ratio >= goal else 'missed'}); states byte-identical: {identical}")
        # Where a missed ratio comes from: the tasks' own compute time grows when two workers share
        # the cores with other load; what is not task time is scheduling, transfers and the client.
        print(f"{name}: task compute time 1 worker {busy1:.2f} s, 2 workers {busy2:.2f} s in all "
              f"({busy2 / busy1:.2f} x); 2 workers busy {busy2 / (2 * two):.0%} of the wall time")
        print(f"load average after {name}: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        if args.check_cli:
            out = work / f"{name}.ldps"
            subprocess.run([args.ldp, "aggregate", *map(str, files), "--out", str(out)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            same = out.read_bytes() == state2
            print(f"{name}: byte-identical to `ldp aggregate` of the same files: {same}")
            identical &= same
        failed |= not identical
    if args.clean:
        shutil.rmtree(work)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
