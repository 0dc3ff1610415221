"""The command line: --help of every subcommand, list, bench, arena, replay, play (fed on
stdin), and one-line errors without tracebacks."""

import io
import json
import subprocess
import sys
from types import SimpleNamespace

import pytest
from PIL import Image

import ggpzoo.tools.terminal
from ggpzoo.envs import ENVS, load
from ggpzoo.tools.cli import main
from ggpzoo.tools.terminal import MoveError, parse_move, play_terminal


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    "command, text",
    [
        ([], "{list,bench,arena,replay,play,train,warmup,gdl,ggp-player,ggp-match}"),
        (["list"], "List the environments"),
        (["bench"], "--vs"),  # the benchmark's own help
        (["arena"], "--agents"),
        (["replay"], "animated GIF"),
        (["play"], "--opponent"),
        (["train"], "--resume"),
        (["warmup"], "--agents"),
        (["gdl"], "a .kif file, or the name of a shipped game"),  # ggpzoo.gdl.cli's own help
        (["ggp-player"], "--agent"),  # ggpzoo.ggp.cli's own parsers
        (["ggp-match"], "--scramble"),
    ],
)
def test_help(capsys, command, text):
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--help"])
    assert exit_.value.code == 0
    assert text in capsys.readouterr().out


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--set", "n_envs"], "--set takes KEY=VALUE"),
        (["--set", "colour=3"], "unknown recipe keys"),
        (["--set", "policy=transformer"], "policy must be 'mlp' or 'cell'"),
    ],
)
def test_train_refuses_bad_recipes_in_one_line(capsys, tmp_path, extra, message):
    code, _, err = run(capsys, "train", "--env", "skirmish_v0", "--out", str(tmp_path), *extra)
    assert code == 1 and message in err and len(err.strip().splitlines()) == 1


def test_train_resume_needs_a_checkpoint(capsys, tmp_path):
    code, _, err = run(capsys, "train", "--env", "amazons_v0", "--out", str(tmp_path), "--resume")
    assert code == 1 and "nothing to resume" in err


def test_gdl_commands_reach_the_gdl_tools(capsys):
    code, out, _ = run(capsys, "bench", "--gdl", "tictactoe", "--seconds", "0.1", "--no-exact")
    assert code == 0 and out.splitlines()[1].split()[0] == "tictactoe"
    code, out, _ = run(capsys, "gdl", "tictactoe", "--games", "20", "--seconds", "0.1", "--no-api-test")
    assert code == 0 and "roles: xplayer (10 actions), oplayer (10 actions)" in out


def test_no_command_prints_help(capsys):
    code, out, err = run(capsys)
    assert code == 2 and "usage: python -m ggpzoo" in err


def test_list(capsys):
    code, out, _ = run(capsys, "list")
    assert code == 0
    for name in ENVS:
        assert name in out
    assert "86980" in out and "mcts:SIMULATIONS" in out and "gdl:tictactoe" in out


def test_bench_is_ggpzoo_bench(capsys):
    code, out, _ = run(capsys, "bench", "--env", "skirmish_endgame_v0", "--seconds", "0.05")
    assert code == 0 and "skirmish_endgame_v0" in out and "steps/s" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["arena", "--env", "skirmish_v0", "--agents", "random,mcts:abc"],
            "error: bad agent 'mcts:abc': the MCTS budget is a number of simulations",
        ),
        (
            ["arena", "--env", "skirmish_v0", "--agents", "random,alphazero"],
            "error: bad agent 'alphazero': unknown agent",
        ),
        (
            ["arena", "--env", "skirmish_v0", "--agents", "random,sb3:missing/model.zip"],
            "error: bad agent 'sb3:missing/model.zip': no such model file: missing/model.zip",
        ),
        (["arena", "--env", "skirmish_v0", "--agents", "random"], "at least two agents"),
        (["arena", "--env", "skirmish_v0", "--agents", "random,random"], "names an agent twice"),
        (["arena", "--env", "skirmish_v0", "--agents", "random,greedy", "--anchor", "mcts"], "--anchor 'mcts' is none"),
        (["replay", "--env", "skirmish_v0", "--out", "game.mp4"], "--out must end in .gif"),
        (["replay"], "give --env to play a game, or --load a game file"),
        (["replay", "--load", "missing.json"], "no such game file: missing.json"),
        (["play", "--env", "skirmish_v0", "--opponent", "mcts:1x"], "bad agent 'mcts:1x'"),
    ],
)
def test_errors_are_one_line(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 1
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"python -m ggpzoo {argv[0]}: error: ")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["arena", "--env", "chess_v6", "--agents", "random,greedy"], "unknown env 'chess_v6'"),
        (
            ["arena", "--env", "skirmish_v0", "--agents", "random,greedy", "--games", "many"],
            "'many' is not a whole number",
        ),
        (["arena", "--env", "skirmish_v0"], "the following arguments are required: --agents"),
        (["play", "--env", "skirmish_v0", "--color", "red"], "invalid choice: 'red'"),
        (["nope"], "invalid choice: 'nope'"),
    ],
)
def test_usage_errors_are_one_line(capsys, argv, message):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and message in err and err.count("\n") == 1


def test_an_unwritable_output_is_refused_before_any_game(capsys):
    code, _, err = run(
        capsys, "arena", "--env", "skirmish_v0", "--agents", "random,greedy", "--json", "/no/such/dir/a.json"
    )
    assert code == 2 and "no folder" in err and err.count("\n") == 1 and "Traceback" not in err


def test_as_a_process():
    """``python -m ggpzoo``: help, and an error with no traceback."""
    ok = subprocess.run([sys.executable, "-m", "ggpzoo", "--help"], capture_output=True, text=True)
    assert ok.returncode == 0 and "arena" in ok.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "ggpzoo", "arena", "--env", "mad_bishops_v0", "--agents", "random,mcts:abc"],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1 and "Traceback" not in bad.stderr
    assert bad.stderr.strip().splitlines() == [
        "python -m ggpzoo arena: error: bad agent 'mcts:abc': the MCTS budget is a number of simulations "
        "(mcts:200) or of seconds (mcts:0.5s)"
    ]


def test_arena_command(capsys, tmp_path):
    code, out, err = run(
        capsys,
        "arena",
        "--env",
        "skirmish_endgame_v0",
        "--agents",
        "random, greedy",
        "--games",
        "4",
        "--csv",
        str(tmp_path / "g.csv"),
        "--json",
        str(tmp_path / "a.json"),
    )
    assert code == 0 and err == ""  # no progress bar off a terminal
    assert "rank  agent" in out and "random vs greedy" in out
    data = json.loads((tmp_path / "a.json").read_text())
    assert [s["games"] for s in data["standings"]] == [4, 4]
    assert len((tmp_path / "g.csv").read_text().splitlines()) == 1 + 4
    # a game of the arena file replays
    code, out, _ = run(
        capsys, "replay", "--load", str(tmp_path / "a.json"), "--index", "1", "--out", str(tmp_path / "g1.png")
    )
    assert code == 0 and out.startswith("skirmish_endgame_v0: greedy (white) vs random (black)")  # colours alternate
    assert Image.open(tmp_path / "g1.png").size[0] > 300


def test_replay_command(capsys, tmp_path):
    gif, saved = tmp_path / "game.gif", tmp_path / "game.json"
    code, out, _ = run(
        capsys,
        "replay",
        "--env",
        "mad_bishops_v0",
        "--white",
        "greedy",
        "--black",
        "random",
        "--seed",
        "4",
        "--out",
        str(gif),
        "--save",
        str(saved),
        "--cell-px",
        "20",
        "--fps",
        "5",
    )
    assert code == 0 and f"wrote {gif}" in out
    game = json.loads(saved.read_text())
    with Image.open(gif) as im:
        assert im.n_frames == len(game["actions"]) + 1 and im.info["duration"] == 200
    code, out2, _ = run(capsys, "replay", "--load", str(saved))
    assert code == 0 and out2.splitlines()[0] == out.splitlines()[0]
    code, _, err = run(capsys, "replay", "--load", str(saved), "--env", "amazons_v0")
    assert code == 1 and "is a game of mad_bishops_v0" in err
    code, out, _ = run(capsys, "replay", "--env", "mad_bishops_v0", "--max-steps", "3")
    assert code == 0 and out.strip().endswith("3 actions, goals 100-100: cut before the end")


# ----------------------------------------------------------------------------- play
def test_parse_move_messages():
    env = load("amazons_v0").raw_env()
    env.reset()
    a = env.encode_action((4, 1), (4, 5), (4, 1))
    for text in ("4,1 4,5 4,1", "(4,1)->(4,5)/(4,1)", "d1 d5 d1", "4 1 4 5 4 1", "d1-d5/d1", str(a)):
        assert parse_move(env, text) == [a], text
    for text, message in [
        ("hello", "could not read 'hello'"),
        ("4,1 4,5", r"a move here names 3 cells \(queen, destination, arrow\); '4,1 4,5' names 2"),
        ("d1 d10 d1", r"\(4,1\)->\(4,10\)/\(4,1\) is illegal: the queen move \(4,1\)->\(4,10\) is blocked at \(4,10\)"),
        ("4,1 4,9 4,10", r"the arrow \(4,9\)->\(4,10\) is blocked at \(4,10\)"),
        ("4,1 4,11 4,1", r"\(4,11\) is off the 10x10 board"),
        ("4,1 5,3 4,1", "is not a move"),
        ("99999999", "out of range"),
        ("1,1 1,2 1,3", r"there is no white queen at \(1,1\)"),
    ]:
        with pytest.raises(MoveError, match=message):
            parse_move(env, text)
    skirmish = load("skirmish_v0").raw_env()
    skirmish.reset()
    push = skirmish.encode_action((5, 2), (5, 4))
    assert parse_move(skirmish, "e2e4") == parse_move(skirmish, "E2-E4") == parse_move(skirmish, "5 2 5 4") == [push]
    with pytest.raises(MoveError, match=r"\(26,1\) is off the 8x8 board: x runs 1..8 \(files a..h\)"):
        parse_move(skirmish, "z1 z2")
    split = load("amazons_split_v0").raw_env()
    split.reset()
    move, fire = parse_move(split, "4,1 4,5 4,1")  # a whole turn in one line
    assert split.phase == "move"  # parsing changed nothing
    split.step(move)
    assert parse_move(split, "4,1") == [fire]  # the fire step: just the arrow


def test_play_through_stdin(capsys, monkeypatch):
    lines = "e1 e3\nhello\n1,1 2,2 3,3\n(9,9) (1,1)\nmoves\nundo\na1 b2\nundo\nboard\nquit\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(lines))
    code, out, err = run(capsys, "play", "--env", "mad_bishops_v0", "--opponent", "greedy", "--seed", "0")
    assert code == 0 and err == ""
    for text in [
        "mad_bishops_v0: you play white, greedy plays the other side.",
        "each as x,y (column, row, counted from 1 at the lower left) or as a column letter and a row (a1 = 1,1)",
        "(5,1)->(5,3) is illegal: (5,1)->(5,3) is not along a diagonal. Type 'help' for the format",
        "could not read 'hello' as cells",
        "a move here names 2 cells (piece, destination); '1,1 2,2 3,3' names 3",
        "(9,9)->(1,1) is illegal: the path (9,9)->(1,1) is blocked at (8,8)",
        "81 legal moves: (1,1)->(2,2), (3,1)->(2,2)",
        "nothing to undo: you have not moved yet",
        "you play (1,1)->(2,2)",
        "black (greedy) plays",
        "took back your last move",
        "bye",
    ]:
        assert text in out, text
    assert out.count("     a  b  c  d  e  f  g  h  i  j") == 4  # start, after the reply, after undo, 'board'


def test_play_a_whole_game(monkeypatch):
    """Typed moves (in the env's own notation) to the end of a game, as black."""
    env = load("skirmish_endgame_v0").raw_env(render_mode="ansi")
    monkeypatch.setattr(ggpzoo.tools.terminal, "load", lambda name: SimpleNamespace(raw_env=lambda **kw: env))
    typed = []

    def type_move(prompt):
        move = env.action_to_string(int(env.legal_actions()[-1]))
        typed.append(move)
        return move

    from ggpzoo.agents import RandomAgent

    out = io.StringIO()
    assert play_terminal("skirmish_endgame_v0", RandomAgent(seed=0), human="black", input_fn=type_move, out=out) == 0
    text = out.getvalue()
    assert env.terminations["black"] and len(typed) > 5
    assert text.count("\nyou play ") == len(typed)
    last = text.strip().splitlines()[-1]
    gw, gb = env.infos["white"]["goal"], env.infos["black"]["goal"]
    verdict = "you win" if gb > gw else "you lose" if gb < gw else "a draw"
    assert last == f"game over after {int(env.get_state()[1][2])} actions: white {gw}, black {gb}: {verdict}"


def _saved_models(tmp_path) -> dict:
    """A MaskablePPO model of mad_bishops_v0, saved as a zip and as plain weights."""
    from sb3_contrib import MaskablePPO

    from ggpzoo.agents.weights import save_policy
    from ggpzoo.training.single_agent import SingleAgentEnv

    model = MaskablePPO(
        "MlpPolicy", SingleAgentEnv("mad_bishops_v0"), n_steps=16, device="cpu", seed=0, policy_kwargs={"net_arch": [8]}
    )
    model.save(tmp_path / "ppo.zip")
    return {"zip": str(tmp_path / "ppo.zip"), "json": save_policy(model, str(tmp_path / "weights"), "mad_bishops_v0")}


@pytest.mark.parametrize(
    "opponent, searched",
    [
        ("random", False),
        ("greedy", False),
        ("mcts:20", True),
        ("mcts:0.05s", True),
        ("baseline", False),
        ("baseline:4", True),
        ("az:BASELINE", False),
        ("az:BASELINE:4", True),
        ("sb3:ZIP", False),
        ("ZIP", False),
        ("JSON", False),
    ],
)
def test_play_against_every_agent_kind(capsys, monkeypatch, tmp_path, opponent, searched):
    """`play --opponent SPEC` for each kind of agent: the opponent answers the typed move and
    the line of its move says what it cost (simulations only where it searched)."""
    from ggpzoo.baselines import baseline_path

    if "ZIP" in opponent or "JSON" in opponent:
        models = _saved_models(tmp_path)
        opponent = opponent.replace("ZIP", models["zip"]).replace("JSON", models["json"])
    opponent = opponent.replace("BASELINE", str(baseline_path("mad_bishops_v0")))
    monkeypatch.setattr(sys, "stdin", io.StringIO("a1 b2\nquit\n"))
    code, out, err = run(capsys, "play", "--env", "mad_bishops_v0", "--opponent", opponent, "--seed", "0")
    assert code == 0 and err == "", err
    assert "you play (1,1)->(2,2)" in out and out.rstrip().endswith("bye")
    (line,) = [x for x in out.splitlines() if x.startswith(f"black ({opponent}) plays ")]
    assert line.endswith(" s)")
    assert ("simulations, " in line) == searched, line
