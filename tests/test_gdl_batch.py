"""GDLVectorGames: N games of a GDL sheet in numba, checked in lockstep against the exact path's env."""

from __future__ import annotations

import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.gdl.batch import GDLVectorGames
from tests.test_gdl_env import CYCLIC, RPS

_GAMES: dict = {}


def game(name):
    if name not in _GAMES:
        text = {"cyclic": CYCLIC, "rps": RPS}.get(name)
        _GAMES[name] = gdl.load(text if text else gdl.game_path(name))
    return _GAMES[name]


def _check_game(v: GDLVectorGames, i: int, env, masks, obs) -> None:
    """Game ``i`` of the batch and the exact env agree: state, goals, over, legal sets, observation."""
    e = env.unwrapped
    roles = v.roles
    assert v.fluents(i) == e.get_state(), f"game {i}: states differ after {v.steps[i]} joint moves"
    assert v.goals[i].tolist() == [e.infos[r]["goal"] for r in roles]
    assert bool(v.over[i]) == e.is_game_over()
    assert int(v.steps[i]) == e._steps
    if e.is_game_over():
        assert not masks[i].any() and v.to_play[i] == -1
        return
    for r in range(len(roles)):
        assert np.flatnonzero(masks[i, r]).tolist() == sorted(int(x) for x in e._legal[r])
    choosers = [r for r in range(len(roles)) if len(e._legal[r]) > 1]
    assert v.to_play[i] == (choosers[0] if len(choosers) == 1 else -2)
    me = roles[int(v.to_play[i])] if v.to_play[i] >= 0 else roles[0]
    assert np.array_equal(obs[i], e.observe(me)["observation"])
    if len(choosers) == 1:
        k = len(e.actions[me])
        am = v.action_masks()[i]
        assert np.array_equal(am[:k], e.observe(me)["action_mask"]) and not am[k:].any()


@pytest.mark.parametrize(
    "name, n, steps, max_steps",
    [
        ("tictactoe", 6, 40, None),
        ("tictactoe", 4, 12, 4),  # truncation by max_steps
        ("connect_four", 4, 50, None),
        ("breakthrough", 2, 60, None),
        ("cyclic", 4, 16, None),  # full evaluation: positive cycles in the network
        ("rps", 4, 5, None),  # simultaneous: joint actions (N, R)
    ],
)
def test_lockstep_with_exact_env(name, n, steps, max_steps):
    g = game(name)
    v = GDLVectorGames(g, n, max_steps=max_steps)
    assert v.net.incremental is (name != "cyclic")
    envs = [gdl.raw_env(g, backend="exact", max_steps=max_steps) for _ in range(n)]
    for e in envs:
        e.reset()
    v.reset()
    finished_games = 0
    for t in range(steps):
        masks, obs = v.legal_masks(), v.observe()
        for i in range(n):
            _check_game(v, i, envs[i], masks, obs)
        joint = v.random_actions(seed=t)
        # the (N,) form (the chooser's action) where it applies, every other step
        simple = t % 2 == 0 and (v.to_play != -2).all()
        r = v.step(joint[np.arange(n), np.maximum(v.to_play, 0)] if simple else joint)
        for i in range(n):
            e = envs[i].unwrapped
            choosers = [] if e.is_game_over() else [k for k in range(len(v.roles)) if len(e._legal[k]) > 1]
            for k in choosers:  # in role order, as the env asks them
                e.step(int(joint[i, k]))
            assert bool(r.finished[i]) == e.is_game_over()
            if r.finished[i]:
                finished_games += 1
                assert r.final_goals[i].tolist() == [e.infos[x]["goal"] for x in v.roles]
                assert r.rewards[i].tolist() == [e.rewards[x] for x in v.roles]
                assert bool(r.truncated[i]) == any(e.truncations.values())
                assert r.lengths[i] == e._steps
                e.reset()  # the batch restarted it (auto_reset)
            else:
                assert not r.rewards[i].any()
    assert finished_games > 0
    assert len(v.pop_results()) == finished_games and v.pop_results() == []


def test_without_auto_reset_finished_games_wait():
    g = game("tictactoe")
    v = GDLVectorGames(g, 3, auto_reset=False)
    v.reset()
    t = 0
    while not v.over.all():
        r = v.step(v.random_actions(seed=t))  # entries of finished games (-1) are ignored
        assert not (r.finished & (v.steps != r.lengths)).any()
        t += 1
    assert t <= 9 and len(v.pop_results()) == 3
    assert v.over.all() and not v.legal_masks().any() and (v.to_play == -1).all()
    with pytest.raises(RuntimeError, match="call reset"):
        v.step(np.zeros(3, np.int64))
    ended = v.states.copy()
    v.reset(np.array([False, True, False]))
    assert v.over.tolist() == [True, False, True]
    assert np.array_equal(v.states[[0, 2]], ended[[0, 2]]) and np.array_equal(v.states[1], v.net.init)
    assert v.steps[1] == 0 and v.action_masks()[1].sum() == 9


def _snapshot(v):
    return [a.copy() for a in (v.states, v._W, *v._S)]


@pytest.mark.parametrize("name", ["tictactoe", "cyclic"])
def test_bad_inputs_are_refused_and_change_nothing(name):
    g = game(name)
    v = GDLVectorGames(g, 3)
    with pytest.raises(RuntimeError, match="reset"):
        v.step(np.zeros(3, np.int64))
    v.reset()
    v.step(v.random_actions(seed=1))
    before = _snapshot(v)
    legal = v.random_actions(seed=2)
    chooser = legal[np.arange(3), v.to_play]
    k = int(v.num_actions[v.to_play[0]])
    illegal = chooser.copy()
    bad = []
    if name == "tictactoe":
        occupied = [j for j in range(1, 10) if j not in v.legal_actions(0)]
        illegal[0] = occupied[0]  # a marked cell
        bad.append(illegal)
    else:  # every move of the choosing role is always legal there: only out-of-range ids are bad
        assert v.legal_actions(0).tolist() == list(range(k))
    bad += [
        chooser[:2],  # wrong shape
        np.zeros((3, 3), np.int64),
        chooser.astype(np.float64),  # wrong dtype
        chooser.astype(bool),
        [1, [2, 3], 4],  # ragged
        np.array([2**64 - 1] * 3, np.uint64),
        np.where(np.arange(3) == 1, -1, chooser),  # out of range
        np.where(np.arange(3) == 2, k, chooser),
        np.where(np.arange(3) == 2, 2**62, chooser),
        "abc",
    ]
    for a in bad:
        with pytest.raises(ValueError):
            v.step(a)
        assert all(np.array_equal(x, y) for x, y in zip(before, _snapshot(v), strict=True))
    for which in ([True, False], np.array([0, 2, 1]), np.array([0.0, 1.0, 0.0]), "yes"):
        with pytest.raises(ValueError, match="which"):
            v.reset(which)
    for seed in (-1, 1.5, True, 2**63):
        with pytest.raises(ValueError, match="seed"):
            v.random_actions(seed)
    for roles in (np.array([0, 1, 5]), np.array([0, -1, 0]), np.zeros(2, np.int64), np.zeros(3)):
        with pytest.raises(ValueError, match="roles"):
            v.observe(roles)
    for x in (0, -3, 2.0, True):
        with pytest.raises(ValueError, match="num_games"):
            GDLVectorGames(g, x)
    with pytest.raises(ValueError, match="max_steps"):
        GDLVectorGames(g, 2, max_steps=0)
    assert all(np.array_equal(x, y) for x, y in zip(before, _snapshot(v), strict=True))
    v.step(chooser)  # the games still play on
    assert (v.steps == before[-2] + 1).all() or v.pop_results()


def test_simultaneous_choices_need_one_action_per_role():
    g = game("rps")
    v = GDLVectorGames(g, 2)
    v.reset()
    assert (v.to_play == -2).all() and not v.action_masks().any()
    before = _snapshot(v)
    with pytest.raises(ValueError, match="choose at once"):
        v.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="out of range"):
        v.step(np.array([[0, 3], [1, 1]]))
    assert all(np.array_equal(x, y) for x, y in zip(before, _snapshot(v), strict=True))
    rock, paper = (g.action_ids["left"][m] for m in ("rock", "paper"))
    r = v.step(np.array([[rock, paper], [rock, rock]]))
    assert r.finished.all() and r.final_goals.tolist() == [[0, 100], [50, 50]]
    assert r.rewards.tolist() == [[-1.0, 1.0], [0.0, 0.0]]


def test_step_which_moves_only_the_chosen_games():
    v = GDLVectorGames(game("tictactoe"), 4)
    v.reset()
    states = v.states.copy()
    which = np.array([True, False, True, False])
    with pytest.raises(ValueError, match="illegal|range"):
        v.step(np.full(4, 99, np.int64), which=which)
    with pytest.raises(ValueError, match="which"):
        v.step(v.random_actions(0), which=np.ones(3, np.bool_))
    actions = v.random_actions(0)
    actions[~which] = 99  # ignored: those games wait
    v.step(actions, which=which)
    assert np.array_equal(v.states[~which], states[~which]) and (v.steps == which).all()


def test_kernel_tables_are_the_batchs_own_arrays():
    """Kernels built on a batch (the Gumbel search) move its games through these tables."""
    games = GDLVectorGames(gdl.load(gdl.game_path("tictactoe")), num_games=3)
    games.reset()
    t = games.kernel_tables()
    assert t.states is games.states and t.W.shape[0] == 3
    assert t.S[2] is games.over and t.S[5] is games.steps and t.S[6] is games.goals
    assert t.num_fluents == len(games.game.fluents) == games.single_observation_space.shape[0] - 2
    games.step(games.random_actions(seed=0))
    assert t.S[5].tolist() == [1, 1, 1]  # what a step moves, the tables show
    obs = games.observe()
    assert np.array_equal(obs[:, t.obs_cols], games.states[:, t.obs_src])


@pytest.mark.parametrize("name", ["connect_four", "rps"])
def test_threads_change_nothing(name):
    """Each game has its own work area, so the batch runs its games in parallel threads: one
    thread or all give the same states, goals and results, step by step."""
    import numba

    from ggpzoo.gdl import batch

    for f in (batch._reset_batch, batch._step_batch, batch._random_batch, batch._mask_batch, batch._check_batch):
        assert f.targetoptions.get("parallel"), f  # numba runs their loops over the games in threads
    runs = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        try:
            v = GDLVectorGames(game(name), 64, max_steps=30)
            v.reset()
            trace = []
            for t in range(40):
                r = v.step(v.random_actions(seed=t))
                trace.append((v.states.copy(), v.goals.copy(), r.finished.copy(), r.final_goals.copy()))
            runs.append((trace, v.pop_results()))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    (a, ra), (b, rb) = runs
    assert ra == rb and len(ra) > 64
    for x, y in zip(a, b, strict=True):
        assert all(np.array_equal(p, q) for p, q in zip(x, y, strict=True))


def test_finished_games_kept_for_pop_results_are_bounded(monkeypatch):
    # A batch whose results are never popped (a long training run) keeps only the newest.
    import ggpzoo.engine.batch as engine_batch
    import ggpzoo.gdl.batch as gdl_batch
    from ggpzoo.engine import VectorGames

    monkeypatch.setattr(gdl_batch, "MAX_RESULTS", 5)
    monkeypatch.setattr(engine_batch, "MAX_RESULTS", 5)
    for games in (
        gdl_batch.GDLVectorGames(gdl.load(gdl.game_path("tictactoe")), num_games=4),
        VectorGames("skirmish_endgame_v0", num_games=4),
    ):
        games.reset()
        t = 0
        while len(games._results) < 5 or t < 60:
            games.step(games.random_actions(seed=t))
            t += 1
            assert len(games._results) <= 5
        assert len(games.pop_results()) == 5 and games.pop_results() == []
