"""PotentialShaping: weight * (phi(after) - phi(before)) per step, phi = 0 at the end by the rules."""

import numpy as np
import pytest
from pettingzoo.test import api_test

from ggpzoo.envs import amazons_split_v0, amazons_v0, load, mad_bishops_v0, skirmish_v0
from ggpzoo.envs.amazons import kernel as AK
from ggpzoo.envs.amazons.spec import mobility_balance as amazons_mobility
from ggpzoo.envs.mad_bishops.spec import material_balance as mad_bishops_material
from ggpzoo.utils import sample_action
from ggpzoo.wrappers import (
    POTENTIALS,
    InvalidWrapperArgument,
    MoveDecomposition,
    PotentialShaping,
    WinLossReward,
)

SHAPED = list(POTENTIALS)
DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))


def _reach(board, c):
    """Empty cells a queen on cell c reaches in one queen move, in plain Python from docs/games/amazons_v0.md."""
    x, y = c % 10, c // 10
    n = 0
    for dx, dy in DIRS:
        cx, cy = x + dx, y + dy
        while 0 <= cx < 10 and 0 <= cy < 10 and board[cy * 10 + cx] == AK.EMPTY:
            n, cx, cy = n + 1, cx + dx, cy + dy
    return n


def _play(env, seed):
    """A uniformly random game through ``last()``: what each agent collected, and every reward seen."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    collected = dict.fromkeys(env.possible_agents, 0.0)
    seen = []
    for agent in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        collected[agent] += reward
        seen.append(reward)
        env.step(None if term or trunc else sample_action(obs["action_mask"], rng))
    return collected, seen


@pytest.mark.parametrize("factory", ["env", "raw_env"])
@pytest.mark.parametrize("name", SHAPED)
def test_api_test(name, factory):
    api_test(PotentialShaping(WinLossReward(getattr(load(name), factory)())), num_cycles=200)


def test_mobility_counts_queen_moves():
    """Hand-checked: a queen in a corner reaches 9 + 9 + 8 cells; an arrow on the diagonal cuts 8 of them."""
    rows = [".........B"] + ["." * 10] * 9
    rows[-1] = "W........."
    board, aux = AK.from_string("\n".join(rows))
    assert AK.mobility(board) == (26, 26) and amazons_mobility(board, aux) == 0.0
    rows[-2] = ".x........"  # an arrow on (2,2)
    board, aux = AK.from_string("\n".join(rows))
    assert AK.mobility(board) == (18, 25)
    assert amazons_mobility(board, aux) == pytest.approx((18 - 25) / 43)


def test_mobility_matches_plain_python_on_random_positions():
    env = amazons_v0.raw_env()
    rng = np.random.default_rng(0)
    checked = 0
    for game in range(3):
        env.reset(seed=game)
        while not any(env.terminations.values()):
            board, _ = env.get_state()
            white = sum(_reach(board, c) for c in range(100) if board[c] == AK.WHITE)
            black = sum(_reach(board, c) for c in range(100) if board[c] == AK.BLACK)
            assert AK.mobility(board) == (white, black)
            checked += 1
            env.step(int(rng.choice(env.legal_actions())))
    assert checked > 60


def test_mad_bishops_capture_pays_the_capturer_through_last():
    """a1 x b2 leaves 25 white and 24 black pieces: white's potential rises to 1/49, black's falls to -1/49."""
    env = PotentialShaping(WinLossReward(mad_bishops_v0.env()), weight=2.0)
    env.reset()
    assert env.potentials() == {"white": 0.0, "black": 0.0}
    env.step(env.unwrapped.encode_action((1, 1), (2, 2)))
    assert env.rewards == pytest.approx({"white": 2 / 49, "black": -2 / 49})
    assert env.agent_selection == "black" and env.last()[1] == pytest.approx(-2 / 49)
    assert mad_bishops_material(*env.unwrapped.get_state()) == pytest.approx(1 / 49)


@pytest.mark.parametrize("name", SHAPED)
def test_a_games_return_is_the_unshaped_return(name):
    """The shaping rewards of a whole game sum to 0, so each agent's return is its win/loss."""
    for seed in range(2):
        shaped, seen = _play(PotentialShaping(WinLossReward(load(name).env()), weight=0.7), seed)
        plain, _ = _play(WinLossReward(load(name).env()), seed)
        assert shaped == pytest.approx(plain, abs=1e-9)
        assert sorted(plain.values()) == [-1.0, 1.0]
        assert sum(r != 0 for r in seen) > 10  # it did shape: rewards before the end


def test_the_end_by_the_rules_has_potential_zero():
    """A constant potential pays nothing during the game and takes itself back at the end."""
    env = PotentialShaping(WinLossReward(mad_bishops_v0.raw_env()), potential=lambda board, aux: 0.5, weight=1.0)
    collected, seen = _play(env, 3)
    plain, _ = _play(WinLossReward(mad_bishops_v0.raw_env()), 3)
    winner = max(plain, key=plain.get)
    # white's potential went from 0.5 to 0 (-0.5), black's from -0.5 to 0 (+0.5), on the last step
    assert collected == pytest.approx({"white": plain["white"] - 0.5, "black": plain["black"] + 0.5})
    assert sum(r != 0 for r in seen) == 2 and plain[winner] == 1.0


def test_truncation_keeps_the_last_potential():
    env = PotentialShaping(WinLossReward(amazons_split_v0.raw_env(max_steps=9)), weight=1.5)
    plain = WinLossReward(amazons_split_v0.raw_env(max_steps=9))
    collected, _ = _play(env, 4)
    unshaped, _ = _play(plain, 4)
    assert unshaped == {"white": 0.0, "black": 0.0}
    value = amazons_mobility(*env.unwrapped.get_state())
    assert value != 0 and collected == pytest.approx({"white": 1.5 * value, "black": -1.5 * value})


def test_under_a_move_decomposition_the_destination_pays():
    env = MoveDecomposition(PotentialShaping(WinLossReward(mad_bishops_v0.env())))
    env.reset()
    env.step(0)  # the piece on a1
    assert env.rewards == {"white": 0.0, "black": 0.0}
    env.step(11)  # takes b2
    assert env.rewards == pytest.approx({"white": 1 / 49, "black": -1 / 49})


def test_amazons_decomposition_pays_the_queens_move_at_the_destination():
    """Through AmazonsTurnDecomposition the destination pays w * (phi(queen moved) - phi(before))
    and the arrow the rest: each turn pays what the undecomposed turn pays, to both agents."""
    from ggpzoo.wrappers import AmazonsTurnDecomposition

    env = AmazonsTurnDecomposition(PotentialShaping(WinLossReward(amazons_v0.raw_env()), weight=2.0))
    plain = PotentialShaping(WinLossReward(amazons_v0.raw_env()), weight=2.0)
    rng = np.random.default_rng(6)
    env.reset(seed=0)
    plain.reset(seed=0)
    turns = 0
    while not any(plain.terminations.values()):
        turn = int(rng.choice(plain.unwrapped.legal_actions()))
        queen, destination, arrow = env.turn_steps(turn)
        before = amazons_mobility(*plain.unwrapped.get_state())
        env.step(queen)
        assert env.rewards == {"white": 0.0, "black": 0.0}
        env.step(destination)
        board, aux = plain.unwrapped.get_state()
        board[destination], board[queen] = board[queen], AK.EMPTY
        moved = 2.0 * (amazons_mobility(board, aux) - before)  # white's change; black's is the negative
        assert env.rewards == pytest.approx({"white": moved, "black": -moved})
        env.step(arrow)
        plain.step(turn)
        total = {a: env.rewards[a] + (moved if a == "white" else -moved) for a in env.rewards}
        assert total == pytest.approx(plain.rewards, abs=1e-12)
        turns += 1
    assert turns > 20 and all(env.terminations.values()) and sorted(plain.rewards.values())[0] < 0


def test_amazons_shaping_follows_mobility():
    """A turn that walls in a black queen pays white the rise of its mobility balance."""
    env = PotentialShaping(amazons_v0.raw_env(), weight=1.0)
    env.reset()
    before = amazons_mobility(*env.unwrapped.get_state())
    env.step(env.unwrapped.encode_action((4, 1), (4, 6), (4, 9)))  # the arrow just under black's (4,10)
    after = amazons_mobility(*env.unwrapped.get_state())
    assert before == 0.0 and after > 0
    assert env.rewards == pytest.approx({"white": after, "black": -after})


def test_bad_arguments():
    with pytest.raises(InvalidWrapperArgument, match="no default potential for the env 'skirmish_v0'"):
        PotentialShaping(skirmish_v0.env())
    PotentialShaping(skirmish_v0.env(), potential=lambda board, aux: 0.0)  # a potential of one's own is fine
    with pytest.raises(InvalidWrapperArgument, match="weight must be a finite number"):
        PotentialShaping(amazons_v0.env(), weight=True)
    with pytest.raises(InvalidWrapperArgument, match="weight must be a finite number"):
        PotentialShaping(amazons_v0.env(), weight=float("nan"))
    with pytest.raises(InvalidWrapperArgument, match="potential must be a function"):
        PotentialShaping(amazons_v0.env(), potential="mobility")
    with pytest.raises(InvalidWrapperArgument, match="AEC env"):
        PotentialShaping("amazons_v0")


@pytest.mark.parametrize(
    "module",
    ["ggpzoo.wrappers.rewards", "ggpzoo.wrappers.turns", "ggpzoo.wrappers.shaping", "ggpzoo.wrappers.features"],
)
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module))
    assert result.attempted > 0 and result.failed == 0
