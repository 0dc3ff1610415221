"""Grounding: every fluent, move and rule instance a game can reach, over-approximated.

The *relaxed* program drops every negated literal of a dynamic relation (negations of
static relations and ``distinct`` stay exact), adds ``true <= init``, ``true <= next`` and
``does <= legal``, and is evaluated to its least fixpoint, semi-naively. Its model holds
every fluent reachable in the real game and every legal move (usually a few more: the
relaxation forgets "this cell is empty"). The ground instances of the rules over that
model are the propositional network of :mod:`ggpzoo.gdl.propnet`, and its ``legal`` atoms
give a sheet without ``input`` its fixed action spaces.

Grounding can be large (one-action Amazons has about 87,000 moves per role, each with its
own path conditions): :func:`ground` stops with :class:`GroundingTooLarge` after
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

from ggpzoo.gdl.logic import _EMPTY, DOES, TRUE, Program, _Compiled, _Rel
from ggpzoo.gdl.syntax import GDLError, Rule, relation, substitute

__all__ = ["Grounding", "GroundingTooLarge", "ground"]


class GroundingTooLarge(GDLError):
    """Grounding went past its time or size bound."""


class Grounding:
    """The relaxed model: fluents, moves per role and ground rule instances."""

    def __init__(self, fluents, moves, instances, seconds, rounds=0, cpu_seconds=0.0):
        self.fluents = fluents  # sorted list of fluent terms
        self.moves = moves  # role -> sorted list of move terms
        # instances: list of (head atom, positive dynamic atoms, negative dynamic atoms)
        self.instances = instances
        self.seconds = seconds  # wall clock
        self.cpu_seconds = cpu_seconds  # CPU time, what ``time_limit`` counts
        self.rounds = rounds  # semi-naive rounds to the fixpoint


def ground(program: Program, roles, time_limit: float = 60.0, max_facts: int = 3_000_000) -> Grounding:
    """The relaxed model of ``program`` and its rule instances (see the module docstring)."""
    t0 = time.perf_counter()
    c0 = time.thread_time()
    dyn_rules = [cr for rel, crs in program._relaxed.items() if rel in program.dynamic for cr in crs]
    bridges = [
        _Compiled(Rule(("true", "?x"), (("init", "?x"),)), program.dynamic, True),
        _Compiled(Rule(("true", "?x"), (("next", "?x"),)), program.dynamic, True),
        _Compiled(Rule(("does", "?r", "?m"), (("legal", "?r", "?m"),)), program.dynamic, True),
    ]
    rules = dyn_rules + bridges
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
        if time.thread_time() - c0 > time_limit:
            raise GroundingTooLarge(
                f"grounding stopped after {time_limit:g} s of CPU time ({count[0]:,} facts so far): the game is too "
                "large to ground in this time; raise time_limit, or use the exact path (backend='exact')"
            )
        if count[0] > max_facts:
            raise GroundingTooLarge(f"grounding stopped at {max_facts:,} facts: the game is too large to ground")

    def checked(solutions):
        """The solutions, with the budget checked every 4,096 (one join can take long)."""
        for i, s in enumerate(solutions, 1):
            if not i & 4095:
                check_budget()
            yield s

    for rel in sorted(program.dynamic):  # a set: sorted, so that nothing depends on the hash seed
        store.setdefault(rel, _Rel())
    for rel in ("next", 1), ("legal", 2):
        if rel not in static:
            store.setdefault(rel, _Rel())
    # init is static: ``true <= init`` seeds the first delta.
    delta: dict = {}
    for cr in rules:  # first, naive round
        for s in checked(cr.solutions(db)):
            h = substitute(cr.head, s)
            delta.setdefault(cr.rel, []).append(h)
    for rel, items in list(delta.items()):
        target = store[rel]
        delta[rel] = [h for h in items if target.add(h)]
        count[0] += len(delta[rel])
    from ggpzoo.gdl.logic import _leaves
    from ggpzoo.gdl.syntax import is_var

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
            for rel, items in delta.items():
                if not items:
                    continue
                for s in checked(cr.delta_solutions(db, {rel: items})):
                    h = substitute(cr.head, s)
                    if h not in store[cr.rel].facts:
                        new.setdefault(cr.rel, []).append(h)
            check_budget()
        delta = {}
        for rel, items in new.items():
            target = store[rel]
            delta[rel] = [h for h in items if target.add(h)]
            count[0] += len(delta[rel])
    # Rule instances over the model, the bodies ordered by the final sizes.
    for cr in rules:
        cr.reorder(est)
    instances = []
    for cr in dyn_rules:
        pos = [b for b in cr.positive if relation(b) in program.dynamic]
        neg = [b for b in cr.negative if relation(b) in program.dynamic]
        for s in checked(cr.solutions(db)):
            instances.append((substitute(cr.head, s), [substitute(b, s) for b in pos], [substitute(b, s) for b in neg]))
        check_budget()
    from ggpzoo.gdl.syntax import sort_key

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
