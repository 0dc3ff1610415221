"""The batched self-play env: the same learner view as SingleAgentEnv, opponents in batches,
seats, pools, openings, and the SB3 / Gymnasium vector interfaces."""

from __future__ import annotations

import numpy as np
import pytest

from ggpzoo.agents.base import Agent
from ggpzoo.engine.dispatch import MAX_LEGAL
from ggpzoo.engine.selfplay import SelfPlayGames
from ggpzoo.envs import ENVS, spec
from ggpzoo.envs.gamespec import STEP
from ggpzoo.training.selfplay import AgentOpponents, SelfPlayVectorEnv, evaluate, masked_choice
from ggpzoo.training.single_agent import SingleAgentEnv


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


@pytest.mark.parametrize("name", list(ENVS))
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


def test_random_and_greedy_opponents_play_inside_the_step():
    """Against greedy, a learner that plays randomly loses far more Skirmish captures than
    against random: the opponents really play their policies."""
    totals = {}
    for opp in ("random", "greedy"):
        games = SelfPlayGames("skirmish_v0", 32, reward="delta_zero_sum", opponents=[opp], seed=5)
        games.reset()
        rng = np.random.default_rng(2)
        total = 0.0
        for _ in range(200):
            m = games.action_masks()
            total += games.step(np.array([rng.choice(np.flatnonzero(r)) for r in m]))[1].sum()
        totals[opp] = total
    assert totals["greedy"] < totals["random"] - 5


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


def test_illegal_action_raises_and_changes_nothing():
    games = SelfPlayGames("skirmish_v0", 3, seed=0)
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
    assert np.array_equal(games.boards, boards)
    with pytest.raises(RuntimeError, match="reset"):
        SelfPlayGames("skirmish_v0", 2).step(np.zeros(2, np.int64))


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(reward="points"), "unknown reward"),
        (dict(shaping=1.0), "no potential"),
        (dict(opening_plies=-1), "opening_plies"),
        (dict(shaping=float("nan")), "shaping"),
    ],
)
def test_bad_options_are_refused(kwargs, match):
    with pytest.raises(ValueError, match=match):
        SelfPlayGames("skirmish_v0", 2, **kwargs)


def test_masked_choice_samples_only_legal_actions():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(500, 6))
    masks = np.zeros((500, 6), np.int8)
    masks[:, [1, 4]] = 1
    picks = masked_choice(logits, masks, rng, deterministic=False)
    assert set(picks.tolist()) == {1, 4}
    best = masked_choice(logits, masks, rng, deterministic=True)
    assert (best == np.where(logits[:, 1] >= logits[:, 4], 1, 4)).all()


def test_gymnasium_vector_env_api():
    env = SelfPlayVectorEnv("mad_bishops_v0", num_envs=8, decompose=True, seed=0)
    obs, infos = env.reset(seed=4)
    assert env.observation_space.contains(obs)
    assert env.metadata["autoreset_mode"].name == "SAME_STEP"
    rng = np.random.default_rng(0)
    ended_seen = False
    for _ in range(400):
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in obs["action_mask"]])
        obs, rewards, term, trunc, infos = env.step(actions)
        assert obs["observation"].shape == (8, 10, 10, 4) and rewards.shape == (8,) and not trunc.any()
        if term.any():
            ended_seen = True
            i = int(np.flatnonzero(term)[0])
            assert infos["_final_obs"][i] and infos["final_obs"][i]["observation"].shape == (10, 10, 4)
            assert infos["final_info"][i]["outcome"] in (-1, 0, 1)
    assert ended_seen


def test_sb3_maskable_ppo_trains_on_the_vec_env(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    from ggpzoo.training.selfplay import PolicySnapshot, SelfPlayVecEnv

    env = SelfPlayVecEnv("skirmish_endgame_v0", num_envs=16, reward="delta_zero_sum", opponents=["random"], seed=0)
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=128, n_epochs=1, seed=0, device="cpu")
    env.reset()
    masks = get_action_masks(env)
    assert masks.shape == (16, 4096) and (masks.sum(axis=1) > 0).all()
    snap = env.add_snapshot(model, weight=2.0, max_snapshots=1)
    assert isinstance(snap, PolicySnapshot) and env.games.opponents[-1] is snap
    env.add_snapshot(model, max_snapshots=1)
    assert len(env.games.opponents) == 2  # random and the newest snapshot
    model.learn(32 * 16 * 2)
    assert model.num_timesteps >= 1024
    result = evaluate(model, "skirmish_endgame_v0", "random", games=20, seed=1)
    assert result["games"] == 20 and result["wins"] + result["draws"] + result["losses"] == 20
    lo, hi = result["ci95"]
    assert 0 <= lo <= result["win_rate"] <= hi <= 1


def test_search_agents_join_the_pool_by_spec():
    from ggpzoo.training.selfplay import make_games

    games = make_games("skirmish_endgame_v0", 4, opponents=["mcts:8", "random"], weights=[1, 0], seed=2)
    assert isinstance(games.opponents[0], AgentOpponents) and games.opponents[0].name == "mcts:8"
    obs, masks = games.reset()
    rng = np.random.default_rng(0)
    for _ in range(30):
        obs, _, _, _ = games.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        masks = games.action_masks()
        assert (games.auxs[:, 0] == games.learner).all()
    with pytest.raises(TypeError, match="searches game states"):
        AgentOpponents("random", "skirmish_endgame_v0")
