"""Agents: legal actions on random positions of every env, search correctness on drawn
positions, seeds, budgets, spec strings, SB3 models, and stronger-is-stronger."""

import doctest

import numpy as np
import pytest
from helpers import random_positions

from ggpzoo.agents import (
    Agent,
    AgentSpecError,
    GreedyAgent,
    MCTSAgent,
    RandomAgent,
    SB3Agent,
    make_agent,
)
from ggpzoo.envs import ENVS, load
from ggpzoo.envs.amazons import kernel as AK
from ggpzoo.envs.skirmish import kernel as SK
from ggpzoo.tools.arena import play_game, round_robin

NAMES = list(ENVS)


@pytest.mark.parametrize("name", NAMES)
def test_agents_play_legal_actions_on_random_positions(name):
    env = load(name).raw_env()
    agents = [RandomAgent(seed=1), GreedyAgent(name, seed=2), MCTSAgent(name, simulations=40, seed=3)]
    for state in random_positions(name, 6, seed=len(name)):
        env.set_state(state)
        legal = set(env.legal_actions().tolist())
        for agent in agents:
            action = agent.act(env)
            assert type(action) is int and action in legal, (agent, env.board_string())
        # agents search copies: the state they were given is untouched
        np.testing.assert_array_equal(env.get_state()[0], state[0])
        np.testing.assert_array_equal(env.get_state()[1], state[1])


def test_amazons_split_both_phases():
    """The fire step is the same role's second action: agents answer it with a fire."""
    env = load("amazons_split_v0").raw_env()
    env.reset()
    mcts = MCTSAgent("amazons_split_v0", simulations=200, seed=0)
    for _ in range(6):
        phase = env.phase
        a = mcts.act(env)
        assert a in env.legal_actions()
        mover = env.agent_selection
        env.step(a)
        assert (env.agent_selection == mover) == (phase == "move")


# A position where white must trap black's queen this turn: white's queen can only go to
# (10,2); firing at (2,10) (or (3,9), a win one turn later) wins, while firing at (10,1)
# lets black trap white by firing at (9,3).
TRAP = """
B . x . . . . . . .
x x . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . x
. . . . . . . . x .
. . . . . . . . x W
"""


@pytest.mark.parametrize("name, variant", [("amazons_v0", AK.AMAZONS), ("amazons_split_v0", AK.SPLIT)])
@pytest.mark.parametrize("value", ["outcome", "goal", "margin"])
def test_mcts_wins_a_won_amazons_position(name, variant, value):
    env = load(name).raw_env()
    env.set_state(AK.from_string(TRAP, variant=variant))
    white = MCTSAgent(name, simulations=300, seed=0, value=value)
    black = MCTSAgent(name, simulations=300, seed=1, value=value)
    while not env.terminations["white"]:
        env.step((white if env.agent_selection == "white" else black).act(env))
    assert env.rewards == {"white": 1.0, "black": -1.0}


@pytest.mark.parametrize("name, variant", [("amazons_v0", AK.AMAZONS), ("amazons_split_v0", AK.SPLIT)])
def test_greedy_takes_the_immediate_win(name, variant):
    """In amazons_split the goals do not tell a win (the role to act always has 0): the
    end of the game does."""
    env = load(name).raw_env()
    env.set_state(AK.from_string(TRAP, variant=variant))
    greedy = GreedyAgent(name, seed=0)
    while env.agent_selection == "white":
        env.step(greedy.act(env))
    assert env.rewards == {"white": 1.0, "black": -1.0}
    assert env.last_action_cells()[-1] == AK.N - 9  # the arrow on (2,10)


def test_the_losing_fire_loses():
    """The check above can fail: after the fire at (10,1), black wins (so the search must avoid it)."""
    env = load("amazons_split_v0").raw_env()
    env.set_state(AK.from_string(TRAP, variant=AK.SPLIT))
    env.step(env.encode_action((10, 1), (10, 2)))
    env.step(env.encode_action((10, 2), (10, 1)))
    black = MCTSAgent("amazons_split_v0", simulations=300, seed=0)
    while not env.terminations["white"]:
        env.step(black.act(env) if env.agent_selection == "black" else int(env.legal_actions()[0]))
    assert env.rewards == {"white": -1.0, "black": 1.0}


# Skirmish endgame at its last action (step 58 of 59), captures 3-3: capturing wins 4-3,
# any other move draws.
LAST_CAPTURE = """
. . . . . . . .
. . . . . . . .
. . # . . # . .
. . . . . . . .
. . . . r . . .
. . # . . # . .
. . . . . . . .
. . . . R . . .
"""


@pytest.mark.parametrize("value", ["outcome", "goal", "margin"])
def test_mcts_and_greedy_take_the_winning_capture(value):
    state = SK.from_string(LAST_CAPTURE, variant=SK.ENDGAME, step=58, captures=(3, 3))
    env = load("skirmish_endgame_v0").raw_env()
    env.set_state(state)
    capture = env.encode_action((5, 1), (5, 4))
    assert len(env.legal_actions()) > 5
    assert MCTSAgent("skirmish_endgame_v0", simulations=100, seed=0, value=value)(state) == capture
    assert GreedyAgent("skirmish_endgame_v0", seed=0)(state) == capture
    env.step(capture)
    assert env.rewards == {"white": 1.0, "black": -1.0}


def test_mcts_is_reproducible_and_keeps_its_budget():
    state = random_positions("skirmish_v0", 1, seed=5)[0]
    a = MCTSAgent("skirmish_v0", simulations=300, seed=7)
    b = MCTSAgent("skirmish_v0", simulations=300, seed=7)
    assert [a(state) for _ in range(3)] == [b(state) for _ in range(3)]
    assert a.last_search["simulations"] == 300
    assert 1 < a.last_search["nodes"] <= 301
    assert 0 < a.last_search["visits"] <= 300 and 0 <= a.last_search["value"] <= 1
    a.reset(seed=7)
    b.reset(seed=7)
    assert a(state) == b(state)


def test_mcts_seconds_budget_grows_its_tree(monkeypatch):
    import ggpzoo.agents.mcts as M

    agent = MCTSAgent("skirmish_endgame_v0", seconds=0.15, seed=0)
    original = M.MCTSAgent._tables

    def small_tables(self, capacity):  # start from a 16-node table to force growing it
        return original(self, min(capacity, 16))

    monkeypatch.setattr(M.MCTSAgent, "_tables", small_tables)
    env = load("skirmish_endgame_v0").raw_env()
    env.reset()
    action = agent(env.get_state())
    info = agent.last_search
    assert action in env.legal_actions()
    assert 0.15 <= info["seconds"] < 1.5
    assert info["simulations"] > 16 and info["nodes"] > 16


def test_agents_reject_bad_input():
    agent = MCTSAgent("skirmish_v0", simulations=10)
    env = load("amazons_v0").raw_env()
    env.reset()
    with pytest.raises(ValueError, match="not a skirmish_v0 state"):
        agent(env.get_state())
    with pytest.raises(TypeError, match="takes a game state"):
        agent(env.observe("white"))
    over = SK.from_string(LAST_CAPTURE, variant=SK.ENDGAME, step=59, captures=(3, 3))
    with pytest.raises(ValueError, match="game is over"):
        MCTSAgent("skirmish_endgame_v0", simulations=10)(over)
    with pytest.raises(ValueError, match="game is over"):
        GreedyAgent("skirmish_endgame_v0")(over)
    for kwargs in (
        {"simulations": 0},
        {"simulations": 2.5},
        {"seconds": -1},
        {"simulations": 5, "seconds": 1},
        {"value": "score"},
        {"c": -1},
    ):
        with pytest.raises(ValueError):
            MCTSAgent("skirmish_v0", **kwargs)


def test_make_agent_specs():
    assert isinstance(make_agent("random", "mad_bishops_v0"), RandomAgent)
    assert isinstance(make_agent("greedy", "mad_bishops_v0"), GreedyAgent)
    m = make_agent("mcts", "mad_bishops_v0")
    assert (m.simulations, m.seconds, m.name) == (1000, None, "mcts")
    m = make_agent("mcts:250", "mad_bishops_v0")
    assert (m.simulations, m.seconds, m.name) == (250, None, "mcts:250")
    m = make_agent("mcts:0.5s", "mad_bishops_v0")
    assert (m.simulations, m.seconds) == (None, 0.5)
    for spec, message in [
        ("mcts:abc", "bad agent 'mcts:abc': the MCTS budget is a number of simulations"),
        ("mcts:0", "MCTS budget"),
        ("mcts:-3", "MCTS budget"),
        ("alphazero", "bad agent 'alphazero': unknown agent; use random"),
        ("sb3:/nonexistent/model.zip", "no such model file: /nonexistent/model.zip"),
        ("/nonexistent/model.zip", "no such model file"),
        ("sb3:", "give the model's path"),
    ]:
        with pytest.raises(AgentSpecError, match=message):
            make_agent(spec, "mad_bishops_v0")


def test_a_custom_agent_with_the_protocol():
    class FirstLegal(Agent):
        name = "first"
        takes = "state"

        def __call__(self, state):
            env = load("mad_bishops_v0").raw_env()
            env.set_state(state)
            return int(env.legal_actions()[0])

    record = play_game("mad_bishops_v0", FirstLegal(), RandomAgent(seed=0))
    assert record.length > 0 and record.score in (0.0, 0.5, 1.0)


@pytest.mark.parametrize(
    "name, decompose, reach",
    [
        ("skirmish_endgame_v0", None, False),
        ("amazons_v0", None, False),
        ("mad_bishops_v0", True, False),
        ("amazons_split_v0", True, True),
        ("amazons_v0", None, True),
        ("amazons_split_v0", False, True),
    ],
)
def test_sb3_model_plays_as_an_agent(tmp_path, name, decompose, reach):
    """A MaskablePPO model trained for a few steps on the SingleAgentEnv of the training
    example loads from its file and plays legal moves (through the turn decomposition and
    reach planes it was trained with, found from its spaces; a BoardCNN with decompose=True)."""
    from sb3_contrib import MaskablePPO

    from ggpzoo.training.nets import BoardCNN
    from ggpzoo.training.single_agent import SingleAgentEnv

    kwargs = {"net_arch": [8]}
    if decompose:
        kwargs |= {"features_extractor_class": BoardCNN, "features_extractor_kwargs": {"channels": 4, "layers": 1}}
    model = MaskablePPO(
        "MlpPolicy",
        SingleAgentEnv(name, decompose=decompose, reach_planes=reach),
        n_steps=16,
        batch_size=16,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs=kwargs,
    )
    model.learn(16)
    path = tmp_path / "model.zip"
    model.save(path)
    agent = make_agent(f"sb3:{path}", name)
    assert isinstance(agent, SB3Agent) and agent.name == f"sb3:{path}"
    decomposed = name == "amazons_v0" or decompose
    assert agent.takes == ("state" if decomposed or reach else "observation")
    env = load(name).raw_env()
    for state in random_positions(name, 4, seed=3):
        env.set_state(state)
        assert agent.act(env) in env.legal_actions()
    record = play_game(name, agent, RandomAgent(seed=0))
    assert record.length > 0
    other = next(n for n in ("mad_bishops_v0", "skirmish_v0") if n != name)
    if decomposed or reach:
        with pytest.raises(TypeError, match="needs the state"):
            agent(env.observe(env.agent_selection))
    if name == "amazons_v0":
        with pytest.raises(AgentSpecError, match="trained on another env"):
            make_agent(str(path), other)


def test_stronger_is_stronger():
    """Measured on cheap games, fixed seeds: greedy beats random on Skirmish endgame
    (captures count), MCTS beats greedy on Mad Bishops (goals move only at the end)."""
    greedy_vs_random = round_robin(
        "skirmish_endgame_v0", [GreedyAgent("skirmish_endgame_v0"), RandomAgent()], games=20, seed=0, progress=False
    ).standings()[0]
    assert greedy_vs_random["score"] >= 0.8 and greedy_vs_random["score_low"] > 0.5
    mcts_vs_greedy = round_robin(
        "mad_bishops_v0",
        [MCTSAgent("mad_bishops_v0", simulations=100), GreedyAgent("mad_bishops_v0")],
        games=20,
        seed=0,
        progress=False,
    ).standings()[0]
    assert mcts_vs_greedy["score"] >= 0.8 and mcts_vs_greedy["score_low"] > 0.5


@pytest.mark.parametrize(
    "module",
    [
        "ggpzoo.agents.simple",
        "ggpzoo.agents.mcts",
        "ggpzoo.agents.alphabeta",
        "ggpzoo.agents.gumbel",
        "ggpzoo.agents.spec",
        "ggpzoo.tools.arena",
        "ggpzoo.envs.render",
        "ggpzoo.tools.terminal",
    ],
)
def test_docstring_examples(module):
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
