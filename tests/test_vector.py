"""The batched engine plays exactly the games the AEC envs play."""

import numpy as np
import pytest

from ggpzoo.engine.batch import VectorGames
from ggpzoo.engine.batch import play_games as play
from ggpzoo.envs import ENVS, load

NAMES = list(ENVS)


def _assert_same(games, envs, dense_masks):
    """Game i of the batch and ``envs[i]`` are in the same state, step for step."""
    boards, auxs = games.boards, games.auxs
    actions, counts = games.legal_actions()
    masks = games.action_masks() if dense_masks else None
    obs = games.observe()
    for i, env in enumerate(envs):
        b, a = env.get_state()
        np.testing.assert_array_equal(boards[i], b)
        np.testing.assert_array_equal(auxs[i], a)
        over = all(env.terminations.values())
        assert bool(games.terminal[i]) == over
        assert tuple(games.goals[i]) == (env.infos["white"]["goal"], env.infos["black"]["goal"])
        if over:
            continue
        np.testing.assert_array_equal(actions[i, : counts[i]], env.legal_actions())
        raw_obs = env.observe(env.agent_selection)
        np.testing.assert_array_equal(obs[i], raw_obs["observation"])
        if dense_masks:
            np.testing.assert_array_equal(masks[i], raw_obs["action_mask"])


@pytest.mark.parametrize("num_games", [1, 3, 257])
@pytest.mark.parametrize("name", NAMES)
def test_batch_plays_the_same_games_as_the_aec_env(name, num_games):
    games = VectorGames(name, num_games, auto_reset=False)
    games.reset()
    envs = [load(name).raw_env() for _ in range(num_games)]
    for env in envs:
        env.reset()
    dense = num_games <= 3
    _assert_same(games, envs, dense)
    step = 0
    while not games.terminal.all():
        actions = games.random_actions(seed=step) if step % 3 else games.greedy_actions(seed=step)
        assert ((actions == -1) == games.terminal).all()
        result = games.step(np.where(actions < 0, 0, actions))
        for i, env in enumerate(envs):
            if actions[i] >= 0:
                env.step(int(actions[i]))
                if result.finished[i]:
                    expected = (env.infos["white"]["goal"], env.infos["black"]["goal"])
                    assert tuple(result.final_goals[i]) == expected
                    assert tuple(result.rewards[i]) == (env.rewards["white"], env.rewards["black"])
                    assert result.lengths[i] == env.get_state()[1][2]
                else:
                    assert tuple(result.rewards[i]) == (0.0, 0.0)
        _assert_same(games, envs, dense)
        step += 1
    assert len(games.pop_results()) == num_games


@pytest.mark.parametrize("name", NAMES)
def test_auto_reset_reports_each_finished_game_once(name):
    games = VectorGames(name, 16, auto_reset=True)
    games.reset()
    start_board, start_aux = games.boards[0].copy(), games.auxs[0].copy()
    finished_total = 0
    lengths = []
    for step in range(400):
        result = games.step(games.random_actions(seed=step))
        finished_total += int(result.finished.sum())
        for i in np.flatnonzero(result.finished):
            # the game restarted at once, from the start position
            np.testing.assert_array_equal(games.boards[i], start_board)
            np.testing.assert_array_equal(games.auxs[i], start_aux)
            assert not games.terminal[i]
            lengths.append(int(result.lengths[i]))
    assert finished_total >= 16  # every game ended at least once in 400 steps
    results = games.pop_results()
    assert len(results) == finished_total
    assert [r[2] for r in results] == lengths
    assert games.pop_results() == []  # reported once


def test_illegal_action_raises_and_changes_nothing():
    games = VectorGames("skirmish_v0", 4)
    games.reset()
    before = games.boards.copy(), games.auxs.copy()
    actions = games.random_actions(seed=1).astype(np.int64)
    actions[2] = 0  # (1,1)->(1,1) is never legal
    with pytest.raises(ValueError, match="game 2: action 0 is illegal"):
        games.step(actions)
    np.testing.assert_array_equal(games.boards, before[0])
    np.testing.assert_array_equal(games.auxs, before[1])
    actions[2] = 2**32 + int(actions[1])  # would wrap to a legal id in int32
    with pytest.raises(ValueError, match=r"game 2: action 42949\d+ is out of range 0..4095"):
        games.step(actions)
    np.testing.assert_array_equal(games.auxs, before[1])
    with pytest.raises(ValueError, match="integer array of shape"):
        games.step(np.zeros(3, np.int64))
    with pytest.raises(ValueError, match="integer array of shape"):
        games.step(np.zeros(4, np.float32))


def test_finished_games_wait_without_auto_reset():
    games = VectorGames("skirmish_endgame_v0", 2, auto_reset=False)
    games.reset()
    while not games.terminal.all():
        games.step(np.maximum(games.random_actions(seed=int(games.auxs[:, 2].sum())), 0))
    with pytest.raises(RuntimeError, match="call reset"):
        games.step(np.zeros(2, np.int64))
    games.reset(np.array([True, False]))
    assert not games.terminal[0] and games.terminal[1]
    assert games.auxs[0, 2] == 0


def test_bad_arguments():
    with pytest.raises(ValueError, match="unknown environment"):
        VectorGames("go_v5", 4)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="num_games"):
            VectorGames("amazons_v0", bad)
    with pytest.raises(ValueError, match="unknown policy"):
        play("amazons_v0", 2, white="alphazero")


@pytest.mark.parametrize("name", NAMES)
def test_play_whole_games(name):
    goals, lengths = play(name, 64, seed=3)
    again = play(name, 64, seed=3)
    np.testing.assert_array_equal(goals, again[0])  # seeded: the same games, whatever the threads
    np.testing.assert_array_equal(lengths, again[1])
    other_goals, other_lengths = play(name, 64, seed=4)
    assert not (np.array_equal(goals, other_goals) and np.array_equal(lengths, other_lengths))
    assert ((goals >= 0) & (goals <= 100)).all() and (lengths > 0).all()


def test_greedy_beats_random_at_skirmish():
    goals, _ = play("skirmish_v0", 400, white="greedy", black="random", seed=5)
    wins = (goals[:, 0] > goals[:, 1]).mean()
    assert wins > 0.8
    goals, _ = play("skirmish_v0", 400, white="random", black="greedy", seed=6)
    assert (goals[:, 1] > goals[:, 0]).mean() > 0.8
