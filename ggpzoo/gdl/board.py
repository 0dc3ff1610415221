"""A GDL position as a board a person can read: text, and an image where the sheet has a grid.

When the sheet's fluents describe a grid (``(cell ?x ?y ...)`` and the like, found by
[`grid_layout()`][ggpzoo.gdl.envs.grid_layout]), each cell shows a short symbol per fluent
that holds there, with a legend, and the fluents off the grid are listed below it::

     3  b  b  b
     2  b  x  b
     1  o  b  b
        1  2  3
    b = (cell ?x ?y b), o = (cell ?x ?y o), x = (cell ?x ?y x)
    also true: (control oplayer)

``x`` runs across (the fluent's first coordinate) and ``y`` up (its second),
both in the sheet's own order (numbers numerically), the last ``y`` at the top. A sheet without
a grid is shown as its true fluents, one a line. The image
([`SheetBoard.image()`][ggpzoo.gdl.board.SheetBoard.image]) draws the same symbols on a board
like the hand-written games' (a piece named with a colour word, ``white``, ``black``, ``red``...,
as a disc of that colour); a sheet without a grid has none.
"""

from __future__ import annotations

import numpy as np

from ggpzoo.envs import render as _render
from ggpzoo.gdl.syntax import to_text

__all__ = ["SheetBoard"]

LINE = 100  # the legend and the fluents off the grid are wrapped at this many characters


def _wrap(items: list[str], first: str = "") -> list[str]:
    """``items`` joined by commas in lines of about `LINE` characters (``first`` begins the first)."""
    lines, line = [], first
    for k, item in enumerate(items):
        piece = item + ("," if k < len(items) - 1 else "")
        if line.strip() and len(line) + 1 + len(piece) > LINE:
            lines.append(line)
            line = "  " + piece
        else:
            line = f"{line} {piece}" if line.strip() else line + piece
    return lines + [line]


def _words(channel: tuple) -> list[str]:
    """The words of a channel (the fluent without its ``?x ?y``), each as text."""
    return [to_text(t) for t in channel]


def _symbols(words: list[list[str]], keys: list | None = None) -> list[str]:
    """A short symbol per word list, all different among those of the same key (all, when
    ``keys`` is None): the first letter of each word, the last word lengthened where two would
    be the same (``bishop`` b, ``king`` ki, ``knight`` kn)."""
    keys = keys or [None] * len(words)
    clean = [[w.strip("()").replace(" ", "") or "?" for w in ws] for ws in words]
    length = [1] * len(clean)

    def symbol(i: int) -> str:
        ws = clean[i]
        if not ws:
            return ""
        return "".join(w[0] for w in ws[:-1]) + ws[-1][: length[i]]

    while True:
        seen: dict[str, list[int]] = {}
        for i in range(len(clean)):
            seen.setdefault((keys[i], symbol(i)), []).append(i)
        grow = [
            i for group in seen.values() if len(group) > 1 for i in group if clean[i] and length[i] < len(clean[i][-1])
        ]
        if not grow:
            break
        for i in grow:
            length[i] += 1
    out = [symbol(i) for i in range(len(clean))]
    if len(set(zip(keys, out, strict=True))) < len(out):  # words no prefix tells apart: number them
        out = [f"{s}{i + 1}" for i, s in enumerate(out)]
    return out


class SheetBoard:
    """The board of a sheet's positions (see the module docstring), built once per game.

    Args:
        fluents: the sheet's base set (``game.fluents``).
        grid: its [`grid_layout()`][ggpzoo.gdl.envs.grid_layout], or None.
    """

    def __init__(self, fluents: list, grid):
        self.fluents = fluents
        self.grid = grid
        if grid is None:
            return
        xs, ys, names, fi, flat = grid
        C = len(names)
        idx = [int(i) for i in fi]
        chans = {}
        for i, f in zip(idx, flat, strict=True):
            chans[int(f) % C] = (fluents[i][0],) + tuple(fluents[i][3:])
        channels = [chans[c] for c in range(C)]
        self.legend_terms = [to_text((ch[0], "?x", "?y") + ch[1:]) for ch in channels]
        words = [_words(ch) for ch in channels]
        common = 0  # leading words every channel shares (the functor, usually) tell nothing apart
        while len(words) > 1 and all(len(w) > common + 1 for w in words) and len({w[common] for w in words}) == 1:
            common += 1
        self.symbols = _symbols([w[common:] for w in words])
        colours = [next((w for w in ws if w in _render.COLOURS), None) for ws in words]
        self.colours = colours
        # the image: a colour word is the disc, the other words the letters on it
        rest = [[w for w in ws[common:] if w != colour] for ws, colour in zip(words, colours, strict=True)]
        self.image_symbols = _symbols(rest, colours)
        self.on_grid = np.zeros(len(fluents), bool)
        self.on_grid[idx] = True

    def _cells(self, fv: np.ndarray) -> list[list[int]]:
        """The channels that hold in each cell (index ``y * W + x``, 0-based)."""
        xs, ys, names, fi, flat = self.grid
        C = len(names)
        cells: list[list[int]] = [[] for _ in range(len(xs) * len(ys))]
        for k in np.flatnonzero(fv[fi]):
            cells[int(flat[k]) // C].append(int(flat[k]) % C)
        return cells

    def text(self, fv: np.ndarray) -> str:
        """The position whose true fluents are ``fv`` (one 0/1 per fluent) as text."""
        fv = np.asarray(fv)
        if self.grid is None:
            return "\n".join(to_text(self.fluents[i]) for i in np.flatnonzero(fv)) or "(no fluent is true)"
        xs, ys = self.grid[:2]
        cells = ["+".join(self.symbols[c] for c in cs) or "." for cs in self._cells(fv)]
        width = max(max(len(t) for t in cells), max(len(str(x)) for x in xs), 2) + 1
        label = max(len(str(y)) for y in ys) + 1
        rows = []
        for j in range(len(ys) - 1, -1, -1):
            line = "".join(f"{cells[j * len(xs) + i]:>{width}}" for i in range(len(xs)))
            rows.append(f"{ys[j]:>{label}} {line}")
        rows.append(" " * (label + 1) + "".join(f"{x:>{width}}" for x in xs))
        rows += _wrap([f"{s} = {t}" for s, t in zip(self.symbols, self.legend_terms, strict=True)])
        others = [to_text(self.fluents[i]) for i in np.flatnonzero(fv) if not self.on_grid[i]]
        if others:
            rows += _wrap(others, "also true:")
        return "\n".join(rows)

    def image(self, fv: np.ndarray, cell_px: int | None = None, name: str = "this sheet") -> np.ndarray:
        """The position as an RGB image ``uint8 (rows, columns, 3)``; ValueError for a sheet
        without a grid (``name`` names it)."""
        if self.grid is None:
            raise ValueError(f"{name} has no grid (no fluent like (cell ?x ?y ...)), so no board to draw")
        xs, ys = self.grid[:2]
        cells = [[(self.colours[c], self.image_symbols[c]) for c in cs] for cs in self._cells(np.asarray(fv))]
        return _render.symbols_image(cells, len(ys), len(xs), xs, ys, cell_px or _render.CELL_PX)
