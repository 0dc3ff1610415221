"""Argument domains (ggpzoo.gdl.domains): the fixed spaces of a sheet that grounding cannot
finish, and the exact path playing on them."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test

from ggpzoo import gdl
from ggpzoo.gdl.domains import domains
from ggpzoo.gdl.ground import GroundingTooLarge
from ggpzoo.gdl.syntax import GDLError, parse, to_text

# Role a moves its piece to a column, role b flips its row; (mark ?c ?r) records the
# column a moved to with that column's static link, which the domains take as independent
# arguments (every column with every row), where grounding has only the linked pairs. Role
# a may always pass: a fact of a relation that rules also define.
SHEET = """
(role a) (role b)
(col 1) (col 2) (row x) (row y)
(link 1 x) (link 2 y)
(init (at 1 x)) (init (turn a))
(<= (legal a (go ?c)) (true (turn a)) (col ?c))
(<= (legal b (flip ?r)) (true (turn b)) (row ?r))
(<= (legal a noop) (true (turn b)))
(<= (legal b noop) (true (turn a)))
(legal a pass)
(<= (next (at ?c ?r)) (does a (go ?c)) (true (at ?d ?r)))
(<= (next (at ?c ?r)) (does b (flip ?r)) (true (at ?c ?s)))
(<= (next (mark ?c ?r)) (does a (go ?c)) (link ?c ?r))
(<= (next (mark ?c ?r)) (true (mark ?c ?r)))
(<= (next (at ?c ?r)) (does a pass) (true (at ?c ?r)))
(<= (next (turn b)) (true (turn a)))
(<= (next (turn a)) (true (turn b)))
(<= terminal (true (mark 2 y)) (true (at 1 y)))
(<= (goal a 100) (true (mark 2 y)))
(<= (goal a 0) (not (true (mark 2 y))))
(<= (goal b 0) (true (mark 2 y)))
(<= (goal b 100) (not (true (mark 2 y))))
"""


def _terms(text):
    return sorted(to_text(r.head) for r in parse(text))


def test_domains_of_a_hand_drawn_sheet():
    g = gdl.load(SHEET)
    d = domains(g.program, g.roles)
    # each role only the moves some rule can make legal for it
    assert [to_text(m) for m in d.moves["a"]] == ["noop", "pass", "(go 1)", "(go 2)"]
    assert [to_text(m) for m in d.moves["b"]] == ["noop", "(flip x)", "(flip y)"]
    assert sorted(to_text(f) for f in d.fluents) == _terms(
        "(at 1 x) (at 1 y) (at 2 x) (at 2 y) (mark 1 x) (mark 1 y) (mark 2 x) (mark 2 y) (turn a) (turn b)"
    )
    # grounding is tighter: only the linked marks
    assert sorted(to_text(f) for f in g.grounding().fluents) == _terms(
        "(at 1 x) (at 1 y) (at 2 x) (at 2 y) (mark 1 x) (mark 2 y) (turn a) (turn b)"
    )


@pytest.mark.parametrize("name", ["tictactoe", "connect_four", "breakthrough", "rps_fold", "skirmish_endgame"])
def test_domains_hold_every_fluent_and_move_of_the_grounding(name):
    g = gdl.load(gdl.game_path(name))
    d = domains(g.program, g.roles)
    gr = g.grounding()
    assert set(gr.fluents) <= set(d.fluents)
    for r in g.roles:
        assert set(gr.moves[r]) <= set(d.moves[r])
        assert gr.moves[r]


def test_the_exact_path_plays_on_domains_when_grounding_stops():
    g = gdl.load(SHEET, ground_time_limit=0.0)  # no CPU time: grounding always stops
    with pytest.warns(UserWarning, match="argument domains"):
        env = gdl.raw_env(g)  # "auto": the compiled path cannot ground, so the exact path
    assert env.backend == "exact"
    assert g.spaces_from == {"actions": "domains", "fluents": "domains"}
    assert [env.action_to_term(i, "a") for i in range(4)] == ["noop", "pass", "(go 1)", "(go 2)"]
    assert env.observation_space("a")["observation"].shape == (10 + 2,)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(20):
        env.reset(seed=int(rng.integers(1 << 30)))
        for _ in range(1000):
            if not env.agents:
                break
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                env.step(None)
                continue
            mask = env.observe(agent)["action_mask"]
            # the mask holds exactly the reasoner's legal moves
            legal = g.legal(env.get_state(), agent)
            assert sorted(env.action_to_term(i, agent) for i in np.flatnonzero(mask)) == sorted(map(to_text, legal))
            env.step(int(rng.choice(np.flatnonzero(mask))))
        ends += not env.agents
    assert ends == 20
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(gdl.env(gdl.load(SHEET, ground_time_limit=0.0)), num_cycles=30)


def test_the_domains_warning_names_the_line_that_read_the_spaces():
    g = gdl.load(SHEET, ground_time_limit=0.0)
    with pytest.warns(UserWarning, match="argument domains") as got:
        g.actions  # noqa: B018 (the property's read is the point)
    assert got[0].filename == __file__


def test_a_sheet_whose_domains_have_no_end_is_refused_with_both_reasons():
    text = SHEET + "(init (count 0)) (<= (next (count (s ?n))) (true (count ?n)))"
    g = gdl.load(text, ground_time_limit=0.0)
    with pytest.raises(GroundingTooLarge, match="argument domains fail too: .*nested deeper"):
        g.fluents  # noqa: B018
    with pytest.raises(GroundingTooLarge, match="argument domains fail too"):
        gdl.raw_env(g)


def test_domains_stop_at_their_time_limit():
    g = gdl.load(gdl.game_path("tictactoe"))
    with pytest.raises(GDLError, match="argument domains stopped after 0 s of CPU time"):
        domains(g.program, g.roles, time_limit=0.0)
    assert domains(g.program, g.roles, time_limit=60.0).moves == domains(g.program, g.roles).moves
