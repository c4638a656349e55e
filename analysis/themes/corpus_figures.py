"""Figures of the corpus overview: the flow diagram, papers per theme, hardware by theme."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd

from analysis.data import hardware as hw
from analysis.plot import figures


def flow_diagram(*, n_records: int, n_duplicates: int, n_papers: int, n_identified: int,
                 per_theme: pd.Series, themes: pd.DataFrame) -> plt.Figure:
    """A PRISMA-style flow: records → duplicates removed → papers → identified → per theme."""
    import textwrap

    fig, ax = figures.new(figsize=(10, 8))
    ax.set_axis_off()
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    box = {"boxstyle": "round,pad=0.5", "fc": "white", "ec": figures.PALETTE[0], "lw": 1.5}
    steps = [
        (9.5, f"{n_records} abstract records in 3 seed files"),
        (8.3, f"{n_papers} distinct papers  ({n_duplicates} exact duplicates merged)"),
        (7.1, f"{n_identified} identified by arXiv ID or DOI  ({n_papers - n_identified} without)"),
        (5.9, f"assigned to one primary theme ({len(per_theme)} groups)"),
    ]
    for y, text in steps:
        ax.text(5, y, text, ha="center", va="center", bbox=box, fontsize=12)
    arrow = {"arrowstyle": "-|>", "lw": 1.5, "color": figures.PALETTE[0]}
    for (y0, _), (y1, _) in zip(steps, steps[1:], strict=False):
        ax.annotate("", xy=(5, y1 + 0.32), xytext=(5, y0 - 0.32), arrowprops=arrow)
    titles = dict(zip(themes["id"], themes["title"], strict=True))
    order = [t for t in themes["id"] if t in per_theme.index]
    for i, tid in enumerate(order):
        col, row = i % 2, i // 2
        x = 2.55 + 4.9 * col
        y = 4.9 - row * 0.85
        colour = figures.THEME_COLOURS[tid]
        name = "Set aside: not about ML efficiency" if tid == "beyond-ml" else titles[tid]
        label = "\n".join(textwrap.wrap(f"{name}: {int(per_theme[tid])}", 38))
        ax.text(x, y, label, ha="center", va="center", fontsize=11, linespacing=1.0,
                bbox={"boxstyle": "round,pad=0.35", "fc": colour, "ec": colour, "alpha": 0.35})
    return fig


def _wrap(title: str, width: int = 34) -> str:
    """A theme title wrapped onto lines of at most `width` characters (for axis labels)."""
    import textwrap

    return "\n".join(textwrap.wrap(title, width))


def papers_per_theme(pp: pd.DataFrame, themes: pd.DataFrame) -> plt.Figure:
    titles = dict(zip(themes["id"], themes["title"], strict=True))
    y = pp["year"].astype("Int64")
    years = y.where(y > 2019).astype("string").fillna("2019 or earlier")
    tab = pd.crosstab(pp["theme"].map(titles), years)
    tab = tab.loc[[titles[t] for t in themes["id"] if titles[t] in tab.index][::-1]]
    tab.index = [_wrap(t) for t in tab.index]
    fig, ax = figures.new(figsize=(6.8, 7))
    cols = sorted(tab.columns)
    import seaborn as sns  # its palettes (imported here: a second of import time for every importer)

    palette = sns.color_palette("cividis", n_colors=len(cols))
    left = pd.Series(0, index=tab.index)
    for c, colour in zip(cols, palette, strict=True):
        ax.barh(tab.index, tab[c], left=left, color=colour, label=c)
        left += tab[c]
    ax.set_xlabel("papers (count)")
    ax.legend(title="year", ncol=4, loc="upper center", bbox_to_anchor=(0.3, -0.1), frameon=False)
    return fig


def hardware_heatmap(pp: pd.DataFrame, themes: pd.DataFrame) -> plt.Figure:
    table = hw.load()
    family = dict(zip(table["hardware_id"], table["family"], strict=True))
    rows = []
    for _, r in pp.iterrows():
        for h in (r["hardware"] or "").split(";") if pd.notna(r["hardware"]) else []:
            rows.append((r["citekey"], r["theme"], family.get(h, h)))
    df = pd.DataFrame(rows, columns=["citekey", "theme", "family"]).drop_duplicates()
    titles = dict(zip(themes["id"], themes["title"], strict=True))
    tab = pd.crosstab(df["theme"].map(titles), df["family"])
    keep = tab.sum().sort_values(ascending=False).index[:16]
    tab = tab[keep]
    tab = tab.loc[[titles[t] for t in themes["id"] if titles[t] in tab.index]]
    tab.index = [_wrap(t) for t in tab.index]
    fig, ax = figures.new(figsize=(7, 9))
    import seaborn as sns  # its heatmap

    sns.heatmap(tab, annot=True, fmt="d", cmap="Blues", ax=ax, annot_kws={"fontsize": 10},
                cbar_kws={"label": "papers (count)", "shrink": 0.7, "pad": 0.02})
    ax.set_xlabel("hardware family named in the abstract")
    ax.set_ylabel("")
    return fig
