"""The reference opponents of GGP matches, and the state machine the player tracks a match on.

* [`LegalAgent`][ggpzoo.ggp.agents.LegalAgent]: the first legal move (in the game's term order), or with
  ``random=True`` a uniformly random one: the plain legal player of GGP courses.
* [`MonteCarloAgent`][ggpzoo.ggp.agents.MonteCarloAgent]: the algorithm of ggp-base's sample Monte Carlo player: for
  each
  legal move in turn, a random *depth charge* (that move, the other roles' moves at random,
  then random joint moves to the end of the game) until the time is up; play the move with
  the best average goal. No tree: the usual first opponent of a GGP player.

Both play on a [`Machine`][ggpzoo.ggp.agents.Machine], the compiled network (action ids) or the exact reasoner
(terms), so they play any sheet. They are agents (``agent(state, role)``; ``takes =
"state"``) and the player's ``--agent legal``, ``--agent random``, ``--agent mc``.

>>> from ggpzoo import gdl
>>> m = Machine(gdl.load(gdl.game_path("tictactoe")), "compiled")
>>> s = m.initial()
>>> m.text(0, MonteCarloAgent(m, seconds=0.05, seed=0).choose(s, 0, None)).startswith("(mark")
True
"""

from __future__ import annotations

import time

import numpy as np

from ggpzoo.agents.base import Agent, seeded_rng
from ggpzoo.gdl.syntax import to_text

__all__ = ["LegalAgent", "Machine", "MonteCarloAgent", "MAX_DEPTH_CHARGE"]

MAX_DEPTH_CHARGE = 10_000  # joint moves in one depth charge before it is scored where it stands


class Machine:
    """A game's rules as the player uses them: ``backend`` ``"compiled"`` (states are the
    network's ``uint8`` vectors, moves action ids) or ``"exact"`` (states are frozensets of
    fluents, moves terms; no grounding needed). A state is over when the sheet says
    ``terminal`` or a role has no legal move (as in the env)."""

    def __init__(self, game, backend: str):
        self.game = game
        self.roles = list(game.roles)
        self.backend = backend
        if backend == "compiled":
            self._m = game.machine("compiled")
        elif backend != "exact":
            raise ValueError(f"backend must be 'compiled' or 'exact', got {backend!r}")

    def initial(self):
        return self._m.initial() if self.backend == "compiled" else self.game.initial_state()

    def legal(self, state) -> list[list]:
        """Each role's legal moves (action ids, or terms), in the game's order."""
        if self.backend == "compiled":
            return [[int(i) for i in ids] for ids in self._m.legal(state)]
        return [self.game.legal(state, r) for r in self.roles]

    def over(self, state) -> bool:
        if self.backend == "compiled":
            return self._m.terminal(state) or any(len(x) == 0 for x in self._m.legal(state))
        return self.game.is_terminal(state) or any(not self.game.legal(state, r) for r in self.roles)

    def goals(self, state) -> list[int]:
        if self.backend == "compiled":
            return [int(g) for g in self._m.goals(state)]
        g = self.game.goals(state)
        return [g[r] for r in self.roles]

    def next(self, state, joint: list):
        if self.backend == "compiled":
            return self._m.next(state, np.array(joint, np.int64))
        return self.game.next_state(state, dict(zip(self.roles, joint, strict=True)))

    def move(self, role: int, term):
        """The machine's move for a game term; KeyError if it is not in the role's action space."""
        if self.backend == "compiled":
            return self.game.action_ids[self.roles[role]][term]
        return term

    def term(self, role: int, move):
        return self.game.actions[self.roles[role]][move] if self.backend == "compiled" else move

    def text(self, role: int, move) -> str:
        return to_text(self.term(role, move))

    def fluents(self, state) -> frozenset:
        return self._m.fluents(state) if self.backend == "compiled" else state


class _MachineAgent(Agent):
    takes = "state"

    def __init__(self, machine, seconds: float | None = None, seed: int | None = None):
        if not isinstance(machine, Machine):
            machine = Machine(machine, "compiled")
        if seconds is not None and not (isinstance(seconds, (int, float)) and seconds > 0):
            raise ValueError(f"seconds must be a positive number, got {seconds!r}")
        self.machine = machine
        self.seconds = seconds
        self.rng = seeded_rng(seed)
        self.last_search: dict = {}

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded_rng(seed)

    def __call__(self, state, role: str | None = None):
        """The move (action id or term, as the machine's) of ``role`` (default: the one role with a choice)."""
        legal = self.machine.legal(state)
        if role is None:
            choosers = [i for i, m in enumerate(legal) if len(m) > 1]
            if len(choosers) != 1:
                raise ValueError("pass role=: no role or several roles choose here")
            ri = choosers[0]
        else:
            ri = self.machine.roles.index(role)
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        return self.choose(state, ri, deadline)

    def choose(self, state, role: int, deadline: float | None):
        """The move of role index ``role`` in ``state``, answered by ``deadline`` (``time.perf_counter()``)."""
        raise NotImplementedError


class LegalAgent(_MachineAgent):
    """The first legal move, or (``random=True``) a uniformly random legal move."""

    def __init__(self, machine, random: bool = False, seed: int | None = None):
        super().__init__(machine, None, seed)
        self.random = random
        self.name = "random" if random else "legal"

    def choose(self, state, role: int, deadline: float | None):
        moves = self.machine.legal(state)[role]
        if not moves:
            raise ValueError("no legal move: the game is over")
        self.last_search = {"simulations": 0, "legal": len(moves)}
        return moves[int(self.rng.integers(len(moves)))] if self.random else moves[0]


class MonteCarloAgent(_MachineAgent):
    """ggp-base's sample Monte Carlo player (see the module docstring): depth charges for each
    legal move in turn until ``deadline`` (or for ``seconds`` when called as an agent, default
    1 s), then the move with the best average goal for its role (ties: the first)."""

    def __init__(self, machine, seconds: float | None = 1.0, seed: int | None = None):
        super().__init__(machine, seconds, seed)
        self.name = "mc"
        self.stop = None  # a function of no arguments: true ends the search early, as the deadline does

    def _charge(self, state, role: int, move, deadline: float | None):
        """One depth charge after ``move``: role ``role``'s goal, or None if the deadline passed."""
        m, rng = self.machine, self.rng
        legal = m.legal(state)
        joint = [x[int(rng.integers(len(x)))] for x in legal]
        joint[role] = move
        s = m.next(state, joint)
        for _ in range(MAX_DEPTH_CHARGE):
            if deadline is not None and time.perf_counter() >= deadline or self.stop is not None and self.stop():
                return None
            legal = m.legal(s)
            if any(len(x) == 0 for x in legal) or m.over(s):
                break
            s = m.next(s, [x[int(rng.integers(len(x)))] for x in legal])
        return m.goals(s)[role]

    def choose(self, state, role: int, deadline: float | None):
        t0 = time.perf_counter()
        moves = self.machine.legal(state)[role]
        if not moves:
            raise ValueError("no legal move: the game is over")
        total = [0] * len(moves)
        tries = [0] * len(moves)
        charges = 0
        if len(moves) > 1:
            if deadline is None:
                deadline = t0 + (self.seconds or 1.0)
            i = 0
            while time.perf_counter() < deadline:
                got = self._charge(state, role, moves[i], deadline)
                if got is None:
                    break
                total[i] += got
                tries[i] += 1
                charges += 1
                i = (i + 1) % len(moves)
        mean = [t / n if n else -1.0 for t, n in zip(total, tries, strict=True)]
        best = max(range(len(moves)), key=lambda j: (mean[j], -j))
        self.last_search = {
            "simulations": charges,
            "seconds": time.perf_counter() - t0,
            "legal": len(moves),
            "value": mean[best] / 100.0 if tries[best] else None,
        }
        return moves[best]
