"""The arena: games, a tiny round robin (tables add up, colours alternate, Elo moves the
right way), the statistics, reproducibility and output files."""

import csv
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ggpzoo.agents import Agent, GreedyAgent, MCTSAgent, RandomAgent, make_agent
from ggpzoo.envs import ENVS, load
from ggpzoo.tools.arena import ArenaError, elo_ratings, play_game, random_opening, round_robin, wilson

ENV = "skirmish_endgame_v0"


@pytest.fixture(scope="module")
def tiny():
    agents = [RandomAgent(), GreedyAgent(ENV), MCTSAgent(ENV, simulations=30)]
    return round_robin(ENV, agents, games=6, seed=3, progress=False)


def test_play_game_record():
    record = play_game(ENV, GreedyAgent(ENV), RandomAgent(), seeds=(1, 2))
    env = load(ENV).raw_env()
    env.reset()
    for a in record.actions:
        env.step(a)
    assert env.terminations["white"] and record.length == len(record.actions) <= 59
    assert record.goals == (env.infos["white"]["goal"], env.infos["black"]["goal"])
    assert record.score == {1.0: 1.0, 0.0: 0.5, -1.0: 0.0}[env.rewards["white"]]
    assert (record.white, record.black, record.truncated) == ("greedy", "random", False)


def test_tables_add_up(tiny):
    rows = tiny.standings()
    assert [r["agent"] for r in rows] == ["random", "greedy", "mcts:30"]
    assert len(tiny.games) == 3 * 6
    for r in rows:
        assert r["games"] == 12 == r["wins"] + r["draws"] + r["losses"]
        assert r["score"] == pytest.approx((r["wins"] + r["draws"] / 2) / 12)
        assert r["score_low"] <= r["score"] <= r["score_high"]
    assert sum(r["wins"] for r in rows) == sum(r["losses"] for r in rows)
    assert sum(r["draws"] for r in rows) % 2 == 0
    pairs = tiny.pairs()
    assert [(p["agent"], p["opponent"]) for p in pairs] == [
        ("random", "greedy"),
        ("random", "mcts:30"),
        ("greedy", "mcts:30"),
    ]
    for r in rows:  # an agent's total is the sum of its pairs, seen from either side
        mine = [p for p in pairs if r["agent"] in (p["agent"], p["opponent"])]
        wins = sum(p["wins"] if p["agent"] == r["agent"] else p["losses"] for p in mine)
        assert wins == r["wins"]


def test_colours_alternate(tiny):
    for a in tiny.agents:
        for b in tiny.agents:
            if a != b:
                as_white = sum(g.white == a and g.black == b for g in tiny.games)
                assert as_white == 3  # 6 games per pair: 3 with each colour


def test_elo_moves_the_right_way(tiny):
    rows = {r["agent"]: r for r in tiny.standings()}
    assert rows["random"]["elo"] == 0 and rows["random"]["elo_margin"] == 0  # the anchor
    assert rows["greedy"]["elo"] > 100 and rows["mcts:30"]["elo"] > 100
    assert rows["greedy"]["elo_margin"] > 0
    table = tiny.table()
    assert "random vs greedy" in table and "Elo: maximum likelihood" in table
    first = table.splitlines()[3]
    assert "random" not in first  # the table is sorted by Elo: random is not first


def test_elo_ratings_math():
    # two agents, 75%: the Bradley-Terry difference is 400 log10(3) = 190.8
    r, se = elo_ratings(np.array([[0, 7.5], [2.5, 0]]), np.array([[0, 10], [10, 0]]), prior=0)
    assert r[0] == 0 and r[1] == pytest.approx(-400 * math.log10(3))
    assert se[0] == 0 and se[1] > 0
    # a perfect score stays finite with the prior; more games, smaller error
    r1, se1 = elo_ratings(np.array([[0, 10], [0, 0]]), np.array([[0, 10], [10, 0]]))
    r2, se2 = elo_ratings(np.array([[0, 100], [0, 0]]), np.array([[0, 100], [100, 0]]))
    assert np.isfinite(r1).all() and 0 > r1[1] > r2[1]
    # transitive: a > b > c, ratings in that order, symmetric in the anchor
    s = np.array([[0, 7, 9], [3, 0, 7], [1, 3, 0]], float)
    g = np.array([[0, 10, 10], [10, 0, 10], [10, 10, 0]], float)
    ra, _ = elo_ratings(s, g, anchor=0)
    rc, _ = elo_ratings(s, g, anchor=2)
    assert ra[0] > ra[1] > ra[2]
    np.testing.assert_allclose(ra - ra[2], rc)
    # the fit's expected scores equal the observed ones (the likelihood equations)
    r, _ = elo_ratings(s, g, prior=0)
    expected = g / (1 + 10 ** ((r[None, :] - r[:, None]) / 400))
    np.testing.assert_allclose(expected.sum(axis=1), s.sum(axis=1), atol=1e-6)


def test_wilson():
    lo, hi = wilson(8, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.4902, 0.9433)
    assert wilson(0, 10)[0] == 0 and wilson(10, 10)[1] == 1
    assert wilson(5, 10) == pytest.approx((1 - wilson(5, 10)[1], 1 - wilson(5, 10)[0]))
    assert wilson(0, 0) == (0.0, 1.0)


def test_reproducible():
    def run():
        agents = [MCTSAgent(ENV, simulations=20), RandomAgent()]
        return round_robin(ENV, agents, games=2, seed=11, progress=False)

    a, b = run(), run()
    assert [g.actions for g in a.games] == [g.actions for g in b.games]


def test_outputs(tiny, tmp_path):
    tiny.write_csv(tmp_path / "games.csv")
    rows = list(csv.DictReader(open(tmp_path / "games.csv")))
    assert len(rows) == len(tiny.games)
    assert rows[0]["white"] == tiny.games[0].white and float(rows[0]["white_score"]) == tiny.games[0].score
    tiny.write_json(tmp_path / "arena.json")
    data = json.loads((tmp_path / "arena.json").read_text())
    assert data["env"] == ENV and data["agents"] == tiny.agents and data["anchor"] == "random"
    assert [s["agent"] for s in data["standings"]] == tiny.agents
    assert data["games"][0]["actions"] == tiny.games[0].actions


def test_bad_input_and_broken_agents():
    with pytest.raises(ValueError, match="at least two agents"):
        round_robin(ENV, [RandomAgent()], games=2)
    with pytest.raises(ValueError, match="names must differ"):
        round_robin(ENV, [RandomAgent(), RandomAgent()], games=2)
    with pytest.raises(ValueError, match="positive integer"):
        round_robin(ENV, [RandomAgent(), GreedyAgent(ENV)], games=0)

    class Cheater(Agent):
        name = "cheater"

        def __call__(self, obs):
            return int(np.flatnonzero(obs["action_mask"] == 0)[0])

    with pytest.raises(ArenaError, match=r"cheater \(playing black\) broke the rules: action \d+ = .* is illegal"):
        play_game(ENV, RandomAgent(), Cheater())


def test_a_ladder_plays_only_the_pairs_given():
    agents = [RandomAgent(), GreedyAgent(ENV), MCTSAgent(ENV, simulations=20)]
    agents[2].name = "mcts20"
    result = round_robin(ENV, agents, games=2, seed=1, progress=False, pairs=[(0, 1), (2, 1)])
    played = {frozenset((g.white, g.black)) for g in result.games}
    assert played == {frozenset(("random", "greedy")), frozenset(("mcts20", "greedy"))} and len(result.games) == 4
    assert [(p["agent"], p["opponent"]) for p in result.pairs()] == [("random", "greedy"), ("greedy", "mcts20")]
    wins, draws, losses, games = result.matrix()
    assert games[0, 2] == 0 and games[1, 2] == 2
    assert all(math.isfinite(r["elo"]) for r in result.standings())  # connected through greedy
    for bad, message in [
        ([(0, 0)], "two different agents"),
        ([(0, 3)], "two different agents"),
        ([(0, 1), (1, 0)], "repeat"),
    ]:
        with pytest.raises(ValueError, match=message):
            round_robin(ENV, agents, games=2, pairs=bad)


def test_max_steps_cuts_games_to_draws():
    result = round_robin(ENV, [GreedyAgent(ENV), RandomAgent()], games=2, max_steps=1, progress=False)
    assert all(g.truncated and g.score == 0.5 and g.length == 1 for g in result.games)


def test_mean_time_per_move(tmp_path):
    """Each agent's thinking time is its own: a sleeping agent's mean is at least its nap, and
    every column of the outputs carries it."""
    import time as _time

    class Sleepy(RandomAgent):
        name = "sleepy"

        def __call__(self, obs):
            _time.sleep(0.02)
            return super().__call__(obs)

    result = round_robin(ENV, [Sleepy(seed=0), RandomAgent(seed=1)], games=2, seed=0, progress=False)
    for g in result.games:
        assert g.white_moves + g.black_moves == g.length
        assert 0 <= g.white_seconds + g.black_seconds <= g.seconds
    sleepy, rnd = result.move_seconds()
    assert sleepy >= 0.02 > rnd
    rows = {r["agent"]: r for r in result.standings()}
    assert rows["sleepy"]["seconds_per_move"] == sleepy
    table = result.table()
    assert "ms/move" in table.splitlines()[2]
    line = next(x for x in table.splitlines() if " sleepy " in x)
    assert float(line.split()[-1]) == pytest.approx(1000 * sleepy, abs=0.1)
    result.write_csv(tmp_path / "games.csv")
    rows = list(csv.DictReader(open(tmp_path / "games.csv")))
    total = sum(float(r["white_seconds"] if r["white"] == "sleepy" else r["black_seconds"]) for r in rows)
    moves = sum(int(r["white_moves"] if r["white"] == "sleepy" else r["black_moves"]) for r in rows)
    assert total / moves == pytest.approx(sleepy, rel=1e-3)
    result.write_json(tmp_path / "arena.json")
    data = json.loads((tmp_path / "arena.json").read_text())
    assert data["standings"][0]["seconds_per_move"] == sleepy
    assert data["games"][0]["white_moves"] == result.games[0].white_moves


# ----------------------------------------------------------------------------- the openings protocol
class FirstLegal(Agent):
    """Deterministic: always the lowest legal action id."""

    def __init__(self, name):
        self.name = name

    def __call__(self, obs):
        return int(np.flatnonzero(obs["action_mask"])[0])


def _first_two():
    return [FirstLegal("first-a"), FirstLegal("first-b")]


def test_deterministic_agents_from_the_start_play_two_distinct_games():
    result = round_robin(ENV, _first_two(), games=6, seed=0, progress=False, openings=0)
    assert len(result.games) == 6 and result.distinct()[0, 1] == 2 and result.repeats()
    rows = result.standings()
    pair = result.pairs()[0]
    assert [r["distinct"] for r in rows] == [2, 2] and (pair["games"], pair["distinct"]) == (6, 2)
    s = pair["wins"] + 0.5 * pair["draws"]
    # the interval is Wilson's at the observed score with n = 2, not n = 6
    assert (pair["score_low"], pair["score_high"]) == pytest.approx(wilson(s / 6 * 2, 2))
    assert (rows[0]["score_low"], rows[0]["score_high"]) == pytest.approx(wilson(s / 6 * 2, 2))
    table = result.table()
    assert "6 games, 2 distinct" in table.splitlines()[0]
    assert table.splitlines()[1].startswith("warning: only 2 of the 6 games differ") and "independent" in table
    data = result.to_dict()
    assert (data["games_played"], data["distinct"], data["openings"]) == (6, 2, 0) and data["warning"]
    assert [r["distinct"] for r in data["standings"]] == [2, 2] and data["pairs"][0]["distinct"] == 2


def test_repeated_games_widen_the_elo_margin():
    plain = round_robin(ENV, _first_two(), games=6, seed=0, progress=False, openings=0)
    weighted = plain.standings()[1]["elo_margin"]
    _, errors = elo_ratings(*(lambda w, d, _l, g: (w + 0.5 * d, g))(*plain.matrix()))
    assert weighted > 1.96 * errors[1] * 1.5  # 2 distinct games of 6: the margin of 2 games, not 6


def test_openings_make_deterministic_games_distinct():
    result = round_robin(ENV, _first_two(), games=8, seed=5, progress=False, openings=4)
    assert result.distinct()[0, 1] == 8 and not result.repeats() and result.warning() is None
    assert "8 games, 8 distinct" in result.table().splitlines()[0] and "warning" not in result.table()
    for k in range(4):  # games 2k and 2k+1: the same opening, the seats swapped
        a, b = result.games[2 * k], result.games[2 * k + 1]
        assert a.opening == b.opening == 4 and a.actions[:4] == b.actions[:4]
        assert (a.white, a.black) == (b.black, b.white) == ("first-a", "first-b")
        assert a.white_moves + a.black_moves == a.length - 4
    assert len({tuple(g.actions[:4]) for g in result.games}) == 4  # four different openings
    again = round_robin(ENV, _first_two(), games=8, seed=5, progress=False, openings=4)
    assert [g.actions for g in again.games] == [g.actions for g in result.games]
    other = round_robin(ENV, _first_two(), games=8, seed=6, progress=False, openings=4)
    assert [g.actions[:4] for g in other.games] != [g.actions[:4] for g in result.games]


@pytest.mark.parametrize("name", ["gdl:tictactoe", "gdl:rps_fold"])
def test_openings_on_sheets_and_simultaneous_moves(name):
    agents = [make_agent("random", name, seed=0), make_agent("greedy", name, seed=1)]
    result = round_robin(name, agents, games=4, seed=2, progress=False, openings=2)
    for a, b in zip(result.games[::2], result.games[1::2], strict=True):
        assert a.opening == b.opening >= 2 and a.actions[: a.opening] == b.actions[: b.opening]
        assert a.length > a.opening  # the agents played after it
    env = load(name).raw_env()
    for g in result.games:  # every game replays to its end from its actions
        env.reset()
        for x in g.actions:
            env.step(x)
        assert env.is_game_over()


def test_an_opening_is_checked_before_the_game():
    env = load(ENV).raw_env()
    env.reset()
    illegal = int(np.flatnonzero(env.observe("white")["action_mask"] == 0)[0])
    for opening, message in [
        ([illegal], "opening ply 0: action"),
        ([0.5], "whole number"),
        ("12", "sequence of action ids"),
        (list(range(300)), "at most"),
    ]:
        with pytest.raises(ValueError, match=message):
            play_game(ENV, RandomAgent(), RandomAgent(), opening=opening)
    with pytest.raises(ValueError, match="ends the game"):
        play_game(load(ENV).raw_env(max_steps=1), RandomAgent(), RandomAgent(), opening=[env.legal_actions()[0]])
    for bad in (-1, 201, 1.5, True):
        with pytest.raises(ValueError, match="openings must be"):
            round_robin(ENV, _first_two(), games=2, openings=bad)


def test_an_opening_that_would_end_the_game_stops_short():
    """A game cut after 3 steps: a 10-ply opening stops at 2 plies, the longest that leaves it running."""
    env = load(ENV).raw_env(max_steps=3)
    opening = random_opening(env, 10, seed=0)
    assert len(opening) == 2
    result = round_robin(env, _first_two(), games=2, progress=False, openings=10)
    assert all(g.opening == 2 and g.length == 3 for g in result.games)


OPENING_GAMES = [*ENVS, "gdl:tictactoe", "gdl:connect_four", "gdl:rps_fold"]
_ENVS: dict = {}


def _env(name):
    if name not in _ENVS:
        _ENVS[name] = load(name).raw_env()
    return _ENVS[name]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(OPENING_GAMES), plies=st.integers(0, 20), seed=st.integers(0, 2**63 - 1))
def test_random_openings_are_legal_replayable_and_not_terminal(name, plies, seed):
    env = _env(name)
    opening = random_opening(env, plies, seed)
    assert opening == random_opening(name, plies, seed)  # the same seed, the same opening
    replay = load(name).raw_env()
    replay.reset()
    for a in opening:  # legal ply by ply, and never the end
        assert a in replay.legal_actions()
        replay.step(a)
        assert not replay.is_game_over()
    assert replay.at_turn_start()
    if len(opening) < plies:  # cut short only where every next action ends the game
        for a in replay.legal_actions():
            replay.reset()
            for x in [*opening, int(a)]:
                replay.step(x)
            assert replay.is_game_over() or not replay.at_turn_start()
    play_game(env, RandomAgent(seed=1), RandomAgent(seed=2), opening=opening)  # the arena takes it


# ----------------------------------------------------------------------------- the command line
def _no_games(monkeypatch):
    import ggpzoo.tools.arena as arena

    def refuse(*args, **kwargs):
        raise AssertionError("a game was played")

    monkeypatch.setattr(arena, "play_game", refuse)


@pytest.mark.parametrize("where", ["file_as_folder", "proc", "folder", "no_folder"])
def test_cli_refuses_an_unwritable_output_before_any_game(where, tmp_path, monkeypatch, capsys):
    from ggpzoo.tools.cli import main

    (tmp_path / "f").write_text("x")
    path = {
        "file_as_folder": str(tmp_path / "f" / "a.json"),
        "proc": "/proc/ggpzoo-arena.json",
        "folder": str(tmp_path),
        "no_folder": str(tmp_path / "missing" / "a.json"),
    }
    _no_games(monkeypatch)
    for option in ("--json", "--csv"):
        argv = ["arena", "--env", ENV, "--agents", "random,greedy", "--games", "2", "--no-progress"]
        assert main([*argv, option, path[where]]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith(f"python -m ggpzoo arena: error: cannot write {path[where]}") and "\n" not in err


def test_cli_counts_distinct_games_in_its_json(tmp_path, capsys):
    from ggpzoo.tools.cli import main

    out = tmp_path / "arena.json"
    argv = ["arena", "--env", ENV, "--agents", "random,greedy", "--games", "2", "--no-progress", "--json", str(out)]
    assert main(argv) == 0
    data = json.loads(out.read_text())
    assert data["openings"] == 4 and data["distinct"] == 2 and data["interrupted"] is False
    assert [g["opening"] for g in data["games"]] == [4, 4]
    assert "2 games, 2 distinct" in capsys.readouterr().out
    assert main([*argv[:-2], "--openings", "-1"]) == 2
    assert "--openings must be in 0..200" in capsys.readouterr().err


def test_ctrl_c_keeps_the_games_finished(tmp_path, monkeypatch, capsys):
    import ggpzoo.tools.arena as arena
    from ggpzoo.tools.cli import main

    played = []
    real = arena.play_game

    def stopped_at_the_third(*args, **kwargs):
        if len(played) == 2:
            raise KeyboardInterrupt
        played.append(real(*args, **kwargs))
        return played[-1]

    monkeypatch.setattr(arena, "play_game", stopped_at_the_third)
    with pytest.raises(arena.ArenaInterrupted) as stop:
        round_robin(ENV, [RandomAgent(), GreedyAgent(ENV)], games=4, progress=False)
    assert stop.value.result.interrupted and stop.value.result.games == played
    assert isinstance(stop.value, KeyboardInterrupt)
    played.clear()
    out = tmp_path / "arena.json"
    argv = ["arena", "--env", ENV, "--agents", "random,greedy", "--games", "4", "--no-progress", "--json", str(out)]
    assert main(argv) == 130
    data = json.loads(out.read_text())
    assert data["interrupted"] is True and len(data["games"]) == 2
    assert [g["actions"] for g in data["games"]] == [g.actions for g in played]
    assert "interrupted" in capsys.readouterr().out


def test_an_arena_record_lists_the_moves_the_env_played_by_itself():
    """Tic-tac-toe's last mark is forced (the only empty cell): the record's moves list it,
    though no agent chose it, so a game's text and its JSON show every move."""
    from ggpzoo.agents.simple import RandomAgent
    from ggpzoo.tools.arena import play_game

    for seed in range(20):
        rec = play_game("gdl:tictactoe", RandomAgent(), RandomAgent(), seeds=(seed, seed + 1))
        if len(rec.moves) > len(rec.actions):
            break
    else:
        raise AssertionError("no game ended in a forced move")
    assert len(rec.moves) == 9 and len(rec.actions) == 8
    cells = {" ".join(m.split()) for m in rec.moves}
    assert len(cells) == 9 and all(m.startswith("(mark") for m in cells)
