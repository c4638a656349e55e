"""The audit's rules: checks generated from the types of the claims ledger.

Each module holds one rule (``base`` what they share): ``peak`` (a throughput or utilisation
within the hardware's dense peak), ``memory`` (the devices hold the model), ``amdahl`` (an
end-to-end speedup within its component's), ``arithmetic`` (a stated ratio from its two
numbers), ``conversion`` (GPU-days and GPU-hours, devices × time, per day and per item),
``price`` (a dollar figure's price per GPU-hour) and ``order`` (an average within the maximum).
:func:`generate` runs them over the ledger; :func:`analysis.audit.run.run_all` puts their checks
beside the hand-written ones. This package may import ``analysis.data``, ``analysis.models`` and
the rest of ``analysis.audit``.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from analysis.audit.registry import Check
from analysis.audit.rules.amdahl import AmdahlRule
from analysis.audit.rules.arithmetic import ArithmeticRule
from analysis.audit.rules.base import Generated, Ledger, Rule, RuleRun
from analysis.audit.rules.conversion import ConversionRule
from analysis.audit.rules.memory import MemoryRule
from analysis.audit.rules.order import OrderRule
from analysis.audit.rules.peak import PeakRule
from analysis.audit.rules.price import PriceRule

RULES: list[Rule] = [PeakRule(), MemoryRule(), AmdahlRule(), ArithmeticRule(), ConversionRule(), PriceRule(),
                     OrderRule()]


def generate(ledger: pd.DataFrame, handwritten: Mapping[str, Check]) -> list[RuleRun]:
    """Run every rule over the ledger; each run holds its generated checks and what it left to the
    hand-written checks."""
    lg = Ledger(ledger)
    runs = [rule.run(lg, handwritten) for rule in RULES]
    ids = [g.check_id for run in runs for g in run.generated]
    clash = sorted({i for i in ids if ids.count(i) > 1} | (set(ids) & set(handwritten)))
    if clash:
        raise ValueError(f"generated check ids are not unique: {clash}")
    return runs


__all__ = ["RULES", "Generated", "Ledger", "Rule", "RuleRun", "generate"]
