"""ldpkit.simulate_protocol: the user-level protocols (kent, winsorized-mean) as `ldp simulate` runs
them, and their round-2 states through ldpkit.Aggregator."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import ldpkit
from conftest import CASES, case_values, cli_options, write_csv
from test_aggregator import frame_matches_json


def simulate_both(mechanism, values, tmp_path, run_ldp, seed, **extra):
    """The Python run and the tool's on the same rows, with --round1-out, --release-out, --windows-out
    where they apply."""
    case = {**CASES[mechanism], **extra}
    ours = ldpkit.simulate_protocol(mechanism, values, seed=seed, round1=True, **case)
    args = ["simulate", "--mechanism", mechanism, *cli_options(case), "--data", write_csv(tmp_path / "d.csv", values),
            "--seed", seed, "--out", tmp_path / "r2.ldpb", "--round1-out", tmp_path / "r1.ldpb",
            "--truth-out", tmp_path / "truth.csv"]
    if mechanism == "winsorized-mean" or case.get("dim", 1) > 1:
        args += ["--release-out", tmp_path / "release.json"]
    if mechanism == "winsorized-mean":
        args += ["--windows-out", tmp_path / "w.bin"]
    return ours, run_ldp(*args)


def test_kent_is_ldp_simulate(tmp_path, run_ldp, estimate_json):
    values = case_values("kent", 3000, seed=6)
    run, printed = simulate_both("kent", values, tmp_path, run_ldp, seed=21, plan="two-stage")
    assert run.batches == [(tmp_path / "r2.ldpb").read_bytes()]
    assert run.round1 == [(tmp_path / "r1.ldpb").read_bytes()]
    assert "kent (M1)" in run.log and "kent (M1)" in printed
    run_ldp("aggregate", tmp_path / "r2.ldpb", "--out", tmp_path / "r2.ldps")
    frame_matches_json(run.estimates[0], estimate_json(tmp_path / "r2.ldps"))
    truth = np.loadtxt(tmp_path / "truth.csv", delimiter=",", skiprows=1, ndmin=2)
    assert run.truth.to_numpy().tolist() == truth.tolist()
    # The round-2 batch aggregates like any other.
    state = ldpkit.Aggregator.from_batch(run.batches[0])
    state.add_batch(run.batches[0])
    assert state.serialize() == (tmp_path / "r2.ldps").read_bytes()
    assert ldpkit.batch_params(run.batches[0]).wire_mechanism == "kent-refine"


def test_kent_folds_are_ldp_simulate(tmp_path, run_ldp):
    values = case_values("kent", 2000, seed=7).repeat(2, axis=1)  # T = 4 observations of dim 2
    run, _ = simulate_both("kent", values, tmp_path, run_ldp, seed=3, dim=2, plan="two-stage")
    folds = [(tmp_path / f"r2.fold{f}.ldpb").read_bytes() for f in range(2)]
    assert run.batches == folds
    release = json.loads((tmp_path / "release.json").read_text())
    frame_matches_json(run.estimates[0], release)
    assert run.estimates[0].attrs["release"]["folds"] == 2


def test_winsorized_mean_is_ldp_simulate(tmp_path, run_ldp, estimate_json):
    values = case_values("winsorized-mean", 3000, seed=8)
    run, printed = simulate_both("winsorized-mean", values, tmp_path, run_ldp, seed=13)
    assert run.batches == [(tmp_path / "r2.ldpb").read_bytes()]
    assert run.round1 == [(tmp_path / "r1.ldpb").read_bytes()]
    assert run.windows == [(tmp_path / "w.bin").read_bytes()]
    release = json.loads((tmp_path / "release.json").read_text())
    frame_matches_json(run.estimates[0], release)
    # The saved round-2 state, counted against its window list, releases the same numbers with the
    # release seed simulate printed (ldp estimate --release-seed).
    seed = int(re.search(r"release seed (\d+)", printed).group(1))
    assert f"release seed {seed}" in run.log
    p = ldpkit.batch_params(run.batches[0])
    with pytest.raises(ValueError, match="windows"):
        ldpkit.Aggregator(p)
    state = ldpkit.Aggregator(p, windows=run.windows[0])
    state.add_batch(run.batches[0])
    run_ldp("aggregate", tmp_path / "r2.ldpb", "--windows", tmp_path / "w.bin", "--out", tmp_path / "r2.ldps")
    assert state.serialize() == (tmp_path / "r2.ldps").read_bytes()
    case = CASES["winsorized-mean"]
    frame_matches_json(state.release(case["epsilon"], seed=seed), release)
    with pytest.raises(ldpkit.Error) as e:
        ldpkit.Aggregator(p, windows=run.windows[0][:-1])
    assert e.value.status in ("wrong_length", "parameter_mismatch")


def test_winsorized_queries(tmp_path, run_ldp):
    values = case_values("winsorized-mean", 1500, seed=9).reshape(1500, 3, 2)  # (n, m, d) is accepted
    run = ldpkit.simulate_protocol("winsorized-mean", values, seed=2, queries=2, directory=str(tmp_path),
                                   **CASES["winsorized-mean"])
    assert len(run.batches) == len(run.windows) == len(run.estimates) == 2
    assert run.files["out"] == [str(tmp_path / "round2.query0.ldpb"), str(tmp_path / "round2.query1.ldpb")]


def test_protocol_argument_errors():
    values = case_values("kent", 10)
    with pytest.raises(ValueError, match="not a multi-round protocol"):
        ldpkit.simulate_protocol("grr", values, epsilon=1.0, domain=4)
    with pytest.raises(ValueError, match="n x 4"):
        ldpkit.simulate_protocol("kent", values[:, :3], **CASES["kent"])
    with pytest.raises(ValueError, match="needs"):
        ldpkit.simulate_protocol("kent", values, epsilon=1.0, range=(0, 1))
    with pytest.raises(TypeError):
        ldpkit.simulate_protocol("kent", values.astype(str), **CASES["kent"])
    with pytest.raises(ldpkit.Error, match="smallest usable epsilon"):
        ldpkit.simulate_protocol("kent", values, **{**CASES["kent"], "epsilon": 1e-9})
    with pytest.raises(ldpkit.Error, match="single-stage plan has no round 1") as e:
        ldpkit.simulate_protocol("kent", values, round1=True, plan="single-stage", **CASES["kent"])
    assert e.value.status == "invalid_argument" and "kent (M1)" in str(e.value)
