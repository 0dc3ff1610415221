"""The examples: each answers --help as a script, and does a tiny real run."""

import csv
import importlib.util
import json
from pathlib import Path

import pytest
from helpers import scripts_help

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
NAMES = ["train_maskable_ppo", "check_envs", "benchmark_selfplay"]


def _load(name):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def helps():
    return scripts_help([EXAMPLES / f"{name}.py" for name in NAMES], timeout=300)


@pytest.mark.parametrize("name", NAMES)
def test_help(name, helps):
    code, out, err = helps[str(EXAMPLES / f"{name}.py")]
    assert code == 0, err
    assert out.startswith(f"usage: {name}.py")


@pytest.mark.parametrize("env", ["skirmish_endgame_v0", "amazons_v0", "mad_bishops_v0"])
def test_train_tiny_run(env, tmp_path, capsys):
    train = _load("train_maskable_ppo")
    assert train.main(["--env", env, "--path", "aec", "--tiny", "--no-progress", "--out", str(tmp_path)]) == 0
    out = tmp_path / env
    printed = capsys.readouterr().out
    assert "vs random" in printed and "vs greedy" in printed
    rows = list(csv.DictReader(open(out / "eval.csv")))
    # two evaluations during training (at 128 and 256 steps) and the final one, each vs both
    assert [r["opponent"] for r in rows] == ["random", "greedy"] * 3
    assert [int(r["games"]) for r in rows] == [2, 2, 2, 2, 4, 4]
    for r in rows:
        assert int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == int(r["games"])
        assert 0 <= float(r["ci_low"]) <= float(r["win_rate"]) <= float(r["ci_high"]) <= 1
    summary = json.loads((out / "summary.json").read_text())
    assert summary["env"] == env and summary["timesteps"] >= 256
    ten_by_ten = env != "skirmish_endgame_v0"  # decomposed and shaped by default
    assert summary["args"]["decompose"] is ten_by_ten and summary["args"]["shaping"] == float(ten_by_ten)
    assert (f"shaping {float(ten_by_ten)}, decompose {ten_by_ten}") in printed
    # the saved model loads and is evaluated again
    assert (
        train.main(
            ["--env", env, "--eval-only", str(out / "model.zip"), "--final-eval-games", "2", "--out", str(tmp_path)]
        )
        == 0
    )
    assert capsys.readouterr().out.count("of 2)") == 2


@pytest.mark.parametrize("env", ["skirmish_v0", "amazons_v0"])
def test_train_batched_tiny_run_and_resume(env, tmp_path, capsys):
    """The default path: the batched self-play env with the game's recipe, evaluations in
    batches, a checkpoint, and --resume going on from it."""
    train = _load("train_maskable_ppo")
    argv = ["--env", env, "--tiny", "--no-progress", "--eval-games", "4", "--out", str(tmp_path)]
    assert train.main(argv) == 0
    out = tmp_path / env
    rows = list(csv.DictReader(open(out / "eval.csv")))
    assert len(rows) >= 2 and {r["opponent"] for r in rows} == {"random", "greedy"}
    for r in rows:
        assert int(r["wins"]) + int(r["draws"]) + int(r["losses"]) == int(r["games"])
    summary = json.loads((out / "summary.json").read_text())
    from ggpzoo.training.train import recipe

    assert summary["recipe"] == recipe(env, n_envs=2, n_steps=64, batch_size=64, n_epochs=1, net_arch=[32])
    state = json.loads((out / "checkpoint.json").read_text())
    first = state["timesteps"]
    assert first == summary["timesteps"] >= 256 and (out / "policy.json").exists()
    # --resume: the clock and the steps go on from the checkpoint, 256 steps more
    assert train.main(argv + ["--resume", "--timesteps", "256"]) == 0
    again = json.loads((out / "checkpoint.json").read_text())
    assert again["timesteps"] >= first + 256 and again["train_seconds"] >= state["train_seconds"]
    assert len(list(csv.DictReader(open(out / "eval.csv")))) > len(rows)


def test_train_subproc_tiny_run_with_snapshots(tmp_path, capsys):
    train = _load("train_maskable_ppo")
    args = [
        "--env",
        "skirmish_endgame_v0",
        "--path",
        "aec",
        "--tiny",
        "--no-progress",
        "--vec",
        "subproc",
        "--greedy-weight",
        "1",
        "--out",
        str(tmp_path),
    ]
    assert train.main(args) == 0
    assert (tmp_path / "skirmish_endgame_v0" / "model.zip").exists()
    env = train.make_env("skirmish_endgame_v0", "delta_zero_sum", 2.0, 3, greedy_weight=1.0)
    assert [type(o).__name__ for o in env.opponent.opponents] == ["RandomOpponent", "GreedyOpponent"]
    assert env.opponent.weights == [2.0, 1.0] and env.opponent.max_size == 5


def test_train_decomposition_and_shaping_choices():
    train = _load("train_maskable_ppo")
    args = train.parse_args(["--env", "mad_bishops_v0", "--decompose", "no", "--shaping", "0.25"])
    assert args.decompose is False and args.shaping == 0.25
    env = train.make_env("mad_bishops_v0", "winloss", 2.0, 3, decompose=args.decompose, shaping=args.shaping)
    assert env.action_space.n == 10_000 and env.aec_env.weight == 0.25
    args = train.parse_args(["--env", "amazons_split_v0"])
    env = train.make_env("amazons_split_v0", "winloss", 2.0, 3, decompose=args.decompose, shaping=args.shaping)
    assert env.action_space.n == 100 and type(env.aec_env).__name__ == "MoveDecomposition"
    assert train.parse_args(["--env", "skirmish_v0"]).decompose is False


def test_train_cell_policy_tiny_run(tmp_path, capsys):
    train = _load("train_maskable_ppo")
    argv = [
        "--env",
        "mad_bishops_v0",
        "--path",
        "aec",
        "--tiny",
        "--no-progress",
        "--policy",
        "cell",
        "--cnn-channels",
        "4",
        "--out",
        str(tmp_path),
    ]
    assert train.main(argv) == 0
    from sb3_contrib import MaskablePPO

    from ggpzoo.training.nets import CellPolicy

    model = MaskablePPO.load(tmp_path / "mad_bishops_v0" / "model.zip", device="cpu")
    assert isinstance(model.policy, CellPolicy) and model.action_space.n == 100
    assert (
        train.main(
            [
                "--env",
                "mad_bishops_v0",
                "--eval-only",
                str(tmp_path / "mad_bishops_v0" / "model.zip"),
                "--final-eval-games",
                "2",
                "--out",
                str(tmp_path),
            ]
        )
        == 0
    )


def test_train_cnn_tiny_run(tmp_path, capsys):
    train = _load("train_maskable_ppo")
    argv = [
        "--env",
        "amazons_split_v0",
        "--path",
        "aec",
        "--tiny",
        "--no-progress",
        "--policy",
        "cnn",
        "--cnn-channels",
        "4",
        "--out",
        str(tmp_path),
    ]
    assert train.main(argv) == 0
    assert "cnn net [32]" in capsys.readouterr().out
    from sb3_contrib import MaskablePPO

    from ggpzoo.training.nets import BoardCNN

    model = MaskablePPO.load(tmp_path / "amazons_split_v0" / "model.zip", device="cpu")
    assert isinstance(model.policy.features_extractor, BoardCNN)
    assert model.observation_space.shape == (10, 10, 8)  # 5 planes, 2 reach planes, the chosen source
    assert train.model_view(model, "amazons_split_v0") == {"decompose": True, "reach_planes": True}


def test_wilson_interval():
    train = _load("train_maskable_ppo")
    low, high = train.wilson(95, 100)
    assert low == pytest.approx(0.8882, abs=1e-3) and high == pytest.approx(0.9785, abs=1e-3)
    assert train.wilson(0, 10)[0] == 0.0 and train.wilson(10, 10)[1] == 1.0


@pytest.mark.parametrize(
    "bad",
    [
        ["--timesteps", "0"],
        ["--net-arch", "a,b"],
        ["--greedy-weight", "-1"],
        ["--env", "chess_v0"],
        [],
        ["--shaping", "1"],
        ["--decompose", "maybe"],
        ["--reach-planes", "yes"],
        ["--cnn-layers", "0"],
        ["--policy", "cell"],
    ],
)
def test_train_bad_arguments(bad):
    train = _load("train_maskable_ppo")
    argv = bad if "--env" in bad or not bad else ["--env", "skirmish_v0", *bad]
    with pytest.raises(SystemExit) as e:
        train.parse_args(argv)
    assert e.value.code == 2


def test_check_envs_tiny_run(capsys):
    check = _load("check_envs")
    assert check.main(["--env", "skirmish_endgame_v0", "--env", "amazons_v0", "--cycles", "20"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [c.strip() for c in lines[0].split(" | ")] == ["env", *check.CHECKS, "seconds"]
    rows = {ln.split(" | ")[0].strip(): [c.strip() for c in ln.split(" | ")[1:-1]] for ln in lines[2:]}
    assert rows == {"skirmish_endgame_v0": ["ok"] * 5, "amazons_v0": ["ok"] * 5}


def test_check_envs_reports_a_failure(monkeypatch, capsys):
    check = _load("check_envs")
    import pettingzoo.test

    def broken(*args, **kwargs):
        raise AssertionError("seeded games differ")

    monkeypatch.setattr(pettingzoo.test, "seed_test", broken)
    assert check.main(["--env", "skirmish_endgame_v0", "--cycles", "5"]) == 1
    out = capsys.readouterr().out
    assert "skirmish_endgame_v0: seed_test: FAIL: AssertionError: seeded games differ" in out


def test_benchmark_tiny_run(tmp_path, capsys):
    bench = _load("benchmark_selfplay")
    png = tmp_path / "chart.png"
    assert bench.main(["--env", "skirmish_endgame_v0", "--seconds", "0.2", "--bridge", "--out", str(png)]) == 0
    out = capsys.readouterr().out
    assert "skirmish_endgame_v0 " in out and "skirmish_endgame_v0 (bridge)" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_plot_training_writes_into_runs_by_default(tmp_path, monkeypatch, capsys):
    """Following the docs' plot command writes under runs/ (ignored), never over docs/img."""
    pytest.importorskip("matplotlib")
    run = tmp_path / "runs" / "skirmish_v0"
    run.mkdir(parents=True)
    rows = [[m, 64 * m, opp, 10, 5, 0, 5, 0.5, 0.2, 0.8] for m in (1, 2) for opp in ("random", "greedy")]
    with open(run / "eval.csv", "w", newline="") as f:
        csv.writer(f).writerows([["minutes", "timesteps", "opponent", "games", "wins", "draws", "losses",
                                  "win_rate", "ci_low", "ci_high"], *rows])  # fmt: skip
    monkeypatch.chdir(tmp_path)
    assert _load("plot_training").main(["runs/skirmish_v0/eval.csv"]) == 0
    assert (tmp_path / "runs" / "training.png").stat().st_size > 1000
    assert capsys.readouterr().out == "wrote runs/training.png\n"
