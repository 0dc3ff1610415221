"""benchmarks/ggp_matches.py's bookkeeping: the plan of a series, resuming one that was
stopped, the table's figures; one real match of tic-tac-toe through its match function."""

from __future__ import annotations

import json
import os
import runpy

import pytest

from ggpzoo.ggp.player import GGPPlayer, PlayerServer

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "ggp_matches.py")


@pytest.fixture(scope="module")
def bench():
    return runpy.run_path(SCRIPT)


def test_plan_alternates_seats_scrambles_every_second_pair_and_takes_turns(bench):
    jobs = bench["plan"](["tictactoe", "/some/where/madBishops.kif"], 5, 20.0, 1.0, seed=3)
    assert [j["key"] for j in jobs[:4]] == ["tictactoe", "madBishops", "tictactoe", "madBishops"]
    ttt = [j for j in jobs if j["key"] == "tictactoe"]
    assert [j["index"] for j in ttt] == [0, 1, 2, 3, 4]
    assert [j["seat"] for j in ttt] == [0, 1, 0, 1, 0]
    assert [j["scramble"] for j in ttt] == [False, False, True, True, False]
    assert len({j["seed"] for j in jobs}) == len(jobs)
    assert len({j["match_id"] for j in jobs}) == len(jobs)
    assert bench["plan"](["tictactoe"], 2, 20.0, 1.0, seed=3) == ttt[:2]  # the same series, whatever else runs
    with pytest.raises(ValueError, match="same name"):
        bench["plan"](["amazons", "/x/amazons.kif"], 1, 20.0, 1.0)


def _record(seat, goals, errors=None, times=None, sims=(), reused=()):
    n = len(times or errors or [0])
    return {
        "goals": goals,
        "moves": [["a", "b"]] * n,
        "errors": errors or [["", ""]] * n,
        "times": times or [[0.1, 0.1]] * n,
        "series": {"index": 0, "seat": seat, "scramble": False, "seed": 0},
        "player_log": {
            "turns": [
                {"legal": 3, "simulations": s, **({"reused": r} if r else {})}
                for s, r in zip(sims, [*reused, *[0] * len(sims)], strict=False)
            ]
            + [{"legal": 1, "simulations": 0}]
        },
    }


def test_resume_plays_only_the_matches_not_recorded(bench, tmp_path):
    jobs = bench["plan"](["tictactoe", "connect_four"], 3, 20.0, 1.0)
    played = []

    def play_one(job):
        if len(played) == 4:
            raise KeyboardInterrupt  # the series is stopped during its fifth match
        played.append((job["key"], job["index"]))
        return _record(job["seat"], [100, 0])

    with pytest.raises(KeyboardInterrupt):
        bench["run_series"](jobs, str(tmp_path), play_one, log=lambda t: None)
    assert sorted(os.listdir(tmp_path / "tictactoe")) == ["000.json", "001.json"]
    assert not any(n.endswith(".part") for d in ("tictactoe", "connect_four") for n in os.listdir(tmp_path / d))
    before = list(played)
    played.clear()
    n = bench["run_series"](jobs, str(tmp_path), play_one, log=lambda t: None)
    assert n == 2 and played == [("tictactoe", 2), ("connect_four", 2)]  # the two left
    assert before == [("tictactoe", 0), ("connect_four", 0), ("tictactoe", 1), ("connect_four", 1)]
    rec = json.loads((tmp_path / "connect_four" / "001.json").read_text())
    assert rec["series"]["seat"] == 1 and rec["goals"] == [100, 0]  # the reference won: seat 1 is the player's
    assert bench["run_series"](jobs, str(tmp_path), None, log=print) == 0  # nothing left to play


def test_summary_and_table(bench):
    records = [
        _record(0, [100, 0], sims=[10, 30], reused=[0, 8]),  # a win
        _record(1, [50, 50], errors=[["", "illegal move 'x'"], ["late: 2.31 s", ""]], sims=[20]),  # a draw
        _record(1, [100, 0], times=[[0.2, 0.95], [0.1, 0.4]]),  # a loss (the player is seat 1)
        _record(0, None),  # a match that did not end
    ]
    s = bench["summarise"](records)
    assert (s["matches"], s["wins"], s["draws"], s["losses"], s["unfinished"]) == (4, 1, 1, 1, 1)
    assert s["score"] == pytest.approx(0.5)
    assert (s["illegal"], s["timeouts"], s["reference_errors"]) == (1, 0, 1)
    assert s["slowest"] == 0.95 and s["median_simulations"] == 20 and s["median_reused"] == 0
    lo, hi = s["interval"]
    assert lo == pytest.approx(0.1253, abs=1e-3) and hi == pytest.approx(0.8747, abs=1e-3)  # 1.5 of 3
    lo, hi = bench["wilson"](20, 20)
    assert hi == 1.0 and lo == pytest.approx(0.8389, abs=1e-3)  # 20 wins of 20: at least 84%
    table = bench["table"]([("tictactoe", s), ("empty", bench["summarise"]([]))])
    rows = table.splitlines()
    assert len(rows) == 4 and rows[2].startswith("| `tictactoe` | 4 (1 unfinished) | 1 / 1 / 1 | 50% | 13% to 87% |")
    assert "| 0.95 s | 20 |" in rows[2]
    assert rows[3].startswith("| `empty` | 0 | 0 / 0 / 0 | - | 0% to 100% |")
    # alpha-beta turns (a seed game's kernel) are summed up by their depth and nodes
    ab = _record(0, [100, 0])
    ab["player_log"]["turns"] = [{"legal": 5, "depth": d, "nodes": n} for d, n in ((3, 900), (4, 1500), (5, 2100))]
    s = bench["summarise"]([ab])
    assert s["median_simulations"] is None and (s["median_depth"], s["median_nodes"]) == (4, 1500)
    assert "| alpha-beta depth 4, 1,500 nodes |" in bench["table"]([("amazons_10x10", s)])


class _InProcess:
    """Stands for a player server subprocess: an in-process PlayerServer."""

    def __init__(self, agent, log_dir):
        self.server = PlayerServer(GGPPlayer(agent, seed=0, log_dir=log_dir), port=0).start()
        self.port, self.log_dir = self.server.address[1], log_dir
        assert self.server.warmed.wait(900)  # as the subprocess's ensure() waits for INFO's "available"

    def ensure(self):
        pass


def test_a_real_match_with_the_players_log(bench, tmp_path):
    player = _InProcess("mcts", str(tmp_path / "player"))
    reference = _InProcess("random", str(tmp_path / "reference"))
    try:
        jobs = bench["plan"](["tictactoe"], 2, 5.0, 0.3)
        bench["run_series"](jobs, str(tmp_path / "out"), bench["match_player"](player, reference), log=print)
    finally:
        player.server.stop()
        reference.server.stop()
    records = bench["load_records"](str(tmp_path / "out"), "tictactoe")
    assert [r["players"][r["series"]["seat"]] for r in records] == [f"127.0.0.1:{player.port}"] * 2
    assert all(r["player_log"]["match_id"] == j["match_id"] for r, j in zip(records, jobs, strict=True))
    s = bench["summarise"](records)
    assert s["matches"] == 2 and s["illegal"] == s["timeouts"] == 0 and s["median_simulations"] > 0
