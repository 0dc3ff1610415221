"""A remote GGP player as an arena agent: ``ggp:HOST:PORT``.

``python -m ggpzoo arena --env skirmish_v0 --agents ggp:127.0.0.1:9147,mcts:200`` plays a
player that speaks the GGP protocol (ggpzoo's ``ggp-player``, a ggp-base player...) in
arena games: for that seat the arena is the game server. At the start of each game the
player gets START with the game's sheet (a GDL env's own sheet; for a kernel env, ggpzoo's
GDL edition of it in ``ggpzoo/gdl/games``, its moves translated by
[`ggpzoo.ggp.seeds.SeedMap`][ggpzoo.ggp.seeds.SeedMap]), then PLAY every turn (on the
other seat's turns too: it answers its ``noop``; and for a joint move the env plays by
itself, where no role has a choice), and STOP at the end. As a game server
does, a reply that is not a legal move (in the sheet's spelling), cannot be read, or comes
later than the play clock plus `ggpzoo.ggp.server.GRACE` (1 s) is replaced by a random
legal move and recorded in [`GGPAgent.errors`][ggpzoo.ggp.remote.GGPAgent].

Turn-taking games only (one role chooses a move each step, as in the arena's envs).
"""

from __future__ import annotations

import time
import uuid

import numpy as np

from ggpzoo.agents.base import Agent, seeded_rng
from ggpzoo.ggp.player import post
from ggpzoo.ggp.protocol import ProtocolError, Spelling
from ggpzoo.ggp.server import GRACE, judge, parse_address

__all__ = ["GGPAgent"]


class GGPAgent(Agent):
    """A GGP player at ``address`` (``"HOST:PORT"``) playing one seat of arena games.

    Args:
        address: ``HOST:PORT`` of the player.
        start_clock, play_clock: the clocks sent with START (seconds).
        seed: seeds the random moves played for its errors.

    ``errors`` lists ``(game, turn, why)`` for every reply replaced by a random move. The
    arena calls `begin()`, `moved()` and `end()` around `act()` (see
    [`ggpzoo.tools.arena.play_game()`][ggpzoo.tools.arena.play_game]).
    """

    takes = "env"

    def __init__(self, address: str, start_clock: float = 10.0, play_clock: float = 1.0, seed: int | None = None):
        self.host, self.port = parse_address(address)
        for name, value in (("start_clock", start_clock), ("play_clock", play_clock)):
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 10**6:
                raise ValueError(f"{name} must be a positive number of seconds, got {value!r}")
        self.start_clock, self.play_clock = float(start_clock), float(play_clock)
        self.name = f"ggp:{self.host}:{self.port}"
        self.rng = seeded_rng(seed)
        self.errors: list[tuple[int, int, str]] = []
        self.games = 0
        self._sheets: dict = {}  # env name -> (game, text, seed map or None)
        self._match = None

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded_rng(seed)
        if self._match is not None:
            self._send(f"(ABORT {self._match['id']})")
            self._match = None

    # ------------------------------------------------------------------ the game's sheet
    def _sheet(self, raw):
        game = getattr(raw, "game", None)
        if game is not None:  # a GDL env
            return game, game.text, None
        name = raw.metadata["name"]
        if name not in self._sheets:
            from ggpzoo import gdl
            from ggpzoo.ggp.seeds import SEED_SHEETS, recognise

            if name not in SEED_SHEETS:
                raise ValueError(f"a ggp: agent plays GDL envs and {', '.join(SEED_SHEETS)}, not {name}")
            with open(gdl.game_path(SEED_SHEETS[name]), encoding="utf-8") as f:
                text = f.read()
            sheet = gdl.load(text)
            seed_map, why = recognise(sheet, text, deadline=time.perf_counter() + 60)
            if seed_map is None or seed_map.env != name:
                raise ValueError(f"ggpzoo's sheet of {name} does not translate to its kernel: {why}")
            self._sheets[name] = (sheet, text, seed_map)
        return self._sheets[name]

    def _send(self, message: str, timeout: float | None = None):
        try:
            return post(self.host, self.port, message, timeout=timeout or self.play_clock + GRACE), ""
        except TimeoutError as e:
            return None, str(e)
        except (OSError, ProtocolError) as e:
            return None, f"{type(e).__name__}: {e}"

    # ------------------------------------------------------------------ the arena's calls
    def begin(self, env, seat: str) -> None:
        """A new game of ``env`` starts, this agent playing ``seat``: send START."""
        raw = env.unwrapped
        game, text, seed_map = self._sheet(raw)
        if seed_map is not None:
            K = seed_map.kernel
            kernel = (np.zeros(K.H * K.W, np.int8), np.zeros(K.AUX_SIZE, np.int32))
            K.init(kernel[0], kernel[1], seed_map.variant)
            role = seed_map.sheet_role(list(raw.possible_agents).index(seat))
        else:
            kernel, role = None, game.roles.index(seat)
        spelling = Spelling(text)
        self.games += 1
        match_id = f"arena.{uuid.uuid4().hex[:12]}"
        self._match = m = {
            "id": match_id,
            "game": game,
            "map": seed_map,
            "kernel": kernel,
            "role": role,
            "seat": seat,
            "spelling": spelling,
            "state": game.initial_state(),
            "previous": "NIL",
            "turn": 0,
        }
        reply, err = self._send(
            f"(START {match_id} {spelling.text(game.roles[role])} ({text}) {self.start_clock:g} {self.play_clock:g})",
            self.start_clock + GRACE,
        )
        if reply is None and err.startswith(("ConnectionRefusedError", "OSError", "gaierror")):
            self._match = None
            raise OSError(f"cannot reach the GGP player {self.host}:{self.port} ({err})")
        if raw.agent_selection != seat and not raw.is_game_over():
            self._play(m)  # its noop

    def _play(self, m) -> tuple[str | None, str, float]:
        t0 = time.perf_counter()
        reply, err = self._send(f"(PLAY {m['id']} {m['previous']})")
        return reply, err, time.perf_counter() - t0

    def act(self, env) -> int:
        """Ask the player for its move (PLAY); a bad, unreadable or late reply: a random legal move."""
        m = self._match
        raw = env.unwrapped
        if m is None or raw.agent_selection != m["seat"]:
            raise RuntimeError("the ggp: agent acts in arena games only (play_game calls begin() first)")
        game = m["game"]
        legal = game.legal(m["state"], game.roles[m["role"]])
        reply, err, seconds = self._play(m)
        move = None
        if reply is not None:
            move, err = judge(reply, legal, m["spelling"])
            if move is not None and seconds > self.play_clock + GRACE:
                move, err = None, f"late: {seconds:.2f} s"
        if move is None:
            move = legal[int(self.rng.integers(len(legal)))]
            self.errors.append((self.games, m["turn"], err or "no move"))
        if m["map"] is not None:
            action = m["map"].action(move, m["kernel"][1])
        else:
            action = game.action_ids[game.roles[m["role"]]][move]
        return int(action)

    def moved(self, env, seat: str, action: int) -> None:
        """``seat`` played ``action`` (already stepped): track the sheet's state; ask the
        player for its noop if the next turn is the other seat's; STOP at the end."""
        m = self._match
        if m is None:
            return
        raw = env.unwrapped
        game, seed_map = m["game"], m["map"]
        if seed_map is not None:
            board, aux = m["kernel"]
            mover = seed_map.sheet_role(int(aux[0]))
            term = seed_map.term(int(action), aux)
            seed_map.kernel.apply(board, aux, int(action))
        else:
            mover = game.roles.index(seat)
            term = game.actions[seat][int(action)]
        joint = []
        for i, r in enumerate(game.roles):
            if i == mover:
                joint.append(term)
                continue
            others = game.legal(m["state"], r)
            if len(others) != 1:
                raise ValueError("a ggp: agent plays turn-taking games only (one role chooses each step)")
            joint.append(others[0])
        self._track(m, joint)
        # Joint moves where no role has a choice: the env played them by itself, a game server
        # asks for each (the player answers its one move).
        while seed_map is None and not game.is_terminal(m["state"]):
            moves = [game.legal(m["state"], r) for r in game.roles]
            if any(len(x) != 1 for x in moves):
                break
            self._play(m)
            self._track(m, [x[0] for x in moves])
        if raw.is_game_over():
            self.end(env)
        elif raw.agent_selection != m["seat"]:
            self._play(m)  # its noop

    @staticmethod
    def _track(m, joint) -> None:
        """The sheet's state after ``joint``, and the joint move as the next PLAY or STOP sends it."""
        game = m["game"]
        m["state"] = game.next_state(m["state"], dict(zip(game.roles, joint, strict=True)))
        m["previous"] = "(" + " ".join(m["spelling"].text(t) for t in joint) + ")"
        m["turn"] += 1

    def end(self, env) -> None:
        """The game is over: STOP with the last joint move."""
        m = self._match
        if m is not None:
            self._send(f"(STOP {m['id']} {m['previous']})")
            self._match = None
