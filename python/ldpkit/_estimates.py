"""The estimates frame: ``ldp estimate``'s numbers as a pandas DataFrame, with a bar-chart helper."""

from __future__ import annotations

import json
from typing import Any, Optional, Tuple

import numpy as np
import pandas as pd

#: The columns of every :class:`Estimates`, in order.
COLUMNS = ("item", "estimate", "variance", "ci_low", "ci_high")


class Estimates(pd.DataFrame):
    """Estimates with confidence intervals: one row per item (frequency oracles: the count of item
    ``item``) or coordinate (numeric mechanisms: the mean of coordinate ``item``), with columns
    ``item``, ``estimate``, ``variance`` (closed form with the implemented parameters),
    ``ci_low``, ``ci_high`` (normal interval at ``attrs["confidence"]``).

    ``attrs`` holds the rest of ``ldp estimate --format json``'s object: mechanism, epsilon,
    fingerprint, parameters, kind ("count" or "mean"), variance_kind ("exact", "average", "bootstrap" or
    "bound": what ``variance`` is), size, confidence, reports, rejected, damaged_chunks, and for a
    central-DP release delta and release.
    """

    @property
    def _constructor(self) -> type:
        return Estimates

    @classmethod
    def from_core(cls, result: Tuple[Any, ...]) -> "Estimates":
        """The frame of an ``_core`` estimate or release: five numpy columns and the JSON summary."""
        *columns, summary = result
        frame = cls(dict(zip(COLUMNS, columns)))
        frame.attrs.update(json.loads(summary))
        return frame

    @classmethod
    def from_json(cls, obj: dict) -> "Estimates":
        """The frame of one ``ldp estimate --format json`` object (or a release file's)."""
        rows = obj.get("estimates", [])
        frame = cls({c: np.array([r[c] for r in rows], dtype=np.int64 if c == "item" else np.float64) for c in COLUMNS})
        frame.attrs.update({k: v for k, v in obj.items() if k != "estimates"})
        return frame

    def plot(  # type: ignore[override]
        self, ax: Optional[Any] = None, top: Optional[int] = None, title: Optional[str] = None, **bar: Any
    ) -> Any:
        """The usual bar chart: one bar per item or coordinate with its confidence interval as an
        error bar (matplotlib). ``top`` keeps the ``top`` largest estimates; ``ax`` draws into an
        existing Axes; other keyword arguments go to ``Axes.bar``. Returns the Axes."""
        import matplotlib.pyplot as plt

        shown = pd.DataFrame(self)
        if top is not None:
            shown = shown.nlargest(int(top), "estimate")
        if ax is None:
            _, ax = plt.subplots(figsize=(max(4.0, min(16.0, 0.3 * len(shown) + 2)), 4))
        positions = np.arange(len(shown))
        below = (shown["estimate"] - shown["ci_low"]).to_numpy()
        above = (shown["ci_high"] - shown["estimate"]).to_numpy()
        ax.bar(positions, shown["estimate"].to_numpy(), yerr=np.vstack([below, above]), capsize=2, **bar)
        ax.set_xticks(positions)
        ax.set_xticklabels([str(i) for i in shown["item"]], rotation=90 if len(shown) > 20 else 0)
        kind = self.attrs.get("kind", "count")
        ax.set_xlabel("coordinate" if kind == "mean" else "item")
        ax.set_ylabel("estimated mean" if kind == "mean" else "estimated count")
        confidence = self.attrs.get("confidence")
        mechanism = self.attrs.get("mechanism", "")
        default = f"{mechanism} estimates" + (f", {100 * confidence:g}% intervals" if confidence else "")
        ax.set_title(title if title is not None else default)
        return ax
