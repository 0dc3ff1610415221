"""benchmarks/yardsticks.py's bookkeeping: the ladder's pairs, games appended as they end,
a stopped ladder resumed without replaying a game, and the table from the records."""

import json
import os
import runpy

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
    assert "to play" not in table and "| `greedy` | +0 |" in table and "(6 games)" in table
