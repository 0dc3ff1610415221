"""VectorGames, for every game: the batch plays exactly the games of the AEC envs (hand-written
games) and of the exact GDL reasoner (sheets), in threads, with one-line errors."""

from __future__ import annotations

import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.engine import batch as engine_batch
from ggpzoo.engine.batch import DEFAULT_MAX_STEPS, VectorGames
from ggpzoo.engine.batch import play_games as play
from ggpzoo.envs import ENVS, load, spec
from ggpzoo.gdl.spec import gdl_spec

NAMES = list(ENVS)

# A simultaneous sheet: one round of rock-paper-scissors.
RPS = """
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

# Two roles, one of which waits; the goal is reachability, whose network has positive
# cycles (fully evaluated, not propagated); a forced role (s plays wait every turn).
CYCLIC = """
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

# No role ever has a choice and the game never ends: the sheet's error.
ENDLESS = """
(role r) (role s)
(init (t a))
(<= (legal r go) (true (t ?x)))
(<= (legal s go) (true (t ?x)))
(<= (next (t a)) (true (t a)))
(<= (goal r 50) (true (t a)))
(<= (goal s 50) (true (t a)))
(<= terminal (true (t b)))
"""

_TEXTS = {"rps": RPS, "cyclic": CYCLIC, "endless": ENDLESS}


def sheet(name: str):
    """The spec of a shipped sheet (``"gdl:tictactoe"``) or of one written above (``"rps"``)."""
    if name == "endless":  # its terminal can never hold: the linter says so
        from ggpzoo.gdl.lint import GDLWarning

        with pytest.warns(GDLWarning) as got:
            sp = gdl_spec(gdl.load(ENDLESS))
        assert any("no terminal rule can ever hold" in str(w.message) for w in got)
        return sp
    return gdl_spec(gdl.load(_TEXTS[name])) if name in _TEXTS else spec(name)


# ----------------------------------------------------------------------------- hand-written games
def _assert_same(games, envs, dense_masks):
    """Game i of the batch and ``envs[i]`` are in the same state, step for step."""
    boards, auxs = games.boards, games.auxs
    actions, counts = games.legal_actions()
    masks = games.action_masks() if dense_masks else None
    obs = games.observe()
    for i, env in enumerate(envs):
        b, a = env.get_state()
        np.testing.assert_array_equal(boards[i], b)
        np.testing.assert_array_equal(auxs[i], a)
        over = all(env.terminations.values())
        assert bool(games.terminal[i]) == over
        assert tuple(games.goals[i]) == (env.infos["white"]["goal"], env.infos["black"]["goal"])
        if over:
            assert games.to_play[i] == -1 and counts[i] == 0
            continue
        assert games.to_play[i] == a[0]
        np.testing.assert_array_equal(actions[i, : counts[i]], env.legal_actions())
        raw_obs = env.observe(env.agent_selection)
        np.testing.assert_array_equal(obs[i], raw_obs["observation"])
        if dense_masks:
            np.testing.assert_array_equal(masks[i], raw_obs["action_mask"])


@pytest.mark.parametrize("num_games", [1, 3, 257])
@pytest.mark.parametrize("name", NAMES)
def test_batch_plays_the_same_games_as_the_aec_env(name, num_games):
    games = VectorGames(name, num_games, auto_reset=False)
    games.reset()
    envs = [load(name).raw_env() for _ in range(num_games)]
    for env in envs:
        env.reset()
    dense = num_games <= 3
    _assert_same(games, envs, dense)
    step = 0
    while not games.terminal.all():
        actions = games.random_actions(seed=step) if step % 3 else games.greedy_actions(seed=step)
        assert ((actions == -1) == games.terminal).all()
        result = games.step(np.where(actions < 0, 0, actions))
        for i, env in enumerate(envs):
            if actions[i] >= 0:
                env.step(int(actions[i]))
                if result.finished[i]:
                    expected = (env.infos["white"]["goal"], env.infos["black"]["goal"])
                    assert tuple(result.final_goals[i]) == expected
                    assert tuple(result.rewards[i]) == (env.rewards["white"], env.rewards["black"])
                    assert result.lengths[i] == env.get_state()[1][2]
                    assert not result.truncated[i]
                else:
                    assert tuple(result.rewards[i]) == (0.0, 0.0)
        _assert_same(games, envs, dense)
        step += 1
    assert len(games.pop_results()) == num_games


def test_illegal_action_raises_and_changes_nothing():
    games = VectorGames("skirmish_v0", 4)
    games.reset()
    before = games.boards.copy(), games.auxs.copy()
    actions = games.random_actions(seed=1).astype(np.int64)
    actions[2] = 0  # (1,1)->(1,1) is never legal
    with pytest.raises(ValueError, match="game 2: action 0 is illegal for white now; legal: "):
        games.step(actions)
    np.testing.assert_array_equal(games.boards, before[0])
    np.testing.assert_array_equal(games.auxs, before[1])
    actions[2] = 2**32 + int(actions[1])  # would wrap to a legal id in int32
    with pytest.raises(ValueError, match=r"game 2: action 42949\d+ is out of range 0..4095"):
        games.step(actions)
    np.testing.assert_array_equal(games.auxs, before[1])
    with pytest.raises(ValueError, match="integer array of shape"):
        games.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="integer array of shape"):
        games.step(np.zeros(4, np.float32))


def test_finished_games_wait_without_auto_reset():
    games = VectorGames("skirmish_endgame_v0", 2, auto_reset=False)
    games.reset()
    while not games.terminal.all():
        games.step(np.maximum(games.random_actions(seed=int(games.auxs[:, 2].sum())), 0))
    with pytest.raises(RuntimeError, match="call reset"):
        games.step(np.zeros(2, np.int64))
    games.reset(np.array([True, False]))
    assert not games.terminal[0] and games.terminal[1]
    assert games.auxs[0, 2] == 0


def test_greedy_beats_random_at_skirmish():
    goals, _ = play("skirmish_v0", 400, white="greedy", black="random", seed=5)
    wins = (goals[:, 0] > goals[:, 1]).mean()
    assert wins > 0.8
    goals, _ = play("skirmish_v0", 400, white="random", black="greedy", seed=6)
    assert (goals[:, 1] > goals[:, 0]).mean() > 0.8


# ----------------------------------------------------------------------------- sheets
class _Exact:
    """One game on the exact reasoner, with the batch's turns: forced joint moves played
    through, over by ``terminal``, a role without a move, or (where a role has a choice)
    ``max_steps`` joint moves."""

    def __init__(self, machine, max_steps):
        self.m, self.max_steps = machine, max_steps
        self.state, self.steps = machine.initial(), 0
        self._settle()

    def _settle(self):
        m = self.m
        while True:
            self.goals = m.goals(self.state).tolist()
            self.legal = [] if m.terminal(self.state) else m.legal(self.state)
            self.over = not self.legal or any(len(x) == 0 for x in self.legal)
            self.cut = False
            if self.over:
                return
            if any(len(x) > 1 for x in self.legal):  # a choice: the cap is checked here
                self.cut = self.max_steps is not None and self.steps >= self.max_steps
                return
            self.state = m.next(self.state, [int(x[0]) for x in self.legal])
            self.steps += 1

    def play(self, joint):
        self.state = self.m.next(
            self.state, [int(a) if len(x) > 1 else int(x[0]) for a, x in zip(joint, self.legal, strict=True)]
        )
        self.steps += 1
        self._settle()


def _check_sheet_game(v, i, e, net, masks, obs):
    """Game ``i`` of the batch and the exact game ``e`` agree: state, goals, turn, legal sets, observation."""
    fluents = frozenset(net.fluents[j] for j in np.flatnonzero(v.boards[i]))
    assert fluents == e.state, f"game {i}: states differ after {v.steps[i]} joint moves"
    assert v.goals[i].tolist() == e.goals and int(v.steps[i]) == e.steps
    assert bool(v.terminal[i]) == (e.over or e.cut) and bool(v.truncated[i]) == e.cut
    if v.terminal[i]:
        assert not masks[i].any() and v.to_play[i] == -1
        return
    for r in range(v.num_roles):
        assert np.flatnonzero(masks[i, r]).tolist() == e.legal[r].tolist()
        assert v.legal_actions_of(i, r).tolist() == e.legal[r].tolist()
    choosers = [r for r in range(v.num_roles) if len(e.legal[r]) > 1]
    assert v.to_play[i] == (choosers[0] if len(choosers) == 1 else -2)
    me = int(v.to_play[i]) if v.to_play[i] >= 0 else 0
    base = e.m.fluent_vector(e.state)
    expected = np.concatenate([base, np.eye(v.num_roles, dtype=np.uint8)[me]])
    assert np.array_equal(obs[i], expected)
    if len(choosers) == 1:
        legal, counts = v.legal_actions()
        assert legal[i, : counts[i]].tolist() == e.legal[me].tolist()
        assert np.flatnonzero(v.action_masks()[i]).tolist() == e.legal[me].tolist()


@pytest.mark.parametrize(
    "name, n, steps, max_steps",
    [
        ("gdl:tictactoe", 6, 40, None),
        ("gdl:tictactoe", 4, 12, 4),  # truncation by max_steps
        ("gdl:connect_four", 4, 50, DEFAULT_MAX_STEPS),
        ("gdl:breakthrough", 2, 60, DEFAULT_MAX_STEPS),
        ("cyclic", 4, 16, None),  # full evaluation: positive cycles in the network; a forced role
        ("rps", 4, 5, None),  # simultaneous: joint actions (N, R)
    ],
)
def test_sheet_batch_agrees_with_the_exact_reasoner(name, n, steps, max_steps):
    sp = sheet(name)
    v = VectorGames(sp, n, max_steps=max_steps)
    net = sp.network
    assert net.incremental is (name != "cyclic")
    exact = sp.game.machine("exact")
    games = [_Exact(exact, max_steps) for _ in range(n)]
    v.reset()
    finished_games = 0
    for t in range(steps):
        masks, obs = v.legal_masks(), v.observe()
        assert obs.shape == (n, *sp.obs_shape)
        for i in range(n):
            _check_sheet_game(v, i, games[i], net, masks, obs)
        acts = v.random_actions(seed=t) if t % 3 else v.greedy_actions(seed=t)
        # one per role where several roles may choose (spec.simultaneous), else the role to choose's
        assert acts.shape == ((n, v.num_roles) if sp.simultaneous else (n,))
        joint = acts
        if acts.ndim == 1:
            joint = np.zeros((n, v.num_roles), np.int64)
            rows = np.flatnonzero(v.to_play >= 0)
            joint[rows, v.to_play[rows]] = acts[rows]
        # the (N,) form (the role to choose's action) where it applies, every other step
        simple = t % 2 == 0 and (v.to_play != -2).all()
        r = v.step(joint[np.arange(n), np.maximum(v.to_play, 0)] if simple else joint)
        for i in range(n):
            e = games[i]
            e.play(joint[i])
            assert bool(r.finished[i]) == (e.over or e.cut)
            if r.finished[i]:
                finished_games += 1
                assert r.final_goals[i].tolist() == e.goals and r.lengths[i] == e.steps
                assert bool(r.truncated[i]) == e.cut
                best = [max(g for q, g in enumerate(e.goals) if q != k) for k in range(len(e.goals))]
                expected = (
                    [0.0] * len(e.goals)
                    if e.cut
                    else [float(np.sign(g - b)) for g, b in zip(e.goals, best, strict=True)]
                )
                assert r.rewards[i].tolist() == expected
                games[i] = _Exact(exact, max_steps)  # the batch restarted it (auto_reset)
            else:
                assert not r.rewards[i].any()
    assert finished_games > 0
    assert len(v.pop_results()) == finished_games and v.pop_results() == []


def test_simultaneous_choices_need_one_action_per_role():
    sp = sheet("rps")
    assert sp.simultaneous
    v = VectorGames(sp, 2)
    v.reset()
    assert (v.to_play == -2).all() and not v.action_masks().any()
    assert v.legal_actions()[1].tolist() == [0, 0]
    before = v.boards.copy(), v.auxs.copy()
    with pytest.raises(ValueError, match="game 0: roles left, right choose at once; give one action per role"):
        v.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match=r"game 0: action 3 is out of range 0..2 \(the ids of right\)"):
        v.step(np.array([[0, 3], [1, 1]]))
    assert np.array_equal(v.boards, before[0]) and np.array_equal(v.auxs, before[1])
    rock, paper = (sp.game.action_ids["left"][m] for m in ("rock", "paper"))
    r = v.step(np.array([[rock, paper], [rock, rock]]))
    assert r.finished.all() and r.final_goals.tolist() == [[0, 100], [50, 50]]
    assert r.rewards.tolist() == [[-1.0, 1.0], [0.0, 0.0]]
    assert v.pop_results() == [(0, 100, 1), (50, 50, 1)]
    goals, lengths = play(sp, 300, seed=1)
    assert (lengths == 1).all() and {tuple(g) for g in goals.tolist()} == {(0, 100), (100, 0), (50, 50)}


@pytest.mark.parametrize("name", ["gdl:tictactoe", "cyclic"])
def test_bad_inputs_are_refused_and_change_nothing(name):
    v = VectorGames(sheet(name), 3)
    with pytest.raises(RuntimeError, match="reset"):
        v.step(np.zeros(3, np.int64))
    v.reset()
    v.step(v.random_actions(seed=1))
    snapshot = lambda: [a.copy() for a in (v.boards, v.auxs, v.goals, v.legal, v.n_legal, v.to_play, v.terminal)]  # noqa: E731
    before = snapshot()
    chooser = v.legal_actions()[0][:, 0].astype(np.int64)  # a legal action of the role to choose
    k = int(v.spec.action_counts[v.agents[v.to_play[0]]])
    bad = []
    if name == "gdl:tictactoe":
        occupied = [j for j in range(k) if j not in v.legal_actions_of(0)]
        bad.append(np.where(np.arange(3) == 0, occupied[0], chooser))  # a marked cell
    else:  # every move of the choosing role is always legal there: only out-of-range ids are bad
        assert v.legal_actions_of(0).tolist() == list(range(k))
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
        with pytest.raises(ValueError) as e:
            v.step(a)
        assert "\n" not in str(e.value)
        assert all(np.array_equal(x, y) for x, y in zip(before, snapshot(), strict=True))
    for which in ([True, False], np.array([0, 2, 1]), np.array([0.0, 1.0, 0.0]), "yes"):
        with pytest.raises(ValueError, match="which"):
            v.reset(which)
        with pytest.raises(ValueError, match="which"):
            v.step(chooser, which=which)
    for seed in (-1, 1.5, True, 2**63):
        with pytest.raises(ValueError, match="seed"):
            v.random_actions(seed)
    for roles in (np.array([0, 1, 5]), np.array([0, -1, 0]), np.zeros(2, np.int64), np.zeros(3)):
        with pytest.raises(ValueError, match="roles"):
            v.observe(roles)
    for game, role in ((3, 0), (0, 2), (-1, None), (True, None)):
        with pytest.raises(ValueError, match="game|role"):
            v.legal_actions_of(game, role)
    assert all(np.array_equal(x, y) for x, y in zip(before, snapshot(), strict=True))
    v.step(chooser)  # the games still play on
    assert (v.steps == before[1][:, 2] + 1).all() or v.pop_results()


def test_step_which_moves_only_the_chosen_games():
    v = VectorGames("gdl:tictactoe", 4)
    v.reset()
    boards = v.boards.copy()
    which = np.array([True, False, True, False])
    with pytest.raises(ValueError, match="out of range"):
        v.step(np.full(4, 99, np.int64), which=which)
    actions = v.random_actions(0)
    actions[~which] = 99  # ignored: those games wait
    v.step(actions, which=which)
    assert np.array_equal(v.boards[~which], boards[~which]) and (v.steps == which).all()


def test_a_sheet_error_is_one_line_naming_the_game():
    sp = sheet("endless")
    v = VectorGames(sp, 2)
    with pytest.raises(ValueError, match=r"^gdl:\w+: game 0: 100000 joint moves in a row without a choice") as e:
        v.reset()
    assert "\n" not in str(e.value)
    with pytest.raises(RuntimeError, match="call reset"):
        v.step(np.zeros(2, np.int64))  # every game must restart
    with pytest.raises(ValueError, match="game 0: 100000 joint moves in a row"):
        play(sp, 2)


# ----------------------------------------------------------------------------- every game
@pytest.mark.parametrize("name", [*NAMES, "gdl:tictactoe", "gdl:connect_four", "rps"])
def test_auto_reset_reports_each_finished_game_once(name):
    games = VectorGames(sheet(name) if name.startswith("gdl:") or name in _TEXTS else name, 16, auto_reset=True)
    games.reset()
    start_board, start_aux = games.boards[0].copy(), games.auxs[0].copy()
    finished_total = 0
    lengths = []
    for step in range(400):
        result = games.step(games.random_actions(seed=step))
        finished_total += int(result.finished.sum())
        for i in np.flatnonzero(result.finished):
            # the game restarted at once, from the start position
            np.testing.assert_array_equal(games.boards[i], start_board)
            np.testing.assert_array_equal(games.auxs[i], start_aux)
            assert not games.terminal[i]
            lengths.append(int(result.lengths[i]))
    assert finished_total >= 16  # every game ended at least once in 400 steps
    results = games.pop_results()
    assert len(results) == finished_total
    assert all(len(r) == games.num_roles + 1 for r in results)
    assert [r[-1] for r in results] == lengths
    assert games.pop_results() == []  # reported once


@pytest.mark.parametrize("name", ["skirmish_v0", "gdl:connect_four", "rps"])
def test_threads_change_nothing(name):
    """Each game has its own rows (and work area), so the batch runs its games in parallel
    threads: one thread or all give the same states, goals and results, step by step."""
    import numba

    for f in (
        engine_batch._reset_batch,
        engine_batch._step_batch,
        engine_batch._greedy_batch,
        engine_batch._play_batch,
    ):
        assert f.targetoptions.get("parallel"), f  # numba runs their loops over the games in threads
    for f in (engine_batch._random_batch, engine_batch._check_batch):  # a few dozen ns a game: one thread
        assert not f.targetoptions.get("parallel"), f
    sp = sheet(name) if name in _TEXTS else name
    runs = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        try:
            v = VectorGames(sp, 64, max_steps=15)
            v.reset()
            trace = []
            for t in range(40):
                r = v.step(v.greedy_actions(seed=t) if t % 2 else v.random_actions(seed=t))
                trace.append((v.boards.copy(), v.goals.copy(), r.finished.copy(), r.final_goals.copy()))
            runs.append((trace, v.pop_results(), play(sp, 64, "greedy", seed=3)))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    (a, ra, pa), (b, rb, pb) = runs
    assert ra == rb and len(ra) > 64
    for x, y in zip(a, b, strict=True):
        assert all(np.array_equal(p, q) for p, q in zip(x, y, strict=True))
    assert all(np.array_equal(p, q) for p, q in zip(pa, pb, strict=True))


@pytest.mark.parametrize("name", [*NAMES, "gdl:tictactoe", "gdl:connect_four"])
def test_play_whole_games(name):
    goals, lengths = play(name, 64, seed=3)
    again = play(name, 64, seed=3)
    np.testing.assert_array_equal(goals, again[0])  # seeded: the same games, whatever the threads
    np.testing.assert_array_equal(lengths, again[1])
    other_goals, other_lengths = play(name, 64, seed=4)
    assert not (np.array_equal(goals, other_goals) and np.array_equal(lengths, other_lengths))
    assert ((goals >= 0) & (goals <= 100)).all() and (lengths > 0).all()
    assert (lengths < DEFAULT_MAX_STEPS).all()  # the shipped games end long before the cap


def test_play_games_caps_the_moves():
    goals, lengths = play("gdl:connect_four", 32, seed=1, max_steps=5)
    assert (lengths == 5).all() and (goals == 50).all()  # cut before anyone has four in a row
    goals, lengths = play("gdl:tictactoe", 8, seed=1, max_steps=None)
    assert ((lengths >= 5) & (lengths <= 9)).all()


def test_greedy_takes_a_win_on_a_sheet():
    """One ply on the goals: greedy takes an immediate win, which random play misses."""
    goals, _ = play("gdl:connect_four", 300, white="greedy", black="random", seed=5)
    greedy_wins = (goals[:, 0] > goals[:, 1]).mean()
    goals, _ = play("gdl:connect_four", 300, seed=5)
    random_wins = (goals[:, 0] > goals[:, 1]).mean()
    assert greedy_wins > random_wins + 0.15
    goals, _ = play("gdl:tictactoe", 300, policies=("random", "greedy"), seed=6)
    assert (goals[:, 1] > goals[:, 0]).mean() > 0.5


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown environment"):
        VectorGames("go_v5", 4)
    with pytest.raises(ValueError, match="unknown environment"):
        VectorGames(["skirmish_v0"], 2)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="num_games"):
            VectorGames("amazons_v0", bad)
        with pytest.raises(ValueError, match="max_steps"):
            VectorGames("gdl:tictactoe", 2, max_steps=bad)
        with pytest.raises(ValueError, match="num_games"):
            play("amazons_v0", bad)
    with pytest.raises(ValueError, match="unknown policy"):
        play("amazons_v0", 2, white="alphazero")
    with pytest.raises(ValueError, match="one policy per role"):
        play("gdl:tictactoe", 2, policies=("greedy",))


@pytest.mark.parametrize("name", ["skirmish_endgame_v0", "gdl:tictactoe"])
def test_finished_games_kept_for_pop_results_are_bounded(monkeypatch, name):
    # A batch whose results are never popped (a long training run) keeps only the newest
    # (in chunks of a step's finished games: at most one step's games more).
    monkeypatch.setattr(engine_batch, "MAX_RESULTS", 5)
    games = VectorGames(name, num_games=4)
    games.reset()
    t, seen = 0, []
    while len(seen) < 12 or t < 60:
        r = games.step(games.random_actions(seed=t))
        seen += [(*(int(g) for g in r.final_goals[i]), int(r.lengths[i])) for i in np.flatnonzero(r.finished)]
        t += 1
        assert games._n_results < 5 + games.num_games
    assert games.pop_results() == seen[-5:] and games.pop_results() == []


def test_the_default_cap_is_the_arenas():
    from ggpzoo.tools.arena import GDL_MAX_STEPS

    assert DEFAULT_MAX_STEPS == GDL_MAX_STEPS
    assert VectorGames("gdl:tictactoe", 1).max_steps == DEFAULT_MAX_STEPS
    assert VectorGames("gdl:tictactoe", 1, max_steps=None).max_steps == 0  # no limit


def test_gdl_vector_games_is_deprecated():
    from ggpzoo.gdl.batch import GDLVectorGames

    with pytest.warns(DeprecationWarning, match="VectorGames"):
        GDLVectorGames(gdl.load(gdl.game_path("tictactoe")), 2)
