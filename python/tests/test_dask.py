"""ldpkit.dask (docs/dask.md): counting batch files on a 2-worker distributed.LocalCluster gives the
bytes `ldp aggregate` writes on one machine, for batch files and for a bag of batch bytes; files of
other parameters are refused by name; a corrupted file counts as in the tool; the memory ceiling
reaches the client and the workers. Correctness only: docs/benchmarks.md measures speed."""
import logging
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

import dask
import dask.bag as db
import pytest
from distributed import Client, LocalCluster

import ldpkit
import ldpkit.dask

# Mechanism options (`ldp simulate`) of the configurations counted on the cluster: the two whose
# states differ most (OLH keeps per-report pairs, OUE d counters), a sketch, a numeric mean and a
# central-DP family (sparse-projection: exact sums, released later).
CONFIGS: Dict[str, List[str]] = {
    "olh": ["--mechanism", "olh", "--domain", "300"],
    "oue": ["--mechanism", "oue", "--domain", "64"],
    "hcms": ["--mechanism", "hcms", "--domain", "100", "--sketch", "4:32"],
    "duchi": ["--mechanism", "duchi", "--range", "0:10"],
    "sparse-projection": ["--mechanism", "sparse-projection", "--dim", "6", "--sparsity", "2", "--radius", "1"],
}
DEVICES = (5000, 9000, 3000, 7000)  # one file per count, seeds 1..4: unequal partitions


def run_ldp(tool: str, *args: str) -> str:
    proc = subprocess.run([tool, *args], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, f"ldp {' '.join(args)}: exit {proc.returncode}\n{proc.stderr}"
    return proc.stdout


def simulate(tool: str, out: Path, options: List[str], devices: int, seed: int) -> Path:
    data = "zipf:1.1" if "--domain" in options else "builtin"
    run_ldp(tool, "simulate", *options, "--epsilon", "2", "--devices", str(devices), "--data", data,
            "--seed", str(seed), "--threads", "1", "--out", str(out))
    return out


def cli_state(tool: str, files: List[Path], out: Path, *extra: str) -> bytes:
    run_ldp(tool, "aggregate", *map(str, files), "--out", str(out), *extra)
    return out.read_bytes()


@pytest.fixture(scope="module")
def client():
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                      silence_logs=logging.ERROR) as cluster, Client(cluster) as c:
        yield c


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("dask")


@pytest.fixture(scope="module")
def batches(ldp_tool, work) -> Dict[str, List[Path]]:
    out = {}
    for name, options in CONFIGS.items():
        (work / name).mkdir()
        out[name] = [simulate(ldp_tool, work / name / f"part{i}.ldpb", options, n, i + 1)
                     for i, n in enumerate(DEVICES)]
    return out


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_files_on_two_workers_match_the_tool(name, batches, client, ldp_tool, work):
    files = batches[name]
    expected = cli_state(ldp_tool, files, work / f"{name}.ldps")
    # Four partitions in a tree of fan-in 2: two levels of merges on the workers.
    agg = ldpkit.dask.aggregate(files, client=client, split_every=2)
    assert agg.reports == sum(DEVICES)
    assert agg.serialize() == expected
    # A glob names the same files; two partitions of two files each merge in one level.
    agg = ldpkit.dask.aggregate(str(work / name / "part*.ldpb"), client=client, npartitions=2)
    assert agg.serialize() == expected


def test_bag_of_batch_bytes(batches, client, ldp_tool, work):
    files = batches["olh"]
    expected = cli_state(ldp_tool, files, work / "olh-bag.ldps")
    bag = db.from_sequence([f.read_bytes() for f in files], npartitions=3)
    agg = ldpkit.dask.aggregate_bag(bag, ldpkit.batch_params(files[0]), client=client, split_every=2)
    assert agg.serialize() == expected


def test_default_scheduler(batches, ldp_tool, work):
    """client=None runs on whatever Dask's default scheduler is (here the synchronous one)."""
    files = batches["oue"]
    expected = cli_state(ldp_tool, files, work / "oue-sync.ldps")
    with dask.config.set(scheduler="sync"):
        assert ldpkit.dask.aggregate(files).serialize() == expected
        empty = db.from_sequence([], npartitions=1)
        params = ldpkit.batch_params(files[0])
        assert ldpkit.dask.aggregate_bag(empty, params).serialize() == ldpkit.Aggregator(params).serialize()


def test_other_parameters_refused_by_name(batches, client, ldp_tool, work):
    other = simulate(ldp_tool, work / "olh-d301.ldpb", CONFIGS["olh"][:-1] + ["301"], 1000, 9)
    files = batches["olh"][:2] + [other]
    with pytest.raises(ldpkit.Error) as refused:
        ldpkit.dask.aggregate(files, client=client)
    assert refused.value.status == "parameter_mismatch"
    assert str(other) in str(refused.value) and str(files[0]) in str(refused.value)
    # Given parameters: the first file must carry them too.
    with pytest.raises(ldpkit.Error, match="part0.ldpb has other parameters than the given parameters"):
        ldpkit.dask.aggregate(batches["olh"], client=client, params=ldpkit.batch_params(other))
    # In a bag, the refusal names the batch by partition and position.
    bag = db.from_sequence([f.read_bytes() for f in files], npartitions=2)
    with pytest.raises(ldpkit.Error, match="batch 0 of partition 1 has other parameters") as refused:
        ldpkit.dask.aggregate_bag(bag, ldpkit.batch_params(files[0]), client=client)
    assert refused.value.status == "parameter_mismatch"


# ---- A corrupted batch (docs/wire_format.md section 6; docs/cli.md "aggregate") ---------------

def _crc32c_table() -> List[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


CRC32C = _crc32c_table()


def crc32c(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for b in data:
        crc = CRC32C[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def corrupt_grr_batch(data: bytes) -> Tuple[bytes, int]:
    """(corrupted batch, records lost): the batch with one GRR (d = 50) record of chunk 0 out of range (its chunk's CRC32C
    recomputed: one rejection) and a byte of chunk 1's body flipped (its CRC not fixed: one damaged
    chunk, its records unknown)."""
    header_end = 8 + struct.unpack_from("<H", data, 6)[0] + 12  # magic, version, block, fingerprint, CRC
    records, length = struct.unpack_from("<II", data, header_end)
    assert records > 20 and data[header_end + 8] == 1, "chunk 0 starts with a 1-byte record"
    payload = header_end + 8 + 2 * 10 + 1  # record 10: one length byte (1), one index byte
    head = bytearray(data[header_end:header_end + 8 + length])
    head[payload - header_end] = 200  # >= d = 50: out_of_range
    chunk0 = bytes(head) + struct.pack("<I", crc32c(bytes(head)))
    rest = bytearray(data[header_end + len(chunk0):])
    lost = struct.unpack_from("<I", rest, 0)[0]
    rest[8 + 5] ^= 0x40
    return data[:header_end] + chunk0 + bytes(rest), lost


def test_corrupted_file_counts_as_the_tool(client, ldp_tool, work):
    good = simulate(ldp_tool, work / "grr-good.ldpb", ["--mechanism", "grr", "--domain", "50"], 10000, 3)
    bad = work / "grr-bad.ldpb"
    data, lost = corrupt_grr_batch(good.read_bytes())
    bad.write_bytes(data)
    other = simulate(ldp_tool, work / "grr-other.ldpb", ["--mechanism", "grr", "--domain", "50"], 2000, 4)
    files = [bad, other]
    expected = cli_state(ldp_tool, files, work / "grr-bad.ldps")
    agg = ldpkit.dask.aggregate(files, client=client)
    assert agg.serialize() == expected
    assert agg.rejected == {"out_of_range": 1} and agg.damaged_chunks == 1
    assert lost > 0 and agg.reports == 12000 - 1 - lost  # chunk 1's records are unknown, the others count


def test_truncated_file_fails(batches, client, work):
    data = batches["oue"][0].read_bytes()
    cut = work / "oue-cut.ldpb"
    cut.write_bytes(data[:len(data) // 2])
    with pytest.raises(ldpkit.Error):
        ldpkit.dask.aggregate([batches["oue"][1], cut], client=client)


def test_duplicates_refused_unless_allowed(batches, client, ldp_tool, work):
    first = batches["oue"][0]
    copy = work / "oue-copy.ldpb"
    shutil.copyfile(first, copy)
    for files in ([first, batches["oue"][1], first], [first, copy]):
        with pytest.raises(ValueError, match="is the same file as input batch"):
            ldpkit.dask.aggregate(files, client=client)
    expected = cli_state(ldp_tool, [first, copy], work / "oue-twice.ldps", "--allow-duplicates")
    assert ldpkit.dask.aggregate([first, copy], client=client, allow_duplicates=True).serialize() == expected


def test_memory_ceiling(batches, client):
    """OUE d = 64 needs 64 counters and 64 estimates of 40 bytes: above a 1000-byte ceiling, on
    the file path and the bag path alike, before any worker counts."""
    files = batches["oue"]
    for count in (lambda: ldpkit.dask.aggregate(files, client=client, max_state_bytes=1000),
                  lambda: ldpkit.dask.aggregate_bag(db.from_sequence([files[0].read_bytes()]),
                                                    ldpkit.batch_params(files[0]), client=client,
                                                    max_state_bytes=1000)):
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
    with pytest.raises(ValueError, match="split_every"):
        ldpkit.dask.aggregate(files, split_every=1)
    with pytest.raises(TypeError):
        ldpkit.dask.aggregate_bag([files[0].read_bytes()], ldpkit.batch_params(files[0]))
    state = work / "oue-state.ldps"
    state.write_bytes(ldpkit.Aggregator(ldpkit.batch_params(files[0])).serialize())
    with pytest.raises(ValueError, match="is an aggregator state, not a batch"):
        ldpkit.dask.aggregate([files[0], state])
