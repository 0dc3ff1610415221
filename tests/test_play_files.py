"""The terminal commands on Ctrl-C, and the moves the env plays by itself."""

import os
import signal
import subprocess
import sys
import time

import pytest


def _interrupt_while_thinking(argv, wait_for: str, delay: float = 1.5):
    env = dict(os.environ, PYTHONPATH=os.getcwd(), PYTHONUNBUFFERED="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ggpzoo", *argv],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    seen = ""
    deadline = time.time() + 300
    while wait_for not in seen and time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        seen += line
    assert wait_for in seen, seen + proc.stderr.read()
    time.sleep(delay)  # the opponent is searching now
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    return proc.returncode, seen + out, err


@pytest.mark.parametrize("opponent", ["mcts:5s", "mcts"])
def test_ctrl_c_while_the_opponent_thinks_says_bye(opponent):
    argv = ["play", "--env", "gdl:tictactoe", "--opponent", opponent, "--role", "oplayer"]
    code, out, err = _interrupt_while_thinking(argv, "you play oplayer")
    assert code == 130
    assert "bye" in out
    assert "Traceback" not in err and "SystemError" not in err


def test_ctrl_c_during_an_arena_says_bye():
    argv = [
        "arena",
        "--env",
        "gdl:tictactoe",
        "--agents",
        "mcts:3s,random",
        "--games",
        "20",
        "--openings",
        "0",
        "--no-progress",
    ]
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    proc = subprocess.Popen([sys.executable, "-m", "ggpzoo", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)  # fmt: skip
    time.sleep(12)  # imports, the compile, then a search
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "bye" in out and "Traceback" not in err, err


def _game_ending_in_a_forced_move():
    """The actions of a tic-tac-toe game whose last mark is the env's own (one empty cell left)."""
    import numpy as np

    from ggpzoo.envs import load

    env = load("gdl:tictactoe").raw_env()
    for seed in range(100):
        env.reset()
        rng, actions = np.random.default_rng(seed), []
        while not env.is_game_over():
            actions.append(int(rng.choice(env.legal_actions())))
            env.step(actions[-1])
        if env.forced:
            return actions
    raise AssertionError("no game ended in a forced move")


def test_a_replay_lists_and_saves_the_moves_the_env_played_itself(tmp_path, capsys):
    import json

    from ggpzoo.tools import replay as R
    from ggpzoo.tools.cli import main

    actions = _game_ending_in_a_forced_move()
    assert len(actions) == 8  # the ninth mark: xplayer's only move
    path = tmp_path / "game.json"
    path.write_text(json.dumps({"env": "gdl:tictactoe", "actions": actions}))
    assert (
        main(["replay", "--load", str(path), "--save", str(tmp_path / "out.json"), "--out", str(tmp_path / "g.txt")])
        == 0
    )
    saved = json.loads((tmp_path / "out.json").read_text())
    assert len(saved["moves"]) == 9 and saved["actions"] == actions
    assert sum(m.startswith("(mark") for m in saved["moves"]) == 9
    text = (tmp_path / "g.txt").read_text()
    assert [line.split(".")[0] for line in text.splitlines() if " plays " in line] == [str(k) for k in range(1, 10)]
    assert "9. xplayer plays (mark" in text
    # the moves alone load back, with or without the env's own listed
    for moves in (saved["moves"], saved["moves"][:-1]):
        game = R.check_game({"env": "gdl:tictactoe", "moves": moves})
        assert game["actions"] == actions and game["moves"] == saved["moves"] and game["over"]


def test_play_shows_the_move_the_env_played_itself():
    import io

    from ggpzoo.envs import load
    from ggpzoo.tools.terminal import play_terminal

    actions = _game_ending_in_a_forced_move()
    env = load("gdl:tictactoe").raw_env()
    env.reset()
    typed = []
    for a in actions:
        if env.agent_selection == "xplayer":
            typed.append(env.action_to_string(a))
        env.step(a)

    class Script:  # the opponent plays the game's oplayer moves
        name = "script"

        def __init__(self):
            self.moves = [a for i, a in enumerate(actions) if i % 2 == 1]

        def reset(self, seed=None):
            pass

        def act(self, env):
            return self.moves.pop(0)

    out = io.StringIO()
    lines = iter(typed)
    play_terminal("gdl:tictactoe", Script(), input_fn=lambda prompt: next(lines), out=out)
    text = out.getvalue()
    assert "xplayer plays (mark" in text and "(its only move)" in text
    assert text.count("you play (mark") + text.count("(script) plays (mark") + text.count("(its only move)") == 9


@pytest.mark.parametrize("human", ["xplayer", "oplayer"])
def test_play_against_a_remote_ggp_player(human):
    """play drives a ggp:HOST:PORT opponent as the arena does (START, PLAY every turn, STOP)."""
    import io

    from ggpzoo.agents import make_agent
    from ggpzoo.ggp.player import GGPPlayer, PlayerServer
    from ggpzoo.tools.terminal import play_terminal

    with PlayerServer(GGPPlayer("legal"), port=0) as server:
        host, port = server.address
        remote = make_agent(f"ggp:{host}:{port}", "gdl:tictactoe", seed=1)
        out = io.StringIO()
        assert play_terminal("gdl:tictactoe", remote, human=human, input_fn=lambda prompt: "1", out=out) == 0
        log = server.player.matches[-1]
    text = out.getvalue()
    assert "game over after" in text and "Traceback" not in text
    assert remote.errors == []  # every reply was a legal move, in time
    assert log["result"] == "done"  # the player saw the game to its end (STOP)
    listed = text.count("you play (mark") + text.count(f"({remote.name}) plays (mark") + text.count("(its only move)")
    assert listed == len(log["turns"])  # every move the player was asked for is shown, the env's own too
