"""Small helpers shared by agents, examples and benchmarks."""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["sample_action"]


_ONES = np.uint64(0x0101010101010101)  # times a word of 0/1 bytes: their sum in the top byte


@njit(cache=True)
def _next(s):
    """One xorshift64* step: the new state and 32 random bits."""
    s ^= s >> np.uint64(12)
    s ^= s << np.uint64(25)
    s ^= s >> np.uint64(27)
    return s, (s * np.uint64(2685821657736338717)) >> np.uint64(32)


@njit(cache=True)
def _stream(seed, i):
    """A xorshift64* state for stream ``i`` of ``seed``: splitmix64 of both, never 0.

    Neighbouring streams are independent (a plain ``seed * C + i`` is not: one xorshift
    step keeps them correlated)."""
    z = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(i) * np.uint64(0xD1B54A32D192ED03)
    for _ in range(2):
        z += np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return z | np.uint64(1)


@njit(cache=True)
def _sample(mask, seed):
    """A random index ``i`` with ``mask[i] != 0`` in a 0/1 mask, or -1 if there is none.

    Rejection sampling over all indices while legal actions are dense enough; after 64
    misses, an exact count and scan, eight bytes at a time. Each branch picks uniformly
    among the legal indices (up to a 2**-32 rounding), so their mixture does too.
    """
    n = mask.shape[0]
    s = np.uint64(seed) | np.uint64(1)
    for _ in range(64):
        s, r = _next(s)
        i = np.int64((r * np.uint64(n)) >> np.uint64(32))
        if mask[i] != 0:
            return i
    n8 = n // 8 * 8
    words = mask[:n8].view(np.uint64)
    count = 0
    for j in range(n8 // 8):  # an index loop: numba vectorises it, ``for w in words`` it does not
        count += np.int64((words[j] * _ONES) >> np.uint64(56))
    for i in range(n8, n):
        count += mask[i] != 0
    if count == 0:
        return -1
    s, r = _next(s)
    k = np.int64((r * np.uint64(count)) >> np.uint64(32))
    for j in range(n8 // 8):
        c = np.int64((words[j] * _ONES) >> np.uint64(56))
        if k < c:
            for i in range(8 * j, 8 * j + 8):
                if mask[i] != 0:
                    if k == 0:
                        return i
                    k -= 1
        k -= c
    for i in range(n8, n):
        if mask[i] != 0:
            if k == 0:
                return i
            k -= 1
    return -1


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
