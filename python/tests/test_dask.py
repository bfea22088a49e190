"""ldpkit.dask (docs/dask.md): counting batch files on a 2-worker distributed.LocalCluster gives the
bytes `ldp aggregate` writes on one machine, for batch files and for a bag of batch bytes; files of
other parameters are refused by name; a corrupted file counts as in the tool; the memory ceiling
reaches the client and the workers. Correctness only: docs/benchmarks.md measures speed."""
import logging
import shutil
from pathlib import Path
from typing import Callable, Dict, List, Tuple

import dask
import dask.bag as db
import pytest
from conftest import chunks_of, header_size, make_chunk
from distributed import Client, LocalCluster

import ldpkit
import ldpkit.dask

# `ldp simulate` options of the configurations counted on the cluster: the two whose states differ
# most (OLH keeps (seed, bucket) pairs or support counts, OUE d counters), a sketch, a numeric mean
# and a central-DP family (sparse-projection: exact sums, released later).
CONFIGS: Dict[str, List[str]] = {
    "olh": ["--mechanism", "olh", "--domain", "300"],
    "oue": ["--mechanism", "oue", "--domain", "64"],
    "hcms": ["--mechanism", "hcms", "--domain", "100", "--sketch", "4:32"],
    "duchi": ["--mechanism", "duchi", "--range", "0:10"],
    "sparse-projection": ["--mechanism", "sparse-projection", "--dim", "6", "--sparsity", "2", "--radius", "1"],
}
DEVICES = (5000, 9000, 3000, 7000)  # one file per count, seeds 1..4: unequal partitions
GRR = ["--mechanism", "grr", "--domain", "50"]
WINSORIZED = ["--mechanism", "winsorized-mean", "--dim", "4", "--range", "-1:1", "--observations", "20",
              "--tau", "0.5"]

# distributed 2022.12 on tornado 6.2 starts its event loop the deprecated way; nothing to act on here.
pytestmark = pytest.mark.filterwarnings("ignore:make_current is deprecated:DeprecationWarning")


@pytest.fixture(scope="module")
def simulate(run_ldp) -> Callable[..., Path]:
    """simulate(out, options, devices, seed, *extra) -> out: `ldp simulate` at epsilon 2 (zipf data
    for the oracles, the builtin data set for the others), one thread."""
    def run(out: Path, options: List[str], devices: int, seed: int, *extra: str) -> Path:
        data = "zipf:1.1" if "--domain" in options else "builtin"
        run_ldp("simulate", *options, "--epsilon", "2", "--devices", devices, "--data", data, "--seed", seed,
                "--threads", "1", "--out", out, *extra)
        return out
    return run


@pytest.fixture(scope="module")
def cli_state(run_ldp) -> Callable[..., bytes]:
    """cli_state(files, out, *extra) -> the state `ldp aggregate FILES --out OUT EXTRA` writes."""
    def run(files: List[Path], out: Path, *extra: str) -> bytes:
        run_ldp("aggregate", *files, "--out", out, *extra)
        return out.read_bytes()
    return run


@pytest.fixture(scope="module")
def client():
    # ":0": the scheduler's HTTP server on a free port (with None it still binds 8787, which another
    # engineer's or test's cluster may hold, and warns).
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0",
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("dask")


@pytest.fixture(scope="module")
def batches(simulate, work) -> Dict[str, List[Path]]:
    out = {}
    for name, options in CONFIGS.items():
        (work / name).mkdir()
        out[name] = [simulate(work / name / f"part{i}.ldpb", options, n, i + 1) for i, n in enumerate(DEVICES)]
    return out


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_files_on_two_workers_match_the_tool(name, batches, client, cli_state, work):
    files = batches[name]
    expected = cli_state(files, work / f"{name}.ldps")
    # Four partitions in a tree of fan-in 2: two levels of merges on the workers.
    agg = ldpkit.dask.aggregate(files, client=client, split_every=2)
    assert agg.reports == sum(DEVICES)
    assert agg.serialize() == expected
    # A glob names the same files; two partitions of two files each merge in one level.
    agg = ldpkit.dask.aggregate(str(work / name / "part*.ldpb"), client=client, npartitions=2)
    assert agg.serialize() == expected


def test_bag_of_batch_bytes(batches, client, cli_state, work):
    files = batches["olh"]
    expected = cli_state(files, work / "olh-bag.ldps")
    bag = db.from_sequence([f.read_bytes() for f in files], npartitions=3)
    agg = ldpkit.dask.aggregate_bag(bag, ldpkit.batch_params(files[0]), client=client, split_every=2)
    assert agg.serialize() == expected


def test_server_threads_in_tasks(batches, client, cli_state, work):
    """Tasks run the server on `server_threads` threads and restore the default after; the state
    is the same whatever the count (OLH's support counting is what the threads split)."""
    with ldpkit.dask._server_threads(1):
        assert ldpkit.thread_limit() == 1
    ldpkit.set_thread_limit(0)
    default = ldpkit.thread_limit()
    with ldpkit.dask._server_threads(3):
        assert ldpkit.thread_limit() == 3
    assert ldpkit.thread_limit() == default
    files = batches["olh"]
    expected = cli_state(files, work / "olh-threads.ldps")
    for threads in (0, 2):
        assert ldpkit.dask.aggregate(files, client=client, server_threads=threads).serialize() == expected
    with pytest.raises(ValueError, match="server_threads"):
        ldpkit.dask.aggregate(files, client=client, server_threads=-1)
    with pytest.raises(TypeError, match="server_threads"):
        ldpkit.dask.aggregate(files, client=client, server_threads=1.5)


def split_batch(batch: bytes, parts: int) -> List[bytes]:
    """The batch as `parts` batches of its chunks in turn, each with its header and a terminator."""
    head, chunks = batch[:header_size(batch)], chunks_of(batch)[:-1]
    assert len(chunks) >= parts
    step = -(-len(chunks) // parts)
    return [head + b"".join(chunks[i:i + step]) + make_chunk(0, b"") for i in range(0, len(chunks), step)]


def test_winsorized_round_two_with_its_windows(simulate, client, cli_state, work):
    """A winsorized-sums batch counts against its window list (`ldp aggregate --windows`); its
    chunks split into three batches on three partitions give the state of the whole file."""
    whole = simulate(work / "wins.ldpb", WINSORIZED, 10000, 5, "--windows-out", work / "wins.windows")
    windows = (work / "wins.windows").read_bytes()
    expected = cli_state([whole], work / "wins.ldps", "--windows", work / "wins.windows")
    bag = db.from_sequence(split_batch(whole.read_bytes(), 3), npartitions=3)
    params = ldpkit.batch_params(whole)
    assert ldpkit.dask.aggregate_bag(bag, params, client=client, windows=windows).serialize() == expected
    assert ldpkit.dask.aggregate([whole], client=client, windows=windows).serialize() == expected
    with pytest.raises(ValueError, match="window list"):
        ldpkit.dask.aggregate([whole], client=client)  # no window list: refused, as by the tool


def test_default_scheduler(batches, cli_state, work):
    """client=None runs on whatever Dask's default scheduler is (here the synchronous one)."""
    files = batches["oue"]
    expected = cli_state(files, work / "oue-sync.ldps")
    with dask.config.set(scheduler="sync"):
        assert ldpkit.dask.aggregate(files).serialize() == expected
        params = ldpkit.batch_params(files[0])
        empty = db.from_sequence([], npartitions=1)
        assert ldpkit.dask.aggregate_bag(empty, params).serialize() == ldpkit.Aggregator(params).serialize()


def test_other_parameters_refused_by_name(batches, simulate, client, work):
    other = simulate(work / "olh-d301.ldpb", CONFIGS["olh"][:-1] + ["301"], 1000, 9)
    files = batches["olh"][:2] + [other]
    with pytest.raises(ldpkit.Error) as refused:
        ldpkit.dask.aggregate(files, client=client)
    assert refused.value.status == "parameter_mismatch"
    assert f"{other} has other parameters than {files[0]}" in str(refused.value)
    # Given parameters: the first file must carry them too.
    with pytest.raises(ldpkit.Error, match="part0.ldpb has other parameters than the given parameters"):
        ldpkit.dask.aggregate(batches["olh"], client=client, params=ldpkit.batch_params(other))
    # In a bag, the refusal (on a worker) names the batch by partition and position.
    bag = db.from_sequence([f.read_bytes() for f in files], npartitions=2)
    with pytest.raises(ldpkit.Error, match="batch 0 of partition 1 has other parameters") as refused:
        ldpkit.dask.aggregate_bag(bag, ldpkit.batch_params(files[0]), client=client)
    assert refused.value.status == "parameter_mismatch"


def corrupt_grr_batch(batch: bytes) -> Tuple[bytes, int]:
    """(corrupted batch, records lost): one GRR (d = 50) record of chunk 0 out of range, its chunk's
    CRC32C recomputed (one out_of_range rejection), and a byte of chunk 1's body flipped, its CRC not
    fixed (one damaged chunk: its records are unknown). docs/wire_format.md section 6."""
    head, chunks = batch[:header_size(batch)], chunks_of(batch)
    records, body = int.from_bytes(chunks[0][:4], "little"), bytearray(chunks[0][8:-4])
    assert records > 20 and body[20] == 1, "record 10 is one length byte (1) and one index byte"
    body[21] = 200  # >= d = 50
    chunk1 = bytearray(chunks[1])
    chunk1[8 + 5] ^= 0x40
    lost = int.from_bytes(chunk1[:4], "little")
    return head + make_chunk(records, bytes(body)) + bytes(chunk1) + b"".join(chunks[2:]), lost


def test_corrupted_file_counts_as_the_tool(simulate, client, cli_state, work):
    good = simulate(work / "grr-good.ldpb", GRR, 10000, 3)
    bad = work / "grr-bad.ldpb"
    data, lost = corrupt_grr_batch(good.read_bytes())
    bad.write_bytes(data)
    files = [bad, simulate(work / "grr-other.ldpb", GRR, 2000, 4)]
    expected = cli_state(files, work / "grr-bad.ldps")
    agg = ldpkit.dask.aggregate(files, client=client)
    assert agg.serialize() == expected
    assert agg.rejected == {"out_of_range": 1} and agg.damaged_chunks == 1
    assert lost > 0 and agg.reports == 12000 - 1 - lost  # chunk 1's records are unknown, the others count


def test_truncated_file_fails(batches, client, work):
    """A batch cut in the middle of a chunk fails the whole count, as `ldp aggregate` without
    --keep-partial does."""
    data = batches["oue"][0].read_bytes()
    cut = work / "oue-cut.ldpb"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(ldpkit.Error, match=f"{cut}: the batch cannot be read past chunk") as refused:
        ldpkit.dask.aggregate([batches["oue"][1], cut], client=client)
    assert refused.value.status == "wrong_length"  # raised on a worker, its status kept


def test_duplicates_refused_unless_allowed(batches, client, cli_state, work):
    first = batches["oue"][0]
    copy = work / "oue-copy.ldpb"
    shutil.copyfile(first, copy)
    for files in ([first, batches["oue"][1], first], [first, copy]):
        with pytest.raises(ValueError, match="is the same file as input batch"):
            ldpkit.dask.aggregate(files, client=client)
    expected = cli_state([first, copy], work / "oue-twice.ldps", "--allow-duplicates")
    assert ldpkit.dask.aggregate([first, copy], client=client, allow_duplicates=True).serialize() == expected


def test_memory_ceiling(batches, client):
    """OUE d = 64 needs 64 counters and 64 estimates of 40 bytes: above a 1000-byte ceiling, on
    the file path and the bag path alike, before any worker counts."""
    files = batches["oue"]
    params = ldpkit.batch_params(files[0])
    bag = db.from_sequence([files[0].read_bytes()])
    for count in (lambda: ldpkit.dask.aggregate(files, client=client, max_state_bytes=1000),
                  lambda: ldpkit.dask.aggregate_bag(bag, params, client=client, max_state_bytes=1000)):
        with pytest.raises(ldpkit.Error) as refused:
            count()
        assert refused.value.status == "limit_exceeded"
    assert ldpkit.dask.aggregate(files, client=client, max_state_bytes=1 << 20).reports == sum(DEVICES)


def test_bad_arguments(batches, work):
    files = batches["oue"]
    with pytest.raises(ValueError):
        ldpkit.dask.aggregate([])
    with pytest.raises(FileNotFoundError):
        ldpkit.dask.aggregate(str(work / "nothing*.ldpb"))
    with pytest.raises(ldpkit.Error, match="cannot open batch file"):
        ldpkit.dask.aggregate([files[0], work / "nothing.ldpb"])
    with pytest.raises(ValueError, match="split_every"):
        ldpkit.dask.aggregate(files, split_every=1)
    with pytest.raises(TypeError):
        ldpkit.dask.aggregate_bag([files[0].read_bytes()], ldpkit.batch_params(files[0]))
    state = work / "oue-state.ldps"
    state.write_bytes(ldpkit.Aggregator(ldpkit.batch_params(files[0])).serialize())
    with pytest.raises(ldpkit.Error, match="is an aggregator state, not a batch"):
        ldpkit.dask.aggregate([files[0], state])
