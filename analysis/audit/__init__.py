"""The claims audit: recomputations of the numbers the papers report, with verdicts.

``registry`` holds the verdicts, the tolerances, severities and conditions, :class:`Result` and
the ``@check`` decorator; ``inputs`` the extra inputs a check needs and their sources; one module
per theme holds that theme's hand-written checks (``conditions`` labels their assumptions); the
package ``rules`` generates checks from the ledger's types; ``overrides`` reads
data/audit-overrides.csv; ``run`` runs them all. The audit may import ``analysis.data`` and
``analysis.models`` only. The names notebooks use are re-exported here
(``from analysis import audit; audit.run_all()``).
"""

from analysis.audit.inputs import DATA_FILES, constant, memory_input, peak_input, price_input
from analysis.audit.registry import (
    CONDITIONS,
    KINDS,
    PLAUSIBLE,
    REGISTRY,
    RELATIONS,
    SEVERITIES,
    VERDICTS,
    Check,
    Claims,
    Result,
    check,
    combined_tolerance,
    judge,
    judge_bound,
    pct,
    rounding_tolerance,
    severity,
    significant_tolerance,
    x_fold,
)
from analysis.audit.run import audit, coverage, overridden, results_of, run_all, verdicts_by_citekey

__all__ = [
    "DATA_FILES",
    "constant",
    "memory_input",
    "peak_input",
    "price_input",
    "VERDICTS",
    "KINDS",
    "CONDITIONS",
    "SEVERITIES",
    "severity",
    "audit",
    "coverage",
    "overridden",
    "results_of",
    "RELATIONS",
    "PLAUSIBLE",
    "Result",
    "Check",
    "REGISTRY",
    "check",
    "Claims",
    "rounding_tolerance",
    "significant_tolerance",
    "combined_tolerance",
    "judge",
    "judge_bound",
    "x_fold",
    "pct",
    "run_all",
    "verdicts_by_citekey",
]
