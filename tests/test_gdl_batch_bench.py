"""benchmarks/gdl_batch.py: its batch columns run on ``--games`` games, and ``--threads``
measures ``play_games`` on each number of threads."""

from __future__ import annotations

import os
import runpy
import subprocess
import sys

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "gdl_batch.py")


def test_the_batch_columns_run_on_games(monkeypatch, capsys):
    mod = runpy.run_path(SCRIPT)["main"].__globals__  # the functions' own globals (run_path returns a copy)
    sizes = []

    def fake(game, n, *args, **kwargs):
        sizes.append(n)
        return 1.0

    monkeypatch.setitem(mod, "batched", fake)
    monkeypatch.setitem(mod, "whole_games", fake)
    monkeypatch.setattr(
        sys, "argv", ["gdl_batch.py", "tictactoe", "--games", "96", "--seconds", "0.05", "--repeats", "1", "--no-envs"]
    )
    mod["main"]()
    assert sizes == [96, 96, 96]  # lanes, work areas, play_games; the one-game column plays as many as it needs
    out = capsys.readouterr().out
    assert "play_games x96/s" in out and out.splitlines()[1].startswith("tictactoe")


def test_threads_rows_and_a_count_above_numbas():
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    r = subprocess.run(
        [sys.executable, SCRIPT, "tictactoe", "--games", "64", "--threads", "1", "--repeats", "1"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    row = r.stdout.splitlines()[1]
    assert row.startswith("tictactoe") and "1: " in row and "(1.00x)" in row
    r = subprocess.run(
        [sys.executable, SCRIPT, "tictactoe", "--games", "64", "--threads", "1,2"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert r.returncode != 0 and "--threads 2: numba has 1 threads here" in r.stderr
