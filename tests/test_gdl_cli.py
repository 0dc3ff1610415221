"""``python -m ggpzoo gdl FILE``: a short summary in plain words, and a speed timed over enough play."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ggpzoo import gdl
from ggpzoo.gdl import cli


def _run(capsys, *argv):
    assert cli.main(["tictactoe", "--games", "20", "--seconds", "0.1", "--no-api-test", *argv]) == 0
    return capsys.readouterr().out


def test_summary_is_plain_and_its_speed_is_timed_over_half_a_second(capsys):
    out = _run(capsys)
    assert "roles: xplayer (10 actions), oplayer (10 actions)" in out
    assert "size: 29 fluents, 337 rules" in out
    for internal in ("live_legal", "hold_does", "track_next", "factored", "phase_a", "network:"):
        assert internal not in out, internal
    m = re.search(r"speed, compiled: ([\d,]+) random games, [\d,]+ transitions in ([\d.]+) s", out)
    assert m, out
    assert int(m.group(1).replace(",", "")) >= 20 and float(m.group(2)) >= cli.MIN_PLAY_SECONDS


def test_stats_adds_the_network_counts(capsys):
    out = _run(capsys, "--stats")
    assert "network: atoms 130, rules 337" in out and "live_legal" in out


@settings(max_examples=8, deadline=None)
@given(games=st.integers(1, 40), seconds=st.floats(0.0, 0.02))
def test_compiled_speed_plays_enough(games, seconds):
    net = gdl.load(gdl.game_path("tictactoe")).propnet()
    played, steps, dt, goals = cli.compiled_speed(net, games, seconds)
    assert played >= games and played % games == 0 and dt >= seconds
    assert 5 * played <= steps <= 9 * played  # tic-tac-toe: 5 to 9 moves a game
    assert np.all((goals >= 0) & (goals <= 100)) and abs(goals.sum() - 100) < 1e-6
