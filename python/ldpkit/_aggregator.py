"""Servers: :class:`Aggregator`, the server's exact and mergeable state."""

from __future__ import annotations

import os
from typing import Any, Dict, Optional, Sequence, Union

from ldpkit import _core
from ldpkit._estimates import Estimates
from ldpkit._params import _is_int, _is_real, batch_params
from ldpkit._randomizer import check_seed
from ldpkit._strings import decode_strings, encode_strings

#: The default memory ceiling of an aggregator (server::limits, docs/security_model.md "Memory contract"):
#: 1 GiB, as ``ldp aggregate --max-state-bytes``.
DEFAULT_MAX_STATE_BYTES = 1 << 30

BytesLike = Union[bytes, bytearray, memoryview]
PathLike = Union[str, "os.PathLike[str]"]


def _ceiling(max_state_bytes: Optional[int]) -> int:
    if max_state_bytes is None:
        return DEFAULT_MAX_STATE_BYTES
    if not _is_int(max_state_bytes):
        raise TypeError(f"max_state_bytes must be an int or None, got {type(max_state_bytes).__name__}")
    if not 0 < max_state_bytes < 2**64:
        raise ValueError(f"max_state_bytes must be in [1, 2^64), got {max_state_bytes}")
    return int(max_state_bytes)


def _confidence(confidence: Any) -> float:
    if not _is_real(confidence):
        raise TypeError(f"confidence must be a number, got {type(confidence).__name__}")
    return float(confidence)


def _string_estimates(result: Any) -> Estimates:
    """The frame of a string state's ``_core`` result, its items (bytes) decoded as str."""
    items, *rest = result
    return Estimates.from_core((decode_strings(items), *rest))


def _buffer(data: Any, what: str) -> Any:
    """``data`` if it is bytes-like (the buffer protocol; read in place, never copied), else TypeError."""
    try:
        memoryview(data)
    except TypeError:
        raise TypeError(f"{what} must be bytes-like, got {type(data).__name__}") from None
    return data


class Aggregator:
    """The server's state for one parameter block: exact integer counts of the reports, mergeable
    in any order with byte-identical results (docs/architecture.md "The server contract").

    ``Aggregator(params)`` refuses (:class:`ldpkit.Error` ``limit_exceeded``) a block whose state
    would need more than ``max_state_bytes`` (default 1 GiB, as ``ldp aggregate``) before allocating
    anything for it. A winsorized-mean round-2 (winsorized-sums) block needs ``windows``, the
    broadcast window list of its round 1.

    A bad report is counted in :attr:`rejected` by its status, never raised; a chunk whose CRC fails
    is counted in :attr:`damaged_chunks` and the other chunks still count; a batch or file whose
    framing cannot be read to its end raises :class:`ldpkit.Error` after counting the chunks before
    the damage (``ldp aggregate --keep-partial``). The GIL is released while it counts, merges,
    serializes and estimates, so threads sharing nothing scale; an Aggregator shared by threads
    serializes them with its own lock. Aggregators pickle as their saved state.
    """

    def __init__(
        self, params: _core.Params, max_state_bytes: Optional[int] = None, *, windows: Optional[BytesLike] = None
    ) -> None:
        if not isinstance(params, _core.Params):
            raise TypeError(f"params must be an ldpkit.Params, got {type(params).__name__}")
        if windows is not None:
            _buffer(windows, "windows")
        self._core = _core.Aggregator(params, _ceiling(max_state_bytes), windows)

    @classmethod
    def _wrap(cls, core: Any) -> "Aggregator":
        out = cls.__new__(cls)
        out._core = core
        return out

    @staticmethod
    def deserialize(data: BytesLike, max_state_bytes: Optional[int] = None) -> "Aggregator":
        """The aggregator of a saved state (:meth:`serialize`, ``ldp aggregate``'s state file bytes),
        checked field by field; a state larger than ``max_state_bytes`` is refused (``limit_exceeded``)."""
        return Aggregator._wrap(_core.Aggregator.deserialize(_buffer(data, "data"), _ceiling(max_state_bytes)))

    @staticmethod
    def load(path: PathLike, max_state_bytes: Optional[int] = None) -> "Aggregator":
        """The aggregator of a state file, read as ``ldp estimate`` reads it: the header first, then only
        the body it states, and only within ``max_state_bytes``."""
        return Aggregator._wrap(_core.Aggregator.load(os.fspath(path), _ceiling(max_state_bytes)))

    @staticmethod
    def from_batch(
        source: Union[PathLike, BytesLike], max_state_bytes: Optional[int] = None, *, windows: Optional[BytesLike] = None
    ) -> "Aggregator":
        """An empty aggregator for the parameters in a batch's header (:func:`ldpkit.batch_params`),
        under the same memory ceiling as ``ldp aggregate``: a hostile header cannot make it allocate."""
        return Aggregator(batch_params(source), max_state_bytes, windows=windows)

    def add_batch(self, data: BytesLike) -> None:
        """Counts a wire batch held in memory (read in place). Raises :class:`ldpkit.Error`
        (``parameter_mismatch``: nothing counted) for a batch of other parameters, and for a batch
        whose framing cannot be read to its terminator (the chunks before it count)."""
        self._core.add_batch(_buffer(data, "data"))

    def add_report(self, data: BytesLike) -> bool:
        """Counts one wire report (header + payload); False when it is rejected (counted in
        :attr:`rejected`)."""
        return self._core.add_report(_buffer(data, "data"))

    def add_file(self, path: PathLike) -> None:
        """Counts a batch file as ``ldp aggregate`` does: streamed chunk by chunk in memory bounded by
        the largest chunk, whatever the file's size. Raises :class:`ldpkit.Error` for a file of other
        parameters (``parameter_mismatch``, nothing counted), an aggregator state, an unreadable header,
        or a truncated or damaged framing (the chunks before it count). A file added twice counts
        twice (``ldp aggregate`` refuses duplicate inputs unless ``--allow-duplicates``; here the
        caller decides)."""
        self._core.add_file(os.fspath(path))

    def merge(self, other: "Aggregator") -> None:
        """Adds another aggregator's counts (and rejection counters). Raises :class:`ldpkit.Error`
        ``parameter_mismatch`` (nothing changes) for a state of other parameters."""
        if not isinstance(other, Aggregator):
            raise TypeError(f"other must be an ldpkit.Aggregator, got {type(other).__name__}")
        self._core.merge(other._core)

    def serialize(self) -> bytes:
        """The saved state (docs/wire_format.md section 7): the bytes ``ldp aggregate`` writes to its
        state file for the same reports, whatever the order and split they were counted in."""
        return self._core.serialize()

    def save(self, path: PathLike) -> None:
        """Writes :meth:`serialize` to ``path`` (a state file ``ldp estimate`` and ``ldp merge`` read)."""
        self._core.save(os.fspath(path))  # atomic, as ldp aggregate --out

    @property
    def params(self) -> _core.Params:
        """The parameter block."""
        return self._core.params

    @property
    def reports(self) -> int:
        """Reports accepted."""
        return self._core.reports

    @property
    def rejected(self) -> Dict[str, int]:
        """Rejected reports by status name (``{"malformed_report": 3}``), only the nonzero counts."""
        return self._core.rejected

    @property
    def damaged_chunks(self) -> int:
        """Batch chunks whose CRC32C failed: their records are unknown and counted nowhere."""
        return self._core.damaged_chunks

    @property
    def max_state_bytes(self) -> int:
        """The memory ceiling this aggregator was made under."""
        return self._core.max_state_bytes

    def estimate(self, confidence: float = 0.95) -> Estimates:
        """``ldp estimate --format json``'s estimates: every item's count (frequency oracles) or every
        coordinate's mean, with the closed-form variance and a normal interval at ``confidence``.
        ValueError for a central-DP state (sparse-projection, winsorized-mean), whose exact sums are
        not private: :meth:`release` them; and for a string state (pem, treehist, sfp), whose
        estimates are :meth:`discover` and :meth:`estimate_strings`."""
        return Estimates.from_core(self._core.estimate(_confidence(confidence)))

    def discover(self, k: int, keep: int = 0, alphabet: Union[str, bytes] = "", confidence: float = 0.95) -> Estimates:
        """The (at most) ``k`` most frequent strings of a pem, treehist or sfp state, best first, as
        ``ldp estimate STATE --discover K --keep N --alphabet B`` finds them (docs/mechanisms.md F):
        one row per string with ``item`` (str: UTF-8, other bytes as surrogate escapes, so
        ``item.encode("utf-8", "surrogateescape")`` is the exact string), the estimated count of
        users holding it (of all reports), its variance and a normal interval at ``confidence``.

        ``keep``: pem, the prefixes kept per group; treehist and sfp, the most prefixes or
        fragments kept per group (0: 4 k for each). ``alphabet`` (str as UTF-8, or bytes): sfp, the bytes its
        fragments try (empty: 0x20..0x7e); pem and treehist, a prefix whose completed byte is outside
        it (and not the padding) is dropped (empty: every byte). ValueError
        for another state or k < 1; :class:`ldpkit.Error` ``limit_exceeded`` when a candidate table
        would pass the server's bound."""
        for name, value, low in (("k", k, 1), ("keep", keep, 0)):
            if not _is_int(value):
                raise TypeError(f"{name} must be an int, got {type(value).__name__}")
            if not low <= value < 2**32:
                raise ValueError(f"{name} must be in [{low}, 2^32), got {value}")
        if isinstance(alphabet, str):
            alphabet = alphabet.encode("utf-8")
        if not isinstance(alphabet, (bytes, bytearray)):
            raise TypeError(f"alphabet must be a str or bytes, got {type(alphabet).__name__}")
        result = self._core.discover(int(k), int(keep), bytes(alphabet), _confidence(confidence))
        return _string_estimates(result)

    def estimate_strings(self, strings: Sequence[Union[str, bytes]], confidence: float = 0.95) -> Estimates:
        """The estimated counts of the given strings (str as UTF-8, or bytes) of a pem, treehist or
        sfp state, in their order, in :meth:`discover`'s form (``ldp estimate STATE --candidates
        FILE``). ValueError for another state and naming the index of a string that is empty,
        longer than the block's ``string_length`` bytes or holds a zero byte."""
        encoded = encode_strings(strings, "candidate")
        return _string_estimates(self._core.estimate_strings(encoded, _confidence(confidence)))

    def release(
        self,
        epsilon: float,
        delta: float = 0.0,
        seed: Optional[int] = None,
        *,
        queries: int = 1,
        budget: str = "tight",
        users: int = 0,
        confidence: float = 0.95,
    ) -> Estimates:
        """The central-DP release of a sparse-projection or winsorized-mean round-2 (winsorized-sums)
        state, as ``ldp estimate STATE --epsilon E --delta D --release-seed S`` makes it (the same
        numbers for the same seed; ``seed=None`` draws one from the operating system). For
        winsorized-sums, ``queries``, ``budget`` and ``users`` are the session's ``--queries``,
        ``--budget`` and ``--users``. The intervals cover the server's noise only."""
        for name, value in (("epsilon", epsilon), ("delta", delta), ("confidence", confidence)):
            if not _is_real(value):
                raise TypeError(f"{name} must be a number, got {type(value).__name__}")
        for name, value in (("queries", queries), ("users", users)):
            if not _is_int(value) or value < 0:
                raise ValueError(f"{name} must be an int >= 0, got {value!r}")
        if budget not in ("tight", "paper"):
            raise ValueError(f"budget must be 'tight' or 'paper', got {budget!r}")
        request = _core.ReleaseRequest()
        request.epsilon = float(epsilon)
        request.delta = float(delta)
        request.seed = check_seed(seed)
        request.queries = int(queries)
        request.budget = budget
        request.users = int(users)
        return Estimates.from_core(self._core.release(request, float(confidence)))

    def __reduce__(self) -> Any:
        return (Aggregator.deserialize, (self.serialize(), self.max_state_bytes))

    def __repr__(self) -> str:
        return f"Aggregator({self.params!r}, reports={self.reports}, rejected={sum(self.rejected.values())})"
