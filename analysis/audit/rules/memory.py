"""Rule ``memory``: do the named devices hold the model?

Applies to three kinds of claim:

- a device count (metric ``gpu_count``): the model the devices run, its parameter count (a
  params claim of the paper whose size the workload names, or the model's name) and whether it is
  trained or served give a footprint: the weights at the stated precision (16-bit if none is
  stated) for inference and for LoRA fine-tuning, 16 bytes per parameter for training
  (mixed-precision Adam, :func:`analysis.models.training_bytes_per_param`);
- a parameter count that names hardware but no device count: the same footprint against one
  device, or the number of devices it needs;
- a memory figure (GB) that names hardware: in a paper without a multi-device count, the memory a
  named model runs in (its weights must fit, or the rest is offloaded); otherwise a device's
  memory, which cannot exceed the datasheet's.

The footprint leaves out activations and the KV cache, so "fits" is necessary, not sufficient.
A footprint larger than the devices' memory is never called implausible: offloading to host
memory or NVMe can always make a model run. The check says how much must live outside the
devices ("offload or tiering"), or that the larger variant of an ambiguous part must be meant.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial

from analysis import models
from analysis.audit.registry import Result, pct
from analysis.audit.rules.base import (
    SCALE,
    Candidate,
    Claim,
    Ledger,
    ModelSize,
    Rule,
    devices,
    figures,
    linked_params,
    mode_of,
    not_checkable,
    plausible,
    says_one_device,
)
from analysis.data import hardware

GB_PER = {"MB": 1e-3, "GB": 1.0, "TB": 1e3}


class MemoryRule(Rule):
    name = "memory"
    title = "Memory fit"
    kind = "memory"
    covers = frozenset({"memory"})
    question = "Do the named devices hold the model's weights (and, for training, its gradients and optimizer states)?"

    def candidates(self, ledger: Ledger) -> Iterator[Candidate]:
        linked: set[str] = set()
        for c in ledger.claims:
            if c.metric != "gpu_count":
                continue
            size = linked_params(ledger, c)
            if size is not None:
                linked.update(size.claim_ids)
            claims = (c.claim_id, *(size.claim_ids if size else ()))
            yield Candidate(claims, c.citekey, f"{c.shown} of {c.hardware or 'unnamed hardware'} for "
                            f"'{c.workload}' against the model's footprint",
                            partial(device_count, ledger, c, size))
        for c in ledger.claims:
            if (c.metric == "params" and c.single and c.unit in SCALE and c.hardware
                    and c.claim_id not in linked):
                yield Candidate((c.claim_id,), c.citekey, f"a {c.shown} model on {c.hardware}: devices needed",
                                partial(model_on_device, ledger, c))
        for c in ledger.claims:
            if c.metric == "memory" and c.unit in GB_PER and c.hardware:
                yield Candidate((c.claim_id,), c.citekey, f"{c.shown} of memory on {c.hardware}",
                                partial(stated_memory, ledger, c))


def footprint(params: float, mode: str, precision: str, lora: bool) -> tuple[float, str]:
    """GB the model needs, and how it is counted."""
    if mode == "inference" or lora:
        p = precision or "bf16"
        gb = models.weights_gb(params, p)
        what = "frozen weights (LoRA adapters are small)" if lora and mode == "training" else "weights"
        assumed = "" if precision else ", 16-bit assumed"
        per = models.bytes_per_element(p)
        return gb, f"{params:.3g} x {per:g} bytes = {gb:,.1f} GB of {what} ({p.upper()}{assumed})"
    bpp = models.training_bytes_per_param()
    gb = params * bpp / 1e9
    return gb, (f"{params:.3g} x {bpp:g} bytes = {gb:,.0f} GB of model states (mixed-precision Adam: 16-bit weights "
                "and gradients, FP32 master weights and moments)")


def _offload_text(need: float, cap: float, where: str, params: float, mode: str, precision: str, lora: bool) -> str:
    out = (f"about {need - cap:,.0f} GB of the {need:,.0f} GB ({pct(1 - cap / need)}) lives outside {where} "
           "(host memory or NVMe)")
    if (mode == "inference" or lora) and not precision:
        bits = cap * 8e9 / params
        if bits >= 2:
            out += f", or the weights are quantized to {bits:.1f} bits per parameter or fewer"
    elif mode == "training" and not lora and params * 4 / 1e9 <= cap:
        out += ", or the optimizer states (12 of the 16 bytes per parameter) are kept off the devices"
    return out


def _sources(ids: tuple[str, ...], mems: dict[str, float]) -> str:
    return "; ".join(f"{i} memory {mems[i]:.4g} GB (data/hardware.csv: {hardware.spec(i)['source']})" for i in ids)


def _verdict(n: float | None, need: float, how: str, c: Claim, mems: dict[str, float], size: ModelSize,
             mode: str, precision: str, lora: bool) -> Result:
    """The footprint `need` against `n` devices of the variants `mems` (n None: not stated)."""
    small, big = min(mems, key=mems.__getitem__), max(mems, key=mems.__getitem__)
    src = _sources(tuple(mems), mems) + f"; model size {size.source}; {mode}"
    needed = models.gpus_to_hold(need, mems[small])
    needed_big = models.gpus_to_hold(need, mems[big])
    larger = " (the model is larger than the stated figure, so the margin is smaller)" \
        if size.qualifier in ("over", "at least") else ""
    if n is None:
        one = says_one_device(c)
        formula = f"{how}; / {mems[small]:.4g} GB -> {needed} devices of {mems[small]:.4g} GB ({small})"
        if needed <= 1:
            return Result(1.0, float(needed), "devices", 0.0, "consistent", formula, inputs=src, relation="≥",
                          explanation=f"The model fits on one device{larger}.")
        if needed_big <= 1:
            return plausible(1.0, float(needed), "devices", 0.0, formula, "unstated hardware or precision",
                             f"the device is the {big} ({mems[big]:.4g} GB), not the {small}"
                             + ("" if one else f", or the model is spread over {needed} devices (the ledger gives no "
                                               "device count)"), inputs=src, relation="≥")
        if one:
            return plausible(1.0, float(needed), "devices", 0.0, formula, "offload or tiering",
                             _offload_text(need, mems[big], f"one {big}'s {mems[big]:.4g} GB", size.params, mode,
                                           precision, lora), inputs=src, relation="≥",
                             explanation="The evidence speaks of one device.")
        offload = _offload_text(need, mems[big], f"one {big}", size.params, mode, precision, lora)
        return plausible(None, float(needed), "devices", 0.0, formula, "unstated device count",
                         f"the model is spread over at least {needed_big} {big} (the ledger gives no device count "
                         f"for it), or {offload}", inputs=src, relation="≥")
    cap_small, cap_big = n * mems[small], n * mems[big]
    formula = (f"{how}; {n:g} x {mems[small]:.4g} GB = {cap_small:,.0f} GB (footprint / memory = "
               f"{pct(need / cap_small)}); {needed} devices of {mems[small]:.4g} GB ({small}) would do")
    if need <= cap_small:
        return Result(n, float(needed), "devices", 0.0, "consistent", formula, inputs=src, relation="≥",
                      explanation=f"The footprint fills {pct(need / cap_small)} of the devices' memory{larger}; "
                                  "activations and caches need the rest.")
    if need <= cap_big:
        return plausible(n, float(needed), "devices", 0.0, formula, "unstated hardware or precision",
                         f"the devices are {big} ({mems[big]:.4g} GB each), not {small}", inputs=src, relation="≥")
    return plausible(n, float(needed_big), "devices", 0.0, formula, "offload or tiering",
                     _offload_text(need, cap_big, f"the {n:g} x {mems[big]:.4g} GB of device memory", size.params,
                                   mode, precision, lora), inputs=src, relation="≥")


def device_count(ledger: Ledger, c: Claim, size: ModelSize | None) -> Result:
    dev = devices(c.hardware)
    if dev.problem:
        return not_checkable(f"{dev.problem}: no device memory to hold the model", "devices", c.upper)
    if size is None:
        return not_checkable("the ledger gives no parameter count for the model these devices run", "devices",
                             c.upper)
    mode = mode_of(ledger, c)
    if not mode:
        return not_checkable("the ledger does not say whether the model is trained or served", "devices", c.upper)
    precision = c.precision.lower() or "".join(ledger[i].precision.lower() for i in size.claim_ids)
    lora = "lora" in c.words()
    need, how = footprint(size.params, mode, precision, lora)
    mems = figures(dev.ids, hardware.memory_gb)
    n = c.lower  # a range of device counts: the smallest must hold the model
    return _verdict(n, need, how, c, mems, size, mode, precision, lora)


def model_on_device(ledger: Ledger, c: Claim) -> Result:
    dev = devices(c.hardware)
    if dev.problem:
        return not_checkable(f"{dev.problem}: no device memory to hold the model", "devices")
    mode = mode_of(ledger, c)
    if not mode:
        return not_checkable("the ledger does not say whether the model is trained or served", "devices")
    assert c.value is not None
    size = ModelSize(c.value * SCALE[c.unit], f"{c.shown} ({c.claim_id})", (c.claim_id,), c.qualifier)
    precision = c.precision.lower()
    lora = "lora" in c.words()
    need, how = footprint(size.params, mode, precision, lora)
    mems = figures(dev.ids, hardware.memory_gb)
    return _verdict(None, need, how, c, mems, size, mode, precision, lora)


def stated_memory(ledger: Ledger, c: Claim) -> Result:
    gb = c.upper * GB_PER[c.unit]
    several = [o for o in ledger.paper(c.citekey) if o.metric == "gpu_count" and o.upper > 1]
    size = None if several else linked_params(ledger, c, only_paper_count=False)
    mode = mode_of(ledger, c) if size else ""
    if size is not None and mode:
        precision = c.precision.lower()
        lora = "lora" in c.words()
        need, how = footprint(size.params, mode, precision, lora)
        formula = f"{how}; stated memory {gb:g} GB"
        src = f"model size {size.source}; {mode}"
        if need <= gb:
            return Result(gb, need, "GB", 0.0, "consistent", formula, inputs=src, relation="≥",
                          explanation=f"The footprint fills {pct(need / gb)} of the stated memory.")
        return plausible(gb, need, "GB", 0.0, formula, "offload or tiering",
                         _offload_text(need, gb, f"the stated {gb:g} GB", size.params, mode, precision, lora),
                         inputs=src, relation="≥",
                         explanation="The stated memory is smaller than the model's footprint.")
    dev = devices(c.hardware)
    if dev.problem:
        return not_checkable(f"{dev.problem}, and no model size to compare the figure with", "GB", gb)
    caps = figures(dev.ids, hardware.nominal_memory_gb)
    big = max(caps, key=caps.__getitem__)
    tol = c.tolerance()
    src = "; ".join(f"{i} nominal memory {caps[i]:g} GB (data/hardware.csv: {hardware.spec(i)['source']})"
                    for i in caps)
    if gb <= caps[big] * (1 + tol):
        return Result(gb, caps[big], "GB", tol, "consistent", f"{gb:g} GB <= {caps[big]:g} GB of one {big}",
                      inputs=src, relation="≤",
                      explanation="Within one device's memory" + (" (the figure is its capacity)."
                                                                  if abs(gb - caps[big]) < 1e-9 else "."))
    return not_checkable(f"{gb:g} GB exceeds one {big}'s {caps[big]:g} GB: the figure must span several devices, "
                         "whose number the ledger does not give", "GB", gb)
