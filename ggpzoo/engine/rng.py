"""Random numbers inside numba: a xorshift64* stream, seeding, and mask sampling.

``next_random(s) -> (s, r)`` advances a 64-bit state and returns 32 random bits;
``stream(seed, i)`` the independent starting state of stream ``i`` of a seed (one per game
in a batch); ``sample_mask(mask, seed)`` a uniform index where the mask is non-zero.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["next_random", "stream", "sample_mask", "random_legal"]

_ONES = np.uint64(0x0101010101010101)  # times a word of 0/1 bytes: their sum in the top byte


@njit(cache=True)
def next_random(s):
    """One xorshift64* step: the new state and 32 random bits."""
    s ^= s >> np.uint64(12)
    s ^= s << np.uint64(25)
    s ^= s >> np.uint64(27)
    return s, (s * np.uint64(2685821657736338717)) >> np.uint64(32)


@njit(cache=True)
def sample_mask(mask, seed):
    """A random index ``i`` with ``mask[i] != 0`` in a 0/1 mask, or -1 if there is none.

    Rejection sampling over all indices while legal actions are dense enough; after 64
    misses, an exact count and scan, eight bytes at a time. Each branch picks uniformly
    among the legal indices (up to a 2**-32 rounding), so their mixture does too.
    """
    n = mask.shape[0]
    s = np.uint64(seed) | np.uint64(1)
    for _ in range(64):
        s, r = next_random(s)
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
    s, r = next_random(s)
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


@njit(cache=True)
def _mix(z):
    """SplitMix64's finaliser: a bijection of 64-bit words that scatters nearby inputs."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def stream(seed, i):
    """The starting state of stream ``i`` of ``seed`` (one stream per game of a batch).

    Both are hashed (SplitMix64), so that streams of neighbouring ``i`` or ``seed`` are
    unrelated: xorshift is linear, and states that differ in a few bits would give draws
    that depend on each other.
    """
    s = _mix(_mix(np.uint64(seed)) + np.uint64(i) * np.uint64(0x9E3779B97F4A7C15))
    return s | np.uint64(1)  # xorshift's state must not be 0


@njit(cache=True)
def random_legal(legal, n, s):
    """A uniform draw from ``legal[:n]``: ``(new state, action)``."""
    s, r = next_random(s)
    return s, legal[np.int64((r * np.uint64(n)) >> np.uint64(32))]
