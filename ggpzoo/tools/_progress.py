"""A small progress bar on stderr, shown only on a terminal (no dependency); a count when the total is unknown."""

from __future__ import annotations

import sys
import time

__all__ = ["Progress"]


class Progress:
    """``[#####.....] 12/40  30%  0:12 elapsed, ~0:28 left  <note>``, redrawn at most 10 times a second.

    Args:
        total: the number of units of work.
        desc: a label in front of the bar.
        enabled: draw it; default: when ``stream`` is a terminal.
    """

    def __init__(self, total: int | None, desc: str = "", stream=None, enabled: bool | None = None, width: int = 24):
        self.total = None if total is None else max(int(total), 1)
        self.desc = desc
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = self.stream.isatty() if enabled is None else enabled
        self.width = width
        self.done = 0
        self.start = time.perf_counter()
        self._drawn = 0.0
        self._length = 0

    def update(self, n: int = 1, note: str = "") -> None:
        self.done += n
        now = time.perf_counter()
        if self.enabled and (now - self._drawn >= 0.1 or self.done == self.total):
            self._drawn = now
            self._draw(now, note)

    def _draw(self, now: float, note: str) -> None:
        if self.total is None:  # a count, no bar
            line = f"{self.desc}: {self.done}  {_clock(now - self.start)} elapsed  {note}".rstrip()
            self._write(line)
            return
        frac = min(self.done / self.total, 1.0)
        filled = int(frac * self.width)
        elapsed = now - self.start
        left = elapsed / self.done * (self.total - self.done) if self.done else 0.0
        line = (
            f"{self.desc} [{'#' * filled}{'.' * (self.width - filled)}] {self.done}/{self.total} "
            f"{frac:4.0%}  {_clock(elapsed)} elapsed, ~{_clock(left)} left  {note}"
        ).rstrip()
        self._write(line)

    def _write(self, line: str) -> None:
        pad = max(self._length - len(line), 0)
        self._length = len(line)
        self.stream.write("\r" + line + " " * pad)
        self.stream.flush()

    def break_line(self) -> None:
        """End the bar's line, so that other output starts on a line of its own (the bar is
        drawn again below it at the next update)."""
        if self.enabled and self._length:
            self.stream.write("\n")
            self.stream.flush()
            self._length = 0

    def close(self) -> None:
        self.break_line()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _clock(seconds: float) -> str:
    m, s = divmod(int(seconds + 0.5), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"
