"""The GDL PettingZoo envs: API and seed tests, turn order, moves as text, observations,
and the compiled path against the exact path on every shipped sheet."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

from ggpzoo import gdl

RPS = """
; rock-paper-scissors, one simultaneous round
(role left) (role right)
(beats rock scissors) (beats scissors paper) (beats paper rock)
(<= (input ?r ?m) (role ?r) (beats ?m ?x))
(init (round 1))
(<= (legal ?r ?m) (role ?r) (true (round 1)) (beats ?m ?x))
(<= (next (played ?r ?m)) (does ?r ?m))
(<= (next (round 2)) (true (round 1)))
(<= terminal (true (round 2)))
(<= (goal ?r 100) (true (played ?r ?m)) (true (played ?s ?n)) (beats ?m ?n))
(<= (goal ?r 0) (true (played ?r ?m)) (true (played ?s ?n)) (beats ?n ?m))
(<= (goal ?r 50) (true (played ?r ?m)) (true (played ?s ?m)) (distinct ?r ?s))
(<= (goal ?r 50) (role ?r) (true (round 1)))
"""

_GAMES: dict = {}


def game(name):
    if name not in _GAMES:
        _GAMES[name] = gdl.load(gdl.game_path(name))
    return _GAMES[name]


@pytest.mark.parametrize(
    "name,backend",
    [
        ("tictactoe", "compiled"),
        ("tictactoe", "exact"),
        ("connect_four", "compiled"),
        ("connect_four", "exact"),
        ("breakthrough", "compiled"),
        ("mad_bishops", "compiled"),
    ],
)
def test_api_and_seed(name, backend):
    g = game(name)
    api_test(gdl.env(g, backend=backend), num_cycles=60)
    seed_test(lambda: gdl.env(g, backend=backend), num_cycles=20)


def test_parallel_api_simultaneous():
    g = gdl.load(RPS, name="rps")
    parallel_api_test(gdl.parallel_env(g), num_cycles=20)
    p = gdl.parallel_env(g)
    obs, infos = p.reset()
    assert infos == {"left": {"goal": 50}, "right": {"goal": 50}}
    e = p._aec
    acts = {"left": e.term_to_action("rock", "left"), "right": e.term_to_action("scissors", "right")}
    _obs, rew, term, _trunc, infos = p.step(acts)
    assert rew == {"left": 1.0, "right": -1.0} and all(term.values())
    assert infos["left"]["goal"] == 100 and infos["right"]["goal"] == 0


def test_aec_simultaneous_roles_choose_in_order():
    e = gdl.raw_env(gdl.load(RPS, name="rps"))
    e.reset()
    assert e.agent_selection == "left"
    assert e.legal_terms() == ["paper", "rock", "scissors"]
    assert e.observe("right")["action_mask"].sum() == 0
    e.step(e.term_to_action("paper"))
    assert e.agent_selection == "right" and not any(e.terminations.values())
    e.step(e.term_to_action("paper"))
    assert all(e.terminations.values())
    assert e.infos["left"]["goal"] == e.infos["right"]["goal"] == 50
    assert e.rewards == {"left": 0.0, "right": 0.0}


def test_turns_noop_is_automatic_and_terms():
    e = gdl.raw_env(game("tictactoe"))
    e.reset()
    assert e.possible_agents == ["xplayer", "oplayer"]
    assert e.agent_selection == "xplayer"
    assert e.action_space("xplayer").n == 10  # nine marks and noop, from the input relation
    a = e.term_to_action("(mark 2 2)")
    assert e.action_to_term(a) == "(mark 2 2)"
    e.step(a)
    assert e.agent_selection == "oplayer"  # xplayer's noop played itself
    obs = e.observe("oplayer")
    assert obs["action_mask"].dtype == np.int8 and obs["action_mask"].sum() == 8
    assert obs["planes"].shape == (3, 3, 3)
    assert e.plane_names == ["(cell b)", "(cell o)", "(cell x)"]
    assert obs["planes"][1, 1, e.plane_names.index("(cell x)")] == 1
    assert obs["planes"][0, 0, e.plane_names.index("(cell b)")] == 1
    assert obs["observation"][-2:].tolist() == [0, 1]  # which role observes
    assert "(cell 2 2 x)" in e.true_fluents()
    with pytest.raises(ValueError, match="illegal for oplayer"):
        e.step(e.term_to_action("(mark 2 2)"))
    with pytest.raises(ValueError, match="not a possible move"):
        e.term_to_action("(mark 4 4)")
    with pytest.raises(ValueError, match="out of range"):
        e.step(99)
    with pytest.raises(ValueError, match="integer"):
        e.step(1.5)


def test_wrapped_env_illegal_move_ends_the_game():
    e = gdl.env(game("tictactoe"))
    e.reset()
    e.step(e.unwrapped.term_to_action("(mark 1 1)"))
    e.step(e.unwrapped.term_to_action("(mark 1 1)", "oplayer"))  # taken: illegal
    assert all(e.terminations.values())
    assert e.rewards["oplayer"] == -1


def test_full_game_rewards_and_goals():
    e = gdl.raw_env(game("tictactoe"))
    e.reset()
    for move in ["(mark 1 1)", "(mark 2 1)", "(mark 1 2)", "(mark 2 2)", "(mark 1 3)"]:
        assert e.infos[e.agent_selection]["goal"] == 50
        e.step(e.term_to_action(move))
    assert all(e.terminations.values())
    assert e.infos["xplayer"]["goal"] == 100 and e.infos["oplayer"]["goal"] == 0
    assert e._cumulative_rewards == {"xplayer": 1.0, "oplayer": -1.0}


def test_max_steps_truncates():
    e = gdl.raw_env(game("connect_four"), max_steps=3)
    e.reset()
    for _ in range(3):
        e.step(int(e.legal_actions()[0]))
    assert all(e.truncations.values()) and not any(e.terminations.values())


def test_bad_arguments():
    with pytest.raises(ValueError, match="backend"):
        gdl.raw_env(game("tictactoe"), backend="fast")
    with pytest.raises(ValueError, match="needs a GDL sheet"):
        gdl.raw_env()
    with pytest.raises(ValueError, match="no shipped GDL game"):
        gdl.game_path("chess")


def _lockstep(g, n_games, seed):
    """Random games on the compiled path, the exact path checked at every step."""
    from ggpzoo.gdl.cli import compare_paths

    return compare_paths(g, n_games, seed, max_steps=10**6)


# The five editions are checked against the kernels on both paths in test_gdl_kernels.py.
@pytest.mark.parametrize("name,n_games", [("tictactoe", 30), ("connect_four", 10), ("breakthrough", 4)])
def test_compiled_matches_exact(name, n_games):
    assert _lockstep(game(name), n_games, seed=5) >= n_games * 5


def test_compiled_matches_exact_simultaneous():
    assert _lockstep(gdl.load(RPS), 5, seed=1) == 5
    assert _lockstep(game("rps_fold"), 20, seed=1) == 20 * 3  # the shipped simultaneous sheet: three rounds


def test_rps_fold_scores_rounds_and_the_match():
    env = gdl.raw_env(game("rps_fold"))
    env.reset()
    for left, right in [("rock", "fold"), ("fold", "fold"), ("scissors", "rock")]:
        assert env.agent_selection == "left"
        env.step(env.term_to_action(left))
        env.step(env.term_to_action(right))
    assert env.is_game_over() and env.rewards == {"left": 0.0, "right": 0.0}  # one round each
    assert env.infos == {"left": {"goal": 50}, "right": {"goal": 50}}
    env.reset()
    for left, right in [("paper", "rock"), ("fold", "fold"), ("rock", "rock")]:
        env.step(env.term_to_action(left))
        env.step(env.term_to_action(right))
    assert env.rewards == {"left": 1.0, "right": -1.0} and env.infos["left"]["goal"] == 100


STATIC_LEGAL = """
(role a) (role b)
(<= (legal ?r heads) (role ?r))
(<= (legal ?r tails) (role ?r))
(init (count 0))
(succ 0 1) (succ 1 2) (succ 2 3)
(<= (next (count ?m)) (true (count ?n)) (succ ?n ?m))
(<= (next (same ?n)) (does a ?x) (does b ?x) (true (count ?n)))
(<= (next (same ?n)) (true (same ?n)))
(<= (terminal) (true (count 3)))
(<= (goal a 100) (true (same ?n)))
(<= (goal a 0) (not (matched)))
(<= (matched) (true (same ?n)))
(<= (goal b 100) (not (matched)))
(<= (goal b 0) (matched))
"""


def test_static_legal_and_zero_arity_in_parentheses():
    g = gdl.load(STATIC_LEGAL)
    assert g.actions == {"a": ["heads", "tails"], "b": ["heads", "tails"]}
    assert _lockstep(g, 6, seed=2) == 18
    e = gdl.raw_env(g)
    e.reset()
    for _ in range(3):
        assert e.agent_selection == "a"
        e.step(e.term_to_action("heads"))
        e.step(e.term_to_action("tails"))
    assert all(e.terminations.values()) and e.infos["b"]["goal"] == 100


def test_random_playouts_and_cli(capsys):
    from ggpzoo.gdl import cli
    from ggpzoo.gdl.propnet import random_playouts

    steps, _seconds, mean_goals = random_playouts(game("tictactoe").propnet(), 200, seed=0)
    assert 5 * 200 <= steps <= 9 * 200
    assert 0 <= mean_goals[0] <= 100 and abs(mean_goals.sum() - 100) < 1e-9  # zero-sum 100 in tic-tac-toe
    assert cli.main([gdl.game_path("tictactoe"), "--games", "50", "--seconds", "0.2", "--no-api-test"]) == 0
    out = capsys.readouterr().out
    assert "roles: xplayer (10 actions), oplayer (10 actions)" in out
    assert "transitions/s" in out
    assert cli.main(["/nonexistent.kif"]) == 2


CYCLIC = """
; a role toggles edges of a 3-cycle; the goal is reachability, a recursive relation whose
; ground network has positive cycles (so the compiled path iterates to a fixpoint)
(role r) (role s)
(node a) (node b) (node c)
(init (edge a b)) (init (edge b c))
(init (t 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(<= (legal r (toggle ?x ?y)) (node ?x) (node ?y) (distinct ?x ?y) (true (t ?n)))
(<= (legal s wait) (true (t ?n)))
(<= (next (edge ?x ?y)) (true (edge ?x ?y)) (not (does r (toggle ?x ?y))))
(<= (next (edge ?x ?y)) (does r (toggle ?x ?y)) (not (true (edge ?x ?y))))
(<= (next (t ?m)) (true (t ?n)) (succ ?n ?m))
(<= (reach ?x ?y) (true (edge ?x ?y)))
(<= (reach ?x ?z) (true (edge ?x ?y)) (reach ?y ?z))
(<= terminal (true (t 6)))
(<= (goal r 100) (reach c a))
(<= (goal r 0) (not (reach c a)))
(<= (goal s 100) (reach a a))
(<= (goal s 0) (not (reach a a)))
"""


def test_compiled_cyclic_network_matches_exact():
    from ggpzoo.envs.propnet import kernel
    from ggpzoo.gdl.propnet import random_playouts

    g = gdl.load(CYCLIC)
    net = g.propnet()
    assert not net.incremental  # the reach atoms form positive cycles: full evaluation
    W = net.work()
    kernel.reset(net.tables, W, net.init)  # a full evaluation (it once assumed a propagating network)
    at_start = W.copy()
    assert _lockstep(g, 20, seed=3) == 20 * 6
    steps, _, _ = random_playouts(net, 10)
    assert steps == 10 * 6
    state = net.init.copy()
    assert kernel.playouts(net.tables, W, 3, 0, 1000)[2] == kernel.OK
    assert not np.array_equal(W, at_start)
    kernel.reset(net.tables, W, net.init)
    assert np.array_equal(W, at_start)
    kernel.restart(net.tables, W, state)
    assert np.array_equal(state, net.init)


@pytest.mark.parametrize("live", [False, True])
def test_both_ways_of_reading_legal_moves(live):
    """The live list of true legal atoms and the block scan give the same answers."""
    from ggpzoo.gdl.propnet import Propnet

    g = gdl.load(gdl.game_path("breakthrough"))
    g._propnet = Propnet(g, live=live)
    assert g.propnet().use_live is live
    assert _lockstep(g, 3, seed=4) > 30


_SAME_IN_EVERY_PROCESS = """
import sys
from ggpzoo import gdl
from ggpzoo.agents.mcts import MCTSAgent
from ggpzoo.gdl.propnet import random_playouts
game = gdl.load(gdl.game_path(sys.argv[1]))
net = game.propnet()
steps, _, goals = random_playouts(net, 20, seed=5)
move = MCTSAgent(game, simulations=300, seed=3)(game.machine("compiled").initial())
print(net.use_live, steps, list(goals), move)
"""


@pytest.mark.parametrize("sheet", ["connect_four", "breakthrough"])
def test_a_seed_gives_the_same_games_in_every_process(sheet):
    """How legal moves are read (live list or scan: the same moves in different orders) is
    fixed by the network's size, not by timing, so random playouts and a search's answer
    for a seed are the same in every process."""
    import subprocess
    import sys

    from ggpzoo.gdl.propnet import LIVE_MIN_LEGAL

    runs = [
        subprocess.run(
            [sys.executable, "-c", _SAME_IN_EVERY_PROCESS, sheet], capture_output=True, text=True, check=True
        ).stdout
        for _ in range(2)
    ]
    assert runs[0] == runs[1] and runs[0].strip()
    net = gdl.load(gdl.game_path(sheet)).propnet()
    assert net.use_live is (len(net.legal_atom) >= LIVE_MIN_LEGAL)


def test_play_sheet_time_limit_is_a_clear_error(tmp_path):
    """A corpus run cannot hang on a slow sheet: past its time limit a sheet fails with
    SheetTooSlow, and without one it plays to the end and the paths agree."""
    from ggpzoo.gdl.cli import play_sheet

    path = tmp_path / "rps.kif"
    path.write_text(RPS)
    r = play_sheet(path, games=2, time_limit=0.0)
    assert not r["ok"] and r["error"].startswith("SheetTooSlow: random games on the compiled path passed")
    r = play_sheet(path, games=2)
    assert r["ok"] and r["roles"] == 2 and r["steps"] == 4, r
    r = play_sheet(path, games=2, roles=3)  # another number of roles: loaded, not played
    assert r["skipped"] and r["steps"] == 0 and not r["ok"]


def test_corpus_report_notes_a_typo_that_ends_the_game_at_reset(tmp_path, capsys):
    """`tru` for `true` in the terminal rule: the sheet loads and its games end at reset, with
    no move; the corpus report says so under the sheet (and the linter's warning), not just ok."""
    from ggpzoo.gdl.cli import corpus_main

    (tmp_path / "rps.kif").write_text(RPS)
    typo = RPS.replace("(<= terminal (true (round 2)))", "(<= terminal (not (tru (round 1))))")
    (tmp_path / "typo.kif").write_text(typo)
    assert corpus_main([str(tmp_path), "--games", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("ok   rps.kif ") and lines[0].split()[5:7] == ["4", "steps"]
    assert lines[1].startswith("note typo.kif ") and lines[1].split()[5:7] == ["0", "steps"]
    assert [x.strip() for x in lines[2:4]] == [
        "line 10: relation tru/1 is used but never defined (no fact or rule has it as its head, so that "
        "literal is never true)",
        "2 of 2 games were over at reset, with no move (is terminal true at the start?)",
    ]
    assert (
        lines[4] == "2/2 sheets load and play 2 random games to the end; 1 of them with notes (the lines under 'note')"
    )


NO_INPUT = """
; a sheet without input: its action spaces come from grounding, on either path
(role a) (role b)
(init (t 0))
(succ 0 1) (succ 1 2)
(<= (legal ?r (pick ?n)) (role ?r) (true (t ?m)) (succ ?m ?n))
(<= (next (t ?n)) (does a (pick ?n)))
(<= terminal (true (t 2)))
(<= (goal ?r 50) (role ?r))
"""


def test_grounding_that_runs_out_of_time_fails_once_and_clearly():
    """Past ground_time_limit, grounding says so, and asking again fails at once instead of
    grounding for as long again; a sheet without input then plays on the exact path, its
    spaces from argument domains (with a warning); a longer limit grounds."""
    from ggpzoo.gdl.ground import GroundingTooLarge

    g = gdl.load(NO_INPUT, ground_time_limit=0.0)
    with pytest.raises(GroundingTooLarge, match="play the exact path .* argument domains") as first:
        g.grounding()
    with pytest.raises(GroundingTooLarge) as again:
        g.grounding()
    assert again.value is first.value
    with pytest.warns(UserWarning, match="come from argument domains"):
        env = gdl.raw_env(g, backend="auto")
    assert env.backend == "exact" and g.spaces_from == {"actions": "domains", "fluents": "domains"}
    assert g.actions == {r: [("pick", "1"), ("pick", "2")] for r in ("a", "b")}
    g.ground_time_limit = 60.0  # a longer limit tries again
    assert g.grounding().moves == {r: [("pick", "1"), ("pick", "2")] for r in ("a", "b")}


@pytest.mark.parametrize("name", ["tictactoe", "connect_four", "breakthrough"])
def test_incremental_playouts_play_the_games_of_full_evaluation(name):
    """The playout loop of the incremental network (a snapshot of the initial network per
    game, the changed fluents read while the does atoms are on) plays exactly the games of
    full evaluation at every state: same transitions, same goals, for the same seed."""
    from ggpzoo.gdl.propnet import Propnet, random_playouts

    g = gdl.load(gdl.game_path(name))
    net = Propnet(g, live=False)
    assert net.incremental
    inc = random_playouts(net, 30, seed=5)
    full = random_playouts(net, 30, seed=5, incremental=False)
    assert inc[0] == full[0] and np.array_equal(inc[2], full[2])


@pytest.mark.parametrize("sheet", ["breakthrough", "skirmish_endgame"])
def test_the_pending_fluents_and_a_comparison_of_every_fluent_play_the_same_games(sheet):
    """A network that keeps the list of the fluents the next move changes (``track_next``)
    and one that compares every fluent at each move play the same random games."""
    from ggpzoo.gdl.propnet import Propnet, random_playouts

    g = gdl.load(gdl.game_path(sheet))
    kept, compared = Propnet(g, track_next=True), Propnet(g, track_next=False)
    assert kept.track_next and not compared.track_next
    a, b = random_playouts(kept, 10, seed=3), random_playouts(compared, 10, seed=3)
    assert a[0] == b[0] > 100 and np.array_equal(a[2], b[2])
    assert _lockstep(g, 2, seed=5) > 30  # and the default network agrees with the exact path


@pytest.mark.parametrize("live", [False, True])
def test_incremental_playouts_leave_consistent_counters(live):
    """After many random games (each from the snapshot) the propagated values, counters and
    live list equal a recount from scratch at the state the network was left in."""
    from ggpzoo.envs.propnet import kernel
    from ggpzoo.gdl.propnet import Propnet

    net = Propnet(gdl.load(gdl.game_path("breakthrough")), live=live)
    T, W = net.tables, net.work()
    assert kernel.playouts(T, W, 20, 1, 10_000)[2] == kernel.OK
    part = {p: slice(T[kernel.WORK + 2 * i], T[kernel.WORK + 2 * i] + T[kernel.WORK + 2 * i + 1])
            for i, p in enumerate(kernel.WORK_PARTS)}  # fmt: skip
    got = W.copy()
    fresh = W.copy()
    kernel.reset(T, fresh, W[part["cur"]].astype(np.uint8))
    for p in ("vals", "cur", "sat", "cnt"):
        assert np.array_equal(got[part[p]], fresh[part[p]]), p
    na, nl = net.n_atoms, len(net.legal_atom)
    # the pending fluents: those whose next atom's value differs from their current value
    cur, got_vals = got[part["cur"]], got[part["vals"]].view(np.uint8)[:na]
    nexts = [int(got_vals[a]) if a >= 0 else 0 for a in net.next_of]
    pend = got[part["pend"]]
    assert net.track_next  # breakthrough's 130 fluents: a network that keeps the list
    assert sorted(pend[1 : 1 + pend[0]]) == [f for f in range(len(cur)) if nexts[f] != cur[f]]
    live_got, live_new, vals = got[part["live"]], fresh[part["live"]], fresh[part["vals"]].view(np.uint8)[:na]
    if live:  # the same set of true legal atoms, maybe in another order
        n = live_new[0]
        assert live_got[0] == n
        assert sorted(live_got[2 : 2 + n]) == sorted(live_new[2 : 2 + n])
        assert sorted(live_new[2 : 2 + n]) == [i for i in range(nl) if vals[net.legal_atom[i]]]


# A sheet whose move (m 1) leads to a state where a legal move, (m 9), is outside the action
# space its `input` relation declares: the transition fails after the choice was made.
FAILS_AFTER_M1 = """
(role a)
(init (s 0))
(input a (m 1)) (input a (m 2))
(base (s 0)) (base (s 1)) (base (s 2))
(<= (legal a (m 1)) (true (s 0)))
(<= (legal a (m 2)) (true (s 0)))
(<= (legal a (m 9)) (true (s 1)))
(<= (next (s 1)) (does a (m 1)))
(<= (next (s 2)) (does a (m 2)))
(<= terminal (true (s 2)))
(<= (goal a 100) (true (s 2)))
(<= (goal a 0) (not (true (s 2))))
"""


@pytest.mark.parametrize("backend", ["exact", "compiled"])
def test_a_move_the_sheet_cannot_play_leaves_the_env_as_it_was(backend):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the linter names (m 9)'s missing input; that is the point
        e = gdl.raw_env(gdl.load(FAILS_AFTER_M1), backend=backend)
    e.reset()
    before = (e.get_state(), e.agent_selection, e.legal_terms(), dict(e.rewards), e.observe("a")["observation"].copy())
    with pytest.raises(gdl.GDLError):
        e.step(e.term_to_action("(m 1)"))
    after = (e.get_state(), e.agent_selection, e.legal_terms(), dict(e.rewards), e.observe("a")["observation"])
    assert np.array_equal(before[0], after[0]) if backend == "compiled" else before[0] == after[0]
    assert before[1:4] == after[1:4] and np.array_equal(before[4], after[4])
    # the next move is played from the old position, not the failed choice again
    e.step(e.term_to_action("(m 2)"))
    assert e.terminations["a"] and e.rewards["a"] == 1.0


@pytest.mark.parametrize("backend", ["exact", "compiled"])
def test_wrapped_gdl_env_forgets_the_old_mask_on_set_state_and_copies_share_nothing(backend):
    import copy

    e = gdl.env(gdl.game_path("tictactoe"), backend=backend)
    e.reset()
    e.step(e.unwrapped.term_to_action("(mark 1 1)"))  # xplayer marks (1 1); oplayer to move
    e.last()  # the wrapper keeps this observation's mask: (mark 1 1) illegal for oplayer
    # a position where (mark 1 1) is free again, oplayer to move
    e.set_state(["(control oplayer)"] + [f"(cell {x} {y} b)" for x in (1, 2, 3) for y in (1, 2, 3)])
    assert e.agent_selection == "oplayer"
    e.step(e.unwrapped.term_to_action("(mark 1 1)"))  # legal now: not judged by the stale mask
    assert not any(e.terminations.values()) and e.agent_selection == "xplayer"
    c = copy.copy(e)
    assert c.unwrapped.true_fluents() == e.unwrapped.true_fluents() and c.agent_selection == "xplayer"
    c.step(c.unwrapped.legal_actions()[0])
    assert c.unwrapped.true_fluents() != e.unwrapped.true_fluents()
    assert e.agent_selection == "xplayer" and e.unwrapped.legal_actions().size == 8


@pytest.mark.parametrize("backend", ["exact", "compiled"])
def test_parallel_env_a_failed_joint_move_changes_nothing(backend):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = gdl.parallel_env(gdl.load(FAILS_AFTER_M1), backend=backend)
    obs, _ = p.reset()
    m1, m2 = (p._aec.term_to_action(t, role="a") for t in ("(m 1)", "(m 2)"))
    with pytest.raises(gdl.GDLError):
        p.step({"a": m1})
    assert p.agents == ["a"] and p._aec.true_fluents() == ["(s 0)"]
    _, rewards, terms, _, _ = p.step({"a": m2})
    assert terms == {"a": True} and rewards == {"a": 1.0}


def test_parallel_env_of_a_game_over_at_its_start_has_no_live_agent():
    import warnings

    text = FAILS_AFTER_M1.replace("(<= terminal (true (s 2)))", "(<= terminal (true (s 0)))")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = gdl.parallel_env(gdl.load(text), backend="exact")
    obs, infos = p.reset()
    assert p.agents == [] and obs == {} and infos == {}
    with pytest.raises(RuntimeError, match="after the game ended"):
        p.step({"a": 0})


def test_raw_env_before_reset_and_bad_roles_or_terms_give_one_line_errors():
    e = gdl.raw_env(gdl.game_path("tictactoe"), backend="exact")
    for call in (lambda: e.observe("xplayer"), lambda: e.legal_actions(), lambda: e.step(0), e.get_state):
        with pytest.raises(RuntimeError, match="call reset"):
            call()
    e.reset()
    with pytest.raises(ValueError, match="'bogus' is not a role of tictactoe"):
        e.action_to_term(1, role="bogus")
    with pytest.raises(ValueError, match="'bogus' is not a role"):
        e.legal_actions("bogus")
    with pytest.raises(ValueError, match="a move is GDL text"):
        e.term_to_action(5)
    assert e.action_to_term(e.term_to_action("(mark 2 2)")) == "(mark 2 2)"


def test_grid_layout_reads_only_ascii_digits_and_letters_as_coordinates():
    from ggpzoo.gdl.envs import grid_layout

    # '²' is a digit to str.isdigit() but no number: such a fluent is not on a grid
    cells = [("cell", x, y, "x") for x in ("1", "2") for y in ("1", "2")]
    assert grid_layout(cells) is not None
    assert grid_layout([(c[0], "²" if c[1] == "1" else "³", *c[2:]) for c in cells]) is None


def test_a_position_set_on_the_unwrapped_env_is_judged_by_its_own_mask():
    """``env.unwrapped.set_state`` (the GDL guide's form): the wrapper must not judge the next
    move by the mask of the position before."""
    e = gdl.env(gdl.game_path("tictactoe"))
    e.reset()
    mark = e.unwrapped.term_to_action("(mark 1 1)")
    e.step(mark)
    e.last()  # the wrapper keeps oplayer's mask, where (mark 1 1) is illegal
    e.unwrapped.set_state([f"(cell {x} {y} b)" for x in (1, 2, 3) for y in (1, 2, 3)] + ["(control xplayer)"])
    e.step(mark)  # legal in the new position
    assert not any(e.terminations.values()) and set(e.rewards.values()) == {0.0}
    assert e.unwrapped.agent_selection == "oplayer"


@pytest.mark.parametrize("make", ["gdl", "amazons_split_v0", "amazons_v0", "skirmish_v0"])
def test_last_before_reset_says_to_call_reset(make):
    from ggpzoo.envs import spec

    e = gdl.raw_env(gdl.game_path("tictactoe")) if make == "gdl" else spec(make).raw_env()
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        e.last()
    with pytest.raises(RuntimeError, match=r"call reset\(\) first"):
        e.observe(e.possible_agents[0])
    e.reset()
    assert e.last()[0]["action_mask"].sum() > 0
