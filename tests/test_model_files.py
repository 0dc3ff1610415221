"""Model files and networks that would cost unbounded memory or answer no legal move, and
the numbers of the training and agent options: each refused with a one-line error, before
the cost."""

from __future__ import annotations

import json
import os
import resource
import zipfile

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from ggpzoo.agents import AgentSpecError, make_agent  # noqa: E402
from ggpzoo.agents.gumbel import GumbelAZAgent, GumbelSearch  # noqa: E402
from ggpzoo.agents.mcts import MAX_SIMULATIONS  # noqa: E402
from ggpzoo.agents.weights import MAX_WEIGHTS_BYTES, load_policy  # noqa: E402
from ggpzoo.envs import load  # noqa: E402
from ggpzoo.training.az.net import AZNet, GDLAZNet, load_model, save_model  # noqa: E402
from ggpzoo.training.az.train import AZConfig, train  # noqa: E402


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ----------------------------------------------------------------------------- model files
def test_a_deflated_weights_file_that_unpacks_past_the_network_is_refused_unread(tmp_path):
    net = AZNet("mad_bishops_v0")
    path = save_model(net, str(tmp_path / "m"))
    bomb = tmp_path / "bomb.pt"
    state = {k: v for k, v in net.state_dict().items()}
    state["stem.weight"] = torch.zeros(100 * 2**20)  # 400 MB of zeros, a few hundred KB deflated
    torch.save(state, tmp_path / "plain.pt")
    with zipfile.ZipFile(tmp_path / "plain.pt") as src, zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            dst.writestr(info.filename, src.read(info.filename))
    os.remove(tmp_path / "plain.pt")
    assert os.path.getsize(bomb) < 2 << 20
    d = json.loads(open(path).read())
    d["weights"] = "bomb.pt"
    open(path, "w").write(json.dumps(d))
    before = _rss_mb()
    with pytest.raises(ValueError, match="unpacks to .* more than the described network"):
        load_model(path)
    assert _rss_mb() - before < 100


def test_a_description_asking_for_a_huge_layer_is_refused_before_allocating(tmp_path):
    (tmp_path / "p.pt").write_bytes(b"")
    d = {
        "format": "ggpzoo-policy-1",
        "env": "mad_bishops_v0",
        "policy": "MaskableActorCriticPolicy",
        "observation_space": {"shape": [60000], "dtype": "int8", "low": 0, "high": 1},
        "action_space": {"n": 60000},
        "arguments": {"net_arch": [60000]},
        "weights": "p.pt",
    }
    (tmp_path / "p.json").write_text(json.dumps(d))
    assert len(json.dumps(d)) < 400
    before = _rss_mb()
    with pytest.raises(ValueError, match="MAX_WEIGHTS_BYTES = 256 MB"):
        load_policy(str(tmp_path / "p.json"))
    assert _rss_mb() - before < 200
    d["observation_space"]["shape"] = [100000, 100000]  # 10^10 numbers: not even the space is built
    (tmp_path / "p.json").write_text(json.dumps(d))
    with pytest.raises(ValueError, match="observation shape"):
        load_policy(str(tmp_path / "p.json"))


def test_a_model_whose_info_is_not_an_object_is_refused(tmp_path):
    path = save_model(AZNet("mad_bishops_v0"), str(tmp_path / "m"))
    d = json.loads(open(path).read())
    d["info"] = [1, 2]
    open(path, "w").write(json.dumps(d))
    with pytest.raises(ValueError, match="'info' must be an object"):
        load_model(path)


def test_a_gdl_model_of_another_sheet_is_refused_before_its_sheet_is_read(tmp_path, monkeypatch):
    """The description's sheet fingerprint is compared first: the agent never asks for the
    other sheet's spec (which would read and ground it)."""
    import ggpzoo.agents.gumbel as gumbel_module
    import ggpzoo.training.az.net as net_module
    from ggpzoo.envs import spec

    path = save_model(GDLAZNet("gdl:connect_four", width=8, blocks=0), str(tmp_path / "c4"))
    ttt = spec("gdl:tictactoe")
    asked = []

    def only_tictactoe(env):
        asked.append(env)
        if env is not ttt and env is not ttt.game and env != "gdl:tictactoe":
            raise AssertionError(f"the spec of {env!r} was asked for: its sheet would be read")
        return ttt

    monkeypatch.setattr(net_module, "_spec", only_tictactoe)
    monkeypatch.setattr(gumbel_module, "_spec", only_tictactoe)
    with pytest.raises(ValueError, match="is a model of 'gdl:connect_four', another sheet than tictactoe"):
        GumbelAZAgent("gdl:tictactoe", path)
    with pytest.raises(AgentSpecError, match="another sheet than tictactoe"):
        make_agent(f"az:{path}", ttt)
    assert asked  # the checks ran through the patched lookup


def test_a_network_of_nan_weights_still_answers_a_legal_move():
    net = AZNet("mad_bishops_v0")
    with torch.no_grad():
        for p in net.parameters():
            p.fill_(float("nan"))
    env = load("mad_bishops_v0").raw_env()
    env.reset(seed=0)
    agent = GumbelAZAgent("mad_bishops_v0", net, simulations=0, seed=0)
    a = agent.act(env)
    assert a in set(env.legal_actions().tolist())


def test_training_refuses_a_network_its_loader_would_refuse(tmp_path):
    with pytest.raises(ValueError, match=r"channels must be at most 256 \(MAX_ARGUMENTS"):
        train(AZConfig(env="mad_bishops_v0", channels=1100), minutes=0.01, out=str(tmp_path / "run"), progress=False)
    assert not os.path.exists(tmp_path / "run")  # nothing written, nothing played


@pytest.mark.parametrize("setting", [dict(simulations=10**9), dict(games=10**8), dict(games=0)])
def test_training_refuses_searches_past_max_simulations(tmp_path, setting):
    with pytest.raises(ValueError, match="MAX_SIMULATIONS|positive integer"):
        train(AZConfig(env="mad_bishops_v0", **setting), minutes=0.01, out=str(tmp_path / "run"), progress=False)
    assert not os.path.exists(tmp_path / "run")


def test_searches_and_agent_budgets_are_bounded_as_mcts_is():
    with pytest.raises(ValueError, match="MAX_SIMULATIONS"):
        GumbelSearch("mad_bishops_v0", None, simulations=MAX_SIMULATIONS, games=2)
    with pytest.raises(AgentSpecError, match="MAX_SIMULATIONS = 10,000,000"):
        make_agent("baseline:1000000000", "amazons_v0")


def test_make_agent_refuses_a_spec_that_is_not_text_and_an_unknown_env():
    with pytest.raises(AgentSpecError, match="an agent spec is a string"):
        make_agent(None, "mad_bishops_v0")
    with pytest.raises(AgentSpecError, match="unknown environment 'no_such_env'"):
        make_agent("random", "no_such_env")


def test_max_weights_bytes_holds_the_largest_network_the_argument_limits_allow():
    with torch.device("meta"):
        net = AZNet("amazons_v0", channels=256, blocks=32, value_hidden=1024)
    from ggpzoo.agents.weights import tensor_bytes

    assert tensor_bytes(net) < MAX_WEIGHTS_BYTES


# ----------------------------------------------------------------------------- command line numbers
def test_training_az_command_line_numbers(tmp_path, capsys):
    from ggpzoo.training.az.__main__ import main

    out = str(tmp_path / "run")
    for extra in (["--channels", "100000"], ["--simulations", "1000000000"], ["--games", "100000000"]):
        code = main(["--env", "mad_bishops_v0", "--minutes", "0.01", "--out", out, *extra])
        assert code == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and err.count("\n") == 1
    with pytest.raises(SystemExit):
        main(["--env", "mad_bishops_v0", "--minutes", "0.01", "--out", out, "--threads", "100000"])
    assert "at most the CPU count" in capsys.readouterr().err
    assert not os.path.exists(out)


@pytest.mark.parametrize(
    "extra, text",
    [
        (["--set", "minutes=5"], "--set: unknown recipe keys ['minutes']"),
        (["--set", "learning_rate=nan"], "learning_rate must be a positive finite number"),
        (["--set", "batch_size=0"], "batch_size must be a positive integer"),
        (["--set", "net_arch=[0]"], "net_arch must be a list of positive integers"),
        (["--device", "bogus"], "device must be a torch device"),
    ],
)
def test_train_command_line_settings(tmp_path, capsys, extra, text):
    from ggpzoo.tools.cli import main

    code = main(["train", "--env", "mad_bishops_v0", "--minutes", "0.01", "--out", str(tmp_path), *extra])
    err = capsys.readouterr().err
    assert code == 1 and text in err and err.count("\n") == 1
    assert not os.listdir(tmp_path)


def test_train_threads_are_bounded_by_the_cpu_count(tmp_path, capsys):
    from ggpzoo.tools.cli import main
    from ggpzoo.training.train import train as sb3_train

    with pytest.raises(SystemExit):
        main(["train", "--env", "mad_bishops_v0", "--out", str(tmp_path), "--threads", "100000"])
    assert "at most the CPU count" in capsys.readouterr().err
    with pytest.raises(ValueError, match="threads must be an integer in 1"):
        sb3_train("mad_bishops_v0", out=str(tmp_path), minutes=0.01, threads=100000)


def test_unwritable_outputs_are_found_before_the_games(tmp_path, capsys, monkeypatch):
    from ggpzoo.tools import cli

    (tmp_path / "a-file").write_text("")  # a folder that is a file: no one, root included, writes under it
    monkeypatch.setattr(cli, "_make_agents", lambda *a: pytest.fail("agents were built: the games would run"))
    code = cli.main(
        ["arena", "--env", "mad_bishops_v0", "--agents", "random,greedy", "--json", str(tmp_path / "a-file" / "r.json")]
    )
    err = capsys.readouterr().err
    assert code == 2 and "cannot write" in err and err.count("\n") == 1


def test_replay_fps_is_bounded_before_the_game_is_played(tmp_path, capsys, monkeypatch):
    from ggpzoo.tools import cli

    monkeypatch.setattr(cli, "_make_agents", lambda *a: pytest.fail("the game was played"))
    code = cli.main(["replay", "--env", "mad_bishops_v0", "--out", str(tmp_path / "g.gif"), "--fps", "0.001"])
    assert code == 1 and "--fps must be in 0.1..50" in capsys.readouterr().err


def test_parse_move_reads_only_ascii_digits():
    from ggpzoo.envs.notation import MoveError

    env = load("mad_bishops_v0").raw_env()
    env.reset()
    with pytest.raises(MoveError, match="could not read"):
        env.parse_move("1 ²")
    assert np.isscalar(env.parse_move(str(int(env.legal_actions()[0])))[0])
