"""Baseline agents: uniformly random, and greedy one-ply lookahead on the goals."""

from __future__ import annotations

import numpy as np

from ggpzoo.agents.base import Agent, _StateAgent, seeded_rng
from ggpzoo.engine.policies import greedy_action
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


class GreedyAgent(_StateAgent):
    """One ply: the action that leaves the best ``own goal - opponent's goal``, random
    tie-break; an action that ends the game ahead beats any other, one that ends it behind
    loses to any other (see `greedy_action()`).

    Where goals only move at the end (Amazons, Amazons split, Mad Bishops) this is random
    play that takes an immediate win and avoids an immediate loss; in Skirmish it captures.
    Called with a state ``(board, aux)`` of env ``env_name`` (e.g. ``env.unwrapped.get_state()``).

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

    def __call__(self, state) -> int:
        board, aux = self._checked(state)
        a = greedy_action(self.game, board, aux, self._seed())
        if a < 0:
            raise ValueError("no legal action: the game is over")
        return int(a)
