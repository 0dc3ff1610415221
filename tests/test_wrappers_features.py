"""ReachPlanes: the board planes plus the cells each side's pieces reach (Amazons: queen
moves; Mad Bishops and Skirmish: the cells each side covers)."""

import numpy as np
import pytest
from pettingzoo.test import api_test

from ggpzoo.envs import amazons_split_v0, amazons_v0, load, mad_bishops_v0
from ggpzoo.envs.amazons import kernel as AK
from ggpzoo.training.single_agent import SingleAgentEnv
from ggpzoo.wrappers import AmazonsTurnDecomposition, InvalidWrapperArgument, MoveDecomposition, ReachPlanes

AMAZONS = ["amazons_v0", "amazons_split_v0"]
DIAGONALS = ((1, 1), (-1, -1), (1, -1), (-1, 1))
DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))


def _reached(board, piece):
    """The empty cells the queens ``piece`` reach in one queen move, in plain Python from the game pages."""
    cells = set()
    for c in np.flatnonzero(board == piece):
        x, y = c % 10, c // 10
        for dx, dy in DIRS:
            cx, cy = x + dx, y + dy
            while 0 <= cx < 10 and 0 <= cy < 10 and board[cy * 10 + cx] == AK.EMPTY:
                cells.add(cy * 10 + cx)
                cx, cy = cx + dx, cy + dy
    return cells


def _covered(board, piece):
    """The cells pieces ``piece`` cover in Mad Bishops, in plain Python from the game pages (docs/games/): empty
    cells along a diagonal up to the first occupied one, and that one (an opposing piece it
    threatens, or a piece of its own side it defends)."""
    cells = set()
    for c in np.flatnonzero(board == piece):
        x, y = c % 10, c // 10
        for dx, dy in DIAGONALS:
            cx, cy = x + dx, y + dy
            while 0 <= cx < 10 and 0 <= cy < 10:
                cells.add(cy * 10 + cx)
                if board[cy * 10 + cx] != 0:
                    break
                cx, cy = cx + dx, cy + dy
    return cells


@pytest.mark.parametrize("factory", ["env", "raw_env"])
@pytest.mark.parametrize("name", [*AMAZONS, "mad_bishops_v0"])
def test_api_test(name, factory):
    api_test(ReachPlanes(getattr(load(name), factory)()), num_cycles=200)


@pytest.mark.parametrize("name", AMAZONS)
def test_planes_are_the_reached_cells_on_random_positions(name):
    env = ReachPlanes(load(name).raw_env())
    plain = load(name).raw_env()
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    plain.reset(seed=0)
    checked = 0
    while not any(plain.terminations.values()):
        board, _ = plain.get_state()
        for agent, own, opp in (("white", AK.WHITE, AK.BLACK), ("black", AK.BLACK, AK.WHITE)):
            obs = env.observe(agent)
            inner = plain.observe(agent)
            np.testing.assert_array_equal(obs["observation"][:, :, :-2], inner["observation"])
            np.testing.assert_array_equal(obs["action_mask"], inner["action_mask"])
            assert set(np.flatnonzero(obs["observation"][:, :, -2])) == _reached(board, own)
            assert set(np.flatnonzero(obs["observation"][:, :, -1])) == _reached(board, opp)
            checked += 1
        action = int(rng.choice(plain.legal_actions()))
        plain.step(action)
        env.step(action)
    assert checked > 60


def test_mad_bishops_planes_are_the_covered_cells():
    """At the start every piece's four diagonal neighbours are opposing pieces, so each side
    covers exactly the opponent's 25 pieces. After a1 x b2 the white piece on b2 is defended
    (by c3, a3 and c1) and no black piece reaches it. Then a plain-Python reference on random play."""
    env = ReachPlanes(mad_bishops_v0.raw_env())
    env.reset(seed=0)
    obs = env.observe("white")["observation"]
    np.testing.assert_array_equal(obs[:, :, 3], obs[:, :, 1])  # white threatens every black piece
    np.testing.assert_array_equal(obs[:, :, 4], obs[:, :, 0])  # and black every white one
    env.step(env.unwrapped.encode_action((1, 1), (2, 2)))
    obs = env.observe("white")["observation"]
    assert obs[1, 1, 0] == 1 and obs[1, 1, 3] == 1 and obs[1, 1, 4] == 0  # b2: white, defended, safe
    assert obs[0, 0, 3] == 1 and obs[0, 0, 4] == 0  # a1, vacated: only b2 reaches the corner
    rng = np.random.default_rng(1)
    checked = 0
    while env.agents and not any(env.terminations.values()):
        board, _ = env.unwrapped.get_state()
        for agent, own, opp in (("white", 1, 2), ("black", 2, 1)):
            obs = env.observe(agent)["observation"]
            assert set(np.flatnonzero(obs[:, :, 3])) == _covered(board, own)
            assert set(np.flatnonzero(obs[:, :, 4])) == _covered(board, opp)
            checked += 1
        env.step(int(rng.choice(env.unwrapped.legal_actions())))
    assert checked > 40


def test_a_walled_in_queen_reaches_nothing():
    """Hand-checked: white's queen on (1,1) boxed in by arrows reaches no cell; black's on (10,10)
    reaches 9 + 9 cells along its rank and file and 7 along the diagonal, (9,9) to (3,3)."""
    rows = [".........B"] + ["." * 10] * 7 + ["xx........", "Wx........"]
    env = ReachPlanes(amazons_v0.raw_env())
    env.reset()
    env.set_state(AK.from_string("\n".join(rows)))
    obs = env.observe("white")["observation"]
    assert obs[:, :, 3].sum() == 0 and obs[:, :, 4].sum() == 9 + 9 + 7
    assert env.observe("black")["observation"][:, :, 3].sum() == 25


def test_under_a_turn_decomposition():
    env = AmazonsTurnDecomposition(ReachPlanes(amazons_v0.env()))
    env.reset()
    assert env.observation_space("white")["observation"].shape == (10, 10, 7)
    env.step(3)  # the queen on (4,1): marked on plane 5, after the two reach planes
    obs = env.last()[0]["observation"]
    assert obs[0, 3, 5] == 1 and obs[:, :, 5].sum() == 1 and obs[:, :, 3].sum() == 58
    split = MoveDecomposition(ReachPlanes(amazons_split_v0.env()))
    split.reset()
    assert split.last()[0]["observation"].shape == (10, 10, 8)


def test_single_agent_env_with_reach_planes():
    env = SingleAgentEnv("amazons_split_v0", decompose=True, shaping=1.0, reach_planes=True)
    obs, _ = env.reset(seed=0)
    assert obs.shape == (10, 10, 8) and env.observation_space.contains(obs)


def test_bad_arguments():
    from pettingzoo.classic import tictactoe_v3

    with pytest.raises(InvalidWrapperArgument, match="ReachPlanes has planes for .*; got the env 'tictactoe_v3'"):
        ReachPlanes(tictactoe_v3.env())
    with pytest.raises(InvalidWrapperArgument, match="inside a turn decomposition"):
        ReachPlanes(AmazonsTurnDecomposition(amazons_v0.env()))
    with pytest.raises(InvalidWrapperArgument, match="AEC env"):
        ReachPlanes("amazons_v0")
