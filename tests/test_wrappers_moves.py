"""MoveDecomposition: each from/to action as a source choice, then a destination choice."""

import numpy as np
import pytest
from helpers import random_positions
from pettingzoo.test import api_test, seed_test

from ggpzoo.envs import amazons_split_v0, amazons_v0, load, mad_bishops_v0
from ggpzoo.envs.amazons import kernel as AK
from ggpzoo.utils import sample_action
from ggpzoo.wrappers import GoalDeltaReward, InvalidWrapperArgument, MoveDecomposition

FROM_TO = ["amazons_split_v0", "mad_bishops_v0", "skirmish_v0", "skirmish_endgame_v0"]


def _cells(mask):
    return set(np.flatnonzero(mask).tolist())


@pytest.mark.parametrize("name", FROM_TO)
def test_api_test(name):
    api_test(MoveDecomposition(load(name).env()), num_cycles=300)
    api_test(MoveDecomposition(GoalDeltaReward(load(name).raw_env(), zero_sum=True)), num_cycles=300)


def test_seed_test():
    seed_test(lambda: MoveDecomposition(mad_bishops_v0.env()), num_cycles=100)


@pytest.mark.parametrize("name", FROM_TO)
def test_spaces(name):
    env = MoveDecomposition(load(name).env())
    inner = load(name).env()
    h, w, planes = inner.observation_space("white")["observation"].shape
    assert inner.action_space("white").n == (h * w) ** 2
    for agent in env.possible_agents:
        assert env.action_space(agent).n == h * w
        assert env.observation_space(agent)["observation"].shape == (h, w, planes + 1)
        assert env.observation_space(agent)["action_mask"].shape == (h * w,)


@pytest.mark.parametrize("name", FROM_TO)
def test_masks_reach_exactly_the_legal_actions(name):
    """Every path through the two masks is a legal action, and every legal action is one."""
    env = MoveDecomposition(load(name).raw_env())
    plain = load(name).raw_env()
    cells = env.action_space("white").n
    for state in random_positions(name, 12, seed=0):
        plain.set_state(state)
        env.set_state(state)
        legal = {(int(a) // cells, int(a) % cells) for a in plain.legal_actions()}
        reached = set()
        if env.stage == 0:
            for s in _cells(env.observe(env.agent_selection)["action_mask"]):
                env.set_state(state)
                env.step(s)
                assert env.stage == 1 and env.source == s and env.agent_selection == plain.agent_selection
                np.testing.assert_array_equal(env.legal_actions(), np.flatnonzero(env.last()[0]["action_mask"]))
                reached |= {(s, d) for d in _cells(env.last()[0]["action_mask"])}
        else:  # one source only: the wrapper chose it
            assert len({s for s, _ in legal}) == 1
            reached = {(env.source, d) for d in _cells(env.last()[0]["action_mask"])}
        assert reached == legal and legal


def test_split_fire_step_is_one_choice():
    """In amazons_split_v0's fire step the firing queen is forced: the agent only picks the arrow."""
    env = MoveDecomposition(amazons_split_v0.env())
    env.reset()
    assert env.stage == 0 and _cells(env.last()[0]["action_mask"]) == {3, 6, 30, 39}  # the 4 white queens
    env.step(3)  # the queen on (4,1)
    assert env.stage == 1 and env.last()[0]["observation"][0, 3, 5] == 1
    env.step(43)  # ... to (4,5): the move is played, white fires next
    assert env.agent_selection == "white" and env.stage == 1 and env.source == 43
    obs = env.last()[0]
    assert obs["observation"][4, 3, 5] == 1 and obs["observation"][:, :, 5].sum() == 1
    assert len(_cells(obs["action_mask"])) == 32  # docs/games/amazons_split_v0.md: 32 fire targets after (4,1)->(4,5)
    env.step(3)  # the arrow on the vacated origin (4,1)
    assert env.agent_selection == "black" and env.stage == 0
    board, _ = env.unwrapped.get_state()
    assert board[3] == AK.ARROW and board[43] == AK.WHITE


def test_illegal_choices_change_nothing():
    env = MoveDecomposition(mad_bishops_v0.env())
    env.reset()
    before = env.unwrapped.get_state()
    with pytest.raises(ValueError, match=r"action 1 = \(2,1\) is illegal as white's source: no legal white action"):
        env.step(1)  # an empty cell
    with pytest.raises(ValueError, match="out of range"):
        env.step(100)
    env.step(0)  # the piece on a1 ...
    with pytest.raises(
        ValueError, match=r"is illegal as white's destination: no legal white action goes there from \(1,1\)"
    ):
        env.step(22)  # ... cannot go to c3, its own piece
    assert env.stage == 1 and env.source == 0
    for a, b in zip(env.unwrapped.get_state(), before, strict=True):
        np.testing.assert_array_equal(a, b)
    env.step(11)  # a1 x b2, a capture
    assert env.agent_selection == "black" and env.unwrapped.get_state()[0][11] == 1


@pytest.mark.parametrize("name", FROM_TO)
def test_random_games_match_the_plain_env(name):
    """Actions played through the decomposition are the env's actions, rewards and goals to the end."""
    env = MoveDecomposition(load(name).raw_env(max_steps=400))
    plain = load(name).raw_env(max_steps=400)
    cells = env.action_space("white").n
    rng = np.random.default_rng(1)
    env.reset(seed=0)
    plain.reset(seed=0)
    while plain.agents and not any(plain.terminations.values()) and not any(plain.truncations.values()):
        action = int(plain.legal_actions()[rng.integers(len(plain.legal_actions()))])
        src, dst = env.turn_steps(action)
        assert (src, dst) == (action // cells, action % cells) and action in env.legal_turns()
        if env.stage == 0:
            env.step(src)
        assert env.chosen == (src,)
        env.step(dst)
        plain.step(action)
        for a, b in zip(env.unwrapped.get_state(), plain.get_state(), strict=True):
            np.testing.assert_array_equal(a, b)
        assert env.infos == plain.infos
    assert env.rewards == plain.rewards and env.terminations == plain.terminations


def test_dead_steps_and_random_play_to_the_end():
    env = MoveDecomposition(mad_bishops_v0.env(max_steps=300))
    env.reset()
    rng = np.random.default_rng(2)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            with pytest.raises(ValueError, match="None"):
                env.step(0)
            env.step(None)
        else:
            env.step(sample_action(obs["action_mask"], rng))
    steps = int(env.unwrapped.get_state()[1][2])  # aux[STEP]: the actions the game took
    assert env.agents == [] and 0 < env.turn_number == steps <= 300


def test_only_from_to_envs():
    with pytest.raises(
        InvalidWrapperArgument, match=r"from/to actions src \* 100 \+ dst.*use AmazonsTurnDecomposition"
    ):
        MoveDecomposition(amazons_v0.env())
    with pytest.raises(InvalidWrapperArgument, match="AEC env"):
        MoveDecomposition("mad_bishops_v0")
    with pytest.raises(InvalidWrapperArgument, match="from/to actions"):
        MoveDecomposition(MoveDecomposition(mad_bishops_v0.env()))
