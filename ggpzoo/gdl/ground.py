"""Grounding: every fluent, move and rule instance a game can reach, over-approximated.

The *relaxed* program drops every negated literal of a dynamic relation (negations of
static relations and ``distinct`` stay exact), adds ``true <= init``, ``true <= next`` and
``does <= legal``, and is evaluated to its least fixpoint, semi-naively. Its model holds
every fluent reachable in the real game and every legal move (usually a few more: the
relaxation forgets "this cell is empty"). The ground instances of the rules over that
model are the propositional network of `ggpzoo.gdl.propnet`, and its ``legal`` atoms
give a sheet without ``input`` its fixed action spaces.

A rule that reads a move is first rewritten over auxiliary relations (`decompose()`):
a frame axiom ``(next (cell ?x ?y ?p)) <= (true (cell ?x ?y ?p)) (does ?r (move ?x1 ?y1 ?x2
?y2)) (distinctcell ?x ?y ?x1 ?y1) ...`` has one instance per fluent and move, and its
rewrite one per fluent plus one per cell and move. The fixpoint runs the rewritten rules
(the same model, plus the auxiliary relations); a rule's rewritten instances replace its
own when they are at most half as many and `MIN_SAVED` fewer. The corpus's
Knightazons grounds in 2 s instead of 134 s, its Skirmish in 12 s instead of 152 s.

Grounding can be large (one-action Amazons has about 87,000 moves per role, each with its
own path conditions): `ground()` stops with `GroundingTooLarge` after
``time_limit`` seconds of CPU time or ``max_facts`` facts, with a message saying so. The
limit counts the grounding thread's CPU time (``time.thread_time``), not the wall clock, so
a sheet grounds or stops the same way on a busy machine (on a shared 2-core machine the same
grounding took 5 to 30 s of wall-clock time for 5.5 s of CPU time).

Nothing here depends on Python's hash seed: relations, rules and facts are visited in list
or sorted order, never in a set's order, so the model, the rule instances and their order
are the same under every ``PYTHONHASHSEED`` (``tests/test_gdl_ground.py``).
"""

from __future__ import annotations

import time

from ggpzoo.gdl.logic import _EMPTY, DOES, TRUE, Program, _atom_of, _Compiled, _leaves, _Rel, substituter
from ggpzoo.gdl.syntax import GDLError, LoadStopped, Rule, is_var, relation, sort_key, variables

__all__ = ["Grounding", "GroundingStopped", "GroundingTooLarge", "ground"]


# A rule's rewritten instances (see decompose) replace its own when they save this many:
# an auxiliary atom is one more step of propagation, which costs a small network more than
# it saves (tic-tac-toe: 337 instances instead of 193, 5-8% more transitions per second).
MIN_SAVED = 10_000


class GroundingTooLarge(GDLError):
    """Grounding went past its time or size bound."""


class GroundingStopped(GroundingTooLarge, LoadStopped):
    """Grounding stopped because its caller's ``stop()`` said so (the result was no longer wanted)."""


class Grounding:
    """The relaxed model: fluents, moves per role and ground rule instances."""

    def __init__(self, fluents, moves, instances, seconds, rounds=0, cpu_seconds=0.0):
        self.fluents = fluents  # sorted list of fluent terms
        self.moves = moves  # role -> sorted list of move terms
        # instances: list of (head atom, positive dynamic atoms, negative dynamic atoms); a
        # head or positive atom may be auxiliary (its relation name has a space: "aux 3:next")
        self.instances = instances
        self.seconds = seconds  # wall clock
        self.cpu_seconds = cpu_seconds  # CPU time, what ``time_limit`` counts
        self.rounds = rounds  # semi-naive rounds to the fixpoint


def _ordered_vars(terms) -> list:
    """The variables of ``terms`` in order of first occurrence."""
    out: list = []
    for t in terms:
        for _, x in _leaves(t):
            if is_var(x) and x not in out:
                out.append(x)
    return out


def _is_dynamic(lit, dynamic) -> bool:
    a = _atom_of(lit)
    return a is not None and relation(a[0]) in dynamic


def decompose(rule: Rule, dynamic, fresh, _root: str | None = None) -> list[Rule]:
    """``rule`` as rules over auxiliary relations whose ground instances can be far fewer.

    Two rewrites, each exact (the head holds for the same ground atoms):

    * *split*: the body literals linked by variables not in the head form components; a
      component with a dynamic literal and variables of its own, when the other literals
      have variables that it has not (so that each of its instances serves several of the
      rule's), becomes ``(aux I) <= component`` with ``I`` its head variables, and the rule
      reads ``(aux I)`` instead. A frame axiom ``(next (cell ?x ?y ?p)) <= (true (cell ?x ?y
      ?p)) (does ?r (move ?x1 ?y1 ?x2 ?y2)) (distinctcell ?x ?y ?x1 ?y1) ...`` then has one
      instance per fluent and one per (cell, move) instead of one per (fluent, move). When a
      dynamic literal of the rest holds all of ``I`` (``(true (cell ?x ?y ?p))``), the
      auxiliary rule also reads ``(guard I) <= that literal``, so that it is grounded for the
      cells of the model only, not every pair a static relation allows; a guard (named by
      ``fresh(name, "guard")``) only restricts the join: it is no literal of an instance.
    * *projection*: a positive dynamic literal with variables found nowhere else in the rule
      (``?x2 ?y2`` of ``(does ?r (play ?x1 ?y1 ?x2 ?y2))`` when only ``?x1 ?y1`` are used),
      when the body has other literals, becomes ``(aux ?x1 ?y1) <= (does ?r (play ...))``.

    ``fresh(name, kind="aux")`` names a new relation serving relation ``name``. Returns the
    auxiliary rules first (each after the ones it reads), the rewritten rule last; ``[rule]``
    when nothing applies."""
    body = list(rule.body)
    out: list = []
    head_vars = variables(rule.head)
    root = _root or relation(rule.head)[0]
    if len(body) >= 2:
        # split: components of the body linked by variables that are not in the head
        comp = list(range(len(body)))

        def find(i):
            while comp[i] != i:
                comp[i] = comp[comp[i]]
                i = comp[i]
            return i

        owner: dict = {}
        for i, b in enumerate(body):
            for v in _ordered_vars([b]):
                if v in head_vars:
                    continue
                if v in owner:
                    comp[find(i)] = find(owner[v])
                else:
                    owner[v] = i
        groups: dict = {}
        for i in range(len(body)):
            groups.setdefault(find(i), []).append(i)
        if len(groups) >= 2:
            new_body: list = []
            placed = set()
            for i in range(len(body)):
                if i in placed:
                    continue
                members = groups[find(i)]
                lits = [body[j] for j in members]
                placed.update(members)
                local = set(_ordered_vars(lits)) - head_vars
                bound: set = set()
                for b in lits:
                    a = _atom_of(b)
                    if a is not None and a[1]:
                        variables(a[0], bound)
                iface = [v for v in _ordered_vars(lits) if v in head_vars]
                rest = _ordered_vars([body[j] for j in range(len(body)) if j not in members])
                if (
                    local
                    and any(v not in iface for v in rest)  # else each instance of the part is used once
                    and any(_is_dynamic(b, dynamic) for b in lits)
                    and all(v in bound for v in iface)
                ):
                    name = fresh(root)
                    aux = (name, *iface) if iface else name
                    others = [body[j] for j in range(len(body)) if j not in members]
                    dom = next(
                        (b for b in others if _is_dynamic(b, dynamic) and b[0] != "not" and set(iface) <= variables(b)),
                        None,
                    )
                    if iface and dom is not None:
                        guard = (fresh(root, "guard"), *iface)
                        out.append(Rule(guard, (dom,), rule.line))
                        lits = [guard, *lits]
                    out.extend(decompose(Rule(aux, tuple(lits), rule.line), dynamic | {relation(aux)}, fresh, root))
                    dynamic = dynamic | {relation(aux)}
                    new_body.append(aux)
                else:
                    new_body.extend(lits)
            body = new_body
    if len(body) >= 2:
        # projection: a positive dynamic literal's variables found nowhere else
        for i, b in enumerate(body):
            a = _atom_of(b)
            if a is None or not a[1] or relation(a[0]) not in dynamic:
                continue
            elsewhere = set(head_vars)
            for j, c in enumerate(body):
                if j != i:
                    variables(c, elsewhere)
            keep = [v for v in _ordered_vars([b]) if v in elsewhere]
            if len(keep) < len(variables(b)):
                name = fresh(root)
                aux = (name, *keep) if keep else name
                out.append(Rule(aux, (b,), rule.line))
                dynamic = dynamic | {relation(aux)}
                body[i] = aux
    if not out:
        return [rule]
    return out + [Rule(rule.head, tuple(body), rule.line)]


def ground(program: Program, roles, time_limit: float = 60.0, max_facts: int = 3_000_000, stop=None) -> Grounding:
    """The relaxed model of ``program`` and its rule instances (see the module docstring).

    ``stop``: a function of no arguments, called where the budget is checked (at the start,
    after each rule and every 4,096 solutions of a join); when it returns true, grounding
    ends with `GroundingStopped`."""
    t0 = time.perf_counter()
    c0 = time.thread_time()
    dyn_rules = [cr for rel, crs in program._relaxed.items() if rel in program.dynamic for cr in crs]
    # each rule of a dynamic relation as auxiliary rules and a rewritten rule (see decompose)
    dynamic = set(program.dynamic)
    taken = {rel[0] for rel in program.relations}
    n_aux = [0]

    guards: set = set()

    def fresh(name, kind="aux"):
        while True:
            n_aux[0] += 1
            aux = f"{kind} {n_aux[0]}:{name}"  # a space: no sheet can name a relation so
            if aux not in taken:
                if kind == "guard":
                    guards.add(aux)
                return aux

    groups = []  # (original compiled rule, compiled auxiliary rules, compiled rewritten rule or None)
    for cr in dyn_rules:
        # only rules that read a move: where fluents get multiplied by moves (frame axioms);
        # elsewhere a projection seldom merges much and costs the fixpoint time (Amazons)
        reads_move = any(type(b) is tuple and b[0] == "does" for b in cr.rule.body)
        parts = decompose(cr.rule, dynamic, fresh) if reads_move else [cr.rule]
        if len(parts) == 1:
            groups.append((cr, [], None))
            continue
        dynamic |= {relation(r.head) for r in parts[:-1] if relation(r.head)[0] not in guards}
        groups.append((cr, parts[:-1], parts[-1]))
    groups = [
        (cr, [_Compiled(r, dynamic, True) for r in aux], None if main is None else _Compiled(main, dynamic, True))
        for cr, aux, main in groups
    ]
    bridges = [
        _Compiled(Rule(("true", "?x"), (("init", "?x"),)), dynamic, True),
        _Compiled(Rule(("true", "?x"), (("next", "?x"),)), dynamic, True),
        _Compiled(Rule(("does", "?r", "?m"), (("legal", "?r", "?m"),)), dynamic, True),
    ]
    # the fixpoint runs the rewritten rules: the same model, auxiliary relations added
    rules = [c for cr, aux, main in groups for c in (aux + [main] if main is not None else [cr])] + bridges
    store: dict = {}
    static = program.static
    count = [0]

    def db(rel):
        r = store.get(rel)
        if r is None:
            r = static.get(rel)
            if r is None:
                return _EMPTY
        return r

    def check_budget():
        if stop is not None and stop():
            raise GroundingStopped("grounding stopped: its caller no longer wants the result")
        if time.thread_time() - c0 > time_limit:
            raise GroundingTooLarge(
                f"grounding stopped after {time_limit:g} s of CPU time ({count[0]:,} facts so far): the game is too "
                "large to ground in this time; raise time_limit, or use the exact path (backend='exact')"
            )
        if count[0] > max_facts:
            raise GroundingTooLarge(f"grounding stopped at {max_facts:,} facts: the game is too large to ground")

    check_budget()
    for _cr, aux, _main in groups:
        for a in aux:
            if a.rel[0] in guards:
                store[a.rel] = _Rel()
    for rel in sorted(dynamic):  # a set: sorted, so that nothing depends on the hash seed
        store.setdefault(rel, _Rel())
    for rel in ("next", 1), ("legal", 2):
        if rel not in static:
            store.setdefault(rel, _Rel())

    def est(lit, bound):
        """Expected matches of ``lit`` with the variables ``bound`` known, from the model so far."""
        rel = db(relation(lit))
        n = len(rel.items)
        if n == 0:
            return 0.0
        paths = tuple(p for p, x in _leaves(lit) if p and (not is_var(x) or x in bound))
        if not paths:
            return float(n)
        return n / max(1, len(rel.index(paths)))

    # init is static: ``true <= init`` seeds the first delta. The bodies ordered by the
    # sizes so far: a literal of a relation still empty first, so a rule that reads one
    # costs nothing (static literals first, an auxiliary rule of chess joined 16 million
    # pairs of cells before finding no move)
    for cr in rules:
        cr.reorder(est)
    delta: dict = {}
    solved: dict = {}  # compiled rule -> solutions found (an auxiliary's: does it merge many?)
    for cr in rules:  # first, naive round
        n = 0
        for s in cr.solutions(db):
            n += 1
            if not n & 4095:  # the budget within a join too: one join can take long
                check_budget()
            h = cr.head_of(s)
            delta.setdefault(cr.rel, []).append(h)
        solved[cr] = n
    for rel, items in list(delta.items()):
        target = store[rel]
        delta[rel] = [h for h in items if target.add(h)]
        count[0] += len(delta[rel])

    sizes: dict = {}
    rounds = 0
    while any(delta.values()):
        rounds += 1
        check_budget()
        # order the bodies by the relation sizes so far (again when a relation has doubled)
        now = {rel: len(r.items) for rel, r in store.items()}
        if any(now[rel] > 2 * sizes.get(rel, 0) + 8 for rel in now):
            for cr in rules:
                cr.reorder(est)
            sizes = now
        new: dict = {}
        for cr in rules:
            n = 0
            for rel, items in delta.items():
                if not items:
                    continue
                for s in cr.delta_solutions(db, {rel: items}):
                    n += 1
                    if not n & 4095:
                        check_budget()
                    h = cr.head_of(s)
                    if h not in store[cr.rel].facts:
                        new.setdefault(cr.rel, []).append(h)
            solved[cr] += n
            check_budget()
        delta = {}
        for rel, items in new.items():
            target = store[rel]
            delta[rel] = [h for h in items if target.add(h)]
            count[0] += len(delta[rel])
    # Rule instances over the model, the bodies ordered by the final sizes.
    for cr in rules + dyn_rules:
        cr.reorder(est)

    def instances_of(cr, mult=None, aux_rels=()):
        """The instances of a compiled rule, and with ``mult`` (atom of one of ``aux_rels`` ->
        how many instances of the original rule's body it stands for) each instance's count."""
        pos = [b for b in cr.positive if relation(b) in dynamic]
        neg = [b for b in cr.negative if relation(b) in dynamic]
        aux = [k for k, b in enumerate(pos) if relation(b) in aux_rels]
        out, counts = [], []
        pos_of, neg_of, head_of = [substituter(b) for b in pos], [substituter(b) for b in neg], cr.head_of
        for s in cr.solutions(db):
            if not len(out) & 4095:
                check_budget()
            p = [f(s) for f in pos_of]
            out.append((head_of(s), p, [f(s) for f in neg_of]))
            if mult is not None:
                m = 1
                for k in aux:
                    m *= mult[p[k]]
                counts.append(m)
        return out, counts

    instances = []
    for cr, aux, main in groups:
        # the rewritten rules' instances, when an auxiliary relation merges solutions (its
        # rule had twice as many as it has facts), and how many the original rule would
        # have: kept when they are at most half as many and MIN_SAVED fewer
        aux = [a for a in aux if a.rel[0] not in guards]  # a guard only restricted the joins
        if main is not None and any(solved[a] >= 2 * len(store[a.rel].items) for a in aux):
            mult: dict = {}
            aux_rels: set = set()
            rewritten = []
            for a in aux:
                got, counts = instances_of(a, mult, aux_rels)
                for (h, _p, _n), m in zip(got, counts, strict=True):
                    mult[h] = mult.get(h, 0) + m
                aux_rels.add(a.rel)
                rewritten.extend(got)
            got, counts = instances_of(main, mult, aux_rels)
            rewritten.extend(got)
            total = sum(counts)
            if 2 * len(rewritten) <= total and total - len(rewritten) >= MIN_SAVED:
                instances.extend(rewritten)
                check_budget()
                continue
        got, _ = instances_of(cr)
        instances.extend(got)
        check_budget()
    fluents = sorted((a[1] for a in store[TRUE].items), key=sort_key)
    moves = {r: [] for r in roles}
    for a in store[DOES].items:
        if a[1] in moves:
            moves[a[1]].append(a[2])
    for r in moves:
        moves[r].sort(key=sort_key)
    out = Grounding(fluents, moves, instances, time.perf_counter() - t0, rounds, time.thread_time() - c0)
    out.estimate = est  # expected matches of a literal, from the relaxed model's sizes
    return out
