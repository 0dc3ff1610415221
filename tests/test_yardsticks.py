"""benchmarks/yardsticks.py's bookkeeping: the ladder's pairs, games appended as they end,
a stopped ladder resumed without replaying a game, and the table from the records."""

import json
import os
import runpy

import pytest

SCRIPT = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "yardsticks.py")


def test_ladder_pairs_each_agent_with_the_next_two():
    ys = runpy.run_path(SCRIPT)
    assert ys["ladder_pairs"](4) == [(0, 1), (0, 2), (1, 2), (1, 3), (2, 3)]
    assert ys["ladder_pairs"](2) == [(0, 1)]


def test_a_stopped_ladder_goes_on_where_it_was(tmp_path, capsys):
    ys = runpy.run_path(SCRIPT)
    out = str(tmp_path)
    args = ["--env", "skirmish_endgame_v0", "--agents", "random,greedy,mcts:16", "--games", "2", "--out", out]
    path = os.path.join(out, "skirmish_endgame_v0.jsonl")
    assert ys["main"](args) == 0
    with open(path) as f:
        first = [json.loads(line) for line in f]
    assert sorted((d["pair"], d["game"]) for d in first) == [(p, g) for p in range(3) for g in range(2)]
    # colours alternate within a pair
    assert [d["white"] for d in first if d["pair"] == 0] == ["random", "greedy"]
    # stop mid-ladder: drop the last two games; a second run plays exactly those
    with open(path, "w") as f:
        f.writelines(json.dumps(d) + "\n" for d in first[:-2])
    capsys.readouterr()
    assert ys["main"](args) == 0
    printed = capsys.readouterr().out
    assert "2 to play" in printed
    with open(path) as f:
        again = [json.loads(line) for line in f]
    assert len(again) == 6 and again[:4] == first[:4]
    same = ("white", "black", "goals", "score", "actions")
    assert [{k: d[k] for k in same} for d in again[4:]] == [{k: d[k] for k in same} for d in first[4:]]
    # --table plays nothing and rates what is recorded (greedy is the anchor, rated 0)
    assert ys["main"]([*args, "--table"]) == 0
    table = capsys.readouterr().out
    assert "to play" not in table and "| `greedy` | +0 |" in table and "(6 games, 6 distinct; each pair" in table
    assert all(d["openings"] == 4 and d["opening"] == 4 for d in again)
    # games 2k and 2k+1 of a pair: the same opening, the seats swapped
    assert again[0]["actions"][:4] == again[1]["actions"][:4] and again[0]["white"] == again[1]["black"]
    # going on with other openings would mix two protocols: refused
    with pytest.raises(SystemExit) as stop:
        ys["main"]([*args, "--openings", "0"])
    assert stop.value.code == 2 and "--openings 4" in capsys.readouterr().err


def test_records_from_before_openings_count_their_distinct_games(tmp_path, capsys):
    """Old records (no openings): deterministic agents' repeated games are counted once and flagged."""
    ys = runpy.run_path(SCRIPT)
    game = {"goals": [1, 0], "score": 1.0, "length": 2, "truncated": False, "seconds": 0.1, "actions": [3, 4]}
    lines = [
        {"pair": 0, "game": g, "white": w, "black": b, **game}
        for g, (w, b) in enumerate([("random", "greedy"), ("greedy", "random")] * 3)
    ]
    path = tmp_path / "skirmish_endgame_v0.jsonl"
    path.write_text("".join(json.dumps(d) + "\n" for d in lines))
    args = ["--env", "skirmish_endgame_v0", "--agents", "random,greedy", "--out", str(tmp_path), "--table"]
    assert ys["main"](args) == 0
    table = capsys.readouterr().out
    assert "(6 games, 2 distinct; from the start" in table and "warning: only 2 of the 6 games differ" in table
    assert "| `greedy` | +0 | 0 | 6 | 2 |" in table


@pytest.mark.parametrize("option", ["--out", "--plot"])
def test_unwritable_outputs_are_refused_before_any_game(tmp_path, option, capsys):
    ys = runpy.run_path(SCRIPT)
    (tmp_path / "f").write_text("x")
    bad = str(tmp_path / "f" / "out")
    if option == "--out":
        argv = ["--env", "skirmish_endgame_v0", "--agents", "random,greedy", "--out", bad]
    else:
        argv = ["--agents", "random,greedy", "--plot", "nothing.jsonl", "--image", bad + ".png"]
    with pytest.raises(SystemExit) as stop:
        ys["main"](argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "cannot write" in err and "to play" not in err


LADDER = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "az_ladder.py")


@pytest.mark.parametrize(
    "argv", [["--env", "skirmish_v0", "--run", "nowhere", "--json"], ["--plot", "x.json", "--out"]]
)
def test_the_az_ladder_checks_its_outputs_first(tmp_path, argv, capsys):
    ladder = runpy.run_path(LADDER)
    (tmp_path / "f").write_text("x")
    with pytest.raises(SystemExit) as stop:  # before the run folder or the plotted files are looked at
        ladder["main"]([*argv, str(tmp_path / "f" / "out")])
    assert stop.value.code == 2 and "cannot write" in capsys.readouterr().err


def test_the_az_ladder_rates_pairs_by_their_distinct_games():
    ladder = runpy.run_path(LADDER)
    pair = {"agent": "greedy", "opponent": "a", "games": 20, "wins": 15, "draws": 0, "losses": 5}
    data = {"agents": ["random", "greedy", "a"], "anchor_specs": ["random", "greedy"], "pairs": [pair]}
    data["pairs"].append({"agent": "random", "opponent": "greedy", "games": 20, "wins": 5, "draws": 0, "losses": 15})
    elo, margin = ladder["ratings"](data)["a"]
    pair["distinct"] = 2  # the same score from 2 distinct games: still below greedy, a far wider margin
    elo2, margin2 = ladder["ratings"](data)["a"]
    assert elo < elo2 < 0 and margin2 > 2 * margin
