"""The Gymnasium single-agent bridge: rewards, episode ends, sides, opponents, SB3."""

import functools
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from ggpzoo.envs import ENVS, load
from ggpzoo.envs.amazons import kernel as AK
from ggpzoo.training.single_agent import (
    AgentOpponent,
    GreedyOpponent,
    OpponentPool,
    PolicyOpponent,
    RandomOpponent,
    SingleAgentEnv,
    make_aec_env,
    make_opponent,
)
from ggpzoo.wrappers import POTENTIALS, AmazonsTurnDecomposition, GoalDeltaReward

NAMES = list(ENVS)

# White to move; (1,1)->(1,2) with the arrow on (2,1) shuts the black queen in: white wins.
WIN_IN_ONE = "\n".join(["xxxxxxxxxx"] * 8 + [".xxxxxxxxx", "W.Bxxxxxxx"])
# White to move. After (1,1)->(2,1)/(1,1), black's (1,10)->(1,3)/(1,2) shuts white in: black wins.
LOSE_IN_TWO = "\n".join(["B.xxxxxxxx"] + [".xxxxxxxxx"] * 8 + ["W.xxxxxxxx"])


def _scripted(moves):
    """An opponent that plays the given amazons/skirmish cell tuples, in order."""
    moves = list(moves)

    def play(env, agent):
        return env.unwrapped.encode_action(*moves.pop(0))

    return play


def _play_random(env, rng, episodes):
    """Random masked episodes; yield (learner, steps, rewards, last info)."""
    for _ in range(episodes):
        obs, info = env.reset()
        rewards, done = [], False
        while not done:
            assert env.observation_space.contains(obs)
            action = rng.choice(np.flatnonzero(env.action_masks()))
            obs, reward, terminated, truncated, info = env.step(action)
            rewards.append(reward)
            done = terminated or truncated
        yield info["learner"], rewards, info


# ----------------------------------------------------------------------------- checkers
@pytest.mark.parametrize("name", NAMES)
def test_gymnasium_env_checker(name):
    check_env(SingleAgentEnv(name, reward="delta_zero_sum"), skip_render_check=True)


@pytest.mark.parametrize("name", NAMES)
def test_gymnasium_env_checker_decomposed_and_shaped(name):
    shaping = 0.5 if name in POTENTIALS else 0.0
    env = SingleAgentEnv(name, reward="winloss", decompose=True, shaping=shaping)
    assert env.action_space.n == (100 if name.startswith(("amazons", "mad")) else 64)
    check_env(env, skip_render_check=True)
    rng = np.random.default_rng(5)
    for learner, rewards, info in _play_random(env, rng, 4):
        assert info["outcome"] in (-1, 0, 1) and info["learner"] == learner
        if shaping:  # shaping moves credit earlier; the return is still the outcome
            assert sum(rewards) == pytest.approx(info["outcome"], abs=1e-9)
            assert sum(r != 0 for r in rewards) > 1


def test_make_aec_env_wrapper_order():
    env = make_aec_env("mad_bishops_v0", reward="winloss", decompose=True, shaping=0.5)
    assert [type(e).__name__ for e in (env, env.env, env.env.env)] == [
        "MoveDecomposition",
        "PotentialShaping",
        "WinLossReward",
    ]
    assert type(make_aec_env("amazons_v0", shaping=1.0).env).__name__ == "PotentialShaping"
    assert not hasattr(make_aec_env("mad_bishops_v0"), "stage")  # decomposes amazons_v0 only by default


def test_random_opponent_plays_whole_moves_with_a_forced_source():
    """In amazons_split_v0's fire step the wrapper picks the source; the opponent's plan still fits."""
    env = make_aec_env("amazons_split_v0", decompose=True)
    opp = RandomOpponent()
    opp.reset(np.random.default_rng(1))
    env.reset(seed=0)
    cells = 0
    while env.turn_number < 20:  # 10 moves (source, destination) and 10 fires (the arrow only)
        cell = opp(env, env.agent_selection)
        assert env.last()[0]["action_mask"][cell] == 1
        env.step(cell)
        cells += 1
    assert cells == 30 and env.unwrapped.get_state()[1][AK.STEP] == 20


def test_gymnasium_env_checker_greedy_and_render():
    env = SingleAgentEnv("amazons_v0", opponent="greedy", render_mode="ansi")
    check_env(env)
    env.reset(seed=0)
    assert env.render().splitlines()[-1].split() == [str(x) for x in range(1, 11)]


# ----------------------------------------------------------------------------- episode ends
def test_learner_wins_on_its_own_move():
    env = SingleAgentEnv("amazons_v0", learner="white", decompose=False)
    obs, info = env.reset(options={"state": AK.from_string(WIN_IN_ONE)})
    assert info == {"learner": "white", "goal": 0, "opponent_goal": 0}
    assert np.flatnonzero(env.action_masks()).size == 4
    obs, reward, terminated, truncated, info = env.step(env.aec_env.unwrapped.encode_action((1, 1), (1, 2), (2, 1)))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["outcome"] == 1 and info["goal"] == 100
    assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


@pytest.mark.parametrize("decompose", [False, True])
def test_learner_loses_on_the_opponents_move(decompose):
    """The game ends on the opponent's move: the learner's step returns its -1 and the end."""
    opponent = _scripted([((1, 10), (1, 3), (1, 2))])
    if decompose:  # the scripted turn, as three choices
        turn = make_aec_env("amazons_v0", decompose=False).unwrapped.encode_action((1, 10), (1, 3), (1, 2))
        steps = list(AmazonsTurnDecomposition.turn_steps(turn))
        opponent = lambda env, agent: steps.pop(0)  # noqa: E731
    env = SingleAgentEnv("amazons_v0", opponent=opponent, learner="white", decompose=decompose)
    start = AK.from_string(LOSE_IN_TWO)  # its step counts the arrows drawn
    env.reset(options={"state": start})
    if decompose:
        for cell in (0, 1):  # queen (1,1), destination (2,1): nothing happens yet
            assert env.step(cell)[1:4] == (0.0, False, False)
        action = 0  # arrow back on (1,1)
    else:
        action = env.aec_env.unwrapped.encode_action((1, 1), (2, 1), (1, 1))
    obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["outcome"] == -1 and info["opponent_goal"] == 100
    assert env.aec_env.unwrapped.get_state()[1][AK.STEP] == start[1][AK.STEP] + 2  # both moves were played


def test_learner_reward_includes_the_opponents_capture():
    """Skirmish, zero-sum goal deltas: the opponent's capture is the learner's loss, at once."""
    opponent = _scripted([((5, 7), (5, 5)), ((5, 5), (4, 4)), ((1, 7), (1, 6))])
    env = SingleAgentEnv("skirmish_v0", opponent=opponent, learner="white", reward="delta_zero_sum")
    env.reset()
    encode = env.aec_env.unwrapped.encode_action
    assert env.step(encode((4, 2), (4, 4)))[1] == 0.0
    assert env.step(encode((1, 2), (1, 3)))[1] == -0.06  # black took on (4,4)
    obs, reward, *_ = env.step(encode((4, 1), (4, 4)))  # the queen takes back
    assert reward == 0.06
    # the learner's own planes (skirmish: plane 4 = own queens) show its queen on (4,4)
    assert obs[3, 3, 4] == 1


def test_opening_move_reward_is_paid_with_the_first_step():
    """amazons_split goal deltas flip every turn: the black learner's -2 from white's
    opening turn (played in reset) comes with its first step, so returns telescope."""
    env = SingleAgentEnv("amazons_split_v0", learner="black", reward="delta_zero_sum")
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    first = env.step(rng.choice(np.flatnonzero(env.action_masks())))[1]
    assert first == -2.0  # white's turn: -1 - (+1); black's own move step changes no goal
    for learner, rewards, info in _play_random(env, rng, 4):
        # goals start white 0, black 100 and end 100 for the winner, 0 for the loser: the
        # return is the learner's change minus the opponent's, over 100
        expected = {("black", 1): 0.0, ("black", -1): -2.0, ("white", 1): 2.0, ("white", -1): 0.0}
        assert sum(rewards) == pytest.approx(expected[learner, info["outcome"]])


def test_illegal_action_ends_the_episode_with_a_penalty():
    env = SingleAgentEnv("skirmish_v0", illegal_reward=-5.0)
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    state = env.aec_env.unwrapped.get_state()
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"], info["outcome"]) == (-5.0, True, False, True, -1)
    np.testing.assert_array_equal(env.aec_env.unwrapped.get_state()[1], state[1])  # never played
    assert not env.action_masks().any()
    env.reset()
    assert env.action_masks().any()


def test_truncation_by_max_steps():
    env = SingleAgentEnv("mad_bishops_v0", learner="white", env_kwargs={"max_steps": 5})
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    results = []
    while not results or not (results[-1][2] or results[-1][3]):
        results.append(env.step(rng.choice(np.flatnonzero(env.action_masks()))))
    assert len(results) == 3  # white's 1st, 3rd and 5th action; the 5th truncates
    assert results[-1][2:4] == (False, True)


# ----------------------------------------------------------------------------- sides, seeding, rewards
@pytest.mark.parametrize("name", NAMES)
def test_sides_alternate_and_rewards_are_the_learners(name):
    env = SingleAgentEnv(name, opponent="greedy")
    rng = np.random.default_rng(1)
    env.reset(seed=5)
    sides = []
    for learner, rewards, info in _play_random(env, rng, 4):
        sides.append(learner)
        # win/loss: every reward is 0 but the last, which is the outcome
        assert all(r == 0 for r in rewards[:-1])
        assert rewards[-1] == info["outcome"]
    assert sides == ["black", "white", "black", "white"]  # seeded reset was white's episode


def test_black_learner_starts_after_the_opponents_move():
    env = SingleAgentEnv("skirmish_v0", learner="black")
    obs, info = env.reset(seed=0)
    assert info["learner"] == "black"
    assert env.aec_env.unwrapped.get_state()[1][2] == 1
    assert env.aec_env.agent_selection == "black"
    assert obs[0, 0, 16] == 1  # skirmish plane 16: the observer is black


def test_seeded_resets_repeat():
    env = SingleAgentEnv("amazons_v0", learner="black")
    a, _ = env.reset(seed=3)
    b, _ = env.reset(seed=3)
    c, _ = env.reset(seed=4)
    np.testing.assert_array_equal(a, b)
    assert (a != c).any()  # another opening move by the random opponent


# ----------------------------------------------------------------------------- opponents
# White to move, 691 legal turns; only (1,1)->(1,2)/(9,10) and (1,1)->(1,10)/(9,10) shut
# the black queen on (10,10) in.
RARE_WIN = "\n".join([".........B", "........xx"] + [".........."] * 7 + ["W........."])


def test_greedy_takes_the_win_and_the_capture():
    raw = load("amazons_v0").raw_env()
    raw.set_state(AK.from_string(RARE_WIN))
    wins = {raw.encode_action((1, 1), (1, 2), (9, 10)), raw.encode_action((1, 1), (1, 10), (9, 10))}
    assert len(raw.legal_actions()) == 691
    greedy = GreedyOpponent()
    for seed in range(4):
        greedy.reset(np.random.default_rng(seed))
        assert greedy(raw, "white") in wins
    sk = load("skirmish_v0").raw_env()
    sk.reset()
    for move in [((4, 2), (4, 4)), ((5, 7), (5, 5))]:
        sk.step(sk.encode_action(*move))
    assert greedy(sk, "white") == sk.encode_action((4, 4), (5, 5))  # the only capture


def test_greedy_through_the_decomposition():
    env = AmazonsTurnDecomposition(load("amazons_v0").env())
    env.reset()
    env.set_state(AK.from_string(RARE_WIN))
    greedy = GreedyOpponent()
    greedy.reset(np.random.default_rng(0))
    for _ in range(3):
        env.step(greedy(env, "white"))
    assert env.rewards == {"white": 1.0, "black": -1.0}


def test_random_opponent_is_uniform_over_whole_turns():
    """In the decomposition, random play picks whole turns uniformly, not each choice."""
    # white: a boxed queen on (1,1) with one turn, a free one on (5,5) with hundreds
    board, aux = AK.from_string("\n".join(["B........."] + [".........."] * 7 + ["xxx.......", "W.x......."]))
    board[AK.N // 2 - 6] = AK.WHITE  # (5,5)
    env = AmazonsTurnDecomposition(load("amazons_v0").raw_env())
    env.reset()
    env.set_state((board, aux))
    per_queen = np.unique(AK.DECODE[env.legal_turns()][:, 0], return_counts=True)
    share = dict(zip(per_queen[0].tolist(), (per_queen[1] / per_queen[1].sum()).tolist(), strict=True))
    assert share[0] < 0.01  # uniform over queens would pick (1,1) half of the time
    opp = RandomOpponent()
    opp.reset(np.random.default_rng(0))
    picks = [opp(env, "white") for _ in range(2000)]
    assert np.mean(np.array(picks) == 0) == pytest.approx(share[0], abs=0.02)
    # and the plan is followed: the destination and arrow complete the chosen turn
    env.step(picks[-1])
    d = opp(env, "white")
    env.step(d)
    env.step(opp(env, "white"))
    assert env.agent_selection == "black"


def test_make_opponent_and_pool():
    assert isinstance(make_opponent("random"), RandomOpponent)
    assert isinstance(make_opponent("greedy"), GreedyOpponent)
    with pytest.raises(ValueError, match="unknown opponent 'strong'"):
        make_opponent("strong")
    with pytest.raises(ValueError, match="unknown opponent 'mcts:abc'.*MCTS budget"):
        make_opponent("mcts:abc")
    with pytest.raises(TypeError, match="opponent must be"):
        make_opponent(3)
    with pytest.raises(TypeError, match="predict"):
        PolicyOpponent(object())
    pool = OpponentPool(["random", "greedy"], weights=[1, 0], max_size=3)
    pool.reset(np.random.default_rng(0))
    assert isinstance(pool.current, RandomOpponent)
    pool.add("greedy")
    pool.add("greedy")
    assert len(pool.opponents) == 3 and isinstance(pool.opponents[0], RandomOpponent)
    with pytest.raises(ValueError, match="weights"):
        OpponentPool(["random"], weights=[1, 2])
    with pytest.raises(ValueError, match="at least one"):
        OpponentPool([])


def test_bad_arguments():
    with pytest.raises(ValueError, match="learner must be one of"):
        SingleAgentEnv("skirmish_v0", learner="red")
    with pytest.raises(ValueError, match="unknown environment 'chess_v0'"):
        SingleAgentEnv("chess_v0")
    with pytest.raises(ValueError, match="unknown reward"):
        SingleAgentEnv("skirmish_v0", reward="points")
    with pytest.raises(ValueError, match="apply to an env name"):
        SingleAgentEnv(load("skirmish_v0").env(), reward="goal")
    with pytest.raises(TypeError, match="env must be an env name, a GDL game .* or a PettingZoo AEC env"):
        SingleAgentEnv(42)
    with pytest.raises(ValueError, match="render_mode"):
        SingleAgentEnv("skirmish_v0", render_mode="human")
    with pytest.raises(TypeError, match="OpponentPool"):
        SingleAgentEnv("skirmish_v0").add_opponent("random")
    with pytest.raises(ValueError, match="unknown opponent 'mtcs:100'"):
        SingleAgentEnv("skirmish_v0", opponent="mtcs:100")


def test_wrapped_aec_env_is_accepted():
    env = SingleAgentEnv(AmazonsTurnDecomposition(GoalDeltaReward(load("amazons_v0").raw_env())))
    assert env.action_space.n == 100 and env.observation_space.shape == (10, 10, 5)
    check_env(env, skip_render_check=True)


# ----------------------------------------------------------------------------- SB3
def _vec_check(vec_cls):
    from sb3_contrib.common.maskable.utils import get_action_masks

    fns = [functools.partial(SingleAgentEnv, "skirmish_endgame_v0", reward="delta_zero_sum")] * 2
    venv = vec_cls(fns)
    try:
        venv.seed(0)
        obs = venv.reset()
        assert obs.shape == (2, 8, 8, 17)
        rng = np.random.default_rng(0)
        done_count = 0
        for _ in range(200):
            masks = get_action_masks(venv)
            assert masks.shape == (2, 4096) and masks.any(axis=1).all()
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            obs, rewards, dones, infos = venv.step(actions)
            for done, info in zip(dones, infos, strict=True):
                if done:
                    done_count += 1
                    assert "terminal_observation" in info and info["outcome"] in (-1, 0, 1)
        assert done_count >= 2  # episodes ended and auto-reset
        sides = venv.get_attr("learner")
        assert set(sides) <= {"white", "black"}
    finally:
        venv.close()


def test_dummy_vec_env():
    from stable_baselines3.common.vec_env import DummyVecEnv

    _vec_check(DummyVecEnv)


def test_subproc_vec_env():
    from stable_baselines3.common.vec_env import SubprocVecEnv

    _vec_check(SubprocVecEnv)


def test_maskable_ppo_short_run_save_load_and_snapshot(tmp_path, tmp_path_factory):
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)
    venv = DummyVecEnv([functools.partial(SingleAgentEnv, "amazons_v0", opponent=["random"])] * 2)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(256)
    assert model.num_timesteps >= 256
    # SB3's log folder is under pytest's temporary directory (tests/conftest.py), not $TMPDIR/SB3-<date>
    assert Path(model.logger.get_dir()).is_relative_to(tmp_path_factory.getbasetemp())
    snapshot = PolicyOpponent(model, copy_model=True)
    venv.env_method("add_opponent", snapshot)
    assert all(len(p.opponents) == 2 for p in venv.get_attr("opponent"))
    model.learn(128, reset_num_timesteps=False)
    # the snapshot is frozen: training moved the model, not the copy
    w_model = next(model.policy.parameters()).detach().clone()
    w_snap = next(snapshot.model.parameters()).detach()
    assert not torch.equal(w_model, w_snap)
    path = tmp_path / "model.zip"
    model.save(path)
    loaded = MaskablePPO.load(path, device="cpu")
    env = SingleAgentEnv("amazons_v0", opponent=PolicyOpponent(loaded, deterministic=True))
    obs, _ = env.reset(seed=0)
    action, _ = loaded.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert env.action_masks()[int(action)]
    same, _ = model.predict(obs, action_masks=env.action_masks(), deterministic=True)
    assert int(same) == int(action)
    # a whole game against the loaded model, every choice legal
    done = False
    while not done:
        action, _ = loaded.predict(obs, action_masks=env.action_masks())
        obs, reward, terminated, truncated, info = env.step(action)
        assert "illegal_action" not in info
        done = terminated or truncated
    assert info["outcome"] in (-1, 0, 1)


@pytest.mark.parametrize("cnn", [False, True])
def test_policy_opponent_plays_the_distribution_predict_samples(cnn):
    """The fast path (logits read directly, masked softmax sampled with the opponent's rng) plays
    predict()'s argmax, and samples predict()'s masked distribution."""
    import torch
    from sb3_contrib import MaskablePPO

    from ggpzoo.training.nets import BoardCNN

    env = SingleAgentEnv("mad_bishops_v0", decompose=True, reward="winloss")
    kwargs = {"net_arch": [16]}
    if cnn:
        kwargs |= {
            "features_extractor_class": BoardCNN,
            "features_extractor_kwargs": {"channels": 4, "layers": 1},
            "share_features_extractor": False,
        }
    model = MaskablePPO(
        "MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu", policy_kwargs=kwargs
    )
    model.learn(64)
    best, sampler = PolicyOpponent(model, deterministic=True), PolicyOpponent(model)
    assert best._policy is model.policy and sampler._policy is model.policy
    sampler.reset(np.random.default_rng(0))
    aec = env.aec_env
    aec.reset(seed=1)
    rng = np.random.default_rng(2)
    torch.set_num_threads(1)
    for _ in range(4):
        obs = aec.observe(aec.agent_selection)
        mask = obs["action_mask"].astype(bool)
        expected, _ = model.predict(obs["observation"], action_masks=mask, deterministic=True)
        assert best(aec, aec.agent_selection) == int(expected)
        with torch.no_grad():
            dist = (
                model.policy.get_distribution(model.policy.obs_to_tensor(obs["observation"])[0], action_masks=mask)
                .distribution.probs[0]
                .numpy()
            )
        draws = np.bincount([sampler(aec, aec.agent_selection) for _ in range(2000)], minlength=len(mask)) / 2000
        assert draws[~mask].sum() == 0 and np.abs(draws - dist).max() < 0.05
        aec.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("name", ["skirmish_endgame_v0", "amazons_v0"])
def test_any_ggpzoo_agent_is_an_opponent(name):
    """An agent spec (MCTS here) or an Agent plays whole turns, also through the decomposition."""
    from ggpzoo.agents import GreedyAgent, MCTSAgent

    for opponent in ("mcts:8", MCTSAgent(name, simulations=8), GreedyAgent(name)):
        env = SingleAgentEnv(name, opponent=opponent, learner="black")
        assert isinstance(env.opponent, AgentOpponent)
        rng = np.random.default_rng(0)
        env.reset(seed=1)
        assert env.aec_env.unwrapped.get_state()[1][2] == 1  # the agent's opening turn, whole
        for _ in range(6):
            *_, terminated, truncated, _ = env.step(rng.choice(np.flatnonzero(env.action_masks())))
            assert not (terminated or truncated)
        assert env.aec_env.agent_selection == "black"
