"""Baseline agents: uniformly random, and greedy one-ply lookahead on the goals."""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpzoo.agents.base import Agent, _StateAgent
from ggpzoo.envs.base import ROLE
from ggpzoo.kernels import MAX_LEGAL, apply, goals, is_terminal, legal_actions
from ggpzoo.utils import _next, sample_action

__all__ = ["RandomAgent", "GreedyAgent"]


class RandomAgent(Agent):
    """A uniformly random legal action, from the observation's ``action_mask``.

    >>> from ggpzoo.envs import skirmish_v0
    >>> env = skirmish_v0.raw_env(); env.reset()
    >>> agent = RandomAgent(seed=0)
    >>> bool(env.observe("white")["action_mask"][agent.act(env)])
    True
    """

    name = "random"
    takes = "observation"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def __call__(self, obs) -> int:
        mask = obs["action_mask"] if isinstance(obs, dict) else obs
        return sample_action(np.asarray(mask), self.rng)


@njit(cache=True)
def greedy_action(game, board, aux, seed):
    """The legal action with the best ``own goal - opponent's goal`` after it; ties at random.

    The same as the best immediate change of that difference, since the state before is
    the same for every action. An action that ends the game counts 1000 more if it leaves
    the mover ahead (a win beats any goal change) and 1000 less if behind, so that
    greedy sees wins and losses where goals do not (amazons_split, where the role to act
    always has goal 0). Returns -1 if the game is over.
    """
    if is_terminal(game, board, aux):
        return -1
    legal = np.empty(MAX_LEGAL, np.int32)
    n = legal_actions(game, board, aux, legal)
    if n == 0:
        return -1
    role = aux[ROLE]
    b = board.copy()
    x = aux.copy()
    s = np.uint64(seed) | np.uint64(1)
    best = -1_000_000
    ties = 0
    choice = legal[0]
    for j in range(n):
        b[:] = board
        x[:] = aux
        apply(game, b, x, legal[j])
        g = goals(game, b, x)
        score = (g[0] - g[1]) if role == 0 else (g[1] - g[0])
        if score != 0 and is_terminal(game, b, x):
            score += 1000 if score > 0 else -1000
        if score > best:
            best, ties, choice = score, 1, legal[j]
        elif score == best:
            ties += 1  # reservoir sampling: a uniform choice among the ties
            s, r = _next(s)
            if np.int64((r * np.uint64(ties)) >> np.uint64(32)) == 0:
                choice = legal[j]
    return choice


class GreedyAgent(_StateAgent):
    """One ply: the action that leaves the best ``own goal - opponent's goal``, random
    tie-break; an action that ends the game ahead beats any other, one that ends it behind
    loses to any other (see :func:`greedy_action`).

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
