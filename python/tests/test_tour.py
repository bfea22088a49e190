"""examples/python/tour.py runs on its real data and its figures are sane (issue 13, "Set-up and documentation").

The tour's seeds are fixed, so its output is one deterministic run; the bounds below are the ones a
correct implementation meets except with probability about 1e-6 over the choice of seeds, stated at
each check, so a wrong variance, a biased estimate or a lost report fails them.
"""
from __future__ import annotations

import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOUR = ROOT / "examples" / "python" / "tour.py"
DATA = pathlib.Path("/usr/lib/python3/dist-packages/sklearn/datasets/data")
CHECK = re.compile(r"^check (?P<name>[\w ]+): coverage (?P<inside>\d+) of (?P<total>\d+) \([\d.]+%\), "
                   r"RMSE [\d.e+-]+, predicted [\d.e+-]+ \(ratio (?P<ratio>[\d.]+)\)$", re.MULTILINE)


@pytest.fixture(scope="module")
def tour(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, pathlib.Path]:
    """The tour's standard output and its output directory (one run for every test here)."""
    if not (DATA / "digits.csv.gz").exists():
        pytest.fail("the tour's data come from python3-sklearn (apt-get install python3-sklearn)")
    out = tmp_path_factory.mktemp("tour")
    done = subprocess.run([sys.executable, str(TOUR), str(out), "--workers", "2"], cwd=out,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout, out


def checks(stdout: str) -> dict[str, tuple[int, int, float]]:
    """name -> (intervals containing the truth, intervals, RMSE / predicted standard error)."""
    return {m["name"]: (int(m["inside"]), int(m["total"]), float(m["ratio"])) for m in CHECK.finditer(stdout)}


def test_outputs_exist(tour: tuple[str, pathlib.Path]) -> None:
    stdout, out = tour
    for name in ("digits.png", "digits-calibration.png", "digits-epsilon.png", "bmi.png"):
        assert (out / name).stat().st_size > 10_000, name  # a real figure, not an empty canvas
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
    assert len(list(out.glob("digits-site*.ldpb"))) == 4
    assert "byte-identical to one machine's" in stdout
    assert "counted 1,797 reports, rejected 0" in stdout


def test_single_fleet(tour: tuple[str, pathlib.Path]) -> None:
    # 10 intervals at 95%: 3 or fewer containing the truth has probability C(10,3) 0.05^7 0.95^3 < 1e-7.
    inside = int(re.search(r"^check digits: (\d+) of 10 intervals", tour[0], re.MULTILINE).group(1))
    assert inside >= 4


def test_calibration(tour: tuple[str, pathlib.Path]) -> None:
    found = checks(tour[0])
    assert set(found) == {"digits calibration", "bmi laplace", "bmi duchi"}, tour[0]
    for name, (inside, total, ratio) in found.items():
        # Coverage: binomial(total, 0.95), sd sqrt(0.0475 / total): 0.49 points at 2,000 intervals,
        # 0.69 at 1,000; the bounds are 5 sd away (false failure < 1e-6). Duchi's reported variance
        # is an upper bound (lib/server/include/ldp/server/mean.h), here by about var(y) / B^2 < 2%
        # (BMI's spread on [-1, 1] against B = 2.16 at epsilon 1), which moves its coverage up by
        # well under one sd.
        sd = (0.0475 / total) ** 0.5
        assert 0.95 - 5 * sd < inside / total < 0.95 + 5 * sd, (name, inside, total)
        # RMSE over the predicted standard error: the mean of `total` squared z-scores has relative
        # sd about sqrt(2 / total), so the ratio's is sqrt(1 / (2 total)) (1.6% at 2,000, 2.2% at
        # 1,000): 0.88 and 1.12 are more than 5 sd away, with room for the normal approximation at
        # n = 442.
        assert 0.88 < ratio < 1.12, (name, ratio)
