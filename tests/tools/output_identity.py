#!/usr/bin/env python3
"""Byte identity of what the `ldp` tool writes: batches, states, window lists and truth files for a
fixed seed, for every mechanism the tool simulates, against SHA-256 digests committed in
output_identity.sha256 (recorded before the issue-12 restructuring, which must not change a byte).

    output_identity.py --ldp build/host/tools/ldp --work DIR            check against the manifest
    output_identity.py --ldp build/host/tools/ldp --work DIR --record   rewrite the manifest

Recording is for a deliberate format change only: the manifest's history says when bytes changed.
"""
import argparse
import hashlib
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
MANIFEST = os.path.join(HERE, "output_identity.sha256")

# (name, simulate options) for every mechanism configuration; seeds and sizes are fixed.
FLEETS = [
    ("grr", ["-m", "grr", "--domain", "50"]),
    ("sue", ["-m", "sue", "--domain", "50"]),
    ("oue", ["-m", "oue", "--domain", "50"]),
    ("blh", ["-m", "blh", "--domain", "50"]),
    ("olh", ["-m", "olh", "--domain", "50"]),
    ("hr", ["-m", "hr", "--domain", "50"]),
    ("flh", ["-m", "flh", "--domain", "50", "--hash-functions", "64", "--public-seed", "3"]),
    ("cms", ["-m", "cms", "--domain", "50", "--sketch", "8:64", "--public-seed", "3"]),
    ("hcms", ["-m", "hcms", "--domain", "50", "--sketch", "8:64"]),
    ("dbitflip", ["-m", "dbitflip", "--domain", "50", "--sampled-buckets", "4"]),
    ("laplace", ["-m", "laplace", "--range", "-2:6"]),
    ("duchi", ["-m", "duchi", "--range", "0:10", "--frac-bits", "12"]),
    ("laplace-vector", ["-m", "laplace-vector", "--dim", "4", "--range", "-1:1"]),
    ("vector-mean", ["-m", "vector-mean", "--dim", "6", "--radius", "2"]),
    ("vector-mean-laplace", ["-m", "vector-mean", "--dim", "6", "--radius", "2", "--noise", "laplace"]),
    ("l2-ball", ["-m", "l2-ball", "--dim", "6", "--radius", "2"]),
    ("privunitg", ["-m", "privunitg", "--dim", "6", "--radius", "2"]),
    ("projunit", ["-m", "projunit", "--dim", "6", "--radius", "2", "--projection-dim", "3"]),
    ("fastprojunit", ["-m", "fastprojunit", "--dim", "6", "--radius", "2", "--projection-dim", "3"]),
    ("kent", ["-m", "kent", "--range", "-1:1", "--observations", "50"]),
    ("kent-two-stage", ["-m", "kent", "--range", "0:4", "--observations", "400", "--plan", "two-stage",
                        "--round1-out", "{dir}/kent-two-stage.r1.ldpb"]),
    ("kent-m2", ["-m", "kent", "--range", "0:4", "--observations", "100", "--dim", "3", "--plan", "two-stage",
                 "--round1-out", "{dir}/kent-m2.r1.ldpb"]),
    ("kent-m3", ["-m", "kent", "--range", "-2:2", "--observations", "100", "--dim", "3", "--ball", "l2"]),
    ("sparse-projection", ["-m", "sparse-projection", "--dim", "6", "--sparsity", "2", "--radius", "1"]),
    ("winsorized-mean", ["-m", "winsorized-mean", "--dim", "4", "--range", "-1:1", "--observations", "20",
                         "--tau", "0.5", "--round1-out", "{dir}/winsorized-mean.r1.ldpb",
                         "--windows-out", "{dir}/winsorized-mean.windows"]),
]
# Batches that `aggregate` counts without further options (winsorized round 2 needs its windows).
AGGREGATED = {"winsorized-mean": ["--windows", "{dir}/winsorized-mean.windows"]}


def run(ldp, *args):
    result = subprocess.run([ldp, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"ldp {' '.join(args)} exited {result.returncode}:\n{result.stdout}{result.stderr}")


def merge(ldp, work, mechanism, options):
    """Writes <mechanism>-b and -c (batches and states of 400 and 300 devices) and their merge."""
    for part, devices, seed in (("b", "400", "12"), ("c", "300", "13")):
        run(ldp, "simulate", "-e", "1", "-m", mechanism, "--domain", "50", *options, "--devices", devices,
            "--seed", seed, "--data", "uniform", "--out", f"{work}/{mechanism}-{part}.ldpb")
        run(ldp, "aggregate", f"{work}/{mechanism}-{part}.ldpb", "--out", f"{work}/{mechanism}-{part}.ldps")
    run(ldp, "merge", f"{work}/{mechanism}-b.ldps", f"{work}/{mechanism}-c.ldps",
        "--out", f"{work}/{mechanism}-merged.ldps")


def produce(ldp, work):
    """Runs the fixed pipeline in `work` and returns the names of the files it wrote."""
    for name, options in FLEETS:
        opts = [o.format(dir=work) for o in options]
        data = ["--data", "zipf:1.1"] if "--domain" in opts else ["--data", "builtin"]
        run(ldp, "simulate", "-e", "2", *opts, "--devices", "600", "--seed", "11", *data,
            "--out", f"{work}/{name}.ldpb", "--truth-out", f"{work}/{name}.truth.csv")
        batches = sorted(f for f in os.listdir(work) if f.startswith(name + ".") and f.endswith(".ldpb"))
        for batch in batches:
            extra = [o.format(dir=work) for o in AGGREGATED.get(name, [])] if batch == f"{name}.ldpb" else []
            run(ldp, "aggregate", f"{work}/{batch}", *extra, "--out", f"{work}/{batch[:-5]}.ldps")
    # Merges of two states of one mechanism.
    merge(ldp, work, "olh", [])
    merge(ldp, work, "flh", ["--hash-functions", "16", "--public-seed", "4"])
    return sorted(os.listdir(work))


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ldp", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--record", action="store_true")
    args = parser.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    names = produce(args.ldp, args.work)
    got = {n: digest(os.path.join(args.work, n)) for n in names}
    if args.record:
        with open(MANIFEST, "w") as f:
            f.writelines(f"{d}  {n}\n" for n, d in got.items())
        print(f"recorded {len(got)} files in {MANIFEST}")
        return 0
    with open(MANIFEST) as f:
        want = {n: d for d, n in (line.split() for line in f if line.strip())}
    failures = [f"{n}: {'missing' if n not in got else 'differs'}" for n in want if got.get(n) != want[n]]
    failures += [f"{n}: not in the manifest" for n in got if n not in want]
    for line in failures:
        print("FAIL", line)
    print(f"{len(want) - len([f for f in failures if 'manifest' not in f])} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
