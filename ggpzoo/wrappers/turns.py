"""Turn decomposition: one game action as a few small masked cell choices.

* :class:`AmazonsTurnDecomposition` - each turn of ``amazons_v0`` (one action of
  ``Discrete(86980)``) becomes three actions of ``Discrete(100)`` by the same agent: the
  queen's cell, its destination, the arrow's cell.
* :class:`MoveDecomposition` - each from/to action ``src * cells + dst`` of
  ``amazons_split_v0``, ``mad_bishops_v0``, ``skirmish_v0`` and ``skirmish_endgame_v0``
  becomes two actions of ``Discrete(cells)``: the source cell, then the destination. A
  source choice with one option (the fire step of ``amazons_split_v0``, a lone piece that
  can move) is made by the wrapper.

Both share :class:`TurnDecomposition`: each choice is masked to the cells that some legal
action still allows, and the choices made are marked in the observation.

A policy with a 100-way head learns far more easily than one with a 10,000-way or
86,980-way head: the choices share the board features, and the masks rule out every
illegal combination, so each legal action stays reachable and no illegal one is.

>>> from ggpzoo.envs import amazons_v0
>>> env = AmazonsTurnDecomposition(amazons_v0.env())
>>> env.reset()
>>> env.stage, int(env.last()[0]["action_mask"].sum())   # 4 white queens to choose from
(0, 4)
>>> env.step(3)                                           # the queen on (4,1) = cell 3
>>> env.agent_selection, env.stage
('white', 1)

Change log: added in 0.1.0 (``AmazonsTurnDecomposition``); ``MoveDecomposition`` and the
shared base in 0.2.0.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from ggpzoo.envs.amazons import kernel as K
from ggpzoo.envs.base import cell_str, integer_id
from ggpzoo.wrappers.accounting import InvalidWrapperArgument, RewardAccounting
from ggpzoo.wrappers.features import ReachPlanes
from ggpzoo.wrappers.shaping import PotentialShaping

__all__ = ["TurnDecomposition", "AmazonsTurnDecomposition", "MoveDecomposition"]


class TurnDecomposition(RewardAccounting):
    """Base: each action of the wrapped env as ``len(STAGES)`` masked ``Discrete(cells)`` choices.

    The agent in control stays selected for all its choices; the wrapped env steps on the
    last one, with the one legal action that agrees with every choice. Subclasses set
    ``STAGES`` (the choices' names) and implement :meth:`_split` (action ids to their cells)
    and :meth:`_why_not` (why a cell is no legal choice).

    Observation: the wrapped env's planes, then one plane per choice but the last, marking
    the cell chosen (empty until chosen; every agent sees them). ``action_mask`` allows
    exactly the cells that complete to at least one legal action. Rewards: 0 for every
    choice but the last, which passes on the wrapped env's rewards of the action. An illegal
    choice raises ``ValueError`` saying why, and changes nothing.
    """

    STAGES: tuple[str, ...]
    skip_forced = False  # make a choice (but the last) that has one option without asking

    def __init__(self, env: AECEnv, cells: int):
        super().__init__(env)
        self.cells = cells
        inner = env.observation_space(env.possible_agents[0])["observation"]
        h, w, self._planes = inner.shape
        # The wrapped planes' dtype (float32 in the Skirmish games: step and capture planes), int8 at least.
        self._dtype = np.result_type(inner.dtype, np.int8)
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (h, w, self._planes + len(self.STAGES) - 1), self._dtype),
                "action_mask": spaces.Box(0, 1, (cells,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in env.possible_agents}
        self.action_spaces = {a: spaces.Discrete(cells) for a in env.possible_agents}
        self._number = 0
        self._clear_turn()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    def _split(self, ids: np.ndarray) -> np.ndarray:
        """The cells ``(len(ids), len(STAGES))`` that play the wrapped env's actions ``ids``."""
        raise NotImplementedError

    def _why_not(self, agent: str, stage: int) -> str:
        """Why no legal action goes through the cell just refused at ``stage``."""
        raise NotImplementedError

    # ------------------------------------------------------------------ the partial turn
    @property
    def stage(self) -> int:
        """The index in ``STAGES`` of what the next action chooses."""
        return len(self._chosen)

    @property
    def turn_number(self) -> int:
        """How many actions of the wrapped env were played since the last reset."""
        return self._number

    @property
    def chosen(self) -> tuple[int, ...]:
        """The cells chosen so far in this action."""
        return tuple(self._chosen)

    def legal_turns(self) -> np.ndarray:
        """The wrapped env's action ids still open: legal now and agreeing with the choices made."""
        return self._turns()[0][self._agreeing()]

    def turn_steps(self, turn: int) -> tuple[int, ...]:
        """The cells, one per stage, that play the wrapped env's action ``turn``."""
        return tuple(int(c) for c in self._split(np.array([turn], np.int64))[0])

    def legal_actions(self) -> np.ndarray:
        """The cells the selected agent may choose now, ascending (empty once the game is over)."""
        return np.flatnonzero(self._stage_mask()) if self._live(self.env.agent_selection) else np.zeros(0, np.int64)

    def _clear_turn(self) -> None:
        self._chosen: list[int] = []
        self._ids = self._parts = None  # the legal actions, read from the wrapped env once per action

    def _turns(self) -> tuple[np.ndarray, np.ndarray]:
        if self._ids is None:
            legal = getattr(self.env, "legal_actions", None)  # a ggpzoo env's public list: no big-mask scan
            if callable(legal):
                self._ids = np.asarray(legal(), np.int64)
            else:
                self._ids = np.flatnonzero(self.env.observe(self.env.agent_selection)["action_mask"])
            self._parts = self._split(self._ids)
        return self._ids, self._parts

    def _agreeing(self) -> np.ndarray:
        parts = self._turns()[1]
        keep = np.ones(len(parts), bool)
        for i, c in enumerate(self._chosen):
            keep &= parts[:, i] == c
        return keep

    def _stage_mask(self) -> np.ndarray:
        mask = np.zeros(self.cells, np.int8)
        mask[self._turns()[1][self._agreeing(), self.stage]] = 1
        return mask

    def _live(self, agent) -> bool:
        env = self.env
        return (
            bool(env.agents)
            and agent == env.agent_selection
            and not (env.terminations.get(agent, True) or env.truncations.get(agent, True))
        )

    def _new_turn(self) -> None:
        self._clear_turn()
        if self.skip_forced and self._live(self.env.agent_selection):
            while self.stage < len(self.STAGES) - 1:
                options = np.flatnonzero(self._stage_mask())
                if len(options) != 1:
                    break
                self._chosen.append(int(options[0]))

    # ------------------------------------------------------------------ AEC API
    def _begin(self, rewards=None) -> None:
        self._number = 0
        self._new_turn()
        super()._begin(dict(self.env.rewards))

    def observe(self, agent):
        inner = self.env.observe(agent)
        h, w, _ = inner["observation"].shape
        obs = np.zeros((h, w, self._planes + len(self.STAGES) - 1), self._dtype)
        obs[:, :, : self._planes] = inner["observation"]
        for i, c in enumerate(self._chosen):
            obs[c // w, c % w, self._planes + i] = 1
        mask = self._stage_mask() if self._live(agent) else np.zeros(self.cells, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action) -> None:
        if self._step_dead_or_over(action):
            self._clear_turn()
            return
        env = self.env
        agent = env.agent_selection
        c = self._check(agent, action)
        self._chosen.append(c)
        if self.stage < len(self.STAGES):
            self._pay(agent, self._choice_rewards())
            return
        (turn,) = self.legal_turns()
        env.step(int(turn))
        self._number += 1
        self._new_turn()
        self._pay(agent, self._action_rewards(env.rewards))

    def _choice_rewards(self) -> dict[str, float]:
        """The rewards of a choice that is not the last (default: none)."""
        return {}

    def _action_rewards(self, rewards: dict[str, float]) -> dict[str, float]:
        """The rewards of the last choice, from the wrapped env's ``rewards`` of the action."""
        return rewards

    def _check(self, agent: str, action) -> int:
        """``action`` as a cell if it is a legal choice now, else a ValueError saying why."""
        c = integer_id(action, self.cells, "cell id")
        if not self._stage_mask()[c]:
            w = self.env.observation_space(agent)["observation"].shape[1]
            raise ValueError(
                f"action {c} = {cell_str(c, w)} is illegal as {agent}'s {self.STAGES[self.stage]}: "
                f"{self._why_not(agent, self.stage)}"
            )
        return c


def _game_name(env: AECEnv) -> str | None:
    return getattr(getattr(env, "unwrapped", None), "metadata", {}).get("name")


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
    :class:`~ggpzoo.wrappers.ReachPlanes` inside this wrapper. ``action_mask`` allows
    exactly the cells that complete to at least one legal turn.

    Rewards: 0 for the first two choices; the third passes on the wrapped env's rewards of
    the turn. With a :class:`~ggpzoo.wrappers.PotentialShaping` inside, the destination
    already pays the shaping of the queen's move (the potential of the board with the queen
    moved, minus the potential before), and the arrow the rest of the turn's rewards, so
    the turn pays the same in all. An illegal choice raises ``ValueError`` saying why, and
    changes nothing.

    Args:
        env: ``amazons_v0.env()`` or ``amazons_v0.raw_env()``, possibly inside reward,
            shaping and :class:`~ggpzoo.wrappers.ReachPlanes` wrappers.
    """

    STAGES = ("queen", "destination", "arrow")
    num_actions = K.N

    def __init__(self, env: AECEnv):
        if not isinstance(env, AECEnv):
            raise InvalidWrapperArgument(f"{type(self).__name__} wraps a PettingZoo AEC env, got {type(env).__name__}")
        name = _game_name(env)
        if name != "amazons_v0":
            raise InvalidWrapperArgument(
                f"AmazonsTurnDecomposition decomposes amazons_v0 turns, got the env {name!r}"
            )
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
        queen, destination = self._chosen
        board[destination], board[queen] = board[queen], K.EMPTY
        return board, aux

    def _begin(self, rewards=None) -> None:
        self._paid = {}
        super()._begin(rewards)

    def _choice_rewards(self):
        """With a :class:`~ggpzoo.wrappers.PotentialShaping` inside, the destination pays the
        potential's change from the queen's move, and the arrow (:meth:`_action_rewards`) the
        rest of the turn's: the turn pays what it paid, the queen's part one choice earlier."""
        if self._shaping is None or self.stage != 2:
            return {}
        value = float(self._shaping.potential(*self._moved()))
        first = self.possible_agents[0]
        now = self._shaping.potentials()
        self._paid = {
            a: self._shaping.weight * ((value if a == first else -value) - now.get(a, 0.0)) for a in self.env.agents
        }
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
        return K.DECODE[ids].astype(np.int64)

    def _why_not(self, agent, stage):
        if stage == 0:
            return f"no {agent} queen with a legal turn stands there"
        if stage == 1:
            return f"the queen at {cell_str(self._chosen[0], K.W)} cannot move there"
        return (
            f"no arrow from {cell_str(self._chosen[1], K.W)} can land there after the queen "
            f"moved from {cell_str(self._chosen[0], K.W)}"
        )


class MoveDecomposition(TurnDecomposition):
    """Each from/to action ``src * cells + dst`` as two masked ``Discrete(cells)`` choices.

    For the ggpzoo envs whose actions are from/to pairs: ``amazons_split_v0``,
    ``mad_bishops_v0``, ``skirmish_v0``, ``skirmish_endgame_v0``. The first choice is the
    source cell (the piece to move; in ``amazons_split_v0``'s fire step, the queen that
    fires), the second the destination (in the fire step, the arrow's cell). When every
    legal action starts from one cell, the wrapper makes the source choice itself and the
    agent only chooses the destination, so ``stage`` is 1 at the agent's first choice
    (always so in ``amazons_split_v0``'s fire step).

    Observation: the wrapped env's planes, then one plane marking the chosen source (empty
    until chosen). Rewards: 0 for the source choice; the destination passes on the wrapped
    env's rewards of the action.

    Args:
        env: one of those envs (``env()`` or ``raw_env``), possibly inside reward wrappers.
    """

    STAGES = ("source", "destination")
    skip_forced = True

    def __init__(self, env: AECEnv):
        if not isinstance(env, AECEnv):
            raise InvalidWrapperArgument(f"{type(self).__name__} wraps a PettingZoo AEC env, got {type(env).__name__}")
        inner = env.observation_space(env.possible_agents[0])["observation"]
        cells = inner.shape[0] * inner.shape[1]
        n = getattr(env.action_space(env.possible_agents[0]), "n", None)
        if n != cells * cells:
            raise InvalidWrapperArgument(
                f"MoveDecomposition decomposes from/to actions src * {cells} + dst, Discrete({cells * cells}); "
                f"the env {_game_name(env)!r} has {env.action_space(env.possible_agents[0])}"
                + (" (use AmazonsTurnDecomposition)" if _game_name(env) == "amazons_v0" else "")
            )
        super().__init__(env, cells)

    @property
    def source(self) -> int | None:
        """The cell chosen (or forced) as this action's source, or None."""
        return self._chosen[0] if self.stage > 0 else None

    def _split(self, ids):
        return np.stack([ids // self.cells, ids % self.cells], axis=1)

    def _why_not(self, agent, stage):
        w = self.env.observation_space(agent)["observation"].shape[1]
        if stage == 0:
            return f"no legal {agent} action starts there"
        return f"no legal {agent} action goes there from {cell_str(self._chosen[0], w)}"
