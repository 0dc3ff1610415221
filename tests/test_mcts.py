"""The one MCTS agent (ggpzoo.agents.mcts) and the greedy agent on every game, hand-written kernels
and GDL sheets alike: reproducibility, budgets, reports, acting in every env of a game and the
refusals (parametrized over games); wins and blocks in one on hand-drawn positions of the
shipped sheets, strength against random, the arena and its command line. Simultaneous moves
(decoupled UCT): tests/test_mcts_simultaneous.py; the hand-written games' tactics:
tests/test_agents.py."""

from __future__ import annotations

import doctest
import json

import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.agents import GreedyAgent, MCTSAgent, RandomAgent, make_agent
from ggpzoo.agents.spec import AgentSpecError
from ggpzoo.envs import spec
from ggpzoo.gdl.states import state_from_fluents
from ggpzoo.tools.arena import play_game, round_robin
from ggpzoo.tools.cli import main

# Tic-tac-toe with a positive cycle in its ground network (linked 1 <-> linked 2), which the
# compiled path evaluates by full passes instead of change propagation: the other code path.
# The extra terminal rule changes nothing (line x already ends the game).
CYCLIC_EXTRA = """
(<= (linked 1) (true (control xplayer)))
(<= (linked 1) (linked 2))
(<= (linked 2) (linked 1))
(<= terminal (line x) (linked 1))
"""

# One round where only left chooses, then one where both choose at once.
TURN_THEN_SIMULTANEOUS = """
(role left) (role right)
(move a) (move b) (move noop)
(succ 1 2) (succ 2 3)
(<= (input ?r ?m) (role ?r) (move ?m))
(init (step 1))
(<= (legal left a) (true (step 1)))
(<= (legal left b) (true (step 1)))
(<= (legal right noop) (true (step 1)))
(<= (legal ?r a) (role ?r) (true (step 2)))
(<= (legal ?r b) (role ?r) (true (step 2)))
(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
(<= terminal (true (step 3)))
(<= (goal ?r 50) (role ?r))
"""

# Left's a wins whatever right plays; its b wins only against c.
DOMINANT = """
(role left) (role right)
(<= (input left ?m) (lmove ?m)) (lmove a) (lmove b)
(<= (input right ?m) (rmove ?m)) (rmove c) (rmove d)
(init (round 1))
(<= (legal left ?m) (true (round 1)) (lmove ?m))
(<= (legal right ?m) (true (round 1)) (rmove ?m))
(<= (next (won left)) (does left a))
(<= (next (won left)) (does left b) (does right c))
(<= (next (round 2)) (true (round 1)))
(<= terminal (true (round 2)))
(<= (goal left 100) (true (won left)))
(<= (goal left 0) (not (true (won left))))
(<= (goal right 0) (true (won left)))
(<= (goal right 100) (not (true (won left))))
"""

RPS = """
(role left) (role right)
(beats rock scissors) (beats scissors paper) (beats paper rock)
(<= (input ?r ?m) (role ?r) (beats ?m ?x))
(init (round 1))
(<= (legal ?r ?m) (role ?r) (true (round 1)) (beats ?m ?x))
(<= (next (round 2)) (true (round 1)))
(<= terminal (true (round 2)))
(<= (goal ?r 50) (role ?r))
"""

_GAMES: dict = {}


def game(name):
    if name not in _GAMES:
        if name == "tictactoe_cyclic":
            with open(gdl.game_path("tictactoe")) as f:
                _GAMES[name] = gdl.load(f.read() + CYCLIC_EXTRA, name=name)
        else:
            _GAMES[name] = gdl.load(gdl.game_path(name))
    return _GAMES[name]


def tictactoe(g, rows: str, to_move: str):
    """A state from three rows of ``x``, ``o``, ``.``, top row y = 1, columns x = 1..3."""
    marks = [line.split() for line in rows.strip().splitlines()]
    fl = [f"(cell {x + 1} {y + 1} {'b' if m == '.' else m})" for y, row in enumerate(marks) for x, m in enumerate(row)]
    return state_from_fluents(g, fl + [f"(control {to_move})"])


def connect_four(g, rows: str, to_move: str):
    """A state from six rows of ``r``, ``b``, ``.``, the top row first (y = 6), columns x = 1..7."""
    rows = [line.split() for line in rows.strip().splitlines()]
    colour = {"r": "red", "b": "black"}
    fl = [f"(cell {x + 1} {6 - i} {colour[m]})" for i, row in enumerate(rows) for x, m in enumerate(row) if m != "."]
    return state_from_fluents(g, fl + [f"(control {to_move})"])


def term(g, role, action):
    return gdl.raw_env(g).action_to_term(action, role=role)


# ----------------------------------------------------------------------------- tactics
@pytest.mark.parametrize("name", ["tictactoe", "tictactoe_cyclic"])
@pytest.mark.parametrize(
    "rows,to_move,move",
    [
        ("x x .\no o .\n. . .", "xplayer", "(mark 3 1)"),  # x wins in one
        ("o o .\nx . .\n. . x", "xplayer", "(mark 3 1)"),  # x blocks o's row
        ("x . .\no o .\nx . x", "oplayer", "(mark 3 2)"),  # o wins rather than block x's bottom row
        ("x x .\n. o .\n. . .", "oplayer", "(mark 3 1)"),  # o blocks x's row
    ],
)
def test_tictactoe_wins_and_blocks_in_one(name, rows, to_move, move):
    g = game(name)
    state = tictactoe(g, rows, to_move)
    for seed in range(3):
        agent = MCTSAgent(g, simulations=300, seed=seed)
        assert term(g, to_move, agent(state)) == move
        assert agent(state, role=to_move) == gdl.raw_env(g).term_to_action(move, role=to_move)
    assert g.propnet().incremental == (name == "tictactoe")


EMPTY3 = ". . . . . . .\n" * 3


@pytest.mark.parametrize(
    "rows,to_move,move",
    [
        # red wins along the bottom row
        (". . . . . . .\n. . . . . . .\n. . . . . . .\n. . . . . . .\nb b . . . . .\nr r r . . b .", "red", "(drop 4)"),
        # red must block black's bottom row (its own row above cannot be finished yet)
        (". . . . . . .\n. . . . . . .\n. . . . . . .\n. . . . . . .\nr r r . . . .\nb b b . . . .", "red", "(drop 4)"),
        # black wins up column 7 rather than block red's bottom row
        (EMPTY3 + ". . . . . . b\nr . . . . . b\nr r r . . . b", "black", "(drop 7)"),
        # black blocks red's column 2
        (EMPTY3 + ". r . . . . .\n. r . . . . .\nb r . . . b .", "black", "(drop 2)"),
    ],
)
def test_connect_four_wins_and_blocks_in_one(rows, to_move, move):
    g = game("connect_four")
    state = connect_four(g, rows, to_move)
    for seed in range(2):
        assert term(g, to_move, MCTSAgent(g, simulations=1000, seed=seed)(state)) == move


def test_mcts_beats_random_at_tictactoe():
    g = game("tictactoe")
    agents = [make_agent("mcts:200", g, seed=1), make_agent("random", g, seed=2)]
    result = round_robin(g, agents, games=20, seed=0, progress=False)
    row = result.standings()[0]
    assert result.env == "gdl:tictactoe" and row["games"] == 20
    assert row["losses"] <= 1 and row["score"] >= 0.8 and row["score_low"] > 0.6
    moves = result.games[0].moves
    assert moves[0].startswith("(mark ") and "noop" not in moves  # forced noops are not moves of the record


def test_mcts_beats_random_at_connect_four():
    g = game("connect_four")
    agents = [make_agent("mcts:200", g, seed=1), make_agent("random", g, seed=2)]
    row = round_robin(g, agents, games=6, seed=0, progress=False).standings()[0]
    assert row["wins"] >= 5


# ----------------------------------------------------------------------------- every game
GAMES = ["skirmish_v0", "amazons_split_v0", "gdl:tictactoe", "gdl:connect_four", "gdl:rps_fold"]


def some_state(name, plies=2):
    """A state of game ``name`` a few random moves in, as its env's get_state(), with the role to act."""
    env = spec(name).raw_env()
    env.reset()
    rng = np.random.default_rng(0)
    for _ in range(plies):
        env.step(int(rng.choice(env.legal_actions())))
    return env


@pytest.mark.parametrize("name", GAMES)
def test_reproducible_and_reports_its_search(name):
    env = some_state(name)
    state, role = env.get_state(), env.agent_selection
    a = MCTSAgent(name, simulations=300, seed=7)
    b = MCTSAgent(name, simulations=300, seed=7)
    first = [a(state, role=role) for _ in range(3)]
    assert first == [b(state, role=role) for _ in range(3)]
    assert all(m in env.legal_actions() for m in first)
    info = a.last_search
    assert info["simulations"] == 300 and 1 < info["nodes"] <= 301 and info["legal"] == len(env.legal_actions())
    assert 0 < info["visits"] <= 300 and 0 <= info["value"] <= 1
    a.reset(seed=7)
    assert [a(state, role=role) for _ in range(3)] == first
    # the work area's history (here: another search, of another state) changes nothing
    a.reset(seed=7)
    MCTSAgent(name, simulations=50, seed=3)(spec(name).new_state(), role=spec(name).agents[0])
    a(spec(name).new_state(), role=spec(name).agents[0])
    a.reset(seed=7)
    assert a(state, role=role) == first[0]
    # act(env) is agent(state, role=agent_selection); a spec names the same game
    a.reset(seed=7)
    assert a.act(env) == first[0]
    assert make_agent("mcts:300", spec(name), seed=7)(state, role=role) == first[0]


@pytest.mark.parametrize("name", GAMES)
def test_greedy_plays_every_game(name):
    env = some_state(name, plies=1)
    moves = {GreedyAgent(name, seed=seed).act(env) for seed in range(8)}
    assert moves <= set(env.legal_actions().tolist())
    assert make_agent("greedy", name).act(env) in env.legal_actions()
    with pytest.raises(ValueError, match="game is over"):
        while not env.is_game_over():
            env.step(GreedyAgent(name, seed=0).act(env))
        GreedyAgent(name, seed=0)(env.get_state())


@pytest.mark.parametrize("name", ["gdl:tictactoe", "gdl:tictactoe_cyclic"])
def test_greedy_takes_a_win_in_one_of_a_sheet(name):
    g = game(name[4:])
    for rows, to_move, move in [
        ("x x .\no o .\n. . .", "xplayer", "(mark 3 1)"),
        ("x . .\no o .\nx . x", "oplayer", "(mark 3 2)"),
    ]:
        state = tictactoe(g, rows, to_move)
        assert {term(g, to_move, GreedyAgent(g, seed=seed)(state)) for seed in range(6)} == {move}
    # no win in one: random among the legal moves, the waiting role its one move (noop)
    start = g.propnet().init
    assert len({GreedyAgent(g, seed=seed)(start) for seed in range(12)}) > 3
    assert term(g, "oplayer", GreedyAgent(g, seed=0)(start, role="oplayer")) == "noop"


def test_greedy_at_simultaneous_moves_counts_the_worst_reply():
    """Left's ``a`` wins whatever right plays, ``b`` wins against one reply only: greedy left
    plays ``a``; right has nothing to gain (it loses to ``a`` either way), so plays at random."""
    sheet = gdl.load(DOMINANT, name="dominant")
    env = gdl.raw_env(sheet)
    env.reset()
    assert {env.action_to_term(GreedyAgent(sheet, seed=s).act(env)) for s in range(8)} == {"a"}
    env.step(env.term_to_action("b"))  # right does not see it: the state is the one before the joint move
    assert {env.action_to_term(GreedyAgent(sheet, seed=s).act(env)) for s in range(16)} == {"c", "d"}
    with pytest.raises(ValueError, match="pass role="):
        GreedyAgent(sheet, seed=0)(env.get_state())


def test_seconds_budget_and_exact_path_states():
    g = game("tictactoe")
    agent = make_agent("mcts:0.05s", g, seed=0)
    env = gdl.raw_env(g, backend="exact")  # states are frozensets of fluents there
    env.reset()
    assert agent.act(env) in env.legal_actions()
    assert agent.last_search["simulations"] > 10 and 0.05 <= agent.last_search["seconds"] < 2
    assert GreedyAgent(g, seed=0).act(env) in env.legal_actions()
    # the fluents that hold, as text, are a state too
    assert agent(["(control xplayer)"] + [f"(cell {x} {y} b)" for x in (1, 2, 3) for y in (1, 2, 3)]) in range(9)


def test_a_time_budget_shorter_than_a_simulation_runs_one():
    # the first chunk of a search by the clock is one simulation: on a large sheet one takes
    # 50 ms, and a first chunk of eight made a GGP player's 1 s reply late
    agent = MCTSAgent("amazons_v0", seconds=1e-6, seed=0)
    agent(spec("amazons_v0").new_state(), role=spec("amazons_v0").agents[0])
    assert agent.last_search["simulations"] == 1


def test_a_search_lets_other_threads_run():
    # the search runs without the GIL: a thread beside it (a GGP player answering the server
    # when the clock is up) gets the CPU while a long batch of simulations runs
    import threading
    import time

    state, role = spec("amazons_v0").new_state(), spec("amazons_v0").agents[0]
    MCTSAgent("amazons_v0", simulations=10, seed=0)(state, role=role)  # compiled (or loaded) first
    n = 200
    while True:  # a budget that takes half a second or more on this machine
        agent = MCTSAgent("amazons_v0", simulations=n, seed=0)
        agent(state, role=role)
        if agent.last_search["seconds"] > 0.5 or n >= 200_000:
            break
        n *= 2
    gaps, stop = [], threading.Event()

    def tick():
        last = time.perf_counter()
        while not stop.is_set():
            time.sleep(0.002)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    t = threading.Thread(target=tick)
    t.start()
    try:
        t0 = time.perf_counter()
        agent(state, role=role)  # one call into the search: n simulations
        took = time.perf_counter() - t0
    finally:
        stop.set()
        t.join()
    assert took > 0.3, (took, n)  # long enough for the check to mean something
    assert max(gaps) < took / 2, (max(gaps), took)


def test_plays_an_env_of_another_load_of_the_same_sheet():
    g = game("tictactoe")
    env = gdl.raw_env(gdl.load(gdl.game_path("tictactoe")))
    env.reset()
    for cell in ("(mark 1 1)", "(mark 3 3)", "(mark 2 1)", "(mark 1 3)"):
        env.step(env.term_to_action(cell))
    assert env.action_to_term(MCTSAgent(g, simulations=300, seed=0).act(env)) == "(mark 3 1)"


# ----------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("name", ["skirmish_v0", "gdl:tictactoe"])
def test_bad_settings_are_a_clear_error(name):
    for seed in (-1, 1.5, True, "0"):
        with pytest.raises(ValueError, match="seed must be"):
            MCTSAgent(name, simulations=10, seed=seed)
        with pytest.raises(ValueError, match="seed must be"):
            GreedyAgent(name, seed=seed)
    for kwargs, message in [
        ({"simulations": 0}, "simulations must be"),
        ({"simulations": 2.5}, "simulations must be"),
        ({"seconds": -1}, "seconds must be"),
        ({"seconds": float("nan")}, "seconds must be"),
        ({"simulations": 5, "seconds": 1}, "not both"),
        ({"value": "x"}, "value must be one of"),
        ({"c": -1}, "c must be"),
        ({"c": True}, "c must be"),
        ({"max_rollout": 0}, "max_rollout must be"),
    ]:
        with pytest.raises(ValueError, match=message):
            MCTSAgent(name, **kwargs)
    start = spec(name).new_state()
    for agent in (MCTSAgent(name, simulations=10, seed=0), GreedyAgent(name, seed=0)):
        with pytest.raises(ValueError, match="role must be one of"):
            agent(start, role="nobody")
        with pytest.raises(TypeError, match="takes a game state"):
            agent({"observation": 0})
        with pytest.raises(TypeError, match="takes a game state"):
            agent(None)
    with pytest.raises(ValueError, match="unknown environment"):
        MCTSAgent("no_such_game_v0")


def test_bad_states_are_a_clear_error():
    g = game("tictactoe")
    over = tictactoe(g, "x x x\no o .\n. . .", "oplayer")
    for agent in (MCTSAgent(g, simulations=10), GreedyAgent(g)):
        with pytest.raises(ValueError, match="game is over"):
            agent(over)
    agent = MCTSAgent(g, simulations=10, seed=0)
    start = g.propnet().init
    with pytest.raises(ValueError, match="not a state of tictactoe"):
        agent(np.zeros(len(start) + 1, np.uint8))
    with pytest.raises(ValueError, match="0 or 1"):
        agent(start * 7)
    with pytest.raises(ValueError, match="not a state of tictactoe"):
        agent((start, start))  # a pair is (board, aux)
    with pytest.raises(ValueError, match="not a fluent of tictactoe"):
        state_from_fluents(g, ["(cell 4 4 x)"])
    with pytest.raises(ValueError, match="not a fluent of tictactoe"):
        agent(["(cell 4 4 x)"])
    assert term(g, "oplayer", agent(start, role="oplayer")) == "noop"  # a forced move needs no search
    board, aux = spec("gdl:tictactoe").new_state()
    assert agent((board, aux), role="xplayer") in range(9)  # the protocol's own state
    with pytest.raises(ValueError, match="aux is"):
        agent((board, np.array([0, 3, 0])))
    from ggpzoo.envs import load

    other = load("mad_bishops_v0").raw_env()  # an env of another game: its states are not this game's
    other.reset()
    with pytest.raises(ValueError, match="not a state of tictactoe"):
        agent.act(other)
    c4 = gdl.raw_env(game("connect_four"))
    c4.reset()
    with pytest.raises(ValueError, match="not a state of tictactoe"):
        agent.act(c4)
    kernel_agent = MCTSAgent("skirmish_v0", simulations=10)
    with pytest.raises(ValueError, match="a state is a pair \\(board, aux\\)"):
        kernel_agent.act(c4)
    env = load("skirmish_v0").raw_env()
    env.reset()
    with pytest.raises(ValueError, match="black is not to move here"):
        kernel_agent(env.get_state(), role="black")
    with pytest.raises(AgentSpecError, match="MCTS budget"):
        make_agent("mcts:zero", g)


def test_deprecated_names_still_work():
    import ggpzoo.agents

    with pytest.warns(DeprecationWarning, match="use ggpzoo.agents.MCTSAgent"):
        assert ggpzoo.agents.GDLMCTSAgent is MCTSAgent
    with pytest.warns(DeprecationWarning, match="ggpzoo.gdl.states.state_from_fluents"):
        from ggpzoo.agents.gdl_mcts import state_from_fluents as old
    assert old is state_from_fluents


def test_simultaneous_moves_are_searched():
    """Decoupled UCT (tests/test_mcts_simultaneous.py has the details): at a state where
    both roles choose, and in a tree that reaches one below a turn."""
    rps = gdl.load(RPS, name="rps")
    env = gdl.raw_env(rps)
    env.reset()
    agent = MCTSAgent(rps, simulations=30, seed=0)
    assert agent.act(env) in env.legal_actions() and agent.last_search["simulations"] == 30
    env.step(agent.act(env))
    assert env.agent_selection == "right" and agent.act(env) in env.legal_actions()
    later = gdl.load(TURN_THEN_SIMULTANEOUS, name="later")
    env = gdl.raw_env(later)
    env.reset()
    agent = MCTSAgent(later, simulations=50, seed=0)
    assert env.action_to_term(agent.act(env)) in ("a", "b")
    assert agent.last_search["nodes"] > 3  # the root, its two children, and joint moves below
    # the network is left usable: the env plays on
    env.step(env.term_to_action("a"))
    assert env.agent_selection == "left" and list(env.legal_terms()) == ["a", "b"]
    three = gdl.load(RPS.replace("(role right)", "(role right) (role third)"), name="three")
    with pytest.raises(ValueError, match="two-player"):
        play_game(three, RandomAgent(0), RandomAgent(1))


# ----------------------------------------------------------------------------- command line
def test_cli_arena_plays_a_gdl_sheet(tmp_path, capsys):
    out = tmp_path / "arena.json"
    sheet = gdl.game_path("tictactoe")
    argv = ["arena", "--gdl", sheet, "--agents", "random,mcts:50", "--games", "4", "--no-progress"]
    assert main(argv + ["--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert f"gdl:{sheet}: 2 agents, 4 games per pair" in text and "random vs mcts:50" in text
    data = json.loads(out.read_text())
    assert len(data["games"]) == 4 and {g["white"] for g in data["games"]} == {"random", "mcts:50"}
    assert all(m.startswith("(mark ") for g in data["games"] for m in g["moves"])
    assert main(["arena", "--gdl", "connect_four", "--agents", "greedy,mcts:20", "--games", "2", "--no-progress"]) == 0
    assert "gdl:connect_four" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--gdl", "no_such_sheet"], "no shipped GDL game 'no_such_sheet'"),
        (["--gdl", "tictactoe", "--agents", "random,alphazero"], "unknown agent; use random"),
        (["--gdl", "THREE"], "a two-role game is needed"),
    ],
)
def test_cli_arena_gdl_errors(argv, message, tmp_path, capsys):
    if "THREE" in argv:
        path = tmp_path / "three.kif"
        path.write_text(RPS.replace("(role right)", "(role right) (role third)"))
        argv = ["--gdl", str(path)]
    if "--agents" not in argv:
        argv = argv + ["--agents", "random,mcts:10"]
    try:  # a bad sheet is argparse's error (exit 2), bad agents ours (1)
        code = main(["arena", *argv, "--games", "2", "--no-progress"])
    except SystemExit as e:
        code = e.code
    assert code in (1, 2) and message in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["arena", "--gdl", "tictactoe", "--env", "mad_bishops_v0", "--agents", "random,mcts"])
    assert e.value.code == 2 and "not allowed with argument" in capsys.readouterr().err


def test_docstring_examples():
    import ggpzoo.agents.mcts as M
    import ggpzoo.agents.simple as S
    import ggpzoo.gdl.states as G

    for module in (M, S, G):
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.attempted > 0 and result.failed == 0


# ----------------------------------------------------------------------------- the rollout
@pytest.mark.parametrize(
    "name", ["skirmish_v0", "amazons_v0", "amazons_split_v0", "mad_bishops_v0", "gdl:tictactoe", "gdl:rps_fold"]
)
def test_playout_is_a_loop_of_status_and_step(name):
    """The engine's ``playout`` (each family's own loop) plays the moves of a loop of the
    protocol's ``status`` and ``step`` (``role_legal`` and ``step_joint`` where several roles
    choose) on the same random stream, to the end or to ``max_steps``."""
    from ggpzoo.engine import dispatch as D
    from ggpzoo.engine.rng import next_random

    s = spec(name)
    game, T, width, roles = s.kernel_id, s.tables, max(s.max_legal, 1), s.num_roles
    for seed, max_steps in ((0, 10_000), (1, 10_000), (2, 3)):
        board, aux = s.new_state()
        legal, goals = np.zeros(width, np.int32), np.zeros(roles, np.int32)
        W = s.work()
        n = D.status(game, board, aux, T, W, legal, goals)
        rl, counts, ids = np.zeros((roles, width), np.int32), np.zeros(roles, np.int64), np.zeros(roles, np.int32)
        b, x, out = board.copy(), aux.copy(), np.zeros(roles, np.int32)
        start = np.uint64(2 * seed + 1)
        stream, err = D.playout(game, b, x, T, W, n, legal.copy(), out, rl, counts, ids, start, max_steps)
        assert err == 0
        # the same game, move by move through the protocol
        W, r_stream, steps = s.work(), start, 0
        n = D.status(game, board, aux, T, W, legal, goals)
        while True:
            if n >= 0:
                r_stream, v = next_random(np.uint64(r_stream))
                assert D.step(game, board, aux, T, W, legal[(int(v) * n) >> 32]) == 0
            else:
                for r in range(roles):
                    c = D.role_legal(game, board, aux, T, W, r, rl[r])
                    j = 0
                    if c > 1:
                        r_stream, v = next_random(np.uint64(r_stream))
                        j = (int(v) * c) >> 32
                    ids[r] = rl[r, j]
                assert D.step_joint(game, board, aux, T, W, ids) == 0
            steps += 1
            n = D.status(game, board, aux, T, W, legal, goals)
            if steps >= max_steps or n == D.OVER:
                break
        assert (n == D.OVER or max_steps == 3) and int(stream) == int(r_stream)
        np.testing.assert_array_equal(b, board)
        np.testing.assert_array_equal(x, aux)
        np.testing.assert_array_equal(out, goals)


ENDLESS = """
(role walker) (role watcher)
(init (at 0)) (succ 0 1) (succ 1 0)
(<= (legal walker left) (true (at ?x))) (<= (legal walker right) (true (at ?x)))
(<= (legal watcher wait) (true (at ?x)))
(<= (next (at ?y)) (does walker right) (true (at ?x)) (succ ?x ?y))
(<= (next (at ?x)) (does walker left) (true (at ?x)))
(<= (goal walker 100) (true (at 1))) (<= (goal walker 0) (true (at 0)))
(<= (goal watcher 0) (true (at 1))) (<= (goal watcher 100) (true (at 0)))
"""


def test_rollouts_of_a_game_that_never_ends_stop_at_the_cap():
    """A sheet with no terminal rule: each rollout stops after `MAX_ROLLOUT` moves (it ran
    100,000 moves a simulation, a second a move), scored with the goals where it stopped."""
    import time
    import warnings

    from ggpzoo.agents.mcts import MAX_ROLLOUT

    assert MAX_ROLLOUT == 1_000 and MCTSAgent("gdl:tictactoe").max_rollout == MAX_ROLLOUT
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the linter: no terminal rule
        g = gdl.load(ENDLESS, name="endless")
    env = gdl.raw_env(g)
    env.reset()
    agent = MCTSAgent(g, simulations=100, seed=0)
    agent.act(env)  # compiles
    t = time.perf_counter()
    a = agent.act(env)
    assert time.perf_counter() - t < 3.0  # 100 rollouts of 100,000 moves took ~20 s
    assert int(a) in env.legal_actions()
