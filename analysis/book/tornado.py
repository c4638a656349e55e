"""Draw a one-at-a-time tornado (:func:`analysis.models.uncertainty.tornado_of`) on a figure's axes.

The notebooks make the figure with :mod:`analysis.plot.figures` (``figures.new``, ``figures.save``); this module
only draws the bars, one per ranged input, so every tornado of the book looks the same: the input at the low end
of its documented range in light blue, at the high end in dark red, the model's central value as a vertical line,
and each bar labelled with the input's range.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

LOW_COLOUR, HIGH_COLOUR = "#88CCEE", "#882255"


def draw(ax: Any, table: Any, labels: Mapping[str, str], *, scale: float = 1.0, xlabel: str = "",
         fmt: str = "{:g}") -> None:
    """Bars of `table` (rows sorted by swing, largest first, as ``tornado_of`` returns them) on `ax`.

    `labels` names each parameter for the reader; `scale` divides the outputs (1e6 for million USD); `fmt` formats
    the ends of each input's range in the bar's label."""
    rows = table.iloc[::-1].reset_index(drop=True)  # largest swing on top
    base = float(rows["out_base"].iloc[0]) / scale
    for i, r in rows.iterrows():
        lo, hi = float(r["out_low"]) / scale, float(r["out_high"]) / scale
        ax.barh(i, lo - base, left=base, color=LOW_COLOUR, height=0.6)
        ax.barh(i, hi - base, left=base, color=HIGH_COLOUR, height=0.6)
    ax.axvline(base, color="black", linewidth=1)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([f"{labels.get(str(p), str(p))}\n{fmt.format(lo)} to {fmt.format(hi)}"
                        for p, lo, hi in zip(rows["parameter"], rows["low"], rows["high"], strict=True)])
    if xlabel:
        ax.set_xlabel(xlabel)


class Words:
    """Text a chapter pastes without quotes ({glue:text} shows the repr; a str's repr has quotes): the name of
    the input that moves a number most, say."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text
