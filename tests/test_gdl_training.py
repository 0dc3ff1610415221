"""Training on GDL games: SingleAgentEnv over a GDL env (observations, masks against the exact
reasoner, rewards from the goals, opponents, refusals), the GDL env's set_state, and
MaskablePPO through SingleAgentEnv and ``python -m ggpzoo train --gdl``."""

import json

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from test_gdl_env import RPS

from ggpzoo import gdl
from ggpzoo.training.single_agent import SingleAgentEnv, evaluate
from ggpzoo.wrappers import GoalReward

_GAMES: dict = {}


def game(name: str) -> gdl.Game:
    """A shipped sheet, loaded (and its network built) once per test run."""
    if name not in _GAMES:
        _GAMES[name] = gdl.load(gdl.game_path(name))
    return _GAMES[name]


def board(*rows: str, control: str) -> list[str]:
    """Tic-tac-toe fluents from three rows of ``x``, ``o``, ``.`` (top row y = 1, columns x = 1..3)."""
    marks = {"x": "x", "o": "o", ".": "b"}
    cells = [f"(cell {x} {y} {marks[c]})" for y, row in enumerate(rows, 1) for x, c in enumerate(row, 1)]
    return cells + [f"(control {control})"]


def legal_by_the_exact_reasoner(g: gdl.Game, env: SingleAgentEnv) -> list[int]:
    """The learner's legal action ids in the env's state, from the exact reasoner (not the network)."""
    raw = env.aec_env.unwrapped
    fluents = frozenset(raw.machine.fluents(raw.get_state()))
    moves = g.legal(fluents, env.learner)
    return sorted(g.action_ids[env.learner][m] for m in moves) if len(moves) > 1 else []


# ----------------------------------------------------------------------------- the env
@pytest.mark.parametrize("opponent", ["random", "mcts:20"])
def test_gymnasium_env_checker(opponent):
    env = SingleAgentEnv(game("tictactoe"), opponent=opponent)
    check_env(env, skip_render_check=True)
    # the observation is the GDL env's fluent vector and the observer's one-hot (no planes)
    g = game("tictactoe")
    assert env.observation_space.shape == (len(g.fluents) + 2,)
    assert env.action_space.n == len(g.actions["xplayer"]) == 10  # noop and the nine marks


def test_observation_is_the_fluent_vector_of_the_learner():
    g = game("tictactoe")
    env = SingleAgentEnv(g, learner="black")
    obs, info = env.reset(seed=0)  # xplayer (the random opponent) has marked one cell
    assert info["learner"] == "oplayer"
    raw = env.aec_env.unwrapped
    true = {gdl.syntax.to_text(f) for f in raw.machine.fluents(raw.get_state())}
    assert {gdl.syntax.to_text(g.fluents[i]) for i in np.flatnonzero(obs[: len(g.fluents)])} == true
    assert "(control oplayer)" in true and sum(t.endswith(" x)") for t in true) == 1
    assert obs[len(g.fluents) :].tolist() == [0, 1]  # the learner's role, one-hot


@pytest.mark.parametrize("sheet", ["tictactoe", "connect_four"])
def test_masks_are_the_legal_moves_and_episodes_end_with_the_goals(sheet):
    """Random episodes on both sides: at every step the mask is the exact reasoner's legal
    set; at the end the reward and outcome are the sign of the goal difference, which is the
    exact reasoner's goals of the final state."""
    g = game(sheet)
    env = SingleAgentEnv(g, opponent="random")
    rng = np.random.default_rng(3)
    seen = set()
    for episode in range(6):  # a seeded reset seats the learner first again: seed only the first
        obs, info = env.reset(seed=3 if episode == 0 else None)
        done, total = False, 0.0
        while not done:
            mask = env.action_masks()
            assert np.flatnonzero(mask).tolist() == legal_by_the_exact_reasoner(g, env)
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert env.observation_space.contains(obs)
            total += reward
            done = terminated or truncated
        assert terminated and not truncated and not env.action_masks().any()
        raw = env.aec_env.unwrapped
        goals = g.goals(frozenset(raw.machine.fluents(raw.get_state())))
        other = next(r for r in g.roles if r != info["learner"])
        assert (info["goal"], info["opponent_goal"]) == (goals[info["learner"]], goals[other])
        assert total == reward == info["outcome"] == np.sign(goals[info["learner"]] - goals[other])
        seen.add(info["learner"])
    assert seen == set(g.roles)


def test_learner_wins_on_its_own_move():
    env = SingleAgentEnv(game("tictactoe"), learner="white")
    state = board("xx.", "oo.", "...", control="xplayer")
    obs, info = env.reset(options={"state": state})
    assert info == {"learner": "xplayer", "goal": 50, "opponent_goal": 50}
    raw = env.aec_env.unwrapped
    obs, reward, terminated, truncated, info = env.step(raw.term_to_action("(mark 3 1)", role="xplayer"))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert (info["goal"], info["opponent_goal"], info["outcome"]) == (100, 0, 1)
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)


def test_learner_loses_on_the_opponents_move():
    """oplayer (the learner) cannot stop both of xplayer's lines; the MCTS opponent's win ends
    the learner's episode at once with -1."""
    env = SingleAgentEnv(game("tictactoe"), opponent="mcts:200", learner="black")
    obs, info = env.reset(seed=0, options={"state": board("xx.", "x.o", ".o.", control="oplayer")})
    raw = env.aec_env.unwrapped
    obs, reward, terminated, truncated, info = env.step(raw.term_to_action("(mark 3 1)", role="oplayer"))
    assert (reward, terminated, info["outcome"]) == (-1.0, True, -1)
    assert (info["goal"], info["opponent_goal"]) == (0, 100)


def test_goal_reward_pays_the_learners_goal():
    env = SingleAgentEnv(game("tictactoe"), reward="goal", learner="black")
    env.reset(options={"state": board("xox", "xo.", "ox.", control="oplayer")})  # either move draws
    assert env.action_masks().sum() == 2
    _, reward, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
    assert terminated and reward == 0.5 and info["outcome"] == 0


def test_a_gdl_aec_env_is_accepted_planes_and_all():
    aec = GoalReward(gdl.env(game("connect_four"), max_steps=5))
    assert aec.possible_agents == ["red", "black"] and "planes" in aec.observation_space("red").spaces
    env = SingleAgentEnv(aec, learner="white")
    obs, _ = env.reset(seed=0)
    assert obs.shape == aec.observation_space("red")["observation"].shape
    done = False
    while not done:  # cut by max_steps: truncated, nothing paid, the goals as they stand
        _, reward, terminated, truncated, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    assert truncated and not terminated and reward == 0.0
    assert (info["goal"], info["opponent_goal"], info["outcome"]) == (50, 50, 0)


def test_simultaneous_game_against_random():
    """Rock-paper-scissors: both roles choose at once; the AEC env asks them in turn."""
    env = SingleAgentEnv(gdl.load(RPS, name="rps"), learner="black")
    rewards = []
    for episode in range(12):
        env.reset(seed=0 if episode == 0 else None)
        assert env.action_masks().sum() == 3
        _, reward, terminated, _, info = env.step(int(np.flatnonzero(env.action_masks())[0]))
        assert terminated and reward == info["outcome"]
        rewards.append(reward)
    assert set(rewards) == {-1.0, 0.0, 1.0}


def test_simultaneous_game_against_mcts_hides_the_learners_choice():
    """In rps_fold the learner (left) chooses first and the MCTS opponent (right) after it, in
    the same step: were the learner's pending "rock" visible, right would answer paper and win
    every game. It searches from the state before the step, so it wins about a third of the
    rounds against always-rock, like any blind player."""
    g = game("rps_fold")
    env = SingleAgentEnv(g, opponent="mcts:50", learner="white")
    rock = gdl.raw_env(g).term_to_action("rock", role="left")
    outcomes = []
    for episode in range(20):
        env.reset(seed=episode)
        terminated = False
        while not terminated:
            _, reward, terminated, _, info = env.step(rock)
        outcomes.append(info["outcome"])
    assert outcomes.count(-1) <= 14 and outcomes.count(-1) + outcomes.count(0) < 20


def test_bad_input_gives_clear_errors():
    g = game("tictactoe")
    with pytest.raises(ValueError, match="'baseline' cannot play gdl:tictactoe"):
        SingleAgentEnv(g, opponent="baseline")
    with pytest.raises(ValueError, match="cannot play gdl:tictactoe"):
        SingleAgentEnv(g, opponent=["random", "baseline"])
    env = SingleAgentEnv(g, opponent=["random"])
    with pytest.raises(ValueError, match="cannot play gdl:tictactoe"):
        env.add_opponent("baseline")
    with pytest.raises(ValueError, match="cannot play gdl:tictactoe"):
        env.set_opponent("baseline")
    with pytest.raises(ValueError, match="gdl:tictactoe has no turn decomposition"):
        SingleAgentEnv(g, decompose=True)
    with pytest.raises(ValueError, match="shaping needs a game with a default potential; gdl:tictactoe has none"):
        SingleAgentEnv(g, shaping=0.1)
    with pytest.raises(ValueError, match="reach_planes needs a game with reach planes"):
        SingleAgentEnv("gdl:tictactoe", reach_planes=True)
    with pytest.raises(ValueError, match="two-player"):
        SingleAgentEnv(gdl.load(RPS.replace("(role right)", "(role right) (role third)"), name="three"))
    with pytest.raises(TypeError, match="GDL game"):
        SingleAgentEnv(3)
    with pytest.raises(ValueError, match="unknown reward"):
        SingleAgentEnv(g, reward="points")
    # a bad state is refused before anything changes
    env.reset(seed=0)
    before = env.aec_env.unwrapped.get_state()
    for state, message in [
        (["(cell 4 1 x)"], "not a fluent of tictactoe"),
        ("(cell 1 1 x)", "a list of the fluents"),
        (np.zeros(3, np.uint8), "fluents"),
        (["(cell 1 1"], "cannot read"),
    ]:
        with pytest.raises(ValueError, match=message):
            env.reset(options={"state": state})
        assert np.array_equal(env.aec_env.unwrapped.get_state(), before)
    with pytest.raises(ValueError, match="integer action id"):
        env.step(1.0)
    obs, reward, terminated, _, info = env.step(int(np.flatnonzero(~env.action_masks())[0]))  # illegal: the end
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)


def test_set_state_on_both_paths():
    """The GDL env continues from a list of fluents on the compiled and the exact path alike, and
    from its own get_state(); a terminal state ends the game with its rewards."""
    g = game("tictactoe")
    state = board("x..", ".o.", "...", control="xplayer")
    envs = [gdl.raw_env(g, backend=b) for b in ("compiled", "exact")]
    for e in envs:
        e.set_state(state)
        assert e.agent_selection == "xplayer" and len(e.legal_terms()) == 7
    assert envs[0].true_fluents() == envs[1].true_fluents() == sorted(envs[1].true_fluents())
    envs[0].set_state(envs[0].get_state())
    assert len(envs[0].legal_terms()) == 7
    with pytest.raises(ValueError, match="compiled path"):
        envs[1].set_state(envs[0].get_state())
    envs[0].set_state(board("ooo", "xx.", "x..", control="xplayer"))
    assert envs[0].is_game_over() and envs[0]._cumulative_rewards == {"xplayer": -1.0, "oplayer": 1.0}
    assert all(envs[0].terminations.values())


# ----------------------------------------------------------------------------- training
def test_maskable_ppo_learns_to_beat_random_at_tictactoe():
    """A short run (about 10 seconds of training on one core) wins clearly more than random
    play, which wins about 44% of its games against random play with sides alternating (58%
    as xplayer, 29% as oplayer)."""
    torch = pytest.importorskip("torch")
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    torch.set_num_threads(1)
    g = game("tictactoe")
    venv = DummyVecEnv([lambda: SingleAgentEnv(g, opponent="random")] * 8)
    venv.seed(0)
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=128, batch_size=256, policy_kwargs={"net_arch": [64, 64]}, seed=0, device="cpu"
    )
    before = evaluate(model, g, "random", 100, seed=1000)
    model.learn(8 * 128 * 8)
    after = evaluate(model, g, "random", 100, seed=1000)
    assert after["games"] == 100 and after["wins"] + after["draws"] + after["losses"] == 100
    assert after["ci95"][0] > 0.5 and after["wins"] > before["wins"] + 15, (before, after)


def test_train_command_on_a_gdl_sheet_saves_loads_and_resumes(tmp_path, capsys, monkeypatch):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from ggpzoo.agents.weights import load_policy
    from ggpzoo.tools.cli import main
    from ggpzoo.training import selfplay

    built = []  # every game trains on the one batched self-play env, MCTS opponents included
    make_games = selfplay.make_games

    def recorded(name, *args, **kwargs):
        built.append((name.name, kwargs["opponents"]))
        return make_games(name, *args, **kwargs)

    monkeypatch.setattr(selfplay, "make_games", recorded)
    args = ["train", "--gdl", "tictactoe", "--out", str(tmp_path), "--no-progress", "--eval-games", "20"]
    args += ["--final-eval-games", "20", "--set", "n_envs=4", "--set", "n_steps=32", "--set", "batch_size=64"]
    args += ["--set", 'opponents={"random": 1, "mcts:10": 1}', "--set", "snapshot_every=128"]
    assert main(args + ["--timesteps", "256"]) == 0
    assert built[0] == ("gdl:tictactoe", ["random", "mcts:10"])  # training; then the evaluations
    run = tmp_path / "gdl_tictactoe"
    assert "gdl_tictactoe: 256 steps" in capsys.readouterr().out
    summary = json.loads((run / "summary.json").read_text())
    assert summary["env"] == "gdl_tictactoe" and summary["timesteps"] == 256
    assert [r["opponent"] for r in summary["final"]] == ["random", "greedy"] and summary["final"][0]["games"] == 20
    assert sorted(p.name for p in run.glob("snapshot-*.zip")) == ["snapshot-128.zip", "snapshot-256.zip"]
    model = MaskablePPO.load(run / "model.zip", device="cpu")
    policy = load_policy(str(run / "policy.json"))
    assert policy.env_name == "gdl_tictactoe"
    obs, _ = SingleAgentEnv(game("tictactoe"), learner="white").reset(seed=0)
    mask = np.zeros(10, bool)
    mask[1:] = True
    a, _ = model.predict(obs, action_masks=mask, deterministic=True)
    b, _ = policy.predict(obs, action_masks=mask, deterministic=True)
    assert int(a) == int(b) and mask[int(a)]
    assert main(args + ["--timesteps", "128", "--resume"]) == 0  # 128 more
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 384
    # what a GDL game cannot train with is refused before anything is written
    assert main(["train", "--gdl", "tictactoe", "--out", str(tmp_path / "x"), "--set", "policy=cell"]) == 1
    assert "policy 'cell' scores the cells of board planes" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()
    assert main(["train", "--gdl", "tictactoe", "--out", str(tmp_path / "y"), "--set", "shaping=1"]) == 1
    assert "gdl:tictactoe has no potential" in capsys.readouterr().err
    assert not (tmp_path / "y").exists()
