"""A GDL game as one more kind of game: ``gdl:SHEET`` names it wherever an env name goes."""

import json

import pytest

import ggpzoo.envs
from ggpzoo import gdl
from ggpzoo.agents import GreedyAgent, MCTSAgent, RandomAgent, make_agent
from ggpzoo.envs import spec
from ggpzoo.envs.gamespec import GameSpec
from ggpzoo.gdl.spec import gdl_game
from ggpzoo.tools.arena import round_robin
from ggpzoo.tools.cli import main


def test_spec_of_a_shipped_sheet_and_of_a_path_agree():
    s = spec("gdl:tictactoe")
    assert isinstance(s, GameSpec) and s.game is not None and spec("amazons_v0").game is None
    assert s.simultaneous and not spec("amazons_v0").simultaneous  # both roles have a choice of moves
    assert s is spec("gdl:tictactoe")  # cached: one load per sheet
    assert s.agents == ("xplayer", "oplayer") and s.sheet == "tictactoe" and s.label == "gdl_tictactoe"
    game = gdl.load(gdl.game_path("tictactoe"))
    assert s.action_counts == {r: len(game.actions[r]) for r in game.roles}
    assert s.num_fluents == len(game.fluents)
    by_path = spec("gdl:" + gdl.game_path("tictactoe"))
    assert by_path.path == s.path and by_path.agents == s.agents
    assert spec("amazons_v0").agents == ("white", "black")


def test_env_factories_are_bound_to_the_sheet():
    module = ggpzoo.envs.load("gdl:connect_four")
    raw = module.raw_env(max_steps=3)
    assert raw.game is spec("gdl:connect_four").game and raw.max_steps == 3
    wrapped = module.env()
    wrapped.reset()
    assert wrapped.agents == list(spec("gdl:connect_four").agents)
    assert spec("gdl:connect_four").env_factory()().unwrapped.game is raw.game
    par = module.parallel_env()
    obs, _ = par.reset()
    assert set(obs) == set(raw.possible_agents)


@pytest.mark.parametrize(
    "name, match",
    [
        ("gdl:nope", "no shipped GDL game 'nope'; shipped: .*tictactoe"),
        ("gdl:missing/x.kif", "no such GDL file"),
        ("gdl:", "a GDL game is named gdl:SHEET"),
        ("nope_v0", r"unknown environment 'nope_v0'; known: .*gdl:SHEET"),
    ],
)
def test_bad_names_say_what_is_wrong(name, match):
    with pytest.raises(ValueError, match=match):
        spec(name)


def test_a_sheet_that_breaks_gdl_is_refused_by_name(tmp_path):
    bad = tmp_path / "bad.kif"
    bad.write_text("(role a) (role b) (<= (legal a ?x) (true (p)))")  # ?x unsafe
    with pytest.raises(gdl.GDLError, match="unsafe|safe"):
        _ = spec(f"gdl:{bad}").agents  # the sheet is read on first use


def test_gdl_game_takes_every_form_and_nothing_else():
    s = spec("gdl:tictactoe")
    assert gdl_game("gdl:tictactoe") is s.game and gdl_game(s) is s.game and gdl_game(s.game) is s.game
    assert gdl_game("skirmish_v0") is None and gdl_game(None) is None


def test_agents_and_arena_take_the_name():
    agent = make_agent("mcts:30", "gdl:tictactoe", seed=0)
    assert isinstance(agent, MCTSAgent) and agent.spec is spec("gdl:tictactoe")
    assert isinstance(make_agent("greedy", "gdl:tictactoe"), GreedyAgent)
    result = round_robin("gdl:tictactoe", [RandomAgent(0), agent], games=2, seed=0, progress=False)
    assert result.env == "gdl:tictactoe" and len(result.games) == 2
    assert all(g.moves[0].startswith("(mark ") for g in result.games)


def _exit_code(argv) -> int:
    try:
        return main(argv)
    except SystemExit as e:  # argparse's errors
        return e.code


def test_cli_takes_env_gdl_and_refuses_what_it_cannot_play(tmp_path, capsys):
    out = tmp_path / "a.json"
    argv = ["arena", "--env", "gdl:tictactoe", "--agents", "random,mcts:20", "--games", "2", "--no-progress"]
    assert main(argv + ["--json", str(out)]) == 0
    assert json.loads(out.read_text())["env"] == "gdl:tictactoe"
    capsys.readouterr()
    three = tmp_path / "three.kif"
    three.write_text(
        "(role a) (role b) (role c) (init (s 0)) (<= (legal ?r go) (role ?r)) (<= (next (s 1)) (true (s 0)))"
        " (<= terminal (true (s 1))) (<= (goal ?r 50) (role ?r))"
    )
    assert _exit_code(["arena", "--env", f"gdl:{three}", "--agents", "random,mcts", "--no-progress"]) != 0
    assert "a two-role game is needed" in capsys.readouterr().err
    one = tmp_path / "one.kif"
    one.write_text(
        "(role a) (init (s 0)) (<= (legal a go)) (<= (next (s 1)) (true (s 0))) (<= terminal (true (s 1)))"
        " (<= (goal a 50))"
    )
    assert _exit_code(["play", "--env", f"gdl:{one}"]) != 0
    assert "play needs a game of two or more roles" in capsys.readouterr().err
    assert _exit_code(["play", "--env", "gdl:no_such_sheet"]) == 2
    assert "no_such_sheet" in capsys.readouterr().err


def test_bench_times_a_sheet_like_any_env(capsys):
    # --env gdl:SHEET: through env() and the batched engine, as every env; --gdl: the GDL benchmark
    assert main(["bench", "--env", "gdl:tictactoe", "--seconds", "0.05"]) == 0
    assert capsys.readouterr().out.splitlines()[2].startswith("gdl:tictactoe ")
    assert main(["bench", "--env=gdl:connect_four", "--batched", "4", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    assert "gdl:connect_four (VectorGames, N=4)" in out and "gdl:connect_four (play)" in out
    assert main(["bench", "--gdl", "tictactoe", "--seconds", "0.05", "--no-exact", "--batch", "0"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[1].startswith("tictactoe ") and "atoms" in out
    with pytest.raises(SystemExit):
        main(["bench", "--env", "gdl:no_such_sheet"])
    assert "no_such_sheet" in capsys.readouterr().err


def test_the_old_spec_class_name_warns_and_is_the_one_spec_class():
    with pytest.warns(DeprecationWarning, match="GameSpec"):
        from ggpzoo.gdl import GDLSpec
    assert GDLSpec is GameSpec


@pytest.mark.parametrize("name", ["gdl:tictactoe", "gdl:connect_four", "skirmish_v0"])
def test_the_protocols_observation_is_the_envs(name):
    """``dispatch.observation`` writes what the AEC env's ``observe`` shows, for kernels and sheets."""
    import numpy as np

    from ggpzoo.engine import dispatch as D

    s = spec(name)
    board, aux = s.new_state()
    T, W = s.tables, s.work()
    legal, goals = np.zeros(s.max_legal, np.int32), np.zeros(s.num_roles, np.int32)
    assert D.status(s.kernel_id, board, aux, T, W, legal, goals) > 0
    env = s.raw_env()
    env.reset(seed=0)
    for r, agent in enumerate(s.agents):
        out = np.zeros(s.planes_shape, np.float32)
        D.observation(s.kernel_id, board, aux, T, r, out)
        assert np.array_equal(out.reshape(s.obs_shape), np.asarray(env.observe(agent)["observation"], np.float32))
