"""Tile and wave quantisation of a tiled GEMM on a GPU.

Pure functions; units in the argument names (see analysis.models).

A GEMM C = A·B with C of M × N is split into output tiles of tile_m × tile_n, one thread block each
(NVIDIA, "Matrix Multiplication Background User's Guide", DU-09799-001, Ch. 3, "Dimension Quantization
Effects"):

- tile quantisation: a dimension that is not a multiple of the tile size still costs whole tiles, so the
  useful share of the computed area is M·N / (⌈M/tile_m⌉·tile_m · ⌈N/tile_n⌉·tile_n);
- wave quantisation: with `sms` multiprocessors each running `blocks_per_sm` tiles at once, the tiles run
  in ⌈tiles / (sms·blocks_per_sm)⌉ waves; the last wave leaves the rest of the slots idle, so the busy
  share of the slots is tiles / (waves · sms · blocks_per_sm).

Their product bounds the fraction of peak a shape can reach with that tile, before any other loss.
"""

from __future__ import annotations

import math

from analysis.models.base import require_positive


def gemm_tiles(m: int, n: int, tile_m: int, tile_n: int) -> int:
    """Number of output tiles (thread blocks): ⌈M/tile_m⌉ × ⌈N/tile_n⌉."""
    require_positive(m=m, n=n, tile_m=tile_m, tile_n=tile_n)
    return math.ceil(m / tile_m) * math.ceil(n / tile_n)


def waves(tiles: int, sms: int, blocks_per_sm: int = 1) -> int:
    """Waves needed to run `tiles` thread blocks on `sms` multiprocessors of `blocks_per_sm` slots each."""
    require_positive(tiles=tiles, sms=sms, blocks_per_sm=blocks_per_sm)
    return math.ceil(tiles / (sms * blocks_per_sm))


def wave_efficiency(tiles: int, sms: int, blocks_per_sm: int = 1) -> float:
    """Share of the slots of all waves that hold a tile: tiles / (waves × sms × blocks_per_sm)."""
    return tiles / (waves(tiles, sms, blocks_per_sm) * sms * blocks_per_sm)


def last_wave_idle_fraction(tiles: int, sms: int, blocks_per_sm: int = 1) -> float:
    """Share of the slots idle in the last wave: 0 when the tiles fill whole waves."""
    slots = sms * blocks_per_sm
    require_positive(tiles=tiles, slots=slots)
    rest = tiles % slots
    return 0.0 if rest == 0 else 1 - rest / slots


def tile_efficiency(m: int, n: int, tile_m: int, tile_n: int) -> float:
    """Useful share of the computed output area: M·N over the padded ⌈M/tile_m⌉·tile_m × ⌈N/tile_n⌉·tile_n."""
    require_positive(m=m, n=n, tile_m=tile_m, tile_n=tile_n)
    return m * n / (math.ceil(m / tile_m) * tile_m * math.ceil(n / tile_n) * tile_n)


def quantised_fraction_of_peak(m: int, n: int, tile_m: int, tile_n: int, sms: int, blocks_per_sm: int = 1) -> float:
    """Upper bound on the fraction of peak from tile and wave quantisation alone (each tile runs at peak)."""
    tiles = gemm_tiles(m, n, tile_m, tile_n)
    return tile_efficiency(m, n, tile_m, tile_n) * wave_efficiency(tiles, sms, blocks_per_sm)
