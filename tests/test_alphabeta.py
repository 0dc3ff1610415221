"""Alpha-beta (ggpzoo.agents.alphabeta): it finds forced wins in drawn positions, its values
equal a plain minimax at small depth, it keeps to its budget, plays a compiled GDL sheet,
and refuses bad budgets in one line."""

import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.agents import make_agent
from ggpzoo.agents.alphabeta import MAX_DEPTH, WIN, AlphaBetaAgent, evaluate, terminal_value
from ggpzoo.agents.spec import AgentSpecError
from ggpzoo.engine import dispatch
from ggpzoo.envs import load, spec
from ggpzoo.envs.amazons import kernel as AM
from ggpzoo.envs.skirmish import kernel as SK
from ggpzoo.gdl.states import state_from_fluents
from ggpzoo.tools.arena import play_game


def _env_at(name, state):
    env = load(name).raw_env()
    env.reset()
    env.set_state(state)
    return env


# ----------------------------------------------------------------------------- forced wins
def test_skirmish_takes_the_last_piece():
    """Black's last piece is the king; the rook takes it and wins (greedy would take the
    nearer pawn-valued capture just as well, so the position offers only this one)."""
    board, aux = SK.from_string(
        """
        . . . . k . . .
        . . . . . . . .
        . . # . . # . .
        . . . . . . . .
        . . . . . . . .
        . . # . . # . .
        . . . . . . . .
        . . . . R . . K""",
        step=10,
    )
    for agent in (AlphaBetaAgent("skirmish_v0", depth=3, seed=0), AlphaBetaAgent("skirmish_v0", seconds=0.2)):
        a = agent((board, aux))
        env = _env_at("skirmish_v0", (board, aux))
        assert env.action_to_string(a) == "(5,1)->(5,8)"
        assert agent.last_search["value"] > WIN / 2  # a proven win
        env.step(a)
        assert env.is_game_over() and env.rewards["white"] == 1


def test_skirmish_keeps_its_queen_out_of_a_trade_that_loses_the_game():
    """White's queen can take a pawn guarded by a rook (a capture each, then black is ahead
    on material with fewer captures to come for white) or take the unguarded knight: search
    sees the recapture, the one-ply greedy agent does not care."""
    board, aux = SK.from_string(
        """
        r . . . k . . .
        p . . . . . . .
        . . # . . # . .
        . . . . . . . n
        . . . . . . . .
        . . # . . # . .
        . . . . . . . .
        Q . . . K . . .""",
        step=10,
    )
    agent = AlphaBetaAgent("skirmish_v0", depth=3, seed=0)
    env = _env_at("skirmish_v0", (board, aux))
    move = env.action_to_string(agent((board, aux)))
    assert move != "(1,1)->(1,7)"  # Qxa7 loses the queen to the rook


AMAZONS_TRAP = """
    B . x . . . . . x B
    x x . . . . . . x x
    . . . . . . . . . .
    . . . . . . . . . .
    . . . . . . . . . .
    . . . . . . . . . .
    . . . . . . . . . .
    . . . . . . . . . .
    x x . . . . . . x x
    B x W . . . . . x B"""


@pytest.mark.parametrize("name", ["amazons_v0", "amazons_split_v0"])
def test_amazons_traps_the_last_free_queen(name):
    """Three black queens are walled in; the fourth, top left, has one way out, (2,10).
    A white move that blocks it (an arrow there, or the queen itself) ends the game: black
    cannot move. Among hundreds of moves (a split turn: 20 queen moves, then arrows),
    search finds one."""
    variant = AM.AMAZONS if name == "amazons_v0" else AM.SPLIT
    board, aux = AM.from_string(AMAZONS_TRAP, variant=variant)
    depth = 1 if name == "amazons_v0" else 3  # split: move, fire, and black's stuck turn
    agent = AlphaBetaAgent(name, depth=depth, seed=0)
    env = _env_at(name, (board, aux))
    assert len(env.legal_actions()) > (100 if name == "amazons_v0" else 15)  # (split: the queen moves)
    while env.agent_selection == "white" and not env.is_game_over():
        env.step(agent(env.get_state()))
    assert env.is_game_over() and env.rewards["white"] == 1


# ----------------------------------------------------------------------------- the values
def _minimax(game, board, aux, T, W, depth, me, ply, max_legal):
    """Plain negamax without pruning, table or ordering: the value of ``(board, aux)`` for
    role ``me`` searched ``depth`` plies deep, on the same evaluation."""
    legal, goal = np.zeros(max_legal, np.int32), np.zeros(2, np.int64)
    n = dispatch.status(game, board, aux, T, W, legal, goal)
    if n == dispatch.OVER:
        return terminal_value(goal, me, ply)
    if depth == 0:
        return evaluate(game, board, aux, goal, me)
    mover = int(aux[0])
    values = []
    for a in legal[:n].copy():
        dispatch.status(game, board, aux, T, W, np.zeros(max_legal, np.int32), goal)  # W back at this state
        b, x = board.copy(), aux.copy()
        assert dispatch.step(game, b, x, T, W, a) == 0
        values.append(_minimax(game, b, x, T, W, depth - 1, mover, ply + 1, max_legal))
    best = max(values)
    return best if mover == me else -best


def _random_states(name, count, plies, seed):
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        env = load(name).raw_env()
        env.reset()
        for _ in range(plies):
            if env.is_game_over():
                break
            env.step(int(rng.choice(env.legal_actions())))
        if not env.is_game_over() and len(env.legal_actions()) > 1:  # (one move: played unsearched)
            out.append(env.get_state())
    return out


@pytest.mark.parametrize(
    "name, depth, plies",
    [
        ("skirmish_endgame_v0", 3, 20),
        ("skirmish_v0", 2, 30),
        ("mad_bishops_v0", 3, 30),
        ("amazons_split_v0", 3, 150),  # late: a queen's few moves, then its arrows (same mover twice)
        ("amazons_v0", 2, 72),
    ],
)
def test_values_equal_plain_minimax(name, depth, plies):
    s = spec(name)
    game = dispatch.kernel_id(s.kernel)
    T, W = dispatch.NO_TABLES, s.work()  # the product's types: numba compiles no extra copy for the tests
    for board, aux in _random_states(name, 3, plies, seed=7):
        agent = AlphaBetaAgent(name, depth=depth, seed=1, quiescence=0, table_bits=12)
        agent((board, aux))
        me = int(aux[0])
        want = _minimax(game, board.copy(), aux.copy(), T, W, depth, me, 0, s.kernel.MAX_LEGAL)
        assert agent.last_search["value"] == pytest.approx(want, abs=1e-9), (board, aux)
        assert agent.last_search["depth"] == depth or abs(want) > WIN / 2


def test_values_equal_plain_minimax_on_a_sheet():
    g = gdl.load(gdl.game_path("tictactoe"))
    net = g.propnet()
    T, W = net.tables, net.work()
    rng = np.random.default_rng(3)
    env = gdl.raw_env(g)
    for _ in range(3):
        env.reset()
        for _ in range(int(rng.integers(1, 4))):
            env.step(int(rng.choice(env.legal_actions())))
        state = env.unwrapped.get_state()
        agent = AlphaBetaAgent(g, depth=3, seed=0)
        agent(state)
        board = np.asarray(state, np.int8).copy()
        aux = np.zeros(dispatch.propnet.AUX_SIZE, np.int32)
        legal, goal = np.zeros(net.max_legal, np.int32), np.zeros(2, np.int64)
        dispatch.status(dispatch.PROPNET, board, aux, T, W, legal, goal)
        want = _minimax(dispatch.PROPNET, board, aux, T, W, 3, int(aux[0]), 0, net.max_legal)
        assert agent.last_search["value"] == want


# ----------------------------------------------------------------------------- budgets
def test_time_budget_returns_a_legal_move_and_depth_grows_with_it():
    env = load("skirmish_v0").raw_env()
    env.reset()
    quick = AlphaBetaAgent("skirmish_v0", seconds=0.001, seed=0)
    assert quick(env.get_state()) in env.legal_actions()
    assert quick.last_search["seconds"] < 5  # generous: one clock check every 128 nodes
    short = AlphaBetaAgent("skirmish_v0", seconds=0.01, seed=0)
    short(env.get_state())
    long = AlphaBetaAgent("skirmish_v0", seconds=1.5, seed=0)
    assert long(env.get_state()) in env.legal_actions()
    assert long.last_search["depth"] > short.last_search["depth"] >= 0
    assert long.last_search["nodes"] > short.last_search["nodes"]
    fixed = AlphaBetaAgent("skirmish_v0", depth=2, seed=0)
    fixed(env.get_state())
    assert fixed.last_search["depth"] == 2


def test_fixed_depth_is_reproducible_and_keeps_its_table_between_moves():
    env = load("mad_bishops_v0").raw_env()
    env.reset()
    a, b = AlphaBetaAgent("mad_bishops_v0", depth=3, seed=5), AlphaBetaAgent("mad_bishops_v0", depth=3, seed=5)
    for _ in range(6):
        x, y = a(env.get_state()), b(env.get_state())
        assert x == y and a.last_search["value"] == b.last_search["value"]
        env.step(x)


# ----------------------------------------------------------------------------- GDL sheets
def test_a_sheet_takes_a_win_in_one():
    g = gdl.load(gdl.game_path("tictactoe"))
    marks = {(1, 1): "x", (2, 1): "x", (1, 2): "o", (2, 2): "o"}
    fluents = ["(control xplayer)"] + [
        f"(cell {x} {y} {marks.get((x, y), 'b')})" for x in range(1, 4) for y in range(1, 4)
    ]
    state = state_from_fluents(g, fluents)
    env = gdl.raw_env(g)
    env.reset()
    agent = AlphaBetaAgent(g, seconds=0.5, seed=0)
    move = env.action_to_term(agent(state), role="xplayer")
    assert move == "(mark 3 1)"
    assert agent.last_search["value"] > WIN / 2


def test_a_sheet_never_loses_to_random():
    ab = make_agent("ab:d9", "gdl:tictactoe", seed=0)
    rnd = make_agent("random", "gdl:tictactoe", seed=1)
    for k in range(4):
        white, black = (ab, rnd) if k % 2 == 0 else (rnd, ab)
        record = play_game("gdl:tictactoe", white, black, seeds=(k, k + 10))
        ab_score = record.score if white is ab else 1 - record.score
        assert ab_score >= 0.5


def test_simultaneous_moves_are_refused():
    rps = gdl.load(gdl.game_path("rps_fold"))
    env = gdl.raw_env(rps)
    env.reset()
    with pytest.raises(ValueError, match="alpha-beta needs turns"):
        AlphaBetaAgent(rps, depth=2).act(env)


# ----------------------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    "text, message",
    [
        ("ab:d0", "alpha-beta depth is a number of plies in 1..32"),
        (f"ab:d{MAX_DEPTH + 1}", "alpha-beta depth"),
        ("ab:dx", "alpha-beta depth"),
        ("ab:-1s", "budget in seconds"),
        ("ab:1e9s", "budget in seconds"),
        ("ab:0s", "budget in seconds"),
        ("ab:3601s", "MAX_SECONDS = 3600"),
        ("ab:fast", "budget in seconds"),
        ("mcts:-1s", "budget in seconds"),
        ("mcts:99999s", "MAX_SECONDS = 3600"),
        ("baseline:0s", "budget in seconds"),
        ("baseline:1e9s", "budget in seconds"),
    ],
)
def test_bad_specs_are_one_line(text, message):
    with pytest.raises(AgentSpecError, match=message) as e:
        make_agent(text, "skirmish_v0")
    assert "\n" not in str(e.value) and str(e.value).startswith(f"bad agent {text!r}")


THREE_ROLES = """
(role a) (role b) (role c)
(init (step 0))
(<= (legal ?r go) (role ?r))
(<= (next (step 1)) (true (step 0)))
(<= terminal (true (step 1)))
(<= (goal ?r 50) (role ?r))
"""


def test_good_specs():
    a = make_agent("ab:0.25s", "skirmish_v0")
    assert (a.seconds, a.depth, a.name) == (0.25, None, "ab:0.25s")
    a = make_agent("ab:d4", "amazons_v0")
    assert (a.seconds, a.depth, a.name) == (None, 4, "ab:d4")
    assert make_agent("ab", "mad_bishops_v0").seconds == 1.0
    assert make_agent("ab:d2", "gdl:tictactoe").game == dispatch.PROPNET
    assert make_agent("mcts:0.25s", "skirmish_v0").seconds == 0.25
    three = gdl.load(THREE_ROLES)
    with pytest.raises(AgentSpecError, match="alpha-beta plays two-role games; .* has roles a, b, c"):
        make_agent("ab:d2", three)
    for kwargs in ({"seconds": 0}, {"seconds": 1e9}, {"depth": 0}, {"depth": True}, {"seconds": 1, "depth": 2}):
        with pytest.raises(ValueError):
            AlphaBetaAgent("skirmish_v0", **kwargs)
    for kwargs in ({"table_bits": 40}, {"quiescence": -1}):
        with pytest.raises(ValueError):
            AlphaBetaAgent("skirmish_v0", depth=1, **kwargs)


def test_bad_states():
    agent = AlphaBetaAgent("skirmish_v0", depth=1)
    with pytest.raises(ValueError, match="a state is a pair"):
        agent(np.zeros(3))
    board, aux = SK.new_state()
    aux[SK.STEP] = SK.LIMIT[0]
    with pytest.raises(ValueError, match="game is over"):
        agent((board, aux))


def test_a_search_is_interrupted_from_another_thread():
    """A GGP player's match ends (ABORT) while alpha-beta searches on an hour's clock: the
    search stops at once with a legal move."""
    import threading
    import time

    agent = AlphaBetaAgent("amazons_v0", seconds=3600.0, seed=0)
    env = load("amazons_v0").env()
    env.reset(seed=0)
    got = []
    search = threading.Thread(target=lambda: got.append(agent.act(env)), daemon=True)
    search.start()
    time.sleep(1.0)
    assert search.is_alive()
    t0 = time.perf_counter()
    agent.interrupt()
    search.join(10.0)
    assert not search.is_alive() and time.perf_counter() - t0 < 2.0
    assert got[0] in env.unwrapped.legal_actions()
    agent.seconds = 0.3  # a later search is not stopped by the old flag
    assert agent.act(env) in env.unwrapped.legal_actions() and agent.last_search["depth"] >= 1
