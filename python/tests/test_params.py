"""ldpkit.params, Params, params_from_bytes, batch_params and mechanisms against the ldp tool."""

from __future__ import annotations

import pickle
import re

import pytest

import ldpkit
from conftest import CASES

NON_PROTOCOLS = [m for m in CASES if m not in ("kent", "winsorized-mean")]
# The learners' devices hold labelled examples: `ldp train` runs them, `ldp simulate` refuses them.
LEARNERS = {"bernstein", "glm-copies"}
# Wang et al.'s query releases (docs/mechanisms.md H.5, H.6) have no Python options yet: their
# records (bit masks, points of [-1, 1]^p) and answers are the tool's and the C++ API's only
# (docs/python.md "Not in the package yet").
QUERY_RELEASES = {"kway-marginals", "smooth-queries"}


def test_cases_cover_every_mechanism_of_the_tool(run_ldp):
    """Every mechanism of `ldp simulate --help` and `ldp mechanisms` has a case (and ldpkit knows it)."""
    help_text = run_ldp("simulate", "--help")
    listed = re.search(r"mechanism: ([a-z0-9, -]+)", help_text).group(1)
    simulate = {name.strip() for name in listed.split(",")}
    assert simulate - LEARNERS - QUERY_RELEASES == set(CASES) == set(ldpkit.MECHANISMS) - LEARNERS - QUERY_RELEASES
    ranked = run_ldp("mechanisms", "--domain", 20, "--epsilon", 1, "--format", "csv").splitlines()[1:]
    assert {line.split(",")[1] for line in ranked} <= set(CASES)


@pytest.mark.parametrize("mechanism", NON_PROTOCOLS)
def test_params_round_trip(mechanism, tmp_path, run_ldp):
    """params() is the block `ldp simulate` writes; to_bytes / params_from_bytes / pickle keep it."""
    options = dict(CASES[mechanism])
    p = ldpkit.params(mechanism, **options)
    assert p.mechanism == mechanism
    again = ldpkit.params_from_bytes(p.to_bytes())
    assert again == p and hash(again) == hash(p)
    assert again.fingerprint == p.fingerprint and again.to_bytes() == p.to_bytes()
    assert again.epsilon_implemented == p.epsilon_implemented or mechanism == "sparse-projection"
    assert pickle.loads(pickle.dumps(p)) == p
    assert mechanism in repr(p)
    if mechanism != "sparse-projection":
        assert 0 < p.epsilon_implemented <= options["epsilon"]
    from conftest import case_values, cli_options, write_data

    data = write_data(tmp_path / "data.txt", case_values(mechanism, 10))
    run_ldp("simulate", "--mechanism", mechanism, *cli_options(options), "--data", data, "--seed", 1,
            "--out", tmp_path / "b.ldpb")
    assert ldpkit.batch_params(tmp_path / "b.ldpb") == p
    batch = (tmp_path / "b.ldpb").read_bytes()
    header = 8 + int.from_bytes(batch[6:8], "little") + 12  # docs/wire_format.md 6
    assert ldpkit.batch_params(batch) == ldpkit.batch_params(batch[:header]) == p
    with pytest.raises(ldpkit.Error) as e:
        ldpkit.batch_params(batch[:header - 1])
    assert e.value.status == "wrong_length"


def test_other_options_give_other_blocks():
    a = ldpkit.params("cms", epsilon=2.0, domain=20, public_seed=1)
    b = ldpkit.params("cms", epsilon=2.0, domain=20, public_seed=2)
    assert a != b and a.fingerprint != b.fingerprint
    assert a != "cms"


def test_argument_errors_before_the_tool():
    with pytest.raises(ValueError, match="unknown mechanism"):
        ldpkit.params("rappor", epsilon=1.0, domain=4)
    with pytest.raises(ValueError, match="unknown option"):
        ldpkit.params("grr", epsilon=1.0, domain=4, domian=5)
    with pytest.raises(ValueError, match="does not apply"):
        ldpkit.params("grr", epsilon=1.0, domain=4, hash_range=3)
    with pytest.raises(ValueError, match="needs domain"):
        ldpkit.params("grr", epsilon=1.0)
    with pytest.raises(TypeError):
        ldpkit.params("grr", epsilon="1", domain=4)
    with pytest.raises(TypeError):
        ldpkit.params("grr", epsilon=1.0, domain=4.0)
    with pytest.raises(TypeError):
        ldpkit.params("grr", epsilon=1.0, domain=True)
    with pytest.raises(TypeError):
        ldpkit.params("laplace", epsilon=1.0, range=("a", 1))
    with pytest.raises(ValueError, match="multi-round"):
        ldpkit.params("kent", epsilon=1.0, range=(0, 1), observations=3)
    with pytest.raises(TypeError):
        ldpkit.batch_params(42)


def test_tool_refusals_are_errors_with_status():
    with pytest.raises(ldpkit.Error) as e:
        ldpkit.params("grr", epsilon=1.0, domain=1)
    assert e.value.status == "invalid_argument" and e.value.code == 1 and "--domain" in str(e.value)
    with pytest.raises(ldpkit.Error, match="smallest usable epsilon"):
        ldpkit.params("oue", epsilon=1e-12, domain=10)
    with pytest.raises(ldpkit.Error) as e:
        ldpkit.params_from_bytes(b"\x01\x63\x00")
    assert e.value.status in ("unknown_mechanism", "malformed_report", "wrong_length", "invalid_parameters")
    with pytest.raises(ldpkit.Error):
        ldpkit.batch_params(b"LDPB")


def test_mechanisms_is_the_tools_ranking(run_ldp):
    frame = ldpkit.mechanisms(1000, 1.5, devices=10**5)
    rows = [line.split(",") for line in run_ldp("mechanisms", "--domain", 1000, "--epsilon", 1.5, "--devices",
                                                   10**5, "--format", "csv").splitlines()[1:]]
    assert list(frame["mechanism"]) == [r[1] for r in rows]
    assert list(frame["parameters"]) == [r[2] for r in rows]
    assert list(frame["rank"]) == list(range(1, len(rows) + 1))
    assert [f"{v:.4g}" for v in frame["variance_per_report"]] == [r[3] for r in rows]
    assert [f"{v:.3g}" for v in frame["estimate_steps"]] == [r[6] for r in rows]
    # At n = 10^7, d = 10^5 OLH's n d decode is over the budget: FLH (k d) ranks above it.
    big = list(ldpkit.mechanisms(10**5, 1.0, devices=10**7)["mechanism"])
    assert big.index("flh") < big.index("olh")
    with pytest.raises(ldpkit.Error):
        ldpkit.mechanisms(1000, 100.0)
    with pytest.raises(TypeError):
        ldpkit.mechanisms("1000", 1.0)


def test_errors_pickle_with_their_status():
    """Errors cross process boundaries (Dask workers) with their status."""
    import pickle

    with pytest.raises(ldpkit.Error) as e:
        ldpkit.params_from_bytes(b"")
    again = pickle.loads(pickle.dumps(e.value))
    assert type(again) is ldpkit.Error and again.status == e.value.status and again.code == e.value.code
    assert str(again) == str(e.value)
    assert {ldpkit._core.status_names()[again.code]} == {again.status}
