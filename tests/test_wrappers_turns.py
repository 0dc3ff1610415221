"""AmazonsTurnDecomposition: each amazons_v0 turn as queen, destination and arrow choices."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from ggpzoo.envs import amazons_v0, skirmish_v0
from ggpzoo.envs.amazons import kernel as K
from ggpzoo.utils import sample_action
from ggpzoo.wrappers import AmazonsTurnDecomposition, GoalDeltaReward, InvalidWrapperArgument, WinLossReward

FACTORIES = [amazons_v0.env, amazons_v0.raw_env]
# White to move; (1,1)->(1,2) with the arrow on (2,1) shuts the black queen in: white wins.
WIN_IN_ONE = "\n".join(["xxxxxxxxxx"] * 8 + [".xxxxxxxxx", "W.Bxxxxxxx"])


def _cells(mask):
    return set(np.flatnonzero(mask).tolist())


@pytest.mark.parametrize("factory", FACTORIES)
def test_api_test(factory):
    api_test(AmazonsTurnDecomposition(factory()), num_cycles=300)
    api_test(AmazonsTurnDecomposition(GoalDeltaReward(factory(), zero_sum=True)), num_cycles=300)


def test_seed_test():
    seed_test(lambda: AmazonsTurnDecomposition(amazons_v0.env()), num_cycles=100)


def test_spaces():
    env = AmazonsTurnDecomposition(amazons_v0.env())
    for agent in env.possible_agents:
        assert env.action_space(agent).n == 100
        assert env.observation_space(agent)["observation"].shape == (10, 10, 5)
        assert env.observation_space(agent)["action_mask"].shape == (100,)
        assert env.observation_space(agent) is env.observation_space(agent)


def test_masks_reach_exactly_the_legal_turns():
    """Every path through the three masks is a legal amazons_v0 turn, and every legal turn is one."""
    env = AmazonsTurnDecomposition(amazons_v0.raw_env())
    plain = amazons_v0.raw_env()
    rng = np.random.default_rng(0)
    env.reset()
    plain.reset()
    for _ in range(6):  # the start position and five random positions after it
        legal = {tuple(int(c) for c in K.DECODE[a]) for a in plain.legal_actions()}
        reached = set()
        state = plain.get_state()
        for q in _cells(env.observe(env.agent_selection)["action_mask"]):
            env.set_state(state)
            env.step(q)
            for d in _cells(env.observe(env.agent_selection)["action_mask"]):
                env.set_state(state)
                env.step(q)
                env.step(d)
                np.testing.assert_array_equal(env.legal_actions(), np.flatnonzero(env.last()[0]["action_mask"]))
                reached |= {(q, d, a) for a in _cells(env.last()[0]["action_mask"])}
        assert reached == legal
        turn = int(plain.legal_actions()[rng.integers(len(plain.legal_actions()))])
        plain.step(turn)
        env.set_state(plain.get_state())
    assert len(legal) > 0


def test_a_turn_in_three_choices():
    env = AmazonsTurnDecomposition(amazons_v0.env())
    env.reset()
    obs = env.last()[0]
    assert _cells(obs["action_mask"]) == {3, 6, 30, 39}  # the white queens' cells
    assert not obs["observation"][:, :, 3:].any()
    env.step(3)  # queen (4,1)
    assert env.agent_selection == "white" and env.stage == 1 and env.queen == 3
    obs = env.last()[0]
    assert obs["observation"][0, 3, 3] == 1 and obs["observation"][:, :, 3].sum() == 1
    # destinations of (4,1): up the file to (4,9), the diagonals, along rank 1 between the queens
    assert 43 in _cells(obs["action_mask"]) and 93 not in _cells(obs["action_mask"])
    env.step(43)  # destination (4,5)
    assert env.stage == 2 and env.destination == 43
    obs = env.last()[0]
    assert obs["observation"][4, 3, 4] == 1
    assert 3 in _cells(obs["action_mask"])  # the arrow may land on the vacated origin
    assert env.unwrapped.get_state()[1][K.STEP] == 0  # the game has not moved yet
    env.step(3)
    assert env.agent_selection == "black" and env.stage == 0
    board, aux = env.unwrapped.get_state()
    assert aux[K.STEP] == 1 and board[43] == K.WHITE and board[3] == K.ARROW
    # black sees no mask of its own until it is to move, and white none now
    assert not env.observe("white")["action_mask"].any()
    assert env.observe("black")["action_mask"].sum() == 4


@pytest.mark.parametrize("reach", [False, True])
def test_the_arrow_stage_shows_the_queen_moved(reach):
    """At the arrow stage the board planes (and reach planes) are those of amazons_split_v0's
    fire step after the same move: the queen stands on its destination, its origin is empty."""
    from ggpzoo.envs import amazons_split_v0
    from ggpzoo.wrappers import ReachPlanes

    wrap = ReachPlanes if reach else (lambda e: e)
    env = AmazonsTurnDecomposition(wrap(amazons_v0.raw_env()))
    split = wrap(amazons_split_v0.raw_env())
    rng = np.random.default_rng(5)
    env.reset(seed=0)
    split.reset(seed=0)
    for _ in range(12):  # six turns each side, checked at every arrow stage
        turn = int(rng.choice(env.legal_turns()))
        queen, destination, arrow = env.turn_steps(turn)
        env.step(queen)
        before = env.last()[0]["observation"]
        env.step(destination)
        split.step(queen * 100 + destination)
        for agent in env.possible_agents:
            obs, fire = env.observe(agent)["observation"], split.observe(agent)["observation"]
            np.testing.assert_array_equal(obs[:, :, :3], fire[:, :, :3])
            if reach:
                np.testing.assert_array_equal(obs[:, :, 3:5], fire[:, :, 5:7])
            marks = obs[:, :, -2:]
            assert marks[queen // 10, queen % 10, 0] == 1 and marks[destination // 10, destination % 10, 1] == 1
        mover = obs if env.agent_selection == "black" else env.observe(env.agent_selection)["observation"]
        assert mover[destination // 10, destination % 10, 0] == 1 and mover[queen // 10, queen % 10, 0] == 0
        assert before[queen // 10, queen % 10, 0] == 1  # before the destination: the board as it is
        env.step(arrow)
        split.step(destination * 100 + arrow)


def test_other_agent_sees_no_mask_and_the_partial_choice():
    env = AmazonsTurnDecomposition(amazons_v0.raw_env())
    env.reset()
    env.step(3)
    obs = env.observe("black")
    assert not obs["action_mask"].any()
    assert obs["observation"][0, 3, 3] == 1


@pytest.mark.parametrize("factory", FACTORIES)
def test_winning_turn_pays_through_last(factory):
    env = AmazonsTurnDecomposition(WinLossReward(factory()))
    env.reset()
    env.set_state(K.from_string(WIN_IN_ONE))
    for cell in (0, 10):  # queen (1,1), destination (1,2): no reward yet
        env.step(cell)
        assert env.rewards == {"white": 0.0, "black": 0.0}
        assert not any(env.terminations.values())
    env.step(1)  # arrow (2,1)
    assert env.rewards == {"white": 1.0, "black": -1.0}
    assert env.agent_selection == "black" and env.last()[1:3] == (-1.0, True)
    env.step(None)
    assert env.last()[1:3] == (1.0, True)
    env.step(None)
    assert env.agents == []


def test_illegal_choices_raise_and_change_nothing():
    env = AmazonsTurnDecomposition(amazons_v0.env())
    env.reset()
    with pytest.raises(ValueError, match=r"action 40 = \(1,5\) is illegal as white's queen: no white queen"):
        env.step(40)
    with pytest.raises(ValueError, match="out of range"):
        env.step(100)
    with pytest.raises(ValueError, match="integer cell id"):
        env.step(2.0)
    with pytest.raises(ValueError, match="bool"):
        env.step(True)
    assert env.stage == 0
    env.step(np.int64(3))
    with pytest.raises(ValueError, match=r"the queen at \(4,1\) cannot move there"):
        env.step(93)  # (4,10) holds a black queen
    env.step(43)
    with pytest.raises(ValueError, match=r"no arrow from \(4,5\) can land there"):
        env.step(93)
    assert env.stage == 2 and env.unwrapped.get_state()[1][K.STEP] == 0


def test_random_games_match_amazons_v0():
    """Turns played through the decomposition are the turns of amazons_v0, to the end."""
    env = AmazonsTurnDecomposition(amazons_v0.raw_env())
    plain = amazons_v0.raw_env()
    rng = np.random.default_rng(1)
    for game in range(2):
        env.reset(seed=game)
        plain.reset(seed=game)
        while plain.agents and not any(plain.terminations.values()):
            turn = int(plain.legal_actions()[rng.integers(len(plain.legal_actions()))])
            for cell in env.turn_steps(turn):
                assert turn in env.legal_turns()
                env.step(cell)
            plain.step(turn)
            for a, b in zip(env.unwrapped.get_state(), plain.get_state(), strict=True):
                np.testing.assert_array_equal(a, b)
        assert env.rewards == plain.rewards and all(env.terminations.values())


def test_dead_steps_and_random_play_to_the_end():
    env = AmazonsTurnDecomposition(amazons_v0.env())
    env.reset()
    rng = np.random.default_rng(2)
    steps = 0
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            with pytest.raises(ValueError, match="None"):
                env.step(0)
            env.step(None)
        else:
            env.step(sample_action(obs["action_mask"], rng))
            steps += 1
    assert steps % 3 == 0 and env.agents == []


def test_max_steps_counts_turns():
    env = AmazonsTurnDecomposition(amazons_v0.raw_env(max_steps=2))
    env.reset()
    rng = np.random.default_rng(3)
    choices = 0
    while not any(env.truncations.values()):
        env.step(sample_action(env.last()[0]["action_mask"], rng))
        choices += 1
    assert choices == 6


def test_only_amazons_v0():
    with pytest.raises(InvalidWrapperArgument, match="decomposes amazons_v0 turns, got the env 'skirmish_v0'"):
        AmazonsTurnDecomposition(skirmish_v0.env())
    with pytest.raises(InvalidWrapperArgument, match="AEC env"):
        AmazonsTurnDecomposition("amazons_v0")
    with pytest.raises(InvalidWrapperArgument, match=r"Discrete\(86980\) turns.*Discrete\(100\)"):
        AmazonsTurnDecomposition(AmazonsTurnDecomposition(amazons_v0.env()))


def test_works_from_the_mask_alone():
    """On a wrapped env without ggpzoo's legal_actions(), the turns come from the action mask."""
    from pettingzoo.utils.wrappers import BaseWrapper

    class MaskOnly(BaseWrapper):
        def __getattr__(self, name):
            if name == "legal_actions":
                raise AttributeError(name)
            return super().__getattr__(name)

    plain = AmazonsTurnDecomposition(amazons_v0.raw_env())
    masked = AmazonsTurnDecomposition(MaskOnly(amazons_v0.raw_env()))
    assert not hasattr(masked.env, "legal_actions")
    rng = np.random.default_rng(4)
    plain.reset()
    masked.reset()
    for _ in range(30):
        obs = plain.last()[0]
        np.testing.assert_array_equal(obs["action_mask"], masked.last()[0]["action_mask"])
        np.testing.assert_array_equal(plain.legal_turns(), masked.legal_turns())
        cell = sample_action(obs["action_mask"], rng)
        plain.step(cell)
        masked.step(cell)
