"""Baseline agents: uniformly random, and greedy one-ply lookahead on the goals (every game)."""

from __future__ import annotations

import numpy as np

from ggpzoo.agents.base import Agent, _any_role, _ProtocolAgent, protocol_error, seeded_rng, warm_once
from ggpzoo.engine.policies import greedy_move
from ggpzoo.utils import sample_action

__all__ = ["RandomAgent", "GreedyAgent"]


class RandomAgent(Agent):
    """A uniformly random legal action, from the observation's ``action_mask``.

    Examples:
        >>> from ggpzoo.envs import skirmish_v0
        >>> env = skirmish_v0.raw_env(); env.reset()
        >>> agent = RandomAgent(seed=0)
        >>> bool(env.observe("white")["action_mask"][agent.act(env)])
        True
    """

    name = "random"
    takes = "observation"

    def __init__(self, seed: int | None = None):
        self.rng = seeded_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded_rng(seed)

    def __call__(self, obs) -> int:
        mask = obs["action_mask"] if isinstance(obs, dict) else obs
        return sample_action(np.asarray(mask), self.rng)


class GreedyAgent(_ProtocolAgent):
    """One ply on the goals, for every game: the action that leaves the best ``own goal -
    best other role's goal``, random tie-break; an action that ends the game ahead beats
    any other, one that ends it behind loses to any other (`ggpzoo.engine.policies.greedy_move()`).
    Where several roles choose at once (a GDL sheet's simultaneous moves), an action counts
    its worst result over the other roles' replies.

    Where goals only move at the end (Amazons, Amazons split, Mad Bishops, most GDL sheets)
    this is random play that takes an immediate win and avoids an immediate loss; in
    Skirmish it captures. Called as ``agent(state, role=None)`` with a state of game
    ``env_name`` (``env.unwrapped.get_state()``), or ``agent.act(env)``, as
    [`MCTSAgent`][ggpzoo.agents.mcts.MCTSAgent].

    >>> from ggpzoo.envs.skirmish import kernel as K
    >>> board, aux = K.from_string('''
    ...     . . . . k . . .
    ...     . . . . . . . .
    ...     . . # . . # . .
    ...     . . . . . . . .
    ...     . . . . q . . .
    ...     . . # . . # . .
    ...     . . . . . . . .
    ...     . . . . R . . K''')
    >>> from ggpzoo.envs.skirmish_v0 import raw_env
    >>> raw_env().action_to_string(GreedyAgent("skirmish_v0", seed=0)((board, aux)))  # takes the queen
    '(5,1)->(5,4)'
    """

    name = "greedy"

    def __init__(self, env_name, seed: int | None = None):
        super().__init__(env_name, seed)
        self.warmup()

    def warmup(self) -> None:
        warm_once(self.spec, "greedy", ("greedy", self.game), lambda state: _any_role(GreedyAgent(self.spec, 0), state))

    def __call__(self, state, role: str | None = None) -> int:
        board, aux, T, W, who, _n, forced = self._root(state, role)
        if forced is not None:
            return forced
        who = who if who >= 0 else int(aux[0])
        s = self.spec
        a, code = greedy_move(self.game, board, aux, T, W, who, self._seed(), max(s.max_legal, 1), s.num_roles)
        if code < 0:
            raise ValueError(protocol_error(s, code))
        return int(a)
