#!/usr/bin/env python3
"""Tests of the `ldp` command-line tool (docs/cli.md), run by CTest one case at a time:

    test_cli.py --ldp build/host/tools/ldp --work <scratch dir> <case>

Each case runs the real binary and checks its exit code, its output (JSON parsed, CSV parsed) and
the files it writes. Statistical checks use fixed seeds; each states its false-failure probability.
"""
import argparse
import csv
import io
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

LDP = None
WORK = None

# Options of every mechanism the tool simulates, and the number of estimates they give; a mechanism
# listed by `ldp simulate --help` but missing here fails the pipeline case, so new mechanisms
# cannot go untested. Configurations beyond the first of a name (after "/") cover its variants.
MECHANISMS = {
    "grr": (["--domain", "50"], 50),
    "sue": (["--domain", "50"], 50),
    "oue": (["--domain", "50"], 50),
    "blh": (["--domain", "50"], 50),
    "olh": (["--domain", "50"], 50),
    "flh": (["--domain", "50", "--hash-functions", "64"], 50),
    "hr": (["--domain", "50"], 50),
    "cms": (["--domain", "50", "--sketch", "8:64"], 50),
    "hcms": (["--domain", "50", "--sketch", "8:64"], 50),
    "dbitflip": (["--domain", "50", "--sampled-buckets", "4"], 50),
    "laplace": (["--range", "-2:6"], 1),
    "duchi": (["--range", "0:10", "--frac-bits", "12"], 1),
    "laplace-vector": (["--dim", "4", "--range", "-1:1"], 4),
    "kway-marginals": (["--dim", "4", "--order", "2"], 10),
    "smooth-queries": (["--dim", "2", "--degree", "3"], 9),
    "vector-mean": (["--dim", "6", "--radius", "2"], 6),
    "vector-mean/laplace": (["--dim", "6", "--radius", "2", "--noise", "laplace"], 6),
    "l2-ball": (["--dim", "6", "--radius", "2"], 6),
    "privunitg": (["--dim", "6", "--radius", "2"], 6),
    "projunit": (["--dim", "6", "--radius", "2", "--projection-dim", "3"], 6),
    "fastprojunit": (["--dim", "6", "--radius", "2", "--projection-dim", "3"], 6),
    "kent": (["--range", "-1:1", "--observations", "50"], 1),
    "kent/two-stage": (["--range", "0:4", "--observations", "400", "--plan", "two-stage"], 1),
    "sparse-projection": (["--dim", "6", "--sparsity", "2", "--radius", "1"], 6),
    "winsorized-mean": (["--dim", "4", "--range", "-1:1", "--observations", "20", "--tau", "0.5"], 4),
    "square-wave": (["--range", "-2:6", "--buckets", "64"], 64),
    "hierarchical": (["--range", "-2:6", "--buckets", "64"], 64),
    "haar": (["--range", "-2:6", "--buckets", "64"], 64),
}
# The distribution family holds values but its estimates (and truth files) count the reports per
# bucket, item = bucket (docs/cli.md "Distributions and ranges"); test_distribution.py has its queries.
DISTRIBUTIONS = {"square-wave", "hierarchical", "haar"}
# Central DP: a sparse-projection state is released by estimate with the server's noise (these options);
# winsorized-mean releases inside simulate, and its round-2 batch aggregates only with the window
# list (--windows), so the pipeline leaves it to the case_winsorized* cases.
# The (epsilon, delta) release adds discrete Gaussian noise, so RATIO_BOUND's chi-square bound holds
# (projection never increases the error); the pure-DP release is checked in case_sparse_projection.
RELEASE = {"sparse-projection": ["--epsilon", "2", "--delta", "1e-6", "--release-seed", "9"]}
RELEASED_BY_SIMULATE = {"winsorized-mean"}
# The string-discovery mechanisms read text and have their own cases (test_strings.py).
STRINGS = {"pem", "treehist", "sfp"}
# The learners' devices hold labelled examples: `ldp train` runs them, simulate refuses (its own tests).
LEARNERS = {"bernstein", "glm-copies"}
# Users whose reports the batch holds: the second half with two stages (the first half votes).
REPORTING = {"kent/two-stage": 0.5}
WIRE_NAMES = {"vector-mean": "vector-duchi", "vector-mean/laplace": "vector-laplace", "kent": "kent-refine",
              "kent/two-stage": "kent-refine", "sparse-projection": "sparse-projection", "winsorized-mean": "winsorized-sums"}

# The JSON's variance_kind (docs/mechanisms.md 0 "Variance kinds"); the others are exact. The sketches'
# 8 x 64 family over 50 items is dense (16 d > k m), so they keep the average over families.
VARIANCE_KINDS = {"flh": "average", "cms": "average", "hcms": "average", "duchi": "bound", "vector-mean": "bound",
                  "vector-mean/laplace": "bound", "sparse-projection": "bound", "l2-ball": "bound",
                  "privunitg": "bound", "projunit": "average", "fastprojunit": "average", "square-wave": "bootstrap"}

# Bound on RMSE / predicted RMSE over k estimates: each error is about normal with the predicted
# variance (or less: some variances are conservative), so the ratio squared is at most a
# chi-square(k) / k; the bounds give P(chi2_1 > 5.5^2) = 4e-8, P(chi2_4 > 4 * 3.5^2) = 6e-10,
# P(chi2_6 > 6 * 3.2^2) = 1e-11, P(chi2_9 > 9 * 2.9^2) = 1e-12, P(chi2_10 > 10 * 2.8^2) = 1e-12,
# P(chi2_50 > 50 * 2^2) < 1e-20 (chi2_64 alike), allowing for the plug-in variances and the correlation
# of the estimates of one state.
RATIO_BOUND = {1: 5.5, 4: 3.5, 6: 3.2, 9: 2.9, 10: 2.8, 50: 2.0, 64: 2.0}


def is_frequency(config):
    return MECHANISMS[config][1] == 50


def counts_items(config):
    """Whether the estimates are counts of items (frequency oracles) or of buckets (distributions)."""
    return is_frequency(config) or config in DISTRIBUTIONS


class Failure(Exception):
    pass


def check(condition, message):
    if not condition:
        raise Failure(message)


def path(name):
    return os.path.join(WORK, name)


def run(*args, expect=0):
    """Runs ldp; checks the exit code and that nothing crashed. Returns (stdout, stderr)."""
    proc = subprocess.run([LDP, *args], capture_output=True, text=True, timeout=600)
    where = "ldp " + " ".join(args)
    check(proc.returncode >= 0, f"{where}: killed by signal {-proc.returncode}\n{proc.stderr}")
    check(proc.returncode == expect,
          f"{where}: exit code {proc.returncode}, expected {expect}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
    for bad in ("terminate called", "Traceback", "what():", "Aborted", "Segmentation"):
        check(bad not in proc.stderr, f"{where}: crash output on stderr:\n{proc.stderr}")
    return proc.stdout, proc.stderr


def fails(*args, message):
    """ldp must exit 2 with a one-line error naming the problem (a regex on stderr)."""
    _, err = run(*args, expect=2)
    check(re.search(message, err), f"ldp {' '.join(args)}: stderr does not match {message!r}:\n{err}")
    # Progress lines ("aggregate: 25% ...") may precede the error; the error itself is short.
    lines = [line for line in err.strip().splitlines() if not re.match(r"^(simulate|aggregate): ", line)]
    check(len(lines) <= 2, f"ldp {' '.join(args)}: error is not short:\n{err}")


def read(name):
    with open(path(name), "rb") as f:
        return f.read()


def write(name, data):
    with open(path(name), "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)


# ---- Wire format helpers (docs/wire_format.md sections 6, 7) -------------------------------------

def _crc_table():
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC_TABLE = _crc_table()


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc = CRC_TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def split_batch(data):
    """(header bytes, [(records, body)], trailing bytes after the terminator)."""
    check(data[:4] == b"LDPB", "not a batch")
    block = struct.unpack_from("<H", data, 6)[0]
    header_end = 8 + block + 12
    chunks, at = [], header_end
    while True:
        records, length = struct.unpack_from("<II", data, at)
        body = data[at + 8:at + 8 + length]
        at += 8 + length + 4
        if records == 0 and length == 0:
            return data[:header_end], chunks, data[at:]
        chunks.append((records, body))


def chunk_bytes(records, body):
    head = struct.pack("<II", records, len(body)) + body
    return head + struct.pack("<I", crc32c(head))


def join_batch(header, chunks):
    return header + b"".join(chunk_bytes(r, b) for r, b in chunks) + chunk_bytes(0, b"")


def records_of(body, count):
    out, at = [], 0
    for _ in range(count):
        size, shift = 0, 0
        while True:
            b = body[at]
            at += 1
            size |= (b & 0x7F) << shift
            shift += 7
            if b < 0x80:
                break
        out.append((at, size))  # payload offset and size
        at += size
    return out


# ---- Helpers -------------------------------------------------------------------------------------

def simulate(config, out, devices=3000, seed=1, epsilon="2", data=None, extra=()):
    if data is None:
        data = "zipf:1.1" if is_frequency(config) else "builtin"
    args = ["simulate", "--mechanism", config.split("/")[0], "--epsilon", epsilon, *MECHANISMS[config][0],
            "--devices", str(devices), "--data", data, "--seed", str(seed), "--out", path(out), *extra]
    return run(*args)


def estimate_json(state, *extra):
    out, _ = run("estimate", path(state), "--format", "json", *extra)
    return json.loads(out)  # one object, nothing else on stdout


def check_plot(name, bars, truth):
    """A well-formed SVG with one bar, one whisker and (with a truth) one marker per estimate."""
    root = ElementTree.fromstring(read(name))
    ns = "{http://www.w3.org/2000/svg}"
    check(root.tag == ns + "svg", f"{name}: not an SVG document")
    rects = [r for r in root.iter(ns + "rect") if r.get("fill") == "#9ecae1"]
    whiskers = list(root.iter(ns + "path"))
    markers = list(root.iter(ns + "circle"))
    check(len(rects) == bars + 1 and len(whiskers) == bars, f"{name}: {len(rects)} bars, {len(whiskers)} whiskers")
    check(len(markers) == (bars + 1 if truth else 0), f"{name}: {len(markers)} true-value markers")


def listed_mechanisms():
    out, _ = run("simulate", "--help")
    match = re.search(r"mechanism: ([a-z0-9, -]+)", out)
    check(match, f"simulate --help does not list the mechanisms:\n{out}")
    return [m.strip() for m in match.group(1).split(",") if m.strip()]


# ---- Cases ---------------------------------------------------------------------------------------

def case_pipeline():
    """simulate -> inspect -> aggregate -> inspect -> estimate (table, csv, json, truth, plot), for
    every mechanism the tool lists."""
    names = listed_mechanisms()
    missing = [m for m in names if m not in MECHANISMS and m not in STRINGS and m not in LEARNERS]
    check(not missing, f"mechanisms without a test configuration: {missing}")
    for config, (_, size) in MECHANISMS.items():
        check(config.split("/")[0] in names, f"{config} is not listed by simulate --help")
        if config in RELEASED_BY_SIMULATE:
            continue
        release = RELEASE.get(config, [])
        m = config.replace("/", "-")
        wire_name = WIRE_NAMES.get(config, config)
        batch, state, truth = f"{m}.ldpb", f"{m}.ldps", f"{m}.truth.csv"
        n = 3000
        simulate(config, batch, devices=n, extra=["--truth-out", path(truth)])
        with open(path(truth)) as f:
            rows = list(csv.reader(f))
        if counts_items(config):
            check(rows[0] == ["item", "count"] and len(rows) == size + 1, f"{m}: truth header {rows[0]}")
            check(sum(int(r[1]) for r in rows[1:]) == n, f"{m}: truth counts do not sum to {n}")
        else:
            check(rows[0] == ["coordinate", "mean"] and len(rows) == size + 1, f"{m}: truth {rows}")

        out, _ = run("inspect", path(batch), "--records", "2")
        check(f"parameters: {wire_name} " in out and "record 1:" in out, f"{m}: inspect batch:\n{out}")
        n = int(n * REPORTING.get(config, 1))
        check(re.search(rf"records: {n:,} readable, {n:,} valid", out), f"{m}: inspect counts:\n{out}")

        out, _ = run("aggregate", path(batch), "--out", path(state))
        check(f"total: {n:,} reports accepted, 0 rejected" in out, f"{m}: aggregate:\n{out}")
        out, _ = run("inspect", path(state))
        check(f"reports: {n:,} accepted" in out, f"{m}: inspect state:\n{out}")

        j = estimate_json(state, *release)
        for key, kind in (("mechanism", str), ("epsilon", float), ("reports", int), ("rejected", dict),
                          ("estimates", list)):
            check(isinstance(j.get(key), kind), f"{m}: JSON field {key} missing or not {kind.__name__}: {j.get(key)}")
        check(j["mechanism"] == wire_name and j["reports"] == n and j["rejected"] == {}, f"{m}: JSON header {j}")
        check(1.99 < j["epsilon"] <= 2, f"{m}: implemented epsilon {j['epsilon']}")
        check(j["kind"] == ("count" if counts_items(config) else "mean"), f"{m}: kind {j['kind']}")
        want = VARIANCE_KINDS.get(config, "exact")
        check(j.get("variance_kind") == want, f"{m}: variance_kind {j.get('variance_kind')}, expected {want}")
        check(len(j["estimates"]) == size, f"{m}: {len(j['estimates'])} estimates")
        for i, e in enumerate(j["estimates"]):
            check(e["item"] == i, f"{m}: estimates not in item order")
            check(e["ci_low"] <= e["estimate"] <= e["ci_high"] and e["variance"] > 0, f"{m}: bad estimate {e}")

        top = min(5, size)
        listed = estimate_json(state, "--top", str(top), "--truth", path(truth), *release)
        values = [e["estimate"] for e in listed["estimates"]]
        check(len(values) == top and values == sorted(values, reverse=True), f"{m}: --top {top} gives {values}")
        err = listed["error"]
        ratio = err["rmse"] / err["predicted_rmse"]
        check(ratio < RATIO_BOUND[size], f"{m}: RMSE {err['rmse']} vs predicted {err['predicted_rmse']}")
        # Over 50 items a ratio below 0.5 needs chi2_50 < 12.5 (p < 1e-9): a variance formula far too
        # large is a defect too.
        check(size < 50 or ratio > 0.5, f"{m}: RMSE {err['rmse']} far below predicted {err['predicted_rmse']}")

        out, _ = run("estimate", path(state), "--format", "csv", "--top", "3", *release)
        rows = list(csv.reader(io.StringIO(out)))
        item = "item" if counts_items(config) else "coordinate"
        check(rows[0] == [item, "estimate", "variance", "ci_low", "ci_high"] and len(rows) == min(3, size) + 1,
              f"{m}: csv:\n{out}")
        out, _ = run("estimate", path(state), "--top", "3", "--truth", path(truth), "--plot", path(f"{m}.svg"), *release)
        check("RMSE" in out and "95% CI" in out, f"{m}: table:\n{out}")
        check_plot(f"{m}.svg", bars=min(3, size), truth=True)


def case_determinism():
    """The same seed gives the same batch bytes whatever the thread count; another seed differs."""
    for m in ("oue", "olh", "hcms", "laplace", "vector-mean"):
        simulate(m, "a.ldpb", devices=10000, seed=5, extra=["--threads", "1"])
        simulate(m, "b.ldpb", devices=10000, seed=5, extra=["--threads", "3"])
        simulate(m, "c.ldpb", devices=10000, seed=6, extra=["--threads", "2"])
        check(read("a.ldpb") == read("b.ldpb"), f"{m}: batch depends on the thread count")
        check(read("a.ldpb") != read("c.ldpb"), f"{m}: batch does not depend on the seed")


def case_merge():
    """Aggregating split batches and merging the states (in either order) gives the bytes of one
    aggregation of everything."""
    for m in ("grr", "olh", "cms", "duchi", "laplace-vector", "vector-mean/laplace"):
        simulate(m, "a.ldpb", devices=5000, seed=1)
        simulate(m, "b.ldpb", devices=7000, seed=2, data="uniform")
        run("aggregate", path("a.ldpb"), "--out", path("a.ldps"))
        run("aggregate", path("b.ldpb"), "--out", path("b.ldps"))
        run("aggregate", path("a.ldpb"), path("b.ldpb"), "--out", path("ab.ldps"))
        out, _ = run("merge", path("a.ldps"), path("b.ldps"), "--out", path("m1.ldps"))
        check("12,000 reports accepted" in out, f"{m}: merge output:\n{out}")
        run("merge", path("b.ldps"), path("a.ldps"), "--out", path("m2.ldps"))
        check(read("m1.ldps") == read("ab.ldps") == read("m2.ldps"), f"{m}: merged state differs")
        check(estimate_json("m1.ldps")["reports"] == 12000, f"{m}: merged report count")


def case_rejected_records():
    """A record with an out-of-range payload (chunk CRC recomputed) is rejected and counted by
    reason; a chunk with a broken CRC is one damaged chunk (its records unknown, issue 21); every
    other report counts."""
    n = 10000
    simulate("grr", "ok.ldpb", devices=n, seed=3)
    header, chunks, _ = split_batch(read("ok.ldpb"))
    check(len(chunks) >= 3, f"expected several chunks, got {len(chunks)}")
    records, body = chunks[0]
    offset, size = records_of(body, records)[10]
    check(size == 1, "a GRR d=50 payload is one index byte")
    body = body[:offset] + bytes([200]) + body[offset + 1:]  # 200 >= d: out_of_range
    chunks[0] = (records, body)
    damaged = join_batch(header, chunks)
    # Flip a byte inside the second chunk's body without fixing its CRC.
    second = len(header) + 8 + len(body) + 4 + 8 + 5
    damaged = damaged[:second] + bytes([damaged[second] ^ 0x40]) + damaged[second + 1:]
    write("bad.ldpb", damaged)
    lost = chunks[1][0]

    out, _ = run("aggregate", path("bad.ldpb"), "--out", path("bad.ldps"))
    check(f"total: {n - 1 - lost:,} reports accepted, 1 rejected, 1 damaged chunk (records unknown)" in out,
          f"aggregate:\n{out}")
    check("out_of_range" in out, f"reasons not printed:\n{out}")
    j = estimate_json("bad.ldps")
    check(j["reports"] == n - 1 - lost, f"reports {j['reports']}")
    check(j["rejected"] == {"out_of_range": 1} and j["damaged_chunks"] == 1, f"rejected {j['rejected']}")
    out, _ = run("inspect", path("bad.ldpb"))
    check("CRC32C does not match" in out and "out_of_range" in out, f"inspect:\n{out}")


def case_truncated():
    """A batch cut short is an error (exit 2, no state); --keep-partial counts the whole chunks."""
    simulate("oue", "ok.ldpb", devices=10000, seed=4)
    data = read("ok.ldpb")
    header, chunks, _ = split_batch(data)
    cut = len(header) + sum(8 + len(b) + 4 for _, b in chunks[:2]) + 100  # inside the third chunk
    write("cut.ldpb", data[:cut])
    fails("aggregate", path("cut.ldpb"), "--out", path("cut.ldps"), message=r"cut\.ldpb.*truncated or damaged")
    check(not os.path.exists(path("cut.ldps")), "a failed aggregate wrote its state")
    _, err = run("aggregate", path("cut.ldpb"), "--keep-partial", "--out", path("cut.ldps"))
    check("warning" in err, f"no warning:\n{err}")
    check(estimate_json("cut.ldps")["reports"] == chunks[0][0] + chunks[1][0], "partial count")
    write("tail.ldpb", data + b"\x00")  # a byte after the terminator
    fails("aggregate", path("tail.ldpb"), "--out", path("t.ldps"), message=r"wrong_length")
    for name in os.listdir(WORK):
        check(".tmp-" not in name, f"temporary file left behind: {name}")


def case_bad_arguments():
    base = ["simulate", "--devices", "100", "--data", "uniform", "--seed", "1", "--out", path("x.ldpb")]
    fails(*base, "-m", "nope", "-e", "1", "-d", "10", message=r"unknown mechanism 'nope' \(known: grr")
    fails(*base, "-m", "grr", "-e", "0", "-d", "10", message=r"--epsilon must be in \(0, 40\]")
    fails(*base, "-m", "grr", "-e", "41", "-d", "10", message=r"--epsilon")
    fails(*base, "-m", "grr", "-e", "abc", "-d", "10", message=r"epsilon")
    fails(*base, "-m", "grr", "-e", "1", message=r"grr needs --domain")
    fails(*base, "-m", "grr", "-e", "1", "-d", "1", message=r"--domain must be at least 2")
    fails(*base, "-m", "grr", "-e", "1", "-d", "10", "--hash-range", "4", message=r"--hash-range does not apply to")
    fails(*base, "-m", "olh", "-e", "1", "-d", "10", "--hash-range", "1", message=r"--hash-range must be")
    fails(*base, "-m", "cms", "-e", "1", "-d", "10", "--sketch", "16", message=r"--sketch must be k:m")
    fails(*base, "-m", "cms", "-e", "1", "-d", "10", "--sketch", "0:64", message=r"--sketch must be k:m")
    fails(*base, "-m", "hcms", "-e", "1", "-d", "10", "--sketch", "4:1000", message=r"power-of-two")
    fails(*base, "-m", "oue", "-e", "1", "-d", "20000000", message=r"cannot build a oue block")
    fails(*base, "-m", "laplace", "-e", "1", message=r"laplace needs --range")
    fails(*base, "-m", "laplace", "-e", "1", "--range", "5:1", message=r"--range must be lo:hi with lo < hi")
    fails(*base, "-m", "laplace", "-e", "1", "--range", "a:b", message=r"--range must be lo:hi")
    fails(*base, "-m", "laplace", "-e", "1", "--range", "0:1", "-d", "4", message=r"--domain does not apply to")
    fails(*base, "-m", "duchi", "-e", "1", "--range", "0:1e9", message=r"cannot build a duchi block")
    fails(*base, "-m", "duchi", "-e", "1", "--range", "0:1", "--frac-bits", "63", message=r"--frac-bits must be")
    fails(*base, "-m", "laplace-vector", "-e", "1", "--range", "0:1", message=r"needs --dim d --range")
    fails(*base, "-m", "vector-mean", "-e", "1", "--dim", "4", "--radius", "0", message=r"--radius must be positive")
    fails(*base, "-m", "vector-mean", "-e", "1", "--dim", "4", "--radius", "1", "--noise", "gauss",
          message=r"--noise")
    fails(*base, "-m", "vector-mean", "-e", "1", "--dim", "4", "--radius", "1", "--beta", "1",
          message=r"--beta must be in \(0, 1\)")
    fails(*base, "-m", "vector-mean", "-e", "1", "--dim", "4", "--radius", "1", "--range", "0:1",
          message=r"--range does not apply to --mechanism vector-mean")
    numeric = ["simulate", "-m", "laplace", "-e", "1", "--range", "0:1", "--devices", "10", "--seed", "1", "--out",
               path("x.ldpb")]
    fails(*numeric, "--data", "zipf:1", message=r"zipf:<s> describes items")
    fails("simulate", "-m", "grr", "-e", "1", "-d", "10", "--data", "uniform", "--seed", "1", "--out",
          path("x.ldpb"), message=r"needs --devices")
    data = ["simulate", "-m", "grr", "-e", "1", "-d", "10", "--devices", "100", "--seed", "1", "--out", path("x.ldpb")]
    fails(*data, "--data", "zipf:x", message=r"zipf:<s> needs an exponent")
    fails(*data, "--data", "zipf:-1", message=r"zipf:<s> needs an exponent")
    fails(*data, "--data", "gauss", message=r"unknown --data 'gauss'")
    fails("simulate", "-m", "grr", "-e", "1", "-d", "10", "--devices", "100", "--data", "uniform", "--seed", "1",
          "--out", "/nonexistent/dir/x.ldpb", message=r"cannot create batch file /nonexistent/dir/x\.ldpb")
    fails("mechanisms", "--domain", "1", "--epsilon", "1", message=r"--domain must be at least 2")
    fails("mechanisms", "--domain", "10", "--epsilon", "-1", message=r"epsilon")
    fails("estimate", path("none.ldps"), "--format", "xml", message=r"format")
    fails(message=r"subcommand")
    fails("frobnicate", message=r"frobnicate|subcommand")
    fails("demo", "--devices", "0", message=r"--devices must be at least 1")
    check(not os.path.exists(path("x.ldpb")), "a failed simulate wrote its batch")


def case_bad_files():
    simulate("grr", "g.ldpb", devices=2000)
    simulate("oue", "o.ldpb", devices=2000)
    run("aggregate", path("g.ldpb"), "--out", path("g.ldps"))
    run("aggregate", path("o.ldpb"), "--out", path("o.ldps"))
    batch, state = read("g.ldpb"), read("g.ldps")

    fails("aggregate", path("missing.ldpb"), "--out", path("s.ldps"), message=r"cannot open batch file .*missing\.ldpb")
    fails("aggregate", WORK, "--out", path("s.ldps"), message=r"is a directory")
    write("magic.ldpb", b"LDPX" + batch[4:])
    fails("aggregate", path("magic.ldpb"), "--out", path("s.ldps"), message=r"not a readable batch.*malformed_report")
    write("hdr.ldpb", batch[:10] + bytes([batch[10] ^ 1]) + batch[11:])
    fails("aggregate", path("hdr.ldpb"), "--out", path("s.ldps"), message=r"not a readable batch")
    write("empty.ldpb", b"")
    fails("aggregate", path("empty.ldpb"), "--out", path("s.ldps"), message=r"not a readable batch.*wrong_length")
    fails("aggregate", path("g.ldpb"), path("o.ldpb"), "--out", path("s.ldps"), message=r"other parameters")
    fails("aggregate", path("g.ldps"), "--out", path("s.ldps"), message=r"aggregator state, not a batch")

    write("trunc.ldps", state[:-5])
    fails("estimate", path("trunc.ldps"), message=r"not a readable aggregator state: wrong_length")
    write("flip.ldps", state[:-3] + bytes([state[-3] ^ 1]) + state[-2:])
    fails("estimate", path("flip.ldps"), message=r"checksum_mismatch")
    fails("estimate", path("missing.ldps"), message=r"cannot open state file")
    fails("estimate", path("g.ldpb"), message=r"is a batch, not an aggregator state")
    fails("merge", path("g.ldps"), path("o.ldps"), "--out", path("m.ldps"), message=r"other parameters")
    fails("merge", path("g.ldps"), path("trunc.ldps"), "--out", path("m.ldps"), message=r"trunc\.ldps")
    write("wrong.csv", "item,count\n0,5\n999,3\n")
    fails("estimate", path("g.ldps"), "--truth", path("wrong.csv"), message=r"wrong\.csv line 3")
    write("garbage.bin", b"hello, world")
    fails("inspect", path("garbage.bin"), message=r"not a batch \(LDPB\), a state \(LDPS\) or a version-1 report")
    fails("inspect", path("trunc.ldps"), message=r"wrong_length")
    check(not os.path.exists(path("s.ldps")) and not os.path.exists(path("m.ldps")), "failed commands wrote files")


def case_csv_data():
    """csv:<path>:<column> by header name and by number; items outside the domain name the line."""
    rows = ["user,emoji"] + [f"u{i},{(i * 7) % 13}" for i in range(500)]
    write("data.csv", "\n".join(rows) + "\n")
    for column in ("emoji", "2"):
        run("simulate", "-m", "grr", "-e", "1", "-d", "13", "--data", f"csv:{path('data.csv')}:{column}", "--seed",
            "1", "--out", path("c.ldpb"), "--truth-out", path("t.csv"))
        with open(path("t.csv")) as f:
            truth = {int(r["item"]): int(r["count"]) for r in csv.DictReader(f)}
        expected = {v: sum(1 for i in range(500) if (i * 7) % 13 == v) for v in range(13)}
        check(truth == expected, f"column {column}: truth {truth}")
    run("simulate", "-m", "grr", "-e", "1", "-d", "13", "--data", f"csv:{path('data.csv')}:emoji", "--devices", "100",
        "--seed", "1", "--out", path("c.ldpb"))
    run("aggregate", path("c.ldpb"), "--out", path("c.ldps"))
    check(estimate_json("c.ldps")["reports"] == 100, "--devices takes the first rows")
    common = ["simulate", "-m", "grr", "-e", "1", "--seed", "1", "--out", path("c.ldpb")]
    fails(*common, "-d", "5", "--data", f"csv:{path('data.csv')}:emoji", message=r"data\.csv line 3: item 7 is not")
    fails(*common, "-d", "13", "--data", f"csv:{path('data.csv')}:nope", message=r"no column named 'nope'")
    fails(*common, "-d", "13", "--data", f"csv:{path('data.csv')}:1", message=r"'u0' is not a number|not a number")
    fails(*common, "-d", "13", "--data", f"csv:{path('data.csv')}:emoji", "--devices", "501", message=r"only 500")
    fails(*common, "-d", "13", "--data", f"csv:{path('none.csv')}", message=r"cannot open CSV file")

    # Reals: a scalar column, and vectors from consecutive columns; the truth is the clamped mean.
    write("values.csv", "a,b,c\n1.5,2,3\n-4,5,6\n100,8,9\n")
    run("simulate", "-m", "laplace", "-e", "1", "--range", "-2:10", "--data", f"csv:{path('values.csv')}:a",
        "--seed", "1", "--out", path("v.ldpb"), "--truth-out", path("v.csv"))
    with open(path("v.csv")) as f:
        rows = list(csv.reader(f))
    check(rows[0] == ["coordinate", "mean"] and abs(float(rows[1][1]) - (1.5 - 2 + 10) / 3) < 1e-12,
          f"scalar truth {rows}")
    run("simulate", "-m", "laplace-vector", "-e", "1", "--dim", "2", "--range", "0:7", "--data",
        f"csv:{path('values.csv')}:b", "--seed", "1", "--out", path("v.ldpb"), "--truth-out", path("v.csv"))
    with open(path("v.csv")) as f:
        rows = list(csv.reader(f))
    means = [float(r[1]) for r in rows[1:]]
    check(len(means) == 2 and abs(means[0] - 14 / 3) < 1e-12 and abs(means[1] - 16 / 3) < 1e-12, f"vector truth {rows}")
    fails("simulate", "-m", "laplace-vector", "-e", "1", "--dim", "3", "--range", "0:7", "--data",
          f"csv:{path('values.csv')}:b", "--seed", "1", "--out", path("v.ldpb"), message=r"line 2: needs 3 field")


def case_inspect_report():
    """A single report (header + one batch record) decodes with --params; a damaged one names its
    status."""
    simulate("hcms", "h.ldpb", devices=100)
    header, chunks, _ = split_batch(read("h.ldpb"))
    records, body = chunks[0]
    offset, size = records_of(body, records)[0]
    mech = header[8 + 1]  # the block's mechanism id
    fingerprint = header[-12:-4]
    write("r.bin", bytes([1, mech]) + fingerprint + body[offset:offset + size])
    out, _ = run("inspect", path("r.bin"))
    check("mechanism hcms" in out and "--params" in out, f"inspect report:\n{out}")
    out, _ = run("inspect", path("r.bin"), "--params", path("h.ldpb"))
    check(re.search(r"fields: row=\d+ column=\d+ sign=[+-]1", out), f"inspect --params:\n{out}")
    write("r2.bin", bytes([1, mech]) + fingerprint + body[offset:offset + size] + b"\x00")
    fails("inspect", path("r2.bin"), "--params", path("h.ldpb"), message=r"wrong_length")


def case_kent():
    """The user-level protocol: two stages write the round-1 vote batch on request (its state
    counts the votes per cell) and the round-2 batch; the single stage has no round 1."""
    n = 4000
    out, _ = simulate("kent/two-stage", "r2.ldpb", devices=n, extra=["--round1-out", path("r1.ldpb"), "--truth-out",
                                                                    path("t.csv")])
    check("plan: two stages" in out and "broadcast interval" in out, f"kent output:\n{out}")
    run("aggregate", path("r1.ldpb"), "--out", path("r1.ldps"))
    run("aggregate", path("r2.ldpb"), "--out", path("r2.ldps"))
    votes, refine = estimate_json("r1.ldps"), estimate_json("r2.ldps", "--truth", path("t.csv"))
    check(votes["mechanism"] == "kent-vote" and votes["kind"] == "count", f"votes {votes['mechanism']}")
    check(votes["reports"] + refine["reports"] == n and votes["reports"] == n // 2, "users split in halves")
    check(refine["parameters"]["interval_lo"] >= refine["parameters"]["clip_lo"], "interval inside the range")
    # Observations are i.i.d. Kumaraswamy(2, 5) on [0, 4] (mean 4 * 0.36940 = 1.4776): the local means of T = 400
    # sit within 0.05 of it with overwhelming probability, so the broadcast interval contains them
    # and the estimate is unbiased with the stated variance (the bound 5.5 of RATIO_BOUND: 4e-8).
    check(abs(refine["error"]["rmse"]) < 5.5 * refine["error"]["predicted_rmse"], f"kent error {refine['error']}")
    check(abs(refine["estimates"][0]["true"] - 1.4776) < 0.01, f"truth {refine['estimates'][0]}")
    fails("simulate", "-m", "kent", "-e", "1", "--range", "-1:1", "--observations", "50", "--plan", "single-stage",
          "--devices", "100", "--data", "builtin", "--seed", "1", "--out", path("x.ldpb"), "--round1-out", path("y.ldpb"),
          message=r"single-stage plan has no round 1")
    fails("simulate", "-m", "kent", "-e", "1", "--range", "-1:1", "--devices", "100", "--data", "builtin", "--seed",
          "1", "--out", path("x.ldpb"), message=r"kent needs --range lo:hi --observations T")
    fails("simulate", "-m", "kent", "-e", "1", "--range", "-1:1", "--observations", "5", "--plan", "three",
          "--devices", "100", "--data", "builtin", "--seed", "1", "--out", path("x.ldpb"), message=r"--plan")
    fails("simulate", "-m", "grr", "-e", "1", "-d", "4", "--devices", "100", "--data", "builtin", "--seed", "1",
          "--out", path("x.ldpb"), "--round1-out", path("y.ldpb"), message=r"--round1-out applies to --mechanism kent")


def case_kent_folds():
    """M2 (--dim d, l-infinity ball) and M3 (--ball l2, rotated) run in simulate: every fold's two
    rounds, the fold batches with a .fold<f> suffix, the d estimates printed and written as
    estimate's JSON with --release-out; bad option combinations exit 2."""
    n = 6000
    base = ["simulate", "-m", "kent", "-e", "1", "--observations", "400", "--devices", str(n), "--data", "builtin",
            "--seed", "3"]
    out, _ = run(*base, "--range", "0:4", "--dim", "3", "--plan", "two-stage", "--out", path("m2.ldpb"),
                 "--round1-out", path("v.ldpb"), "--truth-out", path("m2.csv"), "--release-out", path("m2.json"))
    check("kent (M2, l-infinity ball)" in out and "3 folds" in out and "3 coordinates" in out, f"M2 output:\n{out}")
    for f in range(3):
        check(os.path.exists(path(f"m2.fold{f}.ldpb")) and os.path.exists(path(f"v.fold{f}.ldpb")), f"fold {f} batches")
    j = json.loads(read("m2.json"))
    check(j["mechanism"] == "kent-refine" and j["kind"] == "mean" and j["size"] == 3 and j["reports"] == n // 2,
          f"M2 json {j}")
    check(j["release"]["method"] == "M2" and j["release"]["folds"] == 3 and 0.99 < j["epsilon"] <= 1, f"M2 {j}")
    # Each fold's state holds its coordinate (a batch of its own): the one-coordinate estimate of
    # fold 1's batch is the combined estimate of coordinate 1 (M2 does not mix the folds).
    run("aggregate", path("m2.fold1.ldpb"), "--out", path("m2.fold1.ldps"))
    one = estimate_json("m2.fold1.ldps")
    check(abs(one["estimates"][0]["estimate"] - j["estimates"][1]["estimate"]) < 1e-9, f"fold 1 {one['estimates']}")
    # Observations are i.i.d. Kumaraswamy(2, 5) on [0, 4] per coordinate (as in case_kent): the local
    # means of T = 400 lie in the broadcast interval, so coordinate j's error is the mean of the
    # 1,000 refiners' discrete Laplace noises (plus their local means' spread, about 1e-3 of the
    # noise's standard deviation). Chernoff with the Laplace MGF at lambda b = 0.134: P(|mean| > 6 sd)
    # < 2 e^-17.8 = 4e-8 per coordinate (false failure below 1.2e-7 for the three).
    for e in j["estimates"]:
        check(abs(e["estimate"] - e["true"]) <= 6 * e["variance"] ** 0.5 and e["variance"] > 0, f"M2 estimate {e}")
        check(abs(e["true"] - 1.4776) < 0.01 and e["ci_low"] < e["estimate"] < e["ci_high"], f"M2 estimate {e}")

    out, _ = run(*base, "--range", "-1:1", "--dim", "3", "--ball", "l2", "--out", path("m3.ldpb"), "--truth-out",
                 path("m3.csv"), "--release-out", path("m3.json"))
    check("kent (M3, l2 ball, rotated)" in out and "d~ = 4" in out, f"M3 output:\n{out}")
    j = json.loads(read("m3.json"))
    check(j["size"] == 3 and j["release"]["method"] == "M3" and j["release"]["folds"] == 4, f"M3 json {j}")
    check(j["parameters"]["hadamard_dim"] == 4 and os.path.exists(path("m3.fold3.ldpb")), f"M3 json {j}")
    # Builtin data scaled by 1/sqrt(3) (inside the unit ball): the rotated local means of T = 400
    # lie in their folds' intervals, and coordinate j's error is +-1/2 times the sum of the 4 folds'
    # mean noises (each a mean of at least 750 discrete Laplace noises), with the printed variance:
    # the Chernoff bound above, with more terms, gives below 4e-8 per coordinate at 6 sd.
    for e in j["estimates"]:
        check(abs(e["estimate"] - e["true"]) <= 6 * e["variance"] ** 0.5 and e["variance"] > 0, f"M3 estimate {e}")
    with open(path("m3.csv")) as f:
        rows = list(csv.reader(f))[1:]
    check(len(rows) == 3 and all(abs(float(r[1]) + (1 - 2 * 0.3694) / 3 ** 0.5) < 0.01 for r in rows), f"M3 truth {rows}")

    bad = ["simulate", "-m", "kent", "-e", "1", "--observations", "50", "--devices", "100", "--data", "builtin",
           "--seed", "1", "--out", path("x.ldpb")]
    fails(*bad, "--range", "0:1", "--dim", "3", "--ball", "l2", message=r"--ball l2 needs --range -R:R")
    fails(*bad, "--range", "-1:1", "--ball", "l2", message=r"--ball applies to kent with --dim d > 1 only")
    fails(*bad, "--range", "-1:1", "--dim", "1", "--ball", "linf", message=r"--ball applies")
    fails(*bad, "--range", "-1:1", "--dim", "3", "--ball", "l1", message=r"--ball")
    fails(*bad, "--range", "-1:1", "--dim", "0", message=r"--dim must be at least 1")
    fails(*bad, "--range", "-1:1", "--dim", "3", "--public-seed", "2", message=r"--public-seed applies")
    fails(*bad, "--range", "-1:1", "--release-out", path("y.json"), message=r"--release-out applies to kent with --dim")
    fails(*bad, "--range", "-1:1", "--dim", "3", "--plan", "single-stage", "--round1-out", path("y.ldpb"),
          message=r"single-stage plan has no round 1")
    fails("simulate", "-m", "grr", "-e", "1", "-d", "4", "--devices", "100", "--data", "builtin", "--seed", "1",
          "--out", path("x.ldpb"), "--release-out", path("y.json"), message=r"--release-out applies to")


def case_sparse_projection():
    """Central DP, Ghazi et al.: the devices send their s largest coordinates clipped to the ball,
    the state holds exact sums, and estimate prints only the server's release (projected onto the
    l1 ball), never the exact sums."""
    n, d = 5000, 6
    simulate("sparse-projection", "s.ldpb", devices=n, extra=["--truth-out", path("s.csv")])
    run("aggregate", path("s.ldpb"), "--out", path("s.ldps"))
    fails("estimate", path("s.ldps"), message=r"needs --epsilon E \[--delta D\] --release-seed S")
    fails("estimate", path("s.ldps"), "--epsilon", "1", message=r"needs --epsilon E")
    fails("estimate", path("s.ldps"), "--epsilon", "1", "--delta", "1.5", "--release-seed", "1",
          message=r"--delta must be in \[0, 1\)")
    with open(path("s.csv")) as f:
        truth = [float(r[1]) for r in list(csv.reader(f))[1:]]
    for delta, noise in (("0", "discrete Laplace"), ("1e-6", "discrete Gaussian")):
        j = estimate_json("s.ldps", "--epsilon", "1", "--delta", delta, "--release-seed", "4")
        rel = j["release"]
        check(j["mechanism"] == "sparse-projection" and j["reports"] == n and 0.99 < j["epsilon"] <= 1, f"header {j}")
        check(j["delta"] == float(delta) and rel["noise"] == noise and len(j["estimates"]) == d, f"release {rel}")
        est = [e["estimate"] for e in j["estimates"]]
        raw = rel["unprojected"]
        # Deterministic facts of the projection (docs/mechanisms.md C.3): the output is in the l1 ball of
        # radius L sqrt(s); for a true mean in the ball (it is) the projection never increases the l2
        # error, and its squared error is at most 2 L sqrt(s) ||z||_inf (z = unprojected - true).
        check(sum(abs(v) for v in est) <= rel["l1_radius"] * (1 + 1e-12), f"outside the l1 ball: {est}")
        err2 = sum((a - b) ** 2 for a, b in zip(est, truth))
        raw2 = sum((a - b) ** 2 for a, b in zip(raw, truth))
        zinf = max(abs(a - b) for a, b in zip(raw, truth))
        check(err2 <= raw2 * (1 + 1e-9) + 1e-24, f"projection increased the error: {err2} > {raw2}")
        check(err2 <= 2 * rel["l1_radius"] * zinf * (1 + 1e-9) + 1e-24, f"Lemma 3.1 bound fails: {err2}")
        # The noise per coordinate: discrete Laplace of scale b (variance 2 b^2, P(|z| >= k b) <=
        # e^-k) or the discrete Gaussian; |z| > 11.5 sd = 16.26 b has probability below 6 e^-16.26 =
        # 5.2e-7 for the six Laplace coordinates (far less for the Gaussian): false failure < 1e-6.
        check(zinf <= 11.5 * rel["noise_variance"] ** 0.5, f"noise too large: {zinf} vs {rel['noise_variance']}")
    first = estimate_json("s.ldps", "--epsilon", "1", "--release-seed", "4")
    again = estimate_json("s.ldps", "--epsilon", "1", "--release-seed", "4")
    other = estimate_json("s.ldps", "--epsilon", "1", "--release-seed", "5")
    check(again["estimates"] == first["estimates"], "the release is not a function of --release-seed")
    check(again["estimates"] != other["estimates"], "the release does not depend on --release-seed")
    out, _ = run("estimate", path("s.ldps"), "--epsilon", "1", "--release-seed", "4")
    check("central-DP release (projection mechanism" in out, f"table:\n{out}")
    fails("estimate", path("s.ldps"), "--epsilon", "0", "--release-seed", "1", message=r"--epsilon must be in")
    base = ["simulate", "-m", "sparse-projection", "-e", "1", "--devices", "100", "--data", "uniform", "--seed", "1",
            "--out", path("x.ldpb")]
    fails(*base, "--dim", "6", "--sparsity", "7", "--radius", "1", message=r"--sparsity must be in \[1, --dim\]")
    fails(*base, "--dim", "6", "--sparsity", "0", "--radius", "1", message=r"--sparsity must be in")
    fails(*base, "--dim", "6", "--sparsity", "2", message=r"sparse-projection needs --dim d --sparsity s --radius L")
    fails(*base, "--dim", "6", "--sparsity", "2", "--radius", "1", "--range", "0:1", message=r"--range does not apply")
    fails(*base, "--dim", "6", "--sparsity", "2", "--radius", "1", "--release-out", path("r.json"),
          message=r"--release-out applies to --mechanism winsorized-mean")
    simulate("laplace", "l.ldpb", devices=100)
    run("aggregate", path("l.ldpb"), "--out", path("l.ldps"))
    fails("estimate", path("l.ldps"), "--release-seed", "1", message=r"--release-seed applies to central-DP states")


def case_winsorized():
    """Central DP, Levy et al.: simulate runs both rounds (round 1 in memory or --round1-out, the
    windows, round 2 into --out) and prints the server's release, also as estimate's JSON with
    --release-out; the round-2 batch and both states refuse to give non-private estimates."""
    n = 4000
    out, _ = simulate("winsorized-mean", "w2.ldpb", devices=n, data="uniform",
                      extra=["--round1-out", path("w1.ldpb"), "--truth-out", path("w.csv"), "--release-out",
                             path("w.json")])
    check("PrivateRange chose" in out and "central-DP release (WinsorizedMeanHighD" in out, f"output:\n{out}")
    j = json.loads(read("w.json"))
    check(j["mechanism"] == "winsorized-sums" and j["kind"] == "mean" and j["reports"] == n, f"release {j}")
    check(1.99 < j["epsilon"] <= 2 and j["delta"] == 0 and j["release"]["users"] == n, f"release {j}")
    with open(path("w.csv")) as f:
        truth = [float(r[1]) for r in list(csv.reader(f))[1:]]
    check(len(j["estimates"]) == 4 and len(truth) == 4, f"{len(j['estimates'])} estimates")
    # Uniform samples on [-1, 1], m = 20: every user's rotated mean lies within 7.7 standard
    # deviations (0.13) of the data's center, inside the +-3 tau window of any bin PrivateRange picks
    # with probability above 1 - e^-250, so nothing is clipped (below 2e-10 over 16,000 values) and
    # each coordinate's error is +-1/d~ times a sum of d~ = 4 i.i.d. discrete Laplace noises of
    # scale b ~ 1e5 grid units (variance 8 b^2 for the sum): the Chernoff bound with the Laplace MGF
    # 1 / (1 - lambda^2 b^2) at lambda b = 0.8 puts P(|sum| > 9 sd) below 2 * 59.5 e^-20.4 = 1.7e-7
    # per coordinate (false failure below 1e-6 for the four).
    for e, t in zip(j["estimates"], truth):
        check(abs(e["estimate"] - t) <= 9 * e["variance"] ** 0.5 and e["variance"] > 0, f"estimate {e} vs {t}")
        check(e["ci_low"] < e["estimate"] < e["ci_high"], f"interval {e}")
    again, _ = simulate("winsorized-mean", "w2b.ldpb", devices=n, data="uniform", extra=["--release-out", path("w2.json")])
    def values(name):
        return [e["estimate"] for e in json.loads(read(name))["estimates"]]
    check(read("w2b.ldpb") == read("w2.ldpb") and values("w2.json") == values("w.json"),
          "the simulation and release are not a function of the seed")
    simulate("winsorized-mean", "w3.ldpb", devices=n, data="uniform", seed=2, extra=["--release-out", path("w3.json")])
    check(values("w3.json") != values("w.json"), "the release does not depend on --seed")

    out, _ = run("aggregate", path("w1.ldpb"), "--out", path("w1.ldps"))
    check(f"total: {n:,} reports accepted, 0 rejected" in out, f"round 1:\n{out}")
    fails("estimate", path("w1.ldps"), message=r"winsorized-bins state: its exact sums are not private")
    fails("aggregate", path("w2.ldpb"), "--out", path("w2.ldps"), message=r"round-2 batch: counting it needs")
    base = ["simulate", "-m", "winsorized-mean", "-e", "1", "--devices", "100", "--data", "uniform", "--seed", "1",
            "--out", path("x.ldpb")]
    fails(*base, "--dim", "4", "--range", "-1:1", message=r"winsorized-mean needs --dim d --range lo:hi --observations m")
    fails(*base, "--dim", "4", "--range", "-1:1", "--observations", "0", message=r"--observations must be at least 1")
    fails(*base, "--dim", "4", "--range", "-1:1", "--observations", "5", "--tau", "-1", message=r"--tau must be positive")
    fails(*base, "--dim", "4", "--range", "-1:1", "--observations", "5", "--delta", "1", message=r"--delta must be in")
    fails(*base, "--dim", "4", "--range", "-1:1", "--observations", "5", "--sparsity", "2",
          message=r"--sparsity does not apply")
    fails(*base, "--dim", "4", "--range", "1:-1", "--observations", "5", message=r"--range must be lo:hi")


WINSORIZED = ["simulate", "-m", "winsorized-mean", "--dim", "4", "--range", "-1:1", "--observations", "20", "--tau",
              "0.5", "--data", "uniform"]


def winsorized(out, n, seed=1, epsilon="2", extra=()):
    """simulate --mechanism winsorized-mean on uniform data; returns stdout."""
    stdout, _ = run(*WINSORIZED, "-e", epsilon, "--devices", str(n), "--seed", str(seed), "--out", path(out), *extra)
    return stdout


def check_noise(j, truth, sds, where):
    """Every released coordinate within `sds` noise standard deviations of the truth, and its
    interval around it (the false-failure bound is the caller's)."""
    check(len(j["estimates"]) == len(truth), f"{where}: {len(j['estimates'])} estimates")
    for e, t in zip(j["estimates"], truth):
        check(e["variance"] > 0 and abs(e["estimate"] - t) <= sds * e["variance"] ** 0.5, f"{where}: {e} vs {t}")
        check(e["ci_low"] < e["estimate"] < e["ci_high"], f"{where}: interval {e}")


def truth_values(name):
    with open(path(name)) as f:
        return [float(r[1]) for r in list(csv.reader(f))[1:]]


def case_winsorized_windows():
    """--window paper gives the paper's +-2 tau windows and safe (the default) +-3 tau, printed, in
    the round-2 block and in the release; the noise scales with the window width. --budget paper is
    the paper's smaller epsilon' and refuses a calibration that overspends."""
    n = 2000
    common = ["--delta", "1e-6", "--release-out"]
    outs, jsons = {}, {}
    for window in ("safe", "paper"):
        extra = common + [path(f"{window}.json")] + (["--window", window] if window == "paper" else [])
        outs[window] = winsorized(f"{window}.ldpb", n, extra=extra)
        jsons[window] = json.loads(read(f"{window}.json"))
    for window, factor in (("safe", 3), ("paper", 2)):
        j = jsons[window]
        p = j["parameters"]
        check(p["window_half_width"] == factor * p["bin_half_width"], f"{window}: block {p}")
        match = re.search(r"half width w = (\d+) tau = (\d+) grid units \(--window (\w+)\)", outs[window])
        check(match and int(match.group(1)) == factor and int(match.group(2)) == p["window_half_width"] and
              match.group(3) == window, f"{window}: printed window:\n{outs[window]}")
        check(j["release"]["window_rule"] == window and f"{window} windows" in outs[window], f"{window}: {j['release']}")
    # The same tau and epsilon': the discrete Laplace scale on each sum is 2 w / (epsilon' / 2) grid
    # units (rounded to the sampler's rational), so paper / safe = 2/3 up to that rounding.
    safe, paper = jsons["safe"]["release"], jsons["paper"]["release"]
    check(abs(safe["epsilon_coordinate"] - paper["epsilon_coordinate"]) < 1e-9, f"epsilon' differs: {safe} {paper}")
    ratio = paper["sum_noise_scale"] / safe["sum_noise_scale"]
    check(abs(ratio - 2 / 3) < 1e-6, f"noise scale ratio paper/safe {ratio}")

    # --budget: the paper's epsilon / sqrt(8 d~ ln(1/delta)) per coordinate is below the tight one,
    # whose composition spends the whole epsilon; the paper's spends less and says so.
    winsorized("bp.ldpb", n, extra=["--delta", "1e-6", "--budget", "paper", "--release-out", path("bp.json")])
    bp = json.loads(read("bp.json"))
    d = 4
    check(abs(bp["release"]["epsilon_coordinate"] - 2 / (8 * d * math.log(1e6)) ** 0.5) < 1e-6 and
          bp["release"]["budget_rule"] == "paper", f"paper budget {bp['release']}")
    check(bp["release"]["epsilon_coordinate"] < safe["epsilon_coordinate"] and bp["epsilon"] < 1.9 and
          1.99 < jsons["safe"]["epsilon"] <= 2, f"paper {bp['epsilon']} vs tight {jsons['safe']['epsilon']}")
    fails(*WINSORIZED, "-e", "40", "--delta", "0.9", "--budget", "paper", "--devices", "100", "--seed", "1", "--out",
          path("x.ldpb"), message=r"--budget paper gives epsilon' .* above --epsilon 40")
    fails(*WINSORIZED, "-e", "1", "--window", "wide", "--devices", "100", "--seed", "1", "--out", path("x.ldpb"),
          message=r"--window")
    fails("simulate", "-m", "laplace", "-e", "1", "--range", "0:1", "--window", "paper", "--devices", "10", "--data",
          "uniform", "--seed", "1", "--out", path("x.ldpb"), message=r"--window does not apply to --mechanism laplace")


def case_winsorized_queries():
    """--queries K runs K queries over the same users, each with a fresh rotation and its own
    windows, window list, batches and release seed, at the per-coordinate epsilon of the session
    (smaller than one query's), and writes every release."""
    n, k = 2000, 3
    winsorized("one.ldpb", n, extra=["--delta", "1e-6", "--release-out", path("one.json")])
    out = winsorized("q.ldpb", n, extra=["--delta", "1e-6", "--queries", str(k), "--release-out", path("q.json"),
                                         "--windows-out", path("q.windows"), "--round1-out", path("q1.ldpb"),
                                         "--truth-out", path("q.csv")])
    one = json.loads(read("one.json"))
    j = json.loads(read("q.json"))
    check(j["mechanism"] == "winsorized-sums" and len(j["queries"]) == k, f"session {list(j)}")
    check(1.99 < j["epsilon"] <= 2 and j["delta"] == 0, f"session loss {j['epsilon']} {j['delta']}")
    for q in range(k):
        for name in (f"q.query{q}.ldpb", f"q.query{q}.windows", f"q1.query{q}.ldpb"):
            check(os.path.exists(path(name)), f"{name} missing")
        check(f"query {q} of {k}: rotation signs from --public-seed 0 index {q}" in out, f"query {q}:\n{out}")
    check(not os.path.exists(path("q.ldpb")), "--out written without the .query<q> suffix")
    rels = [x["release"] for x in j["queries"]]
    check(all(r["queries"] == k and r["users"] == n and r["composition"] == "basic" for r in rels), f"releases {rels}")
    # epsilon' of the session: basic composition epsilon / (K d~) here (it beats the advanced one at
    # K d~ = 12), a third of one query's epsilon / d~.
    eps = rels[0]["epsilon_coordinate"]
    check(all(r["epsilon_coordinate"] == eps for r in rels) and abs(eps - 2 / 12) < 1e-6, f"epsilon' {eps}")
    check(abs(one["release"]["epsilon_coordinate"] - 3 * eps) < 1e-6, f"one query {one['release']}")
    check(len({r["release_seed"] for r in rels}) == k, "queries share a release seed")
    check(len({x["fingerprint"] for x in j["queries"]}) == k, "queries share a rotation (same round-2 block)")
    check(j["queries"][0]["release"]["release_seed"] == one["release"]["release_seed"], "query 0 is not the K = 1 release")
    # As case_winsorized: no clipping, and each coordinate's error is a sum of d~ = 4 discrete
    # Laplace noises; P(|sum| > 10 sd) < 2 * 59.5 e^-22.6 = 1.8e-8 per coordinate by the Chernoff
    # bound there (lambda b = 0.8), so the 12 coordinates fail falsely with probability < 2.2e-7.
    truth = truth_values("q.csv")
    for q, x in enumerate(j["queries"]):
        check_noise(x, truth, 10, f"query {q}")
    fails(*WINSORIZED, "-e", "1", "--queries", "0", "--devices", "100", "--seed", "1", "--out", path("x.ldpb"),
          message=r"--queries must be at least 1")


def case_winsorized_default_tau():
    """Levy et al. Cor. 1 (mechanisms.md C.2 "The default tau (Cor. 1)"): without --tau the bins
    come from tau = (hi - lo) sqrt(d ln(2 n d / gamma) / (2 m)), capped at the whole box, printed;
    with many samples it gives far less noise than the whole box and still clips nobody."""
    n, d, m = 2000, 4, 400
    base = ["simulate", "-m", "winsorized-mean", "-e", "2", "--dim", str(d), "--range", "-1:1", "--devices", str(n),
            "--data", "uniform", "--seed", "5"]

    def session(name, *extra):
        out, _ = run(*base, "--observations", str(m), "--out", path(name + ".ldpb"), "--truth-out",
                     path(name + ".csv"), "--release-out", path(name + ".json"), *extra)
        with open(path(name + ".csv")) as f:
            truth = [float(r[1]) for r in list(csv.reader(f))[1:]]
        return out, json.loads(read(name + ".json")), truth

    def bin_width(out):
        return int(re.search(r"round 1: .*\(d=4 d~=4 tau=(\d+) ", out).group(1))

    tau = 2 * math.sqrt(d * math.log(2 * n * d / 1e-3) / (2 * m))  # 0.576
    out, default, truth = session("cor1")
    printed = re.search(r"tau: the users' means lie within ([0-9.e+-]+) \(l2\) of the population mean except with "
                        r"probability 0.001 \(Levy et al. Cor. 1 from m = 400", out)
    check(printed and abs(float(printed.group(1)) - tau) < 1e-5 * tau, f"tau line:\n{out}")
    # tau' = min(tau, tau sqrt(2 ln(2 d~ n / beta) / d~)) = tau here; the bins' half width is tau' sqrt(d~) 2^16.
    check(bin_width(out) == math.ceil(tau * 2 * 65536), f"bin half width {bin_width(out)}")
    # Uniform samples: each user's mean lies within 7 of its standard deviations (0.029 per
    # coordinate) of the centre, well inside tau = 0.576 (l2) and so inside the +-3 tau window of
    # any bin PrivateRange picks with probability above 1 - e^-250 (as case_winsorized): nothing is
    # clipped and the 9-sd bound of case_winsorized applies (false failure below 1e-6).
    check_noise(default, truth, 9, "Cor. 1 tau")
    # The whole box, given explicitly (the default before Cor. 1): the same data, wider bins, and a
    # noise variance larger by the squared ratio of the widths (up to the grid's rounding).
    out_box, box, _ = session("box", "--tau", "2")
    check("tau: the users' means" not in out_box, "an explicit --tau printed the Cor. 1 line")
    ratio = (bin_width(out_box) / bin_width(out)) ** 2
    for a, b in zip(default["estimates"], box["estimates"]):
        check(abs(b["variance"] / a["variance"] - ratio) < 1e-3 * ratio and ratio > 10, f"variances {a} {b}")
    # gamma enters the logarithm; few samples give the whole box's radius, 2 sqrt(d) / 2 = 2.
    out, _, _ = session("gamma", "--gamma", "0.5")
    tau_half = 2 * math.sqrt(d * math.log(2 * n * d / 0.5) / (2 * m))
    check(f"within {tau_half:.6g} (l2)" in out and "probability 0.5 " in out, f"--gamma 0.5:\n{out}")
    out, _ = run(*base, "--observations", "20", "--out", path("few.ldpb"))
    check("within 2 (l2)" in out, f"m = 20:\n{out}")
    for bad in ("0", "1", "-0.1"):
        fails(*base, "--observations", "5", "--gamma", bad, "--out", path("x.ldpb"),
              message=r"--gamma must be in \(0, 1\)")
    fails("simulate", "-m", "grr", "-e", "1", "-d", "10", "--gamma", "0.1", "--devices", "10", "--data", "uniform",
          "--seed", "1", "--out", path("x.ldpb"), message=r"--gamma does not apply")


def case_winsorized_offline():
    """The offline pipeline: simulate --windows-out, aggregate --windows (the state carries the list,
    merges), estimate --release-seed on the round-2 state gives simulate's release exactly; bad
    window lists and missing options are refused with exit 2."""
    n = 2000
    out = winsorized("w.ldpb", n, extra=["--windows-out", path("w.windows"), "--round1-out", path("w1.ldpb"),
                                         "--release-out", path("w.json"), "--truth-out", path("w.csv")])
    sim = json.loads(read("w.json"))
    seed = sim["release"]["release_seed"]
    check(f"release seed {seed} (ldp estimate STATE --epsilon 2 --delta 0 --release-seed {seed}" in out, f"simulate:\n{out}")
    listed = run("aggregate", path("w.ldpb"), "--windows", path("w.windows"), "--out", path("w.ldps"))[0]
    check(f"total: {n:,} reports accepted, 0 rejected" in listed, f"aggregate:\n{listed}")
    est = estimate_json("w.ldps", "--epsilon", "2", "--release-seed", str(seed), "--truth", path("w.csv"))
    check(est == sim, f"the release of the saved state differs from simulate's:\n{est}\n{sim}")
    other = estimate_json("w.ldps", "--epsilon", "2", "--release-seed", str(seed + 1))
    check(other["estimates"] != sim["estimates"], "the release does not depend on --release-seed")
    # --queries K at estimate: the session's smaller epsilon' (and a larger noise).
    k3 = estimate_json("w.ldps", "--epsilon", "2", "--queries", "3", "--release-seed", str(seed))
    check(abs(k3["release"]["epsilon_coordinate"] * 3 - sim["release"]["epsilon_coordinate"]) < 1e-6 and
          k3["release"]["queries"] == 3 and k3["release"]["sum_noise_scale"] > sim["release"]["sum_noise_scale"],
          f"--queries 3: {k3['release']}")
    # Many queries with delta > 0: one advanced composition over K d~ = 800 mechanisms beats basic
    # composition epsilon / 800 and spends the whole epsilon at the session's delta.
    adv = estimate_json("w.ldps", "--epsilon", "2", "--delta", "1e-6", "--queries", "200", "--release-seed", str(seed))
    check(adv["release"]["composition"] == "advanced" and adv["delta"] == 1e-6 and 1.99 < adv["epsilon"] <= 2 and
          adv["release"]["epsilon_coordinate"] > 2 / 800, f"--queries 200: {adv['epsilon']} {adv['release']}")
    # --users: users lost between the rounds count as their window's midpoint; n stays public.
    more = estimate_json("w.ldps", "--epsilon", "2", "--release-seed", str(seed), "--users", str(n + 10))
    check(more["release"]["users"] == n + 10 and more["reports"] == n, f"--users: {more['release']}")
    # The state carries the window list: it merges and loads like any state.
    run("merge", path("w.ldps"), path("w.ldps"), "--allow-duplicates", "--out", path("ww.ldps"))
    twice = estimate_json("ww.ldps", "--epsilon", "2", "--release-seed", str(seed))
    check(twice["reports"] == 2 * n, f"merge: {twice['reports']} reports")
    out, _ = run("inspect", path("w.ldps"))
    check(f"reports: {n:,} accepted" in out, f"inspect:\n{out}")

    fails("aggregate", path("w.ldpb"), "--out", path("x.ldps"),
          message=r"round-2 batch: counting it needs the broadcast window list, --windows F")
    winsorized("o.ldpb", 200, extra=["--public-seed", "9", "--windows-out", path("o.windows")])
    fails("aggregate", path("w.ldpb"), "--windows", path("o.windows"), "--out", path("x.ldps"),
          message=r"o.windows is not the window list of .*w.ldpb: its digest is not the block's window_digest")
    write("cut.windows", read("w.windows")[:-1])
    fails("aggregate", path("w.ldpb"), "--windows", path("cut.windows"), "--out", path("x.ldps"),
          message=r"is not a window list for .*wrong_length")
    write("long.windows", read("w.windows") + b"\0")
    fails("aggregate", path("w.ldpb"), "--windows", path("long.windows"), "--out", path("x.ldps"),
          message=r"window list file .* is too large")
    fails("aggregate", path("w1.ldpb"), "--windows", path("w.windows"), "--out", path("x.ldps"),
          message=r"--windows applies to winsorized-mean round-2 \(winsorized-sums\) batches only")
    check(not os.path.exists(path("x.ldps")), "a refused aggregate wrote its state")
    run("aggregate", path("w1.ldpb"), "--out", path("w1.ldps"))
    fails("estimate", path("w1.ldps"), "--epsilon", "2", "--release-seed", "1",
          message=r"winsorized-bins state: its exact sums are not private, and it has no release")
    fails("estimate", path("w.ldps"), "--epsilon", "2", message=r"needs --epsilon E \[--delta D\] \[--queries K\]")
    fails("estimate", path("w.ldps"), "--epsilon", "2", "--release-seed", "1", "--users", str(n - 1),
          message=r"--users 1999 is below the state's 2000 reports")
    fails("estimate", path("w.ldps"), "--epsilon", "2", "--release-seed", "1", "--queries", "0",
          message=r"--queries must be at least 1")
    simulate("sparse-projection", "s.ldpb", devices=100)
    run("aggregate", path("s.ldpb"), "--out", path("s.ldps"))
    fails("estimate", path("s.ldps"), "--epsilon", "1", "--release-seed", "1", "--queries", "2",
          message=r"--queries applies to winsorized-mean round-2 \(winsorized-sums\) states only")
    fails("simulate", "-m", "grr", "-e", "1", "-d", "4", "--devices", "10", "--data", "builtin", "--seed", "1",
          "--out", path("x.ldpb"), "--windows-out", path("x.windows"), message=r"--windows-out applies to --mechanism winsorized-mean only")


def case_mechanisms():
    out, _ = run("mechanisms", "--domain", "1000", "--epsilon", "2", "--devices", "100000")
    check("oue" in out and "olh" in out, f"mechanisms:\n{out}")
    out, _ = run("mechanisms", "--domain", "1000", "--epsilon", "2", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    check(len(rows) == 9 and rows[0]["rank"] == "1", f"csv:\n{out}")
    variances = [float(r["variance/report"]) for r in rows]
    check(variances == sorted(variances), "ranked best first")
    out, _ = run("mechanisms", "--domain", "4", "--epsilon", "3", "--format", "csv")
    check(next(csv.DictReader(io.StringIO(out)))["mechanism"] == "grr", "GRR wins for d < 3 e^eps + 2")
    # Vectors (docs/mechanisms.md B.6-B.8): at d = 784 privunitg first, its variance 6.33 d (B.7's table), then
    # the projected members (k = d here: their variance within 0.1 % of PrivUnitG's), then l2-ball, its
    # variance (pi d / 2) ((e + 1)/(e - 1))^2 to within the large-d approximation of c_d.
    out, _ = run("mechanisms", "--dim", "784", "--epsilon", "1", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    check([r["mechanism"] for r in rows] ==
          ["privunitg", "fastprojunit", "projunit", "l2-ball", "vector-duchi", "vector-laplace"], f"vectors:\n{out}")
    check(rows[0]["report bytes"] == "1578" and rows[3]["report bytes"] == "1578", f"report bytes:\n{out}")
    check(rows[1]["report bytes"] == str(10 + 8 + 2 * 784), f"projunit report bytes:\n{out}")
    check(abs(float(rows[0]["variance/report"]) / (6.33 * 784) - 1) < 1e-2, f"privunitg variance:\n{out}")
    for row in rows[1:3]:
        check(abs(float(row["variance/report"]) / float(rows[0]["variance/report"]) - 1) < 1e-3,
              f"{row['mechanism']} variance:\n{out}")
    expected = math.pi * 784 / 2 * ((math.e + 1) / (math.e - 1)) ** 2
    check(abs(float(rows[3]["variance/report"]) / expected - 1) < 2e-3, f"l2-ball variance:\n{out}")
    refused("mechanisms", "--domain", "10", "--dim", "4", "--epsilon", "1", message=r"exactly one of")


def case_demo():
    """The demo runs end to end and, timings aside, prints the same thing twice."""
    def steady(text):
        return [line for line in text.splitlines() if not line.startswith("throughput")]
    a, _ = run("demo", "--devices", "30000", "--plot", path("demo.svg"))
    b, _ = run("demo", "--devices", "30000", "--plot", path("demo2.svg"), "--threads", "1")
    for needle in ("30,000 simulated devices", "top 10 items", "95% CI", "RMSE", "closed-form prediction",
                   "throughput", "plot: "):
        check(needle in a, f"demo output lacks {needle!r}:\n{a}")
    check(steady(a) == [line.replace("demo2.svg", "demo.svg") for line in steady(b)], "demo output is not deterministic")
    check(read("demo.svg") == read("demo2.svg"), "demo plot is not deterministic")
    check_plot("demo.svg", bars=10, truth=True)
    out, _ = run("demo", "--devices", "20000", "--mechanism", "hr", "--epsilon", "1", "--plot", "")
    check("mechanism: hr" in out and "plot:" not in out, f"demo with options:\n{out}")


# ---- Issue 21: hostile and careless input ---------------------------------------------------------

def refused(*args, message):
    """fails(), refused up front (in seconds), and the error names what it refused without echoing
    megabytes."""
    where = "ldp " + " ".join(a[:60] for a in args)
    try:
        proc = subprocess.run([LDP, *args], capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        raise Failure(f"{where}: still running after 60 s instead of refusing")
    err = proc.stderr
    check(proc.returncode == 2, f"{where}: exit code {proc.returncode}, expected 2\n{proc.stdout[:2000]}\n{err[:2000]}")
    check(re.search(message, err), f"{where}: stderr does not match {message!r}:\n{err[:2000]}")
    check(len(err) < 2000, f"{where}: error of {len(err)} bytes")


def case_same_file():
    """Finding 4: an output that is an input, or another output, is refused before any work (exit 2,
    both options named), by identity: the same string, another spelling, or a hard link."""
    simulate("grr", "b.ldpb", devices=2000, extra=["--truth-out", path("t.csv")])
    run("aggregate", path("b.ldpb"), "--out", path("s.ldps"))
    batch, state, truth = read("b.ldpb"), read("s.ldps"), read("t.csv")
    os.link(path("s.ldps"), path("link.ldps"))
    os.makedirs(path("sub"))
    other = os.path.join(WORK, "sub", "..", "s.ldps")
    grr = ["simulate", "-m", "grr", "-e", "1", "-d", "10", "-n", "100", "--seed", "1"]
    refused("aggregate", path("b.ldpb"), "--out", path("b.ldpb"), message=r"--out .*b\.ldpb.*same file as.*batch")
    refused("estimate", path("s.ldps"), "--plot", path("s.ldps"), message=r"--plot .*same file as.*state")
    refused("estimate", path("s.ldps"), "--plot", path("link.ldps"), message=r"--plot .*same file as")
    refused("estimate", path("s.ldps"), "--truth", path("t.csv"), "--plot", path("t.csv"), message=r"--plot.*--truth")
    refused("merge", path("s.ldps"), "--out", other, message=r"--out .*same file as")
    refused("merge", path("s.ldps"), "--out", path("link.ldps"), message=r"--out .*same file as")
    refused(*grr, "--data", "uniform", "--out", path("f.ldpb"), "--truth-out", path("f.ldpb"),
            message=r"--truth-out .*same file as --out|--out .*same file as --truth-out")
    refused(*grr, "--data", "uniform", "--out", path("f.ldpb"), "--truth-out", os.path.join(WORK, "sub", "..", "f.ldpb"),
            message=r"same file as")
    write("d.csv", "1\n2\n3\n")
    refused("simulate", "-m", "grr", "-e", "1", "-d", "10", "--seed", "1", "--data", f"csv:{path('d.csv')}",
            "--out", path("d.csv"), message=r"--out .*same file as --data")
    refused("simulate", "-m", "kent", "-e", "1", "--range", "-1:1", "--observations", "10", "--dim", "2", "-n", "100",
            "--data", "uniform", "--seed", "1", "--out", path("k.ldpb"), "--truth-out", path("k.fold1.ldpb"),
            message=r"same file as")
    refused("simulate", "-m", "winsorized-mean", "-e", "1", "--dim", "2", "--range", "-1:1", "--observations", "5",
            "--queries", "2", "-n", "100", "--data", "uniform", "--seed", "1", "--out", path("w.ldpb"),
            "--truth-out", path("w.query1.ldpb"), message=r"same file as")
    check(read("b.ldpb") == batch and read("s.ldps") == state and read("t.csv") == truth, "an input was overwritten")
    check(not os.path.exists(path("f.ldpb")) and not os.path.exists(path("k.fold0.ldpb")) and
          not os.path.exists(path("w.query0.ldpb")), "a refused command wrote files")


def case_integer_options():
    """Finding 5: integer options are range-checked, never wrapped."""
    base = ["simulate", "-m", "grr", "-e", "1", "-d", "10", "--data", "uniform", "--seed", "1", "--out", path("x.ldpb")]
    refused(*base, "--devices", "-1", message=r"--devices.*non-negative integer")
    refused(*base, "--devices", "18446744073709551616", message=r"--devices.*(too large|at most)")
    refused(*base, "--devices", "10", "--threads", "-2", message=r"--threads")
    refused(*base, "--devices", "10", "--threads", "4294967296", message=r"--threads")
    refused(*base, "--devices", "10", "--threads", "100000", message=r"--threads must be at most 1024")
    refused("simulate", "-m", "grr", "-e", "1", "-d", "10", "--data", "uniform", "--devices", "10", "--out",
            path("x.ldpb"), "--seed", "9" * 100000, message=r"--seed.*(too large|at most)")
    refused("simulate", "-m", "grr", "-e", "1", "-d", "-10", "--data", "uniform", "--devices", "10", "--seed", "1",
            "--out", path("x.ldpb"), message=r"--domain.*non-negative integer")
    refused("simulate", "-m", "laplace-vector", "-e", "1", "--dim", "-1", "--range", "0:1", "--data", "uniform",
            "--devices", "10", "--seed", "1", "--out", path("x.ldpb"), message=r"--dim")
    refused("simulate", "-m", "kent", "-e", "1", "--range", "0:1", "--observations", "-5", "--data", "uniform",
            "--devices", "10", "--seed", "1", "--out", path("x.ldpb"), message=r"--observations")
    refused("simulate", "-m", "sparse-projection", "-e", "1", "--dim", "4", "--sparsity", "-1", "--radius", "1",
            "--data", "uniform", "--devices", "10", "--seed", "1", "--out", path("x.ldpb"), message=r"--sparsity")
    refused("simulate", "-m", "winsorized-mean", "-e", "1", "--dim", "2", "--range", "0:1", "--observations", "5",
            "--queries", "-1", "--data", "uniform", "--devices", "10", "--seed", "1", "--out", path("x.ldpb"),
            message=r"--queries")
    refused("mechanisms", "--domain", "10", "--epsilon", "1", "--devices", "-1", message=r"--devices")
    refused("demo", "--top", "-1", message=r"--top")
    refused("inspect", path("x.ldpb"), "--records", "-1", message=r"--records")
    check(not os.path.exists(path("x.ldpb")), "a refused simulate wrote its batch")
    simulate("grr", "g.ldpb", devices=100)
    run("aggregate", path("g.ldpb"), "--out", path("g.ldps"))
    refused("estimate", path("g.ldps"), "--top", "-1", message=r"--top.*non-negative integer")


def case_tiny_epsilon():
    """Finding 6: an epsilon so small that the integer thresholds implement epsilon <= 0 is refused,
    naming the smallest usable epsilon."""
    for m in ("grr", "sue", "oue", "blh", "olh", "flh", "hr", "cms", "hcms"):
        refused("simulate", "-m", m, "-e", "1e-12", "-d", "10", "--data", "uniform", "--devices", "10", "--seed", "1",
                "--out", path("x.ldpb"), message=r"smallest usable epsilon.* is about [0-9.e-]+")
    refused("simulate", "-m", "duchi", "-e", "1e-12", "--range", "0:1", "--data", "uniform", "--devices", "10",
            "--seed", "1", "--out", path("x.ldpb"), message=r"smallest usable epsilon")
    check(not os.path.exists(path("x.ldpb")), "a refused simulate wrote its batch")
    # The smallest usable epsilon the message names works, and implements a positive level.
    _, err = run("simulate", "-m", "grr", "-e", "1e-12", "-d", "10", "--data", "uniform", "--devices", "10", "--seed",
                 "1", "--out", path("x.ldpb"), expect=2)
    smallest = re.search(r"is about ([0-9.e-]+)", err).group(1)
    out, _ = run("simulate", "-m", "grr", "-e", smallest, "-d", "10", "--data", "uniform", "--devices", "10",
                 "--seed", "1", "--out", path("x.ldpb"))
    implemented = float(re.search(r"implemented ([0-9.e-]+)\)", out).group(1))
    check(implemented > 0, f"epsilon {smallest}: implemented {implemented}")
    # The protocols refuse before any user reports, with the smallest epsilon they accept, which runs.
    protocols = {
        "kent": ["--range", "-1:1", "--observations", "50", "--data", "builtin"],
        "kent/m2": ["--range", "0:4", "--dim", "3", "--observations", "50", "--data", "builtin"],
        "winsorized-mean": ["--dim", "4", "--range", "-1:1", "--observations", "20", "--tau", "0.5", "--data", "uniform"],
    }
    for name, options in protocols.items():
        base = ["simulate", "-m", name.split("/")[0], *options, "--devices", "100", "--seed", "1", "--out", path("p.ldpb")]
        out, err = run(*base, "-e", "1e-12", expect=2)
        check("round 1" not in out, f"{name}: round 1 ran before the refusal:\n{out}")
        match = re.search(r"smallest usable epsilon for these parameters is about ([0-9.e-]+)", err)
        check(match, f"{name}: no smallest epsilon in {err!r}")
        run(*base, "-e", match.group(1))


def case_hygiene():
    """Finding 7: memory bound of simulate, stdout failures, stale temporary files, untrusted bytes
    in messages, bounded truth and CSV reads, long output names."""
    refused("simulate", "-m", "grr", "-e", "1", "-d", str(2 ** 27), "--data", "uniform", "--devices", "10", "--seed",
            "1", "--out", path("x.ldpb"), message=r"--max-state-bytes")
    run("simulate", "-m", "grr", "-e", "1", "-d", "1000", "--data", "uniform", "--devices", "10", "--seed", "1",
        "--out", path("x.ldpb"), "--max-state-bytes", "100000")
    refused("simulate", "-m", "grr", "-e", "1", "-d", "1000", "--data", "uniform", "--devices", "10", "--seed", "1",
            "--out", path("x.ldpb"), "--max-state-bytes", "1000", message=r"--max-state-bytes")

    with open("/dev/full", "w") as full:
        proc = subprocess.run([LDP, "mechanisms", "--domain", "10", "--epsilon", "1"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    check(proc.returncode == 2 and "standard output" in proc.stderr,
          f"stdout to /dev/full: exit {proc.returncode}, stderr {proc.stderr!r}")

    # A temporary file of a killed run (its writer's pid is dead, not modified for an hour) is
    # removed when ldp writes into that directory; one of a live writer or a recent one is kept.
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale, live, young = path(f".ldp-{dead.pid}.aaaaaa"), path(f".ldp-{os.getpid()}.bbbbbb"), path(f".ldp-{dead.pid}.cccccc")
    for name in (stale, live, young):
        write(os.path.basename(name), b"partial")
    hour_ago = os.path.getmtime(stale) - 3600
    os.utime(stale, (hour_ago, hour_ago))
    os.utime(live, (hour_ago, hour_ago))
    _, err = run("aggregate", path("x.ldpb"), "--out", path("x.ldps"))
    check(not os.path.exists(stale) and "removed stale temporary file" in err, f"stale temp file kept: {err}")
    check(os.path.exists(live) and os.path.exists(young), "a live or recent temporary file was removed")
    leftovers = [n for n in os.listdir(WORK) if n.startswith(".ldp-") and n not in (os.path.basename(live), os.path.basename(young))]
    check(not leftovers, f"temporary files left: {leftovers}")

    # Untrusted bytes in a message are escaped: no raw control bytes reach the terminal.
    write("evil.csv", b"item\n\x1b[31mred\x07\xff\n")
    proc = subprocess.run([LDP, "simulate", "-m", "grr", "-e", "1", "-d", "10", "--data", f"csv:{path('evil.csv')}",
                           "--seed", "1", "--out", path("e.ldpb")], capture_output=True, timeout=60)
    check(proc.returncode == 2, f"evil CSV: exit {proc.returncode}")
    check(b"\x1b" not in proc.stderr and b"\x07" not in proc.stderr and b"\xff" not in proc.stderr and
          b"\\x1b" in proc.stderr, f"raw bytes in the message: {proc.stderr!r}")
    evil_name = "bad\x1b]0;title\x07.ldps"
    proc = subprocess.run([LDP, "estimate", path(evil_name)], capture_output=True, timeout=60)
    check(proc.returncode == 2 and b"\x1b" not in proc.stderr and b"\x07" not in proc.stderr,
          f"raw bytes of a file name in the message: {proc.stderr!r}")

    # Bounded reads: an endless truth file or CSV is refused, not read until memory runs out.
    refused("estimate", path("x.ldps"), "--truth", "/dev/zero", message=r"truth file /dev/zero.*(too long|bytes)")
    refused("simulate", "-m", "grr", "-e", "1", "-d", "10", "--data", "csv:/dev/zero", "--seed", "1", "--out",
            path("z.ldpb"), message=r"CSV file /dev/zero.*(too long|bytes)")

    # Output names of up to 255 bytes (NAME_MAX) work: the temporary name does not extend them.
    for length in (245, 255):
        name = "n" * (length - 5) + ".ldps"
        run("aggregate", path("x.ldpb"), "--out", path(name))
        check(read(name) == read("x.ldps"), f"a {length}-byte output name")


# ---- Hostile inputs (issue 21; docs/security_model.md "Memory contract") ----------------------------

MASK64 = (1 << 64) - 1


def siphash24(key, data):
    """SipHash-2-4 (docs/wire_format.md 3.4: the parameter fingerprint)."""
    def rotl(x, b):
        return ((x << b) | (x >> (64 - b))) & MASK64

    k0, k1 = struct.unpack("<QQ", key)
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def rounds(n):
        for _ in range(n):
            v[0] = (v[0] + v[1]) & MASK64; v[1] = rotl(v[1], 13); v[1] ^= v[0]; v[0] = rotl(v[0], 32)
            v[2] = (v[2] + v[3]) & MASK64; v[3] = rotl(v[3], 16); v[3] ^= v[2]
            v[0] = (v[0] + v[3]) & MASK64; v[3] = rotl(v[3], 21); v[3] ^= v[0]
            v[2] = (v[2] + v[1]) & MASK64; v[1] = rotl(v[1], 17); v[1] ^= v[2]; v[2] = rotl(v[2], 32)

    tail = len(data) % 8
    for at in range(0, len(data) - tail, 8):
        m = struct.unpack_from("<Q", data, at)[0]
        v[3] ^= m
        rounds(2)
        v[0] ^= m
    last = (len(data) & 0xFF) << 56
    for i in range(tail):
        last |= data[len(data) - tail + i] << (8 * i)
    v[3] ^= last
    rounds(2)
    v[0] ^= last
    v[2] ^= 0xFF
    rounds(4)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def with_domain(block, domain):
    """The block with its domain field (tag 1, the first field: docs/wire_format.md 3.1) replaced."""
    check(block[3] == 1, "the block's first field is not the domain")
    return block[:4] + struct.pack("<I", domain) + block[8:]


def batch_of_block(block):
    """A batch with this block and no records: header, terminator (51 bytes for a GRR block)."""
    head = b"LDPB" + bytes([1, 0]) + struct.pack("<H", len(block)) + block
    head += struct.pack("<Q", siphash24(b"ldpkit params v1", block))
    return head + struct.pack("<I", crc32c(head)) + chunk_bytes(0, b"")


def block_of_batch(data):
    size = struct.unpack_from("<H", data, 6)[0]
    return data[8:8 + size]


def state_of_block(block, body_counts=b""):
    """A state of no reports under this block (docs/wire_format.md 7, src/aggregator.cpp's body)."""
    body = struct.pack("<H", len(block)) + block + bytes(8 + 128) + body_counts
    head = b"LDPS" + bytes([1, block[1], 0, 0]) + struct.pack("<QQI", siphash24(b"ldpkit params v1", block),
                                                                   len(body), crc32c(body))
    return head + struct.pack("<I", crc32c(head)) + body


def peak_rss_kib(*args, expect):
    """Runs ldp in a child of a fresh Python, which reports the child's peak RSS (KiB)."""
    probe = ("import resource, subprocess, sys\n"
             "rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode\n"
             "print(rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    proc = subprocess.run([sys.executable, "-c", probe, LDP, *args], capture_output=True, text=True, timeout=600)
    rc, rss = (int(x) for x in proc.stdout.split())
    check(rc == expect, f"ldp {' '.join(args)}: exit code {rc}, expected {expect}")
    return rss


def hostile_files():
    """The hostile inputs of issue 21 as (name, command arguments, expected exit): every one is
    refused (exit 2) before its claimed size is allocated or read."""
    simulate("grr", "grr.ldpb", devices=10, seed=1)
    simulate("laplace-vector", "lv.ldpb", devices=10, seed=1)
    simulate("olh", "olh.ldpb", devices=10, seed=1)
    grr = with_domain(block_of_batch(read("grr.ldpb")), 1 << 28)
    write("grr_d28.ldpb", batch_of_block(grr))
    check(len(read("grr_d28.ldpb")) == 51, "the GRR d = 2^28 batch is 51 bytes")
    write("lv_d28.ldpb", batch_of_block(with_domain(block_of_batch(read("lv.ldpb")), 1 << 28)))
    write("grr_d28.ldps", state_of_block(grr))  # its body claims 2 GiB of counts it does not hold
    write("olh_d31.ldps", state_of_block(with_domain(block_of_batch(read("olh.ldpb")), 1 << 31)))
    with open(path("zeros"), "wb") as f:
        f.truncate(2 << 30)  # 2 GiB, sparse: costs no disk
    commands = []
    for batch in ("grr_d28.ldpb", "lv_d28.ldpb"):
        commands.append(("aggregate", path(batch), "--out", path("x.ldps")))
    for state in ("grr_d28.ldps", "olh_d31.ldps", "zeros", "/dev/zero"):
        full = state if state.startswith("/") else path(state)
        commands += [("estimate", full), ("merge", full, "--out", path("x.ldps")), ("inspect", full)]
    commands.append(("aggregate", path("zeros"), "--out", path("x.ldps")))
    commands.append(("aggregate", "/dev/zero", "--out", path("x.ldps")))
    return commands


def case_hostile_blocks():
    """A 51-byte batch of GRR d = 2^28 (2 GiB of counters) and a 78-byte laplace-vector d = 2^28 are
    refused with limit_exceeded before anything is allocated; so are states of such blocks (OLH
    d = 2^31 with no reports would need 80 GiB of estimates); --max-state-bytes moves the ceiling."""
    hostile_files()
    check(len(read("lv_d28.ldpb")) == 78, "the laplace-vector d = 2^28 batch is 78 bytes")
    for batch in ("grr_d28.ldpb", "lv_d28.ldpb"):
        fails("aggregate", path(batch), "--out", path("x.ldps"), message=r"above --max-state-bytes.*limit_exceeded \(16\)")
        check(not os.path.exists(path("x.ldps")), f"{batch}: a refused aggregate wrote its state")
    fails("estimate", path("olh_d31.ldps"), message=r"olh_d31\.ldps.*--max-state-bytes.*limit_exceeded \(16\)")
    # Its body lacks the 2 GiB of counts its block implies: refused by length before any allocation.
    fails("estimate", path("grr_d28.ldps"), message=r"grr_d28\.ldps.*wrong_length")
    # The ceiling is the caller's: a small one refuses a small GRR, a larger one lets it through.
    run("simulate", "-m", "grr", "-e", "2", "-d", "1000", "-n", "100", "--data", "uniform", "--seed", "1",
        "--out", path("d1000.ldpb"))
    fails("aggregate", path("d1000.ldpb"), "--out", path("x.ldps"), "--max-state-bytes", "20000",
          message=r"limit_exceeded")
    run("aggregate", path("d1000.ldpb"), "--out", path("d1000.ldps"), "--max-state-bytes", "200000")
    fails("estimate", path("d1000.ldps"), "--max-state-bytes", "20000", message=r"limit_exceeded")
    fails("merge", path("d1000.ldps"), path("d1000.ldps"), "--allow-duplicates", "--out", path("x.ldps"),
          "--max-state-bytes", "8000", message=r"limit_exceeded")
    fails("inspect", path("d1000.ldps"), "--max-state-bytes", "8000", message=r"limit_exceeded")
    fails("simulate", "-m", "grr", "-e", "2", "-d", "1000", "-n", "10", "--data", "uniform", "--seed", "1",
          "--out", path("s.ldpb"), "--max-state-bytes", "20000", message=r"--max-state-bytes")


def case_zeros_file():
    """estimate, merge and inspect of a 2 GiB file of zeros and of /dev/zero fail at once with
    malformed_report (the magic), reading only a header's bytes."""
    hostile_files()
    for name in (path("zeros"), "/dev/zero"):
        fails("estimate", name, message=r"not a readable aggregator state: malformed_report \(4\)")
        fails("merge", name, "--out", path("x.ldps"), message=r"not a readable aggregator state: malformed_report")
        fails("inspect", name, message=r"is not a batch \(LDPB\), a state \(LDPS\) or a version-1 report")
        fails("aggregate", name, "--out", path("x.ldps"), message=r"not a readable batch.*malformed_report")
    # A valid header that claims a body the file does not hold: wrong_length after the bytes that
    # are there, or limit_exceeded before reading when the claim passes the ceiling.
    simulate("grr", "ok.ldpb", devices=100, seed=2)
    run("aggregate", path("ok.ldpb"), "--out", path("ok.ldps"))
    state = read("ok.ldps")
    for claim, message in ((len(state), r"wrong_length"), (1 << 40, r"limit_exceeded")):
        head = state[:16] + struct.pack("<Q", claim) + state[24:28]
        write("claim.ldps", head + struct.pack("<I", crc32c(head)) + state[32:])
        fails("estimate", path("claim.ldps"), message=message)
    write("longer.ldps", state + b"\0")
    fails("estimate", path("longer.ldps"), message=r"wrong_length")


def case_max_rss():
    """Peak RSS of aggregate, estimate, merge and inspect on every hostile file is within the memory
    contract (docs/security_model.md): refused inputs cost only the constant part, 64 MiB."""
    bound_kib = 64 * 1024
    for args in hostile_files():
        rss = peak_rss_kib(*args, expect=2)
        check(rss <= bound_kib, f"ldp {' '.join(args)}: peak RSS {rss} KiB above {bound_kib} KiB")


def case_damaged_chunk():
    """A flipped bit in a chunk's record count (CRC not fixed) is one damaged chunk whose records are
    unknown: not counted as rejected with the damaged count, but shown in the summary, a warning, the
    state (estimate's "damaged_chunks") and merge; --quarantine keeps the chunk's bytes."""
    n = 10000
    simulate("grr", "ok.ldpb", devices=n, seed=3)
    data = read("ok.ldpb")
    header, chunks, _ = split_batch(data)
    check(len(chunks) >= 3, f"expected several chunks, got {len(chunks)}")
    second = len(header) + 8 + len(chunks[0][1]) + 4
    lost = chunks[1][0]
    # Bit 31 of the count: 2,147,487,744 claimed records for a chunk of 4,096 (issue 21 finding 3).
    damaged = data[:second + 3] + bytes([data[second + 3] ^ 0x80]) + data[second + 4:]
    write("bad.ldpb", damaged)
    out, err = run("aggregate", path("bad.ldpb"), "--out", path("bad.ldps"), "--quarantine", path("bad.ldpq"))
    check(f"total: {n - lost:,} reports accepted, 0 rejected, 1 damaged chunk (records unknown)" in out,
          f"aggregate:\n{out}")
    check("warning" in err and "1 damaged chunk" in err, f"no warning:\n{err}")
    j = estimate_json("bad.ldps")
    check(j["reports"] == n - lost and j["rejected"] == {} and j["damaged_chunks"] == 1, f"estimate: {j}")
    out, _ = run("estimate", path("bad.ldps"))
    check("1 damaged chunk" in out, f"estimate:\n{out}")
    q = read("bad.ldpq")
    chunk = damaged[second:second + 8 + len(chunks[1][1]) + 4]
    name = path("bad.ldpb").encode()
    check(q[:8] == b"LDPQ\x01\0\0\0", "quarantine magic")
    check(q[8:] == struct.pack("<H", len(name)) + name + struct.pack("<QI", second, len(chunk)) + chunk,
          "the quarantine file does not hold the damaged chunk with its file and offset")
    out, _ = run("inspect", path("bad.ldpb"))
    check("CRC32C does not match" in out and "records unknown" in out, f"inspect:\n{out}")
    out, _ = run("inspect", path("bad.ldps"))
    check("1 damaged chunk" in out, f"inspect state:\n{out}")
    run("aggregate", path("bad.ldpb"), "--out", path("bad2.ldps"), "--allow-duplicates")
    run("merge", path("bad.ldps"), path("bad.ldps"), "--allow-duplicates", "--out", path("twice.ldps"))
    check(estimate_json("twice.ldps")["damaged_chunks"] == 2, "merge does not add the damaged chunks")
    # No damage: an empty quarantine file and no damaged chunks.
    out, err = run("aggregate", path("ok.ldpb"), "--out", path("ok.ldps"), "--quarantine", path("ok.ldpq"))
    check("damaged chunk" not in out + err and read("ok.ldpq") == b"LDPQ\x01\0\0\0", f"clean batch:\n{out}{err}")
    check(estimate_json("ok.ldps")["damaged_chunks"] == 0, "damaged_chunks of a clean state")


def case_duplicates():
    """aggregate A A and merge S S (the same file, a link, or a byte-identical copy) are refused
    (exit 2) unless --allow-duplicates; different inputs of equal size are not duplicates."""
    simulate("grr", "a.ldpb", devices=1000, seed=1)
    simulate("grr", "b.ldpb", devices=1000, seed=2)
    check(len(read("a.ldpb")) == len(read("b.ldpb")), "GRR batches of equal devices have equal sizes")
    write("copy.ldpb", read("a.ldpb"))
    os.link(path("a.ldpb"), path("link.ldpb"))
    for other, what in (("a.ldpb", "the same file as"), ("link.ldpb", "the same file as"),
                        ("copy.ldpb", "a byte-identical copy of")):
        fails("aggregate", path("a.ldpb"), path(other), "--out", path("x.ldps"),
              message=rf"{re.escape(other)} is {what} input batch .*a\.ldpb.*--allow-duplicates")
        check(not os.path.exists(path("x.ldps")), "a refused aggregate wrote its state")
    out, _ = run("aggregate", path("a.ldpb"), path("b.ldpb"), "--out", path("ab.ldps"))
    check("total: 2,000 reports accepted" in out, f"aggregate a b:\n{out}")
    out, _ = run("aggregate", path("a.ldpb"), path("copy.ldpb"), "--allow-duplicates", "--out", path("aa.ldps"))
    check("total: 2,000 reports accepted" in out, f"--allow-duplicates:\n{out}")
    run("aggregate", path("a.ldpb"), "--out", path("a.ldps"))
    write("copy.ldps", read("a.ldps"))
    fails("merge", path("a.ldps"), path("a.ldps"), "--out", path("x.ldps"), message=r"the same file as.*--allow-duplicates")
    fails("merge", path("a.ldps"), path("copy.ldps"), "--out", path("x.ldps"), message=r"byte-identical copy")
    run("merge", path("a.ldps"), path("copy.ldps"), "--allow-duplicates", "--out", path("m.ldps"))
    check(read("m.ldps") == read("aa.ldps"), "merge S S --allow-duplicates differs from aggregate A A")


def main(cases=None):
    """Runs one case (argv) in a fresh scratch directory: a case_<name> function of `cases` (a
    module's globals; default this module's)."""
    global LDP, WORK
    parser = argparse.ArgumentParser()
    parser.add_argument("--ldp", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("case")
    args = parser.parse_args()
    LDP = args.ldp
    WORK = args.work
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    case = (cases if cases is not None else globals()).get("case_" + args.case)
    if case is None:
        print(f"unknown case {args.case}")
        return 1
    try:
        case()
    except Failure as e:
        print(f"FAIL {args.case}: {e}")
        return 1
    print(f"ok {args.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
