"""Small helpers shared by agents, examples and benchmarks."""

from __future__ import annotations

import numpy as np

from ggpzoo.engine.rng import next_random as _next  # noqa: F401  (kept for code that imported it here)
from ggpzoo.engine.rng import sample_mask as _sample

__all__ = ["sample_action"]


def sample_action(mask: np.ndarray, rng: np.random.Generator) -> int:
    """A uniformly random legal action from a 0/1 ``action_mask``, drawn with ``rng``.

    Same distribution as ``action_space.sample(mask)``, but fast for large sparse masks
    (about 1 us instead of 100+ us on amazons_v0's 86,980 actions).

    >>> import numpy as np
    >>> sample_action(np.array([0, 0, 1, 0], np.int8), np.random.default_rng(0))
    2
    """
    if mask.ndim != 1:
        raise ValueError(f"mask must be 1-D, got shape {mask.shape}")
    if mask.dtype not in (np.int8, np.uint8, np.bool_) or not mask.flags.c_contiguous:
        mask = np.ascontiguousarray(mask, dtype=np.int8)
    a = _sample(mask.view(np.int8), int(rng.bit_generator.random_raw()) >> 1)
    if a < 0:
        raise ValueError("the mask has no legal action")
    return int(a)
