"""Budgets and checks of the GDL engine against sheets, files and numbers that would cost
unbounded work, and goal values outside 0..100."""

from __future__ import annotations

import os
import time

import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.gdl import GDLError, logic
from ggpzoo.gdl.syntax import sort_key

BASE = """
(role white) (role black)
(init (s 0))
(legal white noop) (legal black noop)
(<= (next (s 1)) (true (s 0)))
(<= terminal (true (s 1)))
(goal black 0)
"""


# ----------------------------------------------------------------------------- unbounded work
def test_static_fact_budget_is_checked_while_a_rule_is_evaluated(monkeypatch):
    # 10^8 solutions of one rule: checked after the rule, the budget took minutes and 7.5 GB
    monkeypatch.setattr(logic, "MAX_STATIC_FACTS", 100_000)
    nums = " ".join(f"(num {i})" for i in range(100))
    text = BASE + "(goal white 0)" + nums + "\n(<= (quad ?a ?b ?c ?d) (num ?a) (num ?b) (num ?c) (num ?d))"
    t = time.process_time()
    with pytest.raises(GDLError, match=r"MAX_STATIC_FACTS = 100,000 facts \(while evaluating quad/4\)") as e:
        gdl.load(text)
    assert "\n" not in str(e.value)
    assert time.process_time() - t < 20  # CPU time: about 0.3 s


def test_static_relations_have_a_time_limit():
    from ggpzoo.gdl.syntax import parse

    nums = " ".join(f"(num {i})" for i in range(60))
    text = BASE + "(goal white 0)" + nums + "\n(<= (tri ?a ?b ?c) (num ?a) (num ?b) (num ?c))"
    with pytest.raises(GDLError, match=r"more than 0.01 s of CPU time"):
        logic.Program(parse(text), static_time_limit=0.01)
    assert logic.STATIC_TIME_LIMIT == 10.0  # what a Game gives them at least (its ground_time_limit if longer)


def test_a_load_stops_when_its_caller_says_so():
    """A GGP match aborted while its sheet's static relations are computed: the load stops
    within one look at its budget instead of computing 10^6 facts for no one."""
    from ggpzoo.gdl.ground import GroundingStopped
    from ggpzoo.gdl.syntax import LoadStopped

    nums = " ".join(f"(num {i})" for i in range(100))
    text = BASE + "(goal white 0)" + nums + "\n(<= (tri ?a ?b ?c) (num ?a) (num ?b) (num ?c))"
    t0 = time.process_time()
    calls = []

    def stop():
        calls.append(1)
        return len(calls) > 3  # wanted at first, then no longer

    with pytest.raises(LoadStopped, match="loading stopped"):
        gdl.load(text, stop=stop)
    assert time.process_time() - t0 < 5  # the whole relation takes longer than it took to stop
    assert len(calls) == 4
    assert issubclass(GroundingStopped, LoadStopped) and issubclass(LoadStopped, GDLError)
    assert gdl.load(BASE + "(goal white 0)", stop=lambda: False).roles == ["white", "black"]


def test_exact_path_bounds_one_state_and_keeps_one_copy_of_each_head(monkeypatch):
    fluents = " ".join(f"(init (f {i}))" for i in range(100))
    text = (
        "(role a) (role b) (legal a noop) (legal b noop) (goal a 0) (goal b 0)"
        + fluents
        + "(<= t3 (true (f ?x)) (true (f ?y)) (true (f ?z))) (<= (next (f ?x)) (true (f ?x))) (<= terminal t3)"
    )
    g = gdl.load(text)
    monkeypatch.setattr(logic, "MAX_STATE_SOLUTIONS", 10_000)
    with pytest.raises(GDLError, match=r"MAX_STATE_SOLUTIONS = 10,000 .*t3/0"):
        g.is_terminal(g.initial_state())
    monkeypatch.setattr(logic, "MAX_STATE_SOLUTIONS", 5_000_000)
    gathered = []
    g._cache.clear()
    g.program.evaluate(g.initial_state(), (), (("terminal", 0),), budget=lambda w, p, rel: gathered.append(p))
    assert gathered and max(gathered) <= 1  # 10^6 solutions, one head: kept once as it is found
    assert g.is_terminal(g.initial_state())


@pytest.mark.parametrize("bad", [float("nan"), -1.0, float("inf"), "60", True])
def test_ground_time_limit_is_validated(bad):
    with pytest.raises(ValueError, match="ground_time_limit"):
        gdl.load(gdl.game_path("tictactoe"), ground_time_limit=bad)
    with pytest.raises(ValueError, match="ground_time_limit"):
        gdl.Game(BASE + "(goal white 0)", ground_time_limit=bad)


def test_load_reads_a_path_with_parentheses_as_a_path(tmp_path):
    p = tmp_path / "tictactoe (1).kif"
    p.write_text(open(gdl.game_path("tictactoe")).read())
    g = gdl.load(str(p))
    assert g.name == "tictactoe (1)" and g.roles == ["xplayer", "oplayer"]
    assert gdl.load(p).roles == g.roles  # a Path too
    with pytest.raises(GDLError, match="no such GDL file"):
        gdl.load(str(tmp_path / "other (2).kif"))
    # KIF text is still text, on one line too
    assert gdl.load(" (role a) (role b) (init (s 0)) (legal a n) (legal b n) (goal a 0) (goal b 0) terminal").roles


def test_load_refuses_folders_devices_fifos_and_huge_files(tmp_path, monkeypatch):
    with pytest.raises(GDLError, match="is a folder"):
        gdl.load(str(tmp_path))
    if os.path.exists("/dev/zero"):
        with pytest.raises(GDLError, match="not a regular file"):
            gdl.load("/dev/zero")
    fifo = tmp_path / "fifo.kif"
    os.mkfifo(fifo)
    t = time.perf_counter()
    with pytest.raises(GDLError, match="not a regular file"):
        gdl.load(str(fifo))
    assert time.perf_counter() - t < 5
    from ggpzoo.gdl import game as game_module

    big = tmp_path / "big.kif"
    big.write_text("(role a)\n" * 100)
    monkeypatch.setattr(game_module, "MAX_SHEET_BYTES", 500)
    with pytest.raises(GDLError, match="MAX_SHEET_BYTES"):
        gdl.load(str(big))


def test_arena_cuts_a_gdl_game_that_need_not_end():
    from ggpzoo.agents import make_agent
    from ggpzoo.tools import arena

    never = (
        "(role a) (role b) (init (s 0)) (legal a noop) (legal a wait) (legal b noop)"
        "(<= (next (s 0)) (true (s 0))) (<= terminal (true (s 1))) (goal a 50) (goal b 50)"
    )
    from ggpzoo.gdl.lint import GDLWarning

    with pytest.warns(GDLWarning) as got:  # (s 1) is never made: terminal never holds
        g = gdl.load(never)
    assert any("no terminal rule can ever hold" in str(w.message) for w in got)
    rec = arena.play_game(g, make_agent("random", g), make_agent("random", g), seeds=(1, 2))
    assert rec.truncated and rec.score == 0.5
    assert rec.length <= 2 * arena.GDL_MAX_STEPS


def test_training_games_of_a_gdl_sheet_are_capped():
    """A sheet whose games never end: self-play training (SelfPlayVecEnv, as train builds it) cuts
    each game after GDL_MAX_STEPS joint moves, truncated."""
    from ggpzoo.gdl.spec import gdl_spec
    from ggpzoo.tools.arena import GDL_MAX_STEPS
    from ggpzoo.training.selfplay import SelfPlayVecEnv

    endless = (
        "(role a) (role b) (init (control a)) (<= (legal ?r noop) (role ?r) (not (true (control ?r))))"
        "(<= (legal ?r (m 1)) (true (control ?r))) (<= (legal ?r (m 2)) (true (control ?r)))"
        "(<= (next (control b)) (true (control a))) (<= (next (control a)) (true (control b)))"
        "(<= terminal (true (control a)) (true (control b))) (goal a 50) (goal b 50)"
    )
    venv = SelfPlayVecEnv(gdl_spec(gdl.load(endless, name="endless")), 2, seed=0)
    assert venv.games.max_steps == GDL_MAX_STEPS
    venv.reset()
    done = np.zeros(2, bool)
    for _ in range(GDL_MAX_STEPS):
        _, _, dones, infos = venv.step(venv.action_masks().argmax(axis=1))
        for i in np.flatnonzero(dones):
            assert infos[i]["TimeLimit.truncated"] and infos[i]["outcome"] == 0
        done |= dones
        if done.all():
            break
    assert done.all()


# ----------------------------------------------------------------------------- goal values
@pytest.mark.parametrize(
    "goal", ["(goal white 150)", "(goal white (score 5))", "(goal white 1234567890123456789012345)", "(goal white ²)"]
)
def test_goal_values_outside_0_to_100_are_refused_at_load(goal):
    with pytest.raises(GDLError, match=r"not an integer 0\.\.100 \(line \d+: \(goal white") as e:
        gdl.load(BASE + goal)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("backend", ["exact", "compiled"])
def test_goal_values_from_variables_are_checked_naming_the_rule(backend):
    g = gdl.load(BASE + "(val 150) (val 7)\n(<= (goal white ?x) (val ?x) (true (s 1)))")
    with pytest.raises(GDLError, match=r"goal value 150 of role white .*\(line 9: \(<= \(goal white \?x\)"):
        m = g.machine(backend)  # the compiled network checks its goal atoms as it is built
        s = m.next(m.initial(), [0, 0])
        m.goals(s)


def test_a_digit_symbol_sorts_as_a_symbol():
    assert sorted(["²", "10", "2", "a"], key=sort_key) == ["2", "10", "a", "²"]
    g = gdl.load(
        BASE.replace("(legal white noop)", "(legal white ²) (legal white 3) (legal white noop)") + "(goal white 0)"
    )
    assert g.legal(g.initial_state(), "white") == ["3", "noop", "²"]


# ----------------------------------------------------------------------------- messages
def test_terms_nested_past_the_limit_are_refused_in_one_line():
    from ggpzoo.gdl.syntax import MAX_NESTING

    deep = "(f " * 250 + "a" + ")" * 250
    with pytest.raises(GDLError, match=f"nested deeper than MAX_NESTING = {MAX_NESTING}"):
        gdl.load(BASE + "(goal white 0)" + f"(<= (q ?x) (p {deep}) (r ?x)) (r 1)")
    ok = "(f " * 40 + "a" + ")" * 40  # deep, within the limit: read and evaluated
    from ggpzoo.gdl.lint import GDLWarning

    with pytest.warns(GDLWarning, match="relation q/1 is defined but never used"):
        g = gdl.load(BASE + "(goal white 0)" + f"(p {ok}) (<= (q ?x) (p ?x))")
    assert len(g.program.static_facts(("q", 1))) == 1


def test_a_role_must_be_a_symbol():
    with pytest.raises(GDLError, match=r"a role is a symbol, got \(c d\) \(line 1: \(role \(c d\)\)\)"):
        gdl.load("(role (c d)) (role b) (init (s 0)) (legal b n) (goal b 0) terminal")


@pytest.mark.parametrize(
    "rules, named",
    [
        ("(init (s 0)) (<= (init (s ?x)) (true (s ?x)))", r"\(<= \(init \(s \?x\)\) \(true \(s \?x\)\)\)"),
        (
            "(init (s 0)) (<= (legal white m) (foo)) (<= foo (does black noop))",
            r"legal must not depend on does \(line 1: \(<= \(legal white m\) foo\)\)",
        ),
    ],
)
def test_dependency_checks_name_the_offending_rule(rules, named):
    text = (
        "(role white) (role black) (legal white noop) (legal black noop) (<= terminal (true (s 1)))"
        " (goal white 0) (goal black 0)" + rules
    )
    with pytest.raises(GDLError, match=named):
        gdl.load(text)


def test_gdl_command_line_numbers(capsys):
    from ggpzoo.gdl.cli import bench_main
    from ggpzoo.gdl.cli import main as gdl_main

    for argv, text in (
        (["--gdl", "tictactoe", "--seconds", "inf"], "MAX_SECONDS"),
        (["--gdl", "tictactoe", "--seconds", "nan"], "MAX_SECONDS"),
        (["--gdl", "tictactoe", "--seconds", "-1"], "MAX_SECONDS"),
        (["--gdl", "tictactoe", "--batch", "100000000"], "MAX_BATCH"),
    ):
        with pytest.raises(SystemExit):
            bench_main(argv)
        assert text in capsys.readouterr().err
    for argv, text in (
        (["tictactoe", "--seconds", "inf"], "MAX_SECONDS"),
        (["tictactoe", "--games", "-5"], "MAX_GAMES"),
    ):
        with pytest.raises(SystemExit):
            gdl_main(argv)
        assert text in capsys.readouterr().err


# ----------------------------------------------------------------------------- garbage collector
def test_the_collector_is_off_while_a_sheet_is_read_grounded_and_compiled(monkeypatch):
    # full collections walk every object the load has made: on a 2M-object sheet they were
    # half the load time, and each stopped all threads (a GGP player's replies) for 0.7 s
    import gc

    from ggpzoo.gdl import game as game_mod
    from ggpzoo.gdl import ground as ground_mod
    from ggpzoo.gdl import propnet as propnet_mod

    seen = []

    def spy(module, name):
        real = getattr(module, name)

        def wrapped(*a, **k):
            seen.append((name, gc.isenabled()))
            return real(*a, **k)

        monkeypatch.setattr(module, name, wrapped)

    spy(game_mod, "parse")
    spy(ground_mod, "ground")
    spy(propnet_mod, "Propnet")
    assert gc.isenabled()
    g = gdl.load(gdl.game_path("tictactoe"))
    g.propnet()
    assert sorted(seen) == [("Propnet", False), ("ground", False), ("parse", False)]
    assert gc.isenabled()  # on again after each step

    gc.disable()  # a collector the caller turned off stays off
    try:
        gdl.load(gdl.game_path("tictactoe")).propnet()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_collector_comes_back_after_a_refused_sheet_and_overlapping_loads():
    import gc

    from ggpzoo.gdl.game import gc_paused

    with pytest.raises(GDLError):
        gdl.load(BASE + "(<= (goal white ?x) (true (s ?y)))")  # unsafe rule: ?x unbound
    assert gc.isenabled()
    a, b = gc_paused(), gc_paused()  # two loads in two threads, the first ends first
    a.__enter__()
    b.__enter__()
    a.__exit__(None, None, None)
    assert not gc.isenabled()  # the second load still runs
    b.__exit__(None, None, None)
    assert gc.isenabled()
