"""Pictures of a ggpzoo board: the text of ``render_mode="ansi"``, the image of ``"rgb_array"``
and the pygame window of ``"human"``.

* `board_text()` - the board as text with 1-based coordinates (files a.. where the game
  names them), the cells of the last action in ``[brackets]``.
* `board_image()` - the board as an ``uint8 (height, width, 3)`` numpy image, drawn with
  numpy alone (no Pillow, no pygame): checkered cells, coordinates, pieces as discs (chess
  pieces with their letter), Amazons arrows as crosses, Skirmish holes as black cells, the
  cells of the last action tinted, and a dot in the corner in the colour of the role to act.
* `Window` - a pygame window that shows those images (the ``render`` extra).

Every game draws from the same few facts of its env class: ``kernel.H``/``kernel.W``,
``piece_chars`` (one character per board value: ``.`` empty, ``W``/``B`` white and black
pieces, ``PNBRQK``/``pnbrqk`` white and black chess pieces, ``x`` an arrow, ``#`` a hole) and
``file_names``.
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["board_text", "board_image", "symbols_image", "cell_center", "Window", "CELL_PX", "COLOURS"]

CELL_PX = 48  # default cell size of board_image, in pixels


# ----------------------------------------------------------------------------- text
def board_text(board, height: int, width: int, piece_chars: str, file_names=None, marked=()) -> str:
    """The board as text, row ``height`` at the top, ``marked`` cells (indices) in brackets.

    >>> import numpy as np
    >>> print(board_text(np.array([0, 1, 2, 0], np.int8), 2, 2, ".WB", "ab", marked={1}))
     2   B  .
     1   . [W]
         a  b
    """
    labels = file_names or [str(x) for x in range(1, width + 1)]
    rows = []
    for y in range(height, 0, -1):
        line = [" "] * (3 * width + 1)
        for x in range(1, width + 1):
            c = (y - 1) * width + x - 1
            line[3 * x - 1] = piece_chars[board[c]]
            if c in marked:
                line[3 * x - 2], line[3 * x] = "[", "]"
        rows.append(f"{y:2d} " + "".join(line).rstrip())
    rows.append("   " + "".join(f"{label:>3}" for label in labels))
    return "\n".join(rows)


# ----------------------------------------------------------------------------- a 5x7 pixel font
_GLYPHS = {
    "0": ".###.|#...#|#..##|#.#.#|##..#|#...#|.###.",
    "1": "..#..|.##..|..#..|..#..|..#..|..#..|.###.",
    "2": ".###.|#...#|....#|...#.|..#..|.#...|#####",
    "3": "#####|...#.|..#..|...#.|....#|#...#|.###.",
    "4": "...#.|..##.|.#.#.|#..#.|#####|...#.|...#.",
    "5": "#####|#....|####.|....#|....#|#...#|.###.",
    "6": "..##.|.#...|#....|####.|#...#|#...#|.###.",
    "7": "#####|....#|...#.|..#..|.#...|.#...|.#...",
    "8": ".###.|#...#|#...#|.###.|#...#|#...#|.###.",
    "9": ".###.|#...#|#...#|.####|....#|...#.|.##..",
    "a": ".....|.....|.###.|....#|.####|#...#|.####",
    "b": "#....|#....|#.##.|##..#|#...#|#...#|####.",
    "c": ".....|.....|.###.|#....|#....|#...#|.###.",
    "d": "....#|....#|.##.#|#..##|#...#|#...#|.####",
    "e": ".....|.....|.###.|#...#|#####|#....|.###.",
    "f": "..##.|.#..#|.#...|###..|.#...|.#...|.#...",
    "g": ".....|.####|#...#|#...#|.####|....#|.###.",
    "h": "#....|#....|#.##.|##..#|#...#|#...#|#...#",
    "i": "..#..|.....|.##..|..#..|..#..|..#..|.###.",
    "j": "...#.|.....|..##.|...#.|...#.|#..#.|.##..",
    "k": "#....|#....|#..#.|#.#..|##...|#.#..|#..#.",
    "l": ".##..|..#..|..#..|..#..|..#..|..#..|.###.",
    "m": ".....|.....|##.#.|#.#.#|#.#.#|#...#|#...#",
    "n": ".....|.....|#.##.|##..#|#...#|#...#|#...#",
    "o": ".....|.....|.###.|#...#|#...#|#...#|.###.",
    "p": ".....|.....|####.|#...#|####.|#....|#....",
    "q": ".....|.....|.##.#|#..##|.####|....#|....#",
    "r": ".....|.....|#.##.|##..#|#....|#....|#....",
    "s": ".....|.....|.###.|#....|.###.|....#|####.",
    "t": ".#...|.#...|###..|.#...|.#...|.#..#|..##.",
    "u": ".....|.....|#...#|#...#|#...#|#..##|.##.#",
    "v": ".....|.....|#...#|#...#|#...#|.#.#.|..#..",
    "w": ".....|.....|#...#|#...#|#.#.#|#.#.#|.#.#.",
    "x": ".....|.....|#...#|.#.#.|..#..|.#.#.|#...#",
    "y": ".....|.....|#...#|#...#|.####|....#|.###.",
    "z": ".....|.....|#####|...#.|..#..|.#...|#####",
    "?": ".###.|#...#|....#|...#.|..#..|.....|..#..",
    "-": ".....|.....|.....|#####|.....|.....|.....",
    "_": ".....|.....|.....|.....|.....|.....|#####",
    "P": "####.|#...#|#...#|####.|#....|#....|#....",
    "N": "#...#|#...#|##..#|#.#.#|#..##|#...#|#...#",
    "B": "####.|#...#|#...#|####.|#...#|#...#|####.",
    "R": "####.|#...#|#...#|####.|#.#..|#..#.|#...#",
    "Q": ".###.|#...#|#...#|#...#|#.#.#|#..#.|.##.#",
    "K": "#...#|#..#.|#.#..|##...|#.#..|#..#.|#...#",
}
FONT = {ch: np.array([[p == "#" for p in row] for row in g.split("|")], bool) for ch, g in _GLYPHS.items()}


def _text_mask(text: str, scale: int, bold: bool = False) -> np.ndarray:
    """A bool mask of ``text`` in the pixel font, each font pixel ``scale`` pixels wide."""
    cols = []
    for i, ch in enumerate(text):
        if i:
            cols.append(np.zeros((7, 1), bool))
        cols.append(FONT[ch])
    mask = np.kron(np.hstack(cols), np.ones((scale, scale), bool))
    if bold:  # thicken every stroke by a third of a font pixel to the right
        w = max(1, scale // 3)
        mask = np.pad(mask, ((0, 0), (0, w)))
        for s in range(1, w + 1):
            mask[:, s:] |= mask[:, :-s].copy()
    return mask


# ----------------------------------------------------------------------------- colours
_LIGHT = np.array((240, 217, 181), np.float32)
_DARK = np.array((181, 136, 99), np.float32)
_LIGHT_MARKED = np.array((205, 210, 106), np.float32)
_DARK_MARKED = np.array((170, 162, 58), np.float32)
_FRAME = np.array((49, 46, 43), np.float32)
_LABEL = np.array((215, 210, 200), np.float32)
_HOLE = np.array((22, 22, 22), np.float32)
_HOLE_EDGE = np.array((70, 62, 55), np.float32)
_ARROW = np.array((150, 30, 30), np.float32)
# (fill, outline, letter) of a white and of a black piece
_PIECE = {
    0: (np.array((250, 250, 245), np.float32), np.array((35, 35, 35), np.float32), np.array((20, 20, 20), np.float32)),
    1: (np.array((45, 45, 45), np.float32), np.array((10, 10, 10), np.float32), np.array((245, 245, 240), np.float32)),
}


def _kinds(piece_chars: str) -> list[tuple[str, int, str]]:
    """``(kind, colour, letter)`` for each board value: kind ``empty``/``piece``/``arrow``/``hole``.

    ``W``/``B`` are plain white/black pieces unless the game draws chess pieces
    (``PNBRQK`` white, ``pnbrqk`` black), where ``B`` is a white bishop.
    """
    chess = any(ch in piece_chars for ch in "pnbrqk")
    out = []
    for ch in piece_chars:
        if ch == ".":
            out.append(("empty", 0, ""))
        elif ch == "#":
            out.append(("hole", 0, ""))
        elif ch == "x":
            out.append(("arrow", 0, ""))
        elif chess:
            out.append(("piece", 0 if ch.isupper() else 1, ch.upper()))
        elif ch in "WB":
            out.append(("piece", "WB".index(ch), ""))
        else:
            raise ValueError(f"no picture for the board character {ch!r} of {piece_chars!r}")
    return out


class _Sprites:
    """Coverage masks (0..1 floats, ``s x s``) for one cell size, made once and reused."""

    _cache: dict[int, _Sprites] = {}

    @classmethod
    def get(cls, s: int) -> _Sprites:
        if s not in cls._cache:
            cls._cache[s] = cls(s)
        return cls._cache[s]

    def __init__(self, s: int):
        yy, xx = np.mgrid[0:s, 0:s].astype(np.float32) + 0.5
        cx = cy = s / 2
        d = np.hypot(xx - cx, yy - cy)
        r = 0.38 * s
        line = max(1.5, s / 24)
        self.disc = np.clip(r - d + 0.5, 0, 1)  # the whole piece (outline included)
        self.inside = np.clip(r - line - d + 0.5, 0, 1)  # its fill
        # an arrow: a cross of two strokes from corner to corner, inset
        m, half = 0.26 * s, max(1.5, s / 14)
        u, v = (xx - cx), (yy - cy)
        along = np.maximum(np.abs(u + v), np.abs(u - v)) / np.sqrt(2)
        cross = np.minimum(np.abs(u - v), np.abs(u + v)) / np.sqrt(2)
        reach = np.sqrt(2) * (s / 2 - m)
        self.arrow = np.clip(half - cross + 0.5, 0, 1) * np.clip(reach - along + 0.5, 0, 1)
        # a hole: an inset dark square with soft edges
        edge = np.maximum(np.abs(u), np.abs(v))
        self.hole = np.clip(s / 2 - 1 - edge + 0.5, 0, 1)
        self.hole_inner = np.clip(s / 2 - 1 - line - edge + 0.5, 0, 1)
        self.letter_scale = max(1, round(0.42 * s / 7))
        self.letters = {ch: _text_mask(ch, self.letter_scale, bold=True) for ch in "PNBRQK"}
        self.dot = np.clip(0.22 * s - d + 0.5, 0, 1)
        self.dot_inside = np.clip(0.22 * s - line - d + 0.5, 0, 1)


def _layout(s: int) -> tuple[int, int, int, int, int]:
    """``(label scale, left, top, right, bottom margins)`` of a board with cells ``s`` pixels wide."""
    label_scale = max(1, round(s / 24))
    left = bottom = 7 * label_scale + 2 * max(4, s // 6)
    top = right = max(4, s // 6)
    return label_scale, left, top, right, bottom


def cell_center(x: int, y: int, height: int, cell_px: int = CELL_PX) -> tuple[int, int]:
    """The pixel ``(row, column)`` at the centre of cell ``(x, y)`` (1-based) in `board_image()`.

    >>> cell_center(1, 1, 8)
    (368, 54)
    """
    _, left, top, _, _ = _layout(cell_px)
    return top + (height - y) * cell_px + cell_px // 2, left + (x - 1) * cell_px + cell_px // 2


def _paint(patch: np.ndarray, alpha: np.ndarray, colour: np.ndarray) -> None:
    patch += alpha[..., None] * (colour - patch)


def _canvas(height: int, width: int, s: int, file_names=None, rank_names=None, marked=()):
    """The empty board: frame, checkered cells (``marked`` ones tinted) and coordinates.

    Returns ``(img, cells)``: the ``float32`` image and, per cell index, its ``s x s`` patch (a view)."""
    label_scale, left, top, right, bottom = _layout(s)
    img = np.empty((top + height * s + bottom, left + width * s + right, 3), np.float32)
    img[:] = _FRAME
    marked = set(int(c) for c in marked)
    cells = []
    for y in range(1, height + 1):
        for x in range(1, width + 1):
            c = (y - 1) * width + x - 1
            r0, c0 = top + (height - y) * s, left + (x - 1) * s
            patch = img[r0 : r0 + s, c0 : c0 + s]
            dark = (x + y) % 2 == 0  # (1,1) is dark, as a1 in chess
            if c in marked:
                patch[:] = _DARK_MARKED if dark else _LIGHT_MARKED
            else:
                patch[:] = _DARK if dark else _LIGHT
            cells.append(patch)
    files = list(file_names) if file_names else [str(x) for x in range(1, width + 1)]
    ranks = list(rank_names) if rank_names else [str(y) for y in range(1, height + 1)]
    for y in range(1, height + 1):
        m = _text_mask(_font_text(ranks[y - 1]), label_scale)
        r0 = top + (height - y) * s + (s - m.shape[0]) // 2
        c0 = max((left - m.shape[1]) // 2, 0)
        m = m[:, : left - c0]
        img[r0 : r0 + m.shape[0], c0 : c0 + m.shape[1]][m] = _LABEL
    for x in range(1, width + 1):
        m = _text_mask(_font_text(files[x - 1]), label_scale)
        r0 = top + height * s + (bottom - m.shape[0]) // 2
        c0 = left + (x - 1) * s + (s - m.shape[1]) // 2
        img[r0 : r0 + m.shape[0], c0 : c0 + m.shape[1]][m] = _LABEL
    return img, cells


def _font_text(text: str) -> str:
    """``text`` in the characters of the pixel font: letters in lower case (``PNBRQK`` kept as
    they are), ``?`` for a character it has no glyph for."""
    return "".join(ch if ch in FONT else ch.lower() if ch.lower() in FONT else "?" for ch in str(text))


def board_image(
    board,
    height: int,
    width: int,
    piece_chars: str,
    file_names=None,
    marked=(),
    to_move: int | None = None,
    cell_px: int = CELL_PX,
) -> np.ndarray:
    """The board as an RGB image, ``uint8 (rows, columns, 3)``, row ``height`` at the top.

    Args:
        board: the kernel's ``board`` array (one value per cell ``(y - 1) * width + (x - 1)``).
        piece_chars: one character per board value (see the module docstring).
        file_names: column labels (default ``1..width``).
        marked: cell indices to tint (the last action's cells).
        to_move: 0 white or 1 black draws a dot of that colour in the lower left corner;
            None (the game is over) draws none.
        cell_px: the size of a cell in pixels (at least 16).
    """
    s = int(cell_px)
    if s < 16:
        raise ValueError(f"cell_px must be at least 16, got {cell_px}")
    sp = _Sprites.get(s)
    kinds = _kinds(piece_chars)
    _, left, top, _, bottom = _layout(s)
    img, cells = _canvas(height, width, s, file_names, None, marked)
    for c, patch in enumerate(cells):
        kind, colour, letter = kinds[board[c]]
        if kind == "piece":
            fill, outline, ink = _PIECE[colour]
            _paint(patch, sp.disc, outline)
            _paint(patch, sp.inside, fill)
            if letter:
                m = sp.letters[letter]
                h, w = m.shape
                py, px = (s - h) // 2, (s - w + 1) // 2
                sub = patch[py : py + h, px : px + w]
                sub[m] = ink
        elif kind == "arrow":
            _paint(patch, sp.arrow, _ARROW)
        elif kind == "hole":
            _paint(patch, sp.hole, _HOLE_EDGE)
            _paint(patch, sp.hole_inner, _HOLE)
    if to_move is not None:
        r0, c0 = top + height * s + (bottom - s) // 2, (left - s) // 2
        fill, outline, _ = _PIECE[int(to_move)]
        ys, xs = slice(max(r0, 0), r0 + s), slice(max(c0, 0), c0 + s)
        patch = img[ys, xs]
        oy, ox = ys.start - r0, xs.start - c0
        dot = sp.dot[oy : oy + patch.shape[0], ox : ox + patch.shape[1]]
        inside = sp.dot_inside[oy : oy + patch.shape[0], ox : ox + patch.shape[1]]
        _paint(patch, dot, _LABEL if to_move else outline)
        _paint(patch, inside, fill)
    return np.rint(img).astype(np.uint8)


# Disc colours of pieces named by a colour word (``fill, outline, letter``); white and black are
# the hand-written games' own.
COLOURS = {
    "white": _PIECE[0],
    "black": _PIECE[1],
    "red": (np.array((200, 40, 40), np.float32), np.array((90, 10, 10), np.float32), _PIECE[1][2]),
    "yellow": (np.array((240, 200, 40), np.float32), np.array((110, 85, 10), np.float32), _PIECE[0][2]),
    "blue": (np.array((40, 80, 200), np.float32), np.array((10, 25, 90), np.float32), _PIECE[1][2]),
    "green": (np.array((40, 150, 60), np.float32), np.array((10, 60, 20), np.float32), _PIECE[1][2]),
}
_INK = np.array((30, 30, 30), np.float32)


def symbols_image(
    cells, height: int, width: int, file_names=None, rank_names=None, cell_px: int = CELL_PX
) -> np.ndarray:
    """A board whose cells hold named things, as an RGB image ``uint8 (rows, columns, 3)``, row
    ``height`` at the top: the board of a GDL sheet's grid, whose pieces are only names.

    Args:
        cells: per cell index ``(y - 1) * width + (x - 1)``, a list of ``(colour, text)``: a
            disc of ``colour`` (a key of `COLOURS`, or None for no disc), with ``text`` written
            on it (or on the cell) in the pixel font (letters in lower case, ``?`` for a character
            it has no glyph for), drawn in order.
        file_names, rank_names: the column and row labels (default ``1..width``, ``1..height``).
        cell_px: the size of a cell in pixels (at least 16).
    """
    s = int(cell_px)
    if s < 16:
        raise ValueError(f"cell_px must be at least 16, got {cell_px}")
    sp = _Sprites.get(s)
    img, patches = _canvas(height, width, s, file_names, rank_names)
    for patch, things in zip(patches, cells, strict=True):
        ink = _INK
        for colour, text in things:
            if colour is not None:
                fill, outline, ink = COLOURS[colour]
                _paint(patch, sp.disc, outline)
                _paint(patch, sp.inside, fill)
            text = _font_text(text)
            if text:
                n = len(text)
                scale = max(1, min(sp.letter_scale, int(0.62 * s) // (6 * n - 1)))
                m = _text_mask(text, scale, bold=True)[:s, :s]
                h, w = m.shape
                py, px = (s - h) // 2, (s - w + 1) // 2
                patch[py : py + h, px : px + w][m] = ink
    return np.rint(img).astype(np.uint8)


# ----------------------------------------------------------------------------- the window
class Window:
    """A pygame window showing board images (``render_mode="human"``; needs the ``render`` extra).

    Opened on the first `show()`; `close()` closes it. Set ``SDL_VIDEODRIVER=dummy``
    to run without a display (tests, servers).
    """

    def __init__(self, title: str, fps: float):
        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        self.pygame = pygame
        self.title = title
        self.fps = fps
        self.screen = None
        self.clock = None

    def show(self, image: np.ndarray) -> None:
        """Draw ``image`` (``uint8 (rows, columns, 3)``) and wait out the frame (``fps``)."""
        pg = self.pygame
        size = (image.shape[1], image.shape[0])
        if self.screen is None:
            pg.display.init()
            pg.display.set_caption(self.title)
            self.screen = pg.display.set_mode(size)
            self.clock = pg.time.Clock()
        elif self.screen.get_size() != size:
            self.screen = pg.display.set_mode(size)
        pg.surfarray.blit_array(self.screen, np.ascontiguousarray(image.transpose(1, 0, 2)))
        pg.event.pump()
        pg.display.flip()
        self.clock.tick(self.fps)

    @property
    def is_open(self) -> bool:
        return self.screen is not None

    def close(self) -> None:
        if self.screen is not None:
            self.pygame.display.quit()
            self.screen = None
