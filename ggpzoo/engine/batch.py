"""Batched games: N independent games of one game, stepped together on every core.

Any game of the package: a hand-written one (``"skirmish_v0"``) or a GDL sheet
(``"gdl:connect_four"``, ``"gdl:PATH.kif"``). The games run on the same rules as the AEC
envs (no second copy of any rule): numba ``prange`` loops call the game protocol of
[`ggpzoo.engine.dispatch`][ggpzoo.engine.dispatch] game by game, in parallel threads (each game of a sheet has its
own work area of the compiled network, so the results do not depend on the threads).

    from ggpzoo.engine import VectorGames
    games = VectorGames("skirmish_v0", num_games=256)   # or "gdl:connect_four"
    games.reset()
    for t in range(1000):
        actions = games.random_actions(seed=t)        # or your policy on games.observe()
        step = games.step(actions)                    # finished games restart by themselves
    print(games.pop_results()[:3])                    # [(goal of role 0, goal of role 1, length), ...]

Turns: ``games.to_play[i]`` is the role to choose in game i (-1 where the game is over,
-2 where several roles choose at once: a GDL sheet's simultaneous moves). ``step(actions)``
takes one action id per game (that of the role to choose) or, shape ``(N, num_roles)``,
one per role (needed where several roles choose at once; entries of roles without a
choice are ignored). A sheet's joint moves where no role has a choice are played by
themselves.

Whole random or greedy games, without Python in the loop: [`play_games()`][ggpzoo.engine.batch.play_games].

Numba compiles the batched functions once per machine (cached in ``__pycache__``); the
first call in a fresh install takes some seconds.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

import numba
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from numba import njit, prange, types
from numba.extending import overload

from ggpzoo.engine.dispatch import (
    NOT_A_SHEET,
    OVER,
    SIMULTANEOUS,
    observation,
    role_legal,
    start,
    status,
    step_joint_status,
    step_status,
)
from ggpzoo.engine.dispatch import goals as _goals
from ggpzoo.engine.dispatch import is_terminal as _is_terminal
from ggpzoo.engine.dispatch import legal_actions as _legal_actions
from ggpzoo.engine.policies import greedy_legal
from ggpzoo.engine.rewards import outcome_rewards
from ggpzoo.engine.rng import random_legal as _random_legal
from ggpzoo.engine.rng import stream
from ggpzoo.envs import spec as _spec
from ggpzoo.envs.gamespec import ROLE, STEP, GameSpec
from ggpzoo.envs.propnet import lanes as _lanes
from ggpzoo.envs.propnet.kernel import N_ATOMS as K_N_ATOMS

__all__ = ["MAX_RESULTS", "DEFAULT_MAX_STEPS", "VectorGames", "StepResult", "play_games", "play"]

# pop_results() returns at most this many finished games (the newest): a batch whose results
# are never popped (a long training run) keeps its memory flat.
MAX_RESULTS = 100_000
# A game still running after this many moves (joint moves of a sheet) ends, truncated: a
# sheet's random games need not end. The hand-written games end by their rules long before.
DEFAULT_MAX_STEPS = 2000


# ----------------------------------------------------------------------------- one game
@njit(cache=True)
def _refresh(game, board, aux, legal, goals):
    """Terminal flag and legal count of one game of a hand-written kernel; its goals into ``goals``."""
    g = _goals(game, board, aux)
    goals[0], goals[1] = g[0], g[1]
    if _is_terminal(game, board, aux):
        return True, 0
    return False, _legal_actions(game, board, aux, legal)


@njit(cache=True)
def _is_legal(legal, n, action):
    lo, hi = 0, n  # binary search: the legal list is ascending
    while lo < hi:
        mid = (lo + hi) // 2
        if legal[mid] < action:
            lo = mid + 1
        else:
            hi = mid
    return lo < n and legal[lo] == action


# ``S`` is the tuple of per-game status rows: (legal ids of the role to choose, their count
# (0 where over or several choose), every role's goals, terminal, truncated, the role to
# choose (-1 over, -2 several)). Game ``i`` is ``boards[i]``, ``auxs[i]`` on work area ``W[i]``.
@njit(cache=True)
def _note(i, c, auxs, S, max_steps):
    """Game ``i``'s status ``c`` (what `status` returned) into its rows of ``S`` (a game at
    ``max_steps`` moves is over, truncated); returns 0 or a sheet's error code."""
    legal, n_legal, goals, terminal, truncated, mover = S
    if c < SIMULTANEOUS:
        return c
    over = c == OVER
    cut = not over and max_steps > 0 and auxs[i, STEP] >= max_steps
    terminal[i] = over or cut
    truncated[i] = cut
    if over or cut:
        mover[i] = -1
        n_legal[i] = 0
    elif c == SIMULTANEOUS:
        mover[i] = -2
        n_legal[i] = 0
    else:
        mover[i] = auxs[i, ROLE]
        n_legal[i] = c
    return 0


@njit(cache=True, inline="always")
def _ended(i, auxs, S, finished, cut, final_goals, lengths, rewards):
    """Game ``i`` (over, its status noted) into the rows of the step's ended games."""
    goals, truncated = S[2], S[4]
    finished[i] = True
    cut[i] = truncated[i]
    for r in range(goals.shape[1]):
        final_goals[i, r] = goals[i, r]
    lengths[i] = auxs[i, STEP]
    if not truncated[i]:  # a game cut by max_steps pays nothing
        outcome_rewards(goals[i], rewards[i])


@njit(cache=True)
def _settle(game, i, boards, auxs, T, W, S, max_steps):
    """Game ``i``'s status into its rows of ``S``; returns 0 or a sheet's error code."""
    c = status(game, boards[i], auxs[i], T, W[i], S[0][i], S[2][i])
    return _note(i, c, auxs, S, max_steps)


@njit(cache=True)
def _first_error(codes):
    """(the first game whose code is an error, its code), or (-1, 0)."""
    for i in range(codes.shape[0]):
        if codes[i] != 0:
            return i, codes[i]
    return -1, 0


# The steps of the states where several roles choose (a sheet's simultaneous moves),
# compiled only where the tables ``T`` may hold a sheet's network: with `NO_TABLES` (int8, a
# hand-written game, where one role always chooses) they are stubs, so that a hand-written
# game's first batch compiles only what it runs.
def _check_joint(game, i, acts, counts, boards, auxs, T, W, scratch, joint, bad):
    """Game ``i``'s joint row from ``acts[i]`` (one action per role) into ``joint[i]``, or
    ``bad[i]`` (see `_check_batch`)."""


@overload(_check_joint)
def _ov_check_joint(game, i, acts, counts, boards, auxs, T, W, scratch, joint, bad):
    if T.dtype == types.int8:

        def stub(game, i, acts, counts, boards, auxs, T, W, scratch, joint, bad):
            bad[i] = -2

        return stub

    def impl(game, i, acts, counts, boards, auxs, T, W, scratch, joint, bad):
        for r in range(counts.shape[0]):
            k = role_legal(game, boards[i], auxs[i], T, W[i], r, scratch[i])
            if k == 1:  # a role without a choice plays its one move
                joint[i, r] = scratch[i, 0]
                continue
            a = acts[i, r]
            if a < 0 or a >= counts[r]:
                bad[i] = 2 * r
                break
            if not _is_legal(scratch[i], k, a):
                bad[i] = 2 * r + 1
                break
            joint[i, r] = a

    return impl


def _joint_status(game, board, aux, T, W, ids, legal, goals):
    """`step_joint_status()` (a stub where ``T`` is `NO_TABLES`)."""


@overload(_joint_status)
def _ov_joint_status(game, board, aux, T, W, ids, legal, goals):
    if T.dtype == types.int8:
        return lambda game, board, aux, T, W, ids, legal, goals: NOT_A_SHEET
    return lambda game, board, aux, T, W, ids, legal, goals: step_joint_status(
        game, board, aux, T, W, ids, legal, goals
    )


def _other_roles(game, i, m, boards, auxs, T, W, scratch_l, out, joint, s):
    """Game ``i``'s joint row: the role to choose (``m``) plays ``out[i]``, every other role a
    random legal move (its one move where it has no choice; -1 where it has none)."""


@overload(_other_roles)
def _ov_other_roles(game, i, m, boards, auxs, T, W, scratch_l, out, joint, s):
    if T.dtype == types.int8:

        def stub(game, i, m, boards, auxs, T, W, scratch_l, out, joint, s):
            for r in range(joint.shape[1]):  # the waiting role of a hand-written game has no move
                joint[i, r] = out[i] if r == m else -1
            return s

        return stub

    def impl(game, i, m, boards, auxs, T, W, scratch_l, out, joint, s):
        for r in range(joint.shape[1]):
            if r == m:
                joint[i, r] = out[i]
                continue
            k = role_legal(game, boards[i], auxs[i], T, W[i], r, scratch_l[i])
            if k == 0:
                joint[i, r] = -1
            else:
                s, joint[i, r] = _random_legal(scratch_l[i], k, s)
        return s

    return impl


# ----------------------------------------------------------------------------- batches
# The loops whose work per game is a few dozen nanoseconds (checking the actions, random
# actions) run on one thread: waking the other threads costs more, and far more when other
# processes hold the cores. A ``prange`` loop's index is int64 where numba first types the
# loop and uint64 in the compiled loop body: functions called with it take ``np.int64(i)``,
# so that each is compiled once, not for both types.
@njit(cache=True, parallel=True)
def _reset_batch(game, variant, max_steps, which, boards, auxs, T, W, S, codes):
    for i in prange(boards.shape[0]):
        codes[i] = 0
        if which[i]:
            c = start(game, boards[i], auxs[i], T, W[i], variant)
            if c == 0:
                c = _settle(game, np.int64(i), boards, auxs, T, W, S, max_steps)
            codes[i] = c
    return _first_error(codes)


@njit(cache=True)
def _check_batch(game, acts, per_role, which, counts, boards, auxs, T, W, S, scratch, chosen, joint, bad):
    """Check the actions of the live games where ``which``: ``acts[i, 0]`` is the action of
    the role to choose, or with ``per_role`` ``acts[i, r]`` role r's. Writes the action to
    play into ``chosen[i]`` (one role chooses) or ``joint[i]`` (several do) and ``bad[i]``:
    -1 fine, -2 several roles choose but one action was given, ``2 r`` role r's action out
    of range, ``2 r + 1`` illegal."""
    legal, n_legal, goals, terminal, truncated, mover = S
    for i in range(acts.shape[0]):
        bad[i] = -1
        if terminal[i] or not which[i]:
            continue
        m = mover[i]
        if m >= 0:
            a = acts[i, m] if per_role else acts[i, 0]
            if a < 0 or a >= counts[m]:
                bad[i] = 2 * m
            elif not _is_legal(legal[i], n_legal[i], a):
                bad[i] = 2 * m + 1
            else:
                chosen[i] = a
            continue
        if not per_role:
            bad[i] = -2
            continue
        _check_joint(game, i, acts, counts, boards, auxs, T, W, scratch, joint, bad)


@njit(cache=True, parallel=True)
def _step_batch(
    game, variant, auto_reset, max_steps, which, chosen, joint, boards, auxs, T, W, S, codes,
    finished, cut, final_goals, lengths, rewards,
):  # fmt: skip
    """One move in each live game where ``which`` (a joint move where several roles choose),
    its restart if it ended and ``auto_reset``; the ended games' rows of the outputs
    (``finished`` ... ``rewards``, zeros elsewhere). Returns (the first failing game or -1, its code)."""
    goals, terminal, mover = S[2], S[3], S[5]
    for i in prange(boards.shape[0]):
        codes[i] = 0
        if terminal[i] or not which[i]:
            continue
        if mover[i] == -2:
            c = _joint_status(game, boards[i], auxs[i], T, W[i], joint[i], S[0][i], goals[i])
        else:
            c = step_status(game, boards[i], auxs[i], T, W[i], chosen[i], S[0][i], goals[i])
        c = _note(np.int64(i), c, auxs, S, max_steps)
        if c != 0:
            codes[i] = c
            continue
        if terminal[i]:
            _ended(i, auxs, S, finished, cut, final_goals, lengths, rewards)
            if auto_reset:
                c = start(game, boards[i], auxs[i], T, W[i], variant)
                if c == 0:
                    c = _settle(game, np.int64(i), boards, auxs, T, W, S, max_steps)
                codes[i] = c
    return _first_error(codes)


@njit(cache=True, parallel=True)
def _step_lanes(
    T, V, out, cnt, boards, auxs, which, chosen, joint, auto_reset, max_steps, S, codes, finished, cut, final_goals,
    lengths, rewards, ids, status,
):  # fmt: skip
    """`_step_batch` for a compiled sheet's games as bit lanes (`ggpzoo.envs.propnet.lanes`),
    a block of 64 games per thread: the same moves, rows and codes. ``out``, ``cnt``: the
    games' legal lists (`lanes.legal_views`); ``ids``, ``status``: a scratch per block."""
    legal, n_legal, goals, terminal, truncated, mover = S
    n = boards.shape[0]
    for b in prange(V.shape[0]):
        v, lo = V[b], b * _lanes.LANES
        M = np.uint64(0)
        for i in range(lo, min(lo + _lanes.LANES, n)):
            codes[i] = 0
            if terminal[i] or not which[i]:
                continue
            j = i - lo
            M |= np.uint64(1) << np.uint64(j)
            for r in range(ids.shape[2]):  # the roles without a choice play their one move
                ids[b, j, r] = joint[i, r] if mover[i] == -2 else out[i, r, 0]
            if mover[i] >= 0:
                ids[b, j, mover[i]] = chosen[i]
        _lanes.play(v, T, out, cnt, boards, auxs, M, lo, ids[b], status[b])
        _lanes.goals(v, T, M, lo, goals)
        R = np.uint64(0)  # the games that ended, to restart
        w = M
        while w:
            j = _lanes.low_bit(w)
            w &= w - np.uint64(1)
            i = lo + j
            c = _note(i, _lanes.report(T, out, cnt, auxs, i, status[b, j], legal[i]), auxs, S, max_steps)
            if c != 0:
                codes[i] = c
            elif terminal[i]:
                _ended(i, auxs, S, finished, cut, final_goals, lengths, rewards)
                if auto_reset:
                    R |= np.uint64(1) << np.uint64(j)
        if R == 0:
            continue
        _lanes.restart(v, T, out, cnt, boards, auxs, R, lo, ids[b], status[b])
        _lanes.goals(v, T, R, lo, goals)
        w = R
        while w:
            j = _lanes.low_bit(w)
            w &= w - np.uint64(1)
            i = lo + j
            codes[i] = _note(i, _lanes.report(T, out, cnt, auxs, i, status[b, j], legal[i]), auxs, S, max_steps)
    return _first_error(codes)


@njit(cache=True, parallel=True)
def _sync_batch(game, behind, boards, auxs, T, W, scratch_l, scratch_g, codes):
    """Bring the work areas of the games where ``behind`` to their boards (the bit lanes
    moved the boards, not the work areas' networks)."""
    for i in prange(boards.shape[0]):
        codes[i] = 0
        if behind[i]:
            c = status(game, boards[i], auxs[i], T, W[i], scratch_l[i], scratch_g[i])
            codes[i] = c if c < SIMULTANEOUS else 0
            behind[i] = False
    return _first_error(codes)


@njit(cache=True, parallel=True)
def _observe_batch(game, boards, auxs, T, roles, out):
    for i in prange(boards.shape[0]):
        observation(game, boards[i], auxs[i], T, roles[i], out[i])


@njit(cache=True, parallel=True)
def _mask_batch(legal, n_legal, out):
    for i in prange(out.shape[0]):
        out[i, :] = 0
        for j in range(n_legal[i]):
            out[i, legal[i, j]] = 1


@njit(cache=True, parallel=True)
def _role_mask_batch(game, boards, auxs, T, W, terminal, scratch, out):
    """``out[i, r]``: 1 for each legal id of role ``r`` in live game ``i``."""
    for i in prange(out.shape[0]):
        out[i] = 0
        if terminal[i]:
            continue
        for r in range(out.shape[1]):
            for j in range(role_legal(game, boards[i], auxs[i], T, W[i], r, scratch[i])):
                out[i, r, scratch[i, j]] = 1


@njit(cache=True)
def _random_batch(game, seed, boards, auxs, T, W, S, scratch_l, out, joint):
    """A random legal action per live game (of the role to choose; -1 for finished games or
    where several roles choose). With ``joint`` of one row per game (``(N, num_roles)``;
    else ``(0, ...)``), one action per role there (see `_other_roles`)."""
    legal, n_legal, goals, terminal, truncated, mover = S
    per_role = joint.shape[0] > 0
    for i in range(boards.shape[0]):
        out[i] = -1
        if terminal[i]:
            if per_role:
                joint[i, :] = -1
            continue
        s = stream(seed, np.int64(i))
        m = mover[i]
        if m >= 0:
            s, out[i] = _random_legal(legal[i], n_legal[i], s)
        if per_role:
            _other_roles(game, i, m, boards, auxs, T, W, scratch_l, out, joint, s)


@njit(cache=True, parallel=True)
def _greedy_batch(game, seed, boards, auxs, T, W, S, scratch_b, scratch_x, scratch_l, scratch_g, out, joint):
    """`_random_batch`, the role to choose playing `greedy_legal()` on the game's rows of the
    scratch arrays (no allocation here)."""
    legal, n_legal, goals, terminal, truncated, mover = S
    per_role = joint.shape[0] > 0
    for i in prange(boards.shape[0]):
        out[i] = -1
        if terminal[i]:
            if per_role:
                joint[i, :] = -1
            continue
        s = stream(seed, np.int64(i))
        m = mover[i]
        if m >= 0:
            s, out[i] = greedy_legal(
                game, boards[i], auxs[i], T, W[i], legal[i], n_legal[i], s, scratch_b[i], scratch_x[i], scratch_l[i],
                scratch_g[i],
            )  # fmt: skip
        if per_role:
            _other_roles(game, i, m, boards, auxs, T, W, scratch_l, out, joint, s)


@njit(cache=True, parallel=True)
def _play_batch(
    game, variant, policies, seed, max_steps, T, work, cells, aux_size, max_legal, goals_out, lengths_out, codes
):
    """Whole games, one per index, to the end or ``max_steps`` moves (0: no limit);
    ``policies[role]`` is 0 random or 1 greedy (random where several roles choose)."""
    num_roles = goals_out.shape[1]
    for g in prange(goals_out.shape[0]):
        board = np.empty(cells, np.int8)  # once per game, not per step
        aux = np.empty(aux_size, np.int32)
        W = np.empty(work, np.int32)
        b = np.empty(cells, np.int8)
        x = np.empty(aux_size, np.int32)
        legal = np.empty(max_legal, np.int32)
        lx = np.empty(max_legal, np.int32)
        goals = np.zeros(num_roles, np.int64)
        gx = np.zeros(num_roles, np.int64)
        ids = np.zeros(num_roles, np.int32)
        s = stream(seed, g)
        c = start(game, board, aux, T, W, variant)
        n = status(game, board, aux, T, W, legal, goals) if c == 0 else c
        while True:  # each move and the status after it in one call (a sheet judges each state once)
            if n < SIMULTANEOUS:
                c = n
                break
            if n == OVER or (max_steps > 0 and aux[STEP] >= max_steps):
                break
            if n == SIMULTANEOUS:
                for r in range(num_roles):
                    s, ids[r] = _random_legal(lx, role_legal(game, board, aux, T, W, r, lx), s)
                n = step_joint_status(game, board, aux, T, W, ids, legal, goals)
            else:
                if policies[aux[ROLE]] == 0:
                    s, a = _random_legal(legal, n, s)
                else:
                    s, a = greedy_legal(game, board, aux, T, W, legal, n, s, b, x, lx, gx)
                n = step_status(game, board, aux, T, W, a, legal, goals)
        codes[g] = c
        for r in range(num_roles):
            goals_out[g, r] = goals[r]
        lengths_out[g] = aux[STEP]


@njit(cache=True, parallel=True)
def _play_lanes(T, seed, max_steps, blocks, board_size, max_legal, goals_out, lengths_out, codes):
    """`_play_batch` of random players on a sheet's network as bit lanes: the same games
    (each game ``g`` draws from its stream ``stream(seed, g)``). Block ``b`` of ``blocks``
    plays its share of the games (`_play_block`), a block per thread."""
    n = goals_out.shape[0]
    for b in prange(blocks):
        lo, hi = np.int64(b) * n // blocks, (np.int64(b) + 1) * n // blocks
        _play_block(T, seed, max_steps, lo, hi, board_size, max_legal, goals_out, lengths_out, codes)


@njit(cache=True)
def _play_block(T, seed, max_steps, g_next, g_end, board_size, max_legal, goals_out, lengths_out, codes):
    """Games ``g_next .. g_end - 1`` of `_play_lanes`, 64 at a time, a lane taking the next
    game as soon as its game ends (games differ in length; the network is evaluated whole)."""
    num_roles = goals_out.shape[1]
    L = _lanes.LANES
    one = np.uint64(1)
    v = np.zeros(T[K_N_ATOMS], np.uint64)
    boards = np.zeros((L, board_size), np.int8)
    auxs = np.zeros((L, _lanes.K.AUX_SIZE), np.int32)
    out = np.zeros((L, num_roles, max_legal + 1), np.int32)[:, :, :max_legal]  # as legal_arrays()
    cnt = np.zeros((L, num_roles + 1), np.int32)[:, :num_roles]
    legal = np.zeros((L, max_legal), np.int32)
    lx = np.zeros(max_legal, np.int32)
    ids = np.zeros((L, num_roles), np.int64)
    status = np.zeros(L, np.int64)
    goals = np.zeros((L, num_roles), np.int64)
    s = np.zeros(L, np.uint64)
    game = np.full(L, -1, np.int64)  # the game each lane plays
    free = np.uint64(0xFFFFFFFFFFFFFFFF)  # lanes without a game
    live = np.uint64(0)
    while True:
        R = np.uint64(0)  # free lanes take the next games
        w = free
        while w and g_next < g_end:
            j = _lanes.low_bit(w)
            w &= w - one
            game[j], s[j] = g_next, stream(seed, np.int64(g_next))
            codes[g_next] = 0
            R |= one << np.uint64(j)
            g_next += 1
        free &= ~R
        if R:
            _lanes.restart(v, T, out, cnt, boards, auxs, R, 0, ids, status)
        live |= R
        if live == 0:
            break
        M = np.uint64(0)
        w = live
        while w:
            j = _lanes.low_bit(w)
            w &= w - one
            c = _lanes.report(T, out, cnt, auxs, j, status[j], legal[j])
            if c < SIMULTANEOUS:
                codes[game[j]] = c
            elif c != OVER and not (max_steps > 0 and auxs[j, STEP] >= max_steps):
                M |= one << np.uint64(j)
                if c == SIMULTANEOUS:  # every role draws from its own legal ids, ascending
                    for r in range(num_roles):
                        m = cnt[j, r]
                        for q in range(m):
                            lx[q] = out[j, r, q]
                        _lanes.K._ascending(lx, m)
                        s[j], ids[j, r] = _random_legal(lx, m, s[j])
                else:
                    for r in range(num_roles):
                        ids[j, r] = out[j, r, 0]
                    s[j], ids[j, auxs[j, ROLE]] = _random_legal(legal[j], c, s[j])
        done = live & ~M
        if done:
            _lanes.goals(v, T, done, 0, goals)
            w = done
            while w:
                j = _lanes.low_bit(w)
                w &= w - one
                for r in range(num_roles):
                    goals_out[game[j], r] = goals[j, r]
                lengths_out[game[j]] = auxs[j, STEP]
            free |= done
        live = M
        _lanes.play(v, T, out, cnt, boards, auxs, M, 0, ids, status)


# ----------------------------------------------------------------------------- the API
def _seed(seed) -> int:
    """``seed`` as an int in 0..2**63 - 1, or a ValueError (no bools, floats or negatives)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an integer in 0..2**63 - 1, got {seed!r}")
    return int(seed)


def _positive_int(x, what: str) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or x < 1:
        raise ValueError(f"{what} must be a positive integer, got {x!r}")
    return int(x)


def _bool_array(x, n: int) -> np.ndarray:
    """``x`` as a bool array of shape ``(n,)``: bools, or integers that are all 0 or 1."""
    a = np.asarray(x)
    if a.shape != (n,):
        raise ValueError(f"which must be a bool array of shape ({n},), got shape {a.shape}")
    if a.dtype != np.bool_ and not (np.issubdtype(a.dtype, np.integer) and np.isin(a, (0, 1)).all()):
        raise ValueError(f"which must be a bool array of shape ({n},) (or of 0s and 1s), got {a.dtype}")
    return a.astype(np.bool_)


def _roles_array(x, n: int, agents=("white", "black")) -> np.ndarray:
    """``x`` as an int32 array of shape ``(n,)`` of role indices, or a ValueError."""
    a = np.asarray(x)
    if a.shape != (n,) or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"roles must be an integer array of shape ({n},), got {a.dtype} {a.shape}")
    bad = (a < 0) | (a >= len(agents))
    if bad.any():
        names = ", ".join(f"{i} ({r})" for i, r in enumerate(agents))
        raise ValueError(f"roles are {names}, got {a[bad][0]}")
    return a.astype(np.int32)


def _game_spec(name) -> GameSpec:
    """The spec of an env name (``"skirmish_v0"``, ``"gdl:tictactoe"``) or a spec itself."""
    sp = name if isinstance(name, GameSpec) else _spec(name)
    for role, count in sp.action_counts.items():
        if count < 1:
            raise ValueError(f"{sp.name}: role {role} has no possible move (the game gives it no legal move)")
    return sp


def _error(sp: GameSpec, i: int, code: int) -> str:
    """The one-line message of a sheet's error ``code`` in game ``i``."""
    from ggpzoo.envs.propnet.kernel import ERRORS

    return f"{sp.name}: game {i}: {ERRORS.get(int(code) + 10, f'error {int(code)}')}"


def _max_steps(max_steps) -> int:
    """``max_steps`` as the kernels take it: 0 for no limit."""
    return 0 if max_steps is None else _positive_int(max_steps, "max_steps")


POLICIES = {"random": 0, "greedy": 1}


class StepResult(NamedTuple):
    """What [`VectorGames.step()`][ggpzoo.engine.batch.VectorGames.step] returns, one row per game
    (new arrays each step)."""

    rewards: np.ndarray  # float32 (N, num_roles): on the step that ended a game by its rules, +1 for the
    # role above every other, -1 below the best other, 0 tied at the top; zeros elsewhere
    finished: np.ndarray  # bool (N,): the game ended on this step (restarted if auto_reset)
    final_goals: np.ndarray  # int64 (N, num_roles): the ended games' goals (valid where finished)
    lengths: np.ndarray  # int32 (N,): the ended games' moves (a sheet's joint moves, forced ones included)
    truncated: np.ndarray  # bool (N,): the game ended because of max_steps, not by its rules (no rewards)


class VectorGames:
    """``num_games`` independent games of one game, stepped together in numba threads.

    Args:
        name: an env name (``"amazons_v0"``, a key of ``ggpzoo.envs.ENVS``; ``"gdl:tictactoe"``
            or ``"gdl:PATH.kif"`` for a GDL sheet, played on its compiled network) or a
            [`GameSpec`][ggpzoo.envs.gamespec.GameSpec].
        num_games: the batch size N.
        auto_reset: restart a game on the step that ends it (its result goes to
            [`pop_results()`][ggpzoo.engine.batch.VectorGames.pop_results]); otherwise finished games wait for
            [`reset()`][ggpzoo.engine.batch.VectorGames.reset], and their entries in ``actions`` are ignored.
        max_steps: a game still running after this many moves ends, truncated (no rewards);
            `DEFAULT_MAX_STEPS` (2000) by default, since a sheet's random games need not end
            (the hand-written games end by their rules well before); None for no limit. A
            sheet's forced joint moves count and are played through, so a game can pass it.
        lanes: step a compiled sheet's games 64 to a machine word, its network evaluated
            whole for all of them at once ([`ggpzoo.envs.propnet.lanes`][ggpzoo.envs.propnet.lanes]: the same games,
            faster for a small network); None (the default) where the network has at most
            `lanes.MAX_LITERALS` literals, False never. ValueError for a game without a network.

    State, one row per game: ``boards`` (int8 ``(N, spec.board_size)``: cells, or a sheet's
    fluents), ``auxs`` (int32 ``(N, spec.aux_size)``; ``auxs[:, 2]`` the moves played),
    ``goals`` (int64 ``(N, num_roles)``: every role's goal now), ``terminal`` (over: by
    the rules or ``max_steps``), ``truncated`` (by ``max_steps``), ``to_play``, and the
    legal actions of the role to choose, ``legal_actions()``.
    A sheet's error (a network that fails in some state) raises ValueError naming the game;
    every game must then restart (``reset()``).
    """

    def __init__(
        self,
        name,
        num_games: int,
        auto_reset: bool = True,
        max_steps: int | None = DEFAULT_MAX_STEPS,
        lanes: bool | None = None,
    ):
        self.spec = sp = _game_spec(name)
        self.num_games = n = _positive_int(num_games, "num_games")
        self.max_steps = _max_steps(max_steps)
        self.name = sp.name
        self.game = sp.kernel_id
        self.kernel, self.variant, self.num_actions = sp.kernel, sp.variant, sp.num_actions
        self.agents = sp.agents
        self.num_roles = R = sp.num_roles
        self.observation_shape = sp.obs_shape
        self.obs_dtype = sp.obs_dtype
        self.auto_reset = bool(auto_reset)
        # Gymnasium's vector vocabulary (the role to choose's actions: roles may have fewer ids)
        self.num_envs = n
        self.single_action_space = spaces.Discrete(sp.num_actions)
        self.single_observation_space = spaces.Box(0, sp.obs_high, sp.obs_shape, sp.obs_dtype)
        self.metadata = {"autoreset_mode": AutoresetMode.SAME_STEP if self.auto_reset else AutoresetMode.DISABLED}
        self._counts = np.array([sp.action_counts[r] for r in sp.agents], np.int64)
        self._T = sp.tables
        work = sp.work()
        self._W = np.zeros((n, work.shape[0]), np.int32)  # each game's work area (a sheet's network)
        self.boards = np.zeros((n, sp.board_size), np.int8)
        self.auxs = np.zeros((n, sp.aux_size), np.int32)
        self.legal = np.zeros((n, sp.max_legal), np.int32)
        self.n_legal = np.zeros(n, np.int32)
        self.goals = np.zeros((n, R), np.int64)
        self.terminal = np.ones(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self._mover = np.full(n, -1, np.int32)
        self._S = (self.legal, self.n_legal, self.goals, self.terminal, self.truncated, self._mover)
        self._codes = np.zeros(n, np.int32)
        self._all = np.ones(n, np.bool_)
        self._scratch = None  # greedy's trial states and the per-role legal lists, made on first use
        self._results: deque = deque()  # the newest finished games' rows (goals..., length), in chunks
        self._n_results = 0
        self._started = False  # no game until reset()
        self.bit_lanes = self._lanes_wanted(lanes)
        if self.bit_lanes:
            self._V = _lanes.new_lanes(self._T, n)
            blocks = self._V.shape[0]
            self._lane_legal = _lanes.legal_views(self._T, self._W)
            self._lane_scratch = (
                np.zeros((blocks, _lanes.LANES, R), np.int64),  # joint moves
                np.zeros((blocks, _lanes.LANES), np.int64),  # statuses
            )
            self._behind = np.zeros(n, np.bool_)  # work areas whose networks trail the board

    def _lanes_wanted(self, lanes) -> bool:
        if lanes is None:
            return _lanes.suits(self._T)
        if not isinstance(lanes, (bool, np.bool_)):
            raise ValueError(f"lanes must be True, False or None, got {lanes!r}")
        if lanes and not _lanes.possible(self._T):
            raise ValueError(f"{self.name} has no network to step as bit lanes (only a compiled GDL sheet has)")
        return bool(lanes)

    def _work_at_boards(self) -> None:
        """The work areas of the games the bit lanes moved, brought to their boards (for the
        calls that play trial moves on them)."""
        if self.bit_lanes and self._behind.any():
            b, x, lx, gx = self._scratches()
            i, code = _sync_batch(
                self.game, self._behind, self.boards, self.auxs, self._T, self._W, lx, gx, self._codes
            )
            if code != 0:
                self._fail(int(i), int(code))

    # ------------------------------------------------------------------ helpers
    def _require_reset(self) -> None:
        if not self._started:
            raise RuntimeError("no games yet (or an error stopped them): call reset() first")

    def _fail(self, i: int, code: int):
        self._started = False  # the failing game's network may be half updated: every game restarts
        raise ValueError(f"{_error(self.spec, i, code)}; call reset()")

    def _scratches(self):
        """(boards, auxs, legal lists, goals): a scratch row per game, made once."""
        if self._scratch is None:
            n = self.num_games
            self._scratch = (
                np.zeros_like(self.boards),
                np.zeros_like(self.auxs),
                np.zeros((n, self.legal.shape[1]), np.int32),
                np.zeros((n, self.num_roles), np.int64),
            )
        return self._scratch

    def _which(self, which) -> np.ndarray:
        return self._all if which is None else _bool_array(which, self.num_games)

    # ------------------------------------------------------------------ flow
    def reset(self, which: np.ndarray | None = None, *, options: dict | None = None) -> None:
        """Start every game (or those where the bool array ``which`` is true) anew.

        Gymnasium's form works too: ``reset(options={"reset_mask": mask})``.
        """
        if options is not None and "reset_mask" in options:
            if which is not None:
                raise ValueError("give the games to reset as which or as options['reset_mask'], not both")
            which = options["reset_mask"]
        if which is None:
            which = self._all
        else:
            which = _bool_array(which, self.num_games)
            if not self._started and not which.all():
                raise RuntimeError("the first reset() must start every game")
        i, code = _reset_batch(
            self.game, self.variant, self.max_steps, which, self.boards, self.auxs, self._T, self._W, self._S,
            self._codes,
        )  # fmt: skip
        if code != 0:
            self._fail(int(i), int(code))
        if self.bit_lanes:
            _lanes.load(self._T, self._V, self.boards, which)
            self._behind[which] = False
        self._started = True

    @property
    def to_play(self) -> np.ndarray:
        """The role to choose in each game: its index, -1 where the game is over, -2 where
        several roles choose at once (a sheet's simultaneous moves)."""
        return self._mover.copy()

    @property
    def steps(self) -> np.ndarray:
        """The moves played in each game (a sheet's joint moves, forced ones included)."""
        return self.auxs[:, STEP].copy()

    def legal_actions(self) -> tuple[np.ndarray, np.ndarray]:
        """``(actions, counts)`` of the role to choose: row i's legal ids, ascending, are
        ``actions[i, :counts[i]]`` (count 0 where the game is over or several roles choose:
        see [`legal_masks()`][ggpzoo.engine.batch.VectorGames.legal_masks])."""
        return self.legal.copy(), self.n_legal.copy()

    def legal_actions_of(self, game: int, role: int | None = None) -> np.ndarray:
        """The legal ids (ascending) of ``role`` (default: the role to choose) in game ``game``;
        empty where it has none (over, or a hand-written game's waiting role)."""
        from ggpzoo.engine.dispatch import role_legal as _role_legal

        self._require_reset()
        i = _index(game, self.num_games, "game")
        r = int(self._mover[i]) if role is None else _index(role, self.num_roles, "role")
        if r < 0 or self.terminal[i]:
            return np.zeros(0, np.int32)
        out = np.empty(self.legal.shape[1], np.int32)
        k = _role_legal(self.game, self.boards[i], self.auxs[i], self._T, self._W[i], r, out)
        return out[:k].copy()

    def action_masks(self) -> np.ndarray:
        """int8 ``(N, num_actions)`` masks of the role to choose (all zeros where the game is
        over or several roles choose)."""
        self._require_reset()
        out = np.empty((self.num_games, self.num_actions), np.int8)
        _mask_batch(self.legal, self.n_legal, out)
        return out

    def legal_masks(self) -> np.ndarray:
        """int8 ``(N, num_roles, num_actions)``: 1 for every legal id of every role (a sheet's
        forced ``noop`` too), all zeros where the game is over."""
        self._require_reset()
        out = np.empty((self.num_games, self.num_roles, self.num_actions), np.int8)
        scratch = self._scratches()[2]
        _role_mask_batch(self.game, self.boards, self.auxs, self._T, self._W, self.terminal, scratch, out)
        return out

    def observe(self, roles: np.ndarray | None = None) -> np.ndarray:
        """Observations ``(N, *spec.obs_shape)`` (``(N, H, W, C)``; ``(N, n)`` for a sheet),
        each from ``roles[i]``'s side (default: the role to choose, else the first)."""
        self._require_reset()
        if roles is None:
            roles = np.maximum(self.auxs[:, ROLE], 0)
        else:
            roles = _roles_array(roles, self.num_games, self.agents)
        out = np.empty((self.num_games, *self.spec.planes_shape), self.obs_dtype)
        _observe_batch(self.game, self.boards, self.auxs, self._T, roles, out)
        return out.reshape((self.num_games, *self.observation_shape))

    def random_actions(self, seed: int = 0) -> np.ndarray:
        """A uniformly random legal action per game (-1 where the game is over): int32
        ``(N,)``, the role to choose's; for a game where several roles may choose at once
        (``spec.simultaneous``) ``(N, num_roles)``, one per role (a role without a choice:
        its one move). ``step`` takes either as it is."""
        return self._policy(0, seed)

    def greedy_actions(self, seed: int = 0) -> np.ndarray:
        """As `random_actions()`, but the role to choose plays
        [`greedy_legal()`][ggpzoo.engine.policies.greedy_legal]: the best own minus best other goal after the
        action (a move that ends the game ahead first), random tie-break; random where
        several roles choose."""
        return self._policy(1, seed)

    def _policy(self, policy: int, seed: int) -> np.ndarray:
        self._require_reset()
        seed = _seed(seed)
        out = np.empty(self.num_games, np.int32)
        joint = np.empty((self.num_games if self.spec.simultaneous else 0, self.num_roles), np.int32)
        if policy == 1:
            self._work_at_boards()
        b, x, lx, gx = self._scratches()
        if policy == 0:
            _random_batch(self.game, seed, self.boards, self.auxs, self._T, self._W, self._S, lx, out, joint)
        else:
            _greedy_batch(
                self.game, seed, self.boards, self.auxs, self._T, self._W, self._S, b, x, lx, gx, out, joint
            )  # fmt: skip
        return joint if self.spec.simultaneous else out

    def step(self, actions, which=None) -> StepResult:
        """Play one move in every live game (or those where the bool array ``which`` is true:
        the others wait, their entries ignored).

        ``actions``: integers ``(N,)``, the action of the role to choose in each game, or
        ``(N, num_roles)``, one per role (entries of roles without a choice are ignored; the
        only form where several roles choose at once). Entries of games that are over are
        ignored. An illegal or out-of-range action, a wrong shape or dtype raise ValueError
        and change nothing."""
        n, R = self.num_games, self.num_roles
        try:
            a = np.asarray(actions)
        except (OverflowError, TypeError, ValueError):  # ragged lists, ints beyond int64 and uint64
            a = np.asarray(None)
        if a.shape not in ((n,), (n, R)) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(
                f"actions must be an integer array of shape ({n},) (the role to choose's) or ({n}, {R}) "
                f"(one per role), got {a.dtype} {a.shape}"
            )
        self._require_reset()
        which = self._which(which)
        if not self.auto_reset and self.terminal.all():
            raise RuntimeError("every game is over; call reset()")
        if a.dtype == np.uint64:
            a = np.minimum(a, np.iinfo(np.int64).max)  # still out of range, now as int64
        per_role = a.ndim == 2
        acts = np.ascontiguousarray(a, np.int64).reshape(n, -1)
        chosen = np.empty(n, np.int32)
        joint = np.empty((n, R), np.int32)
        bad = np.empty(n, np.int64)
        scratch = self._scratches()[2] if self.spec.simultaneous else self.legal
        _check_batch(
            self.game, acts, per_role, which, self._counts, self.boards, self.auxs, self._T, self._W, self._S,
            scratch, chosen, joint, bad,
        )  # fmt: skip
        if (bad != -1).any():
            self._refuse(acts, per_role, bad)
        finished = np.zeros(n, np.bool_)
        cut = np.zeros(n, np.bool_)
        final_goals = np.zeros((n, R), np.int64)
        lengths = np.zeros(n, np.int32)
        rewards = np.zeros((n, R), np.float32)
        if self.bit_lanes:
            i, code = _step_lanes(
                self._T, self._V, *self._lane_legal, self.boards, self.auxs, which, chosen, joint, self.auto_reset,
                self.max_steps, self._S, self._codes, finished, cut, final_goals, lengths, rewards, *self._lane_scratch,
            )  # fmt: skip
            self._behind |= which
        else:
            i, code = _step_batch(
                self.game, self.variant, self.auto_reset, self.max_steps, which, chosen, joint, self.boards,
                self.auxs, self._T, self._W, self._S, self._codes, finished, cut, final_goals, lengths, rewards,
            )  # fmt: skip
        if code != 0:
            self._fail(int(i), int(code))
        ended = np.flatnonzero(finished)
        if len(ended):
            self._results.append(np.column_stack((final_goals[ended], lengths[ended])))
            self._n_results += len(ended)
            while self._n_results - len(self._results[0]) >= MAX_RESULTS:  # only the newest are kept
                self._n_results -= len(self._results.popleft())
        return StepResult(rewards, finished, final_goals, lengths, cut)

    def _refuse(self, acts: np.ndarray, per_role: bool, bad: np.ndarray):
        """The ValueError of the first bad entry of ``bad`` (see `_check_batch`)."""
        i = int(np.flatnonzero(bad != -1)[0])
        if bad[i] == -2:
            who = ", ".join(self.agents[r] for r in range(self.num_roles) if len(self.legal_actions_of(i, r)) > 1)
            raise ValueError(
                f"game {i}: roles {who} choose at once; give one action per role, shape ({self.num_games}, "
                f"{self.num_roles})"
            )
        r, illegal = divmod(int(bad[i]), 2)
        a = int(acts[i, r] if per_role else acts[i, 0])
        if not illegal:
            raise ValueError(
                f"game {i}: action {a} is out of range 0..{self._counts[r] - 1} (the ids of {self.agents[r]})"
            )
        legal = self.legal_actions_of(i, r)
        shown = ", ".join(str(x) for x in legal[:8]) + (", ..." if len(legal) > 8 else "")
        raise ValueError(f"game {i}: action {a} is illegal for {self.agents[r]} now; legal: {shown}")

    def pop_results(self) -> list[tuple[int, ...]]:
        """The games finished since the last call, at most the newest `MAX_RESULTS`:
        ``(goal of role 0, goal of role 1, ..., length)`` each (a game cut by ``max_steps``
        too, with the goals of the state it reached)."""
        if not self._results:
            return []
        rows = np.concatenate(self._results)[-MAX_RESULTS:]
        self._results.clear()
        self._n_results = 0
        return [tuple(r) for r in rows.tolist()]


def _index(x, n: int, what: str) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or not 0 <= x < n:
        raise ValueError(f"{what} must be an integer in 0..{n - 1}, got {x!r}")
    return int(x)


def play_games(
    name,
    num_games: int,
    white: str = "random",
    black: str = "random",
    seed: int = 0,
    *,
    policies=None,
    max_steps: int | None = DEFAULT_MAX_STEPS,
):
    """Play ``num_games`` whole games of ``name`` (an env name or a spec, as
    [`VectorGames`][ggpzoo.engine.batch.VectorGames]) in parallel with built-in policies.

    Returns ``(goals, lengths)``: int64 ``(num_games, num_roles)`` final goals and the
    number of moves of each game. Policies, for the first role (``white``) and the
    second (``black``), or one per role (``policies``, a sequence): ``"random"`` or
    ``"greedy"`` ([`greedy_legal()`][ggpzoo.engine.policies.greedy_legal]: one ply on the goals, random
    tie-break); random where several roles choose at once. A game still running after
    ``max_steps`` moves stops there (its goals those of the state reached; None: no limit,
    for games known to end).
    """
    seed = _seed(seed)
    num_games = _positive_int(num_games, "num_games")
    sp = _game_spec(name)
    if policies is None:
        policies = (white, black, *["random"] * max(sp.num_roles - 2, 0))[: sp.num_roles]
    elif isinstance(policies, str) or len(policies) != sp.num_roles:
        raise ValueError(f"policies must be a sequence of one policy per role ({sp.num_roles}), got {policies!r}")
    for p in policies:
        if not isinstance(p, str) or p not in POLICIES:
            raise ValueError(f"unknown policy {p!r}; choose from {sorted(POLICIES)}")
    goals = np.zeros((num_games, sp.num_roles), np.int64)
    lengths = np.zeros(num_games, np.int32)
    codes = np.zeros(num_games, np.int32)
    if all(p == "random" for p in policies) and _lanes.suits(sp.tables):  # the same games, 64 at a time
        blocks = max(-(-num_games // 512), min(-(-num_games // 64), numba.get_num_threads()))
        _play_lanes(
            sp.tables, seed, _max_steps(max_steps), blocks, sp.board_size, sp.max_legal, goals, lengths, codes
        )  # fmt: skip
    else:
        _play_batch(
            sp.kernel_id, sp.variant, np.array([POLICIES[p] for p in policies], np.int64), seed,
            _max_steps(max_steps), sp.tables, sp.work().shape[0], sp.board_size, sp.aux_size, sp.max_legal, goals,
            lengths, codes,
        )  # fmt: skip
    bad = np.flatnonzero(codes)
    if len(bad):
        raise ValueError(_error(sp, int(bad[0]), int(codes[bad[0]])))
    return goals, lengths


play = play_games  # its name before 0.3.0
