"""Potential-based reward shaping: a dense training signal that leaves each game's return as it was.

* [`PotentialShaping`][ggpzoo.wrappers.shaping.PotentialShaping] - after every step, each agent also gets
  ``weight * (phi(after) - phi(before))``, where ``phi`` is the agent's potential: a
  heuristic in [-1, 1] of how well the game goes for it. The potential of a state where the
  game ended by the rules is 0, so the shaping rewards of a whole game sum to 0 for each
  agent: a game's return is the wrapped env's, and the shaping only moves credit to the moves
  that earned it (Ng, Harada and Russell, 1999: potential-based shaping keeps the optimal
  policies against any fixed opponent).

Default potentials: each game spec's ``potential`` ([`POTENTIALS`][ggpzoo.wrappers.shaping.POTENTIALS] lists them), from
white's side (black's is the negative):

* ``amazons_v0``, ``amazons_split_v0``: mobility, ``(Mw - Mb) / (Mw + Mb)`` where ``M`` is the
  number of empty cells a side's queens reach in one queen move
  (`ggpzoo.envs.amazons.spec.mobility_balance()`): the side that runs out of moves loses.
* ``mad_bishops_v0``: material, ``(Nw - Nb) / (Nw + Nb)`` over the pieces on the board
  (`ggpzoo.envs.mad_bishops.spec.material_balance()`): the side that loses its last
  piece loses.

The Skirmish games need none: their goals count captures, and
[`GoalDeltaReward`][ggpzoo.wrappers.GoalDeltaReward] pays each at once.

>>> from ggpzoo.envs import mad_bishops_v0
>>> env = PotentialShaping(mad_bishops_v0.env(), weight=1.0)
>>> env.reset()
>>> env.step(env.unwrapped.encode_action((1, 1), (2, 2)))   # white captures on b2
>>> round(env.rewards["white"], 4), round(env.rewards["black"], 4)
(0.0204, -0.0204)

Change log: added in 0.2.0; in 0.3.0 the defaults moved to the game specs
(``amazons_mobility`` is ``mobility_balance``, ``mad_bishops_material`` ``material_balance``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from pettingzoo import AECEnv

from ggpzoo.envs import SPECS
from ggpzoo.wrappers.accounting import InvalidWrapperArgument, RewardAccounting

__all__ = ["PotentialShaping", "POTENTIALS"]

Potential = Callable[[np.ndarray, np.ndarray], float]


POTENTIALS: dict[str, Potential] = {name: s.potential for name, s in SPECS.items() if s.potential is not None}
"""The default potential of each game that has one (its spec's ``potential``):
``fn(board, aux) -> white's value in [-1, 1]``."""


class PotentialShaping(RewardAccounting):
    """Adds ``weight * (phi(after) - phi(before))`` to each agent's reward of every step.

    ``phi`` is the agent's potential: ``potential(board, aux)`` of the game state for the
    first agent (white), its negative for the second, and 0 once the game has ended by the
    rules (every agent terminated, none truncated). So each agent's shaping rewards over a
    whole game sum to 0 (a game cut off by ``max_steps`` keeps ``weight * phi`` of its last
    state), and a game's return is what the wrapped env pays. Wrap a reward wrapper (e.g.
    [`WinLossReward`][ggpzoo.wrappers.WinLossReward]) or ``env()`` itself; the rewards of the wrapped
    env pass through, with the shaping added.

    Args:
        env: a ggpzoo env (``env()`` or ``raw_env``), possibly inside other wrappers; the
            game state is read with ``env.unwrapped.get_state()``.
        potential: ``fn(board, aux) -> float`` in [-1, 1] from white's side; default: the
            game spec's ``potential``.
        weight: the scale of the shaping rewards; 0 turns shaping off.
    """

    def __init__(self, env: AECEnv, potential: Potential | None = None, weight: float = 1.0):
        super().__init__(env)
        name = getattr(env.unwrapped, "metadata", {}).get("name")
        if potential is None:
            game = getattr(env.unwrapped, "game_spec", None)
            if game is None or game.potential is None:
                raise InvalidWrapperArgument(
                    f"no default potential for the env {name!r} (defaults: {', '.join(POTENTIALS)}); pass potential="
                )
            potential = game.potential
        if not callable(potential):
            raise InvalidWrapperArgument(f"potential must be a function (board, aux) -> float, got {potential!r}")
        if not callable(getattr(env.unwrapped, "get_state", None)):
            raise InvalidWrapperArgument(f"PotentialShaping reads a ggpzoo env's get_state(); {name!r} has none")
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not np.isfinite(weight):
            raise InvalidWrapperArgument(f"weight must be a finite number, got {weight!r}")
        self.potential = potential
        self.weight = float(weight)
        self._phi: dict[str, float] = {}

    def potentials(self) -> dict[str, float]:
        """Each live agent's potential now (0 for all once the game has ended by the rules)."""
        env = self.env
        if not env.agents or (all(env.terminations.values()) and not any(env.truncations.values())):
            return {a: 0.0 for a in env.agents}
        value = float(self.potential(*env.unwrapped.get_state()))
        first = env.possible_agents[0]
        return {a: value if a == first else 0.0 - value for a in env.agents}  # 0.0 - v: never -0.0

    def _begin(self, rewards=None) -> None:
        self._phi = self.potentials()
        super()._begin(dict(self.env.rewards))

    def step(self, action) -> None:
        agent = self._step_live(action)
        if agent is None:
            return
        env = self.env
        before, self._phi = self._phi, self.potentials()
        rewards = {a: env.rewards.get(a, 0.0) + self.weight * (self._phi[a] - before.get(a, 0.0)) for a in env.agents}
        self._pay(agent, rewards)
