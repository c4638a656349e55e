"""Claims-audit checks for the papers of the chapter Neural architecture search and hardware-efficient architectures."""

from __future__ import annotations

import math

from analysis import models
from analysis.audit.registry import (
    PLAUSIBLE,
    Claims,
    Result,
    check,
)


@check("nas-conventional-cost", "cai2018proxylessnas",
       ["cai2018proxylessnas-1", "termritthikun2021eeeanet-3", "termritthikun2021eeeanet-4"], "unit",
       "ProxylessNAS's '10^4 GPU hours' for conventional NAS against NASNet and AmoebaNet as cited by EEEA-Net")
def _nas_cost(c: Claims) -> Result:
    reported = c.value("cai2018proxylessnas-1")
    nasnet = models.gpu_hours(1, c.value("termritthikun2021eeeanet-4"))
    amoeba = models.gpu_hours(1, c.value("termritthikun2021eeeanet-3"))
    same_decade = all(math.floor(math.log10(v)) == math.floor(math.log10(reported)) for v in (nasnet, amoeba))
    return Result(reported, nasnet, "GPU-hours", 0.0, PLAUSIBLE if same_decade else "inconsistent",
                  f"NASNet 2,000 GPU-days x 24 = {nasnet:,.0f}; AmoebaNet 3,150 x 24 = {amoeba:,.0f} GPU-hours",
                  assumption="'10^4 GPU hours' is an order of magnitude (tens of thousands), not ten thousand"
                  if same_decade else "",
                  explanation="The two searches EEEA-Net cites cost 4.8-7.6 x 10^4 GPU-hours: the same decade "
                              "as ProxylessNAS's example, five to eight times its literal value.")
