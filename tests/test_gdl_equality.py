"""``(not (distinct a b))``: a and b are the same term. Read on the exact and the compiled path,
against the meaning written out by hand on small sheets."""

from __future__ import annotations

import pytest

from ggpzoo import gdl
from ggpzoo.gdl.syntax import to_text

NUMS = """
(role a)
(num 1) (num 2) (num 3)
(init (at 0))
(<= (next (at ?x)) (does a (m ?x)))
(<= terminal (true (at ?x)) (num ?x))
(<= (goal a 100) (true (at 2)))
(<= (goal a 0) (not (true (at 2))))
"""


def _legal(text: str, backend: str) -> list[str]:
    g = gdl.load(text)
    m = g.machine(backend)
    (ids,) = m.legal(m.initial())
    return [to_text(g.actions["a"][int(i)]) for i in ids]


@pytest.mark.parametrize("backend", ["exact", "compiled"])
@pytest.mark.parametrize(
    "body,expected",
    [
        ("(num ?x) (not (distinct ?x 2))", ["(m 2)"]),
        ("(num ?x) (not (distinct 2 ?x))", ["(m 2)"]),
        ("(num ?x) (distinct ?x 2)", ["(m 1)", "(m 3)"]),
        ("(num ?x) (not (or (distinct ?x 1) (distinct ?x 1)))", ["(m 1)"]),
        ("(num ?x) (not (or (distinct ?x 1) (distinct ?x 3)))", []),
        ("(num ?x) (or (not (distinct ?x 1)) (not (distinct ?x 3)))", ["(m 1)", "(m 3)"]),
        ("(num ?x) (num ?y) (not (distinct ?x ?y)) (distinct ?y 3)", ["(m 1)", "(m 2)"]),
        ("(num ?x) (not (distinct 1 2))", []),
        ("(num ?x) (not (distinct 1 1))", ["(m 1)", "(m 2)", "(m 3)"]),
        ("(num ?x) (not (not (num 2))) (not (distinct ?x 3))", ["(m 3)"]),
        ("(num ?x) (not (not (num 7)))", []),
    ],
)
def test_negated_distinct_is_equality(backend, body, expected):
    text = NUMS + f"(<= (legal a (m ?x)) {body})\n"
    if not expected:
        text += "(<= (legal a (m 0)) (num 1))\n"  # a role must have a move
        expected = ["(m 0)"]
    assert _legal(text, backend) == expected


@pytest.mark.parametrize("backend", ["exact", "compiled"])
def test_negated_distinct_unifies_compound_terms(backend):
    text = """
    (role a)
    (cell 1 1) (cell 1 2) (cell 2 2)
    (pair (p 1 1)) (pair (p 1 2)) (pair (p 2 2))
    (init (at 0))
    (<= (legal a (m ?x ?y)) (cell ?x ?y) (pair ?q) (not (distinct ?q (p ?y ?x))))
    (<= (next (at ?x)) (does a (m ?x ?y)))
    (<= terminal (true (at 1)))
    (<= (goal a 100) (true (at 1)))
    (<= (goal a 0) (not (true (at 1))))
    """
    g = gdl.load(text)
    m = g.machine(backend)
    (ids,) = m.legal(m.initial())
    assert [to_text(g.actions["a"][int(i)]) for i in ids] == ["(m 1 1)", "(m 2 2)"]


@pytest.mark.parametrize("text", ["(not)", "(or)", "(distinct)"])
def test_bare_connectives_are_refused(text):
    with pytest.raises(gdl.GDLError, match="without arguments is not a literal"):
        gdl.load(NUMS + f"(<= (legal a (m ?x)) (num ?x) {text})\n")


def test_unsafe_negated_distinct_is_still_refused():
    with pytest.raises(gdl.GDLError, match="unsafe rule"):
        gdl.load(NUMS + "(<= (legal a (m ?x)) (num ?y) (not (distinct ?x 2)))\n")
