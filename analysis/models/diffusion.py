"""Compute of diffusion transformers (DiT) per image and per second of video, on one basis.

A DiT (Peebles & Xie 2022, arXiv 2212.09748, Sec. 3) encodes an image with a VAE that downsamples by 8, cuts
the latent into p×p patches, and runs `depth` transformer blocks of width D over the T = (H/8/p)·(W/8/p)
tokens (× latent frames for video). One block has 4·D² attention and 2·r·D² MLP weights (r = 4) applied to
every token, full (bidirectional) self-attention over the T tokens, and an adaLN-Zero modulation of 6·D²
weights applied once per image to the conditioning vector. A forward pass therefore costs

    F = depth · (2·(4 + 2r)·D²·T + 4·T²·D + 2·6·D²)     FLOP,

the first term being :func:`analysis.models.compute.inference_flops_per_token` (2 FLOP per weight per token)
of the block weights. Peebles & Xie report "Gflops" counting one multiply-add as one operation (their DiT-XL/2
is 119 Gflops at 256×256 and 525 at 512×512 in the authors' repository README), which is F/2 here; patch
embedding, the timestep and class embedders and the final layer are left out (under 1% for DiT-XL/2).

Sampling runs the forward pass once per step, twice with classifier-free guidance (a conditional and an
unconditional pass; DiT's sampler batches both), and the VAE decoder once per image, which is not counted.
Pure functions; units are in the argument names.
"""

from __future__ import annotations

from analysis.models.base import require_positive
from analysis.models.compute import inference_flops_per_token

LATENT_DOWNSAMPLE = 8
"""Spatial downsampling of the Stable Diffusion VAE that DiT uses (Peebles & Xie 2022, Sec. 3.1)."""


def dit_tokens(height_px: int, width_px: int, patch: int, latent_frames: int = 1,
               downsample: int = LATENT_DOWNSAMPLE) -> int:
    """Tokens a DiT sees: (H/downsample/p) · (W/downsample/p) per latent frame, times the latent frames."""
    require_positive(height_px=height_px, width_px=width_px, patch=patch, latent_frames=latent_frames,
                     downsample=downsample)
    side = downsample * patch
    if height_px % side or width_px % side:
        raise ValueError(f"{height_px}×{width_px} px is not a multiple of the {side}-px patch footprint")
    return (height_px // side) * (width_px // side) * latent_frames


def dit_forward_flop(depth: int, hidden: int, tokens: int, mlp_ratio: float = 4.0) -> float:
    """FLOP of one DiT forward pass over `tokens` tokens (module docstring; 1 multiply-add = 2 FLOP)."""
    require_positive(depth=depth, hidden=hidden, tokens=tokens, mlp_ratio=mlp_ratio)
    block_weights = (4.0 + 2.0 * mlp_ratio) * hidden**2
    per_block = (inference_flops_per_token(block_weights) * tokens + 4.0 * tokens**2 * hidden
                 + inference_flops_per_token(6.0 * hidden**2))
    return depth * per_block


def sampling_flop(forward_flop: float, steps: int, guidance: bool = True) -> float:
    """FLOP of one sample: `steps` forward passes, two per step with classifier-free guidance (VAE not counted)."""
    require_positive(forward_flop=forward_flop, steps=steps)
    return forward_flop * steps * (2 if guidance else 1)


def per_megapixel(flop: float, height_px: int, width_px: int, frames: int = 1) -> float:
    """FLOP per million output pixels (frames × H × W): the resolution-normalised basis."""
    require_positive(flop=flop, height_px=height_px, width_px=width_px, frames=frames)
    return flop / (frames * height_px * width_px / 1e6)


def per_video_second(flop_per_clip: float, clip_seconds: float) -> float:
    """FLOP per second of generated video."""
    require_positive(flop_per_clip=flop_per_clip, clip_seconds=clip_seconds)
    return flop_per_clip / clip_seconds
