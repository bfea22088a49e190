#!/usr/bin/env python3
"""Tests of `ldp simulate --days N` (docs/cli.md "Several days"): the per-day batches, their
determinism, the daily value changes, memoized devices, and the averaging attack
(docs/mechanisms.md "What an averaging attacker learns"). Run by CTest one case at a time:

    test_days.py --ldp build/host/tools/ldp --work <scratch dir> <case>

The helpers (running the binary, reading batches) are test_cli.py's. Statistical checks use fixed
seeds; each states its false-failure probability.
"""
import gzip
import math
import os
import re
import sys
from typing import Dict, List, Tuple

import test_cli as cli
from test_cli import check, fails, path, read, run

DIGITS = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"


def digits_csv() -> str:
    """sklearn's handwritten digits (python3-sklearn), decompressed: 1,797 rows, the label in column 65."""
    target = path("digits.csv")
    with gzip.open(DIGITS, "rb") as f, open(target, "wb") as out:
        out.write(f.read())
    return target


def days_run(out: str, days: int, *extra: str, mechanism: str = "oue", epsilon: str = "1",
             data: str = "zipf:1.1", devices: str = "2000", seed: str = "3") -> str:
    """ldp simulate --days; returns its stdout."""
    args = ["simulate", "-m", mechanism, "-e", epsilon, "--seed", seed, "--data", data, "--out", path(out),
            "--days", str(days), *extra]
    if mechanism in ("grr", "sue", "oue", "blh", "olh"):
        args += ["--domain", "10" if data.startswith("csv:") else "20"]
    else:
        args += ["--range", "0:10"]
    if not data.startswith("csv:"):
        args += ["--devices", devices]
    stdout, _ = run(*args)
    return stdout


def outputs(prefix: str) -> List[str]:
    """The files of the scratch directory whose names start with prefix, sorted."""
    return sorted(f for f in os.listdir(cli.WORK) if f.startswith(prefix))


# ---- Cases ---------------------------------------------------------------------------------------

def case_days_layout() -> None:
    """--days N writes OUT.day0 ... OUT.day<N-1> (and --truth-out per day), nothing else; day 0 is the
    batch of the same run without --days, byte for byte; every day aggregates and estimates."""
    stdout = days_run("w.ldpb", 3, "--truth-out", path("w-truth.csv"), "--change-prob", "0.2")
    check(outputs("w") == ["w-truth.day0.csv", "w-truth.day1.csv", "w-truth.day2.csv", "w.day0.ldpb", "w.day1.ldpb",
                           "w.day2.ldpb"], f"files written: {outputs('w')}")
    for day in range(3):
        check(f"wrote {path(f'w.day{day}.ldpb')}" in stdout, f"day {day} not reported:\n{stdout}")
    run("simulate", "-m", "oue", "-e", "1", "--domain", "20", "--devices", "2000", "--seed", "3", "--data",
        "zipf:1.1", "--out", path("one.ldpb"), "--truth-out", path("one-truth.csv"))
    check(read("one.ldpb") == read("w.day0.ldpb"), "day 0 differs from the one-day batch")
    check(read("one-truth.csv") == read("w-truth.day0.csv"), "day 0's truth differs from the one-day truth")
    check(read("w.day0.ldpb") != read("w.day1.ldpb"), "day 1 repeats day 0's coins")
    for day in range(3):
        run("aggregate", path(f"w.day{day}.ldpb"), "--out", path(f"w.day{day}.ldps"))
        j = cli.estimate_json(f"w.day{day}.ldps", "--truth", path(f"w-truth.day{day}.csv"))
        check(j["reports"] == 2000, f"day {day}: {j['reports']} reports")
        # RMSE within RATIO_BOUND of its prediction (test_cli.py: false failure < 1e-20 per day).
        check(j["error"]["rmse"] <= cli.RATIO_BOUND[50] * j["error"]["predicted_rmse"], f"day {day}: {j['error']}")
    # A one-day run with --days 1 names its batch .day0 too.
    days_run("x.ldpb", 1)
    check(outputs("x") == ["x.day0.ldpb"], f"files written: {outputs('x')}")


def case_days_determinism() -> None:
    """The same options give the same bytes on every day whatever the thread count; another seed
    differs; numeric mechanisms too."""
    for mechanism in ("olh", "duchi"):
        data = "zipf:1.1" if mechanism == "olh" else "builtin"
        days_run("a.ldpb", 3, "--change-prob", "0.3", "--threads", "1", mechanism=mechanism, data=data)
        days_run("b.ldpb", 3, "--change-prob", "0.3", "--threads", "3", mechanism=mechanism, data=data)
        days_run("c.ldpb", 3, "--change-prob", "0.3", mechanism=mechanism, data=data, seed="4")
        for day in range(3):
            a, b, c = (read(f"{x}.day{day}.ldpb") for x in "abc")
            check(a == b, f"{mechanism} day {day}: the batch depends on the thread count")
            check(a != c, f"{mechanism} day {day}: the batch does not depend on the seed")


def truth_counts(name: str) -> List[int]:
    """The counts of an item,count truth file, by item."""
    with open(path(name)) as f:
        return [int(line.split(",")[1]) for line in f.read().splitlines()[1:]]


def case_days_values() -> None:
    """Values change at the asked rate: --change-prob 0 keeps every day's truth; with P the number
    of devices that redraw on a day is Binomial(n, P), within 5.5 standard deviations (false failure
    4e-8 per day, 20 days: < 1e-6); P = 1 redraws every device; the item counts stay near the data's."""
    days_run("z.ldpb", 3, "--truth-out", path("z.csv"))
    check(read("z.day0.csv") == read("z.day1.csv") == read("z.day2.csv"), "values changed at --change-prob 0")
    n, p = 2000, 0.1
    stdout = days_run("v.ldpb", 21, "--change-prob", str(p))
    redrawn = [int(x.replace(",", "")) for x in re.findall(r"day \d+: ([\d,]+) devices redrew", stdout)]
    check(len(redrawn) == 20, f"redraws reported for {len(redrawn)} days:\n{stdout}")
    sd = math.sqrt(n * p * (1 - p))
    for day, k in enumerate(redrawn, start=1):
        check(abs(k - n * p) <= 5.5 * sd, f"day {day}: {k} of {n} devices redrew at P = {p}")
    stdout = days_run("all.ldpb", 2, "--change-prob", "1", "--truth-out", path("all.csv"))
    check("day 1: 2,000 devices redrew" in stdout, f"P = 1 does not redraw every device:\n{stdout}")
    # Redrawing from the data's distribution: day 1's count of an item is a sum of n Bernoulli draws
    # of its share; the most common item (share about 0.28 for zipf:1.1 on 20 items) stays within
    # 5.5 sd (false failure 4e-8).
    before, after = truth_counts("all.day0.csv"), truth_counts("all.day1.csv")
    share = before[0] / n
    check(abs(after[0] - before[0]) <= 5.5 * math.sqrt(n * share * (1 - share)), f"item 0: {before[0]} -> {after[0]}")
    check(before != after, "P = 1 kept every count")


def case_days_bad_options() -> None:
    """The --days options without --days, and bad values, are refused with one line."""
    base = ["simulate", "-m", "oue", "-e", "1", "--domain", "20", "--devices", "100", "--seed", "1", "--data",
            "uniform", "--out", path("bad.ldpb")]
    for option in (["--change-prob", "0.1"], ["--memoize"], ["--attack"], ["--use-case", "3"],
                   ["--epsilon-longitudinal", "4"], ["--attack-devices", "10"], ["--attack-window", "2"]):
        fails(*base, *option, message=f"{option[0]} applies with --days N only")
    fails(*base, "--days", "0", message="--days")
    fails(*base, "--days", "2", "--change-prob", "1.5", message=r"--change-prob must be in \[0, 1\]")
    fails(*base, "--days", "2", "--attack", "--attack-window", "3", message="--attack-window must be at most --days 2")
    fails(*base, "--days", "2", "--epsilon-longitudinal", "4", message="--epsilon-longitudinal applies with --memoize")
    fails(*base, "--days", "2", "--memoize", message="--memoize needs --epsilon-longitudinal")
    fails(*base, "--days", "2", "--memoize", "--epsilon-longitudinal", "0.5", message="must be below")
    fails(*base, "--days", "2", "--memoize", "--epsilon-longitudinal", "4", "--memo-grid", "4",
          message="--memo-grid applies to --mechanism duchi only")
    fails("simulate", "-m", "duchi", "-e", "1", "--range", "0:10", "--devices", "100", "--seed", "1", "--data",
          "uniform", "--out", path("bad.ldpb"), "--days", "2", "--memoize", "--epsilon-longitudinal", "4",
          "--memo-grid", "3", message="cannot build a memoized duchi block")
    fails("simulate", "-m", "hr", "-e", "1", "--domain", "20", "--devices", "100", "--seed", "1", "--data", "uniform",
          "--out", path("bad.ldpb"), "--days", "2", "--memoize", "--epsilon-longitudinal", "4",
          message="--memoize applies to --mechanism sue, oue, olh, blh and duchi")
    fails("simulate", "-m", "hr", "-e", "1", "--domain", "20", "--devices", "100", "--seed", "1", "--data", "uniform",
          "--out", path("bad.ldpb"), "--days", "2", "--attack", message="--attack applies to")
    fails("simulate", "-m", "kent", "-e", "1", "--range", "0:1", "--observations", "5", "--devices", "100", "--seed",
          "1", "--data", "uniform", "--out", path("bad.ldpb"), "--days", "2", message="--days applies to")
    check(not any(f.startswith("bad") for f in os.listdir(cli.WORK)), "a refused run wrote a file")


def binomial_interval(n: int, p: float, tail: float) -> Tuple[int, int]:
    """The smallest [lo, hi] with P(Binomial(n, p) < lo) <= tail and P(> hi) <= tail, exactly."""
    pmf = [math.comb(n, k) * p ** k * (1 - p) ** (n - k) for k in range(n + 1)]
    lo, below = 0, 0.0
    while below + pmf[lo] <= tail:
        below += pmf[lo]
        lo += 1
    hi, above = n, 0.0
    while above + pmf[hi] <= tail:
        above += pmf[hi]
        hi -= 1
    return lo, hi


def block_parameters(batch: str) -> Dict[str, int]:
    """The parameter block of a batch, by field name (ldp estimate's JSON of its state)."""
    run("aggregate", path(batch), "--out", path(batch + ".ldps"))
    return cli.estimate_json(batch + ".ldps")["parameters"]


def per_device_payloads(prefix: str, days: int) -> List[List[bytes]]:
    """payloads[device][day] of the batches prefix.day0.ldpb ... (one report per device and day)."""
    by_day = []
    for day in range(days):
        data = read(f"{prefix}.day{day}.ldpb")
        _, chunks, _ = cli.split_batch(data)
        payloads = []
        for count, body in chunks:
            payloads += [body[at:at + size] for at, size in cli.records_of(body, count)]
        by_day.append(payloads)
    return [list(reports) for reports in zip(*by_day)]


def case_days_memoized() -> None:
    """Memoized devices keep their permanent response across days while every report is randomized
    again: OLH's hash seed (the device-permanent draw) is the same on every day and differs between
    devices, use cases and fleets without memoization; a memoized OUE device's count of a bit over
    N = 200 days is Binomial(N, a) where its permanent bit is 1 and Binomial(N, b) where it is 0
    (a = instant_keep, b = instant_other over 2^32), never in between as it would be if the
    permanent response were drawn again each day; and the permanent bits are the epsilon-infinity
    unary encoding (the held item's bit is 1 with probability 1/2, another's with q)."""
    memo = ["--memoize", "--epsilon-longitudinal", "4"]
    days_run("olh.ldpb", 5, "--change-prob", "0.5", *memo, mechanism="olh", devices="300")
    days_run("olh1.ldpb", 5, "--change-prob", "0.5", "--use-case", "1", *memo, mechanism="olh", devices="300")
    days_run("plain.ldpb", 5, mechanism="olh", devices="300")
    seeds = [[r[:8] for r in reports] for reports in per_device_payloads("olh", 5)]
    other_case = [[r[:8] for r in reports] for reports in per_device_payloads("olh1", 5)]
    plain = [[r[:8] for r in reports] for reports in per_device_payloads("plain", 5)]
    check(all(len(set(s)) == 1 for s in seeds), "a memoized OLH device's hash seed changed between days")
    check(len({s[0] for s in seeds}) == 300, "two memoized devices share a hash seed (one secret?)")
    check(all(a[0] != b[0] for a, b in zip(seeds, other_case)), "--use-case does not change the permanent draws")
    check(all(len(set(s)) == 5 for s in plain), "fresh-coin OLH repeats a hash seed")
    # The same run again: the same bytes (secrets and coins come from --seed).
    days_run("again.ldpb", 5, "--change-prob", "0.5", "--threads", "3", *memo, mechanism="olh", devices="300")
    check(all(read(f"olh.day{k}.ldpb") == read(f"again.day{k}.ldpb") for k in range(5)), "memoized run not repeatable")

    # Each day's state estimates that day's counts (memoized reports are counted with the composite
    # channel, docs/mechanisms.md E.1), and says both levels: the RMSE over 20 items is within 2.5
    # times its prediction (chi-square(20) > 20 * 2.5^2 has probability 2e-16, with room for the
    # plug-in variances and the correlation of one state's estimates).
    for mechanism in ("oue", "olh"):
        days_run(f"e{mechanism}.ldpb", 2, "--change-prob", "0.5", "--truth-out", path(f"e{mechanism}.csv"), *memo,
                 mechanism=mechanism, devices="20000")
        for day in range(2):
            run("aggregate", path(f"e{mechanism}.day{day}.ldpb"), "--out", path("e.ldps"))
            j = cli.estimate_json("e.ldps", "--truth", path(f"e{mechanism}.day{day}.csv"))
            check(abs(j["epsilon"] - 1) < 1e-6 and abs(j["epsilon_longitudinal"] - 4) < 1e-6, f"levels: {j}")
            check(j["error"]["rmse"] <= 2.5 * j["error"]["predicted_rmse"], f"{mechanism} day {day}: {j['error']}")

    days, devices, d = 200, 300, 20
    days_run("oue.ldpb", days, "--truth-out", path("oue.csv"), *memo, devices=str(devices))
    params = block_parameters("oue.day0.ldpb")
    a, b = params["instant_keep"] / 2 ** 32, params["instant_other"] / 2 ** 32
    q = params["threshold_other"] / 2 ** 32
    # Each of the 6,000 counts falls outside its interval with probability <= 2e-10 (both tails of
    # 1e-10): a false failure below 1.2e-6 for the run.
    ones, zeros = binomial_interval(days, a, 1e-10), binomial_interval(days, b, 1e-10)
    check(zeros[1] < ones[0], f"intervals {zeros} and {ones} overlap: the test cannot tell the two stages apart")
    items = []
    for item, count in enumerate(truth_counts("oue.day0.csv")):
        items += [item] * count  # devices hold items in increasing order (docs/cli.md "Data")
    held_ones = other_ones = 0
    for device, reports in enumerate(per_device_payloads("oue", days)):
        counts = [sum((r[j // 8] >> (j % 8)) & 1 for r in reports) for j in range(d)]
        for j, c in enumerate(counts):
            one = ones[0] <= c <= ones[1]
            check(one or zeros[0] <= c <= zeros[1],
                  f"device {device}, bit {j}: {c} of {days} reports set it, neither a permanent 1 {ones} "
                  f"nor 0 {zeros}")
            held_ones += one and j == items[device]
            other_ones += one and j != items[device]
    # The permanent bits: Binomial(300, 1/2) held ones and Binomial(5,700, q) other ones, each within
    # 5.5 sd (false failure 8e-8).
    check(abs(held_ones - devices / 2) <= 5.5 * math.sqrt(devices / 4), f"{held_ones} of {devices} held bits are 1")
    others = devices * (d - 1)
    check(abs(other_ones - others * q) <= 5.5 * math.sqrt(others * q * (1 - q)) + 1,
          f"{other_ones} of {others} other bits are 1 (q = {q})")


def case_days_memoized_duchi() -> None:
    """Memoized duchi (docs/mechanisms.md E.2) through the tool: a device whose value stays put
    reports its permanent bit flipped with phi = output_flip / 2^32 in every report, so its count of
    ones over N = 200 days is Binomial(N, 1 - phi) or Binomial(N, phi), never in between as fresh
    coins at the value's probability would give (each of the 300 counts falls outside its
    interval with probability <= 2e-10: a false failure below 1e-7). One report is at most --epsilon,
    the permanent bits at --epsilon-longitudinal; the day's state estimates the mean."""
    days, devices = 200, 300
    days_run("du.ldpb", days, "--memoize", "--epsilon-longitudinal", "4", "--memo-grid", "4", "--truth-out",
             path("du.csv"), mechanism="duchi", data="builtin", devices=str(devices))
    run("aggregate", path("du.day0.ldpb"), "--out", path("du.ldps"))
    j = cli.estimate_json("du.ldps", "--truth", path("du.day0.csv"))
    check(j["epsilon"] <= 1 and abs(j["epsilon"] - 1) < 1e-3 and abs(j["epsilon_longitudinal"] - 4) < 1e-6,
          f"levels: {j['epsilon']}, {j.get('epsilon_longitudinal')}")
    check(j["parameters"]["memo_grid"] == 4, f"parameters: {j['parameters']}")
    # The mean of 300 reports within 5.5 of its closed-form standard deviations (false failure 4e-8).
    check(j["error"]["rmse"] <= 5.5 * j["error"]["predicted_rmse"], f"estimate: {j['error']}")
    phi = j["parameters"]["output_flip"] / 2 ** 32
    high, low = binomial_interval(days, 1 - phi, 1e-10), binomial_interval(days, phi, 1e-10)
    check(low[1] < high[0], f"intervals {low} and {high} overlap")
    for device, reports in enumerate(per_device_payloads("du", days)):
        ones = sum(r[0] for r in reports)
        check(low[0] <= ones <= low[1] or high[0] <= ones <= high[1],
              f"device {device}: {ones} of {days} reports are 1, neither a permanent 1 {high} nor 0 {low}")


def attack_numbers(stdout: str) -> Dict[str, float]:
    """The attack's summary lines of simulate --attack, by their first words."""
    out = {}
    for key, pattern in (("fresh", r"fresh coins every report .*:\s+([\d.]+)"),
                         ("memoized", r"memoized \(epsilon .*:\s+([\d.]+)"),
                         ("permanent", r"the permanent response alone .*:\s+([\d.]+)"),
                         ("chance", r"chance .*:\s+([\d.]+)")):
        match = re.search(pattern, stdout)
        if match:
            out[key] = float(match.group(1))
    return out


def case_days_attack() -> None:
    """The averaging attack on real data (sklearn's digits, 1,797 devices, d = 10), OUE at epsilon 1
    per report and 4 longitudinal, 100 days, values fixed. Without memoization the attacker is almost
    always right; with it, it stays at what the permanent response alone allows.

    Fresh coins: the true item's support over 100 reports is S ~ Binomial(100, 1/2) (OUE keeps the
    true bit with exactly 1/2), another item's T ~ Binomial(100, q); the guess is wrong only if some
    T >= S, so E[accuracy] >= 1 - 9 P(T >= S) (computed here exactly, about 0.997), and the
    accuracy of 1,797 independent devices is at most t = 0.062 below its mean with probability
    exp(-2 n t^2) < 1e-6 (Hoeffding). Memoized: the reports are the permanent responses garbled by
    fresh noise, so no guess from them beats the Bayes guess from the permanent responses averaged
    over the devices' values (every device is attacked, so the prior is their distribution): the
    per-device difference (attacker hit - Bayes hit) lies in [-1, 1] with mean <= 0, and exceeds
    t = 0.124 on average with probability exp(-n t^2 / 2) < 1e-6."""
    data = "csv:" + digits_csv() + ":65"
    stdout = days_run("a.ldpb", 100, "--memoize", "--epsilon-longitudinal", "4", "--attack", data=data)
    got = attack_numbers(stdout)
    check(set(got) == {"fresh", "memoized", "permanent", "chance"}, f"attack summary incomplete:\n{stdout}")
    params = block_parameters("a.day0.ldpb")
    q = params["threshold_other"] / 2 ** 32
    run("simulate", "-m", "oue", "-e", "1", "--domain", "10", "--data", data, "--seed", "3", "--out", path("p.ldpb"))
    q_fresh = block_parameters("p.ldpb")["threshold_other"] / 2 ** 32
    n = 100
    s_pmf = [math.comb(n, k) / 2 ** n for k in range(n + 1)]
    t_tail = [sum(math.comb(n, j) * q_fresh ** j * (1 - q_fresh) ** (n - j) for j in range(k, n + 1))
              for k in range(n + 1)]
    wrong = 9 * sum(s_pmf[k] * t_tail[k] for k in range(n + 1))
    devices = 1797
    fresh_floor = 1 - wrong - math.sqrt(math.log(1e6) / (2 * devices))
    check(got["fresh"] >= fresh_floor, f"fresh-coin attack accuracy {got['fresh']} below {fresh_floor:.4f}")
    memo_ceiling = got["permanent"] + math.sqrt(2 * math.log(1e6) / devices)
    check(got["memoized"] <= memo_ceiling,
          f"memoized attack accuracy {got['memoized']} above the permanent response's {got['permanent']} + margin")
    check(memo_ceiling < fresh_floor, f"the bounds {memo_ceiling:.3f} and {fresh_floor:.3f} do not separate")
    check(q < 0.02, f"permanent q = {q}: not epsilon-infinity 4")

    # Duchi, fresh coins, pixel 30 of the digits (0..16): a decoded report is the unbiased
    # center +- (Q/2) B with B = (e + 1)/(e - 1) at epsilon 1, so the mean of 100 reports is within
    # E|error| <= sd <= 8 B / 10 of the value (clamping only helps); each device's error is at most
    # 16, so the mean over 1,797 devices exceeds that by t = 16 sqrt(ln(1e6) / (2 n)) with
    # probability < 1e-6 (Hoeffding). Chance (the median) is about 5.2.
    stdout = days_run("m.ldpb", 100, "--attack", mechanism="duchi", data="csv:" + path("digits.csv") + ":30")
    match = re.search(r"fresh coins every report .*:\s+([\d.]+) mean absolute error", stdout)
    chance = re.search(r"chance .*:\s+([\d.]+) mean absolute error", stdout)
    check(match and chance, f"no numeric attack summary:\n{stdout}")
    b = (math.e + 1) / (math.e - 1)
    ceiling = 8 * b / 10 + 16 * math.sqrt(math.log(1e6) / (2 * devices))
    check(float(match.group(1)) <= ceiling < float(chance.group(1)),
          f"duchi attack error {match.group(1)}, ceiling {ceiling:.3f}, chance {chance.group(1)}")


if __name__ == "__main__":
    sys.exit(cli.main(globals()))
