"""Argument domains: a cheap over-approximation of a game's fluents and moves.

Where grounding (`ggpzoo.gdl.ground`) runs past its limit on a sheet with no ``base``
or ``input`` relation, the fixed spaces come from here instead, so the exact path can still
play it. The analysis is the *domain graph* of the GGP literature (Schiffel and Thielscher,
"Fluxplayer", AAAI 2007; ggp-base's ``SentenceDomainModel``): each argument of each
relation gets a set of ground terms, and a rule adds to its head's arguments every
combination of its variables' values.

* Negated literals and ``distinct`` are dropped (as in the relaxed grounding), ``true``
  takes ``init`` and ``next``, and ``does`` takes ``legal``.
* A variable's values are those its positive body literals allow, intersected; the values
  of different arguments of one literal are taken as independent (that is the
  approximation: it forgets which ``x`` went with which ``y``).
* ``legal`` and ``does`` keep one domain per role, so a role's moves are the moves some
  rule can make legal for it.
* Static relations enter with their facts' arguments, per argument like the rest.

Every fluent and move the game can reach is in the result (the relaxed grounding's model
is a subset of it), usually with many more that it cannot: the corpus's ``racer`` gets
every ``(speed ?dx ?dy)`` over its 101 numbers, 10,201 moves, where a state allows at most
nine. That is a larger action space (the mask still holds only the legal moves) in
exchange for no joins at all: the domains take seconds (``racer``: 1.2 s) where its
relaxed model did not finish in minutes.
"""

from __future__ import annotations

import itertools
import time

from ggpzoo.gdl.logic import DOES, MAX_TERM_DEPTH, TRUE, _atom_of, _depth, match
from ggpzoo.gdl.syntax import GDLError, relation, sort_key, substitute, variables

__all__ = ["Domains", "domains"]

LEGAL = ("legal", 2)
# relations whose domains are kept per value of their first argument (the role)
_KEYED = (LEGAL, DOES)
# more terms than this in a domain, and the analysis gives up (spaces too large to use, or
# a rule that builds ever larger terms)
MAX_DOMAIN = 1_000_000


class Domains:
    """The fluents and each role's moves that the domain analysis allows."""

    def __init__(self, fluents, moves, rounds):
        self.fluents = fluents  # sorted list of fluent terms
        self.moves = moves  # role -> sorted list of move terms
        self.rounds = rounds  # passes over the rules to the fixpoint


class _Dom:
    """A relation's domains: ``key -> [set of terms per argument]`` (key None, or the first
    argument for a relation in ``_KEYED``); ``held`` for a relation of arity 0."""

    def __init__(self, rel):
        self.rel = rel
        self.keyed = rel in _KEYED
        self.rows: dict = {}
        self.held = False
        self.version = 0  # grows with the domains: a rule whose body's versions are as at its
        # last pass would add nothing new

    def add(self, args) -> bool:
        """Add one ground atom's arguments; True when a domain grew."""
        return self.extend([[t] for t in args])

    def extend(self, columns) -> bool:
        """Add each argument's values (``columns``: one list of ground terms per argument,
        the role's first for a relation in ``_KEYED``); True when a domain grew."""
        if self.rel[1] == 0:
            grew, self.held = not self.held, True
            self.version += grew
            return grew
        keys = columns[0] if self.keyed else [None]
        rest = columns[1:] if self.keyed else columns
        if any(not c for c in rest):
            return False
        grew = False
        for key in keys:
            row = self.rows.get(key)
            if row is None:
                row = self.rows[key] = [set() for _ in rest]
                grew = True
            for s, terms in zip(row, rest, strict=True):
                n = len(s)
                s.update(terms)
                grew |= len(s) != n
        self.version += grew
        return grew

    def size(self) -> int:
        return sum(len(s) for row in self.rows.values() for s in row)


def _values(lit, dom: _Dom | None) -> dict | None:
    """Each variable of the positive literal ``lit`` -> the set of values ``dom`` allows it
    (a variable in several arguments: the intersection); None when ``dom`` holds nothing."""
    if dom is None:
        return None
    if dom.rel[1] == 0:
        return {} if dom.held else None
    args = list(lit[1:])
    out: dict = {}
    found = False
    for key, row in dom.rows.items():
        if dom.keyed:
            s0 = match(args[0], key, {})
            if s0 is None:
                continue
            pats = args[1:]
        else:
            s0, pats = {}, args
        per: dict = {v: {t} for v, t in s0.items()}
        ok = True
        for p, terms in zip(pats, row, strict=True):
            got: dict = {}
            if type(p) is str and p[0] == "?":  # a variable: every term (no matching)
                got[p] = set(terms)
            elif type(p) is str:  # a constant
                if p not in terms:
                    ok = False
                    break
            else:
                for t in terms:
                    s = match(p, t, {})
                    if s is not None:
                        for v, x in s.items():
                            got.setdefault(v, set()).add(x)
            for v in variables(p):
                vals = got.get(v, set())
                per[v] = vals if v not in per else per[v] & vals
                if not per[v]:
                    ok = False
            if not ok:
                break
        if not ok:
            continue
        found = True
        for v, vals in per.items():
            out.setdefault(v, set()).update(vals)
    return out if found else None


def domains(program, roles, time_limit: float | None = None) -> Domains:
    """The argument domains of ``program`` (see the module docstring).

    Raises [`GDLError`][ggpzoo.gdl.GDLError] when a domain passes `MAX_DOMAIN` terms or
    builds terms nested deeper than the reasoner allows (a rule that builds ever larger
    terms: its domain has no end), or when it takes more than ``time_limit`` seconds of CPU
    time (checked before each rule)."""
    c0 = time.thread_time()
    doms: dict = {}

    def dom(rel) -> _Dom:
        d = doms.get(rel)
        if d is None:
            d = doms[rel] = _Dom(rel)
        return d

    def add(atom) -> bool:
        rel = relation(atom)
        return dom(rel).add(atom[1:] if type(atom) is tuple else ())

    for rel in sorted(program.static):
        for a in program.static[rel].items:
            add(a)
    for a in program.static_facts(("init", 1)):
        add(("true", a[1]))
    for a in program.static_facts(LEGAL):
        add(("does", *a[1:]))
    rules = [r for r in program.rules if relation(r.head) in program.dynamic]  # facts too
    bodies = [[a[0] for b in r.body if (a := _atom_of(b)) is not None and a[1]] for r in rules]  # positive ones
    seen: dict = {}  # rule -> its body relations' versions at its last pass
    rounds = 0
    changed = True
    while changed:
        changed = False
        rounds += 1
        for k, r in enumerate(rules):
            if time_limit is not None and time.thread_time() - c0 > time_limit:
                raise GDLError(f"the argument domains stopped after {time_limit:g} s of CPU time: spaces too large")
            lits = bodies[k]
            versions = tuple(doms[rel].version if (rel := relation(lit)) in doms else -1 for lit in lits)
            if seen.get(k) == versions:
                continue  # nothing it reads has grown since: it would add nothing
            seen[k] = versions
            vals: dict = {}
            dead = False
            for lit in lits:
                got = _values(lit, doms.get(relation(lit)))
                if got is None:
                    dead = True
                    break
                for v, x in got.items():
                    vals[v] = x if v not in vals else vals[v] & x
                    if not vals[v]:
                        dead = True
                if dead:
                    break
            if dead:
                continue
            cols = _columns(r.head, vals)
            rel = relation(r.head)
            grown = [dom(rel)]
            if rel == ("next", 1):
                grown.append(dom(TRUE))
            elif rel == LEGAL:
                grown.append(dom(DOES))
            for d in grown:
                changed |= d.extend(cols)
                if d.size() > MAX_DOMAIN:  # at once: the next rules could take minutes to refuse
                    raise GDLError(
                        f"the argument domains of {d.rel[0]}/{d.rel[1]} pass {MAX_DOMAIN:,} terms: spaces too "
                        "large to use, or a rule that builds ever larger terms"
                    )
    fluents = sorted({t for row in dom(TRUE).rows.values() for t in row[0]}, key=sort_key)
    moves = {}
    for r in roles:
        row = dom(DOES).rows.get(r)
        moves[r] = sorted(row[0], key=sort_key) if row else []

    return Domains(fluents, moves, rounds)


def _columns(head, vals: dict) -> list:
    """The head's values, one list of ground terms per argument: each argument takes every
    combination of its variables' values (arguments are independent, as in a domain)."""
    if type(head) is not tuple:
        return []
    cols = []
    for p in head[1:]:
        vs = sorted(variables(p))
        if not vs:
            cols.append([p])
            continue
        n = 1
        for v in vs:
            n *= len(vals.get(v, ()))
        if n > MAX_DOMAIN:
            raise GDLError(
                f"the argument domains of {head[0]}/{len(head) - 1} pass {MAX_DOMAIN:,} terms: spaces too large "
                "to use, or a rule that builds ever larger terms"
            )
        terms = []
        for combo in itertools.product(*(sorted(vals.get(v, ()), key=sort_key) for v in vs)):
            t = substitute(p, dict(zip(vs, combo, strict=True)))
            if _depth(t) > MAX_TERM_DEPTH:
                raise GDLError(
                    f"{head[0]}/{len(head) - 1} builds terms nested deeper than {MAX_TERM_DEPTH} "
                    "(argument domains): the sheet seems to build ever larger terms"
                )
            terms.append(t)
        cols.append(terms)
    return cols
