"""The PROPNET kernel family: every compiled GDL sheet played by one table interpreter.

A sheet's network (`ggpzoo.gdl.propnet.Propnet`) is two plain ``int32`` arrays:

* ``T``, the network's read-only **tables**, built once per sheet (``net.tables``): a header
  of scalars and of the place of each table ([`TABLES`][ggpzoo.envs.propnet.kernel.TABLES] names them), then the tables;
* ``W``, one game's **work area** (``net.work()``): the network's values at that game's
  state and, for a propagating network, its rule and atom counters, its list of true legal
  atoms, the does atoms it holds (a network that keeps the last joint move's does atoms on
  between moves, ``net.hold_does``), the fluents whose next value differs from their value
  (so that a move flips them without a pass over every fluent) and its propagation scratch.

Every function below takes ``(T, W, state)`` (``state``: ``uint8`` over ``net.fluents``),
so every sheet runs the same machine code, compiled once and cached; many games of one
sheet share ``T`` and each has its own ``W`` (no two games share anything they write, so
they can run in parallel threads). This module is the one copy of "play one GDL state":
the fourth family of [`ggpzoo.engine.dispatch`][ggpzoo.engine.dispatch] (so the batched engine, the
searches and self-play of every game), the machine (`CompiledMachine`) and the benchmark
(`random_playouts()`) all call it.

* [`status()`][ggpzoo.envs.propnet.kernel.status] brings ``W`` to ``state`` and says what the state is: `CHOICE` (one
  role has more than one legal move), `SIMULTANEOUS` (several have), `FORCED`
  (every role has one), `OVER` (``terminal``, or a role without a legal move) or a
  negative error code ([`ERRORS`][ggpzoo.envs.propnet.kernel.ERRORS]); every role's legal ids are then in
  ``out[r, :counts[r]]`` (in the network's order, not sorted).
* [`play()`][ggpzoo.envs.propnet.kernel.play] replaces ``state`` by the state after a joint move (one id per role; ``W``
  must be at ``state``, as [`status()`][ggpzoo.envs.propnet.kernel.status] leaves it) and keeps ``W`` at the new state.
* [`advance()`][ggpzoo.envs.propnet.kernel.advance] plays joint moves without a choice until one (or the end);
  [`goals()`][ggpzoo.envs.propnet.kernel.goals] reads the goals; [`restart()`][ggpzoo.envs.propnet.kernel.restart] puts
  ``state`` and ``W`` at the start.

The dispatch's protocol ([`ggpzoo.engine.dispatch`][ggpzoo.engine.dispatch], game ``PROPNET``) is the one of the
hand-written kernels on top of these: a ``board`` (the state) and an ``aux`` of
`AUX_SIZE` (``aux[0]`` the role to choose, -1 when the game is over, -2 when several
roles choose at once; ``aux[2]`` the joint moves played), with the joint moves where no
role has a choice played by themselves (`init()`, `turn_status()`, `apply()`,
`role_legal()`, `apply_joint()`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "CHOICE",
    "OVER",
    "FORCED",
    "SIMULTANEOUS",
    "OK",
    "STACK_OVERFLOW",
    "UNMAPPED",
    "TOO_MANY_FORCED",
    "ERRORS",
    "MAX_FORCED",
    "TABLES",
    "WORK_PARTS",
    "table",
    "status",
    "play",
    "advance",
    "goals",
    "restart",
    "reset",
    "sync",
    "terminal",
    "legal",
    "playouts",
    "AUX_SIZE",
    "init",
    "turn_status",
    "apply",
    "role_legal",
    "apply_joint",
    "apply_status",
    "apply_joint_status",
    "observe",
]

# What a state is (`status()`), and what went wrong (negative codes).
CHOICE, OVER, FORCED, SIMULTANEOUS = 0, 1, 2, 3
OK, STACK_OVERFLOW, UNMAPPED, TOO_MANY_FORCED = 0, -1, -2, -3
# Joint moves in a row without a choice before a game is declared endless.
MAX_FORCED = 100_000
ERRORS = {
    STACK_OVERFLOW: "propagation stack overflow in the network",
    UNMAPPED: "a legal move outside the action space (the sheet's input relation)",
    TOO_MANY_FORCED: f"{MAX_FORCED} joint moves in a row without a choice: the game does not seem to end",
}

# ----------------------------------------------------------------------------- the layout of T
# Scalars of the header.
INCREMENTAL = 0  # 1: values kept up to date by propagating changes; 0: full evaluation per state
USE_LIVE = 1  # 1: legal moves read from the live list of true legal atoms; 0: by scanning blocks
N_ATOMS = 2
N_FLUENTS = 3
N_ROLES = 4
MAX_LEGAL = 5  # the largest role's action count (the width of ``out`` and of the does table)
TERMINAL_ATOM = 6  # -1 if the sheet has no terminal rule
W_SIZE = 7  # the length of a work area
W_KEEP = 8  # restart copies the snapshot over W[:W_KEEP] (the parts before "diff": the rest is scratch)
# Parts of the work area: (offset, length) at header slot WORK + 2 * part (the values are a
# byte per atom, four to an int32).
WORK = 16
WORK_PARTS = ("vals", "cur", "live", "sat", "cnt", "held", "pend", "diff", "out", "counts", "ids", "stack")
W_VALS, W_CUR, W_LIVE, W_SAT, W_CNT, W_HELD, W_PEND, W_DIFF, W_OUT, W_COUNTS, W_IDS, W_STACK = range(len(WORK_PARTS))
# Tables: (offset, length) at header slot TAB + 2 * table.
TAB = WORK + 2 * len(WORK_PARTS)
_PHASE = ("order", "rstart", "rend", "lstart", "lend", "lits", "gstart", "gend", "gcyc")
TABLES = (
    ("true_ids",)  # the atom of each fluent's ``true``
    + tuple("a_" + x for x in _PHASE)  # phase A: legal, goal, terminal from the state
    + tuple("b_" + x for x in _PHASE)  # phase B: next from the state and the joint move
    + (
        "legal_atom",  # legal atoms by role, then by guard block
        "legal_role",
        "legal_id",  # the action id of each (-1: outside the action space)
        "guard_start",  # per block: legal range, guard literal range (4 per block)
        "lguard",  # per legal atom: its guard literal range (2 per atom)
        "guard_lits",
        "does",  # per role and action id: the does atom or -1 (MAX_LEGAL per role)
        "next_of",  # per fluent: its next atom, or -1 (false next)
        "goal_atom",
        "goal_role",
        "goal_value",
        "fan_start",  # propagation: the rules reading each atom
        "fan_rule",  # rule * 2 + negated
        "rule_head",
        "rule_start",  # each rule's literals (for counting from scratch)
        "rule_lits",
        "atom_tag",  # per atom: its live list index (>= 0), -2 - f for fluent f's next atom, else -1
        "init",  # the initial state
        "snap",  # the work area at the initial state (W[:W_KEEP])
        "obs_src",  # per observation column (the sheet's base set): its fluent in the state, or -1
        # phase B's rules keyed on a does atom, for bit lanes (see `ggpzoo.gdl.propnet._Phase`)
        "b_uend",  # per phase B atom: where its keyed rules start (they end at b_rend)
        "key_start",  # per does atom: where its keyed rules start (n_atoms + 1)
        "key_head",  # per keyed rule: the atom it makes true
        "key_lstart",  # per keyed rule: where its literals but the does one start (+ 1)
        "key_lits",
    )
)
(
    TRUE_IDS,
    A_ORDER,
    _A1,
    _A2,
    _A3,
    _A4,
    _A5,
    _A6,
    _A7,
    _A8,
    B_ORDER,
    _B1,
    _B2,
    _B3,
    _B4,
    _B5,
    _B6,
    _B7,
    _B8,
    LEGAL_ATOM,
    LEGAL_ROLE,
    LEGAL_ID,
    GUARD_START,
    LGUARD,
    GUARD_LITS,
    DOES,
    NEXT_OF,
    GOAL_ATOM,
    GOAL_ROLE,
    GOAL_VALUE,
    FAN_START,
    FAN_RULE,
    RULE_HEAD,
    RULE_START,
    RULE_LITS,
    ATOM_TAG,
    INIT,
    SNAP,
    OBS_SRC,
    B_UEND,
    KEY_START,
    KEY_HEAD,
    KEY_LSTART,
    KEY_LITS,
) = range(len(TABLES))
HEADER = TAB + 2 * len(TABLES)

# non-negative mask of an int32 index (see _flip)
MASK = 0x7FFFFFFF


def pack(scalars: dict, work: dict, tables: dict) -> np.ndarray:
    """``T`` from the header scalars (slot -> value), the work parts (part -> length) and the
    tables (index -> 1-D integer array); the ``snap`` table is left zero for the caller."""
    sizes = [len(np.ravel(tables.get(k, ()))) for k in range(len(TABLES))]
    T = np.zeros(HEADER + sum(sizes), np.int32)
    for slot, v in scalars.items():
        T[slot] = v
    at = 0
    for p in range(len(WORK_PARTS)):
        n = int(work.get(p, 0))
        T[WORK + 2 * p], T[WORK + 2 * p + 1] = at, n
        at += n
    T[W_SIZE] = at
    T[W_KEEP] = T[WORK + 2 * W_DIFF]  # diff, out, counts, ids and the stack: scratch, not copied
    at = HEADER
    for k in range(len(TABLES)):
        T[TAB + 2 * k], T[TAB + 2 * k + 1] = at, sizes[k]
        if k in tables:
            T[at : at + sizes[k]] = np.ravel(tables[k])
        at += sizes[k]
    return T


@njit(cache=True, inline="always")
def table(T, k):
    """Table ``k`` of ``T`` (a view)."""
    s = T[TAB + 2 * k]
    return T[s : s + T[TAB + 2 * k + 1]]


@njit(cache=True, inline="always")
def _part(T, W, p):
    s = T[WORK + 2 * p]
    return W[s : s + T[WORK + 2 * p + 1]]


@njit(cache=True, inline="always")
def _vals(T, W):
    """The network's values in ``W``: one byte per atom (packed four to an int32 of ``W``)."""
    return _part(T, W, W_VALS).view(np.uint8)[: T[N_ATOMS]]


# ----------------------------------------------------------------------------- the network
@njit(cache=True, inline="always")
def _atom_holds(vals, k, rstart, rend, lstart, lend, lits):
    """1 if one of atom ``k``'s rules has every literal true in ``vals``, else 0."""
    for r in range(rstart[k], rend[k]):
        ok = 1
        for li in range(lstart[r], lend[r]):
            lit = lits[li]
            if (vals[lit >> 1] ^ (lit & 1)) == 0:
                ok = 0
                break
        if ok:
            return 1
    return 0


@njit(cache=True)
def _eval(vals, T, base):
    """Evaluate the atoms of the phase whose tables start at ``base`` (``A_ORDER`` or
    ``B_ORDER``), grouped into components, into ``vals``."""
    order, rstart, rend = table(T, base), table(T, base + 1), table(T, base + 2)
    lstart, lend, lits = table(T, base + 3), table(T, base + 4), table(T, base + 5)
    gstart, gend, gcyc = table(T, base + 6), table(T, base + 7), table(T, base + 8)
    for g in range(gstart.shape[0]):
        if gcyc[g] == 0:
            for k in range(gstart[g], gend[g]):
                vals[order[k]] = _atom_holds(vals, k, rstart, rend, lstart, lend, lits)
        else:  # a component with a positive cycle: iterated to its least fixpoint
            for k in range(gstart[g], gend[g]):
                vals[order[k]] = 0
            changed = True
            while changed:
                changed = False
                for k in range(gstart[g], gend[g]):
                    if not vals[order[k]] and _atom_holds(vals, k, rstart, rend, lstart, lend, lits):
                        vals[order[k]] = 1
                        changed = True


@njit(cache=True)
def _toggle(pend, f):
    """Fluent ``f`` into the pending list ``pend`` if it is not there, else out of it.

    ``pend`` is ``[count | list (F) | position of each fluent in the list, or -1 (F)]``: the
    fluents whose next atom's value differs from their ``cur`` value (the fluents the next
    move changes, kept up to date as atoms flip), in a network with at least
    ``propnet.PEND_MIN_FLUENTS`` fluents; empty in a smaller one, whose moves compare every
    fluent instead. Not inlined: inlined into `_flip()`'s loop, it made the propagation of
    every sheet slower (tic-tac-toe's, which never toggles, 2x)."""
    nf = (pend.shape[0] - 1) // 2
    p = pend[1 + nf + f]
    if p < 0:
        q = pend[0]
        pend[1 + q] = f
        pend[1 + nf + f] = q
        pend[0] = q + 1
    else:  # the last one takes its place
        last = pend[0] - 1
        moved = pend[1 + last]
        pend[1 + p] = moved
        pend[1 + nf + moved] = p
        pend[1 + nf + f] = -1
        pend[0] = last


@njit(cache=True)
def _flip(
    vals, a0, v0, stack, fan_start, fan_rule, tag, live, rule_head, rule_missing, atom_cnt, pend
):  # fmt: skip
    """Set input atom ``a0`` to ``v0`` and propagate. Returns False if the stack overflowed.

    ``fan_rule[k]`` is ``rule * 2 + negated`` for each literal that reads atom ``a``;
    ``rule_missing[r]`` counts the unsatisfied literals of rule ``r`` (true at 0) and
    ``atom_cnt[h]`` the true rules of atom ``h``. ``live`` is ``[count | L | list (L) |
    position of each legal index in the list (L)]``: the list of true legal atoms (those
    whose ``tag`` is not negative), kept up to date; ``pend`` the pending fluents
    (`_toggle()`), a fluent toggled as its next atom (``tag`` -2 - fluent) flips."""
    if vals[a0] == v0:
        return True
    vals[a0] = v0
    # An entry of the stack is ``atom * 2 + value``. Indices are masked non-negative (``& MASK``)
    # so that numba drops its negative-index wraparound from every array access of this
    # loop, and a rule that neither became true nor false costs one test: together with the
    # one-dimensional stack, 20% more tic-tac-toe transitions per CPU-second, 15% more on
    # connect four, 10% on breakthrough, 3% on Skirmish (side by side, best of 12).
    stack[0] = a0 * 2 + v0
    top = 1
    cap = stack.shape[0]
    while top > 0:
        top -= 1
        x = stack[top] & MASK
        a = x >> 1
        v = x & 1
        for k in range(fan_start[a] & MASK, fan_start[a + 1] & MASK):
            e = fan_rule[k] & MASK
            r = e >> 1
            old = rule_missing[r]
            m = old - 1 if (e & 1) ^ v else old + 1  # the literal became true / false
            rule_missing[r] = m
            if m != 0 and old != 0:
                continue  # the rule was false and stays false
            h = rule_head[r] & MASK
            c = atom_cnt[h] + (1 if m == 0 else -1)
            atom_cnt[h] = c
            nv = 1 if c > 0 else 0
            if nv != vals[h]:
                vals[h] = nv
                li = tag[h]
                if li >= 0:  # a legal atom: add it to / remove it from the live list
                    nl = live[1]
                    if nv:
                        q = live[0]
                        live[2 + q] = li
                        live[2 + nl + li] = q
                        live[0] = q + 1
                    else:
                        q = live[2 + nl + li]
                        last = live[0] - 1
                        moved = live[2 + last]
                        live[2 + q] = moved
                        live[2 + nl + moved] = q
                        live[0] = last
                elif li < -1:  # a next atom: its fluent's next value changed
                    _toggle(pend, -2 - li)
                if top >= cap:
                    return False
                stack[top] = h * 2 + nv
                top += 1
    return True


@njit(cache=True)
def sync(T, W, state):
    """Bring ``W`` to ``state``: flip the fluents that differ from the work area's state
    (propagating network), else evaluate phase A in full. Returns False on a stack overflow."""
    vals = _vals(T, W)
    true_ids = table(T, TRUE_IDS)
    if T[INCREMENTAL] == 0:
        for i in range(true_ids.shape[0]):
            vals[true_ids[i]] = state[i]
        _eval(vals, T, A_ORDER)
        return True
    cur = _part(T, W, W_CUR)
    stack, fan_start, fan_rule = _part(T, W, W_STACK), table(T, FAN_START), table(T, FAN_RULE)
    live, rule_head, sat, cnt = _part(T, W, W_LIVE), table(T, RULE_HEAD), _part(T, W, W_SAT), _part(T, W, W_CNT)
    tag, pend = table(T, ATOM_TAG), _part(T, W, W_PEND)
    ok = True
    for i in range(state.shape[0]):
        if state[i] != cur[i]:
            cur[i] = state[i]
            if pend.shape[0]:
                _toggle(pend, i)
            if not _flip(
                vals, true_ids[i], state[i], stack, fan_start, fan_rule, tag, live, rule_head, sat, cnt, pend
            ):  # fmt: skip
                ok = False
    return ok


@njit(cache=True)
def terminal(T, W):
    """Whether the sheet's ``terminal`` holds at the state ``W`` is at."""
    t = T[TERMINAL_ATOM]
    return t >= 0 and _vals(T, W)[t] != 0


@njit(cache=True)
def _legal_a(vals, use_live, live, legal_atom, legal_role, legal_id, gs, lguard, guard_lits, out, counts):
    """`legal()` on the arrays themselves."""
    for r in range(counts.shape[0]):
        counts[r] = 0
    bad = -1
    if use_live:
        for k in range(live[0]):
            li = live[2 + k]
            ok = True
            for g in range(lguard[2 * li], lguard[2 * li + 1]):
                lit = guard_lits[g]
                if (vals[lit >> 1] ^ (lit & 1)) == 0:
                    ok = False
                    break
            if not ok:
                continue
            r = legal_role[li]
            if legal_id[li] < 0:
                bad = li
            else:
                out[r, counts[r]] = legal_id[li]
                counts[r] += 1
        return bad
    for b in range(gs.shape[0] // 4):
        ok = True
        for k in range(gs[4 * b + 2], gs[4 * b + 3]):
            lit = guard_lits[k]
            if (vals[lit >> 1] ^ (lit & 1)) == 0:
                ok = False
                break
        if not ok:
            continue
        for i in range(gs[4 * b], gs[4 * b + 1]):
            if vals[legal_atom[i]]:
                r = legal_role[i]
                if legal_id[i] < 0:
                    bad = i
                else:
                    out[r, counts[r]] = legal_id[i]
                    counts[r] += 1
    return bad


@njit(cache=True)
def legal(T, W, out, counts):
    """Every role's legal ids at the state ``W`` is at into ``out[r, :counts[r]]``; returns
    the index of a legal atom outside the action space, or -1.

    Legal atoms come in blocks that share their *guards* (literals common to all the rules
    of an atom, e.g. ``(true (control r))``, stripped from the network so that flipping
    them propagates nothing): a block whose guards fail is skipped. A network with a live
    list reads the true legal atoms from it instead of scanning."""
    return _legal_a(
        _vals(T, W),
        T[USE_LIVE],
        _part(T, W, W_LIVE),
        table(T, LEGAL_ATOM),
        table(T, LEGAL_ROLE),
        table(T, LEGAL_ID),
        table(T, GUARD_START),
        table(T, LGUARD),
        table(T, GUARD_LITS),
        out,
        counts,
    )


@njit(cache=True)
def goals(T, W, out):
    """Each role's goal at the state ``W`` is at into ``out`` (0 for a role without one)."""
    vals = _vals(T, W)
    goal_atom, goal_role, goal_value = table(T, GOAL_ATOM), table(T, GOAL_ROLE), table(T, GOAL_VALUE)
    out[:] = -1
    for i in range(goal_atom.shape[0]):
        if vals[goal_atom[i]] and goal_value[i] > out[goal_role[i]]:
            out[goal_role[i]] = goal_value[i]
    for r in range(out.shape[0]):
        out[r] = max(out[r], 0)


@njit(cache=True)
def _judge(T, W, out, counts):
    """`status()` of the state ``W`` is at (without bringing it there)."""
    if terminal(T, W):
        return OVER
    if legal(T, W, out, counts) >= 0:
        return UNMAPPED
    return _choosers(counts)


@njit(cache=True, inline="always")
def _choosers(counts):
    """What a state is from its legal counts (not terminal by the sheet)."""
    choosers = 0
    for r in range(counts.shape[0]):
        if counts[r] == 0:
            return OVER
        if counts[r] > 1:
            choosers += 1
    if choosers == 0:
        return FORCED
    return CHOICE if choosers == 1 else SIMULTANEOUS


@njit(cache=True)
def status(T, W, state, out, counts):
    """Bring ``W`` to ``state``; return what the state is (see the module docstring).

    ``out[r, :counts[r]]`` are then role ``r``'s legal ids (when not OVER by ``terminal``)."""
    if not sync(T, W, state):
        return STACK_OVERFLOW
    return _judge(T, W, out, counts)


@njit(cache=True)
def play(T, W, state, ids):
    """Replace ``state`` by the state after joint move ``ids`` (``W`` at ``state``, as
    [`status()`][ggpzoo.envs.propnet.kernel.status] leaves it). A propagating network's ``W`` is then at the new state;
    a fully evaluated one's needs [`sync()`][ggpzoo.envs.propnet.kernel.sync]. Returns False on a stack overflow."""
    vals = _vals(T, W)
    next_of = table(T, NEXT_OF)
    does = table(T, DOES)
    width = T[MAX_LEGAL]
    if T[INCREMENTAL] == 0:
        for r in range(ids.shape[0]):
            a = does[r * width + ids[r]]
            if a >= 0:
                vals[a] = 1
        _eval(vals, T, B_ORDER)
        for r in range(ids.shape[0]):
            a = does[r * width + ids[r]]
            if a >= 0:
                vals[a] = 0
        for f in range(next_of.shape[0]):
            a = next_of[f]
            state[f] = vals[a] if a >= 0 else 0
        return True
    held, pend = _part(T, W, W_HELD), _part(T, W, W_PEND)
    if pend.shape[0] > 0:
        return _play_pend(
            vals, state, ids, does, width, pend, table(T, TRUE_IDS), _part(T, W, W_CUR), _part(T, W, W_DIFF),
            _part(T, W, W_STACK), table(T, FAN_START), table(T, FAN_RULE), table(T, ATOM_TAG), _part(T, W, W_LIVE),
            table(T, RULE_HEAD), _part(T, W, W_SAT), _part(T, W, W_CNT), held,
        )  # fmt: skip
    if held.shape[0] > 0:
        return _play_held(
            vals, state, ids, does, width, next_of, pend, table(T, TRUE_IDS),
            _part(T, W, W_CUR), _part(T, W, W_DIFF), _part(T, W, W_STACK), table(T, FAN_START), table(T, FAN_RULE),
            table(T, ATOM_TAG), _part(T, W, W_LIVE), table(T, RULE_HEAD), _part(T, W, W_SAT), _part(T, W, W_CNT),
            held,
        )  # fmt: skip
    return _play_a(
        vals,
        state,
        ids,
        does,
        width,
        next_of,
        pend,
        table(T, TRUE_IDS),
        _part(T, W, W_CUR),
        _part(T, W, W_DIFF),
        _part(T, W, W_STACK),
        table(T, FAN_START),
        table(T, FAN_RULE),
        table(T, ATOM_TAG),
        _part(T, W, W_LIVE),
        table(T, RULE_HEAD),
        _part(T, W, W_SAT),
        _part(T, W, W_CNT),
    )


@njit(cache=True)
def _play_a(
    vals, state, ids, does, width, next_of, pend, true_ids, cur, diff, stack, fan_start, fan_rule, tag,
    live, rule_head, sat, cnt,
):  # fmt: skip
    """`play()` of a propagating network on the arrays themselves."""
    ok = True
    for r in range(ids.shape[0]):
        a = does[r * width + ids[r]]
        if a >= 0:
            ok &= _flip(vals, a, 1, stack, fan_start, fan_rule, tag, live, rule_head, sat, cnt, pend)
    # The fluents whose next value differs, read while the does atoms are on (one pass, no
    # next-state vector), flipped in fluent order once they are off.
    nd = 0
    for f in range(next_of.shape[0]):
        a = next_of[f]
        nv = 0
        if a >= 0:
            nv = vals[a & MASK]
        if nv != state[f]:
            diff[nd] = f
            nd += 1
    for r in range(ids.shape[0]):
        a = does[r * width + ids[r]]
        if a >= 0:
            ok &= _flip(vals, a, 0, stack, fan_start, fan_rule, tag, live, rule_head, sat, cnt, pend)
    for j in range(nd):
        f = diff[j]
        v = 1 - state[f]
        state[f] = v
        cur[f] = v
        ok &= _flip(vals, true_ids[f], v, stack, fan_start, fan_rule, tag, live, rule_head, sat, cnt, pend)
    return ok


@njit(cache=True)
def _play_held(
    vals, state, ids, does, width, next_of, pend, true_ids, cur, diff, stack, fan_start, fan_rule, tag,
    live, rule_head, sat, cnt, held,
):  # fmt: skip
    """`_play_a()` of a network that holds its does atoms (``held``: the does atom of each
    role's last move, -1 for none).

    The does atoms of the last joint move stay on between moves: only what reads them
    changes with them (nothing ``legal``, ``goal`` or ``terminal`` needs does). A new joint
    move turns its does atoms on before it turns the held ones off, so an atom that both
    support keeps its value: Skirmish's "no move touches this cell", true for 62 of its 64
    cells under almost every move, no longer flips off and on with every move."""
    ok = True
    n_roles = ids.shape[0]
    for r in range(n_roles):
        a = does[r * width + ids[r]]
        if a >= 0 and a != held[r]:
            ok &= _flip(vals, a, 1, stack, fan_start, fan_rule, tag, live, rule_head, sat, cnt, pend)
    for r in range(n_roles):
        a = does[r * width + ids[r]]
        h = held[r]
        if h >= 0 and h != a:
            ok &= _flip(vals, h, 0, stack, fan_start, fan_rule, tag, live, rule_head, sat, cnt, pend)
        held[r] = a
    nd = 0
    for f in range(next_of.shape[0]):
        a = next_of[f]
        nv = 0
        if a >= 0:
            nv = vals[a & MASK]
        if nv != state[f]:
            diff[nd] = f
            nd += 1
    for j in range(nd):
        f = diff[j]
        v = 1 - state[f]
        state[f] = v
        cur[f] = v
        ok &= _flip(vals, true_ids[f], v, stack, fan_start, fan_rule, tag, live, rule_head, sat, cnt, pend)
    return ok


@njit(cache=True)
def _play_pend(
    vals, state, ids, does, width, pend, true_ids, cur, diff, stack, fan_start, fan_rule, tag, live, rule_head, sat,
    cnt, held,
):  # fmt: skip
    """`_play_a()` (``held`` empty) or `_play_held()` of a network that keeps the list of
    pending fluents (`_toggle()`): the fluents the move changes are read from the list
    instead of by comparing every fluent. (Separate from the two: the same choice inside
    them made tic-tac-toe's moves, which compare their 29 fluents, 15% slower.)"""
    ok = True
    hold = held.shape[0] > 0
    for r in range(ids.shape[0]):
        a = does[r * width + ids[r]]
        if a >= 0 and not (hold and a == held[r]):
            ok &= _flip(vals, a, 1, stack, fan_start, fan_rule, tag, live, rule_head, sat, cnt, pend)
    if hold:
        for r in range(ids.shape[0]):
            a = does[r * width + ids[r]]
            h = held[r]
            if h >= 0 and h != a:
                ok &= _flip(vals, h, 0, stack, fan_start, fan_rule, tag, live, rule_head, sat, cnt, pend)
            held[r] = a
    nd = pend[0]  # the pending fluents, ascending (a handful: an insertion sort)
    for j in range(nd):
        f = pend[1 + j]
        k = j - 1
        while k >= 0 and diff[k] > f:
            diff[k + 1] = diff[k]
            k -= 1
        diff[k + 1] = f
    if not hold:
        for r in range(ids.shape[0]):
            a = does[r * width + ids[r]]
            if a >= 0:
                ok &= _flip(vals, a, 0, stack, fan_start, fan_rule, tag, live, rule_head, sat, cnt, pend)
    for j in range(nd):
        f = diff[j]
        v = 1 - state[f]
        state[f] = v
        cur[f] = v
        _toggle(pend, f)
        ok &= _flip(vals, true_ids[f], v, stack, fan_start, fan_rule, tag, live, rule_head, sat, cnt, pend)
    return ok


@njit(cache=True, inline="always")
def _play_judge(T, W, state, ids, out, counts):
    """`play()`, then `status()` of the new state (no comparison of the states where
    ``W`` followed the move)."""
    if not play(T, W, state, ids):
        return STACK_OVERFLOW
    if T[INCREMENTAL] == 0:
        sync(T, W, state)
    return _judge(T, W, out, counts)


@njit(cache=True)
def advance(T, W, state, out, counts, ids, limit):
    """Play joint moves without a choice (at most ``limit``) until a role has one or the game
    is over. Returns ([`status()`][ggpzoo.envs.propnet.kernel.status] of the state reached, joint moves played)."""
    return _forced(T, W, state, out, counts, ids, limit, status(T, W, state, out, counts))


@njit(cache=True)
def _forced(T, W, state, out, counts, ids, limit, code):
    """`advance()` from a state ``W`` is at and judged (``code``, its status, legal moves in
    ``out``), as `_play_judge()` leaves it: no second look at the state."""
    played = 0
    for _ in range(MAX_FORCED):
        if code != FORCED or played >= limit:
            return code, played
        for r in range(counts.shape[0]):
            ids[r] = out[r, 0]
        code = _play_judge(T, W, state, ids, out, counts)
        played += 1
    return TOO_MANY_FORCED, played


@njit(cache=True)
def restart(T, W, state):
    """``state`` and ``W`` at the initial state (the snapshot of the work area there)."""
    init = table(T, INIT)
    for i in range(init.shape[0]):
        state[i] = init[i]
    snap = table(T, SNAP)
    for i in range(snap.shape[0]):
        W[i] = snap[i]


@njit(cache=True)
def reset(T, W, state):
    """``W`` at ``state`` from scratch: values in full (does off), then the counters and the
    live list from them (whatever ``W`` held)."""
    vals = _vals(T, W)
    vals[:] = 0
    true_ids = table(T, TRUE_IDS)
    for i in range(true_ids.shape[0]):
        vals[true_ids[i]] = state[i]
    _eval(vals, T, A_ORDER)
    _eval(vals, T, B_ORDER)
    if T[INCREMENTAL] == 0:
        return
    cur = _part(T, W, W_CUR)
    for i in range(state.shape[0]):
        cur[i] = state[i]
    _part(T, W, W_HELD)[:] = -1
    pend, next_of = _part(T, W, W_PEND), table(T, NEXT_OF)
    if pend.shape[0]:
        pend[0] = 0
        pend[1 + next_of.shape[0] :] = -1
        for f in range(next_of.shape[0]):
            a = next_of[f]
            if (vals[a] if a >= 0 else 0) != cur[f]:
                _toggle(pend, f)
    rule_head, rule_start, rule_lits = table(T, RULE_HEAD), table(T, RULE_START), table(T, RULE_LITS)
    sat, cnt = _part(T, W, W_SAT), _part(T, W, W_CNT)
    cnt[:] = 0
    for r in range(rule_head.shape[0]):
        c = 0
        for li in range(rule_start[r], rule_start[r + 1]):
            lit = rule_lits[li]
            if (vals[lit >> 1] ^ (lit & 1)) == 0:
                c += 1
        sat[r] = c
        if c == 0:
            cnt[rule_head[r]] += 1
    live = _part(T, W, W_LIVE)
    if live.shape[0] == 0:
        return
    legal_atom = table(T, LEGAL_ATOM)
    nl = legal_atom.shape[0]
    live[0] = 0
    live[1] = nl
    if not T[USE_LIVE]:
        return
    n = 0
    for li in range(nl):
        if vals[legal_atom[li]]:
            live[2 + n] = li
            live[2 + nl + li] = n
            n += 1
    live[0] = n


@njit(cache=True)
def playouts(T, W, n_games, seed, max_steps):
    """Play ``n_games`` uniformly random games from the start (each role a random legal move
    at every step, ``np.random`` seeded with ``seed``). Returns (joint moves, goal sums per
    role, OK or an error code)."""
    np.random.seed(seed)
    n_roles = T[N_ROLES]
    state = np.zeros(T[N_FLUENTS], np.uint8)
    out = np.zeros((n_roles, max(T[MAX_LEGAL], 1)), np.int64)
    counts = np.zeros(n_roles, np.int64)
    ids = np.zeros(n_roles, np.int64)
    g = np.zeros(n_roles, np.int64)
    goal_sum = np.zeros(n_roles, np.int64)
    steps = 0
    if T[INCREMENTAL]:
        return _playouts_inc(T, W, n_games, max_steps, state, out, counts, ids, g, goal_sum)
    for _ in range(n_games):
        restart(T, W, state)  # W at the initial state
        code = _judge(T, W, out, counts)
        for _t in range(max_steps):
            if code < 0:
                return steps, goal_sum, code
            if code == OVER:
                break
            for r in range(n_roles):
                ids[r] = out[r, 0] if counts[r] == 1 else out[r, np.random.randint(counts[r])]
            code = _play_judge(T, W, state, ids, out, counts)
            steps += 1
        if code < 0:
            return steps, goal_sum, code
        goals(T, W, g)
        goal_sum += g
    return steps, goal_sum, OK


@njit(cache=True)
def _playouts_inc(T, W, n_games, max_steps, state, out, counts, ids, g, goal_sum):
    """`playouts()` of a propagating network: the same games, with the tables' and the
    work area's views taken once instead of at every step."""
    vals, live, cur, diff = _vals(T, W), _part(T, W, W_LIVE), _part(T, W, W_CUR), _part(T, W, W_DIFF)
    stack, sat, cnt, held = _part(T, W, W_STACK), _part(T, W, W_SAT), _part(T, W, W_CNT), _part(T, W, W_HELD)
    fan_start, fan_rule, rule_head = table(T, FAN_START), table(T, FAN_RULE), table(T, RULE_HEAD)
    legal_atom, legal_role, legal_id = table(T, LEGAL_ATOM), table(T, LEGAL_ROLE), table(T, LEGAL_ID)
    gs, lguard, guard_lits = table(T, GUARD_START), table(T, LGUARD), table(T, GUARD_LITS)
    does, true_ids, tag, pend = table(T, DOES), table(T, TRUE_IDS), table(T, ATOM_TAG), _part(T, W, W_PEND)
    next_of = table(T, NEXT_OF)
    use_live, width, t_atom = T[USE_LIVE], T[MAX_LEGAL], T[TERMINAL_ATOM]
    n_roles = counts.shape[0]
    hold, pending = held.shape[0] > 0, pend.shape[0] > 0
    steps = 0
    for _ in range(n_games):
        restart(T, W, state)  # W at the initial state
        for _t in range(max_steps):
            if t_atom >= 0 and vals[t_atom]:
                break
            if (
                _legal_a(vals, use_live, live, legal_atom, legal_role, legal_id, gs, lguard, guard_lits, out, counts)
                >= 0
            ):
                return steps, goal_sum, UNMAPPED
            if _choosers(counts) == OVER:
                break
            for r in range(n_roles):
                ids[r] = out[r, 0] if counts[r] == 1 else out[r, np.random.randint(counts[r])]
            if pending:
                ok = _play_pend(
                    vals, state, ids, does, width, pend, true_ids, cur, diff, stack, fan_start, fan_rule, tag,
                    live, rule_head, sat, cnt, held,
                )  # fmt: skip
            elif hold:
                ok = _play_held(
                    vals, state, ids, does, width, next_of, pend, true_ids, cur, diff, stack, fan_start, fan_rule, tag,
                    live, rule_head, sat, cnt, held,
                )  # fmt: skip
            else:
                ok = _play_a(
                    vals, state, ids, does, width, next_of, pend, true_ids, cur, diff, stack, fan_start, fan_rule, tag,
                    live, rule_head, sat, cnt,
                )  # fmt: skip
            if not ok:
                return steps, goal_sum, STACK_OVERFLOW
            steps += 1
        goals(T, W, g)
        goal_sum += g
    return steps, goal_sum, OK


# ----------------------------------------------------------------------------- the dispatch's protocol
AUX_SIZE = 3  # role to choose (-1 over, -2 several), variant (unused), joint moves played
_ROLE, _STEP = 0, 2
# what turn_status returns besides a legal count (the dispatch's OVER and SIMULTANEOUS)
_OVER, _SIMULTANEOUS, _ERROR = -1, -2, -10


@njit(cache=True, inline="always")
def _out(T, W):
    return _part(T, W, W_OUT).reshape((np.int64(T[N_ROLES]), np.int64(max(T[MAX_LEGAL], 1))))


@njit(cache=True)
def _settle(T, W, board, aux, code):
    """From the state ``W`` is at, judged ``code`` (its status): play the forced joint moves,
    then note who chooses in ``aux``. Returns OK or an error code below -10."""
    out, counts = _out(T, W), _part(T, W, W_COUNTS)
    code, played = _forced(T, W, board, out, counts, _part(T, W, W_IDS), MAX_FORCED, code)
    aux[_STEP] += played
    if code < 0:
        return _ERROR + code
    if code == OVER:
        aux[_ROLE] = -1
    elif code == SIMULTANEOUS:
        aux[_ROLE] = -2
    else:
        aux[_ROLE] = 0
        for r in range(counts.shape[0]):
            if counts[r] > 1:
                aux[_ROLE] = r
    return OK


@njit(cache=True)
def init(T, W, board, aux):
    """``board`` and ``W`` at the start, forced moves played. Returns OK or an error code."""
    restart(T, W, board)
    aux[:] = 0
    return _settle(T, W, board, aux, status(T, W, board, _out(T, W), _part(T, W, W_COUNTS)))


@njit(cache=True, inline="always")
def _ascending(ids, n):
    """Sort ``ids[:n]`` ascending in place. The ids mostly come sorted already (a block scan
    reads each role's legal atoms in id order within a guard block): a check first, then an
    insertion sort for a list of at most 64 (the live list's order is arbitrary: measured on
    random orders, insertion takes 105 ns for 24 ids against numpy's 298, 516 against 593 for
    64, and 1,154 against 750 for 96), numpy's sort for a longer one."""
    for j in range(1, n):
        if ids[j] < ids[j - 1]:
            break
    else:
        return
    if n > 64:
        ids[:n].sort()
        return
    for j in range(1, n):
        x = ids[j]
        k = j - 1
        while k >= 0 and ids[k] > x:
            ids[k + 1] = ids[k]
            k -= 1
        ids[k + 1] = x


@njit(cache=True, inline="always")
def _report(T, W, aux, code, legal, goal_out):
    """`turn_status()`'s answer for the state ``W`` is judged at (``code``: its `status()`)."""
    out, counts = _out(T, W), _part(T, W, W_COUNTS)
    goals(T, W, goal_out)
    if code == OVER:
        aux[_ROLE] = -1
        return _OVER
    if code == SIMULTANEOUS:
        aux[_ROLE] = -2
        return _SIMULTANEOUS
    r = 0
    for j in range(counts.shape[0]):
        if counts[j] > 1:
            r = j
    aux[_ROLE] = r
    n = counts[r]
    for j in range(n):
        legal[j] = out[r, j]
    _ascending(legal, n)
    return n


@njit(cache=True)
def turn_status(T, W, board, aux, legal, goal_out):
    """The goals into ``goal_out``; returns the number of legal ids of the role to choose
    (``aux[0]``; into ``legal``, ascending), -1 when the game is over, -2 when several roles
    choose (see `role_legal()`), or an error code below -10."""
    code = status(T, W, board, _out(T, W), _part(T, W, W_COUNTS))
    if code < 0:
        return _ERROR + code
    return _report(T, W, aux, code, legal, goal_out)


@njit(cache=True)
def apply_joint_status(T, W, board, aux, ids, legal, goal_out):
    """`apply_joint()` then `turn_status()`, the new state judged once (its forced moves
    played): the status, or an error code below -10."""
    out, counts = _out(T, W), _part(T, W, W_COUNTS)
    code = _play_judge(T, W, board, ids, out, counts)
    if code == STACK_OVERFLOW:
        return _ERROR + STACK_OVERFLOW
    aux[_STEP] += 1
    code, played = _forced(T, W, board, out, counts, _part(T, W, W_IDS), MAX_FORCED, code)
    aux[_STEP] += played
    if code < 0:
        return _ERROR + code
    return _report(T, W, aux, code, legal, goal_out)


@njit(cache=True)
def apply_status(T, W, board, aux, action, legal, goal_out):
    """`apply()` then `turn_status()`, the new state judged once."""
    out, counts = _out(T, W), _part(T, W, W_COUNTS)
    ids = _part(T, W, W_IDS)
    for r in range(counts.shape[0]):
        ids[r] = out[r, 0]
    ids[aux[_ROLE]] = action
    return apply_joint_status(T, W, board, aux, ids, legal, goal_out)


@njit(cache=True)
def role_legal(T, W, board, aux, role, legal):
    """Role ``role``'s legal ids (ascending) into ``legal``; returns how many (0 when over).
    ``W`` must be at ``board`` (after `turn_status()`)."""
    if aux[_ROLE] == -1:
        return 0
    out, counts = _out(T, W), _part(T, W, W_COUNTS)
    n = counts[role]
    for j in range(n):
        legal[j] = out[role, j]
    _ascending(legal, n)
    return n


@njit(cache=True)
def apply_joint(T, W, board, aux, ids):
    """Play joint move ``ids`` (one legal id per role; ``W`` at ``board``), then the forced
    moves. Returns OK or an error code below -10."""
    code = _play_judge(T, W, board, ids, _out(T, W), _part(T, W, W_COUNTS))
    if code == STACK_OVERFLOW:
        return _ERROR + STACK_OVERFLOW
    aux[_STEP] += 1
    return _settle(T, W, board, aux, code)


@njit(cache=True)
def apply(T, W, board, aux, action):
    """Play ``action`` of the role to choose (the others play their one legal move)."""
    out, counts = _out(T, W), _part(T, W, W_COUNTS)
    ids = _part(T, W, W_IDS)
    for r in range(counts.shape[0]):
        ids[r] = out[r, 0]
    ids[aux[_ROLE]] = action
    return apply_joint(T, W, board, aux, ids)


@njit(cache=True)
def observe(T, board, role, out):
    """The observation of ``role`` into ``out`` (1-D): the sheet's base set, each fluent 1
    when it holds in ``board``, then a one-hot of the role (the GDL env's ``observation``)."""
    src = table(T, OBS_SRC)
    out[:] = 0
    for j in range(src.shape[0]):
        if src[j] >= 0:
            out[j] = board[src[j]]
    out[src.shape[0] + role] = 1
