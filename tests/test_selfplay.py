"""The batched self-play env, for every game of two roles (hand-written kernels and GDL sheets):
the same learner view as SingleAgentEnv (a sheet's: as the exact reasoner's), opponents in
batches, seats, pools, openings, the step cap, and the SB3 / Gymnasium vector interfaces."""

from __future__ import annotations

import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.agents.base import Agent
from ggpzoo.engine.dispatch import MAX_LEGAL
from ggpzoo.engine.selfplay import SelfPlayGames
from ggpzoo.envs import ENVS, spec
from ggpzoo.envs.gamespec import STEP
from ggpzoo.gdl.syntax import to_text
from ggpzoo.training.selfplay import AgentOpponents, SelfPlayVecEnv, SelfPlayVectorEnv, evaluate, masked_choice
from ggpzoo.training.single_agent import SingleAgentEnv

SHEETS = ["gdl:tictactoe", "gdl:connect_four"]
# a kernel game and sheets: the tests that hold for every game of two roles
GAMES = ["skirmish_endgame_v0", *SHEETS]


def random_actions(rng, masks):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks])


class HashAgent(Agent):
    """A deterministic opponent: a legal action picked by a hash of the state, so that two
    implementations given the same states play the same moves."""

    takes = "state"

    def __init__(self, name: str):
        self.kernel = spec(name).kernel
        self.name = "hash"

    def __call__(self, state) -> int:
        board, aux = state
        legal = np.empty(MAX_LEGAL, np.int32)
        n = self.kernel.legal_actions(board, aux, legal)
        h = int((board.astype(np.int64) * np.arange(1, len(board) + 1)).sum()) * 7 + int(aux[STEP]) * 13
        return int(legal[h % n])


# Each game with the options its training recipe uses, and others.
VIEWS = [
    ("amazons_v0", dict(reward="winloss", shaping=1.0, reach_planes=True)),
    ("amazons_v0", dict(reward="goal", decompose=False)),
    ("amazons_split_v0", dict(reward="winloss", shaping=0.5, decompose=True, reach_planes=True)),
    ("amazons_split_v0", dict(reward="delta")),
    ("mad_bishops_v0", dict(reward="winloss", shaping=1.0, decompose=True, reach_planes=True)),
    ("mad_bishops_v0", dict(reward="delta_zero_sum")),
    ("skirmish_v0", dict(reward="delta_zero_sum")),
    ("skirmish_v0", dict(reward="delta", decompose=True, reach_planes=True)),
    ("skirmish_endgame_v0", dict(reward="delta_zero_sum", decompose=True)),
    ("skirmish_endgame_v0", dict(reward="winloss")),
]


@pytest.mark.parametrize("name,view", VIEWS, ids=[f"{n}-{'-'.join(map(str, v.values()))}" for n, v in VIEWS])
def test_same_as_single_agent_env_step_by_step(name, view):
    """Observations, masks, rewards and episode ends equal SingleAgentEnv's (the AEC
    wrappers) at every step, over several episodes on both seats."""
    n = 4
    games = SelfPlayGames(name, n, opponents=[AgentOpponents(HashAgent(name), name)], seed=3, **view)
    aec = [SingleAgentEnv(name, opponent=HashAgent(name), **view) for _ in range(n)]
    obs, masks = games.reset()

    def start(i, seed=None):
        aec[i].learner_side = "white" if games.learner[i] == 0 else "black"
        o, _ = aec[i].reset(seed=seed)
        return o

    for i in range(n):
        o = start(i, seed=i)
        assert np.array_equal(obs[i], o), (i, "start")
        assert np.array_equal(masks[i].astype(bool), aec[i].action_masks())
    rng = np.random.default_rng(0)
    episodes = 0
    steps = 150 if spec(name).num_cells == 100 else 120
    for t in range(steps):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, ended, info = games.step(actions)
        masks = games.action_masks()
        for i in range(n):
            o, r, term, trunc, _ = aec[i].step(int(actions[i]))
            assert not trunc
            assert bool(ended[i]) == term, (t, i)
            assert rewards[i] == pytest.approx(r, abs=1e-5), (t, i, rewards[i], r)
            if term:
                episodes += 1
                assert np.array_equal(info["final_observation"][i], o)
                goals = aec[i].aec_env.unwrapped.outcome().goals
                assert tuple(info["goals"][i]) == (goals["white"], goals["black"])
                o = start(i)
            assert np.array_equal(obs[i], o), (t, i)
            assert np.array_equal(masks[i].astype(bool), aec[i].action_masks()), (t, i)
    assert episodes >= 1


@pytest.mark.parametrize("name", [*ENVS, *SHEETS])
def test_seats_alternate_and_balance(name):
    games = SelfPlayGames(name, 6, opponents=["random"], seed=1)
    games.reset()
    assert list(games.learner) == [0, 1, 0, 1, 0, 1]
    assert (games.auxs[:, 0] == games.learner).all()  # the learner is to move everywhere
    rng = np.random.default_rng(1)
    before = games.learner.copy()
    for _ in range(2000):
        m = games.action_masks()
        _, _, ended, info = games.step(np.array([rng.choice(np.flatnonzero(r)) for r in m]))
        if ended.any():
            assert (info["learner"][ended] == before[ended]).all()
            assert (games.learner[ended] == 1 - before[ended]).all()
            before = games.learner.copy()
            if (games.episodes >= 3).any():
                break
        assert (games.auxs[:, 0] == games.learner).all()
    assert (games.episodes >= 2).any()


@pytest.mark.parametrize("name,reward,margin", [("skirmish_v0", "delta_zero_sum", 5), ("gdl:tictactoe", "winloss", 20)])
def test_random_and_greedy_opponents_play_inside_the_step(name, reward, margin):
    """Against greedy, a learner that plays randomly loses far more (Skirmish captures,
    tic-tac-toe games: greedy takes an immediate win) than against random: the opponents
    really play their policies, on a kernel and on a sheet."""
    totals = {}
    for opp in ("random", "greedy"):
        games = SelfPlayGames(name, 32, reward=reward, opponents=[opp], seed=5)
        games.reset()
        rng = np.random.default_rng(2)
        total = 0.0
        for _ in range(200):
            total += games.step(random_actions(rng, games.action_masks()))[1].sum()
        totals[opp] = total
    assert totals["greedy"] < totals["random"] - margin, totals


def test_pool_draws_each_opponent_and_snapshots_can_be_added():
    games = SelfPlayGames("mad_bishops_v0", 64, opponents=["random", "greedy"], weights=[1, 3], seed=0)
    games.reset()
    share = (games.opponent == 1).mean()
    assert 0.55 < share < 0.95
    first = AgentOpponents(HashAgent("mad_bishops_v0"), "mad_bishops_v0")
    games.add_opponent(first, 1.0, max_size=3, keep=2)
    second = AgentOpponents(HashAgent("mad_bishops_v0"), "mad_bishops_v0")
    games.add_opponent(second, 1.0, max_size=3, keep=2)
    assert games.opponents[:2] == ["random", "greedy"] and games.opponents[2] is second
    with pytest.raises(ValueError, match="weights"):
        games.set_opponents(["random"], weights=[-1])
    with pytest.raises(TypeError, match="act_batch"):
        games.set_opponents([object()])
    with pytest.raises(ValueError, match="unknown opponent"):
        games.set_opponents(["nobody"])


def test_opening_plies_give_diverse_starts():
    plain = SelfPlayGames("amazons_split_v0", 16, opening_plies=0, seed=0)
    plain.reset()
    varied = SelfPlayGames("amazons_split_v0", 16, opening_plies=6, seed=0)
    varied.reset()
    assert len({b.tobytes() for b in plain.boards[plain.learner == 0]}) == 1
    assert len({b.tobytes() for b in varied.boards}) > 8
    assert (varied.auxs[:, 0] == varied.learner).all()


@pytest.mark.parametrize("name", ["skirmish_v0", *SHEETS])
def test_illegal_action_raises_and_changes_nothing(name):
    games = SelfPlayGames(name, 3, seed=0)
    games.reset()
    boards = games.boards.copy()
    m = games.action_masks()
    bad = np.array([np.flatnonzero(m[0])[0], np.flatnonzero(m[1] == 0)[0], np.flatnonzero(m[2])[0]])
    with pytest.raises(ValueError, match="action .* of game 1 is illegal"):
        games.step(bad)
    with pytest.raises(ValueError, match="shape"):
        games.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="shape"):
        games.step(np.zeros(3) + 0.5)
    with pytest.raises(ValueError, match="illegal"):
        games.step(np.full(3, 10**6))
    assert np.array_equal(games.boards, boards)
    with pytest.raises(RuntimeError, match="reset"):
        SelfPlayGames(name, 2).step(np.zeros(2, np.int64))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(reward="points"), "unknown reward"),
        (dict(shaping=1.0), "no potential"),
        (dict(opening_plies=-1), "opening_plies"),
        (dict(shaping=float("nan")), "shaping"),
        (dict(max_steps=0), "max_steps"),
        (dict(seed=-5), "seed must be an integer"),
    ],
)
def test_bad_options_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SelfPlayGames("skirmish_v0", 2, **kwargs)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(shaping=1.0), "gdl:tictactoe has no potential"),
        (dict(decompose=True), "gdl:tictactoe has no turn decomposition"),
        (dict(reach_planes=True), "gdl:tictactoe has no reach planes"),
    ],
)
def test_a_sheet_refuses_the_kernels_training_aids(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SelfPlayGames("gdl:tictactoe", 2, **kwargs)


def test_three_roles_are_refused():
    from test_gdl_env import RPS

    from ggpzoo.gdl.spec import gdl_spec

    three = gdl_spec(gdl.load(RPS.replace("(role right)", "(role right) (role third)"), name="three"))
    with pytest.raises(ValueError, match="self-play needs a game of two roles; gdl:three has left, right, third"):
        SelfPlayGames(three, 2)


def test_masked_choice_samples_only_legal_actions():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(500, 6))
    masks = np.zeros((500, 6), np.int8)
    masks[:, [1, 4]] = 1
    picks = masked_choice(logits, masks, rng, deterministic=False)
    assert set(picks.tolist()) == {1, 4}
    best = masked_choice(logits, masks, rng, deterministic=True)
    assert (best == np.where(logits[:, 1] >= logits[:, 4], 1, 4)).all()


@pytest.mark.parametrize("name,kwargs", [("mad_bishops_v0", dict(decompose=True)), ("gdl:connect_four", {})])
def test_gymnasium_vector_env_api(name, kwargs):
    env = SelfPlayVectorEnv(name, num_envs=8, seed=0, **kwargs)
    obs, infos = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    assert env.metadata["autoreset_mode"].name == "SAME_STEP"
    shape = env.games.observation_shape
    assert shape == ((10, 10, 4) if name == "mad_bishops_v0" else spec(name).obs_shape)
    rng = np.random.default_rng(0)
    ended_seen = False
    for _ in range(400):
        obs, rewards, term, trunc, infos = env.step(random_actions(rng, obs["action_mask"]))
        assert obs["observation"].shape == (8, *shape) and rewards.shape == (8,) and not trunc.any()
        assert env.observation_space.contains(obs)
        if term.any():
            ended_seen = True
            i = int(np.flatnonzero(term)[0])
            assert infos["_final_obs"][i] and infos["final_obs"][i]["observation"].shape == shape
            assert infos["final_info"][i]["outcome"] in (-1, 0, 1)
    assert ended_seen
    with pytest.raises(ValueError, match="seed must be an integer"):
        env.reset(seed=-5)


@pytest.mark.parametrize("name", GAMES)
def test_sb3_maskable_ppo_trains_on_the_vec_env(name):
    """MaskablePPO learns on the env, with snapshots of itself in the pool (they play the
    learner's view from their own seat, blind to the learner's choice where both choose)."""
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from ggpzoo.training.selfplay import PolicySnapshot

    env = SelfPlayVecEnv(name, num_envs=16, reward="delta_zero_sum", opponents=["random"], seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu")
    env.reset()
    masks = get_action_masks(env)
    assert masks.shape == (16, spec(name).num_actions) and (masks.sum(axis=1) > 0).all()
    snap = env.add_snapshot(model, weight=2.0, max_snapshots=1)
    assert isinstance(snap, PolicySnapshot) and env.games.opponents[-1] is snap
    env.add_snapshot(model, max_snapshots=1)
    assert len(env.games.opponents) == 2  # random and the newest snapshot
    model.learn(32 * 16 * 2)
    assert model.num_timesteps >= 1024
    result = evaluate(model, name, "random", games=20, seed=1)
    assert result["games"] == 20 and result["wins"] + result["draws"] + result["losses"] == 20
    lo, hi = result["ci95"]
    assert 0 <= lo <= result["win_rate"] <= hi <= 1


@pytest.mark.parametrize("name", GAMES)
def test_search_agents_join_the_pool_by_spec(name):
    from ggpzoo.training.selfplay import make_games

    games = make_games(name, 4, opponents=["mcts:8", "random"], weights=[1, 0], seed=2)
    assert isinstance(games.opponents[0], AgentOpponents) and games.opponents[0].name == "mcts:8"
    obs, masks = games.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs, _, _, _ = games.step(random_actions(rng, masks))
        masks = games.action_masks()
        assert (games.auxs[:, 0] == games.learner).all()
    with pytest.raises(TypeError, match="searches game states"):
        AgentOpponents("random", name)


# ----------------------------------------------------------------------------- GDL sheets
def fluents(name: str, board: np.ndarray) -> frozenset:
    """The fluents true in a sheet's board (the protocol's state vector over the network's fluents)."""
    net = spec(name).network
    return frozenset(net.fluents[j] for j in np.flatnonzero(board))


def exact_env(g: gdl.Game, state):
    """The exact path's env at the state of ``state`` (fluents)."""
    env = gdl.raw_env(g, backend="exact")
    env.reset()
    env.set_state([to_text(f) for f in state])
    return env


@pytest.mark.parametrize("name", SHEETS)
def test_a_sheet_has_the_aec_paths_spaces_and_its_models_load(name):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import check_for_correct_spaces

    old = SingleAgentEnv(name, opponent="random")
    env = SelfPlayVecEnv(name, 4, seed=0)
    assert env.observation_space == old.observation_space and env.action_space.n == old.action_space.n
    model = MaskablePPO("MlpPolicy", old, n_steps=16, batch_size=16, device="cpu")
    check_for_correct_spaces(env, model.observation_space, model.action_space)  # a saved model loads on either


@pytest.mark.parametrize(
    "name, reward, opponent",
    [
        ("gdl:tictactoe", "winloss", "random"),
        ("gdl:connect_four", "winloss", "greedy"),
        ("gdl:tictactoe", "goal", "greedy"),
    ],
)
def test_a_sheets_observations_masks_and_rewards_agree_with_the_exact_reasoner(name, reward, opponent):
    """At every step, in every game: the learner is to move, its observation and mask are the
    exact env's at the same state; at the end, the reward is the reward kind's of the exact
    reasoner's goals of the terminal state (read back from the terminal observation), on both seats."""
    g = spec(name).game
    n = 6
    env = SelfPlayVecEnv(name, n, seed=1, reward=reward, opponents=[opponent])
    obs = env.reset()
    games = env.games
    assert games.learner.tolist() == [0, 1] * (n // 2)
    rng = np.random.default_rng(1)
    nf = len(g.fluents)
    seen, ends, totals = set(), 0, np.zeros(n)
    for step in range(120):
        masks = env.action_masks()
        for i in range(n):
            me = g.roles[games.learner[i]]
            e = exact_env(g, fluents(name, games.boards[i]))
            assert e.agent_selection == me
            assert np.array_equal(obs[i], e.observe(me)["observation"])
            assert np.array_equal(masks[i], e.observe(me)["action_mask"]), (step, i)
        before = games.learner.copy()
        obs, rewards, dones, infos = env.step(random_actions(rng, masks))
        totals += rewards
        for i in np.flatnonzero(dones):
            info = infos[i]
            term = info["terminal_observation"]
            assert info["learner"] == before[i] and games.learner[i] == 1 - before[i]
            assert term[nf:].tolist() == [int(r == before[i]) for r in range(2)]
            goals = g.goals(frozenset(g.fluents[j] for j in np.flatnonzero(term[:nf])))
            me, other = g.roles[before[i]], g.roles[1 - before[i]]
            assert info["goals"] == tuple(goals[r] for r in g.roles)
            assert info["outcome"] == np.sign(goals[me] - goals[other])
            expected = goals[me] / 100 if reward == "goal" else info["outcome"]
            assert rewards[i] == pytest.approx(expected) and totals[i] == pytest.approx(expected)
            assert not info["TimeLimit.truncated"] and info["opponent"] == opponent
            seen.add((int(before[i]), info["outcome"]))
            totals[i] = 0.0
            ends += 1
        assert not rewards[~dones].any()
    assert ends >= 20
    assert {s for s, _ in seen} == {0, 1} and {o for _, o in seen} >= {-1, 1}  # both seats, wins and losses


def test_delta_rewards_telescope_over_an_episode_of_a_sheet():
    games = SelfPlayGames("gdl:connect_four", 4, seed=2, reward="delta_zero_sum", opponents=["random"])
    games.reset()
    rng = np.random.default_rng(2)
    totals, done = np.zeros(4), 0
    rows = np.arange(4)
    start = np.stack([games.goals[rows, games.learner], games.goals[rows, 1 - games.learner]], axis=1)
    while done < 8:
        _, rewards, ended, info = games.step(random_actions(rng, games.action_masks()))
        totals += rewards
        for i in np.flatnonzero(ended):
            me, goals = info["learner"][i], info["goals"][i]
            assert totals[i] == pytest.approx(((goals[me] - start[i, 0]) - (goals[1 - me] - start[i, 1])) / 100)
            totals[i], done = 0.0, done + 1
            start[i] = games.goals[i, games.learner[i]], games.goals[i, 1 - games.learner[i]]


def test_the_step_cap_truncates_a_sheets_games():
    """Games still running after max_steps joint moves end truncated: winloss pays nothing, the
    SB3 info and Gymnasium's flag say so, and the next episode starts."""
    env = SelfPlayVecEnv("gdl:connect_four", 4, seed=0, max_steps=5)
    env.reset()
    rng = np.random.default_rng(0)
    cut = 0
    for _ in range(12):
        _, rewards, dones, infos = env.step(random_actions(rng, env.action_masks()))
        for i in np.flatnonzero(dones):
            assert infos[i]["TimeLimit.truncated"] and rewards[i] == 0.0
            cut += 1
        assert (env.games.auxs[:, 2] < 5).all()
    assert cut >= 4
    venv = SelfPlayVectorEnv("gdl:connect_four", 4, seed=0, max_steps=5)
    obs, _ = venv.reset()
    truncated = np.zeros(4, bool)
    for _ in range(5):
        obs, _, term, trunc, _ = venv.step(random_actions(rng, obs["action_mask"]))
        assert not term.any()
        truncated |= trunc
    assert truncated.all()


def test_training_caps_every_game_at_gdl_max_steps():
    from ggpzoo.tools.arena import GDL_MAX_STEPS
    from ggpzoo.training.selfplay import make_games
    from ggpzoo.training.train import make_env, recipe

    assert make_games("gdl:tictactoe", 2).max_steps == GDL_MAX_STEPS
    assert make_env("gdl:tictactoe", recipe("gdl:tictactoe"), 0).games.max_steps == GDL_MAX_STEPS


@pytest.mark.parametrize("opponent", ["random", "greedy", "mcts:8"])
def test_simultaneous_moves_learner_and_opponent_choose_blind(opponent):
    """Rock-paper-scissors: both roles choose at once; the learner from its own legal moves,
    the opponent (built in, or an agent asked for its role's move) from its own, and the
    joint move is played; each game ends with the outcome paid."""
    from test_gdl_env import RPS

    from ggpzoo.gdl.spec import gdl_spec
    from ggpzoo.training.selfplay import make_games

    games = make_games(gdl_spec(gdl.load(RPS, name="rps")), 4, opponents=[opponent], seed=0)
    games.reset()
    outcomes = []
    for _ in range(20):
        masks = games.action_masks()
        assert (masks.sum(axis=1) == 3).all()
        _, rewards, ended, info = games.step(masks.argmax(axis=1))
        assert ended.all()
        assert (rewards == info["outcome"]).all()
        outcomes += info["outcome"].tolist()
    assert set(outcomes) == {-1, 0, 1}


def test_a_sheets_games_do_not_depend_on_the_thread_count():
    import numba

    runs = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        try:
            games = SelfPlayGames("gdl:connect_four", 16, opponents=["greedy", "random"], opening_plies=3, seed=4)
            obs, masks = games.reset()
            rng = np.random.default_rng(0)
            rewards = []
            for _ in range(40):
                obs, r, _, _ = games.step(random_actions(rng, masks))
                masks = games.action_masks()
                rewards.append(r)
            runs.append((games.boards.copy(), np.array(rewards)))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])


def test_the_gdl_twins_old_names_still_work_with_a_warning():
    from ggpzoo.training import train

    with pytest.warns(DeprecationWarning, match="SelfPlayVecEnv"):
        from ggpzoo.training.gdl_selfplay import GDLSelfPlayVecEnv

        env = GDLSelfPlayVecEnv(spec("gdl:tictactoe").game, 2, seed=0)
    assert isinstance(env, SelfPlayVecEnv) and env.games.name == "gdl:tictactoe"
    with pytest.warns(DeprecationWarning, match="recipe"):
        assert train.GDL_RECIPE["n_envs"] == 16
    with pytest.warns(DeprecationWarning):
        env = train.gdl_vec_env("gdl:tictactoe", 2, ["random"], [1.0])
    assert isinstance(env, SelfPlayVecEnv)
