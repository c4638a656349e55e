"""The kind of assumption behind each hand-written check's 'plausible only under an assumption'.

The rules of :mod:`analysis.audit.rules` name the condition in their :class:`Result`; the
hand-written checks predate the conditions, so their labels live here, keyed by check id, and
:func:`analysis.audit.run.run_all` attaches them. A label does not change a check's result.
"""

from __future__ import annotations

HANDWRITTEN: dict[str, str] = {
    "fuyou-utilization": "unstated hardware or precision",  # FP16 rather than FP32 accumulation
    "curie-6nd": "unstated hardware or precision",  # the consumer GPU is not named
    "onesweep-bandwidth": "unstated hardware or precision",  # digit width and A100 variant
    "pixart-co2": "unstated hardware or precision",  # same hardware, power and grid for both models
    "zero-infinity-dgx2": "offload or tiering",
    "samba-coe-memory": "offload or tiering",
    "harmony-cost-rate": "price assumption",
    "pixart-cost-rate": "price assumption",
    "pixart-sd-cost-rate": "price assumption",
    "sequence-parallel-27x": "unstated baseline",
    "fa3-speedup-vs-fa2": "different runs or versions",
    "pythia-budget": "different runs or versions",  # an extrapolated rather than a complete run
    "nas-conventional-cost": "reading of the abstract",  # 10^4 as an order of magnitude
    "hift-7b-a6000": "reading of the abstract",  # the saving applies to the whole footprint
    "zero-infinity-800-v100": "model of the workload",  # what beyond the Adam states fills the GPUs
    "onesweep-traffic-ratio": "model of the workload",  # time proportional to memory traffic
    "cottier-billion-2027": "unstated input",  # the cost of the 2023 frontier run
}
