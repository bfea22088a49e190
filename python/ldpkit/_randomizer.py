"""Devices: :class:`Randomizer`, the ldp tool's simulated fleet over a numpy array or strings."""

from __future__ import annotations

import os
from typing import Any, Optional

import numpy as np

from ldpkit import _core
from ldpkit._params import MECHANISMS, _is_int
from ldpkit._strings import encode_strings


def fresh_seed() -> int:
    """A 64-bit seed from the operating system (os.urandom), for ``seed=None``."""
    return int.from_bytes(os.urandom(8), "little")


def check_seed(seed: Optional[int]) -> int:
    """``seed``, or a fresh one for None; TypeError / ValueError unless an int in [0, 2^64)."""
    if seed is None:
        return fresh_seed()
    if not _is_int(seed):
        raise TypeError(f"seed must be an int or None, got {type(seed).__name__}")
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be in [0, 2^64), got {seed}")
    return int(seed)


def device_array(params: _core.Params, values: Any) -> np.ndarray:
    """The values as the devices of ``params`` read them, without a copy when they already are:
    int64 items of shape (n,) for the frequency oracles; float64 of shape (n,) for laplace and duchi;
    float64 of shape (n, d) for laplace-vector, vector-mean, l2-ball, privunitg, projunit, fastprojunit and
    sparse-projection (d = the block's dimension). TypeError for another dtype, ValueError for another
    shape or no devices."""
    kind = MECHANISMS[params.mechanism]["input"]
    array = np.asarray(values)
    if array.size == 0:
        raise ValueError("values holds no devices")
    if kind == "item":
        if array.dtype.kind not in "iu":
            raise TypeError(f"{params.mechanism} takes integer items, got dtype {array.dtype}")
        if array.ndim != 1:
            raise ValueError(f"{params.mechanism} takes a 1-D array of items, got shape {array.shape}")
        return np.ascontiguousarray(array, dtype=np.int64)
    if array.dtype.kind not in "fiu":
        raise TypeError(f"{params.mechanism} takes real values, got dtype {array.dtype}")
    if kind == "value":
        if array.ndim != 1:
            raise ValueError(f"{params.mechanism} takes a 1-D array of values, got shape {array.shape}")
    elif kind in ("vector", "sparse"):
        dim = params.fields["domain"]
        if array.ndim == 1 and dim == 1:
            array = array.reshape(-1, 1)
        if array.ndim != 2 or array.shape[1] != dim:
            raise ValueError(f"{params.mechanism} takes an n x {dim} array of vectors, got shape {array.shape}")
    else:
        raise ValueError(f"{params.mechanism} is a multi-round protocol: use ldpkit.simulate_protocol")
    return np.ascontiguousarray(array, dtype=np.float64)


class Randomizer:
    """The devices of one parameter block, as ``ldp simulate`` runs them.

    ``randomize(values)`` returns one wire batch (``bytes``, docs/wire_format.md section 6) with a
    report per device. The first call with ``seed=S`` is byte-identical to ``ldp simulate ... --seed
    S`` on the same values (``--data csv:FILE`` holding them; for pem, treehist and sfp, ``--data
    text:FILE`` holding the strings one per line); every later call draws fresh
    randomness (call k >= 1 uses the seed ``_core.call_seed_of(S, k)``), so a Randomizer never repeats
    its noise. ``seed=None`` takes a seed from the operating system. ``threads`` worker threads run
    the devices (the bytes do not depend on it); the GIL is released while they run.

    The multi-round protocols (kent, winsorized-mean) run in :func:`ldpkit.simulate_protocol`.
    """

    def __init__(self, params: _core.Params, seed: Optional[int] = None, *, threads: int = 1) -> None:
        if not isinstance(params, _core.Params):
            raise TypeError(f"params must be an ldpkit.Params, got {type(params).__name__}")
        if not _is_int(threads) or threads < 0:
            raise ValueError(f"threads must be an int >= 0 (0: one per hardware thread), got {threads!r}")
        if MECHANISMS[params.mechanism]["input"] in ("observations", "samples"):
            raise ValueError(f"{params.mechanism} is a multi-round protocol: use ldpkit.simulate_protocol")
        self._core = _core.Randomizer(params, check_seed(seed), int(threads))

    @property
    def params(self) -> _core.Params:
        """The parameter block."""
        return self._core.params

    @property
    def seed(self) -> int:
        """The simulation seed S (the one drawn for ``seed=None``)."""
        return self._core.seed

    @property
    def calls(self) -> int:
        """How many batches :meth:`randomize` has returned."""
        return self._core.calls

    def randomize(self, values: Any) -> bytes:
        """One wire batch for ``values``: items (ints in [0, d)) for the frequency oracles, reals for
        laplace and duchi, an n x d array for the vector mechanisms, a sequence of strings (str,
        sent as UTF-8, or bytes) for pem, treehist and sfp. Arrays already of dtype int64 (items) or
        float64 (reals) and C-contiguous are read in place. Raises :class:`ldpkit.Error` when the
        tool refuses a value (an item outside the domain, ...) and ValueError naming the index of a
        string that is empty, longer than the block's ``string_length`` bytes or holds a zero byte
        (nothing is drawn then: the call does not count)."""
        if MECHANISMS[self.params.mechanism]["input"] == "string":
            return self._core.randomize_strings(encode_strings(values, "string"))
        return self._core.randomize(device_array(self.params, values))

    def __repr__(self) -> str:
        return f"Randomizer({self.params!r}, seed={self.seed}, calls={self.calls})"
