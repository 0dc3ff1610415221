"""The batched engine's bit lanes (`ggpzoo.envs.propnet.lanes`): a sheet's games stepped 64
to a machine word play exactly the games of the per-game work areas (the propagating
table interpreter), step for step: boards, moves played, legal lists, goals, ends,
truncation, restarts, forced joint moves, simultaneous moves, errors. (The per-game path is
checked against the exact reasoner in test_vector.py.)"""

from __future__ import annotations

import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.engine import VectorGames
from ggpzoo.envs.propnet import kernel, lanes
from ggpzoo.gdl.spec import gdl_spec
from tests.test_vector import CYCLIC, ENDLESS, RPS, sheet

# Role a adds 1 or 2 to a counter; after each of its moves comes a pause where every role
# has one move (a forced joint move, played by the engine); b always waits.
PAUSE = """
(role a) (role b)
(init (turn a)) (init (n 0))
(step 1) (step 2)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(big 4) (big 5) (big 6)
(<= (legal a (add ?s)) (true (turn a)) (step ?s))
(<= (legal a wait) (not (true (turn a))))
(<= (legal b wait) (role b))
(<= (next (turn pause)) (true (turn a)))
(<= (next (turn a)) (true (turn pause)))
(<= (next (n ?y)) (does a (add 1)) (true (n ?x)) (succ ?x ?y))
(<= (next (n ?z)) (does a (add 2)) (true (n ?x)) (succ ?x ?y) (succ ?y ?z))
(<= (next (n ?x)) (true (n ?x)) (true (turn pause)))
(<= terminal (true (n ?x)) (big ?x))
(<= (goal a 100) (true (n 4)))
(<= (goal a 0) (not (true (n 4))))
(<= (goal b 50) (role b))
"""

# r marks a node each move: the marked node is hot, and heat runs along the links (1 and 2
# heat each other: a positive cycle in phase B, fed by rules keyed on r's does atoms); hot
# lamps toggle.
HOT = """
(role r) (role s)
(node 1) (node 2) (node 3)
(link 1 2) (link 2 1)
(init (t 0))
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(<= (legal r (mark ?x)) (node ?x) (true (t ?n)))
(<= (legal s wait) (true (t ?n)))
(<= (hot ?x) (does r (mark ?x)))
(<= (hot ?y) (hot ?x) (link ?x ?y))
(<= (next (lamp ?x)) (hot ?x) (not (true (lamp ?x))))
(<= (next (lamp ?x)) (node ?x) (true (lamp ?x)) (not (hot ?x)))
(<= (next (t ?m)) (true (t ?n)) (succ ?n ?m))
(<= terminal (true (t 5)))
(<= (goal r 100) (true (lamp 3)) (true (lamp 1)))
(<= (goal r 50) (true (lamp 3)) (not (true (lamp 1))))
(<= (goal r 0) (not (true (lamp 3))))
(<= (goal s 100) (not (true (lamp 3))))
(<= (goal s 0) (true (lamp 3)))
"""

_TEXTS = {"rps": RPS, "cyclic": CYCLIC, "pause": PAUSE, "endless": ENDLESS, "hot": HOT}


def _spec(name):
    if name == "endless":  # with the linter's warning asserted
        return sheet(name)
    return gdl_spec(gdl.load(_TEXTS[name])) if name in _TEXTS else name


def _same(a: VectorGames, b: VectorGames, t):
    for f in ("boards", "auxs", "goals", "terminal", "truncated", "n_legal", "legal", "to_play"):
        assert np.array_equal(getattr(a, f), getattr(b, f)), (t, f)


@pytest.mark.parametrize(
    "name, n, steps, max_steps",
    [
        ("gdl:tictactoe", 70, 40, None),  # two blocks, the second one part full
        ("gdl:connect_four", 64, 60, 30),  # truncation by max_steps
        ("gdl:breakthrough", 9, 80, None),
        ("gdl:skirmish_endgame", 5, 40, None),
        ("rps", 66, 6, None),  # simultaneous: joint actions (N, R)
        ("cyclic", 7, 20, None),  # positive cycles in the network (iterated to a fixpoint); a forced role
        ("pause", 67, 30, None),  # a forced joint move after every move
        ("hot", 65, 12, None),  # phase B: a positive cycle fed by keyed rules
    ],
)
def test_lanes_play_the_games_of_the_work_areas(name, n, steps, max_steps):
    sp = _spec(name)
    a = VectorGames(sp, n, max_steps=max_steps, lanes=False)
    b = VectorGames(sp, n, max_steps=max_steps, lanes=True)
    assert b.bit_lanes and not a.bit_lanes
    a.reset()
    b.reset()
    _same(a, b, -1)
    for t in range(steps):
        acts = a.greedy_actions(seed=t) if t % 4 == 3 else a.random_actions(seed=t)
        assert np.array_equal(acts, b.greedy_actions(seed=t) if t % 4 == 3 else b.random_actions(seed=t))
        ra, rb = a.step(acts), b.step(acts)
        for f in ("rewards", "finished", "final_goals", "lengths", "truncated"):
            assert np.array_equal(getattr(ra, f), getattr(rb, f)), (t, f)
        _same(a, b, t)
        assert np.array_equal(a.legal_masks(), b.legal_masks()), t
        assert np.array_equal(a.observe(), b.observe()), t
        i = t % n
        assert np.array_equal(a.legal_actions_of(i, 0), b.legal_actions_of(i, 0)), t
    assert a.pop_results() == b.pop_results()


@pytest.mark.parametrize("name", ["gdl:breakthrough", "gdl:skirmish_endgame", "hot", "rps", "gdl:connect_four"])
def test_keyed_rules_are_the_does_rules_on_inputs(name):
    """Phase B's keyed rules (read by the lanes only for the moves played): each atom's rules
    from ``uend`` on, each with a positive literal of a does atom and no literal on an atom
    phase B computes; the key tables hold exactly those rules, under one of their does atoms."""
    net = gdl.load(_TEXTS[name] if name in _TEXTS else gdl.game_path(name[4:])).propnet()
    ph = net.phase_b
    does = {int(a) for a in np.ravel(net.does_atom) if a >= 0}
    inside = {int(a) for a in ph.order}
    want, got = [], []  # (head, sorted literals) of every keyed rule
    for k in range(len(ph.order)):
        assert ph.rstart[k] <= ph.uend[k] <= ph.rend[k]
        for r in range(ph.rstart[k], ph.rend[k]):
            lits = ph.lits[ph.lstart[r] : ph.lend[r]].tolist()
            keyable = not any(x >> 1 in inside for x in lits) and any(not x & 1 and x >> 1 in does for x in lits)
            assert keyable == (r >= ph.uend[k]), (k, r)
            if keyable:
                want.append((int(ph.order[k]), sorted(lits)))
    for d in range(net.n_atoms):
        assert ph.key_start[d] == ph.key_start[d + 1] or d in does
        for q in range(ph.key_start[d], ph.key_start[d + 1]):
            rest = ph.key_lits[ph.key_lstart[q] : ph.key_lstart[q + 1]].tolist()
            got.append((int(ph.key_head[q]), sorted(rest + [2 * d])))
    assert sorted(want) == sorted(got)
    if name != "gdl:connect_four":
        assert got
    else:  # connect four's next rules read phase B's own atoms
        assert not got
    if name == "hot":  # keyed rules feed the positive cycle
        cycle = {int(a) for g in np.flatnonzero(ph.gcyc) for a in ph.order[ph.gstart[g] : ph.gend[g]]}
        assert cycle and cycle <= set(ph.key_head.tolist())


def test_forced_joint_moves_are_played_and_counted():
    """In ``pause`` each move of a is followed by a joint move without a choice: both are
    played in one step, and both count as moves."""
    v = VectorGames(_spec("pause"), 3, lanes=True)
    v.reset()
    assert v.to_play.tolist() == [0, 0, 0] and v.steps.tolist() == [0, 0, 0]
    assert v.legal_actions_of(0).tolist() == [1, 2]  # add 1, add 2 (wait is 0)
    v.step(np.array([[1, 0], [2, 0], [2, 0]]))
    assert v.steps.tolist() == [2, 2, 2] and v.to_play.tolist() == [0, 0, 0]
    r = v.step(np.array([[2, 0], [2, 0], [2, 0]]))  # game 0 at 3 plays on; games 1, 2 reach 4 and end
    assert r.finished.tolist() == [False, True, True] and r.lengths[1:].tolist() == [3, 3]
    assert r.final_goals[1:].tolist() == [[100, 50], [100, 50]] and v.steps.tolist() == [4, 0, 0]


def test_waiting_games_and_partial_resets_stay_in_step():
    """Games left out of a step (``which``) and games restarted alone keep the two paths
    together; without auto reset, finished games wait."""
    sp = "gdl:tictactoe"
    a, b = (VectorGames(sp, 70, auto_reset=False, lanes=x) for x in (False, True))
    a.reset()
    b.reset()
    rng = np.random.default_rng(0)
    for t in range(30):
        which = rng.random(70) < 0.7
        acts = a.random_actions(seed=t)
        a.step(acts, which=which)
        b.step(acts, which=which)
        _same(a, b, t)
        if t % 7 == 6:
            again = a.terminal & (rng.random(70) < 0.5)
            a.reset(again)
            b.reset(again)
            _same(a, b, t)


def test_a_sheet_error_is_the_same_error():
    """A game that never ends (only forced moves) fails the same way on both paths."""
    errors = []
    for x in (False, True):
        v = VectorGames(_spec("endless"), 2, lanes=x)
        with pytest.raises(ValueError) as e:
            v.reset()
        errors.append(str(e.value))
    assert errors[0] == errors[1] and "does not seem to end" in errors[0]


def test_the_lanes_switch():
    assert VectorGames("gdl:tictactoe", 2).bit_lanes  # a small network: on by default
    assert lanes.suits(gdl_spec("gdl:tictactoe").tables)
    assert not lanes.suits(gdl_spec("gdl:tictactoe").tables[: kernel.HEADER])
    assert not VectorGames("amazons_v0", 2).bit_lanes
    with pytest.raises(ValueError, match="no network to step as bit lanes"):
        VectorGames("amazons_v0", 2, lanes=True)
    with pytest.raises(ValueError, match="lanes must be True, False or None"):
        VectorGames("gdl:tictactoe", 2, lanes="yes")


@pytest.mark.parametrize(
    "name, n, max_steps", [("gdl:tictactoe", 130, None), ("rps", 70, None), ("pause", 65, None), ("cyclic", 9, 3)]
)
def test_play_games_as_lanes_plays_the_same_games(monkeypatch, name, n, max_steps):
    """``play_games`` with random players steps a sheet as bit lanes: the same goals and
    lengths as one game at a time (the same draws from each game's stream)."""
    from ggpzoo.engine import batch, play_games

    sp = _spec(name)
    goals, lengths = play_games(sp, n, seed=11, max_steps=max_steps)
    monkeypatch.setattr(batch._lanes, "suits", lambda T: False)
    goals1, lengths1 = play_games(sp, n, seed=11, max_steps=max_steps)
    assert np.array_equal(goals, goals1) and np.array_equal(lengths, lengths1)
    assert len(set(map(tuple, goals.tolist()))) > 1 or name == "cyclic"  # not all the same game
