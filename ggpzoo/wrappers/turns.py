"""Turn decomposition: one game action as a few small masked cell choices.

* [`MoveDecomposition`][ggpzoo.wrappers.turns.MoveDecomposition] - each from/to action ``src * cells + dst`` of
  ``amazons_split_v0``, ``mad_bishops_v0``, ``skirmish_v0`` and ``skirmish_endgame_v0``
  becomes two actions of ``Discrete(cells)``: the source cell, then the destination. A
  source choice with one option (the fire step of ``amazons_split_v0``, a lone piece that
  can move) is made by the wrapper.

A game whose actions name other cells keeps its own subclass of
[`TurnDecomposition`][ggpzoo.wrappers.turns.TurnDecomposition] in its folder, named by its spec: ``amazons_v0``'s
``AmazonsTurnDecomposition`` ([`ggpzoo.envs.amazons.turns`][ggpzoo.envs.amazons.turns]) makes each turn (one action of
``Discrete(86980)``) three actions of ``Discrete(100)``: the queen's cell, its destination, the arrow's cell.
All share [`TurnDecomposition`][ggpzoo.wrappers.turns.TurnDecomposition]: each choice is masked to the cells that some
legal action still allows, and the choices made are marked in the observation.

A policy with a 100-way head learns far more easily than one with a 10,000-way or
86,980-way head: the choices share the board features, and the masks rule out every
illegal combination, so each legal action stays reachable and no illegal one is.

>>> from ggpzoo.envs import mad_bishops_v0
>>> env = MoveDecomposition(mad_bishops_v0.env())
>>> env.reset()
>>> env.stage, env.action_space("white")
(0, Discrete(100))
>>> env.step(0)                                           # the bishop on a1 = cell 0
>>> env.agent_selection, env.stage
('white', 1)

Change log: added in 0.1.0 (``AmazonsTurnDecomposition``); ``MoveDecomposition`` and the
shared base in 0.2.0; in 0.3.0 ``AmazonsTurnDecomposition`` moved to the game's folder.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ggpzoo.engine.turns import forced_choices, from_to_cells, stage_mask
from ggpzoo.envs.base import cell_str, integer_id
from ggpzoo.envs.gamespec import MOVE_DECOMPOSITION
from ggpzoo.wrappers.accounting import InvalidWrapperArgument, RewardAccounting

__all__ = ["TurnDecomposition", "MoveDecomposition"]


class TurnDecomposition(RewardAccounting):
    """Base: each action of the wrapped env as ``len(STAGES)`` masked ``Discrete(cells)`` choices.

    The agent in control stays selected for all its choices; the wrapped env steps on the
    last one, with the one legal action that agrees with every choice. Subclasses set
    ``STAGES`` (the choices' names) and implement `_split()` (action ids to their cells)
    and `_why_not()` (why a cell is no legal choice).

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

    def _chosen_array(self) -> np.ndarray:
        chosen = np.zeros(len(self.STAGES), np.int32)
        chosen[: self.stage] = self._chosen
        return chosen

    def _stage_mask(self) -> np.ndarray:
        """The cells open now (`ggpzoo.engine.turns.stage_mask()`, the batched env's rule too)."""
        parts = np.ascontiguousarray(self._turns()[1], np.int32)
        rows = np.arange(len(parts), dtype=np.int32)
        mask = np.zeros(self.cells, np.int8)
        stage_mask(parts, rows, len(rows), self._chosen_array(), self.stage, mask)
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
            parts = np.ascontiguousarray(self._turns()[1], np.int32)
            rows = np.arange(len(parts), dtype=np.int32)
            chosen = self._chosen_array()
            stage = forced_choices(parts, rows, len(rows), chosen, 0, len(self.STAGES))
            self._chosen = [int(c) for c in chosen[:stage]]

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


def _own_decomposition(env: AECEnv) -> str:
    """A hint naming the decomposition the env's spec gives, if it is not this one."""
    game = getattr(getattr(env, "unwrapped", None), "game_spec", None)
    if game is None or game.decomposition in (None, MOVE_DECOMPOSITION):
        return ""
    return f" (use {game.decomposition.rpartition(':')[2]})"


def __getattr__(name):  # moved to the game's folder in 0.3.0
    if name == "AmazonsTurnDecomposition":
        from ggpzoo.envs.amazons.turns import AmazonsTurnDecomposition

        return AmazonsTurnDecomposition
    raise AttributeError(f"module 'ggpzoo.wrappers.turns' has no attribute {name!r}")


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
                f"the env {_game_name(env)!r} has {env.action_space(env.possible_agents[0])}" + _own_decomposition(env)
            )
        super().__init__(env, cells)

    @property
    def source(self) -> int | None:
        """The cell chosen (or forced) as this action's source, or None."""
        return self._chosen[0] if self.stage > 0 else None

    def _split(self, ids):
        return from_to_cells(self.cells * self.cells, self.cells)[ids] if len(ids) else np.zeros((0, 2), np.int32)

    def _why_not(self, agent, stage):
        w = self.env.observation_space(agent)["observation"].shape[1]
        if stage == 0:
            return f"no legal {agent} action starts there"
        return f"no legal {agent} action goes there from {cell_str(self._chosen[0], w)}"
