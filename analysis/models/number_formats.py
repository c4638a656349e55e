"""Number formats of low-precision inference: bits per element with their block scales, and what they do to
the memory-bound decode bound.

A block-scaled format stores each element in `element_bits` and one scale of `scale_bits` per block of
`block_size` elements, so it costs element_bits + scale_bits / block_size bits per element. The OCP
Microscaling (MX) specification v1.0 (Open Compute Project, September 2023) fixes the block at 32 elements and
the scale at an 8-bit power of two (E8M0) for MXFP8, MXFP6, MXFP4 and MXINT8; NVIDIA's NVFP4 (Blackwell;
NVIDIA et al. 2025, arXiv 2509.25149) uses blocks of 16 E2M1 elements with an FP8 E4M3 scale, plus one FP32
scale per tensor, which is left out here. A per-tensor-scaled FP8 or a plain FP4 element carries no block scale.

In the memory-bound limit a decode step reads every weight once, so the speedup of a format over 16-bit weights
is at most 16 / (its effective bits): the block scales are the part of the dequantisation cost that the memory
bound sees. The arithmetic of dequantising (unpacking and scaling before a 16-bit matmul) is not in the bound.

Pure functions and constants; the sources are in :data:`FORMATS`.
"""

from __future__ import annotations

from dataclasses import dataclass

from analysis.models.base import ModelError, require_non_negative, require_positive


@dataclass(frozen=True)
class Format:
    """A number format: element width, block of elements sharing one scale (0: no block scale), scale width."""

    element: str
    element_bits: float
    block_size: int
    scale: str
    scale_bits: float
    source: str


_MX = "OCP Microscaling Formats (MX) Specification v1.0 (Open Compute Project, 2023): 32-element blocks, E8M0 scale"
_NV = ("NVIDIA NVFP4 (Blackwell; NVIDIA et al. 2025, arXiv 2509.25149): 16-element blocks of E2M1 with an FP8 E4M3 "
       "block scale, plus a per-tensor FP32 scale")
FORMATS: dict[str, Format] = {
    "BF16": Format("BF16", 16, 0, "none", 0, "bfloat16: 1 sign, 8 exponent, 7 mantissa bits"),
    "FP8 (E4M3, per-tensor scale)": Format("E4M3", 8, 0, "per tensor", 0,
                                           "OCP 8-bit floating point (OFP8) E4M3; one scale per tensor"),
    "INT8 (per-channel scale)": Format("INT8", 8, 0, "per channel", 0, "8-bit integer; one scale per row"),
    "MXFP8": Format("E4M3 or E5M2", 8, 32, "E8M0", 8, _MX),
    "MXINT8": Format("INT8", 8, 32, "E8M0", 8, _MX),
    "MXFP6": Format("E3M2 or E2M3", 6, 32, "E8M0", 8, _MX),
    "MXFP4": Format("E2M1", 4, 32, "E8M0", 8, _MX),
    "NVFP4": Format("E2M1", 4, 16, "E4M3", 8, _NV),
    "FP4 (E2M1, no block scale)": Format("E2M1", 4, 0, "none", 0, "the E2M1 element of MXFP4 and NVFP4 alone"),
}
"""The precision table: formats of the quantization chapter, each with its source."""


def effective_bits(element_bits: float, block_size: int = 0, scale_bits: float = 0.0) -> float:
    """Bits stored per element: element_bits + scale_bits / block_size (block_size 0: no block scale)."""
    require_positive(element_bits=element_bits)
    require_non_negative(block_size=block_size, scale_bits=scale_bits)
    if block_size == 0:
        if scale_bits:
            raise ModelError("a scale without a block size")
        return float(element_bits)
    return element_bits + scale_bits / block_size


def format_bits(name: str) -> float:
    """:func:`effective_bits` of a format of :data:`FORMATS`."""
    try:
        f = FORMATS[name]
    except KeyError:
        raise ModelError(f"unknown format {name!r}; known: {sorted(FORMATS)}") from None
    return effective_bits(f.element_bits, f.block_size, f.scale_bits)

