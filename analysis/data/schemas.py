"""pandera schemas for the CSV files in data/. Units are in the column names."""

from __future__ import annotations

import pandera.pandas as pa

HW_ID = r"^[A-Za-z0-9][A-Za-z0-9.\-]*$"
ARXIV = r"^(\d{4}\.\d{4,5}|[a-z\-]+(\.[A-Z]{2})?/\d{7})$"
DOI = r"^10\.\d{4,9}/\S+$"
CITEKEY = r"^[a-z][a-z0-9]*$"
YEAR = pa.Check.in_range(1990, 2030)
# "Family, Given" or "{Organisation}" (or a single name), joined by " and "
_PERSON = r"(\{[^{}]+\}|[^,{}]+(, [^,{}]+)?)"
AUTHORS = rf"^{_PERSON}( and {_PERSON})*$"
VENUE_KINDS = ["conference", "workshop", "journal", "preprint"]
# an outside-corpus work may also be a report or specification that is not a paper (the OCP MX specification),
# cited as @techreport with its publishing organisation as `institution`
OUTSIDE_VENUE_KINDS = [*VENUE_KINDS[:3], "report", VENUE_KINDS[3]]


def opt_float(*checks: pa.Check, **kw: object) -> pa.Column:
    """A float column that may be empty, coerced from the CSV's text, with `checks` (and any other
    ``pa.Column`` argument in `kw`, e.g. ``description``)."""
    return pa.Column(float, nullable=True, coerce=True, checks=list(checks), **kw)  # type: ignore[arg-type]


def opt_nonneg(*checks: pa.Check) -> pa.Column:
    """:func:`opt_float` that is also never negative."""
    return opt_float(pa.Check.ge(0), *checks)


def _opt_str(*checks: pa.Check) -> pa.Column:
    return pa.Column(str, nullable=True, checks=list(checks))


HARDWARE = pa.DataFrameSchema(
    {
        "hardware_id": pa.Column(str, unique=True, checks=pa.Check.str_matches(HW_ID)),
        "family": pa.Column(str, checks=pa.Check.str_matches(HW_ID)),
        "vendor": pa.Column(str),
        "kind": pa.Column(str, checks=pa.Check.isin(["gpu", "tpu", "npu", "asic", "cpu", "fpga", "soc", "network"])),
        "name": pa.Column(str),
        "release_year": pa.Column("Int64", nullable=True, coerce=True, checks=YEAR),
        "memory_gb": opt_nonneg(),  # the vendor's nominal figure, as the datasheet writes it ("80 GB")
        # the capacity in MiB (2**20 bytes) where a source gives it in binary units: nvidia-smi's
        # total, or Google's GiB. Kept for reference (hardware.driver_memory_gb); capacities use memory_gb.
        "memory_mib": opt_nonneg(),
        "mem_bw_tbps": opt_nonneg(),
        "tdp_w": opt_nonneg(),
        # rated: the vendor's board power (TDP); measured_max: a measured maximum (TPU v4, no TDP
        # published). The energy chain applies an average-to-rated fraction only to rated power.
        "tdp_basis": pa.Column(str, nullable=True, checks=pa.Check.isin(["rated", "measured_max"])),
        # a measured mean power per chip during training, where the vendor publishes one (Google's
        # TPU v3 and v4 pages); the energy chain uses it as it is, in place of TDP x a fraction
        "mean_power_w": opt_nonneg(),
        # the vendor's measured minimum and maximum chip power (the range the chain's interval draws from)
        "mean_power_low_w": opt_nonneg(),
        "mean_power_high_w": opt_nonneg(),
        "peak_fp64_tflops": opt_nonneg(),
        "peak_fp32_tflops": opt_nonneg(),
        "peak_tf32_tflops": opt_nonneg(),
        "peak_bf16_tflops": opt_nonneg(),
        "peak_fp16_tflops": opt_nonneg(),
        "peak_fp8_tflops": opt_nonneg(),
        "peak_int8_tops": opt_nonneg(),
        "interconnect_gb_per_s": opt_nonneg(),
        # accelerators joined by the vendor's scale-up fabric (NVLink/NVSwitch, ICI) in its standard system;
        # empty where no source was seen. Its source (with URL) in scale_up_source.
        "scale_up_domain": pa.Column("Int64", nullable=True, coerce=True, checks=pa.Check.ge(1)),
        "scale_up_source": _opt_str(),
        "source": pa.Column(str),
        "source_url": _opt_str(),
        "notes": _opt_str(),
    },
    strict=True,
    ordered=False,
)

PAPERS = pa.DataFrameSchema(
    {
        "citekey": pa.Column(str, unique=True, checks=pa.Check.str_matches(CITEKEY)),
        "title": _opt_str(),
        # BibTeX form in the paper's order: "Family, Given and Family, Given"; an organisation in
        # braces ({NVIDIA}); empty when no primary source confirmed the list
        "authors": _opt_str(pa.Check.str_matches(AUTHORS)),
        # the year of the version whose abstract we read (the arXiv posting when there is one); the
        # bibliography's label year is the cited version's: venue_year when the published version is cited
        "year": pa.Column("Int64", nullable=True, coerce=True, checks=YEAR),
        "venue": _opt_str(),
        "venue_kind": pa.Column(str, checks=pa.Check.isin(VENUE_KINDS)),
        "venue_year": pa.Column("Int64", nullable=True, coerce=True, checks=YEAR),
        # which version the bibliography cites: the venue's, or the arXiv version we read when the
        # published one differs in title, authors or abstract
        "cited_version": pa.Column(str, checks=pa.Check.isin(["published", "preprint"])),
        "arxiv_id": _opt_str(pa.Check.str_matches(ARXIV)),
        # the arXiv version whose text (and numbers) we read, pinned when a later version differs
        # ("v1"); the bibliography then cites <arxiv_id><arxiv_version> and links to it
        "arxiv_version": _opt_str(pa.Check.str_matches(r"^v[1-9]\d*$")),
        # own words: which later version (arXiv vN, the venue's) differs and how (its other numbers,
        # a new title); printed as a note of the entry. Set only with arxiv_version.
        "later_version": _opt_str(),
        "doi": _opt_str(pa.Check.str_matches(DOI)),
        # where the cited (published) version sits, as its publisher's or proceedings page states it;
        # pages as "first--last"
        "volume": _opt_str(pa.Check.str_matches(r"^\w[\w .-]*$")),
        "number": _opt_str(pa.Check.str_matches(r"^\w[\w .-]*$")),
        "pages": _opt_str(pa.Check.str_matches(r"^\w+(--\w+)?$")),
        # canonical link: arxiv.org/abs/<id>[<arxiv_version>], else doi.org/<doi>, else the publisher's page
        "url": _opt_str(pa.Check.str_matches(r"^https://")),
        # the page on which the identification (abstract match) was confirmed
        "confirmed_url": _opt_str(pa.Check.str_matches(r"^https?://")),
        # the page on which the author list was confirmed
        "authors_source": _opt_str(pa.Check.str_matches(r"^https?://")),
        "version_notes": _opt_str(),
        "theme": pa.Column(str),
        "secondary_theme": _opt_str(),
        "subtopic": pa.Column(str),
        "contribution_type": pa.Column(
            str,
            checks=pa.Check.isin(["system", "method", "benchmark", "survey", "position", "model", "dataset"]),
        ),
        "system_name": _opt_str(),
        "hardware": _opt_str(),
        "code_url": _opt_str(pa.Check.str_matches(r"^https?://")),
        "headline": _opt_str(),
        "summary": pa.Column(str, checks=pa.Check.str_length(min_value=40)),
        "source_records": pa.Column(str, checks=pa.Check.str_matches(r"^[^#;]+#\d+(;[^#;]+#\d+)*$")),
        "fingerprint": pa.Column(str, unique=True, checks=pa.Check.str_matches(r"^[0-9a-f]{64}$")),
        "notes": _opt_str(),
    },
    strict=True,
    ordered=False,
)


# data/outside-corpus.csv: landmark works a reader would expect that the corpus lacks. Sourced like a
# corpus paper (the page the identification was seen on is `source_url`), but never counted as one.
OUTSIDE = pa.DataFrameSchema(
    {
        "citekey": pa.Column(str, unique=True, checks=pa.Check.str_matches(CITEKEY)),
        "title": pa.Column(str),
        # BibTeX form, as for papers.csv; `authors_complete` is false when the page seen truncated the list
        "authors": pa.Column(str, checks=pa.Check.str_matches(AUTHORS)),
        "authors_complete": pa.Column(str, checks=pa.Check.isin(["true", "false"])),
        # the year of the first arXiv posting; for a work not on arXiv, the year of its venue
        "year": pa.Column("Int64", coerce=True, checks=YEAR),
        "arxiv_id": _opt_str(pa.Check.str_matches(ARXIV)),
        "doi": _opt_str(pa.Check.str_matches(DOI)),
        "venue": _opt_str(),
        "venue_kind": pa.Column(str, checks=pa.Check.isin(OUTSIDE_VENUE_KINDS)),
        # which version the bibliography cites (as in papers.csv): the arXiv version ("preprint"), or the
        # venue's ("published", with its DOI) when the book quotes nothing that differs between the two; a work
        # not on arXiv is always cited as published. venue_year is the published version's year (the label year)
        "cited_version": pa.Column(str, checks=pa.Check.isin(["published", "preprint"])),
        "venue_year": pa.Column("Int64", nullable=True, coerce=True, checks=YEAR),
        # where the published version sits, as a page read states it (printed only when that version is cited)
        "volume": _opt_str(pa.Check.str_matches(r"^\w[\w .-]*$")),
        "number": _opt_str(pa.Check.str_matches(r"^\w[\w .-]*$")),
        "pages": _opt_str(pa.Check.str_matches(r"^\w+(--\w+)?$")),
        "theme": pa.Column(str),
        # the idea a chapter would cite the work for, and why a reader expects it; own words
        # (their lengths, 15 and 20 words at most, are editorial: tests/test_outside.py checks the committed file)
        "concept": pa.Column(str),
        "why_expected": pa.Column(str),
        # the page on which title, abstract and identifier were seen, and the one for the author list
        "source_url": pa.Column(str, checks=pa.Check.str_matches(r"^https?://")),
        "authors_source": _opt_str(pa.Check.str_matches(r"^https?://")),
        "notes": _opt_str(),
    },
    strict=True,
    ordered=False,
)

RELEASE_VERSION = r"^\d+\.\d+\.\d+$"

# data/releases/label-changes.csv: one row per change of a published bibliography label (issue 35). A published
# label never changes except through a row here; the What changed page lists the rows not yet in the release it
# compares with. `released_in` is empty until `make release` stamps it with the release that first prints the
# new label (the snapshot, data/releases/published-labels.csv, then holds the new label).
LABEL_CHANGES = pa.DataFrameSchema(
    {
        "citekey": pa.Column(str, checks=pa.Check.str_matches(CITEKEY)),
        "old_label": pa.Column(str),
        "new_label": pa.Column(str),
        "date": pa.Column(str, checks=pa.Check.str_matches(r"^\d{4}-\d{2}-\d{2}$")),
        # why the label changed, in our words (at least a short sentence)
        "reason": pa.Column(str, checks=pa.Check.str_length(min_value=20)),
        # where the fact that changed the label is recorded (a data file's row, a DOI, a commit)
        "source": pa.Column(str, checks=pa.Check.str_length(min_value=5)),
        "released_in": _opt_str(pa.Check.str_matches(RELEASE_VERSION)),
    },
    strict=True,
    ordered=True,
)
