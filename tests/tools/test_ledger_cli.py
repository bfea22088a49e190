#!/usr/bin/env python3
"""Tests of `ldp ledger inspect` (docs/cli.md "ldp ledger"), run by CTest one case at a time:

    test_ledger_cli.py --ldp build/host/tools/ldp --work <scratch dir> <case>

The ledger files are built here from the normative layout of docs/ledger.md ("Record layout",
"File layout") with an independent CRC32C, so the cases check the document as much as the tool.
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
from typing import Callable, Dict, List, Optional, Sequence, Tuple

LDP = ""
WORK = ""
SLOT = 256
UNITS = 1 << 40  # ledger units per epsilon
DAY = 86400


class Failure(Exception):
    """A check of a case did not hold."""


def check(condition: bool, message: str) -> None:
    """Raises Failure with `message` unless `condition`."""
    if not condition:
        raise Failure(message)


def crc32c(data: bytes) -> int:
    """CRC32C (Castagnoli, reflected 0x82F63B78, initial value and final XOR 0xFFFFFFFF)."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


# (use case, window seconds, window, spent units, budget units)
Entry = Tuple[int, int, int, int, int]


def record(counter: int, latest: int, entries: Sequence[Entry], version: int = 1) -> bytes:
    """A ledger record: the 32-byte header (CRC32C at offset 28) and 32 bytes per use case."""
    body = b"".join(struct.pack("<IIQQQ", *e) for e in entries)
    head = b"LDPL" + struct.pack("<BBHQQI", version, 0, len(entries), counter, latest, 0)
    return head + struct.pack("<I", crc32c(head + body)) + body


def slot(content: bytes) -> bytes:
    """A slot holding `content`, the rest erased (0xFF)."""
    return content + b"\xff" * (SLOT - len(content))


def run(args: List[str], expect: int = 0) -> subprocess.CompletedProcess:
    """Runs the tool and checks its exit code."""
    proc = subprocess.run([LDP] + args, capture_output=True, text=True, check=False)
    check(proc.returncode == expect,
          f"ldp {' '.join(args)}: exit {proc.returncode}, expected {expect}\n{proc.stdout}{proc.stderr}")
    return proc


def write(name: str, data: bytes) -> str:
    """Writes a file into the scratch directory; returns its path."""
    path = os.path.join(WORK, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def inspect_json(path: str) -> Dict:
    """`ldp ledger inspect --format json`, parsed."""
    return json.loads(run(["ledger", "inspect", path, "--format", "json"]).stdout)


ENTRIES: List[Entry] = [(4, 7 * DAY, 14, UNITS // 8, UNITS // 2), (9, DAY, 101, 3 * UNITS // 4, UNITS)]


def case_ledger_inspect() -> None:
    """Two valid slots: the larger counter is current; fields decode as the layout says."""
    newer = ENTRIES[:1] + [(9, DAY, 101, UNITS, UNITS)]
    path = write("two.ldpl", slot(record(5, 101 * DAY + 6, ENTRIES)) + slot(record(6, 101 * DAY + 9, newer)))
    j = inspect_json(path)
    check(j["slot_size"] == SLOT, f"slot size {j['slot_size']}")
    check([s["state"] for s in j["slots"]] == ["valid", "valid"], f"states {j['slots']}")
    check(j["current"] == 1 and j["load"] == "ok", f"current {j['current']}, load {j['load']}")
    s0, s1 = j["slots"]
    check(s0["counter"] == 5 and s1["counter"] == 6 and s1["latest"] == 101 * DAY + 9, "counters, latest")
    first = s0["use_cases"][0]
    check(first == {"use_case": 4, "window_seconds": 7 * DAY, "window": 14, "window_start": 14 * 7 * DAY,
                    "spent": 0.125, "spent_units": UNITS // 8, "budget": 0.5, "budget_units": UNITS // 2},
          f"entry {first}")
    check(s1["use_cases"][1]["spent"] == 1.0, f"entry {s1['use_cases'][1]}")
    text = run(["ledger", "inspect", path]).stdout
    check("slot 0: valid, counter 5" in text and "current: slot 1" in text, text)
    check("0.750000" in text and "1.000000" in text, text)
    # A tie goes to slot 0.
    same = record(6, 0, ENTRIES)
    check(inspect_json(write("tie.ldpl", slot(same) + slot(same)))["current"] == 0, "tie")


def case_ledger_invalid() -> None:
    """Each damaged slot says why; a load takes the other, starts fresh, or fails closed."""
    good = record(3, 7, ENTRIES)
    flipped = bytearray(good)
    flipped[40] ^= 1
    cases: List[Tuple[str, bytes, str]] = [
        ("crc", bytes(flipped), "checksum_mismatch"),
        ("version", record(3, 7, ENTRIES, version=2), "unsupported_version"),
        ("magic", b"LDPX" + good[4:], "malformed_report"),
        ("order", record(3, 7, ENTRIES[::-1]), "malformed_report"),
        ("too_many", good[:6] + struct.pack("<H", 8) + good[8:], "wrong_length"),
    ]
    for name, bad, reason in cases:
        j = inspect_json(write(f"{name}.ldpl", slot(bad) + slot(good)))
        check(j["slots"][0] == {"slot": 0, "state": "invalid", "reason": reason}, f"{name}: {j['slots'][0]}")
        check(j["current"] == 1 and j["load"] == "ok", f"{name}: current {j['current']}")
    both = write("both.ldpl", slot(bytes(flipped)) + slot(bytes(flipped)))
    j = inspect_json(both)
    check(j["current"] is None and j["load"] == "checksum_mismatch", f"both damaged: {j}")
    check("fails closed with checksum_mismatch (9)" in run(["ledger", "inspect", both]).stdout, "fail closed text")
    fresh = write("fresh.ldpl", slot(bytes(flipped)) + b"\xff" * SLOT)
    j = inspect_json(fresh)
    check(j["slots"][1]["state"] == "erased" and j["load"] == "fresh", f"erased: {j}")
    check("starts a fresh ledger" in run(["ledger", "inspect", fresh]).stdout, "fresh text")
    # Flash that erases to 0x00 is named so.
    zeros = write("zeros.ldpl", bytes(2 * SLOT))
    check(inspect_json(zeros)["load"] == "checksum_mismatch", "0x00 is not erased by default")
    check(json.loads(run(["ledger", "inspect", zeros, "-f", "json", "--erased-byte", "0"]).stdout)["load"] == "fresh",
          "--erased-byte 0")


def case_ledger_bad_files() -> None:
    """Files that cannot be a ledger are refused with exit 2 and a one-line reason."""
    for name, data in [("odd.ldpl", b"\xff" * 129), ("short.ldpl", b"\xff" * 126), ("empty.ldpl", b"")]:
        proc = run(["ledger", "inspect", write(name, data)], expect=2)
        check("two slots of equal size" in proc.stderr, proc.stderr)
    proc = run(["ledger", "inspect", os.path.join(WORK, "missing.ldpl")], expect=2)
    check(proc.stderr.startswith("ldp: "), proc.stderr)
    run(["ledger"], expect=2)
    run(["ledger", "inspect", os.path.join(WORK, "odd.ldpl"), "--erased-byte", "256"], expect=2)


CASES: Dict[str, Callable[[], None]] = {
    "ledger_inspect": case_ledger_inspect,
    "ledger_invalid": case_ledger_invalid,
    "ledger_bad_files": case_ledger_bad_files,
}


def main(argv: Optional[List[str]] = None) -> int:
    """Runs one case; exit 0 when it passes."""
    global LDP, WORK
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ldp", required=True)
    parser.add_argument("--work", required=True)
    parser.add_argument("case", choices=sorted(CASES))
    args = parser.parse_args(argv)
    LDP = args.ldp
    WORK = args.work
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    try:
        CASES[args.case]()
    except Failure as failure:
        print(f"FAIL {args.case}: {failure}", file=sys.stderr)
        return 1
    print(f"ok {args.case}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
