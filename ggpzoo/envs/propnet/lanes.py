"""Many games of one compiled sheet at once: 64 games to a machine word ("bit lanes").

The table interpreter (`ggpzoo.envs.propnet.kernel`) plays one game per work area and
propagates each change through the network. A batch of games of a small network plays
faster evaluated whole, 64 games at a time: every atom holds a ``uint64`` word whose bit
``j`` is its value in game ``j`` of a block, a rule is the AND of its literals' words and
an atom the OR of its rules', so one pass over the network's literals plays a move in 64
games. The batched engine ([`ggpzoo.engine.VectorGames`][ggpzoo.engine.VectorGames] and
[`ggpzoo.engine.play_games`][ggpzoo.engine.play_games]) steps a sheet this way where
[`suits()`][ggpzoo.envs.propnet.lanes.suits] says so (a network of at most `MAX_LITERALS` literals: a
pass costs the whole network, a propagated move only what it changes).

Phase B (the next state) reads most of its rules only for the moves played: a rule with a
positive does literal whose other literals are known before phase B is keyed on that does
atom (`ggpzoo.gdl.propnet._Phase`), and a move evaluates the keyed rules of each does atom
played in some lane, once for every lane, before the pass over phase B's other rules.

The games' states stay where the engine keeps them (``boards``, ``auxs`` and its status
rows), written as each move is played, with the same legal lists, goals, forced joint moves
and errors as the per-game protocol; each game's work area gets its legal moves (what
``role_legal`` reads) but not its network values, which trail the board until a call that
needs them brings them there ([`ggpzoo.envs.propnet.kernel.status`][ggpzoo.envs.propnet.kernel.status]).

``V`` is ``uint64 (blocks, atoms)``: block ``b`` holds games ``64 b .. 64 b + 63``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ggpzoo.envs.propnet import kernel as K
from ggpzoo.envs.propnet.kernel import table

__all__ = [
    "MAX_LITERALS",
    "LANES",
    "possible",
    "suits",
    "new_lanes",
    "load",
    "play",
    "judge",
    "goals",
    "report",
    "restart",
    "low_bit",
    "legal_views",
    "legal_arrays",
]

LANES = 64  # games per block (the bits of a word)
# A network with at most this many literals (phases A and B together) is stepped as bit
# lanes. Measured, 256 random games stepped from Python per CPU-second, lanes / the games'
# own work areas (`benchmarks/gdl_batch.py`, one thread of an idle machine): tic-tac-toe
# (601 literals) 2.5, connect four (1,015) 2.1, breakthrough (2,210) 2.6, skirmish (89,482)
# 1.9, the corpus's breakthrough 5.5 and Skirmish (351,934) 3.8; a pass over phase A
# costs its literals for 64 games, a move on a work area what the move changes, so past
# some size the work areas win again (not seen up to here).
MAX_LITERALS = 1_000_000

_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
# the dispatch's answers (`ggpzoo.engine.dispatch`): over, several roles choose, and a
# sheet's error codes are the kernel's minus 10
_OVER, _SIMULTANEOUS, _ERROR = -1, -2, -10
_ROLE, _STEP = 0, 2
# the index of the lowest set bit of a word, from its isolated bit times a de Bruijn sequence
_DEBRUIJN = np.uint64(0x03F79D71B4CB0A89)
_BIT_INDEX = np.zeros(64, np.int64)
for _j in range(64):
    _BIT_INDEX[((1 << _j) * 0x03F79D71B4CB0A89 & 0xFFFFFFFFFFFFFFFF) >> 58] = _j


def possible(T: np.ndarray) -> bool:
    """Whether ``T`` are a network's tables (a compiled sheet's; a hand-written game has none)."""
    return T.dtype == np.int32 and T.shape[0] > K.HEADER


def suits(T: np.ndarray) -> bool:
    """Whether a network's tables ``T`` are better stepped as bit lanes in a batch (at
    most `MAX_LITERALS` literals)."""
    if not possible(T):
        return False
    lits = [int(T[K.TAB + 2 * (phase + 5) + 1]) for phase in (K.A_ORDER, K.B_ORDER)]  # each phase's "lits" table
    return sum(lits) <= MAX_LITERALS


def new_lanes(T: np.ndarray, num_games: int) -> np.ndarray:
    """The lane words of ``num_games`` games (all zero: `load()` them before a step)."""
    return np.zeros(((num_games + LANES - 1) // LANES, int(T[K.N_ATOMS])), np.uint64)


@njit(cache=True, inline="always")
def low_bit(w):
    """The index of the lowest set bit of ``w`` (not 0)."""
    return _BIT_INDEX[((w & (~w + _ONE)) * _DEBRUIJN) >> np.uint64(58)]


@njit(cache=True, inline="always")
def _word(v, k, rstart, rend, lstart, lend, lits, acc):
    """``acc`` and the lanes where one of atom ``k``'s rules (``rstart[k]`` to ``rend[k]``)
    has every literal true. (Written as a ``while`` loop: a ``break`` out of the rule loop
    on a full word made the lanes' passes 2 to 3 times slower.)"""
    r, end = rstart[k], rend[k]
    while r < end and acc != _ALL:
        w = _ALL
        for li in range(lstart[r], lend[r]):
            lit = lits[li]
            w &= v[lit >> 1] ^ (_ZERO - np.uint64(lit & 1))  # a negated literal's word inverted, without a branch
            if w == 0:
                break
        acc |= w
        r += 1
    return acc


@njit(cache=True)
def _eval(v, T, base, rend):
    """`ggpzoo.envs.propnet.kernel._eval` on lane words: the phase at ``base`` in every
    lane, each atom's rules up to ``rend`` ORed into its word (zero them first: `_clear()`)."""
    order, rstart = table(T, base), table(T, base + 1)
    lstart, lend, lits = table(T, base + 3), table(T, base + 4), table(T, base + 5)
    gstart, gend, gcyc = table(T, base + 6), table(T, base + 7), table(T, base + 8)
    g, ng = 0, gstart.shape[0]
    while g < ng:
        if gcyc[g] == 0:  # a run of components without a cycle, one loop over their atoms
            h = g + 1
            while h < ng and gcyc[h] == 0:
                h += 1
            for k in range(gstart[g], gend[h - 1]):
                a = order[k]
                v[a] = _word(v, k, rstart, rend, lstart, lend, lits, v[a])
            g = h
            continue
        changed = True  # a positive cycle: iterated to its least fixpoint, in every lane at once
        while changed:
            changed = False
            for k in range(gstart[g], gend[g]):
                a = order[k]
                w = _word(v, k, rstart, rend, lstart, lend, lits, v[a])
                if w != v[a]:
                    v[a] = w
                    changed = True
        g += 1


@njit(cache=True, inline="always")
def _clear(v, T, base):
    """The words of the atoms of the phase at ``base``, all zero."""
    order = table(T, base)
    for k in range(order.shape[0]):
        v[order[k]] = 0


@njit(cache=True)
def _phase_a(v, T):
    """Phase A in every lane (legal, goal and terminal from the true atoms)."""
    _clear(v, T, K.A_ORDER)
    _eval(v, T, K.A_ORDER, table(T, K.A_ORDER + 2))


@njit(cache=True, parallel=True)
def load(T, V, boards, which):
    """Each block holding a game where ``which`` from ``boards``: the true atoms from the
    games' states, phase A evaluated (the network at those states, no move)."""
    n = boards.shape[0]
    true_ids = table(T, K.TRUE_IDS)
    for b in prange(V.shape[0]):
        lo, hi = b * LANES, min(b * LANES + LANES, n)
        need = False
        for i in range(lo, hi):
            need |= which[i]
        if not need:
            continue
        v = V[b]
        v[:] = 0
        for f in range(true_ids.shape[0]):
            w = np.uint64(0)
            for i in range(lo, hi):
                if boards[i, f]:
                    w |= _ONE << np.uint64(i - lo)
            v[true_ids[f]] = w
        _phase_a(v, T)


def legal_views(T: np.ndarray, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The legal lists and counts inside the work areas ``W`` (one row per game) as arrays
    ``(games, roles, width)`` and ``(games, roles)``: where the per-game protocol keeps them
    (``role_legal`` reads them), for the bit lanes to write."""
    n, roles, width = W.shape[0], int(T[K.N_ROLES]), max(int(T[K.MAX_LEGAL]), 1)
    out0, cnt0 = int(T[K.WORK + 2 * K.W_OUT]), int(T[K.WORK + 2 * K.W_COUNTS])
    row, item = W.strides[0], W.itemsize
    strided = np.lib.stride_tricks.as_strided
    out = strided(W[:, out0:], shape=(n, roles, width), strides=(row, width * item, item))
    cnt = strided(W[:, cnt0:], shape=(n, roles), strides=(row, item))
    return out, cnt


def legal_arrays(T: np.ndarray, num_games: int) -> tuple[np.ndarray, np.ndarray]:
    """Legal lists and counts of ``num_games`` games of their own (no work areas), of the
    same array type as `legal_views()` (strided, so that the functions here compile once)."""
    roles, width = int(T[K.N_ROLES]), max(int(T[K.MAX_LEGAL]), 1)
    return (
        np.zeros((num_games, roles, width + 1), np.int32)[:, :, :width],
        np.zeros((num_games, roles + 1), np.int32)[:, :roles],
    )


@njit(cache=True)
def _move(v, T, M, ids):
    """The does atoms of joint moves ``ids[j]`` in the lanes of ``M``, then phase B.

    Phase B's keyed rules (`ggpzoo.gdl.propnet._Phase`: most of a sheet's next rules, as
    ``(<= (next ..) (does ..) ..)``) are evaluated for the does atoms played only, once each
    (from the lowest lane that played it), and the pass over phase B reads the other rules."""
    does, width = table(T, K.DOES), T[K.MAX_LEGAL]
    w = M
    while w:
        j = low_bit(w)
        w &= w - _ONE
        for r in range(ids.shape[1]):
            a = does[r * width + ids[j, r]]
            if a >= 0:
                v[a] |= _ONE << np.uint64(j)
    _clear(v, T, K.B_ORDER)
    key_start, key_head = table(T, K.KEY_START), table(T, K.KEY_HEAD)
    key_lstart, key_lits = table(T, K.KEY_LSTART), table(T, K.KEY_LITS)
    w = M
    while w:
        j = low_bit(w)
        w &= w - _ONE
        for r in range(ids.shape[1]):
            a = does[r * width + ids[j, r]]
            if a < 0 or low_bit(v[a]) != j:
                continue
            played = v[a]
            for q in range(key_start[a], key_start[a + 1]):
                x = played
                for li in range(key_lstart[q], key_lstart[q + 1]):
                    lit = key_lits[li]
                    x &= v[lit >> 1] ^ (_ZERO - np.uint64(lit & 1))
                    if x == 0:
                        break
                v[key_head[q]] |= x
    _eval(v, T, K.B_ORDER, table(T, K.B_UEND))


@njit(cache=True)
def judge(v, T, out, cnt, M, lo, status):
    """The status of each lane ``j`` of ``M`` (`ggpzoo.envs.propnet.kernel` codes: CHOICE,
    OVER, FORCED, SIMULTANEOUS, UNMAPPED) into ``status[j]``, and (where not over by
    ``terminal``) every role's legal ids and count into ``out[lo + j]``, ``cnt[lo + j]``
    in the network's order, as the per-game protocol leaves them. Returns the FORCED lanes."""
    t_atom = T[K.TERMINAL_ATOM]
    over = np.uint64(0)
    if t_atom >= 0:
        over = v[t_atom] & M
    live = M & ~over
    w = M
    while w:
        j = low_bit(w)
        w &= w - _ONE
        status[j] = K.OVER
        if (live >> np.uint64(j)) & _ONE:
            cnt[lo + j, :] = 0
    legal_atom, legal_role, legal_id = table(T, K.LEGAL_ATOM), table(T, K.LEGAL_ROLE), table(T, K.LEGAL_ID)
    gs, guard_lits = table(T, K.GUARD_START), table(T, K.GUARD_LITS)
    bad = np.uint64(0)
    for blk in range(gs.shape[0] // 4):
        g = live
        for k in range(gs[4 * blk + 2], gs[4 * blk + 3]):
            lit = guard_lits[k]
            x = v[lit >> 1]
            if lit & 1:
                x = ~x
            g &= x
        if g == 0:
            continue
        for i in range(gs[4 * blk], gs[4 * blk + 1]):
            x = v[legal_atom[i]] & g
            if x == 0:
                continue
            r, a = legal_role[i], legal_id[i]
            if a < 0:
                bad |= x
                continue
            while x:
                j = low_bit(x)
                x &= x - _ONE
                c = cnt[lo + j, r]
                out[lo + j, r, c] = a
                cnt[lo + j, r] = c + 1
    forced = np.uint64(0)
    w = live
    while w:
        j = low_bit(w)
        w &= w - _ONE
        if (bad >> np.uint64(j)) & _ONE:
            status[j] = K.UNMAPPED
            continue
        c = K._choosers(cnt[lo + j])
        status[j] = c
        if c == K.FORCED:
            forced |= _ONE << np.uint64(j)
    return forced


@njit(cache=True)
def play(v, T, out, cnt, boards, auxs, M, lo, ids, status):
    """Joint moves ``ids[j]`` in the lanes ``j`` of ``M`` (games ``lo + j``), then the
    forced ones, as the per-game protocol plays them: the boards, the moves played
    (``auxs[:, 2]``), the legal lists (`judge()`) and each lane's status into ``status``
    (``TOO_MANY_FORCED`` after `MAX_FORCED` forced joint moves in a row)."""
    true_ids, next_of, does, width = table(T, K.TRUE_IDS), table(T, K.NEXT_OF), table(T, K.DOES), T[K.MAX_LEGAL]
    for _ in range(K.MAX_FORCED + 1):
        if M == 0:
            return
        _move(v, T, M, ids)
        # the next state in the moving lanes (every next word is read before a true atom changes)
        for f in range(true_ids.shape[0]):
            a = next_of[f]
            nx = v[a] if a >= 0 else np.uint64(0)
            t = true_ids[f]
            old = v[t]
            new = (nx & M) | (old & ~M)
            ch = old ^ new
            while ch:
                j = low_bit(ch)
                ch &= ch - _ONE
                boards[lo + j, f] = (new >> np.uint64(j)) & _ONE
            v[t] = new
        w = M
        while w:
            j = low_bit(w)
            w &= w - _ONE
            auxs[lo + j, _STEP] += 1
            for r in range(ids.shape[1]):
                a = does[r * width + ids[j, r]]
                if a >= 0:
                    v[a] &= ~(_ONE << np.uint64(j))
        _phase_a(v, T)
        M = judge(v, T, out, cnt, M, lo, status)
        w = M  # forced lanes: every role plays its one move
        while w:
            j = low_bit(w)
            w &= w - _ONE
            for r in range(ids.shape[1]):
                ids[j, r] = out[lo + j, r, 0]
    w = M
    while w:  # still forced after MAX_FORCED joint moves
        j = low_bit(w)
        w &= w - _ONE
        status[j] = K.TOO_MANY_FORCED


@njit(cache=True)
def goals(v, T, M, lo, goals_out):
    """The goals of the games of the lanes of ``M`` into ``goals_out[lo + j]`` (0 for a role
    without one, as `ggpzoo.envs.propnet.kernel.goals`)."""
    goal_atom, goal_role, goal_value = table(T, K.GOAL_ATOM), table(T, K.GOAL_ROLE), table(T, K.GOAL_VALUE)
    w = M
    while w:
        j = low_bit(w)
        w &= w - _ONE
        goals_out[lo + j, :] = 0
    for k in range(goal_atom.shape[0]):
        x = v[goal_atom[k]] & M
        r, val = goal_role[k], goal_value[k]
        while x:
            j = low_bit(x)
            x &= x - _ONE
            if val > goals_out[lo + j, r]:
                goals_out[lo + j, r] = val


@njit(cache=True, inline="always")
def report(T, out, cnt, auxs, i, code, legal):
    """Game ``i``'s role to choose into its aux and that role's legal ids (ascending) into
    ``legal``; returns what the per-game protocol's ``turn_status`` returns (a legal count,
    OVER, SIMULTANEOUS or an error code). ``code``: its `judge()` status."""
    if code < 0:
        return _ERROR + code
    if code == K.OVER:
        auxs[i, _ROLE] = -1
        return _OVER
    if code == K.SIMULTANEOUS:
        auxs[i, _ROLE] = -2
        return _SIMULTANEOUS
    r = 0
    for q in range(cnt.shape[1]):
        if cnt[i, q] > 1:
            r = q
    auxs[i, _ROLE] = r
    n = cnt[i, r]
    for c in range(n):
        legal[c] = out[i, r, c]
    K._ascending(legal, n)
    return n


@njit(cache=True)
def restart(v, T, out, cnt, boards, auxs, R, lo, ids, status):
    """The games of the lanes of ``R`` at the start (their boards, auxs and lane words),
    their forced moves played: each one's status into ``status``."""
    init = table(T, K.INIT)
    T8 = T.view(np.uint8)
    vals0 = 4 * (T[K.TAB + 2 * K.SNAP] + T[K.WORK + 2 * K.W_VALS])  # the snapshot's values, a byte per atom
    for a in range(T[K.N_ATOMS]):
        x = R if T8[vals0 + a] else np.uint64(0)
        v[a] = (v[a] & ~R) | x
    w = R
    while w:
        j = low_bit(w)
        w &= w - _ONE
        for f in range(init.shape[0]):
            boards[lo + j, f] = init[f]
        auxs[lo + j, :] = 0
    F = judge(v, T, out, cnt, R, lo, status)
    w = F
    while w:
        j = low_bit(w)
        w &= w - _ONE
        for r in range(ids.shape[1]):
            ids[j, r] = out[lo + j, r, 0]
    play(v, T, out, cnt, boards, auxs, F, lo, ids, status)
