"""ldpkit.Randomizer: byte-identical to `ldp simulate --seed S` on the same values."""

from __future__ import annotations

import threading

import numpy as np
import pytest

import ldpkit
from conftest import CASES, case_values, cli_options, write_data

NON_PROTOCOLS = [m for m in CASES if m not in ("kent", "winsorized-mean")]


@pytest.mark.parametrize("mechanism", NON_PROTOCOLS)
def test_randomize_is_ldp_simulate(mechanism, tmp_path, run_ldp):
    """The first batch of Randomizer(p, seed=S) is `ldp simulate --seed S --data csv:` byte for byte,
    over more than one seeding block (4096 devices) and chunk; the second call draws fresh noise."""
    devices = 5000
    values = case_values(mechanism, devices, seed=4)
    data = write_data(tmp_path / "data.txt", values)
    run_ldp("simulate", "--mechanism", mechanism, *cli_options(CASES[mechanism]), "--data", data, "--seed", 77,
            "--out", tmp_path / "tool.ldpb", "--threads", 2)
    randomizer = ldpkit.Randomizer(ldpkit.params(mechanism, **CASES[mechanism]), seed=77, threads=2)
    first = randomizer.randomize(values)
    assert isinstance(first, bytes)
    assert first == (tmp_path / "tool.ldpb").read_bytes()
    second = randomizer.randomize(values)
    assert randomizer.calls == 2 and len(second) > 0
    if mechanism != "sparse-projection":  # central DP: the devices add no noise
        assert second != first
    else:
        assert second == first
    # Another Randomizer of the same seed repeats the sequence (one thread: the same bytes).
    again = ldpkit.Randomizer(randomizer.params, seed=77)
    assert again.randomize(values) == first and again.randomize(values) == second


def test_input_checks():
    p = ldpkit.params("grr", epsilon=1.0, domain=5)
    r = ldpkit.Randomizer(p, seed=1)
    with pytest.raises(TypeError):
        r.randomize(np.array([0.5, 1.0]))
    with pytest.raises(ValueError):
        r.randomize(np.zeros((2, 2), dtype=np.int64))
    with pytest.raises(ValueError):
        r.randomize(np.array([], dtype=np.int64))
    with pytest.raises(ldpkit.Error, match=r"not in \[0, 5\)"):
        r.randomize(np.array([0, 5]))
    assert r.calls == 0
    v = ldpkit.Randomizer(ldpkit.params(**{"mechanism": "vector-mean", **CASES["vector-mean"]}), seed=1)
    with pytest.raises(ValueError, match="n x 4"):
        v.randomize(np.zeros((3, 3)))
    with pytest.raises(TypeError):
        ldpkit.Randomizer("grr")
    with pytest.raises(ValueError):
        ldpkit.Randomizer(p, seed=-1)
    # Integer items of any width, and strided arrays, are converted; float64 rows are read in place.
    assert r.randomize(np.array([1, 2, 3], dtype=np.uint8))[:4] == b"LDPB"
    assert r.randomize(np.arange(10)[::2] % 5)[:4] == b"LDPB"


def test_seed_none_and_threads():
    p = ldpkit.params("oue", epsilon=1.0, domain=30)
    items = np.arange(3000) % 30
    a, b = ldpkit.Randomizer(p), ldpkit.Randomizer(p)
    assert a.seed != b.seed and a.randomize(items) != b.randomize(items)
    # Threads share nothing but the module: each Randomizer's bytes are those it makes alone.
    expected = [ldpkit.Randomizer(p, seed=s).randomize(items) for s in range(4)]
    got = [None] * 4

    def work(s):
        got[s] = ldpkit.Randomizer(p, seed=s).randomize(items)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == expected
