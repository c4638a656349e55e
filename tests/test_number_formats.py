"""Tests of analysis.models.number_formats against the format specifications."""

from __future__ import annotations

import pytest

from analysis.models import ModelError
from analysis.models import number_formats as nf


def test_mx_formats_from_the_ocp_spec():
    # OCP MX v1.0 (ocp2023microscaling in data/outside-corpus.csv): 32 elements share one 8-bit E8M0 scale, so
    # MXFP4 stores (8 + 32·4)/32 = 4.25 bits per element and MXFP8 8.25 (136 bits per block of 32 FP4 elements).
    # Seen: block size 32 and 8 scale bits as the README of github.com/microsoft/microxcaling (which links the
    # spec) configures MX-compatible formats; the specification PDF itself was not read.
    assert nf.format_bits("MXFP4") == pytest.approx(4.25)
    assert nf.format_bits("MXFP8") == pytest.approx(8.25)
    assert nf.format_bits("MXFP6") == pytest.approx(6.25)
    assert nf.format_bits("MXINT8") == pytest.approx(8.25)


def test_nvfp4():
    # NVFP4 as NVIDIA et al. 2025 (arXiv 2509.25149, nvidia2025pretraining) describe it: 16 E2M1 elements per FP8
    # E4M3 scale: (8 + 16·4)/16 = 72/16 = 4.5 bits per element. Seen in summaries of that report and of NVIDIA's
    # June 2025 NVFP4 blog post (see the row's notes), not in the report's own format section.
    assert nf.format_bits("NVFP4") == pytest.approx(4.5)


def test_unscaled_formats_and_refusals():
    assert nf.format_bits("BF16") == 16
    assert nf.format_bits("FP4 (E2M1, no block scale)") == 4
    with pytest.raises(ModelError):
        nf.format_bits("FP3")
    with pytest.raises(ModelError):
        nf.effective_bits(4, 0, 8)


def test_scales_lower_the_decode_bound():
    # Memory-bound decode at batch 1 on an H100 SXM-like roofline (3.35 TB/s, 989 TFLOP/s): the bound over
    # 16-bit weights is 16 / bits, 4 for bare 4-bit weights and 16/4.25 = 3.765 for MXFP4.
    from analysis.themes import quantization as q

    assert q.decode_speedup_bound(1, 4.0, 3.35, 989.0) == pytest.approx(4.0, rel=1e-6)
    assert q.decode_speedup_bound(1, nf.format_bits("MXFP4"), 3.35, 989.0) == pytest.approx(16 / 4.25, rel=1e-6)
