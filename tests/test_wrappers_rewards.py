"""Reward wrappers: PettingZoo's API test on every env, and the rewards of hand-played games."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.env_logger import EnvLogger

from ggpzoo.envs import ENVS, load
from ggpzoo.envs.amazons import kernel as AK
from ggpzoo.utils import sample_action
from ggpzoo.wrappers import (
    REWARDS,
    GoalDeltaReward,
    GoalReward,
    InvalidWrapperArgument,
    WinLossReward,
    reward_wrapper,
)

NAMES = list(ENVS)
FACTORIES = ["env", "raw_env"]


def _make(name, factory, reward, **kwargs):
    return REWARDS[reward](getattr(load(name), factory)(**kwargs))


def _play_collect(env, rng, on_last=None):
    """Play a random game; return what each agent collected through ``last()`` and the goals.

    ``on_last(agent, reward)`` sees every ``last()`` reward. The goals are read when the
    game ends (before the dead steps remove the agents).
    """
    collected = {a: 0.0 for a in env.possible_agents}
    start = {a: env.infos[a]["goal"] for a in env.agents}
    final = None
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        collected[agent] += reward
        if on_last:
            on_last(agent, reward)
        if term or trunc:
            final = final or {a: env.infos[a]["goal"] for a in env.agents}
            env.step(None)
        else:
            env.step(sample_action(obs["action_mask"], rng))
    return collected, start, final


# ----------------------------------------------------------------------------- API
@pytest.mark.parametrize("reward", list(REWARDS))
@pytest.mark.parametrize("factory", FACTORIES)
@pytest.mark.parametrize("name", NAMES)
def test_api_test(name, factory, reward):
    api_test(_make(name, factory, reward), num_cycles=200)


@pytest.mark.parametrize("name", NAMES)
def test_seed_test(name):
    seed_test(lambda: GoalDeltaReward(load(name).env(), zero_sum=True), num_cycles=100)


# ----------------------------------------------------------------------------- every env, random games
@pytest.mark.parametrize("factory", FACTORIES)
@pytest.mark.parametrize("name", NAMES)
def test_winloss_equals_the_default_rewards(name, factory):
    """WinLossReward(env) books exactly what env books, step by step, on both sides."""
    mod = load(name)
    plain, wrapped = getattr(mod, factory)(), WinLossReward(getattr(mod, factory)())
    rng1 = np.random.default_rng(11)
    for game in range(2):
        plain.reset(seed=game)
        wrapped.reset(seed=game)
        for a1, a2 in zip(plain.agent_iter(), wrapped.agent_iter(), strict=True):
            assert a1 == a2
            o1, r1, t1, u1, _ = plain.last()
            _, r2, t2, u2, _ = wrapped.last()
            assert (r1, t1, u1) == (r2, t2, u2)
            assert plain.rewards == wrapped.rewards
            action = None if (t1 or u1) else sample_action(o1["action_mask"], rng1)
            plain.step(action)
            wrapped.step(action)


@pytest.mark.parametrize("name", NAMES)
def test_goal_reward_pays_goal_over_100_at_the_end(name):
    env = GoalReward(load(name).raw_env())
    env.reset(seed=0)
    seen = []
    collected, _, final = _play_collect(env, np.random.default_rng(3), lambda a, r: seen.append(r))
    assert collected == {a: final[a] / 100 for a in env.possible_agents}
    # nothing before the end: only the two last() calls of the dead steps can be non-zero
    assert all(r == 0 for r in seen[:-2])


@pytest.mark.parametrize("zero_sum", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_goal_delta_telescopes(name, zero_sum):
    """Every reward reaches its agent through last(): an agent collects (final - start goal) / 100
    (zero-sum: minus the opponent's change), in every env."""
    env = GoalDeltaReward(load(name).env(), zero_sum=zero_sum)
    rng = np.random.default_rng(4)
    for game in range(3):
        env.reset(seed=game)
        collected, start, final = _play_collect(env, rng)
        white, black = env.possible_agents
        change = {a: (final[a] - start[a]) / 100 for a in (white, black)}
        if zero_sum:
            change = {white: change[white] - change[black], black: change[black] - change[white]}
        for a in (white, black):
            assert collected[a] == pytest.approx(change[a], abs=1e-12)


@pytest.mark.parametrize("name", NAMES)
def test_truncation_is_no_end(name):
    """At a max_steps truncation WinLoss and Goal pay nothing; the dense delta pays as usual."""
    for reward in ("winloss", "goal"):
        env = _make(name, "raw_env", reward, max_steps=4)
        env.reset()
        collected, _, _ = _play_collect(env, np.random.default_rng(5))
        assert collected == {"white": 0.0, "black": 0.0}
        assert env.unwrapped.get_state()[1][2] == 4  # cut after 4 actions


# ----------------------------------------------------------------------------- hand-played: Amazons end
# White to move; (1,1)->(1,2) with the arrow on (2,1) shuts the black queen in: white wins.
WIN_IN_ONE = "\n".join(["xxxxxxxxxx"] * 8 + [".xxxxxxxxx", "W.Bxxxxxxx"])


@pytest.mark.parametrize("factory", FACTORIES)
@pytest.mark.parametrize(
    "reward, white, black",
    [("winloss", 1.0, -1.0), ("goal", 1.0, 0.0), ("delta", 1.0, 0.0), ("delta_zero_sum", 1.0, -1.0)],
)
def test_amazons_win_pays_both_through_last(factory, reward, white, black):
    env = _make("amazons_v0", factory, reward)
    env.reset()
    env.set_state(AK.from_string(WIN_IN_ONE))
    assert env.rewards == {"white": 0.0, "black": 0.0}
    assert env.last()[1] == 0.0
    env.step(env.unwrapped.encode_action((1, 1), (1, 2), (2, 1)))
    assert env.rewards == {"white": white, "black": black}
    assert all(env.terminations.values()) and env.infos["black"]["goal"] == 0
    # the loser (black, selected next) gets its reward through last(), then white
    assert env.agent_selection == "black"
    assert env.last()[1:3] == (black, True)
    env.step(None)
    assert env.rewards == {"white": 0.0}
    assert env.agent_selection == "white"
    assert env.last()[1:3] == (white, True)
    env.step(None)
    assert env.agents == [] and env.rewards == {} and env._cumulative_rewards == {}


def test_amazons_terminal_state_pays_at_reset():
    """set_state into a terminal state books the end rewards at once, as the base env does."""
    board, aux = AK.from_string(WIN_IN_ONE)
    env = GoalReward(load("amazons_v0").raw_env())
    env.reset()
    probe = load("amazons_v0").raw_env()
    probe.set_state((board, aux))
    probe.step(probe.encode_action((1, 1), (1, 2), (2, 1)))
    env.set_state(probe.get_state())
    assert env.rewards == {"white": 1.0, "black": 0.0}
    assert env.last()[1] == 0.0  # black (to move) lost
    assert env.unwrapped.rewards == {"white": 1.0, "black": -1.0}  # the base's own books, untouched


# ----------------------------------------------------------------------------- hand-played: Skirmish captures
# 1. W d2-d4, B e7-e5; 2. W a2-a3, B e5xd4 (black captures); 3. W Qd1xd4 (white captures).
SKIRMISH_GAME = [((4, 2), (4, 4)), ((5, 7), (5, 5)), ((1, 2), (1, 3)), ((5, 5), (4, 4)), ((4, 1), (4, 4))]


def _skirmish_rewards(env):
    """Play SKIRMISH_GAME; return each mover's last() reward before its move, and env.rewards after."""
    env.reset()
    seen, after = [], []
    for move in SKIRMISH_GAME:
        seen.append((env.agent_selection, env.last()[1]))
        env.step(env.unwrapped.encode_action(*move))
        after.append(dict(env.rewards))
    seen.append((env.agent_selection, env.last()[1]))
    return seen, after


@pytest.mark.parametrize("factory", FACTORIES)
def test_skirmish_capture_pays_the_capturer(factory):
    env = GoalDeltaReward(getattr(load("skirmish_v0"), factory)())
    seen, after = _skirmish_rewards(env)
    assert env.infos["white"]["captures"] == 1 and env.infos["black"]["captures"] == 1
    zero = {"white": 0.0, "black": 0.0}
    # black's capture pays black at once, white's capture pays white at once
    assert after == [zero, zero, zero, {"white": 0.0, "black": 0.06}, {"white": 0.06, "black": 0.0}]
    # and each reaches its agent through last() at its next turn
    assert seen == [("white", 0), ("black", 0), ("white", 0), ("black", 0), ("white", 0), ("black", 0.06)]


@pytest.mark.parametrize("factory", FACTORIES)
def test_skirmish_zero_sum_capture_costs_the_captured(factory):
    env = GoalDeltaReward(getattr(load("skirmish_v0"), factory)(), zero_sum=True)
    seen, after = _skirmish_rewards(env)
    assert after[3] == {"white": -0.06, "black": 0.06}
    assert after[4] == {"white": 0.06, "black": -0.06}
    # white's loss on black's capture reaches white through last() before its recapture;
    # black then sees its +0.06 and the -0.06 of white's recapture: 0 in all
    assert seen[4] == ("white", -0.06)
    assert seen[5] == ("black", pytest.approx(0.0))


def test_skirmish_goal_and_winloss_wait_for_the_end():
    for wrapper in (GoalReward, WinLossReward):
        env = wrapper(load("skirmish_v0").raw_env())
        seen, after = _skirmish_rewards(env)
        assert all(r == {"white": 0.0, "black": 0.0} for r in after)
        assert all(r == 0 for _, r in seen)


# ----------------------------------------------------------------------------- illegal actions in env()
@pytest.mark.parametrize("reward", list(REWARDS))
def test_illegal_action_penalty_of_env_gets_through(reward):
    env = _make("skirmish_v0", "env", reward)
    env.reset()
    illegal = int(np.flatnonzero(env.last()[0]["action_mask"] == 0)[0])
    EnvLogger.mqueue.clear()
    env.step(illegal)
    assert any("Illegal move" in m for m in EnvLogger.mqueue)
    assert env.rewards["white"] == -1.0 and env.rewards["black"] == 0.0
    assert env._cumulative_rewards == {"white": -1.0, "black": 0.0}
    assert env.last()[1] == -1.0


def test_step_after_the_end_is_forwarded():
    raw = GoalReward(load("mad_bishops_v0").raw_env())
    raw.reset()
    _play_collect(raw, np.random.default_rng(6))
    with pytest.raises(RuntimeError, match="call reset"):
        raw.step(0)
    wrapped = GoalReward(load("mad_bishops_v0").env())
    wrapped.reset()
    _play_collect(wrapped, np.random.default_rng(6))
    EnvLogger.mqueue.clear()
    wrapped.step(None)
    assert any("step() called after all agents are terminated" in m for m in EnvLogger.mqueue)


def test_dead_agent_must_step_with_none():
    env = GoalDeltaReward(load("amazons_v0").raw_env())
    env.reset()
    env.set_state(AK.from_string(WIN_IN_ONE))
    env.step(env.unwrapped.encode_action((1, 1), (1, 2), (2, 1)))
    with pytest.raises(ValueError, match="None"):
        env.step(0)
    assert env._cumulative_rewards == {"white": 1.0, "black": 0.0}  # unchanged


# ----------------------------------------------------------------------------- construction
def test_bad_arguments():
    with pytest.raises(InvalidWrapperArgument, match="zero_sum must be True or False"):
        GoalDeltaReward(load("skirmish_v0").env(), zero_sum=1)
    with pytest.raises(InvalidWrapperArgument, match="wraps a PettingZoo AEC env"):
        GoalReward(object())
    with pytest.raises(InvalidWrapperArgument, match="unknown reward 'points'"):
        reward_wrapper(load("skirmish_v0").env(), "points")
    assert isinstance(InvalidWrapperArgument("x"), ValueError)


def test_needs_goals_in_infos():
    from pettingzoo.classic import tictactoe_v3

    env = GoalReward(tictactoe_v3.env())
    with pytest.raises(InvalidWrapperArgument, match=r"infos\[agent\]\['goal'\]"):
        env.reset()


def test_no_private_access_and_wrapper_names():
    env = GoalDeltaReward(load("skirmish_v0").env())
    with pytest.raises(AttributeError, match="private attribute"):
        env._board  # noqa: B018 - BaseWrapper forbids it, and the wrapper never needs it
    assert str(env).startswith("GoalDeltaReward<")
    assert reward_wrapper(env, None) is env
