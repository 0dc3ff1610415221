"""One line on stderr when numba compiles: the first run after an install, or after an update.

The engine, the agents' searches and the envs are numba code, compiled the first time they
run and cached on disk (numba's cache, ``__pycache__`` beside the sources or
``NUMBA_CACHE_DIR``), so that later runs only load them. `compile_notice()`
wraps work that may compile: the first time numba starts compiling anything inside it (never
when everything comes from the cache) it writes

    compiling the skirmish_v0 engine and the mcts search, once (about 25 s); later runs start at once

on stderr, once per process. Agents that search compile theirs when they are built
(`ggpzoo.agents.base.Agent.warmup()`), so that no move's clock counts it; ``python -m
ggpzoo warmup`` fills the cache ahead of time.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager

from numba.core import event

__all__ = ["compile_notice", "estimate"]

# Roughly how long a cold cache takes to compile each part, in seconds on one core of a
# 2-core machine (benchmarks/cold_start.py): the game protocol of the hand-written kernels
# and of the GDL sheets (every sheet shares one), and each agent's search on top of it.
ENGINE_SECONDS = {"kernels": 15, "gdl": 20}
SEARCH_SECONDS = {"mcts": 10, "greedy": 3, "ab": 10, "az": 20}

_said = False  # a notice was written in this process


class _Notice(event.Listener):
    def __init__(self, line: str, stream):
        self.line, self.stream = line, stream

    def on_start(self, e) -> None:
        global _said
        if not _said:
            _said = True
            stream = self.stream if self.stream is not None else sys.stderr
            stream.write(self.line + "\n")
            stream.flush()

    def on_end(self, e) -> None:
        pass


def estimate(gdl: bool, searches=()) -> int:
    """About how many seconds a cold cache takes for the engine (``gdl``: a sheet's) and
    the ``searches`` named (keys of ``SEARCH_SECONDS``; others count nothing)."""
    return ENGINE_SECONDS["gdl" if gdl else "kernels"] + sum(SEARCH_SECONDS.get(s, 0) for s in set(searches))


@contextmanager
def compile_notice(what: str, seconds: float, stream=None):
    """Inside this block, the first compilation numba starts writes ``compiling <what>, once
    (about <seconds> s); later runs start at once`` on ``stream`` (default stderr): one line
    per process, none when everything is loaded from the cache."""
    listener = _Notice(f"compiling {what}, once (about {seconds:.0f} s); later runs start at once", stream)
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)
