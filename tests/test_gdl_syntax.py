"""The KIF reader, the checker (refusals name the rule) and the exact reasoner on small sheets."""

from __future__ import annotations

import pytest

from ggpzoo import gdl
from ggpzoo.gdl.syntax import parse, to_text

COUNTER = """
; a one-role counter: count 1..3 then stop
(ROLE Robot)
(init (Count 1))
(succ 1 2) (succ 2 3)
(<= (legal robot inc) (true (count ?n)) (not (true (count 3))))
(<= (legal robot (jump ?m)) (true (count ?n)) (succ ?n ?m))
(<= (next (count ?m)) (does robot inc) (true (count ?n)) (succ ?n ?m))
(<= (next (count ?m)) (does robot (jump ?m)))
(<= terminal (true (count 3)))
(<= (goal robot 100) (true (count 3)))
(<= (goal robot 0) (not (true (count 3))))
"""


def test_parse_case_comments_numbers():
    rules = parse("(<= (Legal ?R (Mark 1 2)) ; comment\n  (TRUE (control ?r)))\n(role x)")
    assert rules[0].head == ("legal", "?r", ("mark", "1", "2"))
    assert rules[0].body == (("true", ("control", "?r")),)
    assert rules[1].line == 3 and rules[1].head == ("role", "x")
    assert to_text(rules[0].head) == "(legal ?r (mark 1 2))"


@pytest.mark.parametrize(
    "text,match",
    [
        ("(role x", "line 1: '\\(' is never closed"),
        ("(role x))", "unmatched"),
        ("(<= (p ?x) (q ?y))\n(q 1)", "unsafe rule: variable\\(s\\) \\?x"),
        ("(<= (p ?x) (q ?x) (not (r ?y)) (distinct ?y 1))\n(q 1)", "unsafe rule: variable\\(s\\) \\?y"),
        ("(<= p (not p))", "not stratified"),
        ("(<= (p ?x) (q ?x) (not (r ?x)))\n(<= (r ?x) (p ?x))\n(q 1)", "not stratified"),
        ("(<= (p ?x) (p ?y) (q ?x))\n(q 1)", "recursion restriction broken: argument \\?y"),
        ("(<= (true p) (q 1))", "true cannot be defined"),
        ("(<= (legal r a) (does r b))\n(role r)", "legal must not depend on does"),
        ("(role r)\n(<= (init p) (true q))", "init must not depend on true"),
        ("(legal r)", "legal takes 2 arguments"),
        ("(<= (p ?x) (q ?x) (distinct ?x ?z))\n(q 1)", "unsafe rule"),
        ("(q 1)", "no role"),
        ("(role r)\n(nat 0)\n(<= (nat (s ?x)) (nat ?x))", "infinite relation"),
    ],
)
def test_bad_sheets_are_refused_naming_the_rule(text, match):
    with pytest.raises(gdl.GDLError, match=match):
        gdl.load(text)


def test_malformed_base_is_ignored_with_a_warning():
    text = COUNTER + "\n(base cellholds (val 1 2) (val 3 4))"
    with pytest.warns(UserWarning, match="ignored 1 base/input sentence"):
        g = gdl.load(text)
    assert g.legal(g.initial_state(), "robot") == ["inc", ("jump", "2")]


def test_error_names_the_line():
    text = "(role r)\n(q 1)\n(<= (p ?x)\n    (q ?y))"
    with pytest.raises(ValueError, match="line 3: \\(<= \\(p \\?x\\) \\(q \\?y\\)\\)"):
        gdl.load(text)


def test_missing_file():
    with pytest.raises(ValueError, match="no such GDL file"):
        gdl.load("/nonexistent/game.kif")


def test_exact_reasoner_counter():
    g = gdl.load(COUNTER)
    assert g.roles == ["robot"]
    s = g.initial_state()
    assert s == frozenset({("count", "1")})
    assert g.legal(s, "robot") == ["inc", ("jump", "2")]
    assert not g.is_terminal(s) and g.goals(s) == {"robot": 0}
    s2 = g.next_state(s, {"robot": "inc"})
    assert s2 == frozenset({("count", "2")})
    s3 = g.next_state(s2, {"robot": ("jump", "3")})
    assert g.is_terminal(s3) and g.goals(s3) == {"robot": 100}
    assert g.legal(s3, "robot") == []
    # no input relation: the action space comes from grounding
    assert g.actions["robot"] == ["inc", ("jump", "2"), ("jump", "3")]


def test_or_and_recursion():
    text = """
    (role r)
    (edge a b) (edge b c) (edge c d)
    (<= (path ?x ?y) (edge ?x ?y))
    (<= (path ?x ?z) (edge ?x ?y) (path ?y ?z))
    (init (at a))
    (<= (legal r (go ?y)) (true (at ?x)) (or (edge ?x ?y) (path ?x ?y)))
    (<= (next (at ?y)) (does r (go ?y)))
    (<= terminal (true (at d)))
    (<= (goal r 100) (true (at d)))
    (<= (goal r 0) (not (true (at d))))
    """
    g = gdl.load(text)
    assert g.legal(g.initial_state(), "r") == [("go", "b"), ("go", "c"), ("go", "d")]


def test_tictactoe_exact_game():
    g = gdl.load(gdl.game_path("tictactoe"))
    s = g.initial_state()
    for x, y, who in [(1, 1, "xplayer"), (2, 1, "oplayer"), (1, 2, "xplayer"), (2, 2, "oplayer"), (1, 3, "xplayer")]:
        other = "oplayer" if who == "xplayer" else "xplayer"
        assert g.legal(s, other) == ["noop"]
        s = g.next_state(s, {who: ("mark", str(x), str(y)), other: "noop"})
    assert g.is_terminal(s)
    assert g.goals(s) == {"xplayer": 100, "oplayer": 0}


LOCAL_NEGATION = """
; two roles mark cells at the same time; a cell stays blank when no one marks it,
; written with a variable that appears only under the negation
(role a) (role b)
(cell 1) (cell 2) (cell 3)
(<= (init (c ?x b)) (cell ?x))
(init (t 0))
(succ 0 1) (succ 1 2)
(<= (legal ?r (mark ?x)) (role ?r) (true (c ?x b)))
(<= (next (c ?x ?r)) (does ?r (mark ?x)))
(<= (next (c ?x b)) (true (c ?x b)) (not (does ?anyone (mark ?x))))
(<= (next (c ?x ?v)) (true (c ?x ?v)) (distinct ?v b))
(<= (next (t ?n)) (true (t ?m)) (succ ?m ?n))
(<= terminal (true (t 2)))
(<= (goal ?r 50) (role ?r))
"""


def test_negation_with_local_variables_reads_as_there_is_no():
    """A corpus quirk: a variable found only under a negation is read as "there is no such"
    (with a warning), on both paths; unsafe head and distinct variables are still refused."""
    with pytest.warns(UserWarning, match="negation"):
        g = gdl.load(LOCAL_NEGATION)
    s = g.next_state(g.initial_state(), {"a": ("mark", "1"), "b": ("mark", "2")})
    assert {f for f in s if f[0] == "c"} == {("c", "1", "a"), ("c", "2", "b"), ("c", "3", "b")}
    from ggpzoo.gdl.cli import compare_paths

    assert compare_paths(g, 4, seed=1) == 8
    with pytest.raises(gdl.GDLError, match="unsafe rule"):
        gdl.load("(role r) (<= (p ?x) (not (q ?x))) (q 1)")
    with pytest.raises(gdl.GDLError, match="unsafe rule"):
        gdl.load("(role r) (<= p (q ?x) (not (q ?y)) (distinct ?y 1)) (q 1)")


GOAL_BY_NEGATED_GOAL = """
(role a) (role b)
(cell 1) (cell 2) (cell 3)
(init (turn a))
(<= (taken ?c) (true (m ?c ?r)))
(<= (legal ?r (mark ?c)) (true (turn ?r)) (cell ?c) (not (taken ?c)))
(<= (legal a noop) (true (turn b)))
(<= (legal b noop) (true (turn a)))
(<= (next (m ?c ?r)) (does ?r (mark ?c)))
(<= (next (m ?c ?r)) (true (m ?c ?r)))
(<= (next (turn a)) (true (turn b)))
(<= (next (turn b)) (true (turn a)))
(<= (goal ?r 100) (true (m 2 ?r)))
(<= (goal ?r 0) (role ?r) (not (goal ?r 100)))
(<= terminal (role ?r) (goal ?r 100))
"""


def test_negation_stratified_by_a_constant_argument():
    """A corpus quirk (Majorities): ``(goal ?r 0)`` defined by ``(not (goal ?r 100))``, so
    ``goal`` depends negatively on itself, but only across its constant second argument.
    The sheet is read with ``goal`` told apart by that constant (with a warning); both paths
    play it, and a real negative cycle is still refused."""
    with pytest.warns(UserWarning, match="goal/2 is told apart"):
        g = gdl.load(GOAL_BY_NEGATED_GOAL)
    s = g.initial_state()
    assert not g.is_terminal(s)
    assert g.goals(s) == {"a": 0, "b": 0}
    s = g.next_state(s, {"a": ("mark", "2"), "b": "noop"})
    assert g.is_terminal(s) and g.goals(s) == {"a": 100, "b": 0}
    from ggpzoo.gdl.cli import compare_paths

    assert compare_paths(g, 4, seed=1) > 0
    with pytest.raises(gdl.GDLError, match="not stratified"):
        gdl.load("(role r) (q 1) (<= (p ?x 1) (q ?x) (not (p ?x 1)))")


# ----------------------------------------------------------------------------- the linter
def _lint_warnings(text: str) -> list[str]:
    import warnings

    from ggpzoo.gdl.lint import GDLWarning

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        gdl.load(text, name="sheet")
    return [str(w.message) for w in got if issubclass(w.category, GDLWarning)]


def test_the_counter_sheet_has_nothing_to_warn_about():
    assert _lint_warnings(COUNTER) == []


@pytest.mark.parametrize(
    "old, new, warning",
    [
        (  # a typo in a keyword: the legal rule can never hold, the game ends at once
            "(<= (legal robot inc) (true (count ?n))",
            "(<= (legal robot inc) (tru (count ?n))",
            "GDL sheet sheet, line 6: relation tru/1 is used but never defined (no fact or rule has it as its "
            "head, so that literal is never true)",
        ),
        (  # the wrong number of arguments, inside a negation
            "(not (true (count 3))))\n(<= (legal robot (jump",
            "(not (true (count 3))) (not (succ 3)))\n(<= (legal robot (jump",
            "GDL sheet sheet, line 6: relation succ/1 is used but never defined (succ is defined with 2 argument(s))",
        ),
        (
            "(succ 1 2) (succ 2 3)",
            "(succ 1 2) (succ 2 3)\n(<= (sucess ?a ?b) (succ ?a ?b))",
            "GDL sheet sheet, line 6: relation sucess/2 is defined but never used (a dead rule, or a typo?)",
        ),
        (
            "(<= terminal (true (count 3)))",
            "",
            "GDL sheet sheet, line 12: the sheet has no terminal rule, so its games never end",
        ),
    ],
)
def test_the_linter_warns_about_likely_mistakes(old, new, warning):
    assert COUNTER.count(old) == 1
    assert _lint_warnings(COUNTER.replace(old, new)) == [warning]


def test_a_role_without_a_goal_is_named():
    two = COUNTER.replace("(ROLE Robot)", "(ROLE Robot)\n(role watcher)").replace(
        "(<= terminal", "(<= (legal watcher wait) (role watcher))\n(<= terminal"
    )
    assert _lint_warnings(two) == [
        "GDL sheet sheet, line 4: role watcher has no goal rule, so it scores 0 whatever happens"
    ]
    # a goal rule for any role (?r) covers every role
    assert _lint_warnings(two.replace("(<= (goal robot 0) (not", "(<= (goal ?r 0) (role ?r) (not")) == []


def test_the_shipped_sheets_load_without_lint_warnings():
    import glob
    import os

    sheets = glob.glob(os.path.join(gdl.GAMES_DIR, "*.kif"))
    assert len(sheets) >= 9
    for path in sheets:
        assert _lint_warnings(path) == [], path


def test_warnings_of_many_sheets_keep_no_record_and_point_at_the_caller():
    """A long-lived process (the GGP player) loads sheet after sheet: Python's warning
    registries must not keep every distinct warning of every sheet."""
    import sys
    import warnings

    def registries() -> int:
        regs = (getattr(m, "__warningregistry__", None) for m in list(sys.modules.values()))
        return sum(len(r) for r in regs if isinstance(r, dict))  # (torch's op namespaces answer any name)

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("default")
        before = registries()
        for i in range(20):
            gdl.load(COUNTER + " ".join(f"(dead{i}x{k} {k})" for k in range(30)), name=f"s{i}")
        grown = registries() - before
    assert len(got) == 20 * 30 and grown <= 2
    assert got[0].filename == __file__  # this test's line, not ggpzoo's


def test_a_numeral_of_any_length_is_a_symbol_that_plays():
    """Python's int() refuses strings past 4,300 digits: numerals are ordered without it."""
    from ggpzoo.gdl.syntax import sort_key

    n = "7" * 5000
    assert sorted(["10", n, "2", "b", "02"], key=sort_key) == ["02", "2", "10", n, "b"]
    sheet = (
        f"(role r) (init (c {n})) (<= (legal r go) (true (c {n}))) (<= (legal r stay) (true (c {n})))"
        f"(<= (next (c 1)) (does r go)) (<= (next (c {n})) (does r stay)) (<= terminal (true (c 1)))"
        f"(<= (goal r 100) (true (c 1))) (<= (goal r 0) (true (c {n})))"
    )
    for backend in ("compiled", "exact"):
        e = gdl.raw_env(gdl.load(sheet), backend=backend)
        e.reset()
        e.step(e.term_to_action("go"))
        assert e.rewards == {"r": 1.0}
    with pytest.raises(gdl.GDLError, match="goal"):
        gdl.load(sheet.replace("(goal r 0)", f"(goal r {n})"))


# the guide's own example sheet (docs/guides/gdl.md), and its common mistakes
def _guide_sheet() -> str:
    import re
    from pathlib import Path

    page = (Path(__file__).resolve().parent.parent / "docs" / "guides" / "gdl.md").read_text()
    return re.search(r"<!-- file: takeaway.kif -->\n```lisp\n(.*?)```", page, re.S).group(1)


def _problems(text: str) -> list[str]:
    from ggpzoo.gdl.lint import problems

    rules = parse(text)
    return problems(rules, [r.head[1] for r in rules if type(r.head) is tuple and r.head[0] == "role"])


def test_the_guides_sheet_has_nothing_to_warn_about():
    assert _lint_warnings(_guide_sheet()) == []


@pytest.mark.parametrize(
    "old, new, expected",
    [
        (  # the guide's own example of a typo: stone for stones, read by true
            "(<= terminal (true (stones 0)))",
            "(<= terminal (true (stone 0)))",
            [
                "fluent stone/1 is read by true but no init or next rule makes it (stones/1 is)",
                "no terminal rule can ever hold, so a game ends only when a role has no legal move",
            ],
        ),
        (  # a constant no init or next gives that argument
            "(<= (next (control white)) (true (control black)))",
            "(<= (next (control white)) (true (control blak)))",
            ["fluent (control blak) is read by true but no init or next rule makes it"],
        ),
        (  # a move no legal rule gives
            "(<= (next (winner ?p)) (does ?p (take ?k))",
            "(<= (next (winner ?p)) (does ?p (tak ?k))",
            ["move tak/1 is read by does but no legal rule gives it (take/1 is)"],
        ),
        (  # the wrong number of arguments
            "(<= (next (winner ?p)) (does ?p (take ?k))",
            "(<= (next (winner ?p)) (does ?p (take ?k 1))",
            ["move take/2 is read by does but no legal rule gives it (take/1 is)"],
        ),
    ],
)
def test_the_linter_finds_what_is_never_true(old, new, expected):
    sheet = _guide_sheet()
    assert sheet.count(old) == 1
    found = _problems(sheet.replace(old, new))
    assert len(found) == len(expected), found
    for text, want in zip(found, expected, strict=True):
        assert want in text, (text, want)
    assert any(want in w for w in _lint_warnings(sheet.replace(old, new)) for want in expected[:1])


def test_a_fluent_or_move_any_rule_can_make_is_not_flagged():
    sheet = _guide_sheet()
    # a next (or legal) with a variable in place of the fluent (the move) can make any of them
    assert not any(
        "read by" in p
        for p in _problems(
            sheet.replace("(true (stones 0))", "(true (stone 0))") + "(<= (next ?f) (true ?f) (keep ?f)) (keep x)\n"
        )
    )
    assert not any(
        "read by does" in p
        for p in _problems(
            sheet.replace("(does ?p (take ?k)) (true (stones ?k))", "(does ?p (tak ?k)) (true (stones ?k))")
            + "(<= (legal ?p ?m) (role ?p) (extra ?m)) (extra pass)\n"
        )
    )


try:
    from hypothesis import given, settings
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover
    given = None

if given is not None:

    @settings(max_examples=40, deadline=None)
    @given(
        name=st.text("abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=8),
        arity=st.integers(0, 3),
        where=st.sampled_from(["terminal", "goal", "legal"]),
    )
    def test_a_read_of_a_fluent_nothing_makes_is_always_named(name, arity, where):
        """Whatever fluent a true reads, it is named unless init or next can make it; the
        findings are a pure function of the sheet (no crash on any name or arity)."""
        sheet = _guide_sheet()
        fluent = name if arity == 0 else "(" + " ".join([name] + ["1"] * arity) + ")"
        read = {
            "terminal": ("(<= terminal (true (stones 0)))", f"(<= terminal (true {fluent}))"),
            "goal": ("(<= (goal ?p 100) (true (winner ?p)))", f"(<= (goal ?p 100) (true (winner ?p)) (true {fluent}))"),
            "legal": ("(<= (legal ?p noop) (role ?p)", f"(<= (legal ?p noop) (role ?p) (not (true {fluent}))"),
        }[where]
        text = sheet.replace(*read)
        made = {("stones", 1), ("control", 1), ("winner", 1)}
        found = [p for p in _problems(text) if "read by true" in p]
        if (name, arity) in made:
            assert found == [] or all("(" in p.split("fluent ", 1)[1][:1] for p in found)
        else:
            assert len(found) == 1 and f"fluent {name}/{arity} is read by true" in found[0], found
        assert _problems(text) == _problems(text)
