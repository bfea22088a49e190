"""ldpkit.Estimates: the frame of ldp estimate's numbers, and its bar chart."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402

import ldpkit  # noqa: E402


def counts(n: int = 5000) -> ldpkit.Estimates:
    p = ldpkit.params("oue", epsilon=2.0, domain=12)
    agg = ldpkit.Aggregator(p)
    agg.add_batch(ldpkit.Randomizer(p, seed=3).randomize(np.arange(n) % 12))
    return agg.estimate(0.9)


def test_frame_columns_and_attrs():
    e = counts()
    assert list(e.columns) == ["item", "estimate", "variance", "ci_low", "ci_high"]
    assert e["item"].tolist() == list(range(12))
    assert (e["ci_low"] <= e["estimate"]).all() and (e["estimate"] <= e["ci_high"]).all()
    assert e.attrs["kind"] == "count" and e.attrs["confidence"] == 0.9 and e.attrs["reports"] == 5000
    assert e.attrs["variance_kind"] == "exact"  # OUE: the closed form, nothing public to average
    # Slices stay Estimates (the plot helper goes with them).
    assert isinstance(e[e["estimate"] > 0], ldpkit.Estimates)


def test_plot_draws_bars_with_intervals(tmp_path):
    e = counts()
    ax = e.plot(top=5)
    assert len(ax.patches) == 5
    heights = sorted(bar.get_height() for bar in ax.patches)
    assert heights == sorted(e.nlargest(5, "estimate")["estimate"].tolist())
    assert ax.get_xlabel() == "item" and "90%" in ax.get_title()
    ax.figure.savefig(tmp_path / "plot.png")
    assert (tmp_path / "plot.png").stat().st_size > 1000
