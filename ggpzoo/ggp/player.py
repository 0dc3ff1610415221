"""A General Game Playing player: any GDL sheet, over the GGP match protocol (HTTP).

``python -m ggpzoo ggp-player --port 9147 --agent mcts`` serves one match at a time, as
ggp-base's players do (see [`ggpzoo.ggp.protocol`][ggpzoo.ggp.protocol] for the messages):

* **START**: a thread reads and checks the sheet, then grounds a second copy of it into a
  network (`ggpzoo.gdl.propnet`), grounding for at most the start clock left.
  The match is played on the network if it is built, else on the exact reasoner, and moves
  onto the network at the first turn after it is built (a sheet that grounds too slowly
  stays exact); the log says which, and why. ``ready`` is answered [`clock_margin()`][ggpzoo.ggp.player.clock_margin]
  before the start clock ends, even if the sheet is still being read (the first PLAY then
  waits for it).
* **PLAY**: the state is tracked from the joint moves the server sends (it never sends the
  state). A role with one legal move (``noop``) answers it at once; otherwise the agent
  searches until [`clock_margin()`][ggpzoo.ggp.player.clock_margin] before the play clock ends. ``mcts`` (the default)
  is UCT on the network, decoupled UCT where several roles move at once
  ([`ggpzoo.agents.MCTSAgent`][ggpzoo.agents.mcts.MCTSAgent]), and on the exact reasoner the Monte Carlo
  search of [`ggpzoo.ggp.agents.MonteCarloAgent`][ggpzoo.ggp.agents.MonteCarloAgent] (a random legal move while the
  network is still being built, leaving it the CPU). If the search is not back by half
  a margin before the clock ends, the answer of a first search of a tenth of the time
  (else the first legal move) is sent, and the turn is logged ``late``.
* **STOP** / **ABORT** end the match; its log (moves, clock use, simulations per turn,
  goals) is kept in [`GGPPlayer.matches`][ggpzoo.ggp.player.GGPPlayer] and, with ``log_dir``, written to
  ``LOG_DIR/MATCHID.json``.

A message for another match than the one being played is answered ``busy``. A joint move
that is not legal in the tracked state is answered ``error: illegal joint move ...`` and
changes nothing; a PLAY sent again is answered with the same move again. A match whose
server is silent for `SILENCE_PLAY_CLOCKS` play clocks plus `SILENCE_GRACE` seconds is
dropped; a match's end stops its search and its sheet's load (one load at a time).

Over HTTP ([`PlayerServer`][ggpzoo.ggp.player.PlayerServer]) it takes POST only, bodies up to `MAX_MESSAGE_BYTES`,
and refuses requests from web pages (an ``Origin`` header) but those it is told to allow.

>>> with PlayerServer(GGPPlayer("legal"), port=0) as server:   # port 0: any free port
...     host, port = server.address
...     print(post(host, port, "(info)"))
((name ggpzoo) (status available))
"""

from __future__ import annotations

import contextlib
import gc
import json
import logging
import os
import re
import socket
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import numpy as np

from ggpzoo.ggp.agents import LegalAgent, Machine, MonteCarloAgent
from ggpzoo.ggp.protocol import (
    MAX_MESSAGE_BYTES,
    ProtocolError,
    Spelling,
    error_reply,
    info_reply,
    parse_message,
    write_kif,
)

__all__ = [
    "AGENT_HELP",
    "GGPPlayer",
    "PlayerServer",
    "check_log_dir",
    "check_origin",
    "clock_margin",
    "post",
    "serve",
    "warm_up",
    "warm_up_seeds",
]

log = logging.getLogger("ggpzoo.ggp")

AGENT_HELP = (
    "mcts (UCT by the play clock; the default) | mcts:SECONDSs (at most that long a move) | "
    "mcts:SIMULATIONS (a fixed budget) | mc (ggp-base's sample Monte Carlo player, by the clock) | "
    "legal (the first legal move) | random (a random legal move) | "
    "az:PATH.json[:SIMULATIONS] (a trained GDL network, compiled sheets only)"
)
# A seed game's sheet is checked against its kernel every turn when a ply on the sheet costs
# less than this share of the play clock.
CHECK_SHARE = 0.05
SEED_CHECK_SECONDS = 60.0  # at most this long (within the start clock) to check a sheet against the seed kernels
KEPT_MATCHES = 20  # match logs kept in memory (GGPPlayer.matches)
# Grounding the network (in the background, the exact path playing meanwhile) gets at least
# this many seconds of its thread's CPU time, however short the start clock: a sheet that
# grounds in a few seconds is worth its network from the next turns on.
MIN_GROUND_SECONDS = 5.0
# A match whose start clock is at least this many seconds collects the last match's garbage
# first and freezes what it loads (see `GGPPlayer._load`). A full collection stops every
# thread of the process and can take a second in a large one, which a shorter start clock
# cannot spare: such a match leaves the collector as it is.
GC_MIN_START_CLOCK = 5.0
READ_TIMEOUT = 30.0  # seconds a connection may wait between two pieces of its request
# A match whose server says nothing for this many play clocks plus SILENCE_GRACE seconds (after
# START: the start clock more) is dropped, its log's result ``"silent"``: the player is free again.
SILENCE_PLAY_CLOCKS = 3
SILENCE_GRACE = 10.0


def clock_margin(clock: float) -> float:
    """Seconds the player keeps in hand before a clock ends: 0.1 s plus 10% of the clock, at
    most 1 s (0.13 s of a 0.3 s clock, 0.2 s of 1 s, 1 s of 9 s or more). It covers the
    reply's way back and a search step that overruns; servers allow about 1 s more."""
    return min(1.0, 0.1 + 0.1 * clock)


ENDED_FIRST = "not built: the match ended first"  # why a match has no network when it ended during the build

_WARM = threading.Lock()
_warmed = False


def warm_up() -> None:
    """Load (on a first run: compile) the search kernels once per process, so that no
    match's clock pays for it. Takes a second or two when numba's cache is warm."""
    global _warmed
    with _WARM:
        if _warmed:
            return
        from ggpzoo import gdl
        from ggpzoo.agents.mcts import MCTSAgent

        game = gdl.load(gdl.game_path("tictactoe"))
        m = Machine(game, "compiled")
        s = m.initial()
        agent = MCTSAgent(game, simulations=16, seed=0, reuse=True)
        move = agent(s, role=game.roles[0])
        joint = [move if r == 0 else moves[0] for r, moves in enumerate(m.legal(s))]
        agent(m.next(s, joint), role=game.roles[1])  # the first search's subtree: the reuse too
        MonteCarloAgent(m, seed=0).choose(s, 0, time.perf_counter() + 0.01)
        _warmed = True


_seeds_warmed: set = set()


def warm_up_seeds(search: str | None = None) -> None:
    """Load the five seed games' kernel searches (``search``, default
    `ggpzoo.ggp.seeds.SEED_SEARCH`; with ``"gumbel"`` their networks too) once per process
    (`ggpzoo.ggp.seeds`), so that a seed match's start clock does not pay for it: a few
    seconds with numba's cache warm (3.6 s for alpha-beta, 5 s more for Gumbel search and
    the networks, on a busy 2-core machine); minutes on a first run, which compiles them."""
    from ggpzoo.ggp.seeds import SEED_SEARCH

    search = SEED_SEARCH if search is None else search
    with _WARM:
        if search in _seeds_warmed:
            return
        from ggpzoo import gdl
        from ggpzoo.ggp.seeds import SEED_SHEETS, KernelPlayer, recognise

        for name in SEED_SHEETS.values():
            with open(gdl.game_path(name), encoding="utf-8") as f:
                text = f.read()
            seed_map, why = recognise(gdl.load(text), text, seed=0)
            if seed_map is None:
                raise RuntimeError(f"ggpzoo's {name} sheet is not recognised: {why}")
            KernelPlayer(seed_map, seed=0, search=search).warm_up()
        _seeds_warmed.add(search)


def _check_agent(spec: str) -> str:
    spec = spec.strip()
    if spec in ("mcts", "mc", "legal", "random"):
        return spec
    if re.fullmatch(r"mcts:(\d+|(\d+\.?\d*|\.\d+)s)", spec):
        if spec.endswith("s") and float(spec[5:-1]) <= 0 or not spec.endswith("s") and int(spec[5:]) <= 0:
            raise ValueError(f"bad agent {spec!r}: the budget must be positive")
        return spec
    if spec.startswith("az:"):
        path = re.sub(r":\d+$", "", spec[3:])
        if not path.endswith(".json") or not os.path.isfile(path):
            raise ValueError(f"bad agent {spec!r}: no such network description {path!r} (az:PATH.json[:N])")
        return spec
    raise ValueError(f"bad agent {spec!r}: use {AGENT_HELP}")


class _Match:
    """One match's state (see GGPPlayer)."""

    def __init__(self, msg, received: float):
        self.id = msg.match_id.lower()
        self.id_text = msg.match_id
        self.rules = msg.rules
        self.start_clock, self.play_clock = msg.start_clock, msg.play_clock
        self.received = received
        self.silent_at = received + msg.start_clock + SILENCE_PLAY_CLOCKS * msg.play_clock + SILENCE_GRACE
        self.ended = threading.Event()  # set when the match ends: stops its load, its search and its watch
        self.answered: tuple | None = None  # the last PLAY answered: (its joint move, the turn after it, the reply)
        self.spelling = Spelling(msg.rules)
        self.machine: Machine | None = None
        self.state = None
        self.role = -1
        self.role_text = msg.role
        self.exact = None  # the loaded Game
        self.compiled = None  # the same Game, once its network is built
        self.load_error: str | None = None
        self.compile_error: str | None = None
        self.loaded = threading.Event()
        self.compile_done = threading.Event()
        self.worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ggp-match")
        self.agent = None
        self.over = False
        self.turn = 0
        self.history: list = []  # the joint moves played (game terms, role order)
        self.pending: list = []  # joint moves not applied to ``state`` yet (a slow sheet the kernel plays)
        self.kernel = None  # a seed game's KernelPlayer, once recognised and loaded
        self.kernel_on = False  # playing on it (its state follows the match)
        self.kernel_off = False  # left for good (a mismatch)
        self.log: dict = {
            "match_id": msg.match_id,
            "role": msg.role,
            "start_clock": msg.start_clock,
            "play_clock": msg.play_clock,
            "backend": None,
            "backend_reason": "",
            "seed": None,
            "turns": [],
            "goals": None,
            "result": None,
        }


class GGPPlayer:
    """The player's logic, one message at a time (thread-safe); [`PlayerServer`][ggpzoo.ggp.player.PlayerServer] serves
    it over HTTP.

    Args:
        agent: what plays (`AGENT_HELP`).
        name: the name INFO answers.
        seed: seeds the searches (their answers still depend on timing).
        log_dir: if given, each match's log is written to ``LOG_DIR/MATCHID.json``.
        seeds: with the ``mcts`` agent, play the five seed games on their hand-written
            kernels when a sheet is recognised as one (`ggpzoo.ggp.seeds`); False plays
            every sheet the same way.
        seed_search: the search on a seed game's kernel: ``"alphabeta"`` (the default,
            `ggpzoo.ggp.seeds.SEED_SEARCH`) or ``"gumbel"`` (the game's shipped AlphaZero
            network with Gumbel search), `ggpzoo.ggp.seeds.KernelPlayer`.
    """

    def __init__(
        self,
        agent: str = "mcts",
        name: str = "ggpzoo",
        seed: int | None = None,
        log_dir: str | None = None,
        seeds: bool = True,
        seed_search: str | None = None,
    ):
        from ggpzoo.ggp.seeds import SEED_SEARCH, SEED_SEARCHES

        self.agent = _check_agent(agent)
        self.seeds = bool(seeds) and self.agent == "mcts"
        self.seed_search = SEED_SEARCH if seed_search is None else seed_search
        if self.seed_search not in SEED_SEARCHES:
            raise ValueError(f"seed_search must be one of {', '.join(SEED_SEARCHES)}, got {seed_search!r}")
        self.name = name
        self.warming = False  # set by PlayerServer while its kernels load: INFO answers busy meanwhile
        self.rng = np.random.default_rng(seed)
        self.log_dir = None if log_dir is None else check_log_dir(log_dir)
        self.matches: list[dict] = []
        self._lock = threading.Lock()
        self._match: _Match | None = None
        self._loader: threading.Thread | None = None  # the last match's load: one at a time

    # ------------------------------------------------------------------ messages
    def handle(self, message, received: float | None = None) -> str:
        """The reply to one message (``str`` or ``bytes``); malformed ones get ``error: REASON``.

        The clocks count from ``received`` (``time.perf_counter()`` seconds; now if not given):
        the HTTP server passes the moment it accepted the connection, so that time spent
        reading the message is on the clock too."""
        received = time.perf_counter() if received is None else min(received, time.perf_counter())
        try:
            msg = parse_message(message)
        except ProtocolError as e:
            log.warning("malformed message: %s", e)
            return error_reply(e)
        try:
            return getattr(self, "_" + msg.kind)(msg, received)
        except ProtocolError as e:
            log.warning("%s: %s", msg.kind, e)
            return error_reply(e)
        except Exception as e:  # noqa: BLE001 - a reply, never a crash
            log.exception("%s failed", msg.kind)
            return error_reply(f"{type(e).__name__}: {e}")

    def _info(self, msg, received) -> str:
        m = self._match
        return info_reply(self.name, busy=self.warming or m is not None and not m.over)

    def _preview(self, msg, received) -> str:
        return "ready"

    def _current(self, msg, received: float) -> _Match | None:
        """The match ``msg`` is for, if it is the one being played; it was heard from at ``received``."""
        m = self._match
        if m is None or m.over or m.id != msg.match_id.lower():
            return None
        m.silent_at = max(m.silent_at, received + SILENCE_PLAY_CLOCKS * m.play_clock + SILENCE_GRACE)
        return m

    def _start(self, msg, received) -> str:
        with self._lock:
            m = self._match
            if m is not None and not m.over:
                return "ready" if m.id == msg.match_id.lower() else "busy"
            loader = self._loader
        if loader is not None and loader.is_alive():  # the last match's load: it stops at its next check
            loader.join(max(0.0, received + msg.start_clock / 2 - time.perf_counter()))
            if loader.is_alive():
                log.warning("START %s: busy: the last match's sheet is still loading", msg.match_id)
                return "busy"
        deadline = received + msg.start_clock - clock_margin(msg.start_clock)
        with self._lock:
            m = self._match
            if m is not None and not m.over:  # another START came first
                return "ready" if m.id == msg.match_id.lower() else "busy"
            if self._loader is not None and self._loader.is_alive():
                return "busy"
            m = _Match(msg, received)
            self._match = m
            self._loader = threading.Thread(target=self._load, args=(m, deadline), daemon=True, name="ggp-load")
            self._loader.start()
        threading.Thread(target=self._watch, args=(m,), daemon=True, name="ggp-watch").start()
        m.loaded.wait(max(0.0, deadline - time.perf_counter()))
        if m.load_error is not None:  # not GDL, or no such role: nothing to play
            self._finish(m, "refused")
            raise ProtocolError(m.load_error)
        m.compile_done.wait(max(0.0, deadline - time.perf_counter()))
        if not m.compile_done.is_set():
            m.log["backend_reason"] = f"the sheet was still loading when the start clock ended ({msg.start_clock:g} s)"
        if m.loaded.is_set():
            self._ensure_machine(m)
        else:
            log.info("match %s: role %s, %s", m.id_text, msg.role, m.log["backend_reason"])
        return "ready"

    def _watch(self, m: _Match) -> None:
        """Drop the match when its server has been silent too long (`SILENCE_PLAY_CLOCKS`)."""
        while not m.ended.wait(max(0.01, m.silent_at - time.perf_counter())):
            if time.perf_counter() >= m.silent_at:
                why = f"no message from the server for {SILENCE_PLAY_CLOCKS} play clocks + {SILENCE_GRACE:g} s" + (
                    " (after START: the start clock more)" if m.turn == 0 and not m.log["turns"] else ""
                )
                m.log["dropped"] = why
                log.warning("match %s dropped: %s", m.id_text, why)
                self._finish(m, "silent")
                return

    def _load(self, m: _Match, deadline: float) -> None:
        """Read the sheet (the exact path's Game), then read it again and ground that copy
        into a network, grounding for at most the start clock left (at least
        `MIN_GROUND_SECONDS` of CPU time; building the network may take about as long again). The match thread uses the
        first copy only, so the exact path plays while the network is being built. When the
        match ends first, the grounding stops and the network is not built.

        Python's garbage collector: with a start clock of at least `GC_MIN_START_CLOCK`, the
        last match's garbage is collected first, on this match's start clock, and what is
        loaded is frozen (`gc.freeze`) at the end, so that no full collection walks a large
        sheet's millions of objects during the match (one took 1.5 s of a 1 s turn, a match
        after the corpus's chess_200)."""
        from ggpzoo import gdl
        from ggpzoo.gdl.ground import GroundingTooLarge
        from ggpzoo.gdl.syntax import LoadStopped

        tidy = m.start_clock >= GC_MIN_START_CLOCK
        if tidy:
            gc.unfreeze()
            gc.collect()
        try:
            try:
                game = gdl.load(m.rules, name="match", stop=lambda: m.over)
            except LoadStopped:
                m.load_error, m.compile_error = "the match ended while its sheet loaded", ENDED_FIRST
                return
            except Exception as e:  # noqa: BLE001 - answered as an error
                m.load_error = f"the sheet cannot be played: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
                return
            if m.role_text.lower() not in game.roles:
                m.load_error = f"role {m.role_text} is not a role of the sheet ({', '.join(game.roles)})"
                return
            if m.over:  # each phase that cannot be stopped midway is followed by a check
                m.load_error, m.compile_error = "the match ended while its sheet loaded", ENDED_FIRST
                return
            m.exact = game
            m.loaded.set()
            if self.seeds and self._recognise(m, deadline):
                m.compile_error = f"not built: the {m.kernel.env} kernel plays the sheet"
                return
            if m.over:
                m.compile_error = ENDED_FIRST
                return
            budget = max(MIN_GROUND_SECONDS, deadline - time.perf_counter())
            try:
                net_game = gdl.load(m.rules, name="match", ground_time_limit=budget, stop=lambda: m.over)
                if not m.over:
                    net_game.grounding(stop=lambda: m.over)
                if m.over:  # a network no one will play: the CPU goes to the next match
                    m.compile_error = ENDED_FIRST
                    return
                net_game.propnet()
                if m.over:
                    m.compile_error = ENDED_FIRST
                    return
                Machine(net_game, "compiled").legal(net_game.propnet().init)
                m.compiled = net_game
            except LoadStopped:  # the grounding's GroundingStopped too
                m.compile_error = ENDED_FIRST
            except GroundingTooLarge as e:
                m.compile_error = f"grounding did not finish in {budget:.1f} s: " + str(e).split(";")[0][:120]
            except Exception as e:  # noqa: BLE001 - the exact path plays it
                m.compile_error = f"no network: {type(e).__name__}: {str(e)[:120]}"
        finally:
            if tidy:
                gc.freeze()
            m.log["load_seconds"] = round(time.perf_counter() - m.received, 3)
            m.loaded.set()
            m.compile_done.set()

    def _recognise(self, m: _Match, deadline: float) -> bool:
        """Is the sheet a seed game (`ggpzoo.ggp.seeds`)? If so, load its kernel player
        (network, search kernels) into ``m.kernel``. Logs either way."""
        from ggpzoo.ggp.seeds import KernelPlayer, recognise

        t0 = time.perf_counter()
        try:
            seed_map, why = recognise(m.exact, m.rules, deadline=min(deadline, t0 + SEED_CHECK_SECONDS), seed=0)
        except Exception as e:  # noqa: BLE001 - then the sheet is played as any other
            seed_map, why = None, f"the check failed: {type(e).__name__}: {str(e)[:120]}"
        m.log["seed"] = {"env": seed_map and seed_map.env, "why": why, "seconds": round(time.perf_counter() - t0, 3)}
        if seed_map is None:
            log.info("match %s: %s", m.id_text, why)
            return False
        try:
            player = KernelPlayer(seed_map, seed=int(self.rng.integers(2**62)), search=self.seed_search)
            player.warm_up()
        except Exception as e:  # noqa: BLE001 - then the sheet is played as any other
            m.log["seed"]["why"] += f"; the kernel player failed to load: {type(e).__name__}: {str(e)[:120]}"
            log.warning("match %s: %s", m.id_text, m.log["seed"]["why"])
            return False
        m.log["seed"]["search"] = player.kind
        m.log["seed"]["seconds"] = round(time.perf_counter() - t0, 3)
        m.kernel = player
        log.info("match %s: %s; %s search on the kernel", m.id_text, why, player.kind)
        return True

    def _kernel_off(self, m: _Match, why: str) -> None:
        m.kernel_on, m.kernel_off = False, True
        m.log["seed"]["left"] = f"turn {m.turn}: {why}"
        log.warning("match %s: leaves the %s kernel at turn %d: %s", m.id_text, m.kernel.env, m.turn, why)

    def _kernel_turn(self, m: _Match, turn: dict, deadline: float, received: float) -> bool:
        """Play the turn on the seed game's kernel; False (and the kernel left for good) on
        any mismatch with the sheet, which then plays the turn."""
        kp = m.kernel
        if not m.kernel_on:  # loaded after the match began: catch up with the moves played
            try:
                for joint in m.history:
                    kp.play(joint)
            except ValueError as e:
                self._kernel_off(m, str(e))
                return False
            m.kernel_on = True
        if kp.over():
            self._kernel_off(m, "the kernel's game is over, the sheet's is not")
            return False
        check = not self._lazy(m)  # the sheet's legal moves against the kernel's, every turn
        legal = m.machine.legal(m.state)[m.role] if check else None
        stats: dict = {}
        if kp.mover() != m.role:
            move = kp.map.idle.get(m.role)
            if move is None or check and legal != [move]:
                self._kernel_off(m, "the role not in control has other moves than in the check")
                return False
            count = 1
        else:
            count = len(kp.legal())
            if check:
                ids = [kp.map.action(t, kp.aux) for t in legal]
                if sorted(a for a in ids if a is not None) != sorted(kp.legal()) or None in ids:
                    self._kernel_off(m, "the sheet's legal moves are not the kernel's")
                    return False
            turn["fallback"] = m.spelling.text(kp.term(kp.quick()))
            action, stats = kp.choose(deadline, hard=deadline + clock_margin(m.play_clock) / 4)
            move = kp.term(action)
            if check and move not in legal:
                self._kernel_off(m, f"the kernel's move {move} is not legal in the sheet")
                return False
        fields = {
            "legal": count,
            "backend": "kernel",
            "simulations": stats.get("simulations", 0),
            "search": stats.get("search", ""),
            "seconds": round(time.perf_counter() - received, 3),
        }
        if "overran" in stats:  # the search was not back in time: the network's move went out
            fields["overran"] = stats["overran"]
        if "depth" in stats:  # alpha-beta: the deepest finished iteration, and the nodes searched
            fields.update(depth=stats["depth"], nodes=stats["nodes"])
        self._answer(turn, m.spelling.text(move), fields)
        return True

    @staticmethod
    def _answer(turn: dict, text: str, fields: dict) -> None:
        """The turn's move is ``text``, found with ``fields`` (its log entry's): the reply, unless
        the fallback has gone out already; then the log keeps the move sent, this one beside it."""
        with turn["lock"]:
            entry = turn["entry"]
            if turn["sent"] is None:
                entry.update(fields, move=text)
                turn["move"] = text
            else:
                fields = dict(fields, search_move=text)
                if "seconds" in fields:
                    fields["search_seconds"] = fields.pop("seconds")
                entry.update(fields)

    def _ensure_machine(self, m: _Match) -> None:
        """Set the match's machine once the sheet is read: the network if it is built, else
        the exact reasoner; move an exact-path match onto the network once it is built."""
        if m.machine is None:
            m.loaded.wait()
            if m.load_error is not None:
                raise ProtocolError(m.load_error)
            m.role = m.exact.roles.index(m.role_text.lower())
            if m.compiled is not None:
                m.machine = Machine(m.compiled, "compiled")
                m.log["backend"] = "compiled"
            else:
                m.machine = Machine(m.exact, "exact")
                m.log["backend"] = "exact"
                reason = m.compile_error or "the network was not built yet"
                m.log["backend_reason"] = (m.log["backend_reason"] + "; " if m.log["backend_reason"] else "") + reason
            m.state = m.machine.initial()
            log.info(
                "match %s: role %s, %s%s (start clock %g s)",
                m.id_text,
                m.role_text,
                f"the {m.kernel.env} kernel plays, the sheet on the exact path"
                if m.kernel is not None
                else m.log["backend"] + " path",
                f" ({m.log['backend_reason']})" if m.log["backend_reason"] and m.kernel is None else "",
                m.start_clock,
            )
        elif m.machine.backend == "exact" and m.compile_error and m.compile_error not in m.log["backend_reason"]:
            m.log["backend_reason"] += "; " + m.compile_error
            log.info("match %s: stays on the exact path: %s", m.id_text, m.compile_error)
        elif m.machine.backend == "exact" and m.compiled is not None:
            from ggpzoo.gdl.states import state_from_fluents

            try:
                state = state_from_fluents(m.compiled, m.state)
            except ValueError:
                return  # a state the grounding does not have: stay on the exact path
            m.machine, m.state = Machine(m.compiled, "compiled"), state
            m.log["backend"] = "compiled"
            n = len(m.log["turns"])
            m.log["backend_reason"] += f"; compiled after {n} turn(s) on the exact path"
            log.info("match %s: the network is built; compiled path after %d turn(s)", m.id_text, n)

    def _play(self, msg, received) -> str:
        m = self._current(msg, received)
        if m is None:
            return "busy"
        margin = clock_margin(m.play_clock)
        search_deadline = received + m.play_clock - margin
        hard_deadline = received + m.play_clock - margin / 2
        turn = {"done": threading.Event(), "lock": threading.Lock(), "move": None, "fallback": None, "sent": None}
        turn["entry"] = {}
        m.worker.submit(self._turn, m, msg, turn, search_deadline, received)
        turn["done"].wait(max(0.0, hard_deadline - time.perf_counter()))
        with turn["lock"]:
            move = turn["move"]
            if move is None:
                move = turn["sent"] = turn["fallback"]
                if move is None:
                    return error_reply(turn.get("error") or "no move ready in time")
                seconds = round(time.perf_counter() - received, 3)
                # the turn's log entry, whenever the search ends: the move sent, and when
                turn["entry"].update(move=move, fallback=True, seconds=seconds)
                if "error" not in turn:
                    turn["entry"]["late"] = True
                log.warning(
                    "match %s: the search was not back in time; answered the fallback %s after %.3f s",
                    m.id_text,
                    move,
                    seconds,
                )
        if "after" in turn:
            m.answered = (msg.moves, turn["after"], move)
        return move

    def _lazy(self, m: _Match) -> bool:
        """Does the kernel play without the sheet's state kept up (a sheet too slow to reason
        on every turn, `CHECK_SHARE`)? Its moves are then applied when the sheet is needed."""
        return m.kernel_on and m.kernel.map.ply_seconds > CHECK_SHARE * m.play_clock

    def _sync(self, m: _Match) -> None:
        """Apply the joint moves kept back by a lazy kernel match to the sheet's state."""
        mach = m.machine
        while m.pending:
            moves = m.pending.pop(0)
            try:
                joint = [mach.move(i, t) for i, t in enumerate(moves)]
            except KeyError as e:
                m.pending.clear()
                raise ProtocolError(f"{write_kif(e.args[0])} is not a move of this sheet") from None
            m.state = mach.next(m.state, joint)

    def _illegal(self, m: _Match, moves: list) -> str | None:
        """Why the joint move ``moves`` cannot be played in the tracked state (None: it can)."""
        self._sync(m)
        mach = m.machine
        if len(moves) != len(mach.roles):
            return f"a joint move has one move per role ({len(mach.roles)}), got {len(moves)}"
        if mach.over(m.state):
            return "the game is over in the tracked state"
        legal = mach.legal(m.state)
        for i, t in enumerate(moves):
            try:
                move = mach.move(i, t)
            except KeyError:
                return f"{m.spelling.text(t)} is not a move of this sheet"
            if move not in legal[i]:
                return f"{m.spelling.text(t)} is not a legal move of {m.spelling.text(mach.roles[i])}"
        return None

    def _advance(self, m: _Match, msg) -> None:
        """Apply the joint move of a PLAY or STOP to the tracked state, checked first: an
        illegal one is a ProtocolError, the state left as it was."""
        if msg.moves is None:
            return
        mach = m.machine
        if len(msg.moves) != len(mach.roles):
            raise ProtocolError(f"a joint move has one move per role ({len(mach.roles)}), got {len(msg.moves)}")
        lazy, why = self._lazy(m), None
        if lazy:  # the kernel checks the mover's move; the sheet is asked only if it disagrees
            try:
                m.kernel.play(msg.moves)
            except ValueError as e:
                why = str(e)
        if not lazy or why is not None:
            bad = self._illegal(m, msg.moves)
            if bad is not None:
                raise ProtocolError(
                    f"illegal joint move {write_kif(tuple(msg.raw_moves))} at turn {m.turn + 1}: {bad} "
                    "(the tracked state is kept)"
                )
        m.pending.append(list(msg.moves))
        if not lazy:
            self._sync(m)
        m.turn += 1
        m.history.append(list(msg.moves))
        if why is not None:
            self._kernel_off(m, why)
        elif m.kernel_on and not lazy:
            try:
                m.kernel.play(msg.moves)
            except ValueError as e:
                self._kernel_off(m, str(e))

    def _turn(self, m: _Match, msg, turn: dict, deadline: float, received: float) -> None:
        entry = turn["entry"]
        entry["turn"] = m.turn + (msg.moves is not None)
        entry["previous"] = msg.raw_moves and [write_kif(x) for x in msg.raw_moves]
        try:
            self._ensure_machine(m)
            before = m.answered
            if before is not None and before[:2] == (msg.moves, m.turn):
                if msg.moves is None or self._illegal(m, msg.moves) is not None:  # a PLAY sent again
                    entry.update(turn=m.turn, retry=True)
                    log.warning(
                        "match %s turn %d: the same PLAY again: answering %s again", m.id_text, m.turn, before[2]
                    )
                    self._answer(turn, before[2], {"seconds": round(time.perf_counter() - received, 3)})
                    return
            self._advance(m, msg)
            turn["after"] = m.turn
            if m.kernel is not None and not m.kernel_off:
                try:
                    if self._kernel_turn(m, turn, deadline, received):
                        return
                except Exception as e:  # noqa: BLE001 - the sheet plays the turn
                    self._kernel_off(m, f"{type(e).__name__}: {str(e)[:120]}")
            self._sync(m)
            mach = m.machine
            if mach.over(m.state):
                raise ProtocolError("the game is over in the state the moves lead to: nothing to play")
            legal = mach.legal(m.state)[m.role]
            turn["fallback"] = m.spelling.text(mach.term(m.role, legal[0]))
            entry["legal"] = len(legal)
            stats: dict = {}
            if len(legal) == 1:
                move = legal[0]
            else:
                move, stats = self._search(m, legal, deadline, turn)
            fields = {
                "backend": mach.backend,
                "simulations": stats.get("simulations", 0),
                "seconds": round(time.perf_counter() - received, 3),
            }
            if stats.get("reused"):
                fields["reused"] = stats["reused"]
            self._answer(turn, m.spelling.text(mach.term(m.role, move)), fields)
        except Exception as e:  # noqa: BLE001 - logged, answered as an error
            turn["error"] = str(e).splitlines()[0] if str(e) else type(e).__name__
            entry["error"] = turn["error"]
            log.warning("match %s turn %d: %s", m.id_text, m.turn, turn["error"])
        finally:
            turn["done"].set()
            m.log["turns"].append(entry)

    def _search(self, m: _Match, legal: list, deadline: float, turn: dict):
        """The agent's move (the machine's kind) and its search statistics. Searching by the
        clock, UCT first searches for a tenth of the time and makes its answer the turn's
        fallback (what the player answers if the main search is not back in time)."""
        mach, spec = m.machine, self.agent
        seed = int(self.rng.integers(1, 2**62))
        budget = deadline - time.perf_counter()
        if budget <= 0.002:
            return legal[0], {"simulations": 0}
        if spec in ("legal", "random") or mach.backend == "exact" and not m.compile_done.is_set():
            # while the network is being built, a random legal move leaves the CPU to the build
            a = LegalAgent(mach, random=spec != "legal", seed=seed)
            return a.choose(m.state, m.role, deadline), a.last_search
        if spec == "mc" or mach.backend == "exact":
            a = MonteCarloAgent(mach, seed=seed)
            a.stop = lambda: m.over
            return a.choose(m.state, m.role, deadline), a.last_search
        from ggpzoo.agents.mcts import MCTSAgent

        role = mach.roles[m.role]
        by_clock = spec == "mcts" or spec.endswith("s")
        if m.agent is None or m.agent[0] is not mach.game:  # one search for the match: its tree is reused
            budget_kw = {"seconds": 1.0} if by_clock else {"simulations": int(spec[5:])}
            m.agent = (mach.game, MCTSAgent(mach.game, seed=seed, reuse=True, **budget_kw))
        agent = m.agent[1]
        agent.stop = lambda: m.over  # the match's end ends the search
        if not by_clock:
            move = agent(m.state, role=role)
            return int(move), dict(agent.last_search)
        if spec != "mcts":
            budget = min(budget, float(spec[5:-1]))
        quick: dict = {}
        if budget >= 0.02:  # a first short search: its answer is the fallback; the search goes on from its tree
            agent.seconds = budget / 10
            first = int(agent(m.state, role=role))
            quick = dict(agent.last_search)
            turn["fallback"] = m.spelling.text(mach.term(m.role, first))
            budget = min(budget * 0.9, deadline - time.perf_counter())
            if budget < 0.001 or m.over:
                return first, quick
        agent.seconds = max(budget, 0.001)
        move = agent(m.state, role=role)
        stats = dict(agent.last_search)
        if quick:  # the turn's simulations; reused: those from the turns before
            stats["simulations"] += quick["simulations"]
            stats["reused"] = quick["reused"]
        return int(move), stats

    def _stop(self, msg, received) -> str:
        m = self._current(msg, received)
        if m is None:
            return "busy"
        done = threading.Event()

        def finish():
            try:
                self._ensure_machine(m)
                self._advance(m, msg)
                if m.kernel_on and m.pending and m.kernel.over():  # the kernel's goals: the sheet is behind
                    g = m.kernel.map.kernel.goals(m.kernel.board, m.kernel.aux)
                    roles = m.machine.roles
                    m.log["goals"] = {roles[m.kernel.map.sheet_role(k)]: int(g[k]) for k in (0, 1)}
                    return
                self._sync(m)
                if m.machine.over(m.state):
                    m.log["goals"] = dict(zip(m.machine.roles, m.machine.goals(m.state), strict=True))
            except Exception as e:  # noqa: BLE001 - logged
                m.log["stop_error"] = str(e)
            finally:
                self._finish(m, "done")
                done.set()

        m.worker.submit(finish)
        done.wait(max(0.5, m.play_clock - clock_margin(m.play_clock)))
        return "done"

    def _abort(self, msg, received) -> str:
        m = self._current(msg, received)
        if m is None:
            return "busy"
        self._finish(m, "aborted")
        return "aborted"

    def _finish(self, m: _Match, result: str) -> None:
        with self._lock:
            if m.over:
                return
            m.over = True
            m.ended.set()
            if self._match is m:
                self._match = None
            m.log["result"] = result
            self.matches.append(m.log)
            del self.matches[:-KEPT_MATCHES]
        m.worker.shutdown(wait=False)
        if m.kernel is not None:  # a seed game's alpha-beta: the match's end ends its search
            m.kernel.interrupt()
        turns = [t for t in m.log["turns"] if "move" in t]
        nodes = sum(t.get("nodes", 0) for t in turns)  # alpha-beta's, on a seed game's kernel
        log.info(
            "match %s %s: goals %s; %d moves, %d searched, %d simulations (%d reused from the turn before)%s, "
            "%d late, %d errors",
            m.id_text,
            result,
            m.log["goals"],
            len(turns),
            sum(1 for t in turns if t.get("legal", 1) > 1),
            sum(t.get("simulations", 0) for t in turns),
            sum(t.get("reused", 0) for t in turns),
            f", {nodes} alpha-beta nodes" if nodes else "",
            sum(1 for t in m.log["turns"] if t.get("late")),
            sum(1 for t in m.log["turns"] if "error" in t),
        )
        if self.log_dir:
            name = re.sub(r"[^A-Za-z0-9._-]", "_", m.id_text)[:100] or "match"
            try:
                with open(os.path.join(self.log_dir, name + ".json"), "w") as f:
                    json.dump(m.log, f, indent=1)
            except OSError as e:  # the folder was checked at start; it may have gone since
                log.warning("match %s: its log could not be written: %s", m.id_text, e)


def check_log_dir(path) -> str:
    """``path`` as a folder for match logs: created if missing, and written to once to check
    it can be; ValueError naming the problem otherwise."""
    path = os.fspath(path)
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        raise ValueError(f"--log-dir {path!r} cannot hold the match logs: {e.strerror or type(e).__name__}") from None
    return path


# ---------------------------------------------------------------------------- HTTP
class _Handler(BaseHTTPRequestHandler):
    """POST only; a request with an ``Origin`` header (a web page's) only from an allowed origin."""

    protocol_version = "HTTP/1.0"
    server_version = "ggpzoo"
    timeout = READ_TIMEOUT
    origin = None  # the request's Origin, once allowed: echoed back

    def setup(self) -> None:
        self.accepted = self.server.accepted.pop(self.request.fileno(), None)
        super().setup()

    def _reply(self, text: str, code: int = 200, headers: tuple = ()) -> None:
        body = text.encode("utf-8")
        self.send_response(code)
        self.send_header("Content-type", "text/acl")
        self.send_header("Content-length", str(len(body)))
        if self.origin is not None:
            self.send_header("Access-Control-Allow-Origin", self.origin)
            self.send_header("Vary", "Origin")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_error(self, code, message=None, explain=None) -> None:
        """http.server's own refusals (a request line or header too long, too many headers,
        a method it has no handler for) as one short line too."""
        self.close_connection = True
        self.origin = None
        self._reply(error_reply(message or self.responses.get(code, ("refused",))[0]), code)

    def _allowed(self) -> bool:
        """Is the request from no web page, or from an allowed one? Else it is answered 403."""
        origin = self.headers.get("Origin")
        if origin is None:
            return True
        if _origin_key(origin) in self.server.allow_origins:
            self.origin = origin.strip()
            return True
        self._reply(error_reply(f"requests from web pages are refused (Origin {origin[:80]})"), 403)
        return False

    def do_POST(self) -> None:
        if not self._allowed():
            return
        length = self.headers.get("Content-Length")
        if length is None:
            return self._reply(error_reply("a POST needs a Content-Length"), 411)
        length = length.strip()
        if not re.fullmatch(r"[0-9]{1,15}", length):
            return self._reply(error_reply(f"bad Content-Length {length[:20]!r}: a number of bytes"), 400)
        n = int(length)
        if n > MAX_MESSAGE_BYTES:
            return self._reply(error_reply(f"message of {n:,} bytes: the limit is {MAX_MESSAGE_BYTES:,}"), 413)
        body = self.rfile.read(n)
        if len(body) < n:
            return self._reply(error_reply(f"the message ended after {len(body):,} of {n:,} bytes"), 400)
        self._reply(self.server.player.handle(body, self.accepted))

    def do_GET(self) -> None:
        if self._allowed():
            self._reply(error_reply("the GGP player takes messages by POST only"), 405, (("Allow", "POST"),))

    def do_OPTIONS(self) -> None:
        if not self._allowed():
            return
        if self.origin is None:  # a preflight comes from a web page
            return self._reply(error_reply("OPTIONS is a web page's preflight: no Origin"), 405, (("Allow", "POST"),))
        self._reply(
            "",
            200,
            (
                ("Access-Control-Allow-Methods", "POST, OPTIONS"),
                ("Access-Control-Allow-Headers", "Content-Type"),
                ("Access-Control-Max-Age", "86400"),
            ),
        )

    def log_message(self, format, *args) -> None:  # noqa: A002 - the base class's name
        log.debug("%s %s", self.address_string(), format % args)


def _origin_key(origin: str) -> str:
    return origin.strip().rstrip("/").lower()


def check_origin(origin: str) -> str:
    """An origin to allow (``--allow-origin``): a web page's scheme, host and optional port
    (``http://localhost:8080``); ValueError otherwise."""
    if not isinstance(origin, str) or not re.fullmatch(r"https?://[A-Za-z0-9.\-\[\]:]+/?", origin.strip()):
        raise ValueError(f"an allowed origin is a scheme and host, like http://localhost:8080, got {origin!r}")
    return _origin_key(origin)


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, *args, **kwargs):
        self.accepted: dict[int, float] = {}  # socket fd -> when the connection was accepted
        super().__init__(*args, **kwargs)

    def process_request(self, request, client_address) -> None:
        self.accepted[request.fileno()] = time.perf_counter()
        super().process_request(request, client_address)

    def shutdown_request(self, request) -> None:
        with contextlib.suppress(OSError):  # a request that failed before its handler read the time
            self.accepted.pop(request.fileno(), None)
        super().shutdown_request(request)

    def handle_error(self, request, client_address) -> None:
        """A client that hung up before the reply (a server that stopped waiting) is one log
        line, not a traceback."""
        import sys

        e = sys.exc_info()[1]
        if isinstance(e, (BrokenPipeError, ConnectionResetError, TimeoutError)):
            log.warning("%s:%s closed the connection before the reply (%s)", *client_address[:2], type(e).__name__)
        else:
            super().handle_error(request, client_address)


class PlayerServer:
    """Serves a [`GGPPlayer`][ggpzoo.ggp.player.GGPPlayer] over HTTP on ``host:port`` (port 0: a free port, see
    [`address`][ggpzoo.ggp.player.PlayerServer]). ``start()`` serves in a background thread, ``stop()`` ends it; as a
    context manager it does both. It listens at once and loads the search kernels in a
    background thread ([`warm_up()`][ggpzoo.ggp.player.warm_up]; with ``warm_seeds``, the seed games' too,
    [`warm_up_seeds()`][ggpzoo.ggp.player.warm_up_seeds]), answering meanwhile: INFO says ``busy`` until
    then (a game server waits before it starts a match) and a START is taken all the same; ``warmed``
    is set when that is done.

    Takes messages by POST only. A request with an ``Origin`` header (from a web page) is
    refused (403) unless its origin is in ``allow_origins`` (``"http://localhost:8080"``...),
    which is then echoed in ``Access-Control-Allow-Origin`` and may send a preflight OPTIONS.
    """

    def __init__(
        self,
        player: GGPPlayer,
        host: str = "127.0.0.1",
        port: int = 9147,
        warm: bool = True,
        warm_seeds: bool = False,
        allow_origins=(),
    ):
        self.player = player
        if isinstance(allow_origins, str):
            allow_origins = [allow_origins]
        origins = frozenset(check_origin(o) for o in allow_origins)
        self._server = _Server((host, port), _Handler)
        self._server.player = player
        self._server.allow_origins = origins
        self._thread: threading.Thread | None = None
        self.warmed = threading.Event()
        seeds = warm_seeds and getattr(player, "seeds", False)
        if warm or seeds:
            player.warming = True  # INFO says busy (a server waits to start a match); START is taken all the same
            threading.Thread(target=self._warm, args=(warm, seeds), daemon=True, name="ggp-warm-up").start()
        else:
            self.warmed.set()

    def _warm(self, kernels: bool, seeds: bool) -> None:
        t0 = time.perf_counter()
        try:
            if kernels:
                warm_up()
            if seeds:
                warm_up_seeds(self.player.seed_search)
            log.info("the search kernels are loaded (%.1f s)", time.perf_counter() - t0)
        except Exception:  # noqa: BLE001 - the matches load what they need themselves
            log.exception("loading the search kernels failed; each match loads what it needs")
        finally:
            self.player.warming = False
            self.warmed.set()

    @property
    def address(self) -> tuple[str, int]:
        host, port = self._server.server_address[:2]
        return host, port

    def start(self) -> PlayerServer:
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True, name="ggp-player")
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        self._server.serve_forever()

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> PlayerServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def serve(agent: str = "mcts", port: int = 9147, host: str = "127.0.0.1", **kwargs) -> None:
    """Serve a player until interrupted (``python -m ggpzoo ggp-player``)."""
    server = PlayerServer(GGPPlayer(agent, **kwargs), host, port, warm_seeds=True)
    log.info("ggpzoo player (%s) on %s:%d", agent, *server.address)
    server.serve_forever()


def post(host: str, port: int, message: str, timeout: float = 10.0) -> str:
    """Send one message as a GGP server does (``POST /``, HTTP/1.0) and return the reply's body.

    Raises ``TimeoutError`` past ``timeout`` seconds, ``OSError`` if the connection fails,
    ``ProtocolError`` for a reply that is not HTTP or is larger than `MAX_MESSAGE_BYTES`."""
    body = message.encode("utf-8")
    deadline = time.monotonic() + timeout
    head = (
        f"POST / HTTP/1.0\r\nAccept: text/delim\r\nHost: {host}:{port}\r\nSender: ggpzoo\r\n"
        f"Receiver: {host}:{port}\r\nContent-Type: text/acl\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode("ascii")
    with socket.create_connection((host, port), timeout=max(0.001, timeout)) as s:
        s.sendall(head + body)
        chunks, size = [], 0
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no reply within {timeout:g} s")
            s.settimeout(left)
            try:
                data = s.recv(65536)
            except TimeoutError:
                raise TimeoutError(f"no reply within {timeout:g} s") from None
            if not data:
                break
            chunks.append(data)
            size += len(data)
            if size > MAX_MESSAGE_BYTES + 65536:
                raise ProtocolError(f"a reply larger than {MAX_MESSAGE_BYTES:,} bytes")
    raw = b"".join(chunks)
    head_end = raw.find(b"\r\n\r\n")
    if not raw.startswith(b"HTTP/") or head_end < 0:
        raise ProtocolError("the reply is not HTTP")
    return raw[head_end + 4 :].decode("utf-8", errors="replace").strip()
