"""Every game has a Parallel env: hand-written games take turns, a sheet's roles may move at once."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

import ggpzoo.envs
from ggpzoo.envs import SPECS, spec


@pytest.mark.parametrize("name", [*SPECS, "gdl:tictactoe", "gdl:rps_fold"])
def test_every_game_passes_pettingzoos_parallel_api_test(name):
    parallel_api_test(spec(name).parallel_env(), num_cycles=200)
    assert ggpzoo.envs.load(name).parallel_env is not None


@pytest.mark.parametrize("name", list(SPECS))
def test_a_turn_game_plays_the_movers_action_as_the_aec_env_does(name):
    """The same seeded random game through the AEC env and the Parallel env: same observations,
    rewards, ends; the other role's action is ignored."""
    rng = np.random.default_rng(1)
    aec, par = spec(name).raw_env(max_steps=60), spec(name).parallel_env(max_steps=60)
    aec.reset()
    obs, infos = par.reset()
    while par.agents:
        mover = infos[par.agents[0]]["active_agent"]
        assert mover == aec.agent_selection
        for a in par.agents:
            assert np.array_equal(obs[a]["observation"], aec.observe(a)["observation"])
            assert np.array_equal(obs[a]["action_mask"], aec.observe(a)["action_mask"])
        action = int(rng.choice(aec.legal_actions()))
        other = next(a for a in par.agents if a != mover)
        obs, rewards, terms, truncs, infos = par.step({mover: action, other: -12345})
        aec.step(action)
        assert rewards == {a: aec.rewards[a] for a in rewards}
        assert terms == {a: aec.terminations[a] for a in terms} and truncs == {a: aec.truncations[a] for a in truncs}
    assert aec.terminations["white"] or aec.truncations["white"]


def test_bad_actions_are_refused_and_change_nothing():
    par = spec("skirmish_v0").parallel_env()
    obs, infos = par.reset()
    with pytest.raises(ValueError, match="no action for white, the agent to move"):
        par.step({"black": 0})
    illegal = int(np.flatnonzero(obs["white"]["action_mask"] == 0)[0])
    with pytest.raises(ValueError):
        par.step({"white": illegal})
    with pytest.raises(TypeError, match="dict"):
        par.step([1, 2])
    assert np.array_equal(par.reset()[0]["white"]["observation"], obs["white"]["observation"])
    legal = int(np.flatnonzero(obs["white"]["action_mask"])[0])
    par.step({"white": legal})
    assert par.aec.agent_selection == "black"


def test_no_step_after_the_end():
    par = spec("mad_bishops_v0").parallel_env(max_steps=2)
    obs, infos = par.reset()
    for _ in range(2):
        mover = infos[par.agents[0]]["active_agent"]
        obs, _, _, truncs, infos = par.step({mover: int(np.flatnonzero(obs[mover]["action_mask"])[0])})
    assert all(truncs.values()) and par.agents == []
    with pytest.raises(RuntimeError, match="call reset"):
        par.step({"white": 0})
