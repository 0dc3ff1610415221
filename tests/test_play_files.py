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
    argv = ["arena", "--env", "gdl:tictactoe", "--agents", "mcts:3s,random", "--games", "2", "--no-progress"]
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    proc = subprocess.Popen([sys.executable, "-m", "ggpzoo", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)  # fmt: skip
    time.sleep(12)  # imports, the compile, then a search
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "bye" in out and "Traceback" not in err, err
