"""One line on stderr when numba compiles: the first run after an install, or after an update.

The engine, the agents' searches and the envs are numba code, compiled the first time they
run and cached on disk (numba's cache, ``__pycache__`` beside the sources or
``NUMBA_CACHE_DIR``), so that later runs only load them. `compile_notice()`
wraps work that may compile: once numba has been compiling inside it for a second (never
when everything comes from the cache) it writes

    compiling the skirmish_v0 engine and the mcts search, once (about 25 s); later runs start at once

on stderr, once per process. Agents that search compile theirs when they are built
(`ggpzoo.agents.base.Agent.warmup()`), so that no move's clock counts it; ``python -m
ggpzoo warmup`` fills the cache ahead of time.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

from numba.core import event

__all__ = ["compile_notice", "estimate"]

# Roughly how long a cold cache takes to compile each part, in seconds on an idle 2-core
# machine (first moves timed by benchmarks/cold_start.py: mcts 25 s, ab 40 s, baseline:64
# 55 s, a GDL arena's mcts 70 s): the game protocol of the hand-written kernels and of the
# GDL sheets (every sheet shares one), and each agent's search on top of it.
SEARCH_SECONDS = {"mcts": 10, "greedy": 5, "ab": 25, "az": 40}

_said = False  # a notice was written in this process
_lock = threading.Lock()


class _Notice(event.Listener):
    """Writes ``line`` once a compilation has gone on for ``after`` seconds (the odd
    function numba cannot cache compiles in every process, in a moment: nothing to say)."""

    def __init__(self, line: str, stream, after: float):
        self.line, self.stream, self.after = line, stream, after
        self.depth = 0  # compilations inside compilations
        self.timer = None

    def on_start(self, e) -> None:
        self.depth += 1
        if self.depth == 1 and not _said:
            if self.after <= 0:
                self.say()
            else:
                self.timer = threading.Timer(self.after, self.say)
                self.timer.daemon = True
                self.timer.start()

    def on_end(self, e) -> None:
        self.depth -= 1
        if self.depth == 0:
            self.stop()

    def stop(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None

    def say(self) -> None:
        global _said
        with _lock:
            if _said:
                return
            _said = True
        stream = self.stream if self.stream is not None else sys.stderr
        stream.write(self.line + "\n")
        stream.flush()


def estimate(engine_seconds: float, searches=()) -> float:
    """About how many seconds a cold cache takes: the engine's (its spec's
    ``compile_seconds``) and the ``searches`` named (keys of ``SEARCH_SECONDS``; others
    count nothing)."""
    return engine_seconds + sum(SEARCH_SECONDS.get(s, 0) for s in set(searches))


@contextmanager
def compile_notice(what: str, seconds: float, stream=None, after: float = 1.0):
    """Inside this block, once numba has been compiling for ``after`` seconds, write
    ``compiling <what>, once (about <seconds> s); later runs start at once`` on ``stream``
    (default stderr): one line per process, none when everything is loaded from the cache."""
    listener = _Notice(f"compiling {what}, once (about {seconds:.0f} s); later runs start at once", stream, after)
    event.register("numba:compile", listener)
    try:
        yield
    finally:
        event.unregister("numba:compile", listener)
        listener.stop()
