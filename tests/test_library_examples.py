"""The other libraries' examples (TorchRL, Tianshou, AgileRL): --help, a tiny real run each,
and the pieces that make turn-based games right. Each test skips where its library is not
installed: AgileRL needs ``pettingzoo<1.27``, so CI runs it in a second environment."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from helpers import scripts_help

from ggpzoo.envs import load
from ggpzoo.utils import sample_action

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
LIBRARY = {"torchrl_ppo": "torchrl", "tianshou_dqn": "tianshou", "agilerl_ippo": "agilerl"}


def _load(name):
    pytest.importorskip(LIBRARY[name])
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def helps():
    present = [name for name in LIBRARY if importlib.util.find_spec(LIBRARY[name]) is not None]
    return scripts_help([EXAMPLES / f"{name}.py" for name in present], timeout=300)


@pytest.mark.parametrize("name", list(LIBRARY))
def test_help(name, helps):
    pytest.importorskip(LIBRARY[name])
    code, out, err = helps[str(EXAMPLES / f"{name}.py")]
    assert code == 0, err
    assert out.startswith(f"usage: {name}.py")


def test_torchrl_tiny_run(capsys):
    example = _load("torchrl_ppo")
    argv = ["--iterations", "2", "--frames", "128", "--epochs", "1", "--hidden", "16", "--eval-games", "2"]
    assert example.main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("iter ") == 2 and "frames     256" in out
    assert "skirmish_endgame_v0: greedy policy vs random, 2 games" in out


def test_torchrl_wrapper_marks_the_agent_to_move():
    example = _load("torchrl_ppo")
    env = example.make_env("skirmish_endgame_v0")
    td = env.rollout(6)
    acting = td.get((example.GROUP, "mask"))
    assert acting.shape == (6, 2) and (acting.sum(-1) == 1).all()  # exactly one agent acts per step
    assert acting[:, 0].tolist() == [True, False, True, False, True, False]  # white first, then turns alternate


def test_tianshou_tiny_run(capsys):
    example = _load("tianshou_dqn")
    argv = ["--epochs", "1", "--steps-per-epoch", "100", "--train-envs", "2", "--test-games", "2", "--hidden", "16"]
    assert example.main(argv) == 0
    assert "learner's best mean return vs random over 2 test games" in capsys.readouterr().out


def test_tianshou_refuses_split_turns():
    example = _load("tianshou_dqn")
    with pytest.raises(SystemExit):
        example.parse_args(["--env", "amazons_split_v0"])


def test_tianshou_seats_alternate_colours_and_keep_rewards():
    example = _load("tianshou_dqn")
    seats = example.Seats(load("skirmish_endgame_v0").env())
    rng = np.random.default_rng(0)
    first_movers = []
    for _ in range(4):
        seats.reset()
        first_movers.append(seats.env.agent_selection if seats.agent_selection == "learner" else "other")
        assert seats.possible_agents == ["learner", "opponent"]
        while not any(seats.terminations.values()) and not any(seats.truncations.values()):
            obs = seats.observe(seats.agent_selection)
            seats.step(sample_action(obs["action_mask"], rng))
        colour = seats._colour
        assert seats.rewards == {s: seats.env.rewards[colour[s]] for s in example.SEATS}
    assert first_movers == ["white", "other", "white", "other"]  # the learner is white every other game


def test_agilerl_tiny_run(capsys):
    example = _load("agilerl_ippo")
    argv = ["--iterations", "2", "--steps", "96", "--hidden", "16", "--eval-games", "2"]
    assert example.main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("iter ") == 2 and "score vs random over 2 games per seat: white" in out


def test_library_throughput_tiny_run(capsys):
    spec = importlib.util.spec_from_file_location("example_library_throughput", EXAMPLES / "library_throughput.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--env", "skirmish_endgame_v0", "--seconds", "0.1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["env", "through", "steps/s"]
    ways = [ln[22:50].strip() for ln in lines[1:]]
    assert ways[:2] == ["pettingzoo env()", "turn_based_aec_to_parallel"]  # the libraries' rows where installed
