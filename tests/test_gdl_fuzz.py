"""Random small GDL sheets (hypothesis) played in lockstep on three readings: the exact
reasoner, the compiled network, and a reference written here straight from the GDL
specification (every variable tried over every symbol of the sheet; ``not``, ``or`` and
``distinct`` read as written, no rewriting). The reference is itself checked on small
sheets whose answers are worked out by hand.

The sheets use negation, ``or``, ``distinct`` and negated built-ins (``(not (distinct ..))``,
``(not (or ..))``), the literals a rewriting reader gets wrong while both of its paths agree.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ggpzoo import gdl
from ggpzoo.gdl.lint import GDLWarning
from ggpzoo.gdl.syntax import parse, sort_key, to_text


# ----------------------------------------------------------------------------- the reference
def _symbols(t, out: set) -> None:
    if type(t) is tuple:
        for a in t[1:]:
            _symbols(a, out)
    elif t[0] != "?":
        out.add(t)


def _vars(t, out: set) -> None:
    if type(t) is tuple:
        for a in t:
            _vars(a, out)
    elif t[0] == "?":
        out.add(t)


def _sub(t, s):
    if type(t) is tuple:
        return tuple(_sub(a, s) for a in t)
    return s.get(t, t)


class Reference:
    """A sheet read by the letter of the GDL spec, for small sheets without recursion:
    relations are computed in the order given (``order``: each relation after those it
    reads), each rule by trying every assignment of its variables to the sheet's symbols."""

    def __init__(self, text: str, order: list[str]):
        self.rules = parse(text)
        self.order = order
        universe: set = set()
        for r in self.rules:
            _symbols(r.head, universe)
            for b in r.body:
                _symbols(b, universe)
        self.universe = sorted(universe - {"not", "or", "distinct"})
        self.facts = {r.head for r in self.rules if not r.body}
        self.roles = [r.head[1] for r in self.rules if not r.body and type(r.head) is tuple and r.head[0] == "role"]

    def _holds(self, lit, s, db) -> bool:
        if type(lit) is tuple and lit[0] == "not":
            return not self._holds(lit[1], s, db)
        if type(lit) is tuple and lit[0] == "or":
            return any(self._holds(a, s, db) for a in lit[1:])
        if type(lit) is tuple and lit[0] == "distinct":
            return _sub(lit[1], s) != _sub(lit[2], s)
        return _sub(lit, s) in db

    def evaluate(self, state, does=()) -> set:
        db = set(self.facts) | {("true", f) for f in state} | {("does", r, m) for r, m in does}
        for name in self.order:
            for r in self.rules:
                head_name = r.head[0] if type(r.head) is tuple else r.head
                if head_name != name or not r.body:
                    continue
                vs: set = set()
                _vars((r.head, r.body), vs)
                vs = sorted(vs)
                for values in itertools.product(self.universe, repeat=len(vs)):
                    s = dict(zip(vs, values, strict=True))
                    if all(self._holds(b, s, db) for b in r.body):
                        db.add(_sub(r.head, s))
        return db

    def initial(self) -> frozenset:
        return frozenset(f[1] for f in self.facts if type(f) is tuple and f[0] == "init")

    def answers(self, state) -> tuple[dict, bool, dict]:
        db = self.evaluate(state)
        legal = {r: sorted((a[2] for a in db if type(a) is tuple and a[0] == "legal" and a[1] == r), key=sort_key)
                 for r in self.roles}  # fmt: skip
        goals = {r: max([int(a[2]) for a in db if type(a) is tuple and a[0] == "goal" and a[1] == r], default=0)
                 for r in self.roles}  # fmt: skip
        return legal, "terminal" in db, goals

    def next_state(self, state, moves: dict) -> frozenset:
        db = self.evaluate(state, moves.items())
        return frozenset(a[1] for a in db if type(a) is tuple and a[0] == "next")


ORDER = ["aux", "win", "legal", "next", "terminal", "goal"]

HAND = """
(role a) (role b)
(num 1) (num 2) (num 3)
(init (at 1))
(<= (legal a (m ?x)) (num ?x) (not (distinct ?x 2)))
(<= (legal a (k ?x)) (num ?x) (not (or (distinct ?x 1) (true (at ?x)))))
(<= (legal a (o ?x)) (num ?x) (or (not (distinct ?x 3)) (true (at ?x))))
(legal b noop)
(<= (next (at ?x)) (does a (m ?x)))
(<= (next (at ?x)) (does a (o ?x)))
(<= terminal (true (at 2)))
(<= (goal a 100) (true (at 2)))
(<= (goal a 0) (not (true (at 2))))
(goal b 0)
"""


def test_the_reference_reads_the_hand_checked_sheet():
    """Worked out by hand from the spec: in (at 1), a may play (m 2) only (x = 2), no (k ?x)
    ((k 1) needs x = 1 and not (at 1), which holds), (o 1) (at 1) and (o 3) (x = 3)."""
    ref = Reference(HAND, ORDER)
    legal, terminal, goals = ref.answers(ref.initial())
    assert [to_text(m) for m in legal["a"]] == ["(m 2)", "(o 1)", "(o 3)"]
    assert legal["b"] == ["noop"] and not terminal and goals == {"a": 0, "b": 0}
    after = ref.next_state(ref.initial(), {"a": ("m", "2"), "b": "noop"})
    assert after == {("at", "2")}
    legal, terminal, goals = ref.answers(after)
    assert [to_text(m) for m in legal["a"]] == ["(k 1)", "(m 2)", "(o 2)", "(o 3)"]
    assert terminal and goals == {"a": 100, "b": 0}


@pytest.mark.parametrize("backend", ["exact", "compiled"])
def test_both_paths_read_the_hand_checked_sheet_as_the_reference(backend):
    _lockstep(gdl.load(HAND), Reference(HAND, ORDER), seed=0, games=3, backends=(backend,))


# ----------------------------------------------------------------------------- random sheets
LITERALS = [
    "(p ?x)",
    "(not (p ?x))",
    "(true (cell ?x))",
    "(not (true (cell ?x)))",
    "(distinct ?x N)",
    "(not (distinct ?x N))",
    "(q ?x N)",
    "(not (q N ?x))",
    "(or (p ?x) (true (cell N)))",
    "(or (not (distinct ?x N)) (true (cell ?x)))",
    "(not (or (distinct ?x N) (p N)))",
    "(not (not (p ?x)))",
    "(true (control white))",
]
AUX_LITERALS = LITERALS + ["(aux ?x)", "(not (aux ?x))"]


@st.composite
def sheets(draw) -> str:
    nums = ["1", "2", "3"]

    def lits(pool, k_max=2):
        out = []
        for _ in range(draw(st.integers(0, k_max))):
            lit = draw(st.sampled_from(pool))
            out.append(lit.replace("N", draw(st.sampled_from(nums))))
        return " ".join(out)

    p = draw(st.sets(st.sampled_from(nums)))
    q = draw(st.sets(st.tuples(st.sampled_from(nums), st.sampled_from(nums)), max_size=4))
    cells = draw(st.sets(st.sampled_from(nums)))
    return f"""
(role white) (role black)
(num 1) (num 2) (num 3)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4)
{" ".join(f"(p {x})" for x in sorted(p))}
{" ".join(f"(q {x} {y})" for x, y in sorted(q))}
(init (step 0)) (init (control white))
{" ".join(f"(init (cell {x}))" for x in sorted(cells))}
(<= (aux ?x) (num ?x) {lits(LITERALS)})
(<= (legal ?r (mark ?x)) (true (control ?r)) (num ?x) {lits(AUX_LITERALS)})
(<= (legal ?r noop) (role ?r))
(<= (next (cell ?x)) (does ?r (mark ?x)) (num ?x) {lits(AUX_LITERALS, 1)})
(<= (next (cell ?x)) (true (cell ?x)) (num ?x) {lits(AUX_LITERALS, 1)})
(<= (next (control black)) (true (control white)))
(<= (next (control white)) (true (control black)))
(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
(<= terminal (true (step 4)))
(<= terminal (num ?x) (true (cell ?x)) {lits(AUX_LITERALS)})
(<= win (num ?x) {lits(AUX_LITERALS)})
(<= (goal white 100) win)
(<= (goal white 0) (not win))
(<= (goal black 50) (role black))
"""


def _load(text: str):
    """``gdl.load`` of a random sheet: such a sheet may leave a relation unused or undefined,
    so the linter's warnings are expected (caught here, so they do not fill the test summary);
    any other warning is not."""
    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        game = gdl.load(text)
    others = [str(w.message) for w in got if not issubclass(w.category, GDLWarning)]
    assert not others, others
    return game


def _lockstep(game, ref: Reference, seed: int, games: int, backends=("exact", "compiled")) -> None:
    machines = {b: game.machine(b) for b in backends}
    rng = np.random.default_rng(seed)
    for _ in range(games):
        rs = ref.initial()
        states = {b: m.initial() for b, m in machines.items()}
        for step in range(10):
            legal, terminal, goals = ref.answers(rs)
            for b, m in machines.items():
                s = states[b]
                where = f"{b} path, joint move {step}, state {sorted(map(to_text, rs))}"
                assert set(m.fluents(s)) == set(rs), where
                assert m.terminal(s) == terminal, where
                assert m.goals(s).tolist() == [goals[r] for r in game.roles], where
                if not terminal:
                    got = {
                        r: [game.actions[r][int(i)] for i in ids] for r, ids in zip(game.roles, m.legal(s), strict=True)
                    }
                    assert got == legal, where
            if terminal:
                break
            moves = {r: legal[r][rng.integers(len(legal[r]))] for r in game.roles}
            rs = ref.next_state(rs, moves)
            for b, m in machines.items():
                states[b] = m.next(states[b], [game.action_ids[r][moves[r]] for r in game.roles])


@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(text=sheets(), seed=st.integers(0, 2**16))
def test_random_sheets_read_the_same_on_both_paths_and_the_reference(text, seed):
    _lockstep(_load(text), Reference(text, ORDER), seed=seed, games=2)


@settings(max_examples=20, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(text=sheets(), seed=st.integers(0, 2**16))
def test_random_sheets_read_the_same_with_every_network_optimisation_forced(text, seed):
    """The same with shared literals factored out of any two rules, the does atoms held
    between moves and the list of the fluents a move changes kept (all off by their bounds
    on such small sheets)."""
    from unittest import mock

    from ggpzoo.gdl import propnet

    with (
        mock.patch.object(propnet, "FACTOR_MIN_RULES", 2),
        mock.patch.object(propnet, "HOLD_MIN_DOES_OR", 0),
        mock.patch.object(propnet, "PEND_MIN_FLUENTS", 0),
    ):
        game = _load(text)
        net = game.propnet()
        assert net.hold_does == net.incremental == net.track_next
        _lockstep(game, Reference(text, ORDER), seed=seed, games=2, backends=("compiled",))
