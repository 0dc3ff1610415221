"""The compiled path: a grounded game as a propositional network evaluated with numba.

`ggpzoo.gdl.ground.ground()` gives every ground rule instance ``head <= pos..., not
neg...`` over the dynamic atoms. Here each ground atom gets an id; an atom is the OR of its
instances, an instance the AND of its literals. Atoms are evaluated in dependency order
(Tarjan's components of the ground graph; a component with a positive cycle is iterated
to its least fixpoint; stratification keeps negation out of cycles), in two phases:

* phase A, from the state (the ``true`` atoms): everything ``legal``, ``goal`` and
  ``terminal`` need;
* phase B, after the joint move is written into the ``does`` atoms: what ``next`` needs.

A state is a ``uint8`` vector over the grounding's fluents. The network is built here once
per sheet, as the read-only tables `Propnet.tables` that the table interpreter
`ggpzoo.envs.propnet.kernel` runs (each game on its own work area, `Propnet.work()`).
`CompiledMachine` has the interface of `ggpzoo.gdl.game.ExactMachine`;
`random_playouts()` plays whole random games inside numba (the benchmark,
``ggpzoo.gdl.cli.bench``).
"""

from __future__ import annotations

import time

import numpy as np

from ggpzoo.envs.propnet import kernel
from ggpzoo.gdl.logic import _sccs
from ggpzoo.gdl.syntax import GDLError, goal_value, to_text

__all__ = ["CompiledMachine", "Propnet", "random_playouts"]

# A literal common to the rules of at least this many legal atoms becomes a guard. (Measured
# on the shipped sheets, guards double the playout speed of the turn-taking games; 4 beat
# 8 and 16 on tic-tac-toe and connect four and tied elsewhere.)
GUARD_MIN_SHARED = 4


# Rules of an atom that share a literal are factored when at least this many do:
# ``h <= l, r_i`` (for each of them) becomes ``h <= l, x`` and ``x <= r_i`` (a new atom ``x``), so
# a change of ``l`` reaches one rule instead of every one. (The corpus's Skirmish:
# ``(not (true (control ?opponent)))`` in 64 of the 128 rules of each capture-count atom
# reached 275 rules at every change of turn.)
FACTOR_MIN_RULES = 32


def _factor(rules_of: dict, deps: dict, derived: list, ids: dict) -> int:
    """Factor shared literals out of the rules of each atom (see `FACTOR_MIN_RULES`), in
    place: the most shared literal first, with every literal its rules all share; new atoms
    get ids after the others (``ids`` and ``derived`` grow, ``deps`` gets theirs) and are
    factored in turn. The atoms' values are unchanged, since ``OR_i (C AND r_i) OR rest =
    (C AND OR_i r_i) OR rest``. Returns the number of new atoms."""
    n = 0
    todo = list(rules_of)
    while todo:
        h = todo.pop()
        while True:
            rs = rules_of[h]
            if len(rs) < FACTOR_MIN_RULES:
                break
            count: dict = {}
            for ll in rs:
                for lit in ll:
                    count[lit] = count.get(lit, 0) + 1
            best = min(count, key=lambda lit: (-count[lit], lit), default=None)
            if best is None or count[best] < FACTOR_MIN_RULES:
                break
            group = [ll for ll in rs if best in ll]
            rest = [ll for ll in rs if best not in ll]
            common = set(group[0]).intersection(*group[1:])
            x = len(ids)
            ids[("factor", x)] = x
            derived.append(x)
            rules_of[x] = [[lit for lit in ll if lit not in common] for ll in group]
            rules_of[h] = rest + [sorted(common) + [x * 2]]
            d = deps.get(h, set())
            deps[x] = set(d)  # a superset of x's own: only the order of evaluation reads it
            deps[h] = d | {x}
            todo.append(x)
            n += 1
    return n


class _Phase:
    """The flat arrays of one evaluation phase.

    With ``does`` (phase B: the does atoms), a rule with a positive does literal whose
    other literals are all inputs of the phase (no atom the phase computes) is *keyed* on
    its first such does atom: each atom's keyed rules come after its other rules (``uend``:
    where they start), and the keyed rules of each does atom ``d`` are ``key_start[d]`` to
    ``key_start[d + 1]``: rule ``q`` makes ``key_head[q]`` true where ``d`` and its other
    literals, ``key_lits[key_lstart[q]:key_lstart[q + 1]]``, are. Bit lanes evaluate only
    the keyed rules of the moves played (`ggpzoo.envs.propnet.lanes`); the other
    evaluations read every rule, in any order.
    """

    def __init__(self, atoms_in_order, groups, rules_of, atom_id, does=None, n_atoms=0):
        order, rstart, rend, lstart, lend, lits, uend = [], [], [], [], [], [], []
        inside = set(atoms_in_order)
        keyed = {}  # does atom -> its keyed rules

        def key(lit_list):
            if not does:
                return -1
            if any((lit >> 1) in inside for lit in lit_list):
                return -1
            return next((lit >> 1 for lit in lit_list if not lit & 1 and (lit >> 1) in does), -1)

        for a in atoms_in_order:
            order.append(a)
            rstart.append(len(lstart))
            rules = [(key(ll), ll) for ll in rules_of.get(a, ())]
            rules.sort(key=lambda kr: kr[0] >= 0)  # stable: the keyed ones last
            for k, lit_list in rules:
                if k >= 0:
                    rest = list(lit_list)
                    rest.remove(2 * k)
                    keyed.setdefault(k, []).append((a, rest))
                lstart.append(len(lits))
                lits.extend(lit_list)
                lend.append(len(lits))
            uend.append(rstart[-1] + sum(k < 0 for k, _ in rules))
            rend.append(len(lstart))
        self.uend = np.array(uend, np.int32)
        counts = np.zeros(n_atoms + 1, np.int64)
        for d, rs in keyed.items():
            counts[d + 1] = len(rs)
        self.key_start = np.cumsum(counts).astype(np.int32) if does else np.zeros(0, np.int32)
        ordered = [hr for d in sorted(keyed) for hr in keyed[d]]
        self.key_head = np.array([h for h, _ in ordered], np.int32)
        self.key_lstart = np.cumsum([0] + [len(rest) for _, rest in ordered]).astype(np.int32)
        self.key_lits = np.array([lit for _, rest in ordered for lit in rest], np.int32)
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


# Legal moves are read from the live list of true legal atoms when a network has at least
# this many legal atoms, else by scanning them. The two give the same moves in different
# orders, so the choice must not depend on timing: a random move (and a search's answer)
# for a given seed must be the same in every process. Measured, random playouts on one
# core, live/scan: tic-tac-toe (20 legal atoms) 1.00, connect four (16) 0.87, breakthrough
# (310) 0.87, mad_bishops (1,142) 0.88, skirmish (2,730) 1.23, skirmish_endgame (2,730) 1.30.
LIVE_MIN_LEGAL = 2048

# A propagating network keeps the does atoms of the last joint move on between moves (see
# `ggpzoo.envs.propnet.kernel`) when at least this many of its rules make an atom the OR
# of does atoms (an atom true under most moves, like the corpus Skirmish's "no move touches
# this cell": 222,208 such rules, which flipped 62 atoms on and off at every move).
# Measured, random playouts on one core, the same network held/released: the corpus's
# Skirmish 1.41, the shipped skirmish 1.03, mad_bishops 1.01, breakthrough 1.01 (616 such
# rules), connect four 0.98 and tic-tac-toe 1.05 (none).
HOLD_MIN_DOES_OR = 1000

# A propagating network with at least this many fluents keeps the list of the fluents whose
# next value differs from their value up to date as its next atoms flip, so that a move
# flips them without comparing every fluent; a smaller one compares them all (cheaper there
# than the bookkeeping). The same games either way. Measured, random playouts per CPU-second
# on one core, list/compare: tic-tac-toe (29 fluents) 0.90, connect four (86) 1.08,
# mad_bishops (102) 1.02, breakthrough (130) 1.04, the corpus's checkers (413) 0.99, tron
# (432) 1.03 and Skirmish (904) 1.08, skirmish_endgame (768) 1.17, skirmish (1,008) 1.16.
PEND_MIN_FLUENTS = 128


class Propnet:
    """The network of a game (see the module docstring).

    ``live``: read legal moves from the live list (True) or by scanning (False); None (the
    default) chooses by the number of legal atoms (`LIVE_MIN_LEGAL`). ``hold_does``: keep
    the last joint move's does atoms on between moves (True) or not (False); None (the
    default) chooses by the rules that make an atom an OR of does atoms
    (`HOLD_MIN_DOES_OR`). ``track_next``: keep the list of the fluents the next move changes
    (True) or compare every fluent at each move (False); None (the default) chooses by the
    number of fluents (`PEND_MIN_FLUENTS`). Either way the answers are the same."""

    def __init__(self, game, live: bool | None = None, hold_does: bool | None = None, track_next: bool | None = None):
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
        derived = [ids[h] for h in heads]
        self.n_factored = _factor(rules_of, deps, derived, ids)
        self.ids = ids  # ground atom -> its id (("factor", id) for an atom factoring made)
        self.n_atoms = len(ids)
        self.atom_names = [None] * len(ids)  # relation name of each atom (for statistics)
        for a, i in ids.items():
            self.atom_names[i] = (
                a[0]
                if type(a) is tuple and a[0] not in ("true", "does")
                else (a[0] + ":" + (a[1][0] if type(a[1]) is tuple else a[1]) if type(a) is tuple else a)
            )
        does_set = {ids[d] for d in does_keys}
        # rules of the atoms that are an OR of does atoms (see HOLD_MIN_DOES_OR)
        self.n_does_or = sum(
            len(rs)
            for rs in rules_of.values()
            if all(len(ll) == 1 and not ll[0] & 1 and (ll[0] >> 1) in does_set for ll in rs)
        )
        self.n_rules = n_rules
        self.n_literals = sum(len(l) for ls in rules_of.values() for l in ls)
        comps = _sccs(derived, deps)  # dependencies first
        # which derived atoms depend (transitively) on does
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

        def phase(sel, does=None):
            atoms, groups = [], []
            for comp in comps:
                inside = [a for a in comp if a in sel]
                if not inside:
                    continue
                cyc = len(inside) > 1 or inside[0] in deps.get(inside[0], ())
                groups.append((len(atoms), len(atoms) + len(inside), int(cyc)))
                atoms.extend(inside)
            return _Phase(atoms, groups, rules_of, ids, does, len(ids))

        self.phase_a = phase(cone_a)
        self.phase_b = phase(cone_b, does_set)
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
        # the next atom of each fluent (one at most), -1 for a fluent no next rule makes true
        self.next_of = np.full(len(self.fluents), -1, np.int32)
        self.next_of[np.array(nf, np.int64)] = np.array(na, np.int32)
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
            fan = [[] for _ in range(self.n_atoms)]
            for r in range(len(rh)):
                for li in range(rs[r], rs[r + 1]):
                    fan[rl[li] >> 1].append((r, rl[li] & 1))
            fs = np.zeros(self.n_atoms + 1, np.int32)
            fs[1:] = np.cumsum([len(f) for f in fan])
            self.fan_start = fs
            self.fan_rule = np.array([r * 2 + n for f in fan for r, n in f], np.int32)
        if hold_does is None:
            hold_does = self.n_does_or >= HOLD_MIN_DOES_OR
        self.hold_does = bool(hold_does) and self.incremental
        if track_next is None:
            track_next = len(self.fluents) >= PEND_MIN_FLUENTS
        self.track_next = bool(track_next) and self.incremental
        if live is None:
            live = len(self.legal_atom) >= LIVE_MIN_LEGAL
        self.set_live(live)
        self.seconds = time.perf_counter() - t0 + g.seconds

    def set_live(self, live: bool) -> None:
        """Read legal moves from the live list of true legal atoms (``True``) or by scanning
        the blocks of legal atoms (``False``); the answers are the same, the speed is not.
        Builds `tables` again (work areas made before are for the old tables)."""
        self.use_live = bool(live) and self.incremental
        self.tables = self._pack(self.incremental)

    def _pack(self, incremental: bool) -> np.ndarray:
        """The network's tables ``T`` (`ggpzoo.envs.propnet.kernel`), propagating or not."""
        K = kernel
        na, nf, nl = self.n_atoms, len(self.fluents), len(self.legal_atom)
        scalars = {
            K.INCREMENTAL: int(incremental),
            K.USE_LIVE: int(self.use_live and incremental),
            K.N_ATOMS: na,
            K.N_FLUENTS: nf,
            K.N_ROLES: len(self.roles),
            K.MAX_LEGAL: self.max_legal,
            K.TERMINAL_ATOM: self.terminal_atom,
        }
        nr, width = len(self.roles), max(self.max_legal, 1)
        work = {K.W_VALS: (na + 3) // 4, K.W_OUT: nr * width, K.W_COUNTS: nr, K.W_IDS: nr}
        obs_src = np.array([self.fluent_index.get(f, -1) for f in self.game.fluents], np.int32)
        tables = {K.TRUE_IDS: self.true_ids, K.INIT: self.init, K.OBS_SRC: obs_src}
        for base, ph in ((K.A_ORDER, self.phase_a), (K.B_ORDER, self.phase_b)):
            for j, arr in enumerate(ph.arrays()):
                tables[base + j] = arr
        tables.update(
            {
                K.LEGAL_ATOM: self.legal_atom,
                K.LEGAL_ROLE: self.legal_role,
                K.LEGAL_ID: self.legal_id,
                K.GUARD_START: self.guard_start,
                K.LGUARD: self.lguard,
                K.GUARD_LITS: self.guard_lits,
                K.DOES: self.does_atom,
                K.NEXT_OF: self.next_of,
                K.GOAL_ATOM: self.goal_atom,
                K.GOAL_ROLE: self.goal_role,
                K.GOAL_VALUE: self.goal_value,
                K.B_UEND: self.phase_b.uend,
                K.KEY_START: self.phase_b.key_start,
                K.KEY_HEAD: self.phase_b.key_head,
                K.KEY_LSTART: self.phase_b.key_lstart,
                K.KEY_LITS: self.phase_b.key_lits,
            }
        )
        if incremental:
            # per atom: its legal index if the live list holds it, -2 - f for the next atom of
            # fluent f (a next atom is never a legal one), else -1
            tag = np.full(na, -1, np.int32)
            if self.track_next:
                has_next = self.next_of >= 0
                tag[self.next_of[has_next]] = -2 - np.flatnonzero(has_next)
            if self.use_live:
                tag[self.legal_atom] = np.arange(nl, dtype=np.int32)
            work.update(
                {
                    K.W_CUR: nf,
                    K.W_LIVE: 2 + 2 * nl,
                    K.W_SAT: len(self.rule_head),
                    K.W_CNT: na,
                    K.W_HELD: len(self.roles) if self.hold_does else 0,
                    K.W_PEND: 1 + 2 * nf if self.track_next else 0,  # the fluents the next move changes
                    K.W_DIFF: nf,
                    K.W_STACK: 4 * na + 64,
                }
            )
            tables.update(
                {
                    K.FAN_START: self.fan_start,
                    K.FAN_RULE: self.fan_rule,
                    K.RULE_HEAD: self.rule_head,
                    K.RULE_START: self.rule_start,
                    K.RULE_LITS: self.rule_lits,
                    K.ATOM_TAG: tag,
                }
            )
        keep = sum(work.get(p, 0) for p in range(K.W_DIFF))  # every part but the scratch
        tables[K.SNAP] = np.zeros(keep, np.int32)
        T = K.pack(scalars, work, tables)
        # the work area at the initial state: the values and counters from scratch
        W = np.zeros(int(T[K.W_SIZE]), np.int32)
        K.reset(T, W, self.init)
        s = int(T[K.TAB + 2 * K.SNAP])
        T[s : s + keep] = W[:keep]
        return T

    def work(self, tables: np.ndarray | None = None) -> np.ndarray:
        """A new work area of ``tables`` (default `tables`) at the initial state."""
        T = self.tables if tables is None else tables
        W = np.zeros(int(T[kernel.W_SIZE]), np.int32)
        kernel.restart(T, W, np.zeros(len(self.fluents), np.uint8))
        return W

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
            "hold_does": self.hold_does,
            "track_next": self.track_next,
            "factored": self.n_factored,
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
    T = net.tables
    if net.incremental and incremental is False:
        T = net._pack(False)
    W = net.work(T)
    kernel.playouts(T, W, 1, seed, max_steps)  # compile / warm up
    t = clock()
    steps, goal_sum, code = kernel.playouts(T, W, n_games, seed, max_steps)
    dt = clock() - t
    if code != kernel.OK:
        raise GDLError(kernel.ERRORS[code])
    return int(steps), dt, goal_sum / max(n_games, 1)


class CompiledMachine:
    """The id-based machine over a `Propnet` (interface of ``ExactMachine``).

    States are ``uint8`` vectors over ``net.fluents``. The machine keeps its own work area
    (`ggpzoo.envs.propnet.kernel`), brought to each state it is asked about."""

    backend = "compiled"

    def __init__(self, game):
        self.game = game
        self.roles = game.roles
        self.net = net = game.propnet()
        self._T = net.tables
        self._W = net.work()
        self._at = None  # the state the work area is at (full evaluation: skip a second one)
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

    def _sync(self, state):
        net = self.net
        state = np.asarray(state, np.uint8)
        if state.shape != net.init.shape:
            raise ValueError(
                f"a compiled state is a uint8 vector of {net.init.shape[0]} fluents, got shape {state.shape}"
            )
        if self._T is not net.tables:  # set_live() built new tables
            self._T, self._W, self._at = net.tables, net.work(), None
        if self._at is not None and np.array_equal(self._at, state):
            return
        if not kernel.sync(self._T, self._W, np.ascontiguousarray(state)):
            kernel.reset(self._T, self._W, state)
        self._at = state.copy()

    def legal(self, state) -> list:
        self._sync(state)
        net = self.net
        bad = kernel.legal(self._T, self._W, self._out, self._counts)
        if bad >= 0:
            raise GDLError(
                "a legal move outside the action space (the sheet's input relation): "
                + ", ".join(to_text(x) for x in net.unmapped[:3])
            )
        return [np.sort(self._out[r, : self._counts[r]]) for r in range(len(self.roles))]

    def terminal(self, state) -> bool:
        self._sync(state)
        return bool(kernel.terminal(self._T, self._W))

    def goals(self, state) -> np.ndarray:
        self._sync(state)
        kernel.goals(self._T, self._W, self._goals)
        return self._goals.copy()

    def next(self, state, ids):
        self._sync(state)
        ids = np.asarray(ids, np.int64)
        if (
            ids.shape != (len(self.roles),)
            or (ids < 0).any()
            or any(int(i) >= len(self.game.actions[r]) for r, i in zip(self.roles, ids, strict=False))
        ):
            raise ValueError(f"a joint move is one action id per role {self.roles}, got {ids.tolist()}")
        out = self._at.copy()
        ok = kernel.play(self._T, self._W, out, ids)
        if not ok:
            kernel.reset(self._T, self._W, self._at)
            raise GDLError("propagation stack overflow")
        if self.net.incremental:
            self._at = out.copy()  # play keeps a propagating work area at the new state
        else:
            self._at = None  # full evaluation: phase A is for the old state
        return out

    def fluents(self, state) -> frozenset:
        return frozenset(self.net.fluents[i] for i in np.flatnonzero(state))

    def fluent_vector(self, state) -> np.ndarray:
        v = np.zeros(len(self._obs_index), np.uint8)
        v[self._obs_valid] = state[self._obs_index[self._obs_valid]]
        return v
