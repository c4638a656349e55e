"""Claims-audit checks for the papers of the chapter Accelerators beyond the GPU."""

from __future__ import annotations

from analysis import models
from analysis.audit.inputs import memory_input
from analysis.audit.registry import (
    PLAUSIBLE,
    Claims,
    Result,
    check,
)


@check("samba-coe-memory", "prabhakar2024sambanova",
       ["prabhakar2024sambanova-2", "prabhakar2024sambanova-4"], "memory",
       "Samba-CoE: a trillion parameters served from eight SN40L sockets")
def _samba(c: Claims) -> Result:
    gb, src = memory_input("SN40L")
    w = models.weights_gb(c.value("prabhakar2024sambanova-2") * 1e12, "bf16")
    needed = models.gpus_to_hold(w, gb)
    sockets = c.value("prabhakar2024sambanova-4")
    return Result(sockets, float(needed), "sockets", 0.0, PLAUSIBLE,
                  f"1e12 x 2 bytes = {w:,.0f} GB; / {gb:g} GB HBM -> {needed} sockets; 8 sockets hold "
                  f"{sockets * gb / w:.0%} in HBM",
                  assumption="three quarters of the experts sit in the off-package DDR tier (up to 1.5 TB per "
                             "socket per the hardware notes) and only active experts are copied into HBM",
                  inputs=src, relation="≥",
                  explanation="HBM alone would need 32 sockets; the claim rests on the DDR tier the abstract "
                              "describes.")
