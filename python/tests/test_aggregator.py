"""ldpkit.Aggregator against `ldp aggregate`, `ldp merge` and `ldp estimate`: every mechanism's round
trip, damaged batches, states of other parameters and the memory contract."""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
import threading
import time

import numpy as np
import pandas as pd
import pytest

import ldpkit
from conftest import (CASES, STRING_MECHANISMS, case_values, chunks_of, cli_options, crc32c, header_size, make_chunk,
                      write_data)

NON_PROTOCOLS = [m for m in CASES if m not in ("kent", "winsorized-mean")]


def frame_matches_json(frame: ldpkit.Estimates, tool: dict) -> None:
    """The frame holds exactly the numbers of `ldp estimate --format json` (and its summary)."""
    rows = tool["estimates"]
    assert len(frame) == len(rows) == tool["size"]
    for column in ("item", "estimate", "variance", "ci_low", "ci_high"):
        ours = frame[column].tolist()
        theirs = [r[column] for r in rows]
        assert ours == theirs, column
    for key in ("mechanism", "fingerprint", "parameters", "kind", "reports", "rejected", "damaged_chunks"):
        assert frame.attrs[key] == tool[key], key


def printable(item: str) -> str:
    """A string as `ldp estimate --format json` writes it (tools/ldp/discovered_output.h): a backslash
    doubled, a control byte (C0, DEL, C1) or a byte that is not UTF-8 as \\xNN."""
    out = []
    for c in item:
        code = ord(c)
        if c == "\\":
            out.append("\\\\")
        elif code < 0x20 or 0x7F <= code <= 0x9F or 0xDC80 <= code <= 0xDCFF:
            out.extend(f"\\x{b:02x}" for b in c.encode("utf-8", "surrogateescape"))
        else:
            out.append(c)
    return "".join(out)


def strings_match_json(frame, rows):
    """A string frame holds `ldp estimate --format json`'s "discovered" rows, in their order."""
    assert list(frame.columns) == ["item", "estimate", "variance", "ci_low", "ci_high"]
    assert [printable(item) for item in frame["item"]] == [r["item"] for r in rows]
    for column in ("estimate", "variance", "ci_low", "ci_high"):
        assert list(frame[column]) == [r[column] for r in rows], column


@pytest.mark.parametrize("mechanism", NON_PROTOCOLS)
def test_round_trip_is_the_tools(mechanism, tmp_path, run_ldp, estimate_json):
    """params -> randomize -> aggregate -> estimate, and the same run through the tool: the same
    batch, state bytes and estimates (central DP: the same release for the same release seed)."""
    values = case_values(mechanism, 3000, seed=2)
    p = ldpkit.params(mechanism, **CASES[mechanism])
    batch = ldpkit.Randomizer(p, seed=5).randomize(values)
    run_ldp("simulate", "--mechanism", mechanism, *cli_options(CASES[mechanism]), "--data",
            write_data(tmp_path / "d.txt", values), "--seed", 5, "--out", tmp_path / "b.ldpb")
    run_ldp("aggregate", tmp_path / "b.ldpb", "--out", tmp_path / "s.ldps")
    state = (tmp_path / "s.ldps").read_bytes()

    agg = ldpkit.Aggregator(p)
    agg.add_batch(batch)
    assert agg.reports == 3000 and agg.rejected == {} and agg.damaged_chunks == 0
    assert agg.serialize() == state
    from_file = ldpkit.Aggregator.from_batch(tmp_path / "b.ldpb")
    from_file.add_file(tmp_path / "b.ldpb")
    assert from_file.serialize() == state
    for copy in (ldpkit.Aggregator.deserialize(state), ldpkit.Aggregator.load(tmp_path / "s.ldps"),
                 pickle.loads(pickle.dumps(agg))):
        assert copy.serialize() == state and copy.params == p

    if mechanism == "sparse-projection":
        with pytest.raises(ValueError, match="release"):
            agg.estimate()
        released = agg.release(1.5, 1e-6, seed=11, confidence=0.9)
        frame_matches_json(released, estimate_json(tmp_path / "s.ldps", "--epsilon", 1.5, "--delta", 1e-6,
                                                   "--release-seed", 11, "--confidence", 0.9))
        assert released.attrs["delta"] == 1e-6 and "release" in released.attrs
    elif mechanism in STRING_MECHANISMS:
        with pytest.raises(ValueError, match="discover"):
            agg.estimate()
        found = agg.discover(3, alphabet="aefhnost", confidence=0.9)
        tool = estimate_json(tmp_path / "s.ldps", "--discover", 3, "--alphabet", "aefhnost", "--confidence", 0.9)
        strings_match_json(found, tool["discovered"])
        assert found.attrs["k"] == 3 and found.attrs["reports"] == 3000
        assert found.attrs["fingerprint"] == tool["fingerprint"]
        (tmp_path / "c.txt").write_text("of\nthe\nzzz\n")
        strings_match_json(agg.estimate_strings(["of", "the", "zzz"], confidence=0.9),
                           estimate_json(tmp_path / "s.ldps", "--candidates", tmp_path / "c.txt",
                                         "--confidence", 0.9)["discovered"])
    else:
        frame_matches_json(agg.estimate(0.9), estimate_json(tmp_path / "s.ldps", "--confidence", 0.9))
        assert isinstance(agg.estimate(), ldpkit.Estimates)


def test_merge_any_order_and_mismatch(tmp_path, run_ldp):
    """Split reports merged in any order serialize as `ldp merge` of the parts; a state of other
    parameters is refused with parameter_mismatch and nothing changes."""
    p = ldpkit.params("olh", epsilon=1.0, domain=50)
    items = case_values("olh", 4000, seed=3) % 50
    batches = [ldpkit.Randomizer(p, seed=s).randomize(items[s::3]) for s in range(3)]
    parts = []
    for i, b in enumerate(batches):
        (tmp_path / f"{i}.ldpb").write_bytes(b)
        run_ldp("aggregate", tmp_path / f"{i}.ldpb", "--out", tmp_path / f"{i}.ldps")
        a = ldpkit.Aggregator(p)
        a.add_batch(b)
        parts.append(a)
    run_ldp("merge", *[tmp_path / f"{i}.ldps" for i in range(3)], "--out", tmp_path / "all.ldps")
    expected = (tmp_path / "all.ldps").read_bytes()
    for order in ((0, 1, 2), (2, 0, 1)):
        total = ldpkit.Aggregator(p)
        for i in order:
            total.merge(parts[i])
        assert total.serialize() == expected
    whole = ldpkit.Aggregator(p)
    for b in batches:
        whole.add_batch(b)
    assert whole.serialize() == expected

    other = ldpkit.Aggregator(ldpkit.params("olh", epsilon=1.5, domain=50))
    before = whole.serialize()
    with pytest.raises(ldpkit.Error) as e:
        whole.merge(other)
    assert e.value.status == "parameter_mismatch" and e.value.code == 6
    with pytest.raises(ldpkit.Error) as e:
        other.add_batch(batches[0])
    assert e.value.status == "parameter_mismatch"
    with pytest.raises(ldpkit.Error) as e:
        other.add_file(tmp_path / "0.ldpb")
    assert e.value.status == "parameter_mismatch"
    assert whole.serialize() == before and other.reports == 0
    with pytest.raises(ValueError):
        whole.merge(whole)
    with pytest.raises(TypeError):
        whole.merge(before)


def test_damaged_batches_count_as_the_tool(tmp_path, run_ldp, estimate_json):
    """A chunk whose CRC fails is one damaged chunk and the other chunks count; a report that does
    not parse is rejected by its status; a truncated batch raises after counting the chunks before
    the damage (`ldp aggregate --keep-partial`). States equal the tool's for the same bytes."""
    p = ldpkit.params("grr", epsilon=1.0, domain=20)
    n = 3 * 4096 + 100
    batch = ldpkit.Randomizer(p, seed=8).randomize(case_values("grr", n, seed=8))
    head, chunks = batch[:header_size(batch)], chunks_of(batch)
    assert len(chunks) >= 4 and chunks[-1] == make_chunk(0, b"")
    lost = int.from_bytes(chunks[1][:4], "little")
    # One bit of chunk 1's body flipped, its CRC left: damaged.
    bad = bytearray(chunks[1])
    bad[20] ^= 0x01
    # A record of chunk 2 replaced by an item outside the domain (1-byte payload 0x7f), CRC fixed.
    body = chunks[2][8:-4]
    assert body[0] == 1  # records of GRR over 20 items: length 1, one byte
    forged = make_chunk(int.from_bytes(chunks[2][:4], "little"), b"\x01\x7f" + body[2:])
    damaged = head + chunks[0] + bytes(bad) + forged + b"".join(chunks[3:])
    (tmp_path / "bad.ldpb").write_bytes(damaged)
    run_ldp("aggregate", tmp_path / "bad.ldpb", "--out", tmp_path / "bad.ldps")
    memory = ldpkit.Aggregator(p)
    memory.add_batch(damaged)
    files = ldpkit.Aggregator(p)
    files.add_file(tmp_path / "bad.ldpb")
    for agg in (memory, files):
        assert agg.damaged_chunks == 1
        assert agg.rejected == {"out_of_range": 1}
        assert agg.reports == n - lost - 1
        assert agg.serialize() == (tmp_path / "bad.ldps").read_bytes()
    assert estimate_json(tmp_path / "bad.ldps")["rejected"] == {"out_of_range": 1}

    # Truncated inside chunk 2: the chunks before count, then Error.
    cut = len(head) + len(chunks[0]) + len(chunks[1]) + 10
    (tmp_path / "cut.ldpb").write_bytes(batch[:cut])
    run_ldp("aggregate", tmp_path / "cut.ldpb", "--out", tmp_path / "cut.ldps", "--keep-partial")
    for add in (lambda a: a.add_batch(batch[:cut]), lambda a: a.add_file(tmp_path / "cut.ldpb")):
        agg = ldpkit.Aggregator(p)
        with pytest.raises(ldpkit.Error) as e:
            add(agg)
        assert e.value.status == "wrong_length"
        assert agg.reports == int.from_bytes(chunks[0][:4], "little") + lost
        assert agg.serialize() == (tmp_path / "cut.ldps").read_bytes()

    # Reports one by one: header + payload; a damaged one is rejected, not raised.
    agg = ldpkit.Aggregator(p)
    assert agg.add_report(b"\x01\x01" + p.fingerprint.to_bytes(8, "little") + b"\x03") in (True, False)
    assert agg.add_report(b"\x00") is False and sum(agg.rejected.values()) >= 1
    with pytest.raises(TypeError):
        agg.add_report("text")


def test_state_file_is_not_a_batch(tmp_path):
    p = ldpkit.params("hr", epsilon=1.0, domain=16)
    agg = ldpkit.Aggregator(p)
    agg.save(tmp_path / "s.ldps")
    with pytest.raises(ldpkit.Error, match="aggregator state, not a batch"):
        agg.add_file(tmp_path / "s.ldps")
    with pytest.raises(ldpkit.Error, match="batch, not an aggregator state"):
        (tmp_path / "b.ldpb").write_bytes(ldpkit.Randomizer(p, seed=1).randomize(np.arange(16)))
        ldpkit.Aggregator.load(tmp_path / "b.ldpb")
    with pytest.raises(ldpkit.Error):
        ldpkit.Aggregator.deserialize(agg.serialize()[:-1])


PROBE = r"""
import ldpkit

def peak_kib():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))

# The peak starts again from the current RSS (Linux: "5" into clear_refs resets VmHWM), so what
# the import allocated and freed does not hide what the call allocates.
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")
before = peak_kib()
status = "accepted"
try:
    {call}
except ldpkit.Error as e:
    status = e.status
print(status, peak_kib() - before)
"""


def peak_growth(call: str) -> tuple:
    """(status, peak RSS growth in KiB) of `call` in a fresh interpreter that imported ldpkit."""
    done = subprocess.run([sys.executable, "-c", PROBE.replace("{call}", call)], capture_output=True, text=True,
                          env=os.environ.copy(), check=True)
    status, kib = done.stdout.split()
    return status, int(kib)


def test_hostile_header_allocates_nothing(tmp_path):
    """A 51-byte GRR batch (header and terminator) claiming d = 2^28 items asks for a 10 GiB
    aggregator: refused (limit_exceeded) before any allocation, as `ldp aggregate` refuses it; a
    state header claiming a 2^40-byte body is refused after reading its 32 bytes."""
    p = ldpkit.params("grr", epsilon=1.0, domain=2**28)
    batch = ldpkit.Randomizer(ldpkit.params("grr", epsilon=1.0, domain=2**28), seed=1).randomize(np.array([3]))
    hostile = batch[:header_size(batch)] + make_chunk(0, b"")
    assert len(hostile) == 51 and ldpkit.batch_params(hostile) == p
    (tmp_path / "hostile.ldpb").write_bytes(hostile)
    for call in (f"ldpkit.Aggregator.from_batch({str(tmp_path / 'hostile.ldpb')!r})",
                 f"ldpkit.Aggregator.from_batch({hostile!r})"):
        status, kib = peak_growth(call)
        assert status == "limit_exceeded" and kib < 64 * 1024, (status, kib)
    # The probe sees an allocation above that bound: a header of d = 2^24 items is accepted (~80 MiB).
    small = ldpkit.Randomizer(ldpkit.params("grr", epsilon=1.0, domain=2**24), seed=1).randomize(np.array([3]))
    status, kib = peak_growth(f"a = ldpkit.Aggregator.from_batch({small!r})")
    assert status == "accepted" and kib > 64 * 1024, (status, kib)

    # A state header (docs/wire_format.md 7) with a valid CRC claiming a 2^40-byte body: refused
    # after its 32 bytes, before the body is read.
    state = bytearray(ldpkit.Aggregator(ldpkit.params("grr", epsilon=1.0, domain=4)).serialize())
    state[16:24] = (1 << 40).to_bytes(8, "little")
    state[28:32] = crc32c(bytes(state[:28])).to_bytes(4, "little")
    (tmp_path / "claim.ldps").write_bytes(bytes(state))
    status, kib = peak_growth(f"ldpkit.Aggregator.load({str(tmp_path / 'claim.ldps')!r})")
    assert status == "limit_exceeded" and kib < 64 * 1024, (status, kib)
    # In memory the bytes are all there: the claim is wrong_length.
    status, kib = peak_growth(f"ldpkit.Aggregator.deserialize({bytes(state)!r})")
    assert status == "wrong_length" and kib < 64 * 1024, (status, kib)


def test_threads_share_an_aggregator():
    """Threads adding to one aggregator (the GIL released, its lock held) count every report once."""
    p = ldpkit.params("oue", epsilon=1.0, domain=32)
    batches = [ldpkit.Randomizer(p, seed=s).randomize(np.arange(2000) % 32) for s in range(4)]
    shared, alone = ldpkit.Aggregator(p), ldpkit.Aggregator(p)
    for b in batches:
        alone.add_batch(b)
    threads = [threading.Thread(target=shared.add_batch, args=(b,)) for b in batches]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert shared.serialize() == alone.serialize()


def python_runs_during(call) -> bool:
    """Whether another Python thread runs while `call` is inside C++: the main thread records its
    loop's times, and one must fall in the middle half of the call (impossible if the call held the
    GIL throughout)."""
    times, window, done = [], [], threading.Event()

    def work():
        start = time.perf_counter()
        call()
        window.extend([start, time.perf_counter()])
        done.set()

    worker = threading.Thread(target=work)
    worker.start()
    while not done.is_set():
        times.append(time.perf_counter())
    worker.join()
    start, end = window
    assert end - start > 0.02, "the call is too short to tell"
    lo, hi = start + (end - start) / 4, end - (end - start) / 4
    return any(lo <= t <= hi for t in times)


def runs_during_one_of(call, attempts: int = 3) -> bool:
    """python_runs_during, tried up to `attempts` times: another process can keep the main thread
    off the CPU for a whole call on a busy machine, while a call that holds the GIL fails every try."""
    return any(python_runs_during(call) for _ in range(attempts))


def test_the_gil_is_released(tmp_path):
    # Sized so each call lasts well over python_runs_during's 20 ms: GRR randomizes and ingests
    # 8 M reports (ingest runs at tens of millions a second since issue 19), OLH's estimate does
    # O(n d) hash evaluations.
    grr = ldpkit.params("grr", epsilon=1.0, domain=16)
    items = np.arange(8_000_000) % 16
    randomizer = ldpkit.Randomizer(grr, seed=1)
    assert runs_during_one_of(lambda: randomizer.randomize(items))
    batch = randomizer.randomize(items)
    (tmp_path / "b.ldpb").write_bytes(batch)
    agg = ldpkit.Aggregator(grr)
    assert runs_during_one_of(lambda: agg.add_batch(batch))
    assert runs_during_one_of(lambda: agg.add_file(tmp_path / "b.ldpb"))
    olh = ldpkit.params("olh", epsilon=1.0, domain=1000)
    counted = ldpkit.Aggregator(olh)
    counted.add_batch(ldpkit.Randomizer(olh, seed=1).randomize(np.arange(400_000) % 1000))
    assert runs_during_one_of(lambda: counted.estimate())


def test_buffers_in_place_or_refused():
    """Batches come in as any C-contiguous bytes-like object; a strided view is refused, not misread."""
    p = ldpkit.params("grr", epsilon=1.0, domain=8)
    batch = ldpkit.Randomizer(p, seed=2).randomize(np.arange(64) % 8)
    for view in (bytearray(batch), memoryview(batch), np.frombuffer(batch, dtype=np.uint8)):
        agg = ldpkit.Aggregator(p)
        agg.add_batch(view)
        assert agg.reports == 64
    doubled = np.frombuffer(batch, dtype=np.uint8).repeat(2)
    with pytest.raises(TypeError, match="contiguous"):
        ldpkit.Aggregator(p).add_batch(doubled[::2])


def test_thread_limit_changes_speed_not_results():
    """The server's support counting gives the same state and estimates on one thread as on several
    (docs/architecture.md "Threads"); the limit is process-wide and restored afterwards."""
    p = ldpkit.params("olh", epsilon=2.0, domain=4096)
    agg = ldpkit.Aggregator(p)
    agg.add_batch(ldpkit.Randomizer(p, seed=5).randomize(np.arange(20_000) % 4096))  # counts form: 12 n >= 8 d
    before = ldpkit.thread_limit()
    try:
        results = []
        for threads in (1, 2, 3):
            ldpkit.set_thread_limit(threads)
            assert ldpkit.thread_limit() == threads
            results.append((agg.serialize(), agg.estimate()))
    finally:
        ldpkit.set_thread_limit(0)
    assert ldpkit.thread_limit() == before
    for state, estimates in results[1:]:
        assert state == results[0][0]
        pd.testing.assert_frame_equal(estimates, results[0][1])


def test_save_is_the_tools_atomic_write(tmp_path):
    """save() writes serialize()'s bytes through the tool's atomic writer: no temporary file is left
    beside the state, and a directory that does not exist is an ldpkit.Error, not a partial file."""
    p = ldpkit.params("grr", epsilon=1.0, domain=8)
    agg = ldpkit.Aggregator(p)
    agg.add_batch(ldpkit.Randomizer(p, seed=3).randomize(np.arange(100) % 8))
    agg.save(tmp_path / "s.ldps")
    assert (tmp_path / "s.ldps").read_bytes() == agg.serialize()
    assert [f.name for f in tmp_path.iterdir()] == ["s.ldps"]
    with pytest.raises(ldpkit.Error):
        agg.save(tmp_path / "missing" / "s.ldps")
