"""Built-in policies inside numba, on any game through the dispatch: random and greedy.

The batched engine calls them on the legal list it already holds (nothing is generated
twice); the scratch arrays a greedy choice plays on are passed in, so that no loop over
games allocates.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpzoo.engine.dispatch import (
    MAX_LEGAL,
    NO_TABLES,
    OVER,
    PROPNET,
    SIMULTANEOUS,
    apply,
    goals,
    is_terminal,
    legal_actions,
    status,
    step,
)
from ggpzoo.engine.rng import next_random
from ggpzoo.envs.gamespec import ROLE

__all__ = ["greedy_move", "greedy_choice", "greedy_action"]

_UNKNOWN = 2  # the goals are known, whether the game is over is not (yet)


@njit(cache=True)
def _sheet_trial(game, board, aux, T, W, action, b, x, lx, g, first):
    """Play ``action`` on the copies ``b``, ``x`` of a sheet's state; the goals after it
    into ``g``. Returns 1 when the game is then over, 0 when not, or -1 when the network
    fails there (the action is then skipped)."""
    b[:] = board
    x[:] = aux
    # ``W`` is a cache of the network at a state: after the previous trial it is at that
    # trial's state, and `status` brings it back to ``b`` (the state before) first.
    if not first and status(game, b, x, T, W, lx, g) < SIMULTANEOUS:
        return -1
    if step(game, b, x, T, W, action) != 0:
        return -1
    c = status(game, b, x, T, W, lx, g)
    if c < SIMULTANEOUS:
        return -1
    return 1 if c == OVER else 0


@njit(cache=True)
def greedy_move(game, board, aux, T, W, legal, n, s, b, x, lx, g):
    """The legal action in ``legal[:n]`` (of the role to choose, ``aux[ROLE]``) with the best
    ``own goal - best other role's goal`` after it; ties at random. Returns
    ``(new random state, action)``; ``-1`` when ``n == 0``.

    The same as the best immediate change of that difference, since the state before is
    the same for every action. An action that ends the game counts 1000 more if it leaves
    the mover ahead (a win beats any goal change) and 1000 less if behind, so that
    greedy sees wins and losses where goals do not (amazons_split, where the role to act
    always has goal 0). Works for every game of the protocol (``T``, ``W``: the game's
    tables and work area, left at ``board``); ``b``, ``x`` are scratch copies of the board
    and aux, ``lx`` a scratch legal list and ``g`` a scratch of one goal per role.
    """
    if n == 0:
        return s, -1
    role = aux[ROLE]
    best = -1_000_000
    ties = 0
    choice = legal[0]
    for j in range(n):
        if game == PROPNET:
            over = _sheet_trial(game, board, aux, T, W, legal[j], b, x, lx, g, j == 0)
            if over < 0:
                continue
            other = -1_000_000
            for r in range(g.shape[0]):
                if r != role and g[r] > other:
                    other = g[r]
            score = g[role] - other if g.shape[0] > 1 else g[role]
        else:
            # A hand-written kernel: the goals alone (its legal list is costly, and only an
            # action that changes the score asks whether the game is over).
            b[:] = board
            x[:] = aux
            apply(game, b, x, legal[j])
            gg = goals(game, b, x)
            score = (gg[0] - gg[1]) if role == 0 else (gg[1] - gg[0])
            over = _UNKNOWN
        if score != 0 and (over == 1 or (over == _UNKNOWN and is_terminal(game, b, x))):
            score += 1000 if score > 0 else -1000
        if score > best:
            best, ties, choice = score, 1, legal[j]
        elif score == best:
            ties += 1  # reservoir sampling: a uniform choice among the ties
            s, r = next_random(s)
            if np.int64((r * np.uint64(ties)) >> np.uint64(32)) == 0:
                choice = legal[j]
    if game == PROPNET:
        status(game, board, aux, T, W, lx, g)  # the work area back at the state itself
    return s, choice


@njit(cache=True)
def greedy_choice(game, board, aux, legal, n, s, b, x):
    """`greedy_move()` for a hand-written kernel (no tables, no work area, no scratch goals:
    its branch reads none of them)."""
    return greedy_move(game, board, aux, NO_TABLES, x[:0], legal, n, s, b, x, legal, x)


@njit(cache=True)
def greedy_action(game, board, aux, seed):
    """`greedy_choice()` in one state of a hand-written kernel, generating its legal list;
    -1 if the game is over."""
    if is_terminal(game, board, aux):
        return -1
    legal = np.empty(MAX_LEGAL, np.int32)
    n = legal_actions(game, board, aux, legal)
    s = np.uint64(seed) | np.uint64(1)
    s, a = greedy_choice(game, board, aux, legal, n, s, board.copy(), aux.copy())
    return a
