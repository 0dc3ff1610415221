"""What other RL libraries rely on: the mask copied into ``infos``, +0.0 for a draw, any
PettingZoo from 1.24 on (with or without its registry), and the turn-based parallel form."""

import math
import pickle

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, parallel_api_test
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

import ggpzoo
from ggpzoo.engine import VectorGames
from ggpzoo.envs import ENVS, load
from ggpzoo.utils import sample_action

NAMES = list(ENVS)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
def test_api_test_with_mask_in_infos(name, wrapped):
    module = load(name)
    api_test((module.env if wrapped else module.raw_env)(mask_in_infos=True), num_cycles=100)


@pytest.mark.parametrize("name", NAMES)
def test_mask_in_infos_equals_the_observed_mask(name):
    env = load(name).env(mask_in_infos=True, max_steps=40)
    rng = np.random.default_rng(0)
    env.reset()
    steps = 0
    for _ in env.agent_iter():
        obs, _, term, trunc, info = env.last()
        for a in env.agents:  # every agent's copy, the one not to act too (all zeros)
            mask = env.unwrapped.infos[a]["action_mask"]
            assert mask.dtype == np.int8 and np.array_equal(mask, env.observe(a)["action_mask"])
        assert np.array_equal(info["action_mask"], obs["action_mask"])
        env.step(None if term or trunc else sample_action(info["action_mask"], rng))
        steps += 1
    assert steps > 2


def test_mask_in_infos_is_off_by_default_and_checked():
    env = load("skirmish_endgame_v0").raw_env()
    env.reset()
    assert env.mask_in_infos is False and "action_mask" not in env.infos["white"]
    with pytest.raises(ValueError, match="mask_in_infos must be True or False"):
        load("skirmish_endgame_v0").raw_env(mask_in_infos="yes")
    clone = pickle.loads(pickle.dumps(load("skirmish_endgame_v0").raw_env(mask_in_infos=True)))
    assert clone.mask_in_infos is True


def _drawn_game(env, seed):
    """Play seeded random games on ``env`` (a raw env) until one ends in a draw; return its rewards."""
    rng = np.random.default_rng(seed)
    for _ in range(200):
        env.reset()
        while not env.is_game_over():
            env.step(sample_action(env.observe(env.agent_selection)["action_mask"], rng))
        if env.outcome().winner is None:
            return dict(env.rewards)
    raise AssertionError("no draw in 200 random games")


def test_a_draw_pays_plus_zero_to_both():
    rewards = _drawn_game(load("skirmish_endgame_v0").raw_env(), seed=0)
    assert rewards == {"white": 0.0, "black": 0.0}
    assert all(math.copysign(1.0, r) == 1.0 for r in rewards.values()), rewards  # not -0.0


def test_a_draw_pays_plus_zero_in_the_batched_engine():
    games = VectorGames("skirmish_endgame_v0", num_games=64)
    games.reset()
    draws = 0
    for t in range(200):
        step = games.step(games.random_actions(seed=t))
        drawn = step.finished & (step.final_goals[:, 0] == step.final_goals[:, 1])
        draws += int(drawn.sum())
        zeros = step.rewards == 0
        assert not np.signbit(step.rewards[zeros]).any()  # no -0.0, for a draw or before the end
    assert draws > 0


def test_registry_when_pettingzoo_has_one():
    assert ggpzoo.REGISTERED == hasattr(pettingzoo, "register")
    if not ggpzoo.REGISTERED:
        pytest.skip(f"PettingZoo {pettingzoo.__version__} has no registry; the classic modules are the way in")
    env = pettingzoo.make("aec", "ggpzoo/skirmish_endgame-v0")
    assert env.metadata["name"] == "skirmish_endgame_v0"


def test_classic_modules_work_with_any_pettingzoo():
    from ggpzoo.envs import skirmish_endgame_v0

    env = skirmish_endgame_v0.env()
    env.reset(seed=0)
    assert env.agent_selection == "white"


@pytest.mark.parametrize("name", ["skirmish_endgame_v0", "amazons_split_v0"])
def test_turn_based_parallel_conversion(name):
    """``aec_to_parallel`` refuses these envs (``is_parallelizable`` is False);
    ``turn_based_aec_to_parallel`` gives every agent an observation each step and takes
    the acting agent's action. With ``mask_in_infos`` its infos carry the masks."""
    parallel_api_test(turn_based_aec_to_parallel(load(name).env()), num_cycles=100)
    par = turn_based_aec_to_parallel(load(name).env(mask_in_infos=True))
    obs, infos = par.reset(seed=0)
    rng = np.random.default_rng(0)
    returns = dict.fromkeys(par.possible_agents, 0.0)
    while par.agents:
        for a in par.agents:
            assert np.array_equal(infos[a]["action_mask"], obs[a]["action_mask"])
        actions = {
            a: sample_action(obs[a]["action_mask"], rng) if obs[a]["action_mask"].any() else 0 for a in par.agents
        }
        obs, rewards, terms, truncs, infos = par.step(actions)
        for a, r in rewards.items():
            returns[a] += r
    assert sorted(returns.values()) in ([-1.0, 1.0], [0.0, 0.0])
