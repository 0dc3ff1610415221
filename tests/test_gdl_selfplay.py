"""GDLSelfPlayVecEnv: batched GDL games against random play as an SB3 VecEnv, checked against the
exact reasoner and the AEC path's SingleAgentEnv (spaces, observations, masks, rewards)."""

import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.gdl.syntax import to_text
from ggpzoo.training.gdl_selfplay import GDLSelfPlayVecEnv
from ggpzoo.training.single_agent import SingleAgentEnv

pytest.importorskip("stable_baselines3")

_GAMES: dict = {}


def game(name: str) -> gdl.Game:
    if name not in _GAMES:
        _GAMES[name] = gdl.load(gdl.game_path(name))
    return _GAMES[name]


def exact_env(g: gdl.Game, fluents):
    """The exact path's env at the state of ``fluents``."""
    env = gdl.raw_env(g, backend="exact")
    env.reset()
    env.set_state([to_text(f) for f in fluents])
    return env


def test_same_spaces_as_the_aec_path_and_its_models_load():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.utils import check_for_correct_spaces

    g = game("tictactoe")
    old = SingleAgentEnv(g, opponent="random")
    env = GDLSelfPlayVecEnv(g, 4, seed=0)
    assert env.observation_space == old.observation_space and env.action_space.n == old.action_space.n
    model = MaskablePPO("MlpPolicy", old, n_steps=16, batch_size=16, device="cpu")
    check_for_correct_spaces(env, model.observation_space, model.action_space)  # a saved model loads on either


@pytest.mark.parametrize("sheet, reward", [("tictactoe", None), ("connect_four", "winloss"), ("tictactoe", "goal")])
def test_observations_masks_and_rewards_agree_with_the_exact_reasoner(sheet, reward):
    """At every step, in every game: the learner is to move, its observation and mask are the
    exact env's at the same state; at the end, the reward is the reward kind's of the exact
    reasoner's goals of the terminal state (read back from the terminal observation), on both seats."""
    g = game(sheet)
    n = 6
    env = GDLSelfPlayVecEnv(g, n, seed=1, reward=reward)
    obs = env.reset()
    assert env.learner.tolist() == [0, 1] * (n // 2)
    rng = np.random.default_rng(1)
    nf = len(g.fluents)
    seen, ends, totals = set(), 0, np.zeros(n)
    for step in range(120):
        masks = env.action_masks()
        for i in range(n):
            me = g.roles[env.learner[i]]
            e = exact_env(g, env.games.fluents(i))
            assert e.agent_selection == me
            assert np.array_equal(obs[i], e.observe(me)["observation"])
            assert np.array_equal(masks[i], e.observe(me)["action_mask"]), (step, i)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        before = env.learner.copy()
        obs, rewards, dones, infos = env.step(actions)
        totals += rewards
        for i in np.flatnonzero(dones):
            info = infos[i]
            term = info["terminal_observation"]
            assert info["learner"] == before[i] and env.learner[i] == 1 - before[i]
            assert term[nf:].tolist() == [int(r == before[i]) for r in range(2)]
            fluents = frozenset(g.fluents[j] for j in np.flatnonzero(term[:nf]))
            goals = g.goals(fluents)
            me, other = g.roles[before[i]], g.roles[1 - before[i]]
            assert info["goals"] == tuple(goals[r] for r in g.roles)
            assert info["outcome"] == np.sign(goals[me] - goals[other])
            expected = goals[me] / 100 if reward == "goal" else info["outcome"]
            assert rewards[i] == pytest.approx(expected) and totals[i] == pytest.approx(expected)
            assert not info["TimeLimit.truncated"] and info["opponent"] == "random"
            seen.add((int(before[i]), info["outcome"]))
            totals[i] = 0.0
            ends += 1
        assert not rewards[~dones].any()
    assert ends >= 20
    assert {s for s, _ in seen} == {0, 1} and {o for _, o in seen} >= {-1, 1}  # both seats, wins and losses


def test_delta_rewards_telescope_over_an_episode():
    g = game("connect_four")
    env = GDLSelfPlayVecEnv(g, 4, seed=2, reward="delta_zero_sum")
    env.reset()
    rng = np.random.default_rng(2)
    totals, done = np.zeros(4), 0
    start = env._goals(np.arange(4))
    while done < 8:
        obs, rewards, dones, infos = env.step(np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()]))
        totals += rewards
        for i in np.flatnonzero(dones):
            me = infos[i]["learner"]
            goals = infos[i]["goals"]
            want = ((goals[me] - start[i, 0]) - (goals[1 - me] - start[i, 1])) / 100
            assert totals[i] == pytest.approx(want)
            totals[i], done = 0.0, done + 1
            start[i] = env._base[i]


def test_bad_actions_are_refused_and_change_nothing():
    env = GDLSelfPlayVecEnv(game("tictactoe"), 3, seed=0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(np.zeros(3, np.int64))
    env.reset()
    states = env.games.states.copy()
    masks = env.action_masks()
    bad = np.array([np.flatnonzero(masks[0])[0], np.flatnonzero(masks[1] == 0)[0], np.flatnonzero(masks[2])[0]])
    with pytest.raises(ValueError, match="action .* of game 1 is illegal for the learner"):
        env.step(bad)
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(3) + 0.5)
    with pytest.raises(ValueError, match="illegal"):
        env.step(np.array([99, 99, 99]))
    assert np.array_equal(env.games.states, states)
    with pytest.raises(ValueError, match="random"):
        GDLSelfPlayVecEnv(game("tictactoe"), 2, opponents=["mcts:10"])
    with pytest.raises(ValueError, match="unknown reward"):
        GDLSelfPlayVecEnv(game("tictactoe"), 2, reward="points")


def test_maskable_ppo_trains_with_snapshots_and_train_uses_it(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import DummyVecEnv

    from ggpzoo.training.selfplay import PolicySnapshot
    from ggpzoo.training.train import gdl_vec_env

    g = game("tictactoe")
    env = gdl_vec_env(g, 8, ["random"], [1.0], seed=0)
    assert isinstance(env, GDLSelfPlayVecEnv)
    assert isinstance(gdl_vec_env(g, 2, ["random", "mcts:10"], [1.0, 1.0]), DummyVecEnv)  # the AEC path
    model = MaskablePPO("MlpPolicy", env, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu")
    env.reset()
    masks = get_action_masks(env)
    assert masks.shape == (8, 10) and (masks.sum(axis=1) > 0).all()
    snap = env.add_snapshot(model, weight=2.0, max_snapshots=1)
    assert isinstance(snap, PolicySnapshot) and env.opponents[-1] is snap
    env.add_snapshot(model, max_snapshots=1)
    assert len(env.opponents) == 2
    model.learn(16 * 8 * 3)
    assert model.num_timesteps >= 384


def test_train_command_uses_the_batched_env(tmp_path, capsys):
    pytest.importorskip("sb3_contrib")
    import json

    from ggpzoo.tools.cli import main

    args = ["train", "--gdl", "tictactoe", "--out", str(tmp_path), "--no-progress", "--eval-games", "10"]
    args += ["--final-eval-games", "10", "--set", "n_envs=8", "--set", "n_steps=16", "--set", "batch_size=64"]
    args += ["--set", "snapshot_every=128", "--timesteps", "256"]
    assert main(args) == 0
    run = tmp_path / "gdl_tictactoe"
    assert "gdl_tictactoe: 256 steps" in capsys.readouterr().out
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 256
    assert sorted(p.name for p in run.glob("snapshot-*.zip")) == ["snapshot-128.zip", "snapshot-256.zip"]


def test_simultaneous_sheet_against_random():
    from tests.test_gdl_env import RPS

    env = GDLSelfPlayVecEnv(gdl.load(RPS), 4, seed=0)
    env.reset()
    ends = 0
    for _ in range(20):
        masks = env.action_masks()
        assert (masks.sum(axis=1) > 1).all()
        obs, rewards, dones, infos = env.step(masks.argmax(axis=1))
        for i in np.flatnonzero(dones):
            assert rewards[i] == infos[i]["outcome"]
            ends += 1
    assert ends > 0
