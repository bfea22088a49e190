"""Fixtures of the ldpkit test suite: the built ``ldp`` tool (env LDP_TOOL, set by scripts/python.sh
test), a runner for it, and the mechanisms with small options and data for round trips."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Callable, Dict, List

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def ldp_tool() -> str:
    """The path of the built ``ldp`` binary: $LDP_TOOL, else build/python/tools/ldp."""
    tool = os.environ.get("LDP_TOOL", str(REPO / "build" / "python" / "tools" / "ldp"))
    if not os.access(tool, os.X_OK):
        pytest.fail(f"no ldp tool at {tool}: run scripts/python.sh test (it builds it and sets LDP_TOOL)")
    return tool


@pytest.fixture(scope="session")
def run_ldp(ldp_tool: str) -> Callable[..., str]:
    """run_ldp(*args) -> stdout of ``ldp ARGS``; a nonzero exit fails the test with its stderr."""

    def run(*args: Any) -> str:
        done = subprocess.run([ldp_tool, *map(str, args)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.fail(f"ldp {' '.join(map(str, args))} exited {done.returncode}:\n{done.stderr}")
        return done.stdout

    return run


@pytest.fixture(scope="session")
def estimate_json(run_ldp: Callable[..., str]) -> Callable[..., Dict[str, Any]]:
    """estimate_json(state_path, *args) -> ``ldp estimate STATE --format json ARGS`` parsed."""
    return lambda state, *args: json.loads(run_ldp("estimate", state, "--format", "json", *args))


# Small instances of every mechanism of `ldp simulate`: keyword options of ldpkit.params and the
# command-line options of the same run.
CASES: Dict[str, Dict[str, Any]] = {
    "grr": {"epsilon": 2.0, "domain": 20},
    "sue": {"epsilon": 2.0, "domain": 20},
    "oue": {"epsilon": 2.0, "domain": 20},
    "blh": {"epsilon": 2.0, "domain": 20},
    "olh": {"epsilon": 2.0, "domain": 20, "hash_range": 5},
    "flh": {"epsilon": 2.0, "domain": 20, "hash_functions": 64, "public_seed": 5},
    "dbitflip": {"epsilon": 2.0, "domain": 20, "sampled_buckets": 3},
    "hr": {"epsilon": 2.0, "domain": 20},
    "cms": {"epsilon": 2.0, "domain": 20, "sketch": (4, 32), "public_seed": 9},
    "hcms": {"epsilon": 2.0, "domain": 20, "sketch": "4:32"},
    "laplace": {"epsilon": 1.0, "range": (-1.5, 2.0)},
    "duchi": {"epsilon": 1.0, "range": "0:10", "frac_bits": 12},
    "laplace-vector": {"epsilon": 1.0, "dim": 3, "range": (0.0, 1.0)},
    "vector-mean": {"epsilon": 1.0, "dim": 4, "radius": 1.0, "noise": "laplace", "public_seed": 3},
    "l2-ball": {"epsilon": 1.0, "dim": 4, "radius": 1.0},
    "privunitg": {"epsilon": 1.0, "dim": 4, "radius": 1.0},
    "projunit": {"epsilon": 1.0, "dim": 6, "radius": 1.0, "projection_dim": 3},
    "fastprojunit": {"epsilon": 1.0, "dim": 6, "radius": 1.0, "projection_dim": 3},
    "sparse-projection": {"epsilon": 1.0, "dim": 8, "sparsity": 2, "radius": 1.0},
    "kent": {"epsilon": 1.0, "range": (0.0, 1.0), "observations": 4},
    "winsorized-mean": {"epsilon": 2.0, "dim": 2, "range": (0.0, 1.0), "observations": 3},
    "pem": {"epsilon": 4.0, "string_length": 4, "prefix_bits": 8, "domain": 4096},
    "treehist": {"epsilon": 4.0, "string_length": 4, "prefix_bits": 4, "sketch": (4, 64), "public_seed": 3},
    "sfp": {"epsilon": 4.0, "string_length": 4, "sketch": "4:64", "public_seed": 2},
    "square-wave": {"epsilon": 2.0, "range": (0.0, 1.0), "buckets": 64, "half_width": 5},
    "hierarchical": {"epsilon": 2.0, "range": (0.0, 1.0), "buckets": 64, "branching": 4},
    "haar": {"epsilon": 2.0, "range": "0:1", "buckets": 32},
}

#: The string-discovery mechanisms: their devices hold strings (docs/python.md "Strings").
STRING_MECHANISMS = ("pem", "treehist", "sfp")

# The vocabulary of the string cases: short words, the first ones the most frequent.
WORDS = np.array(["the", "of", "and", "to", "a", "in", "is", "it", "you", "that", "he", "was", "for", "on", "are"])


def cli_options(case: Dict[str, Any]) -> List[str]:
    """The command line of a case: --epsilon E --domain D --range lo:hi ..."""
    out: List[str] = []
    for name, value in case.items():
        if isinstance(value, tuple):
            value = ":".join(repr(v) for v in value)
        out += [f"--{name.replace('_', '-')}", str(value)]
    return out


def case_values(mechanism: str, devices: int, seed: int = 0) -> np.ndarray:
    """Data for a case: items for the oracles, strings (a numpy str array) for the string mechanisms,
    reals in range for the others (rows per device)."""
    case = CASES[mechanism]
    rng = np.random.default_rng(seed)
    if mechanism in STRING_MECHANISMS:
        return WORDS[(rng.zipf(1.5, devices) - 1) % len(WORDS)]
    if "domain" in case:
        return (rng.zipf(1.5, devices) - 1) % case["domain"]
    if mechanism in ("vector-mean", "l2-ball", "privunitg", "projunit", "fastprojunit"):
        x = rng.uniform(-1, 1, (devices, case["dim"]))
        return x / np.maximum(1.0, np.linalg.norm(x, axis=1))[:, None] * 0.9
    if mechanism == "sparse-projection":
        x = np.zeros((devices, case["dim"]))
        x[np.arange(devices), rng.integers(0, case["dim"], devices)] = rng.uniform(-0.7, 0.7, devices)
        return x
    lo, hi = (-1.5, 2.0) if mechanism == "laplace" else (0.0, 10.0) if mechanism == "duchi" else (0.0, 1.0)
    if mechanism == "kent":
        return rng.beta(2, 5, (devices, case["observations"]))
    if mechanism == "winsorized-mean":
        return rng.beta(2, 5, (devices, case["observations"] * case["dim"]))
    if mechanism == "laplace-vector":
        return rng.uniform(lo, hi, (devices, case["dim"]))
    return rng.uniform(lo, hi, devices)


def write_csv(path: Path, values: np.ndarray) -> str:
    """The values as a CSV file ``ldp simulate --data csv:`` reads (one device per row, no header,
    reals with 17 significant digits so they read back exactly); returns the --data spec."""
    rows = values.reshape(len(values), -1)
    with open(path, "w") as f:
        for row in rows:
            f.write(",".join(repr(int(v)) if values.dtype.kind in "iu" else repr(float(v)) for v in row) + "\n")
    return f"csv:{path}"


def write_data(path: Path, values: np.ndarray) -> str:
    """The --data spec of a case's values written to ``path``: strings one per line (``text:``),
    anything else as :func:`write_csv`."""
    if values.dtype.kind == "U":
        path.write_text("".join(f"{v}\n" for v in values))
        return f"text:{path}"
    return write_csv(path, values)


# ---- Batches taken apart and put back (docs/wire_format.md section 6) -----------------------------

def crc32c(data: bytes) -> int:
    """CRC-32C (Castagnoli, reflected 0x82F63B78), bit by bit: the test data are small."""
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def header_size(batch: bytes) -> int:
    """Magic, version, flags, u16 block length, the block, fingerprint, CRC32C."""
    return 8 + int.from_bytes(batch[6:8], "little") + 12


def chunks_of(batch: bytes) -> List[bytes]:
    """The batch's chunks as they are written (count, length, body, CRC), the terminator last."""
    out, at = [], header_size(batch)
    while at < len(batch):
        size = 8 + int.from_bytes(batch[at + 4:at + 8], "little") + 4
        out.append(batch[at:at + size])
        at += size
    return out


def make_chunk(records: int, body: bytes) -> bytes:
    """A chunk with a valid CRC32C (records 0 and no body: the terminator)."""
    head = records.to_bytes(4, "little") + len(body).to_bytes(4, "little") + body
    return head + crc32c(head).to_bytes(4, "little")
