"""Built-in policies inside numba, on any game through the dispatch: random and greedy.

* `greedy_legal()`: the greedy choice among a legal list the caller holds (the batched
  engine and self-play: nothing is generated twice; the scratch arrays a choice plays on
  are passed in, so that no loop over games allocates); `greedy_choice()` the same for a
  hand-written kernel.
* `greedy_move()`: one ply on the goals for any role at any state of any game, simultaneous
  states too (the greedy agent's).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpzoo.engine.dispatch import (
    NO_TABLES,
    OVER,
    PROPNET,
    SIMULTANEOUS,
    apply,
    goals,
    is_terminal,
    role_legal,
    status,
    step,
    step_joint,
)
from ggpzoo.engine.rng import next_random
from ggpzoo.envs.gamespec import ROLE

__all__ = ["greedy_legal", "greedy_choice", "greedy_move", "MAX_REPLIES"]

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
def greedy_legal(game, board, aux, T, W, legal, n, s, b, x, lx, g):
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
    """`greedy_legal()` for a hand-written kernel (no tables, no work area, no scratch goals:
    its branch reads none of them)."""
    return greedy_legal(game, board, aux, NO_TABLES, x[:0], legal, n, s, b, x, legal, x)


# ----------------------------------------------------------------------------- on the game protocol
# Replies of the other roles a greedy move is scored against where several roles choose at
# once: all of them when they are at most this many, else this many drawn at random.
MAX_REPLIES = 256


@njit(cache=True)
def _score_after(game, b, x, T, W, legal, g, who):
    """The greedy score of the state ``(b, x)`` for role ``who`` (after ``status`` there): its
    goal less the best other role's, 1000 more if the game is over with it ahead, 1000 less
    if behind. Returns (score, error code or 0)."""
    code = status(game, b, x, T, W, legal, g)
    if code < SIMULTANEOUS:
        return 0, code
    best_other = 0
    first = True
    for r in range(g.shape[0]):
        if r != who and (first or g[r] > best_other):
            best_other = g[r]
            first = False
    score = g[who] - best_other
    if score != 0 and code == OVER:
        score += 1000 if score > 0 else -1000
    return score, 0


@njit(cache=True)
def greedy_move(game, board, aux, T, W, who, seed, max_legal, n_roles):
    """One ply on the goals for role ``who`` at ``(board, aux)``, on the game protocol: the
    legal action with the best score after it (its goal less the best other role's, an
    action that ends the game ahead beating any other, one that ends it behind losing to
    any other), ties at random. Where several roles choose at once, an action's score is its
    worst over the other roles' replies (all of them, or `MAX_REPLIES` drawn at random).

    Returns ``(action, 0)``; ``(-1, 0)`` when ``who`` has no legal action; ``(-1, code)`` for
    an error code of the protocol. For a hand-written game, the choice of
    `greedy_choice()` with the same seed."""
    legal = np.empty(max_legal, np.int32)
    g = np.zeros(n_roles, np.int32)
    b = board.copy()
    x = aux.copy()
    code = status(game, b, x, T, W, legal, g)
    if code < SIMULTANEOUS:
        return -1, code
    s = np.uint64(seed) | np.uint64(1)
    simultaneous = code == SIMULTANEOUS
    rl = np.empty((n_roles, max_legal), np.int32)
    counts = np.zeros(n_roles, np.int64)
    replies = np.int64(1)
    if simultaneous:
        for r in range(n_roles):
            counts[r] = role_legal(game, b, x, T, W, r, rl[r])
            if r != who:
                replies = min(replies * max(counts[r], 1), np.int64(1) << 40)
        n = counts[who]
        own = rl[who, :n].copy()
    else:
        if who != x[0]:
            return -1, 0
        n = code
        own = legal[:n].copy()
    if n <= 0:
        return -1, 0
    ids = np.zeros(n_roles, np.int32)
    tries = min(replies, MAX_REPLIES)
    best = -1_000_000
    ties = 0
    choice = own[0]
    for j in range(n):
        worst = 1_000_000
        for t in range(tries):
            b[:] = board
            x[:] = aux
            status(game, b, x, T, W, legal, g)  # a sheet's work area back at the state
            if simultaneous:
                k = np.int64(t)
                for r in range(n_roles):
                    if r == who:
                        ids[r] = own[j]
                        continue
                    if replies > MAX_REPLIES:
                        s, v = next_random(s)
                        i = np.int64((v * np.uint64(counts[r])) >> np.uint64(32))
                    else:
                        i = k % counts[r]
                        k //= counts[r]
                    ids[r] = rl[r, i]
                err = step_joint(game, b, x, T, W, ids)
            else:
                err = step(game, b, x, T, W, own[j])
            if err < 0:
                return -1, err
            score, err = _score_after(game, b, x, T, W, legal, g, who)
            if err < 0:
                return -1, err
            worst = min(worst, score)
        if worst > best:
            best, ties, choice = worst, 1, own[j]
        elif worst == best:
            ties += 1  # reservoir sampling: a uniform choice among the ties
            s, r = next_random(s)
            if np.int64((r * np.uint64(ties)) >> np.uint64(32)) == 0:
                choice = own[j]
    return choice, 0
