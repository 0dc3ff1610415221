"""The checked program and its bottom-up evaluator: the exact path's reasoner.

`Program` takes the rules of a sheet, expands ``or``, checks GDL's restrictions
(`check()`), and orders the relations into strongly connected components in
dependency order. `Program.evaluate` computes, bottom up, every fact of the
relations asked for, given the facts of ``true`` and ``does``: relations that depend on
neither (``role``, ``init``, ``succ``...) are *static* and computed once; the others are
computed per state, one component at a time, negation only on finished components
(stratified negation), recursive components by iteration to a fixpoint.

Joins use hash indexes on the argument positions that are known when a literal is reached,
so a literal like ``(true (cell ?x ?y ?p))`` with ``?x`` and ``?y`` bound is one look-up.
"""

from __future__ import annotations

import itertools
import time
from collections import defaultdict

from ggpzoo.gdl.syntax import (
    GDLError,
    LoadStopped,
    Rule,
    is_var,
    relation,
    to_text,
    variables,
)

__all__ = ["KEYWORD_ARITY", "MAX_STATE_SOLUTIONS", "MAX_STATIC_FACTS", "STATIC_TIME_LIMIT", "Program", "check"]

# Arity of GDL's reserved relations.
KEYWORD_ARITY = {
    "role": 1,
    "init": 1,
    "true": 1,
    "next": 1,
    "legal": 2,
    "does": 2,
    "goal": 2,
    "terminal": 0,
    "base": 1,
    "input": 2,
}
TRUE, DOES = ("true", 1), ("does", 2)
# Facts a relation derived from the state is taken to have when the exact path orders its
# joins (`Program.estimate`): more than a state's sample of ``true``, so a join starts from
# the state or the static relations.
DERIVED_GUESS = 1000.0
MAX_STATIC_FACTS = 5_000_000  # more, and a sheet is taken to define an infinite relation
MAX_TERM_DEPTH = 40  # deeper derived terms, likewise
# the load computes the static relations in at most this many seconds of CPU time (a Game gives
# them its ground_time_limit where that is longer)
STATIC_TIME_LIMIT = 10.0
# one evaluation of a state (its legal moves, goals and terminal test; or its next state) stops
# with a GDLError past this many rule-body solutions (some seconds of CPU time)
MAX_STATE_SOLUTIONS = 5_000_000


def _state_budget(work: int, pending: int, rel) -> None:
    if work > MAX_STATE_SOLUTIONS:
        raise GDLError(
            f"one state's evaluation passed MAX_STATE_SOLUTIONS = {MAX_STATE_SOLUTIONS:,} rule-body solutions "
            f"(while evaluating {rel[0]}/{rel[1]}): a rule joins too many facts"
        )


def _depth(t) -> int:
    """Nesting depth of a term (a symbol is 0)."""
    if type(t) is not tuple:
        return 0
    return 1 + max(_depth(a) for a in t)


# ----------------------------------------------------------------------------- or-expansion
def _expand(lit) -> list[list]:
    """The literal as a disjunction of conjunctions (lists of literals without ``or``)."""
    if type(lit) is tuple and lit[0] == "or":
        out = []
        for a in lit[1:]:
            out.extend(_expand(a))
        return out
    if type(lit) is tuple and lit[0] == "not":
        inner = _expand(lit[1])
        if len(inner) == 1 and len(inner[0]) == 1:
            return [[("not", inner[0][0])]]
        # not (A or B...) = not A and not B, each A a single literal (no nested and in GDL).
        conj = []
        for alt in inner:
            if len(alt) != 1:
                raise GDLError(f"(not ...) of a conjunction is not GDL: {to_text(lit)}")
            conj.append(("not", alt[0]))
        return [conj]
    return [[lit]]


def expand_or(rule: Rule) -> list[Rule]:
    """The rule without ``or``: one rule per combination of disjuncts."""
    if not any(type(b) is tuple and b[0] in ("or", "not") for b in rule.body):
        return [rule]
    parts = [_expand(b) for b in rule.body]
    out = []
    for combo in itertools.product(*parts):
        body = tuple(lit for conj in combo for lit in conj)
        out.append(Rule(rule.head, body, rule.line))
    return out


def _unify(a, b, s: dict) -> bool:
    """Extend ``s`` (variable -> term) so that ``a`` and ``b`` become the same term; False if
    they cannot (different symbols, functors or arities, or a variable inside its own value)."""
    a, b = _walk(a, s), _walk(b, s)
    if a == b:
        return True
    if is_var(a):
        if _occurs(a, b, s):
            return False
        s[a] = b
        return True
    if is_var(b):
        return _unify(b, a, s)
    if type(a) is tuple and type(b) is tuple and len(a) == len(b):
        return all(_unify(x, y, s) for x, y in zip(a, b, strict=True))
    return False


def _walk(t, s: dict):
    while is_var(t) and t in s:
        t = s[t]
    return t


def _occurs(v, t, s: dict) -> bool:
    t = _walk(t, s)
    if t == v:
        return True
    return type(t) is tuple and any(_occurs(v, a, s) for a in t)


def _resolved(t, s: dict):
    """``t`` with every variable bound in ``s`` replaced, through chains of bindings."""
    t = _walk(t, s)
    if type(t) is tuple:
        return tuple(_resolved(a, s) for a in t)
    return t


def resolve_equalities(rule: Rule) -> Rule | None:
    """The rule with each ``(not (distinct a b))`` (``a`` and ``b`` the same term) taken out of
    its body by unifying ``a`` with ``b`` and putting the unifier into the whole rule; None
    where ``a`` and ``b`` cannot be the same term (the rule never fires). ``(not (not A))`` is
    read as ``A``. Without this, the negation of a ``distinct`` would be looked up as a fact
    of a relation named ``distinct`` that has none, and always hold."""
    body = list(rule.body)
    if not any(
        type(b) is tuple and b[0] == "not" and type(b[1]) is tuple and b[1][0] in ("distinct", "not") for b in body
    ):
        return rule
    pos: set = set()
    for b in body:
        a = _atom_of(b)
        if a is not None and a[1]:
            variables(a[0], pos)
    special = [
        b for b in body if type(b) is tuple and b[0] == "not" and type(b[1]) is tuple and b[1][0] in ("distinct", "not")
    ]
    if variables(tuple(special)) - pos or variables(rule.head) - pos:
        return rule  # unsafe as written: check() refuses it with its line
    s: dict = {}
    kept = []
    for b in body:
        while type(b) is tuple and b[0] == "not" and type(b[1]) is tuple and b[1][0] == "not":
            b = b[1][1]
        if type(b) is tuple and b[0] == "not" and type(b[1]) is tuple and b[1][0] == "distinct":
            if not _unify(b[1][1], b[1][2], s):
                return None
            continue
        kept.append(b)
    return Rule(_resolved(rule.head, s), tuple(_resolved(b, s) for b in kept), rule.line)


def localize_negations(rules: list[Rule]) -> tuple[list[Rule], list[Rule]]:
    """Rewrite each ``(not A)`` whose atom has variables found in no positive literal of its
    rule (a corpus quirk: ``(not (does ?anyone (mark ?x ?y)))``, meaning that no role marks
    the cell) as ``(not (aux ...))`` with a new rule ``(<= (aux ...) A)`` over A's other
    variables: the variables local to the negation are read as "there is no such ...".

    Returns ``(rules, rewritten)``: the rules after the rewrite, and the original rules that
    were rewritten (for a warning). A head variable or a ``distinct`` variable that is in no
    positive literal stays unsafe (`check()` refuses it)."""
    out, rewritten, extra = [], [], []
    for r in rules:
        pos: set = set()
        for b in r.body:
            a = _atom_of(b)
            if a is not None and a[1]:
                variables(a[0], pos)
        if variables(r.head) - pos or any(
            _atom_of(b) is None and variables(b) - pos for b in r.body
        ):  # unsafe anyway: left for check() to refuse, as written
            out.append(r)
            continue
        body, changed = [], False
        for b in r.body:
            a = _atom_of(b)
            if a is not None and not a[1] and variables(a[0]) - pos:
                shared = sorted(variables(a[0]) & pos)
                aux = (f"__not_{len(extra) + 1}", *shared) if shared else f"__not_{len(extra) + 1}"
                extra.append(Rule(aux, (a[0],), r.line))
                body.append(("not", aux))
                changed = True
            else:
                body.append(b)
        if changed:
            rewritten.append(r)
            out.append(Rule(r.head, tuple(body), r.line))
        else:
            out.append(r)
    return out + extra, rewritten


def _unstratified(rules: list[Rule]) -> list:
    """``(head relation, negated relation)`` for each negation inside a dependency cycle."""
    deps: dict = defaultdict(set)
    rels: set = set()
    for r in rules:
        h = relation(r.head)
        rels.add(h)
        for b in r.body:
            a = _atom_of(b)
            if a is not None:
                deps[h].add(relation(a[0]))
                rels.add(relation(a[0]))
    comp_of = {rel: i for i, c in enumerate(_sccs(sorted(rels), deps)) for rel in c}
    out = []
    for r in rules:
        h = relation(r.head)
        for b in r.body:
            a = _atom_of(b)
            if a is not None and not a[1] and comp_of[relation(a[0])] == comp_of[h]:
                out.append((h, relation(a[0])))
    return out


def _split_position(rules: list[Rule], rel) -> int | None:
    """An argument position at which every rule defining ``rel`` has a constant, if any."""
    heads = [r.head for r in rules if relation(r.head) == rel]
    if not heads or rel[1] == 0 or rel[0] in ("true", "does"):
        return None
    for p in range(1, rel[1] + 1):
        if all(type(h[p]) is str and not is_var(h[p]) for h in heads):
            return p
    return None


def split_by_constant(rules: list[Rule]) -> tuple[list[Rule], list]:
    """Make a sheet stratified that is stratified only once a relation is told apart by a
    constant argument (a corpus quirk, Majorities: ``(<= (goal ?r 0) (role ?r) (not (goal ?r
    100)))``, where ``goal`` depends negatively on itself at the relation level but
    ``(goal ?r 0)`` only on ``(goal ?r 100)``).

    For a relation R in such a cycle whose rules all have a constant at one argument
    position p, the rules with constant c there define a new relation ``R#p=c`` instead,
    ``(<= (R ... c ...) (R#p=c ... c ...))`` gives R back, and every body literal of R with
    a constant c at p reads ``R#p=c`` directly. The model is the same; only the dependency
    graph is finer. Returns ``(rules, split relations)``; a sheet still unstratified after
    that is left, as written, to `check()` to refuse."""
    original, done = rules, []
    for _ in range(20):
        bad = _unstratified(rules)
        if not bad:
            break
        target = None
        for h, n in bad:
            for rel in (n, h):
                if "#" not in rel[0] and rel not in done and _split_position(rules, rel) is not None:
                    target = rel
                    break
            if target is not None:
                break
        if target is None:
            break
        done.append(target)
        p = _split_position(rules, target)
        consts = sorted({r.head[p] for r in rules if relation(r.head) == target})

        def rename(atom, _rel=target, _p=p, _consts=consts):
            if type(atom) is tuple and relation(atom) == _rel and atom[_p] in _consts:
                return (f"{_rel[0]}#{_p}={atom[_p]}", *atom[1:])
            return atom

        out = []
        for r in rules:
            body = []
            for b in r.body:
                if type(b) is tuple and b[0] == "not":
                    body.append(("not", rename(b[1])))
                elif type(b) is tuple and b[0] == "distinct":
                    body.append(b)
                else:
                    body.append(rename(b))
            out.append(Rule(rename(r.head), tuple(body), r.line))
        for c in consts:
            args = tuple(c if i == p else f"?a{i}" for i in range(1, target[1] + 1))
            out.append(Rule((target[0], *args), ((f"{target[0]}#{p}={c}", *args),), 0))
        rules = out
    if not done or _unstratified(rules):
        return original, []
    return rules, done


def _atom_of(lit):
    """``(atom, positive)`` for an atom or a negated atom; None for ``distinct``."""
    if type(lit) is tuple and lit[0] == "not":
        return lit[1], False
    if type(lit) is tuple and lit[0] == "distinct":
        return None
    return lit, True


# ----------------------------------------------------------------------------- components
def _sccs(nodes, edges) -> list[list]:
    """Strongly connected components, each after every component it depends on."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = itertools.count()
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = next(counter)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = next(counter)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                out.append(comp)
    return out


# ----------------------------------------------------------------------------- checks
def check(rules: list[Rule], deps, comp_of) -> None:
    """Refuse a sheet that breaks GDL: raise `GDLError` naming the rule."""
    for r in rules:
        name, _arity = relation(r.head)
        if name in ("true", "does", "distinct", "not", "or", "<="):
            raise GDLError(f"{name} cannot be defined by a rule ({r.where()})")
        for atom in [r.head] + [x[0] for b in r.body if (x := _atom_of(b)) is not None]:
            n, k = relation(atom)
            if n in KEYWORD_ARITY and KEYWORD_ARITY[n] != k:
                raise GDLError(f"{n} takes {KEYWORD_ARITY[n]} arguments, got {k} in {to_text(atom)} ({r.where()})")
        # Safety: every variable of the head, of a negation and of a distinct is in a positive atom.
        pos_vars: set = set()
        for b in r.body:
            a = _atom_of(b)
            if a is not None and a[1]:
                variables(a[0], pos_vars)
        unsafe = variables(r.head) - pos_vars
        for b in r.body:
            a = _atom_of(b)
            if a is None or not a[1]:
                unsafe |= variables(b) - pos_vars
        if unsafe:
            raise GDLError(
                f"unsafe rule: variable(s) {', '.join(sorted(unsafe))} not in a positive body literal ({r.where()})"
            )
    # Stratified negation: no negative edge inside a component.
    for r in rules:
        h = relation(r.head)
        for b in r.body:
            a = _atom_of(b)
            if a is not None and not a[1] and comp_of[relation(a[0])] == comp_of[h]:
                raise GDLError(
                    f"negation is not stratified: {to_text(r.head)} depends negatively on itself "
                    f"through {to_text(b)} ({r.where()})"
                )
    # Recursion restriction (GDL spec, Love et al. 2008, section 3.5).
    for r in rules:
        h = relation(r.head)
        head_vars = variables(r.head)
        for b in r.body:
            a = _atom_of(b)
            if a is None or not a[1] or comp_of[relation(a[0])] != comp_of[h]:
                continue
            others: set = set()
            for c in r.body:
                ca = _atom_of(c)
                if ca is not None and ca[1] and comp_of[relation(ca[0])] != comp_of[h]:
                    variables(ca[0], others)
            args = a[0][1:] if type(a[0]) is tuple else ()
            for t in args:
                bad = variables(t) - head_vars - others
                if bad:
                    raise GDLError(
                        f"recursion restriction broken: argument {to_text(t)} of the recursive literal {to_text(a[0])} "
                        f"is neither ground, nor in the head, nor in a non-recursive positive literal ({r.where()})"
                    )

    def reads(r: Rule, targets: set) -> bool:
        """Whether a body literal of ``r`` is, or depends on, one of ``targets``."""
        for b in r.body:
            a = _atom_of(b)
            if a is not None:
                rel = relation(a[0])
                if rel in targets or targets & deps.closure(rel):
                    return True
        return False

    for r in rules:  # the rule that reads true or does is named, not the relation's first rule
        h = relation(r.head)
        if h[0] in ("role", "init", "base", "input") and deps.get_dyn(h) and reads(r, {TRUE, DOES}):
            raise GDLError(f"{h[0]} must not depend on true or does ({r.where()})")
        if h[0] in ("legal", "goal", "terminal") and deps.get_does(h) and reads(r, {DOES}):
            raise GDLError(f"{h[0]} must not depend on does ({r.where()})")


class _Deps(dict):
    """rel -> set of rels it depends on directly; plus transitive tests."""

    def closure(self, rel) -> set:
        seen, todo = set(), [rel]
        while todo:
            for d in self.get(todo.pop(), ()):
                if d not in seen:
                    seen.add(d)
                    todo.append(d)
        return seen

    def get_dyn(self, rel) -> bool:
        c = self.closure(rel)
        return TRUE in c or DOES in c

    def get_does(self, rel) -> bool:
        return DOES in self.closure(rel)


# ----------------------------------------------------------------------------- matching
def match(p, t, s: dict):
    """Extend the substitution ``s`` so that pattern ``p`` equals ground ``t``; None if not."""
    if type(p) is str:
        if p[0] == "?":
            v = s.get(p)
            if v is None:
                s = dict(s)
                s[p] = t
                return s
            return s if v == t else None
        return s if p == t else None
    if type(t) is not tuple or len(t) != len(p):
        return None
    for a, b in zip(p, t, strict=False):
        s = match(a, b, s)
        if s is None:
            return None
    return s


# ----------------------------------------------------------------------------- compiled
# match and substitute for one pattern, written out as Python code once per pattern (and,
# for a match, per set of variables bound before it): the joins of grounding and of the
# exact path spend most of their time in these two. Symbols enter the code through repr(),
# so any sheet's text is a literal there, never code.
_CODE: dict = {}
_MAX_CODE = 100_000  # functions kept for reuse (a process that loads many sheets starts over)


def _compiled(key, source: str):
    f = _CODE.get(key)
    if f is None:
        if len(_CODE) >= _MAX_CODE:
            _CODE.clear()  # the rules compiled so far keep theirs
        scope: dict = {}
        exec(source, scope)  # noqa: S102 (generated from a term's structure; symbols as repr literals)
        f = _CODE[key] = scope["f"]
    return f


def matcher(pat, bound=frozenset(), skip=frozenset()):
    """``match(pat, t, s)`` as a function ``f(t, s)`` for atoms ``t`` of ``pat``'s relation
    (same name and arity: the top level is not checked) and substitutions ``s`` that bind
    exactly the variables ``bound``. Leaves at the paths in ``skip`` are taken as equal
    already (an index looked them up)."""
    key = ("m", pat, bound, skip)
    f = _CODE.get(key)
    if f is not None:
        return f
    if type(pat) is not tuple:
        return _compiled(key, f"def f(t, s):\n return s if t == {pat!r} else None\n")
    lines = ["def f(t, s):"]
    local: dict = {}

    def walk(p, expr, path):
        if type(p) is tuple:
            if path:  # a function term inside: its shape first
                lines.append(f" if type({expr}) is not tuple or len({expr}) != {len(p)}: return None")
            for i, a in enumerate(p):
                walk(a, f"{expr}[{i}]", (*path, i))
        elif p[0] == "?":
            if p in local:
                lines.append(f" if {expr} != {local[p]}: return None")
            elif p in bound:
                if path not in skip:
                    lines.append(f" if {expr} != s[{p!r}]: return None")
            else:
                local[p] = name = f"v{len(local)}"
                lines.append(f" {name} = {expr}")
        elif path not in skip:
            lines.append(f" if {expr} != {p!r}: return None")

    walk(pat, "t", ())
    if local:
        lines.append(" return {**s, " + ", ".join(f"{v!r}: {n}" for v, n in local.items()) + "}")
    else:
        lines.append(" return s")
    return _compiled(key, "\n".join(lines) + "\n")


def substituter(t):
    """``substitute(t, s)`` as a function ``f(s)``."""
    key = ("s", t)
    f = _CODE.get(key)
    if f is not None:
        return f

    def expr(x):
        if type(x) is tuple:
            return "(" + "".join(expr(a) + ", " for a in x) + ")"
        if x[0] == "?":
            return f"s.get({x!r}, {x!r})"
        return repr(x)

    return _compiled(key, f"def f(s):\n return {expr(t)}\n")


def key_reader(paths):
    """``tuple(_get(atom, p) for p in paths)`` as a function ``f(atom)``, for atoms of one
    relation (same arity), where every path is one step; None for deeper paths."""
    if any(len(p) != 1 for p in paths):
        return None
    return _compiled(("k", paths), "def f(a):\n return (" + "".join(f"a[{p[0]}], " for p in paths) + ")\n")


def _get(t, path):
    for i in path:
        if type(t) is not tuple or i >= len(t):
            return None
        t = t[i]
    return t


class _Rel:
    """The facts of one relation, with hash indexes built on demand."""

    __slots__ = ("facts", "idx", "items")

    def __init__(self):
        self.facts: set = set()
        self.items: list = []
        self.idx: dict = {}

    def add(self, atom) -> bool:
        if atom in self.facts:
            return False
        self.facts.add(atom)
        self.items.append(atom)
        for paths, (table, read) in self.idx.items():
            if read is not None:
                key = read(atom)
            else:
                key = tuple(_get(atom, p) for p in paths)
                if None in key:
                    continue
            table.setdefault(key, []).append(atom)
        return True

    def index(self, paths):
        got = self.idx.get(paths)
        if got is None:
            table: dict = {}
            read = key_reader(paths)  # non-empty paths: atoms of arity >= 1, tuples
            for atom in self.items:
                if read is not None:
                    key = read(atom)
                else:
                    key = tuple(_get(atom, p) for p in paths)
                    if None in key:
                        continue
                table.setdefault(key, []).append(atom)
            got = self.idx[paths] = (table, read)
        return got[0]


_EMPTY = _Rel()


def _leaves(t, path=()):
    """(path, leaf) for every symbol or variable inside the term (functors included)."""
    if type(t) is tuple:
        for i, a in enumerate(t):
            yield from _leaves(a, path + (i,))
    else:
        yield path, t


def _order(pos, rest, dynamic, first, rule, est=None) -> list:
    """The evaluation steps of a body: positive literals greedily (ground checks first, then
    the most bound variables, state facts, then static relations, then the fewest unknowns;
    or, given ``est(literal, bound) -> expected matches``, the fewest expected matches),
    each negation and distinct as soon as its variables are bound."""
    bound: set = set()
    steps = []
    pending = list(rest)
    remaining = list(pos)

    def flush():
        for b in list(pending):
            if variables(b) <= bound:
                pending.remove(b)
                if b[0] == "distinct":
                    steps.append(("dist", b[1], b[2], substituter(b[1]), substituter(b[2])))
                else:
                    steps.append(("neg", relation(b[1]), b[1], substituter(b[1])))

    def score(b):
        vs = variables(b)
        unknown = len(vs - bound)
        if est is not None:
            return (unknown == 0, -est(b, bound), -unknown)
        return (unknown == 0, len(vs & bound), relation(b) == TRUE, relation(b) not in dynamic, -unknown)

    if first is None:
        flush()
    while remaining:
        if first is not None and not steps:
            best = remaining[first]
        else:
            best = max(remaining, key=score)
        remaining.remove(best)
        keys = tuple((p, x) for p, x in _leaves(best) if p and (not is_var(x) or x in bound))
        ground = not (variables(best) - bound)
        paths, leaves, known = tuple(p for p, _ in keys), tuple(x for _, x in keys), frozenset(bound)
        steps.append(
            (
                "pos", relation(best), best, paths, leaves, ground,
                matcher(best, known),  # for every atom of the relation (or of a delta)
                matcher(best, known, frozenset(paths)),  # for those the index gave: keys equal
                substituter(leaves),  # the index key
                substituter(best),  # the atom, when ground
            )
        )  # fmt: skip
        variables(best, bound)
        flush()
    if pending:  # unsafe; check() refuses such a sheet before this is reached
        raise GDLError(f"unsafe rule ({rule.where()})")
    return steps


class _Compiled:
    """A rule with its body ordered for evaluation and its look-up keys worked out."""

    def __init__(self, rule: Rule, dynamic: set, relaxed: bool):
        self.rule = rule
        self.head = rule.head
        self.head_of = substituter(rule.head)  # substitute(head, s), compiled
        self.rel = relation(rule.head)
        pos = [b for b in rule.body if (a := _atom_of(b)) is not None and a[1]]
        rest = [b for b in rule.body if not ((a := _atom_of(b)) is not None and a[1])]
        if relaxed:  # negation of a dynamic relation is assumed true in the relaxed program
            rest = [b for b in rest if b[0] == "distinct" or relation(b[1]) not in dynamic]
        self._parts = (pos, rest, dynamic, rule)
        self.steps = _order(pos, rest, dynamic, None, rule)
        # semi-naive variants: the body reordered to start at each positive literal
        self.variants = [_order(pos, rest, dynamic, j, rule) for j in range(len(pos))]
        self.pos_rels = [relation(b) for b in pos]

    def reorder(self, est) -> None:
        """Order the body again with a cost estimate (see `_order()`)."""
        pos, rest, dynamic, rule = self._parts
        self.steps = _order(pos, rest, dynamic, None, rule, est)
        self.variants = [_order(pos, rest, dynamic, j, rule, est) for j in range(len(pos))]
        self.positive = [b for b in pos]
        self.negative = [b[1] for b in rule.body if (a := _atom_of(b)) is not None and not a[1]]

    def solutions(self, db, delta_step: int = -1, delta_items=(), steps=None):
        """Every substitution satisfying the body in ``db``; with ``delta_step``, the positive
        literal at that step ranges over ``delta_items`` only (semi-naive evaluation)."""
        steps = self.steps if steps is None else steps
        n = len(steps)

        def go(i, s):
            while i < n:
                st = steps[i]
                kind = st[0]
                if kind == "pos":
                    if i == delta_step:
                        cands = delta_items
                        m = st[6]
                    else:
                        rel = db(st[1])
                        if st[5]:
                            if st[9](s) not in rel.facts:
                                return
                            i += 1
                            continue
                        if st[3]:
                            cands = rel.index(st[3]).get(st[8](s), ())
                            m = st[7]
                        else:
                            cands = rel.items
                            m = st[6]
                    for atom in cands:
                        s2 = m(atom, s)
                        if s2 is not None:
                            yield from go(i + 1, s2)
                    return
                if kind == "neg":
                    if st[3](s) in db(st[1]).facts:
                        return
                else:
                    if st[3](s) == st[4](s):
                        return
                i += 1
            yield s

        return go(0, {})

    def delta_solutions(self, db, delta: dict):
        """Solutions that use at least one fact of ``delta`` (rel -> new facts)."""
        for j, rel in enumerate(self.pos_rels):
            items = delta.get(rel)
            if items:
                steps = self.variants[j]
                yield from self.solutions(db, 0, items, steps)


# ----------------------------------------------------------------------------- program
class Program:
    """A checked GDL program, its components in dependency order and its static facts."""

    def __init__(self, rules: list[Rule], static_time_limit: float = STATIC_TIME_LIMIT, stop=None):
        expanded = []
        self.ignored = []  # base/input sentences of the wrong arity, dropped with a warning
        for r in rules:
            name, arity = relation(r.head)
            if name in ("base", "input") and arity != KEYWORD_ARITY[name]:
                self.ignored.append(r)
                continue
            expanded.extend(e for x in expand_or(r) if (e := resolve_equalities(x)) is not None)
        expanded, self.localized = localize_negations(expanded)
        expanded, self.split = split_by_constant(expanded)
        if self.localized:
            import warnings

            warnings.warn(
                f"read {len(self.localized)} negation(s) with variables found nowhere else in their rule "
                f"as 'there is no such ...', e.g. {self.localized[0].where()}",
                stacklevel=3,
            )
        if self.split:
            import warnings

            warnings.warn(
                "negation is stratified only once "
                + ", ".join(f"{n}/{k}" for n, k in self.split)
                + " is told apart by a constant argument: read it so (the sheet breaks GDL's stratification "
                "at the relation level)",
                stacklevel=3,
            )
        if self.ignored:
            import warnings

            warnings.warn(
                f"ignored {len(self.ignored)} base/input sentence(s) of the wrong arity, "
                f"e.g. {self.ignored[0].where()}",
                stacklevel=3,
            )
        self.rules = expanded
        deps = _Deps()
        neg_deps = defaultdict(set)
        rels = {TRUE, DOES}
        for r in expanded:
            h = relation(r.head)
            rels.add(h)
            deps.setdefault(h, set())
            for b in r.body:
                a = _atom_of(b)
                if a is None:
                    continue
                br = relation(a[0])
                rels.add(br)
                deps[h].add(br)
                if not a[1]:
                    neg_deps[h].add(br)
        self.deps = deps
        self.relations = rels
        comps = _sccs(sorted(rels), deps)
        self.components = comps
        comp_of = {rel: i for i, c in enumerate(comps) for rel in c}
        self.comp_of = comp_of
        check(expanded, deps, comp_of)
        self.dynamic = {rel for rel in rels if rel in (TRUE, DOES) or deps.get_dyn(rel)}
        self.does_dependent = {rel for rel in rels if rel == DOES or deps.get_does(rel)}
        self.recursive = [len(c) > 1 or c[0] in deps.get(c[0], ()) for c in comps]
        by_head = defaultdict(list)
        for r in expanded:
            by_head[relation(r.head)].append(r)
        self.by_head = by_head
        self._exact = {rel: [_Compiled(r, self.dynamic, False) for r in rs] for rel, rs in by_head.items()}
        self._relaxed = {rel: [_Compiled(r, self.dynamic, True) for r in rs] for rel, rs in by_head.items()}
        self.static = {}
        self._sample: dict = {}  # relation -> its facts for estimate()
        self._estimates: dict = {}  # (relation, constants, known paths) -> estimate()
        if not (isinstance(static_time_limit, (int, float)) and 0 < static_time_limit < float("inf")):
            raise ValueError(
                f"static_time_limit must be a positive finite number of seconds, got {static_time_limit!r}"
            )
        c0 = time.thread_time()

        def static_budget(work, pending, rel):
            if stop is not None and stop():
                raise LoadStopped("loading stopped: its caller no longer wants the sheet")
            n = sum(len(r.items) for r in self.static.values()) + pending
            if n > MAX_STATIC_FACTS:
                raise GDLError(
                    f"the static relations pass MAX_STATIC_FACTS = {MAX_STATIC_FACTS:,} facts (while evaluating "
                    f"{rel[0]}/{rel[1]}): the sheet seems to define an infinite or too large relation"
                )
            if time.thread_time() - c0 > static_time_limit:
                raise GDLError(
                    f"the static relations take more than {static_time_limit:g} s of CPU time (the load's time limit, "
                    f"{sum(len(r.items) for r in self.static.values()) + pending:,} facts so far): the sheet "
                    "defines a relation too large to compute"
                )

        self._run(
            [i for i, c in enumerate(comps) if not any(rel in self.dynamic for rel in c)],
            self.static,
            self._exact,
            None,
            static_budget,
        )

        # The exact path's joins, ordered once by an estimate that needs no grounding, so that
        # they do the same work whether or not the sheet is grounded (see `estimate()`).
        est = self.estimate
        for crs in self._exact.values():
            for cr in crs:
                cr.reorder(est)

    def estimate(self, lit, bound) -> float:
        """Expected matches of positive literal ``lit`` with the variables ``bound`` known,
        without grounding: a static relation from its facts, ``true`` from the ``base``
        facts (every fluent) or else the ``init`` facts (a sample state), ``does`` one (one
        move per role), any other relation `DERIVED_GUESS` facts, a tenth as many per
        argument known."""
        rel = relation(lit)
        if rel == DOES:
            return 1.0
        leaves = [(p, x) for p, x in _leaves(lit) if p]
        consts = tuple((p, x) for p, x in leaves if not is_var(x))
        known = tuple(sorted({p for p, x in leaves if is_var(x) and x in bound}))
        if rel != TRUE and rel in self.dynamic:
            return DERIVED_GUESS / 10.0 ** (len(consts) + len(known))
        key = (rel, consts, known)
        got = self._estimates.get(key)
        if got is None:
            facts = self._sample.get(rel)
            if facts is None:
                facts = self._sample[rel] = _Rel()
                # true: the base facts (every fluent), else the init facts (a sample state)
                sample = self.static_facts(("base", 1)) or self.static_facts(("init", 1))
                for a in sample if rel == TRUE else self.static_facts(rel):
                    facts.add(("true", a[1]) if rel == TRUE else a)
            cands = (
                facts.index(tuple(p for p, _ in consts)).get(tuple(x for _, x in consts), ()) if consts else facts.items
            )
            # the facts with these constants, over the values the known variables can take
            values = {tuple(_get(a, p) for p in known) for a in cands}
            got = self._estimates[key] = len(cands) / max(1, len(values))
        return got

    # ------------------------------------------------------------------ evaluation
    def components_for(self, targets) -> list[int]:
        """The dynamic components that ``targets`` need, in evaluation order."""
        need = set()
        for t in targets:
            need.add(t)
            need |= self.deps.closure(t)
        out = []
        for i, c in enumerate(self.components):
            if any(rel in need and rel in self.dynamic and rel not in (TRUE, DOES) for rel in c):
                out.append(i)
        return out

    def _run(self, comp_ids, store: dict, compiled, base: dict | None, budget=None) -> None:
        """Evaluate the components ``comp_ids`` into ``store`` (facts looked up in store, then base)."""
        static = self.static if base is None else base
        if budget is None:
            budget = _state_budget
        work = 0

        def db(rel):
            r = store.get(rel)
            if r is None:
                r = static.get(rel)
                if r is None:
                    return _EMPTY
            return r

        for ci in comp_ids:
            comp = self.components[ci]
            for rel in comp:
                if rel not in store:
                    store[rel] = _Rel()
            crs = [cr for rel in comp for cr in compiled.get(rel, ())]
            delta = None
            while True:
                # the new facts of each relation, kept once each as they are found (in order)
                new: dict = {}
                for cr in crs:
                    head_of = cr.head_of
                    target = store[cr.rel].facts
                    got = new.setdefault(cr.rel, {})
                    sols = cr.solutions(db) if delta is None else cr.delta_solutions(db, delta)
                    for s in sols:
                        h = head_of(s)
                        if h not in target and h not in got:
                            got[h] = None
                        work += 1
                        if not work & 0x3FFF:  # within a join too: one join can take long
                            budget(work, sum(len(g) for g in new.values()), cr.rel)
                    budget(work, sum(len(g) for g in new.values()), cr.rel)
                if not self.recursive[ci]:
                    for rel, hs in new.items():
                        add = store[rel].add
                        for h in hs:
                            add(h)
                    break
                delta = {}
                for rel, hs in new.items():
                    for h in hs:
                        if store[rel].add(h):
                            delta.setdefault(rel, []).append(h)
                            if _depth(h) > MAX_TERM_DEPTH:
                                raise GDLError(
                                    f"{rel[0]}/{rel[1]} derives terms nested deeper than {MAX_TERM_DEPTH} "
                                    f"(e.g. {to_text(h)[:120]}...): the sheet seems to define an infinite relation"
                                )
                if not delta:
                    break

    def evaluate(self, true_facts, does_facts, targets, relaxed: bool = False, budget=None) -> dict:
        """The facts of ``targets`` (and what they need) given ``true``/``does`` atoms.

        ``budget(work, pending, rel)`` is called as rule bodies are solved (``work`` solutions
        so far, ``pending`` new facts not yet stored, ``rel`` the relation evaluated) and may
        raise; by default a state whose
        evaluation passes `MAX_STATE_SOLUTIONS` body solutions raises `GDLError`."""
        store = {TRUE: _Rel(), DOES: _Rel()}
        for f in true_facts:
            store[TRUE].add(("true", f))
        for d in does_facts:
            store[DOES].add(d)
        self._run(self.components_for(targets), store, self._relaxed if relaxed else self._exact, None, budget)
        return store

    def rule_for(self, atom) -> Rule | None:
        """The first rule of the sheet whose head matches the ground ``atom`` (for messages)."""
        name, arity = relation(atom)
        found = None
        for r in self.rules:
            n, k = relation(r.head)
            if k == arity and (n == name or n.startswith(name + "#")) and match(r.head[1:], atom[1:], {}) is not None:
                if r.line:
                    return r
                found = found or r
        return found

    def bad_goal(self, atom) -> GDLError:
        """The error for a goal fact whose value is not an integer 0..100."""
        r = self.rule_for(atom)
        where = f" ({r.where()})" if r is not None else ""
        return GDLError(
            f"goal value {to_text(atom[2])[:60]} of role {to_text(atom[1])[:60]} is not an integer 0..100{where}"
        )

    def static_facts(self, rel) -> list:
        r = self.static.get(rel)
        return list(r.items) if r is not None else []
