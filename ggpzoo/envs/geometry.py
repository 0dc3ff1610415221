"""Board geometry shared by the rules kernels: ray tables and board drawings.

Plain numpy, built once at import by each kernel; nothing here knows of PettingZoo.
"""

from __future__ import annotations

import numpy as np

__all__ = ["rays", "lines", "parse_drawing"]


def rays(height: int, width: int, dirs) -> tuple[np.ndarray, np.ndarray]:
    """``(RAY, RAY_LEN)``: ``RAY[c, d, k]`` is the k-th cell (k = 0 adjacent) from cell c in
    direction ``dirs[d] = (dx, dy)``, -1 past the edge; ``RAY_LEN[c, d]`` how many there are."""
    n = height * width
    ray = np.full((n, len(dirs), max(height, width) - 1), -1, np.int64)
    ray_len = np.zeros((n, len(dirs)), np.int64)
    for c in range(n):
        x, y = c % width, c // width
        for d, (dx, dy) in enumerate(dirs):
            k, cx, cy = 0, x + dx, y + dy
            while 0 <= cx < width and 0 <= cy < height:
                ray[c, d, k] = cy * width + cx
                k, cx, cy = k + 1, cx + dx, cy + dy
            ray_len[c, d] = k
    return ray, ray_len


def lines(ray: np.ndarray, ray_len: np.ndarray) -> tuple[np.ndarray, ...]:
    """The cells on all rays of each cell, ascending: ``(LEN, CELL, DIR, DIST)``.

    ``CELL[c, :LEN[c]]`` ascending; ``DIR`` and ``DIST`` (1-based) say which ray and how far.
    """
    n, ndirs, _ = ray.shape
    most = int(ray_len.sum(axis=1).max())
    count = np.zeros(n, np.int64)
    cell, direction, dist = (np.full((n, most), -1, np.int64) for _ in range(3))
    for c in range(n):
        entries = sorted((int(ray[c, d, k]), d, k + 1) for d in range(ndirs) for k in range(ray_len[c, d]))
        count[c] = len(entries)
        for i, entry in enumerate(entries):
            cell[c, i], direction[c, i], dist[c, i] = entry
    return count, cell, direction, dist


def parse_drawing(rows: str, height: int, width: int, chars: str) -> np.ndarray:
    """A board (``int8[height * width]``) from a drawing: ``height`` rows, the top row
    (y = height) first, one character per cell, value = its index in ``chars``; spaces ignored."""
    lines_ = [ln.replace(" ", "") for ln in rows.strip().splitlines()]
    if len(lines_) != height or any(len(ln) != width for ln in lines_):
        raise ValueError(f"need {height} rows of {width} cells, got {[len(ln) for ln in lines_]}")
    board = np.zeros(height * width, np.int8)
    for i, ln in enumerate(lines_):
        y = height - 1 - i
        for x, ch in enumerate(ln):
            if ch not in chars:
                raise ValueError(f"unknown cell {ch!r} at ({x + 1},{y + 1}); use one of {chars!r}")
            board[y * width + x] = chars.index(ch)
    return board
