"""The multi-round user-level protocols (kent, winsorized-mean), run as ``ldp simulate`` runs them."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import tempfile
from typing import Any, Dict, List, Optional

import numpy as np
import pandas as pd

from ldpkit import _core
from ldpkit._aggregator import Aggregator
from ldpkit._core import Error
from ldpkit._estimates import Estimates
from ldpkit._params import PROTOCOLS, _is_int, check_options
from ldpkit._randomizer import check_seed


@dataclasses.dataclass
class ProtocolRun:
    """What one simulated run of a user-level protocol produced (the files ``ldp simulate`` writes).

    Attributes:
        mechanism: "kent" or "winsorized-mean".
        seed: the simulation seed.
        batches: the round-2 batches (the ones whose states estimate): one for kent with dim 1, one
            per fold for kent with dim d > 1, one per query for winsorized-mean.
        round1: with ``round1=True``, the round-1 batches in the same order (a single-stage kent
            plan has none: the tool refuses round1=True for it).
        windows: winsorized-mean: each query's broadcast window list (what
            ``Aggregator(params, windows=...)`` needs to count its round-2 batch); else empty.
        estimates: the protocol's estimates, one :class:`Estimates` per query (winsorized-mean: the
            server's central-DP release; kent with dim d > 1: the protocol's d estimates combined
            over the folds; kent with dim 1: ``ldp estimate``'s mean of the round-2 state).
        truth: the exact answer (``--truth-out``) as a DataFrame (coordinate, mean).
        log: what ``ldp simulate`` printed (plan, rounds, releases).
        files: the files written, by option name (``out``, ``round1_out``, ...), when a directory was
            given; empty otherwise (they were temporary).
    """

    mechanism: str
    seed: int
    batches: List[bytes]
    round1: List[bytes]
    windows: List[bytes]
    estimates: List[Estimates]
    truth: pd.DataFrame
    log: str
    files: Dict[str, List[str]]


def _written(path: str, tag: str) -> List[str]:
    """``path`` if simulate wrote it, else its per-fold or per-query files in index order."""
    if os.path.exists(path):
        return [path]
    found = []
    while os.path.exists(_core.indexed_path(path, tag, len(found))):
        found.append(_core.indexed_path(path, tag, len(found)))
    return found


def _log(path: str) -> str:
    """What the run printed ("" when it stopped before the log file was made)."""
    if not os.path.exists(path):
        return ""
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def _read(paths: List[str]) -> List[bytes]:
    out = []
    for path in paths:
        with open(path, "rb") as f:
            out.append(f.read())
    return out


def _user_rows(mechanism: str, values: Any, options: Dict[str, Any]) -> np.ndarray:
    """The users' data as ``ldp simulate --data csv:`` rows: kent T (x dim) reals per user,
    winsorized-mean m x dim (sample after sample); an (n, m, dim) array is flattened per user."""
    array = np.asarray(values)
    if array.dtype.kind not in "fiu":
        raise TypeError(f"{mechanism} takes real values, got dtype {array.dtype}")
    width = int(options["observations"]) * int(options.get("dim", 1))
    if array.ndim == 1 and width == 1:
        array = array.reshape(-1, 1)
    if array.ndim == 3:
        array = array.reshape(array.shape[0], -1)
    if array.ndim != 2 or array.shape[1] != width or array.shape[0] == 0:
        raise ValueError(
            f"{mechanism} takes an n x {width} array (observations x dim reals per user), got shape {array.shape}"
        )
    return np.ascontiguousarray(array, dtype=np.float64)


def simulate_protocol(
    mechanism: str,
    values: Any,
    *,
    epsilon: float,
    seed: Optional[int] = None,
    round1: bool = False,
    directory: Optional[str] = None,
    threads: int = 1,
    **options: Any,
) -> ProtocolRun:
    """Runs a user-level protocol over simulated users holding ``values``, exactly as
    ``ldp simulate --mechanism MECHANISM --epsilon EPSILON --seed SEED --data csv:FILE ...`` runs it
    on the same values (same batches, same releases), and returns a :class:`ProtocolRun`.

    The protocols are multi-round, with the server in the loop between the rounds, so the whole run
    is one call (the rounds' batches come back for inspection and for re-aggregation with
    :class:`ldpkit.Aggregator`):

    * ``kent`` (docs/mechanisms.md C.1; options ``range``, ``observations`` and optionally ``dim``,
      ``ball``, ``plan``, ``cap``, ``frac_bits``, ``public_seed``): each row holds a user's T
      observations (T x dim reals with ``dim``). Round 1's voters choose an interval, round 2's
      users report their clamped local mean; the estimate is the mean of the users' local means.
    * ``winsorized-mean`` (C.2, central DP; options ``dim``, ``range``, ``observations`` and
      optionally ``delta``, ``tau`` (default: Levy et al. Cor. 1's from m and ``gamma``), ``gamma``,
      ``beta``, ``window``, ``budget``, ``queries``, ``frac_bits``,
      ``public_seed``): each row holds a user's m samples of ``dim`` reals (an (n, m, dim) array is
      accepted). Each query runs its two rounds and the server's release.

    ``round1=True`` also returns kent's round-1 batches. ``directory`` keeps the files simulate
    wrote there (else they live in a temporary directory). The tool's summary is in ``.log``.
    The GIL is released while the protocol runs.
    """
    text = check_options(mechanism, epsilon, options)
    if mechanism not in PROTOCOLS:
        raise ValueError(f"{mechanism} is not a multi-round protocol: use ldpkit.Randomizer (protocols: {PROTOCOLS})")
    if not _is_int(threads) or threads < 0:
        raise ValueError(f"threads must be an int >= 0, got {threads!r}")
    rows = _user_rows(mechanism, values, options)
    seed = check_seed(seed)
    with tempfile.TemporaryDirectory(prefix="ldpkit-") as temporary:
        where = temporary if directory is None else os.fspath(directory)
        files = {
            "out": os.path.join(where, "round2.ldpb"),
            "truth_out": os.path.join(where, "truth.csv"),
            "log": os.path.join(temporary, "simulate.log"),
        }
        winsorized = mechanism == "winsorized-mean"
        if winsorized or int(options.get("dim", 1)) > 1:
            files["release_out"] = os.path.join(where, "release.json")
        if winsorized:
            files["windows_out"] = os.path.join(where, "windows.bin")
        if round1:
            files["round1_out"] = os.path.join(where, "round1.ldpb")
        try:
            _core.run_protocol(mechanism, float(epsilon), text, rows, seed, files, int(threads))
        except Error as e:
            logged = Error(f"{e}\n{_log(files['log'])}".rstrip())
            logged.status, logged.code = e.status, e.code
            raise logged from e
        log = _log(files["log"])
        tag = "query" if winsorized else "fold"
        written = {name: _written(path, tag) for name, path in files.items() if name != "log"}
        batches = _read(written["out"])
        rounds1 = _read(written.get("round1_out", []))
        windows = _read(written.get("windows_out", []))
        with open(files["truth_out"], encoding="utf-8") as f:
            truth = pd.read_csv(io.StringIO(f.read()), float_precision="round_trip")
        if "release_out" in files:
            with open(files["release_out"], encoding="utf-8") as f:
                release = json.load(f)
            estimates = [Estimates.from_json(q) for q in release.get("queries", [release])]
        else:
            state = Aggregator.from_batch(batches[0])
            state.add_batch(batches[0])
            estimates = [state.estimate()]
    return ProtocolRun(
        mechanism=mechanism,
        seed=seed,
        batches=batches,
        round1=rounds1,
        windows=windows,
        estimates=estimates,
        truth=truth,
        log=log,
        files=written if directory is not None else {},
    )
