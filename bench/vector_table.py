#!/usr/bin/python3
"""Issue 20's vector-mean table on real vectors: error, report bytes and device time per report.

Data (Debian packages, nothing downloaded by this script):
  d = 64:   sklearn's digits (1797 images of 8 x 8 pixels, python3-sklearn);
  d = 784:  28 x 28 grey-scale patches of python3-skimage's sample photographs, cut at stride 8
            (overlapping), a fixed random subset of --n784 of them;
  d = 4096: 64 x 64 patches of the same photographs at stride 16 (overlapping), --n4096 of them.
Colour images are converted to grey with skimage.color.rgb2gray (values in [0, 1]). Each data set is
divided by the largest norm of its vectors, so that all lie in the unit L2 ball (R = 1).

For every d, epsilon and mechanism, `ldp simulate` runs on the .npy matrix with seeds 1..--seeds (pinned
to one core with taskset when --core is given); the table gives the root mean squared L2 error of the
estimated mean over the seeds, the bytes per report in the batch (batch bytes over n: the batch
stores reports without their per-report header; `ldp mechanisms`, printed after each table, gives the
standalone report size) and the device time per report (1 / the "randomize: ... reports/s" rate that
`simulate --threads 1` prints, best of the seeds; the host build's randomizers on one thread).
Closed forms: l2-ball (docs/mechanisms.md B.6) and PrivUnitG's optimal error (B.7), from
bench/vector_accuracy.py. The peer's numbers (apple/ml-projunit) are run outside the repository.

    bench/vector_table.py --ldp build/host/tools/ldp --work /tmp/vector-table --dims 784 --seeds 3 --core 1
"""
import argparse
import json
import math
import os
import re
import subprocess
from typing import Dict, List, Sequence, Tuple

import numpy as np
from skimage import color, io
import skimage.data

from vector_accuracy import l2_ball_second_moment, load_digits, privunitg_second_moment

PHOTOGRAPHS = ["astronaut.png", "brick.png", "camera.png", "cell.png", "chelsea.png", "clock_motion.png",
               "coffee.png", "coins.png", "grass.png", "gravel.png", "hubble_deep_field.jpg", "ihc.png",
               "microaneurysms.png", "moon.png", "motorcycle_left.png", "motorcycle_right.png", "page.png",
               "retina.jpg", "rocket.jpg", "text.png"]

MECHANISMS: Dict[str, List[str]] = {
    "l2-ball": ["-m", "l2-ball"],
    "vector-mean (duchi)": ["-m", "vector-mean"],
    "vector-mean (laplace)": ["-m", "vector-mean", "--noise", "laplace"],
    "privunitg": ["-m", "privunitg"],
    "projunit": ["-m", "projunit"],
    "fastprojunit": ["-m", "fastprojunit"],
}


def grey_images() -> List[np.ndarray]:
    """The sample photographs of python3-skimage as grey-scale arrays with values in [0, 1]."""
    folder = os.path.dirname(skimage.data.__file__)
    images = []
    for name in PHOTOGRAPHS:
        image = io.imread(os.path.join(folder, name))
        images.append(color.rgb2gray(image[..., :3]) if image.ndim == 3 else image / 255.0)
    return images


def patches(side: int, stride: int, count: int) -> np.ndarray:
    """`count` distinct side x side patches (fixed random subset of all those at `stride`), flattened."""
    rows = []
    for image in grey_images():
        for top in range(0, image.shape[0] - side + 1, stride):
            for left in range(0, image.shape[1] - side + 1, stride):
                rows.append(image[top:top + side, left:left + side].reshape(-1))
    every = np.unique(np.array(rows), axis=0)
    chosen = np.random.default_rng(0).permutation(len(every))[:count]
    print(f"{side} x {side} patches at stride {stride}: {len(every)} distinct, {min(count, len(every))} used")
    return every[np.sort(chosen)]


def unit_ball(x: np.ndarray) -> np.ndarray:
    """x divided by the largest row norm."""
    return x / np.linalg.norm(x, axis=1).max()


def run(ldp: str, args: Sequence[str], core: int) -> str:
    """Runs the tool (on one core when core >= 0) and returns its standard output and error."""
    pin = ["taskset", "-c", str(core)] if core >= 0 else []
    done = subprocess.run([*pin, ldp, *args], check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    return done.stdout + done.stderr


def randomize_seconds_per_report(output: str) -> float:
    """1 / the rate of simulate's line "randomize: 24 ms (4.10 M reports/s)"."""
    match = re.search(r"randomize: .*\(([0-9.]+) ([kM]?) ?reports/s\)", output)
    if match is None:
        raise RuntimeError(f"no randomize timing in: {output}")
    return 1 / (float(match.group(1)) * {"": 1, "k": 1e3, "M": 1e6}[match.group(2)])


def measure(ldp: str, work: str, data: str, truth: np.ndarray, options: Sequence[str], epsilon: float,
            seeds: int, core: int) -> Tuple[float, float, float]:
    """(RMS L2 error over seeds, batch bytes per report, best randomize seconds per report)."""
    n, d = np.load(data, mmap_mode="r").shape
    batch, state = os.path.join(work, "v.ldpb"), os.path.join(work, "v.ldps")
    total, best = 0.0, math.inf
    for seed in range(1, seeds + 1):
        out = run(ldp, ["simulate", *options, "--epsilon", str(epsilon), "--dim", str(d), "--radius", "1",
                        "--data", f"npy:{data}", "--seed", str(seed), "--threads", "1", "--out", batch], core)
        best = min(best, randomize_seconds_per_report(out))
        run(ldp, ["aggregate", batch, "--out", state], -1)
        estimate = json.loads(run(ldp, ["estimate", state, "--format", "json"], -1))
        est = np.array([e["estimate"] for e in estimate["estimates"]])
        total += float(np.sum((est - truth) ** 2))
    return math.sqrt(total / seeds), os.path.getsize(batch) / n, best


def available(ldp: str) -> List[str]:
    """The mechanisms of MECHANISMS that this build of the tool knows."""
    listed = run(ldp, ["mechanisms", "--dim", "64", "--epsilon", "1"], -1).split()
    return [name for name, o in MECHANISMS.items() if o[1] == "vector-mean" or o[1] in listed]


def recommended(ldp: str, d: int, epsilon: float, n: int) -> str:
    """The rank-1 mechanism of `ldp mechanisms --dim d --epsilon E --devices n`."""
    out = run(ldp, ["mechanisms", "--dim", str(d), "--epsilon", str(epsilon), "--devices", str(n)], -1)
    match = re.search(r"^\s*1\s+(\S+)", out, re.MULTILINE)
    return match.group(1) if match else "(none)"


def main() -> None:
    """Writes the data sets under --work and prints one markdown table per dimension."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--ldp", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--core", type=int, default=-1, help="pin simulate to this core (taskset)")
    parser.add_argument("--n784", type=int, default=60000)
    parser.add_argument("--n4096", type=int, default=10000)
    parser.add_argument("--dims", default="64,784,4096")
    parser.add_argument("--epsilons", default="0.5,1,2,4,8")
    parser.add_argument("--data-only", action="store_true", help="write the .npy files and stop")
    parser.add_argument("--mechanisms", default="", help="comma-separated names of MECHANISMS to run (default: all)")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    makers = {64: lambda: np.array(load_digits()), 784: lambda: unit_ball(patches(28, 8, args.n784)),
              4096: lambda: unit_ball(patches(64, 16, args.n4096))}
    dims = [int(v) for v in args.dims.split(",")]
    for d in dims:
        path = os.path.join(args.work, f"vectors_{d}.npy")
        if not os.path.exists(path):
            np.save(path, makers[d]())
        x = np.load(path)
        print(f"d = {d}: n = {len(x)}, mean squared norm {np.mean(np.sum(x * x, axis=1)):.4f}, "
              f"norm of the mean {np.linalg.norm(x.mean(axis=0)):.4f}, file {path}")
    if args.data_only:
        return
    names = [m for m in available(args.ldp) if not args.mechanisms or m in args.mechanisms.split(",")]
    for d in dims:
        path = os.path.join(args.work, f"vectors_{d}.npy")
        x = np.load(path)
        n, truth, norms2 = len(x), x.mean(axis=0), float(np.mean(np.sum(x * x, axis=1)))
        print(f"\nd = {d}, n = {n}: L2 error (RMS over {args.seeds} seeds) / report bytes / device µs per report")
        print("| ε | " + " | ".join(f"`{m}`" for m in names) + " | l2-ball closed form | PrivUnitG closed form |")
        print("| --- |" + " --- |" * (len(names) + 2))
        for epsilon in (float(v) for v in args.epsilons.split(",")):
            cells = []
            for name in names:
                err, size, secs = measure(args.ldp, args.work, path, truth, MECHANISMS[name], epsilon,
                                          args.seeds, args.core)
                cells.append(f"{err:.4f} / {size:.0f} / {secs * 1e6:.1f}")
            l2 = math.sqrt((l2_ball_second_moment(d, epsilon) * (1 + d * 2 ** -30) - norms2) / n)
            pug = math.sqrt((privunitg_second_moment(d, epsilon) - norms2) / n)
            print(f"| {epsilon:g} | " + " | ".join(cells) + f" | {l2:.4f} | {pug:.4f} |", flush=True)
            print(f"  recommended: {recommended(args.ldp, d, epsilon, n)}", flush=True)
        print(run(args.ldp, ["mechanisms", "--dim", str(d), "--epsilon", "1", "--devices", str(n)], -1))


if __name__ == "__main__":
    main()
