"""Glued numbers that state a fact about a paper's run or claim carry a key; the build lists them all.

A notebook glues such a number with :func:`glue_fact` instead of ``myst_nb.glue``: the glue is
the same (a chapter pastes it with ``{glue:text}``), and the output's metadata also records the
fact's key (citekey, quantity, boundary, assumption set) and unit. :func:`collect` reads every
glued value of the executed notebooks, with its key where it has one and the pages that paste it;
the build writes the table to ``outputs/numbers.csv``, and a test fails when one key has two values
(one fact, one number). A modelled fact also records its interval (``low``, ``high``: the 10th and
90th percentiles by :data:`analysis.models.chain_inputs.INTERVAL_RULE`); a fact typed from a paper has none.

A dollar figure priced by the book also states its price basis (:data:`PRICE_BASES`): which point of the on-
demand price range of the run's own GPU it uses, or which end of the book's interval. The basis names no GPU
on purpose: the part a run is priced on follows from the GPU the paper names
(:func:`analysis.models.chain_inputs.claim_hardware`), not from a notebook's choice, so two notebooks pricing
one run at the central price state one fact. The same fact can still be glued under two keys (in thousand and
in million USD, or with different assumption notes); :func:`meaning_conflicts` finds those by meaning, (run,
quantity, boundary, price basis) with the unit's scale taken out.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import IPython.core.formatters
import pandas as pd
from IPython.display import display

GLUE_PREFIX = "application/papermill.record/"
KEY_FIELDS = ("citekey", "quantity", "boundary", "assumptions", "price_basis")
COLUMNS = ["key", *KEY_FIELDS, "kind", "value", "low", "high", "unit", "extreme", "notebook", "glue_name", "pages"]

KINDS = ("reported", "derived", "modelled", "statistic")
"""What a keyed fact is: ``reported``, a number a paper or a datasheet states (typed from data/); ``derived``,
exact arithmetic on reported numbers and inputs the fact's ``assumptions`` state (a stated price point, a
stated case), with no assumption left free; ``modelled``, a number that depends on a book default with a
documented range, which carries its interval (``low``, ``high``) by the interval rule; ``statistic``, a count
or statistic over the corpus or the book's tables. A fact glued without a kind is ``modelled`` when it has an
interval and is otherwise unclassified; :func:`unbounded` finds the unclassified ones that look modelled."""

# what marks a fact as made with the book's ranged defaults (prices, power, PUE, grid)
_MODELLED_ASSUMPTIONS = re.compile(r"book (?:central|low|high)|USD/GPU-hour|USD/h\b|on-demand|\bpue\b", re.I)
_MODELLED_QUANTITY = re.compile(r"usd|mwh|kwh|tco2|energy|co2e|cost", re.I)

PRICE_BASES = ("on-demand low", "on-demand central", "on-demand high", "interval low", "interval high")
"""The price bases a dollar figure can state: the lowest, the default (median) or the highest on-demand price
in data/assumptions.yml of the GPU the run is priced on (analysis.models.chain_inputs), or the low or high end
of the book's interval (analysis.models.chain_inputs.INTERVAL_RULE), which draws the price with the other
assumptions."""

# scale words of units and quantities: "thousand USD" and usd_rental_thousand are USD x 1e3
_SCALES = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "M": 1e6}
_QUANTITY_SCALE = re.compile(r"_(thousand|million|billion)$")


def plain(value: Any) -> Any:
    """A plain Python value for glue: numpy scalars (which print as ``np.float64(...)`` and which glue's
    format specs cannot format) become their Python number; anything else is returned as it is."""
    return value.item() if hasattr(value, "item") else value


def glue(name: str, value: Any, display: bool = False) -> None:
    """``myst_nb.glue`` of :func:`plain` `value`: the notebooks' one wrapper for a value that is not a keyed
    fact (a count, a label, a parameter echoed in the prose)."""
    from myst_nb import glue as myst_glue

    myst_glue(name, plain(value), display=display)


def fact_key(citekey: str, quantity: str, boundary: str = "", assumptions: str = "", price_basis: str = "") -> str:
    """The fact's key; a fact without a price basis keeps the four-field key it had before the field existed."""
    return "|".join((citekey, quantity, boundary, assumptions) + ((price_basis,) if price_basis else ()))


def _finite(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def glue_fact(name: str, value: float, *, citekey: str, quantity: str, unit: str, boundary: str = "",
              assumptions: str = "", price_basis: str = "", low: float | None = None,
              high: float | None = None, kind: str = "", extreme: dict[str, Any] | None = None) -> None:
    """``myst_nb.glue(name, value, display=False)`` plus the fact's key, unit, kind (:data:`KINDS`) and
    (a modelled fact) its interval `low`-`high` in the output's metadata; `extreme` is
    :func:`glue_extreme`'s tag when the fact is also the extreme of a table."""
    if kind and kind not in KINDS:
        raise ValueError(f"glue_fact {name}: kind must be one of {KINDS}, got {kind!r}")
    if kind == "modelled" and low is None:
        raise ValueError(f"glue_fact {name}: a modelled fact carries its interval (low=, high=)")
    if kind in ("reported", "derived") and low is not None:
        raise ValueError(f"glue_fact {name}: a {kind} fact has no interval; glue its bounds as their own facts")
    if price_basis and price_basis not in PRICE_BASES:
        raise ValueError(f"price_basis must be one of {PRICE_BASES} (the GPU is the run's own, not part of the "
                         f"basis), got {price_basis!r}")
    v = value.item() if hasattr(value, "item") else value
    if (low is None) != (high is None):
        raise ValueError(f"glue_fact {name}: give both low and high, or neither")
    mimebundle, metadata = IPython.core.formatters.format_display_data(v)
    metadata["scrapbook"] = {"name": name, "mime_prefix": GLUE_PREFIX}
    metadata["fact"] = {"key": fact_key(citekey, quantity, boundary, assumptions, price_basis), "citekey": citekey,
                        "quantity": quantity, "boundary": boundary, "assumptions": assumptions,
                        "price_basis": price_basis, "kind": kind or ("modelled" if low is not None else ""),
                        "unit": unit, "value": float(v) if math.isfinite(float(v)) else None,  # JSON has no NaN
                        "low": _finite(low), "high": _finite(high)}
    if extreme:
        metadata["extreme"] = extreme
    display({GLUE_PREFIX + k: val for k, val in mimebundle.items()}, raw=True, metadata=metadata)


def glue_input(name: str, value: float, quantity: str, unit: str) -> None:
    """A stated input of a notebook (one of its parameters) pasted by a chapter: keyed, exact (kind derived)."""
    glue_fact(name, value, citekey="book", quantity=quantity, unit=unit,
              assumptions="stated input (notebook parameter)", kind="derived")


def corpus_fact(name: str, value: float, quantity: str, unit: str, *conditions: str, citekey: str = "corpus") -> None:
    """A count, share or summary statistic over the corpus (or one theme's papers, ``citekey="corpus:<theme>"``),
    glued as a fact of kind ``statistic``; the non-empty `conditions` (which claims count, the bootstrap) are its
    assumptions, joined by "; "."""
    glue_fact(name, value, citekey=citekey, quantity=quantity, unit=unit,
              assumptions="; ".join(c for c in conditions if c), kind="statistic")


def glue_extreme(name: str, values: Any, which: str, *, of: str, label_name: str = "", **fact: Any) -> Any:
    """Glue the smallest (`which` ``"min"``) or largest (``"max"``) of `values` as `name`, and with
    `label_name` the label (index) of the row that holds it; return the extreme.

    `values` is a column of one of the book's tables (a Series, its index naming the rows), and `of` says
    which ("theme medians of papers' headline speedups"). The glue records that the number is that extreme,
    so that a sentence calling it "lowest", "largest" or "ranges from" pastes a computed extreme rather than
    an arbitrary row (outputs/numbers.csv, column ``extreme``; tests/test_superlatives.py).
    With `fact` (the keyword arguments of :func:`glue_fact`: citekey, quantity, unit, ...) the number is
    also a keyed fact, as a number a page pastes must be (tests/test_numbers.py).
    """
    if which not in ("min", "max"):
        raise ValueError(f"glue_extreme {name}: which is 'min' or 'max', got {which!r}")
    series = pd.Series(values).dropna()
    if series.empty:
        raise ValueError(f"glue_extreme {name}: no values of {of}")
    pos = int(series.to_numpy().argmin() if which == "min" else series.to_numpy().argmax())
    label = series.index[pos]
    v: Any = series.iloc[pos]
    v = v.item() if hasattr(v, "item") else v
    tag = {"which": which, "of": of, "n": int(len(series))}
    if fact:
        fact.setdefault("kind", "derived")  # an extreme of a table's numbers, computed without a free assumption
        glue_fact(name, v, extreme=tag, **fact)
    for glue_name, value in (((name, v),) if not fact else ()) + ((label_name, label),):
        if not glue_name:
            continue
        mimebundle, metadata = IPython.core.formatters.format_display_data(value)
        metadata["scrapbook"] = {"name": glue_name, "mime_prefix": GLUE_PREFIX}
        metadata["extreme"] = tag
        display({GLUE_PREFIX + k: val for k, val in mimebundle.items()}, raw=True, metadata=metadata)
    return v


def glue_modelled(name: str, iv: Any, *, citekey: str, quantity: str, unit: str, boundary: str = "",
                  assumptions: str = "", price_basis: str = "", scale: float = 1.0,
                  extreme: dict[str, Any] | None = None) -> None:
    """Glue a modelled number (an :class:`analysis.models.uncertainty.Interval`, times `scale`) as a keyed fact
    with its interval, and its ends as ``{name}_low`` and ``{name}_high`` for the prose ("about 145 (95-210)").
    The ends are not keyed facts of their own: they are this fact's ``low`` and ``high`` in numbers.csv.
    `extreme` (as :func:`glue_extreme` records it) marks the number as the smallest or largest of a table's rows,
    chosen at the central values (tests/test_superlatives.py)."""
    from myst_nb import glue

    lo, hi = sorted((iv.low * scale, iv.high * scale))
    glue_fact(name, iv.central * scale, citekey=citekey, quantity=quantity, unit=unit, boundary=boundary,
              assumptions=assumptions, price_basis=price_basis, low=lo, high=hi, kind="modelled", extreme=extreme)
    glue(f"{name}_low", lo, display=False)
    glue(f"{name}_high", hi, display=False)


def _value(data: dict[str, Any]) -> float:
    text = data.get(GLUE_PREFIX + "text/plain", "")
    try:
        return float(text)
    except (TypeError, ValueError):
        return math.nan


def _references(book: Path) -> dict[tuple[str, str], set[str]]:
    """(notebook stem, glue name) -> pages (intro.md, chapters/x.md, notebooks/y.ipynb) that paste it."""
    refs: dict[tuple[str, str], set[str]] = {}
    cross = re.compile(r"notebooks/([A-Za-z0-9_.-]+)\.ipynb::([A-Za-z0-9_-]+)")
    pages = sorted((book / "chapters").glob("*.md")) + [p for p in (book / "intro.md",) if p.exists()]
    for page in pages:
        label = page.relative_to(book).as_posix()
        for nb, name in cross.findall(page.read_text(encoding="utf-8")):
            refs.setdefault((nb, name), set()).add(label)
    local = re.compile(r"\{glue(?::\w+)?\}`([A-Za-z0-9_-]+)(?::[^`]*)?`")
    for nb in sorted((book / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for cell in cells:
            if cell["cell_type"] == "markdown":
                for name in local.findall("".join(cell["source"])):
                    refs.setdefault((nb.stem, name), set()).add(f"notebooks/{nb.name}")
    return refs


def _extreme(tag: dict[str, Any] | None) -> str:
    return f"{tag['which']} of {tag['of']} (n={tag['n']})" if tag else ""


def collect(book: Path) -> pd.DataFrame:
    """Every glued value of the executed notebooks under `book`, with its key (if any) and pages."""
    refs = _references(book)
    rows = []
    for nb in sorted((book / "notebooks").glob("*.ipynb")):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            for out in cell.get("outputs", []):
                meta = out.get("metadata", {})
                if "scrapbook" not in meta:
                    continue
                name = meta["scrapbook"]["name"]
                fact = meta.get("fact", {})
                rows.append({"key": fact.get("key", ""), **{k: fact.get(k, "") for k in KEY_FIELDS},
                             "kind": fact.get("kind", ""),
                             "value": math.nan if fact.get("value", 0.0) is None
                             else fact.get("value", _value(out.get("data", {}))),
                             "low": math.nan if fact.get("low") is None else fact["low"],
                             "high": math.nan if fact.get("high") is None else fact["high"],
                             "unit": fact.get("unit", ""),
                             "extreme": _extreme(meta.get("extreme")),
                             "notebook": nb.stem, "glue_name": name,
                             "pages": ";".join(sorted(refs.get((nb.stem, name), set())))})
    return pd.DataFrame(rows, columns=COLUMNS)


def conflicts(numbers: pd.DataFrame, rel: float = 1e-9) -> pd.DataFrame:
    """Rows of keys that carry more than one value (relative difference above `rel`)."""
    keyed = numbers[numbers["key"] != ""]
    bad = []
    for _, g in keyed.groupby("key"):
        v = g["value"].astype(float)
        if (v.max() - v.min()) > rel * max(abs(v.max()), abs(v.min()), 1e-300):
            bad.append(g)
    return pd.concat(bad) if bad else keyed.iloc[0:0]


def _unit_scale(unit: str) -> tuple[str, float]:
    """("USD", 1e6) for "million USD"; a unit without a scale word is itself with scale 1."""
    head, _, rest = unit.partition(" ")
    return (rest, _SCALES[head]) if rest and head in _SCALES else (unit, 1.0)


def meaning(numbers: pd.DataFrame) -> pd.DataFrame:
    """The keyed rows with what they mean: run (citekey), quantity and unit without their scale word, boundary
    and basis (the price basis where one is stated, else the assumption set), and the value in the unscaled
    unit. usd_rental_thousand 66.42 thousand USD and usd_rental 66420 USD mean one thing."""
    keyed = numbers[numbers["key"] != ""].copy()
    for col in KEY_FIELDS:
        keyed[col] = keyed[col].fillna("").astype(str) if col in keyed else ""
    units = keyed["unit"].fillna("").astype(str).map(_unit_scale)
    keyed["m_unit"] = [u for u, _ in units]
    keyed["m_value"] = pd.to_numeric(keyed["value"], errors="coerce") * [f for _, f in units]
    keyed["m_quantity"] = keyed["quantity"].str.replace(_QUANTITY_SCALE, "", regex=True)
    keyed["m_basis"] = keyed["price_basis"].where(keyed["price_basis"] != "", keyed["assumptions"])
    return keyed


MEANING = ("citekey", "m_quantity", "m_unit", "boundary", "m_basis")


def meaning_conflicts(numbers: pd.DataFrame, rel: float = 1e-9) -> pd.DataFrame:
    """Rows of one meaning (:data:`MEANING`) glued under more than one key with different values."""
    m = meaning(numbers)
    bad = []
    for _, g in m.groupby(list(MEANING)):
        v = g["m_value"].astype(float).dropna()
        if g["key"].nunique() > 1 and len(v) and (v.max() - v.min()) > rel * max(abs(v.max()), abs(v.min()), 1e-300):
            bad.append(g)
    return pd.concat(bad) if bad else m.iloc[0:0]


def unbounded(numbers: pd.DataFrame) -> pd.DataFrame:
    """Keyed facts that are modelled, or look modelled (priced, powered or carbon-counted with the book's
    defaults) without being classified as reported, derived or a statistic, and have no interval."""
    keyed = numbers[numbers["key"].fillna("") != ""].copy()
    for col in ("assumptions", "price_basis", "quantity", "kind"):
        keyed[col] = keyed[col].fillna("").astype(str)
    no_interval = keyed["low"].isna() | keyed["high"].isna()
    looks = (keyed["assumptions"].str.contains(_MODELLED_ASSUMPTIONS)
             | keyed["price_basis"].eq("on-demand central")
             | keyed["quantity"].str.contains(_MODELLED_QUANTITY))
    flagged = keyed["kind"].eq("modelled") | (keyed["kind"].eq("") & looks)
    return keyed[flagged & no_interval]


def interval_ends(numbers: pd.DataFrame) -> pd.DataFrame:
    """The unkeyed ``{name}_low``/``{name}_high`` glues of :func:`glue_modelled` (rows whose value is the low or
    high of the keyed fact ``name`` of the same notebook): the ends the prose pastes, not facts of their own."""
    keyed = numbers[numbers["key"].fillna("") != ""]
    bounds = {(str(r["notebook"]), str(r["glue_name"])): {"low": r["low"], "high": r["high"]}
              for _, r in keyed.iterrows()}
    rows = []
    for i, r in numbers[numbers["key"].fillna("") == ""].iterrows():
        stem, _, end = str(r["glue_name"]).rpartition("_")
        fact = bounds.get((str(r["notebook"]), stem))
        if end not in ("low", "high") or fact is None:
            continue
        try:
            bound, value = float(fact[end]), float(r["value"])
        except (TypeError, ValueError):
            continue
        if math.isclose(bound, value, rel_tol=1e-9, abs_tol=1e-12):
            rows.append(i)
    return numbers.loc[rows]


def write(book: Path) -> Path:
    """Write ``outputs/numbers.csv`` of the staged book and return its path."""
    out = book / "outputs" / "numbers.csv"
    out.parent.mkdir(parents=True, exist_ok=True)
    collect(book).to_csv(out, index=False)
    return out
