"""Turn decomposition: one amazons_v0 turn as three small masked choices.

* :class:`AmazonsTurnDecomposition` - each turn of ``amazons_v0`` (one action of
  ``Discrete(86980)``) becomes three actions of ``Discrete(100)`` by the same agent: the
  queen's cell, its destination, the arrow's cell. Each is masked to the choices that
  some legal turn still allows, and the partial choice is in the observation.

A policy with a 100-way head learns Amazons far more easily than one with an 86,980-way
head: the three choices share the board features, and the masks rule out every illegal
combination, so each legal turn stays reachable and no illegal one is.

>>> from ggpzoo.envs import amazons_v0
>>> env = AmazonsTurnDecomposition(amazons_v0.env())
>>> env.reset()
>>> env.stage, int(env.last()[0]["action_mask"].sum())   # 4 white queens to choose from
(0, 4)
>>> env.step(3)                                           # the queen on (4,1) = cell 3
>>> env.agent_selection, env.stage
('white', 1)

Change log: added in 0.1.0.
"""

from __future__ import annotations


import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ggpzoo.envs.amazons import kernel as K
from ggpzoo.envs.base import cell_str, integer_id
from ggpzoo.wrappers.accounting import InvalidWrapperArgument, RewardAccounting

__all__ = ["AmazonsTurnDecomposition"]

STAGES = ("queen", "destination", "arrow")


class AmazonsTurnDecomposition(RewardAccounting):
    """Each amazons_v0 turn as three masked ``Discrete(100)`` choices: queen, destination, arrow.

    Actions are cells ``c = (y - 1) * 10 + (x - 1)``. The agent in control stays selected
    for its three choices; the game moves (and the wrapped env steps) on the arrow, when
    the whole turn ``(queen, destination, arrow)`` is played as one amazons_v0 action.

    Observation: the wrapped env's planes (own queens, opponent queens, arrows), then
    plane 3 marking the chosen queen and plane 4 the chosen destination (empty until
    chosen; every agent sees them). The stage is what is marked: nothing at the queen
    stage, the queen at the destination stage, both at the arrow stage. ``action_mask``
    allows exactly the cells that complete to at least one legal turn.

    Rewards: 0 for the first two choices; the third passes on the wrapped env's rewards of
    the turn. An illegal choice raises ``ValueError`` saying why, and changes nothing.

    Args:
        env: ``amazons_v0.env()`` or ``amazons_v0.raw_env()``, possibly inside reward
            wrappers.
    """

    num_actions = K.N

    def __init__(self, env: AECEnv):
        super().__init__(env)
        name = getattr(getattr(env, "unwrapped", None), "metadata", {}).get("name")
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
        inner = env.observation_space(env.possible_agents[0])["observation"]
        self._planes = inner.shape[2]
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (K.H, K.W, self._planes + 2), np.int8),
                "action_mask": spaces.Box(0, 1, (K.N,), np.int8),
            }
        )
        self.observation_spaces = {a: obs_space for a in env.possible_agents}
        self.action_spaces = {a: spaces.Discrete(K.N) for a in env.possible_agents}
        self._clear_turn()

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the partial turn
    @property
    def stage(self) -> int:
        """What the next action chooses: 0 the queen, 1 its destination, 2 the arrow."""
        return 0 if self._queen is None else 1 if self._destination is None else 2

    @property
    def queen(self) -> int | None:
        """The cell of the queen chosen this turn, or None."""
        return self._queen

    @property
    def destination(self) -> int | None:
        """The cell of the destination chosen this turn, or None."""
        return self._destination

    def legal_turns(self) -> np.ndarray:
        """The amazons_v0 action ids still open: legal now and agreeing with the choices made."""
        return self._turns()[0][self._agreeing()]

    @staticmethod
    def turn_steps(turn: int) -> tuple[int, int, int]:
        """The three cells ``(queen, destination, arrow)`` that play amazons_v0 action ``turn``."""
        src, dst, arrow = K.DECODE[turn]
        return int(src), int(dst), int(arrow)

    def legal_actions(self) -> np.ndarray:
        """The cells the selected agent may choose now, ascending (empty once the game is over)."""
        return np.flatnonzero(self._stage_mask()) if self._live(self.env.agent_selection) else np.zeros(0, np.int64)

    def _clear_turn(self) -> None:
        self._queen = self._destination = None
        self._ids = self._triples = None  # the legal turns, read from the wrapped env once per turn

    def _turns(self) -> tuple[np.ndarray, np.ndarray]:
        if self._ids is None:
            legal = getattr(self.env, "legal_actions", None)  # a ggpzoo env's public list: no 87k-mask scan
            if callable(legal):
                self._ids = np.asarray(legal(), np.int64)
            else:
                self._ids = np.flatnonzero(self.env.observe(self.env.agent_selection)["action_mask"])
            self._triples = K.DECODE[self._ids].astype(np.int64)
        return self._ids, self._triples

    def _agreeing(self) -> np.ndarray:
        triples = self._turns()[1]
        keep = np.ones(len(triples), bool)
        if self._queen is not None:
            keep &= triples[:, 0] == self._queen
        if self._destination is not None:
            keep &= triples[:, 1] == self._destination
        return keep

    def _stage_mask(self) -> np.ndarray:
        mask = np.zeros(K.N, np.int8)
        mask[self._turns()[1][self._agreeing(), self.stage]] = 1
        return mask

    def _live(self, agent) -> bool:
        env = self.env
        return (
            bool(env.agents)
            and agent == env.agent_selection
            and not (env.terminations.get(agent, True) or env.truncations.get(agent, True))
        )

    # ------------------------------------------------------------------ AEC API
    def _begin(self, rewards=None) -> None:
        self._clear_turn()
        super()._begin(dict(self.env.rewards))

    def observe(self, agent):
        inner = self.env.observe(agent)
        obs = np.zeros((K.H, K.W, self._planes + 2), np.int8)
        obs[:, :, : self._planes] = inner["observation"]
        for plane, c in ((self._planes, self._queen), (self._planes + 1, self._destination)):
            if c is not None:
                obs[c // K.W, c % K.W, plane] = 1
        mask = self._stage_mask() if self._live(agent) else np.zeros(K.N, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action) -> None:
        if self._step_dead_or_over(action):
            self._clear_turn()
            return
        env = self.env
        agent = env.agent_selection
        c = self._check(agent, action)
        if self._queen is None:
            self._queen = c
        elif self._destination is None:
            self._destination = c
        else:
            turn = int(K.BASE[self._queen, self._destination] + K.QPOS[self._destination, c])
            self._clear_turn()
            env.step(turn)
            self._pay(agent, env.rewards)
            return
        self._pay(agent, {})

    def _check(self, agent: str, action) -> int:
        """``action`` as a cell if it is a legal choice now, else a ValueError saying why."""
        c = integer_id(action, K.N, "cell id")
        if not self._stage_mask()[c]:
            stage = STAGES[self.stage]
            if self._queen is None:
                why = f"no {agent} queen with a legal turn stands there"
            elif self._destination is None:
                why = f"the queen at {cell_str(self._queen, K.W)} cannot move there"
            else:
                why = (
                    f"no arrow from {cell_str(self._destination, K.W)} can land there after the queen "
                    f"moved from {cell_str(self._queen, K.W)}"
                )
            raise ValueError(f"action {c} = {cell_str(c, K.W)} is illegal as {agent}'s {stage}: {why}")
        return c
