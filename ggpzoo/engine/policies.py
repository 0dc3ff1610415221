"""Built-in policies inside numba, on any kernel through the dispatch: random and greedy.

The batched engine calls them on the legal list it already holds (nothing is generated
twice); the scratch arrays a greedy choice plays on are passed in, so that no loop over
games allocates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpzoo.engine.dispatch import MAX_LEGAL, apply, goals, is_terminal, legal_actions
from ggpzoo.engine.rng import next_random
from ggpzoo.envs.gamespec import ROLE

__all__ = ["greedy_choice", "greedy_action"]


@njit(cache=True)
def greedy_choice(game, board, aux, legal, n, s, b, x):
    """The legal action in ``legal[:n]`` with the best ``own goal - opponent's goal`` after
    it; ties at random. Returns ``(new random state, action)``; ``-1`` when ``n == 0``.

    The same as the best immediate change of that difference, since the state before is
    the same for every action. An action that ends the game counts 1000 more if it leaves
    the mover ahead (a win beats any goal change) and 1000 less if behind, so that
    greedy sees wins and losses where goals do not (amazons_split, where the role to act
    always has goal 0). ``b`` and ``x`` are scratch copies of the board and aux.
    """
    if n == 0:
        return s, -1
    role = aux[ROLE]
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
            s, r = next_random(s)
            if np.int64((r * np.uint64(ties)) >> np.uint64(32)) == 0:
                choice = legal[j]
    return s, choice


@njit(cache=True)
def greedy_action(game, board, aux, seed):
    """`greedy_choice()` in one state, generating its legal list; -1 if the game is over."""
    if is_terminal(game, board, aux):
        return -1
    legal = np.empty(MAX_LEGAL, np.int32)
    n = legal_actions(game, board, aux, legal)
    s = np.uint64(seed) | np.uint64(1)
    s, a = greedy_choice(game, board, aux, legal, n, s, board.copy(), aux.copy())
    return a
