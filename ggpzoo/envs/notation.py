"""Moves as people type them: cells as ``x,y`` or a file letter and a rank.

`GGPEnv.parse_move()` reads ``"4,1 4,5 4,1"``,
``"e3-f4"`` or ``"(4,1)->(4,5)/(4,1)"`` with `read_cells()`, and raises
`MoveError` saying what is wrong.
"""

from __future__ import annotations

import re

__all__ = ["MoveError", "read_cells"]

_CELL = re.compile(r"\(?\s*(\d+)\s*,\s*(\d+)\s*\)?|([a-z])(\d+)", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\s\-\u2013>/x:]+", re.IGNORECASE)
MAX_MOVE_TEXT = 200  # characters; a move names a few cells


class MoveError(ValueError):
    """A typed move that names no legal action; the message says why."""


def read_cells(text: str, width: int, height: int) -> list[tuple[int, int]]:
    """The 1-based ``(x, y)`` cells named in ``text``, each on the ``width`` x ``height`` board.

    Cells are ``x,y`` (``(x,y)`` too) or a file letter and a rank (``a1`` is ``1,1``),
    separated by spaces, ``-``, ``->``, ``/``, ``x`` or ``:``; plain numbers in pairs
    (``"4 1 4 5"``) work too. Raises `MoveError` naming what could not be read.
    """
    if not isinstance(text, str):
        raise MoveError(f"a move is text, got {type(text).__name__}")
    stripped = text.strip()
    if len(stripped) > MAX_MOVE_TEXT:
        raise MoveError(f"a move is at most {MAX_MOVE_TEXT} characters, got {len(stripped)}")
    numbers = stripped.replace(",", " ").split()
    if (
        all(n.isascii() and n.isdigit() for n in numbers)
        and "," not in stripped
        and len(numbers) >= 2
        and len(numbers) % 2 == 0
    ):
        cells = [(int(numbers[i]), int(numbers[i + 1])) for i in range(0, len(numbers), 2)]
    else:
        cells, pos = [], 0
        for m in _CELL.finditer(stripped):
            junk = _SEPARATORS.sub("", stripped[pos : m.start()])
            if junk:
                raise MoveError(f"could not read {junk!r} in {text!r}")
            if m.group(1) is not None:
                cells.append((int(m.group(1)), int(m.group(2))))
            else:
                cells.append((ord(m.group(3).lower()) - ord("a") + 1, int(m.group(4))))
            pos = m.end()
        junk = _SEPARATORS.sub("", stripped[pos:])
        if junk or not cells:
            raise MoveError(f"could not read {(junk or text)!r} as cells")
    for x, y in cells:
        if not (1 <= x <= width and 1 <= y <= height):
            last_file = chr(ord("a") + width - 1)
            raise MoveError(
                f"({x},{y}) is off the {width}x{height} board: x runs 1..{width} (files a..{last_file}), y 1..{height}"
            )
    return cells
