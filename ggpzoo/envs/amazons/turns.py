"""The Amazons turn decomposition: each ``amazons_v0`` turn as three cell choices.

[`AmazonsTurnDecomposition`][ggpzoo.envs.amazons.turns.AmazonsTurnDecomposition] is this game's ``decomposition`` in its
spec; it is also importable as ``ggpzoo.wrappers.AmazonsTurnDecomposition``. Moved here from
``ggpzoo.wrappers.turns`` in 0.3.0.

>>> from ggpzoo.envs import amazons_v0
>>> env = AmazonsTurnDecomposition(amazons_v0.env())
>>> env.reset()
>>> env.action_space("white")
Discrete(100)
"""

from __future__ import annotations

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from ggpzoo.engine.turns import action_cells
from ggpzoo.envs.amazons import kernel as K
from ggpzoo.envs.base import cell_str
from ggpzoo.wrappers.accounting import InvalidWrapperArgument
from ggpzoo.wrappers.features import ReachPlanes
from ggpzoo.wrappers.shaping import PotentialShaping
from ggpzoo.wrappers.turns import TurnDecomposition, _game_name

__all__ = ["AmazonsTurnDecomposition"]


class AmazonsTurnDecomposition(TurnDecomposition):
    """Each amazons_v0 turn as three masked ``Discrete(100)`` choices: queen, destination, arrow.

    Actions are cells ``c = (y - 1) * 10 + (x - 1)``. The agent in control stays selected
    for its three choices; the game moves (and the wrapped env steps) on the arrow, when
    the whole turn ``(queen, destination, arrow)`` is played as one amazons_v0 action.

    Observation: the wrapped env's planes (own queens, opponent queens, arrows), then
    plane 3 marking the chosen queen and plane 4 the chosen destination (empty until
    chosen; every agent sees them). The stage is what is marked: nothing at the queen
    stage, the queen at the destination stage, both at the arrow stage. At the arrow stage
    the board planes show the queen already on its destination, as the arrow will see the
    board (and as amazons_split_v0 shows its fire step); so do the planes of a
    [`ReachPlanes`][ggpzoo.wrappers.ReachPlanes] inside this wrapper. ``action_mask`` allows
    exactly the cells that complete to at least one legal turn.

    Rewards: 0 for the first two choices; the third passes on the wrapped env's rewards of
    the turn. With a [`PotentialShaping`][ggpzoo.wrappers.PotentialShaping] inside, the destination
    already pays the shaping of the queen's move (the potential of the board with the queen
    moved, minus the potential before), and the arrow the rest of the turn's rewards, so
    the turn pays the same in all. An illegal choice raises ``ValueError`` saying why, and
    changes nothing.

    Args:
        env: ``amazons_v0.env()`` or ``amazons_v0.raw_env()``, possibly inside reward,
            shaping and [`ReachPlanes`][ggpzoo.wrappers.ReachPlanes] wrappers.
    """

    STAGES = ("queen", "destination", "arrow")
    num_actions = K.N

    def __init__(self, env: AECEnv):
        if not isinstance(env, AECEnv):
            raise InvalidWrapperArgument(f"{type(self).__name__} wraps a PettingZoo AEC env, got {type(env).__name__}")
        name = _game_name(env)
        if name != "amazons_v0":
            raise InvalidWrapperArgument(f"AmazonsTurnDecomposition decomposes amazons_v0 turns, got the env {name!r}")
        n = getattr(env.action_space(env.possible_agents[0]), "n", None)
        if n != K.NUM_ACTIONS_AMAZONS:
            raise InvalidWrapperArgument(
                f"AmazonsTurnDecomposition needs amazons_v0's Discrete({K.NUM_ACTIONS_AMAZONS}) turns, "
                f"the wrapped env's actions are {env.action_space(env.possible_agents[0])}"
            )
        super().__init__(env, K.N)
        self._reach_at = None  # the first plane of a ReachPlanes inside, redrawn at the arrow stage
        self._shaping = None  # a PotentialShaping inside: it also pays the queen's move
        self._paid: dict[str, float] = {}
        inner = env
        while isinstance(inner, BaseWrapper):
            if isinstance(inner, ReachPlanes) and self._reach_at is None:
                self._reach_at = inner.first_plane
            if isinstance(inner, PotentialShaping) and self._shaping is None:
                self._shaping = inner
            inner = inner.env

    def observe(self, agent):
        obs = super().observe(agent)
        if self.stage == 2:
            self._show_moved(agent, obs["observation"])
        return obs

    def _moved(self) -> tuple[np.ndarray, np.ndarray]:
        """The state ``(board, aux)`` with the chosen queen on its destination (no arrow yet)."""
        board, aux = self.env.unwrapped.get_state()
        view = np.empty_like(board)
        K.stage_board(board, self._chosen_array(), self.stage, view)  # the batched env's view too
        return view, aux

    def _begin(self, rewards=None) -> None:
        self._paid = {}
        super()._begin(rewards)

    def _choice_rewards(self):
        """With a `PotentialShaping` inside, the destination pays the
        potential's change from the queen's move, and the arrow (`_action_rewards()`) the
        rest of the turn's: the turn pays what it paid, the queen's part one choice earlier."""
        if self._shaping is None or self.stage != 2:
            return {}
        value = float(self._shaping.potential(*self._moved()))
        first = self.possible_agents[0]
        now = self._shaping.potentials()
        w = self._shaping.weight
        self._paid = {a: w * ((value if a == first else 0.0 - value) - now.get(a, 0.0)) for a in self.env.agents}
        return self._paid

    def _action_rewards(self, rewards):
        paid, self._paid = self._paid, {}
        return {a: r - paid.get(a, 0.0) for a, r in rewards.items()}

    def _show_moved(self, agent, planes: np.ndarray) -> None:
        """Redraw the board planes (and reach planes) with the chosen queen on its destination."""
        board, aux = self._moved()
        role = self.possible_agents.index(agent)
        K.observe(board, aux, role, planes[:, :, :3])
        if self._reach_at is not None:
            K.reach_planes(board, role, planes[:, :, self._reach_at : self._reach_at + 2])

    @property
    def queen(self) -> int | None:
        """The cell of the queen chosen this turn, or None."""
        return self._chosen[0] if self.stage > 0 else None

    @property
    def destination(self) -> int | None:
        """The cell of the destination chosen this turn, or None."""
        return self._chosen[1] if self.stage > 1 else None

    @staticmethod
    def turn_steps(turn: int) -> tuple[int, int, int]:
        """The three cells ``(queen, destination, arrow)`` that play amazons_v0 action ``turn``."""
        src, dst, arrow = K.DECODE[turn]
        return int(src), int(dst), int(arrow)

    def _split(self, ids):
        return action_cells("amazons_v0")[ids]

    def _why_not(self, agent, stage):
        if stage == 0:
            return f"no {agent} queen with a legal turn stands there"
        if stage == 1:
            return f"the queen at {cell_str(self._chosen[0], K.W)} cannot move there"
        return (
            f"no arrow from {cell_str(self._chosen[1], K.W)} can land there after the queen "
            f"moved from {cell_str(self._chosen[0], K.W)}"
        )
