"""Counting batch files on a Dask cluster (docs/dask.md).

Every partition of the input builds one :class:`ldpkit.Aggregator` on a worker and ships its
serialized state; the states merge in a tree of fan-in ``split_every`` (``dask.bag.Bag.reduction``).
Only states travel between workers, never reports. Aggregation is exact integer arithmetic and a
state's saved form is canonical, so the result is byte-identical to ``ldp aggregate`` of the same
files on one machine, whatever the partitioning, the tree or the order the merges run in.

Import it explicitly (``import ldpkit.dask``): ``import ldpkit`` does not load Dask.
"""
from __future__ import annotations

import contextlib
import functools
import glob
import hashlib
import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union

import dask
import dask.bag as db

import ldpkit
from ldpkit import _core

__all__ = ["aggregate", "aggregate_bag"]

PathLike = Union[str, "os.PathLike[str]"]
Paths = Union[PathLike, Sequence[PathLike]]
BatchBytes = Union[bytes, bytearray, memoryview]

# Bytes read from each file of equal size to tell candidates for duplicates apart cheaply.
_PREFIX_BYTES = 1 << 16


def _error(status: str, message: str) -> "ldpkit.Error":
    """An ldpkit.Error as the extension raises them: .status the library's name, .code its number."""
    error = ldpkit.Error(message)
    error.status = status
    error.code = next(code for code, name in _core.status_names().items() if name == status)
    return error


# ---- What runs on the workers (module-level functions: they pickle by reference) ----------------


class _Spec(NamedTuple):
    """What every aggregator of one computation is made from: the parameter block's bytes, the
    memory ceiling, for winsorized-sums the window list, and the server threads of a task."""

    block: bytes
    max_state_bytes: int
    windows: Optional[bytes]
    server_threads: int

    def new(self) -> "ldpkit.Aggregator":
        return ldpkit.Aggregator(ldpkit.params_from_bytes(self.block), self.max_state_bytes, windows=self.windows)

    def load(self, state: bytes) -> "ldpkit.Aggregator":
        return ldpkit.Aggregator.deserialize(state, max_state_bytes=self.max_state_bytes)


def _add_file(agg: "ldpkit.Aggregator", path: str) -> None:
    agg.add_file(path)


def _add_tagged_batch(agg: "ldpkit.Aggregator", tagged: Tuple[str, BatchBytes]) -> None:
    where, data = tagged
    try:
        agg.add_batch(data)
    except ldpkit.Error as e:
        if e.status != "parameter_mismatch":
            raise
        got = ldpkit.batch_params(data)
        raise _error(e.status, _mismatch_message(where, "the given parameters", got, agg.params)) from None


@contextlib.contextmanager
def _server_threads(threads: int) -> Iterator[None]:
    """The server's thread limit while a task runs (ldpkit.set_thread_limit), then the default.
    Dask gives every worker thread a task; a task whose OLH/BLH/FLH support counting spread over
    all CPUs as well would oversubscribe them (docs/dask.md, "Scaling model")."""
    ldpkit.set_thread_limit(threads)
    try:
        yield
    finally:
        ldpkit.set_thread_limit(0)


def _count_partition(inputs: Iterable[Any], spec: _Spec, add: Callable[["ldpkit.Aggregator", Any], None]) -> bytes:
    """One partition: an aggregator over its inputs, returned as its serialized state."""
    with _server_threads(spec.server_threads):
        agg = spec.new()
        for item in inputs:
            add(agg, item)
        return agg.serialize()


def _merge_states(states: Iterable[bytes], spec: _Spec) -> bytes:
    """One node of the reduction tree: the serialized sum of its children's states (the state of
    no reports when it has none, which happens only when every partition is empty)."""
    states = list(states)
    if not states:
        return spec.new().serialize()
    if len(states) == 1:
        return states[0]  # already canonical: re-serializing would give the same bytes
    with _server_threads(spec.server_threads):
        agg = spec.load(states[0])
        for state in states[1:]:
            agg.merge(spec.load(state))
        return agg.serialize()


def _tag_partition(part: Iterable[BatchBytes], index: int) -> List[Tuple[str, BatchBytes]]:
    return [(f"batch {j} of partition {index}", data) for j, data in enumerate(part)]


# ---- What runs on the client --------------------------------------------------------------------


def _mismatch_message(where: str, first: str, got: "ldpkit.Params", want: "ldpkit.Params") -> str:
    # The wording of `ldp aggregate` (tools/ldp/cmd_aggregate.cpp).
    return (f"{where} has other parameters than {first} (fingerprint {got.fingerprint:016x}, "
            f"not {want.fingerprint:016x}): aggregate them separately")


def _expand(paths: Paths) -> List[str]:
    """The batch files a glob string, one path or a sequence of paths names, in order."""
    if isinstance(paths, (str, os.PathLike)):
        pattern = os.fspath(paths)
        if not glob.has_magic(pattern):
            return [pattern]
        found = sorted(glob.glob(pattern, recursive=True))
        if not found:
            raise FileNotFoundError(f"no batch file matches {pattern!r}")
        return found
    if isinstance(paths, (bytes, bytearray, memoryview)):
        raise TypeError("paths: a glob string or a sequence of paths, not bytes (aggregate_bag counts batch bytes)")
    files = [os.fspath(p) for p in paths]
    if not files:
        raise ValueError("paths: no batch files")
    return files


def _prefix_digest(path: str) -> bytes:
    with open(path, "rb") as f:
        return hashlib.blake2b(f.read(_PREFIX_BYTES), digest_size=16).digest()


def _same_content(a: str, b: str) -> bool:
    with open(a, "rb") as fa, open(b, "rb") as fb:
        while True:
            x, y = fa.read(1 << 20), fb.read(1 << 20)
            if x != y:
                return False
            if not x:
                return True


def _refuse_duplicates(files: Sequence[str]) -> None:
    """Refuses a file named twice, as `ldp aggregate` does (docs/cli.md "aggregate"): two names of
    one file (device and inode), or two byte-identical regular files (equal sizes and prefixes,
    then compared in full)."""
    by_identity: Dict[Tuple[int, int], int] = {}
    by_prefix: Dict[Tuple[int, bytes], List[int]] = {}
    for i, path in enumerate(files):
        st = os.stat(path)
        twin = by_identity.setdefault((st.st_dev, st.st_ino), i)
        if twin == i and os.path.isfile(path):
            candidates = by_prefix.setdefault((st.st_size, _prefix_digest(path)), [])
            twin = next((c for c in candidates if _same_content(files[c], path)), i)
            candidates.append(i)
        if twin != i:
            raise ValueError(f"input batch {path} is the same file as input batch {files[twin]}: it would be "
                             "counted twice (allow_duplicates=True counts it anyway)")


def _check_headers(files: Sequence[str], params: Optional["ldpkit.Params"]) -> "ldpkit.Params":
    """Every file's header before anything is counted (as `ldp aggregate`): all must carry one
    parameter block, the first file's or the given one. batch_params refuses a state file, a
    missing file and an unreadable header (ldpkit.Error)."""
    first = "the given parameters" if params is not None else files[0]
    for path in files:
        got = ldpkit.batch_params(path)
        if params is None:
            params = got
        elif got.fingerprint != params.fingerprint:
            raise _error("parameter_mismatch", _mismatch_message(path, first, got, params))
    return params


def _compute(item: "dask.bag.Item", client: Any) -> bytes:
    if client is None:
        return item.compute()  # the default scheduler: a distributed Client if one is the default
    (result,) = dask.compute(item, scheduler=client)
    return result


def _reduce(bag: "db.Bag", params: "ldpkit.Params", add: Callable[["ldpkit.Aggregator", Any], None],
            split_every: int, client: Any, max_state_bytes: Optional[int],
            windows: Optional[BatchBytes], server_threads: int) -> "ldpkit.Aggregator":
    """Counts every element of the bag with `add` and merges the partitions' states in a tree."""
    if isinstance(split_every, bool) or not isinstance(split_every, int):
        raise TypeError(f"split_every: an int, not {type(split_every).__name__}")
    if split_every < 2:
        raise ValueError(f"split_every: at least 2, not {split_every}")
    if isinstance(server_threads, bool) or not isinstance(server_threads, int):
        raise TypeError(f"server_threads: an int, not {type(server_threads).__name__}")
    if server_threads < 0:
        raise ValueError(f"server_threads: at least 0, not {server_threads}")
    # On the client first: a block whose aggregator needs more than the ceiling fails here
    # (limit_exceeded), and so does a window list of another round 1, before any worker runs.
    first = ldpkit.Aggregator(params, max_state_bytes, windows=windows)
    spec = _Spec(params.to_bytes(), first.max_state_bytes, None if windows is None else bytes(windows),
                 server_threads)
    del first
    state = bag.reduction(functools.partial(_count_partition, spec=spec, add=add),
                          functools.partial(_merge_states, spec=spec),
                          split_every=split_every, name="ldpkit-count")
    return spec.load(_compute(state, client))


def aggregate(paths: Paths, client: Any = None, split_every: int = 8, params: Optional["ldpkit.Params"] = None,
              max_state_bytes: Optional[int] = None, *, npartitions: Optional[int] = None,
              allow_duplicates: bool = False, windows: Optional[BatchBytes] = None,
              server_threads: int = 1) -> "ldpkit.Aggregator":
    """Counts batch files on the workers of a Dask cluster; the result equals ``ldp aggregate``'s.

    Args:
        paths: a glob pattern (``"day*.ldpb"``, ``**`` allowed), one path, or a sequence of paths.
            The client reads every header (and, for the duplicate check, the first 64 KiB of files
            of equal sizes); the workers read the files: on a real cluster the paths must name the
            same files on the client and every worker (a shared file system).
        client: a ``distributed.Client``; ``None`` uses Dask's default scheduler (the default
            client if one exists, else ``dask.bag``'s default).
        split_every: fan-in of the reduction tree (at least 2): ``ceil(log_split_every(P))`` levels
            of merges for P partitions.
        params: the parameters every file must carry; ``None``: the first file's.
        max_state_bytes: the ceiling of every aggregator's memory, on the client and the workers
            (``ldp aggregate --max-state-bytes``); ``None``: the tool's default, 1 GiB.
        npartitions: number of partitions (tasks counting files); ``None``: one per file.
        allow_duplicates: count a file named twice (or a byte-identical copy) instead of refusing
            it (``ldp aggregate --allow-duplicates``).
        windows: winsorized-mean round 2 (winsorized-sums) only: the broadcast window list's bytes
            (``ldp simulate --windows-out``; ``ldp aggregate --windows``).
        server_threads: the server's threads in a task (:func:`ldpkit.set_thread_limit`, set while
            the task runs and back to the default after): 1, since Dask already runs a task on
            every worker thread; 0 lets each task use every CPU of its process. Results are the
            same for every value.

    Returns:
        An :class:`ldpkit.Aggregator` whose ``serialize()`` is byte-identical to the state
        ``ldp aggregate FILES --out STATE`` writes (with ``--allow-duplicates`` if given).

    Raises:
        ldpkit.Error: ``parameter_mismatch`` naming the file whose header differs (before anything
            is counted), ``limit_exceeded`` if the block's aggregator needs more than
            ``max_state_bytes``, or the status of a batch that cannot be read to its end (a
            truncated file). Bad reports and damaged chunks do not raise: they are counted in
            ``.rejected`` and ``.damaged_chunks``, the other chunks count, as in the tool.
            A state file, a missing file or an unreadable header is an ``ldpkit.Error`` too.
        ValueError: no files, a file named twice, a bad ``split_every`` or ``npartitions``.
        FileNotFoundError: a glob that matches nothing.
    """
    files = _expand(paths)
    params = _check_headers(files, params)
    if not allow_duplicates:
        _refuse_duplicates(files)
    if npartitions is None:
        npartitions = len(files)
    if isinstance(npartitions, bool) or not isinstance(npartitions, int) or npartitions < 1:
        raise ValueError(f"npartitions: a positive int, not {npartitions!r}")
    bag = db.from_sequence(files, npartitions=min(npartitions, len(files)))
    return _reduce(bag, params, _add_file, split_every, client, max_state_bytes, windows, server_threads)


def aggregate_bag(batches: "db.Bag", params: "ldpkit.Params", client: Any = None, split_every: int = 8,
                  max_state_bytes: Optional[int] = None, *,
                  windows: Optional[BatchBytes] = None, server_threads: int = 1) -> "ldpkit.Aggregator":
    """Counts a ``dask.bag`` of wire batches (``bytes``-like, each a whole batch file's bytes).

    Each partition's batches are counted on a worker into one state; the states merge in a tree of
    fan-in ``split_every``. The result equals ``ldp aggregate`` of the same batches saved as files.

    Args:
        batches: a ``dask.bag.Bag`` whose elements are ``bytes``, ``bytearray`` or ``memoryview``.
        params: the parameters every batch must carry (e.g. ``ldpkit.batch_params(first_batch)``).
        client, split_every, max_state_bytes, windows, server_threads: as in :func:`aggregate`.

    Raises:
        ldpkit.Error: ``parameter_mismatch`` naming the batch (its partition and position) whose
            header differs; ``limit_exceeded``; the status of an unreadable batch.
    """
    if not isinstance(batches, db.Bag):
        raise TypeError(f"batches: a dask.bag.Bag, not {type(batches).__name__}")
    if not isinstance(params, ldpkit.Params):
        raise TypeError(f"params: an ldpkit.Params, not {type(params).__name__}")
    # Each batch tagged with its partition and position, so a refusal can say which one it is.
    tagged = db.from_delayed([dask.delayed(_tag_partition)(part, i) for i, part in enumerate(batches.to_delayed())])
    return _reduce(tagged, params, _add_tagged_batch, split_every, client, max_state_bytes, windows,
                   server_threads)
