"""``play`` and ``replay`` of GDL sheets: moves typed as GDL terms (fed on stdin), undo, games
where both roles choose at once, replays of recorded sheet games as text and as pictures."""

import io
import json
import re
import sys
from types import SimpleNamespace

import numpy as np
import pytest
from PIL import Image

import ggpzoo.tools.terminal
from ggpzoo.agents import RandomAgent
from ggpzoo.envs import load
from ggpzoo.envs.notation import MoveError
from ggpzoo.envs.render import cell_center
from ggpzoo.tools import replay as R
from ggpzoo.tools.cli import main
from ggpzoo.tools.terminal import play_terminal

START = """\
 3   b  b  b
 2   b  b  b
 1   b  b  b
     1  2  3
b = (cell ?x ?y b), o = (cell ?x ?y o), x = (cell ?x ?y x)
also true: (control xplayer)"""


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _stdin(monkeypatch, lines):
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))


def _verdict(mine, other):
    return "you win" if mine > other else "you lose" if mine < other else "a draw"


def test_the_board_of_a_grid_sheet_and_of_one_without():
    env = load("gdl:tictactoe").raw_env(render_mode="ansi")
    env.reset()
    assert env.render() == env.board_string() == START
    env.step(env.term_to_action("(mark 1 3)"))
    lines = env.board_string().splitlines()
    assert lines[0] == " 3   x  b  b" and lines[-1] == "also true: (control oplayer)"
    rps = load("gdl:rps_fold").raw_env(render_mode="ansi")
    rps.reset()
    assert rps.render() == "(points left 0)\n(points right 0)\n(step 0)"  # no grid: the true fluents
    with pytest.raises(ValueError, match="the GDL game rps_fold has no grid"):
        rps.board_image()


def test_parse_move_reads_terms_in_any_case_and_numbers():
    env = load("gdl:tictactoe").raw_env()
    env.reset()
    a = env.term_to_action("(mark 1 2)")
    for text in ("(mark 1 2)", "mark 1 2", "(MARK 1 2)", " Mark  1 2 ", "2"):  # "2": the second legal move
        assert env.parse_move(text) == [a], text
    for text, message in [
        ("hello", "hello is not a move of xplayer in tictactoe, e.g. \\(mark 1 1\\)"),
        ("(mark 4 4)", "is not a move of xplayer"),
        ("(mark 1", "cannot read the move"),
        ("10", "xplayer has 9 legal moves now: a move's number is 1..9"),
        ("0", "a move's number is 1..9"),
        ("x" * 300, "at most 200 characters"),
    ]:
        with pytest.raises(MoveError, match=message):
            env.parse_move(text)
    env.step(a)
    env.step(env.parse_move("1")[0])  # oplayer's first legal move
    with pytest.raises(MoveError, match=r"\(mark 1 2\) is illegal for xplayer now; legal: \(mark 1 3\)"):
        env.parse_move("mark 1 2")
    assert env.explain_illegal(a) == "it is not one of the 7 legal moves of xplayer now"
    assert "(mark 1 3)" in env.legal_moves_text() and env.legal_moves_text().startswith("7 legal moves: [1] ")


def test_a_whole_tictactoe_game_typed_on_stdin(capsys, monkeypatch):
    """Every move typed, in three spellings, against random, to the end of the game."""
    env = load("gdl:tictactoe").raw_env(render_mode="ansi")
    monkeypatch.setattr(ggpzoo.tools.terminal, "load", lambda name: SimpleNamespace(raw_env=lambda **kw: env))
    typed = []

    def type_move(prompt):
        term = env.action_to_term(int(env.legal_actions()[-1]))  # the last legal move, spelt three ways
        text = [term, term[1:-1], term.upper()][len(typed) % 3]
        typed.append(text)
        return text

    out = io.StringIO()
    assert play_terminal("gdl:tictactoe", RandomAgent(seed=3), human="xplayer", input_fn=type_move, out=out) == 0
    text = out.getvalue()
    assert env.is_game_over() and len(typed) >= 3
    assert text.count("\nyou play (mark ") == len(typed)
    assert text.count("oplayer (random) plays (mark ") in (len(typed), len(typed) - 1)
    gx, go = env.infos["xplayer"]["goal"], env.infos["oplayer"]["goal"]
    last = text.strip().splitlines()[-1]
    assert last == f"game over after {env.outcome().steps} actions: xplayer {gx}, oplayer {go}: {_verdict(gx, go)}"


def test_play_gdl_through_the_command_line(capsys, monkeypatch):
    _stdin(monkeypatch, ["1"] * 9)  # the first legal move, to the end of the game
    code, out, err = run(capsys, "play", "--env", "gdl:tictactoe", "--opponent", "random", "--seed", "0")
    assert code == 0 and err == ""
    assert out.startswith("gdl:tictactoe: you play xplayer, random plays the other side.")
    assert START in out and "you play (mark 1 1)" in out
    m = re.search(r"game over after (\d+) actions: xplayer (\d+), oplayer (\d+): (.*)$", out.strip())
    assert m and m.group(4) == _verdict(int(m.group(2)), int(m.group(3)))


def test_bad_moves_give_one_line_and_the_prompt_again(capsys, monkeypatch):
    bad = ["hello", "(mark 4 4)", "(mark 1", "12"]
    _stdin(monkeypatch, ["mark 2 2", *bad, "(mark 2 2)", "quit"])
    code, out, _ = run(capsys, "play", "--env", "gdl:tictactoe", "--opponent", "random", "--seed", "0")
    assert code == 0 and out.strip().endswith("bye")
    errors = [
        line for line in out.splitlines() if line.endswith("Type 'help' for the format, 'moves' for the legal moves.")
    ]
    assert len(errors) == len(bad) + 1  # and the taken cell
    assert errors[-1].startswith("> (mark 2 2) is illegal for xplayer now; legal: ")
    assert out.count("> ") == 1 + len(bad) + 1 + 1  # a prompt for every line typed


def test_undo_takes_back_the_move_and_the_reply(capsys, monkeypatch):
    _stdin(monkeypatch, ["undo", "mark 2 2", "undo", "board", "quit"])
    code, out, _ = run(capsys, "play", "--env", "gdl:tictactoe", "--opponent", "random", "--seed", "0")
    assert code == 0
    assert "nothing to undo: you have not moved yet" in out and "oplayer (random) plays (mark " in out
    after = out.split("took back your last move")[1]
    assert after.count(START) == 2  # after undo, and 'board': the start again


def test_the_role_option(capsys, monkeypatch):
    _stdin(monkeypatch, ["quit"])
    code, out, _ = run(capsys, "play", "--env", "gdl:tictactoe", "--opponent", "random", "--role", "oplayer")
    assert code == 0 and "you play oplayer" in out and "xplayer (random) plays (mark " in out
    with pytest.raises(SystemExit) as exit_:
        main(["play", "--env", "gdl:tictactoe", "--color", "white"])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and err.count("\n") == 1
    assert "argument --color/--role: invalid choice: 'white' (choose from xplayer, oplayer)" in err


def test_simultaneous_moves_are_shown_once_the_person_has_chosen(capsys, monkeypatch):
    """rps_fold: both roles throw at once. Playing the second role, the person must not see
    the first role's throw before typing theirs; undo goes back to before both."""
    _stdin(monkeypatch, ["rock", "undo", "paper", "2", "SCISSORS"])
    code, out, _ = run(capsys, "play", "--env", "gdl:rps_fold", "--opponent", "random", "--role", "right")
    assert code == 0
    lines = [line.removeprefix("> ") for line in out.splitlines()]
    throws = [k for k, line in enumerate(lines) if line.startswith("left (random) plays ")]
    mine = [k for k, line in enumerate(lines) if line.startswith("you play ")]
    assert len(mine) == 4 and len(throws) == 4
    assert all(m < t for m, t in zip(mine, throws, strict=True))  # each round: yours first
    assert "took back your last move" in out
    assert re.search(r"game over after 3 actions: left \d+, right \d+: (you win|you lose|a draw)$", out.strip())


def _recorded(tmp_path):
    """A game of tictactoe between two agents, saved; and its final position as text."""
    final = []
    game = R.record_game(
        "gdl:tictactoe",
        RandomAgent(seed=1),
        RandomAgent(seed=2),
        seed=5,
        on_move=lambda env, a: final.append(env.board_string()),
    )
    R.save_game(game, str(tmp_path / "g.json"))
    return game, final[-1]


def test_replay_of_a_recorded_sheet_game_gives_the_same_final_position(tmp_path):
    game, final = _recorded(tmp_path)
    loaded = R.load_game(str(tmp_path / "g.json"))
    assert loaded["actions"] == game["actions"] and loaded["goals"] == game["goals"] and loaded["over"]
    assert loaded["moves"][0].startswith("(mark ")
    frames = R.text_positions(loaded)
    assert len(frames) == len(game["actions"]) + 1 and frames[-1].endswith(final)
    assert frames[1].startswith(f"1. xplayer plays {game['moves'][0]}\n")
    # the moves alone (GDL text, any case) replay too
    by_moves = R.check_game({"env": "gdl:tictactoe", "moves": [m.upper() for m in game["moves"]]})
    assert by_moves["actions"] == game["actions"]
    with pytest.raises(ValueError, match=r"move 2 \('\(mark 9 9\)'\): \(mark 9 9\) is not a move of oplayer"):
        R.check_game({"env": "gdl:tictactoe", "moves": [game["moves"][0], "(mark 9 9)"]})
    with pytest.raises(ValueError, match="move 1 .*action 10 is out of range"):
        R.check_game({"env": "gdl:tictactoe", "actions": [10]})


def test_replay_draws_a_grid_sheet(tmp_path):
    game, _ = _recorded(tmp_path)
    frames = R.positions(game, cell_px=32)
    assert len(frames) == len(game["actions"]) + 1 and len({f.shape for f in frames}) == 1
    np.testing.assert_array_equal(frames[-1], R.final_image(game, cell_px=32))
    # the first move changes the picture in its own cell only
    x, y = (int(v) for v in re.findall(r"\d+", game["moves"][0]))
    changed = np.argwhere(np.any(frames[0] != frames[1], axis=2))
    row, col = cell_center(x, y, 3, 32)
    assert len(changed) and np.all(np.abs(changed - (row, col)) < 16)
    R.write_gif(frames, str(tmp_path / "g.gif"))
    with Image.open(tmp_path / "g.gif") as im:
        assert im.n_frames == len(frames)


def test_replay_command_for_sheets(capsys, tmp_path):
    saved, gif, txt = tmp_path / "g.json", tmp_path / "g.gif", tmp_path / "g.txt"
    argv = ["replay", "--env", "gdl:tictactoe", "--white", "mcts:30", "--black", "random", "--no-progress"]
    code, out, _ = run(capsys, *argv, "--out", str(gif), "--save", str(saved))
    assert code == 0 and out.startswith("gdl:tictactoe: mcts:30 (xplayer) vs random (oplayer), ")
    game = json.loads(saved.read_text())
    with Image.open(gif) as im:
        assert im.n_frames == len(game["actions"]) + 1
    code, out2, _ = run(capsys, "replay", "--load", str(saved), "--out", str(txt))
    assert code == 0 and out2.splitlines()[0] == out.splitlines()[0]
    assert txt.read_text().startswith("start\n" + START)
    # a sheet without a grid: text, and a one-line error for a picture, before any game is played
    code, _, err = run(capsys, "replay", "--env", "gdl:rps_fold", "--out", str(tmp_path / "r.gif"))
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "rps_fold has no grid" in err and "--out GAME.txt writes its positions as text" in err
    code, out, _ = run(capsys, "replay", "--env", "gdl:rps_fold", "--out", str(tmp_path / "r.txt"))
    assert code == 0 and re.search(r"random \(left\) vs random \(right\), 6 actions", out)
    text = (tmp_path / "r.txt").read_text()
    assert "1. left plays " in text and "\n2. right plays " in text  # both throws, then the position


def test_an_arena_file_of_a_sheet_replays(capsys, tmp_path):
    out = tmp_path / "a.json"
    argv = ["arena", "--env", "gdl:tictactoe", "--agents", "random,mcts:20", "--games", "2", "--no-progress"]
    assert main(argv + ["--json", str(out)]) == 0
    capsys.readouterr()
    data = json.loads(out.read_text())
    code, text, _ = run(capsys, "replay", "--load", str(out), "--index", "1", "--out", str(tmp_path / "g.png"))
    assert code == 0 and text.startswith("gdl:tictactoe: mcts:20 (xplayer) vs random (oplayer), ")
    goals = data["games"][1]["goals"]
    assert f"goals {goals[0]}-{goals[1]}" in text
    assert Image.open(tmp_path / "g.png").size[0] > 100


def test_three_roles_the_opponent_plays_the_other_two(capsys, monkeypatch, tmp_path):
    sheet = tmp_path / "pick.kif"
    sheet.write_text(
        "(role a) (role b) (role c) (n 1) (n 2) (init (round 0)) (<= (input ?r (pick ?x)) (role ?r) (n ?x))"
        " (<= (legal ?r (pick ?x)) (role ?r) (n ?x)) (<= (next (picked ?r ?x)) (does ?r (pick ?x)))"
        " (<= (next (round 1)) (true (round 0))) (<= terminal (true (round 1)))"
        " (<= (goal ?r 100) (true (picked ?r 2))) (<= (goal ?r 0) (true (picked ?r 1)))"
        " (<= (goal ?r 0) (role ?r) (true (round 0)))"
    )
    _stdin(monkeypatch, ["pick 2"])
    code, out, _ = run(capsys, "play", "--env", f"gdl:{sheet}", "--opponent", "random", "--role", "b", "--seed", "1")
    assert code == 0 and "you play b, random plays the other roles." in out
    lines = [line.removeprefix("> ") for line in out.splitlines()]
    mine = lines.index("you play (pick 2)")
    assert [line.split(" (random) plays ")[0] for line in lines[mine + 1 : mine + 3]] == ["a", "c"]
    m = re.search(r"game over after 1 actions: a (\d+), b 100, c (\d+): (.*)$", out.strip())
    assert m and m.group(3) == ("a draw" if "100" in m.group(1, 2) else "you win")
