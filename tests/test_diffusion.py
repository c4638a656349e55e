"""Tests of analysis.models.diffusion against Peebles & Xie 2022 (DiT) and hand computation."""

from __future__ import annotations

import pytest

from analysis.models import diffusion as dm

XL2 = {"depth": 28, "hidden": 1152}  # DiT-XL/2: depth 28, width 1152, patch 2 (authors' models.py, DiT_XL_2)


def test_dit_xl2_gflops_match_the_paper():
    # Peebles & Xie 2022 (arXiv 2212.09748): DiT-XL/2 costs 119 Gflops per forward pass at 256×256 and 525 at
    # 512×512 (the table of the authors' repository README, facebookresearch/DiT; the paper's tables give
    # 118.6 and 524.6). Their Gflops count a multiply-add once: half of our FLOP.
    g256 = dm.dit_forward_flop(tokens=dm.dit_tokens(256, 256, 2), **XL2) / 2e9
    g512 = dm.dit_forward_flop(tokens=dm.dit_tokens(512, 512, 2), **XL2) / 2e9
    assert g256 == pytest.approx(119, rel=0.01)
    assert g512 == pytest.approx(525, rel=0.01)


def test_tokens_by_hand():
    # 256 px / 8 (VAE) / 2 (patch) = 16 per side: 256 tokens; 512 px: 1,024; 16 latent frames of 256²: 4,096.
    assert dm.dit_tokens(256, 256, 2) == 256
    assert dm.dit_tokens(512, 512, 2) == 1024
    assert dm.dit_tokens(256, 256, 2, latent_frames=16) == 4096
    with pytest.raises(ValueError):
        dm.dit_tokens(250, 256, 2)


def test_forward_flop_by_hand():
    # One block, D = 2, T = 3: 2·12·4·3 + 4·9·2 + 2·6·4 = 288 + 72 + 48 = 408 FLOP.
    assert dm.dit_forward_flop(1, 2, 3) == pytest.approx(408)


def test_sampling_and_normalisation():
    # 250 steps with guidance = 500 forward passes (DiT's sample_ddp.py defaults: 250 steps, cfg 1.5).
    assert dm.sampling_flop(1e9, 250) == pytest.approx(5e11)
    assert dm.sampling_flop(1e9, 250, guidance=False) == pytest.approx(2.5e11)
    assert dm.per_megapixel(1e12, 1000, 1000) == pytest.approx(1e12)
    assert dm.per_megapixel(1e12, 500, 500, frames=4) == pytest.approx(1e12)
    assert dm.per_video_second(6e15, 2.0) == pytest.approx(3e15)
