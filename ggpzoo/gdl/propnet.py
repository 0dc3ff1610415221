"""The compiled path: a grounded game as a propositional network evaluated with numba.

`ggpzoo.gdl.ground.ground()` gives every ground rule instance ``head <= pos..., not
neg...`` over the dynamic atoms. Here each ground atom gets an id; an atom is the OR of its
instances, an instance the AND of its literals. Atoms are evaluated in dependency order
(Tarjan's components of the ground graph; a component with a positive cycle is iterated
to its least fixpoint; stratification keeps negation out of cycles) over a ``uint8`` value
array, in two phases:

* phase A, from the state (the ``true`` atoms): everything ``legal``, ``goal`` and
  ``terminal`` need;
* phase B, after the joint move is written into the ``does`` atoms: what ``next`` needs.

A state is a ``uint8`` vector over the grounding's fluents. `CompiledMachine` has
the interface of `ggpzoo.gdl.game.ExactMachine`; `random_playouts()` plays whole
random games inside one numba function (the benchmark, ``ggpzoo.gdl.cli.bench``).
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from ggpzoo.gdl.logic import _sccs
from ggpzoo.gdl.syntax import GDLError, goal_value, to_text

__all__ = ["CompiledMachine", "Propnet", "random_playouts"]

# A literal common to the rules of at least this many legal atoms becomes a guard. (Measured
# on the shipped sheets, guards double the playout speed of the turn-taking games; 4 beat
# 8 and 16 on tic-tac-toe and connect four and tied elsewhere.)
GUARD_MIN_SHARED = 4

# non-negative mask of an int32 index (see _flip)
MASK = 0x7FFFFFFF


# ----------------------------------------------------------------------------- kernels
@njit(cache=True)
def _eval(vals, order, rstart, rend, lstart, lend, lits, gstart, gend, gcyc):
    """Evaluate the atoms ``order`` (grouped into components) into ``vals``."""
    for g in range(gstart.shape[0]):
        if gcyc[g] == 0:
            for k in range(gstart[g], gend[g]):
                v = 0
                for r in range(rstart[k], rend[k]):
                    ok = 1
                    for li in range(lstart[r], lend[r]):
                        lit = lits[li]
                        if (vals[lit >> 1] ^ (lit & 1)) == 0:
                            ok = 0
                            break
                    if ok:
                        v = 1
                        break
                vals[order[k]] = v
        else:
            for k in range(gstart[g], gend[g]):
                vals[order[k]] = 0
            changed = True
            while changed:
                changed = False
                for k in range(gstart[g], gend[g]):
                    if vals[order[k]]:
                        continue
                    for r in range(rstart[k], rend[k]):
                        ok = 1
                        for li in range(lstart[r], lend[r]):
                            lit = lits[li]
                            if (vals[lit >> 1] ^ (lit & 1)) == 0:
                                ok = 0
                                break
                        if ok:
                            vals[order[k]] = 1
                            changed = True
                            break


@njit(cache=True)
def _load_state(vals, state, true_ids):
    for i in range(true_ids.shape[0]):
        vals[true_ids[i]] = state[i]


@njit(cache=True)
def _legal(vals, legal_atom, legal_role, legal_id, guard_start, guard_lits, n_roles, out, counts):
    """Legal action ids per role (``out[role, :counts[role]]``, in block order); returns the
    index of a legal atom outside the action space, or -1.

    Legal atoms come in blocks that share their *guards* (literals common to all the rules
    of an atom, e.g. ``(true (control r))``, stripped from the network so that flipping
    them propagates nothing): ``guard_start[b, 0:2]`` is block ``b``'s range of legal atoms,
    ``guard_start[b, 2:4]`` its range in ``guard_lits``; a block whose guards fail is skipped."""
    for r in range(n_roles):
        counts[r] = 0
    bad = -1
    for b in range(guard_start.shape[0]):
        ok = True
        for k in range(guard_start[b, 2], guard_start[b, 3]):
            lit = guard_lits[k]
            if (vals[lit >> 1] ^ (lit & 1)) == 0:
                ok = False
                break
        if not ok:
            continue
        for i in range(guard_start[b, 0], guard_start[b, 1]):
            if vals[legal_atom[i]]:
                r = legal_role[i]
                if legal_id[i] < 0:
                    bad = i
                else:
                    out[r, counts[r]] = legal_id[i]
                    counts[r] += 1
    return bad


@njit(cache=True)
def _goals(vals, goal_atom, goal_role, goal_value, out):
    out[:] = -1
    for i in range(goal_atom.shape[0]):
        if vals[goal_atom[i]] and goal_value[i] > out[goal_role[i]]:
            out[goal_role[i]] = goal_value[i]
    for r in range(out.shape[0]):
        out[r] = max(out[r], 0)


@njit(cache=True)
def _next(vals, next_atom, next_fluent, out):
    out[:] = 0
    for i in range(next_atom.shape[0]):  # one next atom per fluent: a store, not a branch
        out[next_fluent[i]] = vals[next_atom[i]]


@njit(cache=True)
def _copy(dst, src):
    """``dst[:] = src`` for 1-D arrays of one length (numba's slice assignment is a
    broadcasting loop, several times slower)."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True)
def _set_does(vals, does_atom, ids, value):
    for r in range(ids.shape[0]):
        a = does_atom[r, ids[r]]
        if a >= 0:
            vals[a] = value


@njit(cache=True)
def _playouts(
    n_games,
    seed,
    max_steps,
    init,
    vals,
    true_ids,
    a_order,
    a_rstart,
    a_rend,
    a_lstart,
    a_lend,
    a_lits,
    a_gstart,
    a_gend,
    a_gcyc,
    b_order,
    b_rstart,
    b_rend,
    b_lstart,
    b_lend,
    b_lits,
    b_gstart,
    b_gend,
    b_gcyc,
    terminal_atom,
    legal_atom,
    legal_role,
    legal_id,
    guard_start,
    guard_lits,
    n_roles,
    max_legal,
    does_atom,
    next_atom,
    next_fluent,
    goal_atom,
    goal_role,
    goal_value,
):
    """Play ``n_games`` uniformly random games; return (transitions, goal sums per role)."""
    np.random.seed(seed)
    state = init.copy()
    out = np.zeros((n_roles, max_legal), np.int64)
    counts = np.zeros(n_roles, np.int64)
    ids = np.zeros(n_roles, np.int64)
    goals = np.zeros(n_roles, np.int64)
    goal_sum = np.zeros(n_roles, np.int64)
    steps = 0
    for _ in range(n_games):
        state[:] = init
        for _t in range(max_steps):
            _load_state(vals, state, true_ids)
            _eval(vals, a_order, a_rstart, a_rend, a_lstart, a_lend, a_lits, a_gstart, a_gend, a_gcyc)
            if terminal_atom >= 0 and vals[terminal_atom]:
                break
            _legal(vals, legal_atom, legal_role, legal_id, guard_start, guard_lits, n_roles, out, counts)
            stuck = False
            for r in range(n_roles):
                if counts[r] == 0:
                    stuck = True
                    break
                ids[r] = out[r, 0] if counts[r] == 1 else out[r, np.random.randint(counts[r])]
            if stuck:
                break
            _set_does(vals, does_atom, ids, 1)
            _eval(vals, b_order, b_rstart, b_rend, b_lstart, b_lend, b_lits, b_gstart, b_gend, b_gcyc)
            _set_does(vals, does_atom, ids, 0)
            _next(vals, next_atom, next_fluent, state)
            steps += 1
        _goals(vals, goal_atom, goal_role, goal_value, goals)
        goal_sum += goals
    return steps, goal_sum


# ----------------------------------------------------------------------------- incremental
# For acyclic networks (no ground positive cycle, the usual case) the values are kept up to
# date by propagating changes (Sancho-style): each rule counts its satisfied literals, each
# atom its true rules; flipping an input updates only what depends on it.
@njit(cache=True)
def _flip(vals, a0, v0, stack, fan_start, fan_rule, live, rule_head, rule_need, rule_missing, atom_cnt):
    """Set input atom ``a0`` to ``v0`` and propagate. Returns False if the stack overflowed.

    ``fan_rule[k]`` is ``rule * 2 + negated`` for each literal that reads atom ``a``;
    ``rule_missing[r]`` counts the unsatisfied literals of rule ``r`` (true at 0) and
    ``atom_cnt[h]`` the true rules of atom ``h``. ``live`` keeps the list of true legal
    atoms (see `Propnet.live_layout()`)."""
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
    na = vals.shape[0]
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
                li = live[h]
                if li >= 0:  # a legal atom: add it to / remove it from the live list
                    nl = live[na + 1]
                    base = na + 2
                    if nv:
                        q = live[na]
                        live[base + q] = li
                        live[base + nl + li] = q
                        live[na] = q + 1
                    else:
                        q = live[base + nl + li]
                        last = live[na] - 1
                        moved = live[base + last]
                        live[base + q] = moved
                        live[base + nl + moved] = q
                        live[na] = last
                if top >= cap:
                    return False
                stack[top] = h * 2 + nv
                top += 1
    return True


@njit(cache=True)
def _legal_live(vals, live, legal_role, legal_id, lguard, guard_lits, n_roles, out, counts):
    """``_legal`` over the live list of true legal atoms (incremental networks)."""
    for r in range(n_roles):
        counts[r] = 0
    bad = -1
    na = vals.shape[0]
    base = na + 2
    for k in range(live[na]):
        li = live[base + k]
        ok = True
        for g in range(lguard[li, 0], lguard[li, 1]):
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


@njit(cache=True)
def _rebuild_live(vals, legal_atom, live):
    na = vals.shape[0]
    nl = legal_atom.shape[0]
    base = na + 2
    n = 0
    for li in range(nl):
        if vals[legal_atom[li]]:
            live[base + n] = li
            live[base + nl + li] = n
            n += 1
    live[na] = n


@njit(cache=True)
def _recount(vals, rule_head, rule_start, rule_lits, rule_missing, atom_cnt):
    """Counters from scratch, for values that are already right."""
    atom_cnt[:] = 0
    for r in range(rule_head.shape[0]):
        c = 0
        for li in range(rule_start[r], rule_start[r + 1]):
            lit = rule_lits[li]
            if (vals[lit >> 1] ^ (lit & 1)) == 0:
                c += 1
        rule_missing[r] = c
        if c == 0:
            atom_cnt[rule_head[r]] += 1


@njit(cache=True)
def _goto(vals, cur, state, true_ids, stack, fan_start, fan_rule, fan_neg, rule_head, rule_need, rule_sat, atom_cnt):
    """Move the network from state ``cur`` to ``state`` by flipping the fluents that differ."""
    ok = True
    for i in range(state.shape[0]):
        if state[i] != cur[i]:
            cur[i] = state[i]
            if not _flip(
                vals,
                true_ids[i],
                state[i],
                stack,
                fan_start,
                fan_rule,
                fan_neg,
                rule_head,
                rule_need,
                rule_sat,
                atom_cnt,
            ):
                ok = False
    return ok


@njit(cache=True)
def _does(vals, does_atom, ids, value, stack, fan_start, fan_rule, fan_neg, rule_head, rule_need, rule_sat, atom_cnt):
    ok = True
    for r in range(ids.shape[0]):
        a = does_atom[r, ids[r]]
        if a >= 0:
            if not _flip(vals, a, value, stack, fan_start, fan_rule, fan_neg, rule_head, rule_need, rule_sat, atom_cnt):
                ok = False
    return ok


@njit(cache=True)
def _playouts_inc(
    n_games,
    seed,
    max_steps,
    init,
    snap_vals,
    snap_sat,
    snap_cnt,
    snap_live,
    vals,
    cur,
    true_ids,
    stack,
    fan_start,
    fan_rule,
    fan_neg,
    rule_head,
    rule_need,
    rule_sat,
    atom_cnt,
    terminal_atom,
    legal_atom,
    legal_role,
    legal_id,
    guard_start,
    lguard,
    guard_lits,
    use_live,
    n_roles,
    max_legal,
    does_atom,
    next_atom,
    next_fluent,
    no_next,
    goal_atom,
    goal_role,
    goal_value,
):
    """``_playouts`` over the incremental network. Returns (transitions, goal sums, ok).

    Each game starts from the snapshot of the network at the initial state (``snap_*``, see
    `Propnet.set_live()`); ``no_next`` lists the fluents that no next rule makes true."""
    np.random.seed(seed)
    diff = np.zeros(init.shape[0], np.int64)
    out = np.zeros((n_roles, max_legal), np.int64)
    counts = np.zeros(n_roles, np.int64)
    ids = np.zeros(n_roles, np.int64)
    goals = np.zeros(n_roles, np.int64)
    goal_sum = np.zeros(n_roles, np.int64)
    steps = 0
    ok = True
    na = vals.shape[0]
    for _ in range(n_games):
        # Each game starts from a copy of the network at the initial state instead of flipping
        # the last game's fluents back (a third of the propagation work of a tic-tac-toe game).
        _copy(vals, snap_vals)
        _copy(rule_sat, snap_sat)
        _copy(atom_cnt, snap_cnt)
        if use_live:
            _copy(fan_neg[na:], snap_live)
        _copy(cur, init)
        nd = 0
        for _t in range(max_steps):
            # flip the fluents that changed in the last move (none at the start)
            for j in range(nd):
                f = diff[j]
                v = 1 - cur[f]
                cur[f] = v
                ok &= _flip(
                    vals, true_ids[f], v, stack, fan_start, fan_rule, fan_neg, rule_head, rule_need, rule_sat, atom_cnt
                )
            if terminal_atom >= 0 and vals[terminal_atom]:
                break
            if use_live:
                _legal_live(vals, fan_neg, legal_role, legal_id, lguard, guard_lits, n_roles, out, counts)
            else:
                _legal(vals, legal_atom, legal_role, legal_id, guard_start, guard_lits, n_roles, out, counts)
            stuck = False
            for r in range(n_roles):
                if counts[r] == 0:
                    stuck = True
                    break
                ids[r] = out[r, 0] if counts[r] == 1 else out[r, np.random.randint(counts[r])]
            if stuck:
                break
            ok &= _does(
                vals, does_atom, ids, 1, stack, fan_start, fan_rule, fan_neg, rule_head, rule_need, rule_sat, atom_cnt
            )
            # The fluents whose next value differs from the current one, read while the does
            # atoms are on (instead of writing the whole next state and comparing it with the
            # current one: one pass, no state vector). Measured side by side: +3-7% on tic-tac-toe,
            # +12-17% on connect four, +5-9% on breakthrough, +2% on Skirmish.
            nd = 0
            for i in range(next_atom.shape[0]):
                f = next_fluent[i] & MASK
                if vals[next_atom[i] & MASK] != cur[f]:
                    diff[nd] = f
                    nd += 1
            for i in range(no_next.shape[0]):  # a fluent without next rules is false next
                f = no_next[i]
                if cur[f]:
                    diff[nd] = f
                    nd += 1
            ok &= _does(
                vals, does_atom, ids, 0, stack, fan_start, fan_rule, fan_neg, rule_head, rule_need, rule_sat, atom_cnt
            )
            steps += 1
            if not ok:
                return steps, goal_sum, False
        _goals(vals, goal_atom, goal_role, goal_value, goals)
        goal_sum += goals
    return steps, goal_sum, ok


# ----------------------------------------------------------------------------- building
class _Phase:
    """The flat arrays of one evaluation phase."""

    def __init__(self, atoms_in_order, groups, rules_of, atom_id):
        order, rstart, rend, lstart, lend, lits = [], [], [], [], [], []
        for a in atoms_in_order:
            order.append(a)
            rstart.append(len(lstart))
            for lit_list in rules_of.get(a, ()):
                lstart.append(len(lits))
                lits.extend(lit_list)
                lend.append(len(lits))
            rend.append(len(lstart))
        self.order = np.array(order, np.int32)
        self.rstart = np.array(rstart, np.int32)
        self.rend = np.array(rend, np.int32)
        self.lstart = np.array(lstart, np.int32)
        self.lend = np.array(lend, np.int32)
        self.lits = np.array(lits, np.int32)
        self.gstart = np.array([g[0] for g in groups], np.int32)
        self.gend = np.array([g[1] for g in groups], np.int32)
        self.gcyc = np.array([g[2] for g in groups], np.uint8)

    def arrays(self):
        return (
            self.order,
            self.rstart,
            self.rend,
            self.lstart,
            self.lend,
            self.lits,
            self.gstart,
            self.gend,
            self.gcyc,
        )

    def run(self, vals):
        _eval(vals, *self.arrays())


# Legal moves are read from the live list of true legal atoms when a network has at least
# this many legal atoms, else by scanning them. The two give the same moves in different
# orders, so the choice must not depend on timing: a random move (and a search's answer)
# for a given seed must be the same in every process. Measured, random playouts on one
# core, live/scan: tic-tac-toe (20 legal atoms) 1.00, connect four (16) 0.87, breakthrough
# (310) 0.87, mad_bishops (1,142) 0.88, skirmish (2,730) 1.23, skirmish_endgame (2,730) 1.30.
LIVE_MIN_LEGAL = 2048


class Propnet:
    """The network of a game (see the module docstring).

    ``live``: read legal moves from the live list (True) or by scanning (False); None (the
    default) chooses by the number of legal atoms (`LIVE_MIN_LEGAL`)."""

    def __init__(self, game, live: bool | None = None):
        t0 = time.perf_counter()
        g = game.grounding()
        self.game = game
        roles = game.roles
        self.roles = roles
        ids: dict = {}

        def aid(atom):
            i = ids.get(atom)
            if i is None:
                i = ids[atom] = len(ids)
            return i

        self.fluents = list(g.fluents)
        true_ids = [aid(("true", f)) for f in self.fluents]
        heads: dict = {}
        for head, pos, neg in g.instances:
            heads.setdefault(head, []).append((pos, neg))
        # legal, goal, terminal or next defined by static rules only: always-true atoms
        for rel in (("legal", 2), ("goal", 2), ("terminal", 0), ("next", 1)):
            if rel not in game.program.dynamic:
                for fact in game.program.static_facts(rel):
                    heads.setdefault(fact, []).append(([], []))
        does_keys = [("does", r, m) for r in roles for m in game.actions[r]]
        for d in does_keys:
            aid(d)
        # legal atoms first, in (role, action id) order: the legal scan reads them in sequence
        role_ix = {r: i for i, r in enumerate(roles)}
        legal_heads = sorted(
            (h for h in heads if type(h) is tuple and h[0] == "legal" and h[1] in role_ix),
            key=lambda h: (role_ix[h[1]], game.action_ids[h[1]].get(h[2], -1)),
        )
        for h in legal_heads:
            aid(h)
        for h in heads:
            aid(h)
        known = set(ids)
        # instances -> literal lists; an atom with no instance is false
        rules_of: dict = {}
        deps: dict = {}
        n_rules = 0
        for head, insts in heads.items():
            hid = ids[head]
            for pos, neg in insts:
                if any(p not in known for p in pos):
                    continue  # a positive literal that is never true
                lit_list = [ids[p] * 2 for p in pos] + [ids[q] * 2 + 1 for q in neg if q in known]
                rules_of.setdefault(hid, []).append(lit_list)
                n_rules += 1
                d = deps.setdefault(hid, set())
                for p in pos:
                    if p in heads:
                        d.add(ids[p])
                for q in neg:
                    if q in heads:
                        d.add(ids[q])
        self.n_atoms = len(ids)
        self.atom_names = [None] * len(ids)  # relation name of each atom (for statistics)
        for a, i in ids.items():
            self.atom_names[i] = (
                a[0]
                if type(a) is tuple and a[0] not in ("true", "does")
                else (a[0] + ":" + (a[1][0] if type(a[1]) is tuple else a[1]) if type(a) is tuple else a)
            )
        # Guards: literals common to every rule of a legal atom that no rule reads. They are
        # checked when the legal moves are read instead of being propagated (in a turn-taking
        # game, (true (control ?r)) is in every legal rule and flips at every move).
        # Only literals that many legal atoms share become guards (a block of atoms then costs
        # one check).
        used = {l >> 1 for ls in rules_of.values() for ll in ls for l in ll}
        commons: dict = {}
        shared: dict = {}
        for h in legal_heads:
            hid = ids[h]
            rs = rules_of.get(hid)
            if not rs or hid in used:
                continue
            common = set(rs[0]).intersection(*rs[1:])
            commons[hid] = common
            for l in common:
                shared[l] = shared.get(l, 0) + 1
        guards: dict = {}
        need = GUARD_MIN_SHARED
        for hid, common in commons.items():
            common = {l for l in common if shared[l] >= need}
            if common:
                guards[hid] = sorted(common)
                rules_of[hid] = [[l for l in ll if l not in common] for ll in rules_of[hid]]
        self.n_rules = n_rules
        self.n_literals = sum(len(l) for ls in rules_of.values() for l in ls)
        derived = [ids[h] for h in heads]
        comps = _sccs(derived, deps)  # dependencies first
        # which derived atoms depend (transitively) on does
        does_set = {ids[d] for d in does_keys}
        by_does = set()
        for comp in comps:
            if any(
                any((l >> 1) in does_set or (l >> 1) in by_does for ls in rules_of.get(a, ()) for l in ls) for a in comp
            ):
                by_does.update(comp)

        def cone(targets):
            seen, todo = set(), list(targets)
            while todo:
                a = todo.pop()
                if a in seen:
                    continue
                seen.add(a)
                todo.extend(deps.get(a, ()))
            return seen

        inv = {i: a for a, i in ids.items()}
        legal_atoms = [i for a, i in ids.items() if type(a) is tuple and a[0] == "legal" and i in rules_of]
        goal_atoms = [i for a, i in ids.items() if type(a) is tuple and a[0] == "goal" and i in rules_of]
        term = ids.get("terminal", -1)
        term = term if term in rules_of else -1
        next_atoms = [i for a, i in ids.items() if type(a) is tuple and a[0] == "next" and i in rules_of]
        cone_a = cone(legal_atoms + goal_atoms + ([term] if term >= 0 else []))
        if cone_a & by_does:
            raise GDLError("legal, goal or terminal depends on does")
        cone_b = cone(next_atoms) - cone_a

        def phase(sel):
            atoms, groups = [], []
            for comp in comps:
                inside = [a for a in comp if a in sel]
                if not inside:
                    continue
                cyc = len(inside) > 1 or inside[0] in deps.get(inside[0], ())
                groups.append((len(atoms), len(atoms) + len(inside), int(cyc)))
                atoms.extend(inside)
            return _Phase(atoms, groups, rules_of, ids)

        self.phase_a = phase(cone_a)
        self.phase_b = phase(cone_b)
        self.true_ids = np.array(true_ids, np.int32)
        self.fluent_index = {f: i for i, f in enumerate(self.fluents)}
        n_roles = len(roles)
        role_ix = {r: i for i, r in enumerate(roles)}
        la, lr, li = [], [], []
        self.unmapped = []
        for i in sorted(legal_atoms):
            a = inv[i]
            if a[1] not in role_ix:
                continue
            la.append(i)
            lr.append(role_ix[a[1]])
            j = game.action_ids[a[1]].get(a[2], -1)
            if j < 0:
                self.unmapped.append(a)
            li.append(j)
        # legal atoms by role, then by guards (so that atoms sharing guards form one block)
        perm = sorted(range(len(la)), key=lambda k: (lr[k], tuple(guards.get(la[k], ())), li[k]))
        self.legal_atom = np.array([la[k] for k in perm], np.int32)
        self.legal_role = np.array([lr[k] for k in perm], np.int32)
        self.legal_id = np.array([li[k] for k in perm], np.int64)
        blocks, gl = [], []
        for j, k in enumerate(perm):
            gd = tuple(guards.get(la[k], ()))
            if not blocks or blocks[-1][1] != gd:
                blocks.append([j, gd, j + 1])
            else:
                blocks[-1][2] = j + 1
        gs = []
        for start, gd, end in blocks:
            gs.append((start, end, len(gl), len(gl) + len(gd)))
            gl.extend(gd)
        self.guard_start = np.array(gs, np.int32).reshape(-1, 4)
        self.guard_lits = np.array(gl, np.int32)
        lguard = np.zeros((len(la), 2), np.int32)  # guard range of each legal index
        for start, end, g0, g1 in gs:
            lguard[start:end] = (g0, g1)
        self.lguard = lguard
        self.max_legal = max([len(game.actions[r]) for r in roles] + [1])
        ga, gr, gv = [], [], []
        for i in goal_atoms:
            a = inv[i]
            if a[1] in role_ix:
                v = goal_value(a[2])
                if v is None:
                    raise game.program.bad_goal(a)
                ga.append(i)
                gr.append(role_ix[a[1]])
                gv.append(v)
        self.goal_atom = np.array(ga, np.int32)
        self.goal_role = np.array(gr, np.int32)
        self.goal_value = np.array(gv, np.int64)
        self.terminal_atom = term
        na, nf = [], []
        for i in next_atoms:
            f = inv[i][1]
            na.append(i)
            nf.append(self.fluent_index[f])
        self.next_atom = np.array(na, np.int32)
        self.next_fluent = np.array(nf, np.int32)
        self.no_next = np.array(sorted(set(range(len(self.fluents))) - set(nf)), np.int32)
        width = self.max_legal
        does = np.full((n_roles, width), -1, np.int32)
        for r in roles:
            for j, m in enumerate(game.actions[r]):
                does[role_ix[r], j] = ids[("does", r, m)]
        self.does_atom = does
        init = np.zeros(len(self.fluents), np.uint8)
        for f in game.initial_state():
            if f not in self.fluent_index:
                raise GDLError(f"init fluent {to_text(f)} is missing from the grounding")
            init[self.fluent_index[f]] = 1
        self.init = init
        self.vals = np.zeros(self.n_atoms, np.uint8)
        self.last = None  # the state object the values were last brought to
        self.use_live = False
        self.incremental = not (self.phase_a.gcyc.any() or self.phase_b.gcyc.any())
        if self.incremental:
            heads_in = list(self.phase_a.order) + list(self.phase_b.order)
            rh, rs, rl = [], [0], []
            for a in heads_in:
                for lit_list in rules_of.get(int(a), ()):
                    rh.append(int(a))
                    rl.extend(lit_list)
                    rs.append(len(rl))
            self.rule_head = np.array(rh, np.int32)
            self.rule_start = np.array(rs, np.int32)
            self.rule_lits = np.array(rl, np.int32)
            self.rule_need = np.diff(self.rule_start).astype(np.int32)
            fan = [[] for _ in range(self.n_atoms)]
            for r in range(len(rh)):
                for li in range(rs[r], rs[r + 1]):
                    fan[rl[li] >> 1].append((r, rl[li] & 1))
            fs = np.zeros(self.n_atoms + 1, np.int32)
            fs[1:] = np.cumsum([len(f) for f in fan])
            self.fan_start = fs
            self.fan_rule = np.array([r * 2 + n for f in fan for r, n in f], np.int32)
            # the live list of true legal atoms: [legal index of each atom or -1 | count | L |
            # list (L) | position of each legal index in the list (L)]
            nl = len(self.legal_atom)
            self.fan_neg = np.full(
                self.n_atoms + 2 + 2 * nl, -1, np.int32
            )  # the slot of _flip's arguments that carries it
            self.fan_neg[self.n_atoms] = 0
            self.fan_neg[self.n_atoms + 1] = nl
            self.rule_sat = np.zeros(len(rh), np.int32)
            self.atom_cnt = np.zeros(self.n_atoms, np.int32)
            self.stack = np.zeros(4 * self.n_atoms + 64, np.int32)
            self.cur = np.zeros(len(self.fluents), np.uint8)
            self.use_live = False
            self.reset_values(self.init)
            if live is None:
                live = len(self.legal_atom) >= LIVE_MIN_LEGAL
            self.set_live(live)
        self.seconds = time.perf_counter() - t0 + g.seconds

    def set_live(self, live: bool) -> None:
        """Read legal moves from the live list of true legal atoms (``True``) or by scanning
        the blocks of legal atoms (``False``); the answers are the same, the speed is not."""
        nl = len(self.legal_atom)
        self.fan_neg[: self.n_atoms] = -1
        if live:
            self.fan_neg[self.legal_atom] = np.arange(nl, dtype=np.int32)
        self.use_live = bool(live)
        self.reset_values(self.init)
        # the network at the initial state, copied back at the start of each random game
        self.snap_vals = self.vals.copy()
        self.snap_sat = self.rule_sat.copy()
        self.snap_cnt = self.atom_cnt.copy()
        self.snap_live = self.fan_neg[self.n_atoms :].copy()

    def playout_args(self) -> tuple:
        """The arguments of ``_playouts_inc`` after ``(n_games, seed, max_steps)``."""
        return (
            self.init,
            self.snap_vals,
            self.snap_sat,
            self.snap_cnt,
            self.snap_live,
            self.vals,
            self.cur,
            self.true_ids,
            *self.inc_arrays(),
            self.terminal_atom,
            self.legal_atom,
            self.legal_role,
            self.legal_id,
            self.guard_start,
            self.lguard,
            self.guard_lits,
            self.use_live,
            len(self.roles),
            self.max_legal,
            self.does_atom,
            self.next_atom,
            self.next_fluent,
            self.no_next,
            self.goal_atom,
            self.goal_role,
            self.goal_value,
        )

    def batch_arrays(self) -> dict:
        """The read-only arrays a kernel needs to keep many states of this network, each with
        its own values (``ggpzoo.gdl.batch``): the network's layout, and for a propagating
        network the snapshot of its values and counters at the initial state.

        Keys: ``incremental``, ``use_live``, ``n_atoms``, ``init``, ``true_ids``, ``phase_a``
        and ``phase_b`` (each phase's arrays, for full evaluation), ``legal`` (terminal atom,
        legal atoms, roles, ids, guard blocks, guard range per legal atom, guard literals),
        ``moves`` (does atoms, next atoms, their fluents, goal atoms, roles, values), and for a
        propagating network ``fan`` (fan_start, fan_rule, rule_head, rule_need), ``live_index``
        (the legal index of each atom, -1 elsewhere: the head of ``fan_neg``) and ``snap``
        (values, rule counters, atom counters, the live list, at the initial state). The
        caller copies what it mutates; the network itself is not touched."""
        out = {
            "incremental": bool(self.incremental),
            "use_live": bool(self.use_live),
            "n_atoms": int(self.n_atoms),
            "init": self.init,
            "true_ids": self.true_ids,
            "phase_a": self.phase_a.arrays(),
            "phase_b": self.phase_b.arrays(),
            "legal": (
                np.int64(self.terminal_atom),
                self.legal_atom,
                self.legal_role,
                self.legal_id,
                self.guard_start,
                self.lguard,
                self.guard_lits,
            ),
            "moves": (
                self.does_atom,
                self.next_atom,
                self.next_fluent,
                self.goal_atom,
                self.goal_role,
                self.goal_value,
            ),
        }
        if self.incremental:
            out["fan"] = (self.fan_start, self.fan_rule, self.rule_head, self.rule_need)
            out["live_index"] = self.fan_neg[: self.n_atoms].copy()
            out["snap"] = (self.snap_vals, self.snap_sat, self.snap_cnt, self.snap_live)
        return out

    def inc_arrays(self):
        return (
            self.stack,
            self.fan_start,
            self.fan_rule,
            self.fan_neg,
            self.rule_head,
            self.rule_need,
            self.rule_sat,
            self.atom_cnt,
        )

    def reset_values(self, state) -> None:
        """Full evaluation at ``state`` (does all off), then the counters from it."""
        vals = self.vals
        vals[:] = 0
        _load_state(vals, state, self.true_ids)
        self.phase_a.run(vals)
        self.phase_b.run(vals)
        self.last = None
        if self.incremental:
            self.cur[:] = state
            _recount(vals, self.rule_head, self.rule_start, self.rule_lits, self.rule_sat, self.atom_cnt)
            if self.use_live:
                _rebuild_live(vals, self.legal_atom, self.fan_neg)

    def stats(self) -> dict:
        return {
            "atoms": self.n_atoms,
            "rules": self.n_rules,
            "literals": self.n_literals,
            "phase_a_atoms": len(self.phase_a.order),
            "phase_b_atoms": len(self.phase_b.order),
            "fluents": len(self.fluents),
            "seconds": round(self.seconds, 2),
            "incremental": self.incremental,
            "live_legal": self.use_live,
        }


def random_playouts(
    net: Propnet,
    n_games: int,
    seed: int = 0,
    max_steps: int = 100_000,
    clock=time.perf_counter,
    incremental: bool | None = None,
):
    """Play random games in numba; returns (transitions, seconds, mean goal per role).

    ``clock`` times the games (wall clock by default; ``time.process_time`` gives the CPU
    time of this process, which other jobs on a shared machine do not inflate).
    ``incremental=False`` evaluates the network in full at every state even where it could
    propagate changes (a check: with the block scan of legal moves, ``net.use_live`` False,
    both play the same games for a seed)."""
    if net.incremental and incremental is not False:
        net.reset_values(net.init)
        args = net.playout_args()
        _playouts_inc(1, seed, max_steps, *args)
        t = clock()
        steps, goal_sum, ok = _playouts_inc(n_games, seed, max_steps, *args)
        dt = clock() - t
        if not ok:
            raise GDLError("propagation stack overflow")
        net.reset_values(net.init)
        return int(steps), dt, goal_sum / max(n_games, 1)
    A, B = net.phase_a.arrays(), net.phase_b.arrays()
    args = (
        net.init,
        net.vals,
        net.true_ids,
        *A,
        *B,
        net.terminal_atom,
        net.legal_atom,
        net.legal_role,
        net.legal_id,
        net.guard_start,
        net.guard_lits,
        len(net.roles),
        net.max_legal,
        net.does_atom,
        net.next_atom,
        net.next_fluent,
        net.goal_atom,
        net.goal_role,
        net.goal_value,
    )
    _playouts(1, seed, max_steps, *args)  # compile / warm up
    t = clock()
    steps, goal_sum = _playouts(n_games, seed, max_steps, *args)
    dt = clock() - t
    return int(steps), dt, goal_sum / max(n_games, 1)


class CompiledMachine:
    """The id-based machine over a `Propnet` (interface of ``ExactMachine``).

    States are ``uint8`` vectors over ``net.fluents``."""

    backend = "compiled"

    def __init__(self, game):
        self.game = game
        self.roles = game.roles
        self.net = net = game.propnet()
        self._out = np.zeros((len(self.roles), net.max_legal), np.int64)
        self._counts = np.zeros(len(self.roles), np.int64)
        self._goals = np.zeros(len(self.roles), np.int64)
        # game.fluents (the observation's base set) -> positions in the net's state
        gi = []
        for f in game.fluents:
            gi.append(net.fluent_index.get(f, -1))
        self._obs_index = np.array(gi, np.int64)
        self._obs_valid = self._obs_index >= 0

    def initial(self):
        return self.net.init.copy()

    def _phase_a(self, state):
        net = self.net
        state = np.asarray(state, np.uint8)
        if state.shape != net.init.shape:
            raise ValueError(
                f"a compiled state is a uint8 vector of {net.init.shape[0]} fluents, got shape {state.shape}"
            )
        if net.incremental:  # flips only the fluents that differ from the net's current state
            if not _goto(net.vals, net.cur, state, net.true_ids, *net.inc_arrays()):
                net.reset_values(state)
        elif net.last is None or not np.array_equal(net.last, state):
            _load_state(net.vals, state, net.true_ids)
            net.phase_a.run(net.vals)
            net.last = state.copy()  # the state the values are for (shared by every machine on this net)

    def legal(self, state) -> list:
        self._phase_a(state)
        net = self.net
        if net.use_live:
            bad = _legal_live(
                net.vals,
                net.fan_neg,
                net.legal_role,
                net.legal_id,
                net.lguard,
                net.guard_lits,
                len(self.roles),
                self._out,
                self._counts,
            )
        else:
            bad = _legal(
                net.vals,
                net.legal_atom,
                net.legal_role,
                net.legal_id,
                net.guard_start,
                net.guard_lits,
                len(self.roles),
                self._out,
                self._counts,
            )
        if bad >= 0:
            raise GDLError(
                "a legal move outside the action space (the sheet's input relation): "
                + ", ".join(to_text(x) for x in net.unmapped[:3])
            )
        return [np.sort(self._out[r, : self._counts[r]]) for r in range(len(self.roles))]

    def terminal(self, state) -> bool:
        self._phase_a(state)
        t = self.net.terminal_atom
        return bool(t >= 0 and self.net.vals[t])

    def goals(self, state) -> np.ndarray:
        self._phase_a(state)
        net = self.net
        _goals(net.vals, net.goal_atom, net.goal_role, net.goal_value, self._goals)
        return self._goals.copy()

    def next(self, state, ids):
        net = self.net
        self._phase_a(state)
        ids = np.asarray(ids, np.int64)
        if (
            ids.shape != (len(self.roles),)
            or (ids < 0).any()
            or any(int(i) >= len(self.game.actions[r]) for r, i in zip(self.roles, ids, strict=False))
        ):
            raise ValueError(f"a joint move is one action id per role {self.roles}, got {ids.tolist()}")
        out = np.zeros(len(net.fluents), np.uint8)
        if net.incremental:
            ok = _does(net.vals, net.does_atom, ids, 1, *net.inc_arrays())
            _next(net.vals, net.next_atom, net.next_fluent, out)
            ok &= _does(net.vals, net.does_atom, ids, 0, *net.inc_arrays())
            if not ok:
                raise GDLError("propagation stack overflow")
        else:
            _set_does(net.vals, net.does_atom, ids, 1)
            net.phase_b.run(net.vals)
            _set_does(net.vals, net.does_atom, ids, 0)
            _next(net.vals, net.next_atom, net.next_fluent, out)
            net.last = None
        return out

    def fluents(self, state) -> frozenset:
        return frozenset(self.net.fluents[i] for i in np.flatnonzero(state))

    def fluent_vector(self, state) -> np.ndarray:
        v = np.zeros(len(self._obs_index), np.uint8)
        v[self._obs_valid] = state[self._obs_index[self._obs_valid]]
        return v
