"""Gumbel AlphaZero on two-role turn-taking GDL games: the search on the compiled network
(ggpzoo.agents.gdl_gumbel), the network and its files, training with resume
(ggpzoo.training.az with --env gdl:SHEET), the az: agent in the arena, and the refusals."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from ggpzoo import gdl  # noqa: E402
from ggpzoo.agents import AgentSpecError, make_agent  # noqa: E402
from ggpzoo.agents.gdl_gumbel import GDLGumbelAZAgent, GDLGumbelSearch  # noqa: E402
from ggpzoo.agents.gdl_mcts import SimultaneousMoveError, state_from_fluents  # noqa: E402
from ggpzoo.agents.gumbel import EDGES, FIRST_EDGE, NROLE, TERMINAL  # noqa: E402
from ggpzoo.gdl.batch import GDLVectorGames  # noqa: E402
from ggpzoo.gdl.propnet import CompiledMachine  # noqa: E402
from ggpzoo.tools.arena import round_robin  # noqa: E402
from ggpzoo.tools.cli import main  # noqa: E402
from ggpzoo.training.az.__main__ import main as az_main  # noqa: E402
from ggpzoo.training.az.net import AZNet, GDLAZNet, load_model, save_model  # noqa: E402
from ggpzoo.training.az.train import AZConfig, train  # noqa: E402

torch.set_num_threads(1)

# Tic-tac-toe whose ground network has a positive cycle: evaluated by full passes instead
# of change propagation (the other code path of the network; as in test_gdl_mcts).
CYCLIC_EXTRA = """
(<= (linked 1) (true (control xplayer)))
(<= (linked 1) (linked 2))
(<= (linked 2) (linked 1))
(<= terminal (line x) (linked 1))
"""

# White picks at steps 0 and 2, black at 3 and 5; steps 1 and 4 are pauses where both roles
# play noop (joint moves without a choice), so white chooses twice in a row between them.
# The second picks decide: 2 beats 1; white wins if its step-2 pick beats black's step-5 pick.
PAUSES = """
(role white) (role black)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(turn 0 white) (turn 2 white) (turn 3 black) (turn 5 black)
(pick 1) (pick 2)
(<= (input ?r (pick ?n)) (role ?r) (pick ?n))
(<= (input ?r noop) (role ?r))
(init (step 0))
(<= (legal ?r (pick ?n)) (true (step ?s)) (turn ?s ?r) (pick ?n))
(<= (legal ?r noop) (role ?r) (true (step ?s)) (not (turn ?s ?r)))
(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
(<= (next (picked ?r ?s ?n)) (true (step ?s)) (does ?r (pick ?n)))
(<= (next (picked ?r ?s ?n)) (true (picked ?r ?s ?n)))
(<= terminal (true (step 6)))
(<= (goal white 100) (true (picked white 2 2)) (true (picked black 5 1)))
(<= (goal white 0) (true (picked white 2 1)) (true (picked black 5 2)))
(<= (goal white 50) (true (picked white 2 ?n)) (true (picked black 5 ?n)))
(<= (goal white 50) (not terminal))
(<= (goal black 100) (goal white 0))
(<= (goal black 0) (goal white 100))
(<= (goal black 50) (goal white 50))
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

_GAMES: dict = {}


def game(name):
    if name not in _GAMES:
        if name == "tictactoe_cyclic":
            with open(gdl.game_path("tictactoe")) as f:
                _GAMES[name] = gdl.load(f.read() + CYCLIC_EXTRA, name=name)
        elif name == "pauses":
            _GAMES[name] = gdl.load(PAUSES, name=name)
        else:
            _GAMES[name] = gdl.load(gdl.game_path(name))
    return _GAMES[name]


def tictactoe(g, rows: str, to_move: str):
    """A state from three rows of ``x``, ``o``, ``.``, top row y = 1, columns x = 1..3."""
    marks = [line.split() for line in rows.strip().splitlines()]
    fl = [f"(cell {x + 1} {y + 1} {'b' if m == '.' else m})" for y, row in enumerate(marks) for x, m in enumerate(row)]
    return state_from_fluents(g, fl + [f"(control {to_move})"])


def uniform(g, value: float = 0.0):
    """A network with equal logits everywhere and a constant value."""
    a = max(len(m) for m in g.actions.values())

    def evaluate(obs):
        return np.zeros((len(obs), 1, a), np.float32), np.full(len(obs), value, np.float32)

    return evaluate


def noisy(g, seed: int, seen: list | None = None):
    a = max(len(m) for m in g.actions.values())
    rng = np.random.default_rng(seed)

    def evaluate(obs):
        if seen is not None:
            seen.append(obs.copy())
        return rng.normal(size=(len(obs), 1, a)).astype(np.float32), rng.uniform(-1, 1, len(obs)).astype(np.float32)

    return evaluate


def term(g, role, action):
    return gdl.raw_env(g).action_to_term(int(action), role=role)


def random_states(g, n: int, seed: int):
    """States where one role chooses, from random play of a batch of games."""
    games = GDLVectorGames(g, n)
    games.reset()
    rng = np.random.default_rng(seed)
    for t in range(int(rng.integers(0, 6))):
        games.step(games.random_actions(seed=seed * 100 + t))
    return games.states.copy()


# ----------------------------------------------------------------------------- the search
@pytest.mark.parametrize("name", ["tictactoe", "tictactoe_cyclic"])
@pytest.mark.parametrize(
    "rows,to_move,move",
    [
        ("x x .\no o .\n. . .", "xplayer", "(mark 3 1)"),  # x wins in one
        ("o o .\nx . .\n. . x", "xplayer", "(mark 3 1)"),  # x blocks o's row
        ("x . .\no o .\nx x .", "oplayer", "(mark 3 2)"),  # o wins rather than block x's bottom row
        ("x x .\n. o .\n. . .", "oplayer", "(mark 3 1)"),  # o blocks x's row
    ],
)
def test_a_uniform_network_with_enough_simulations_wins_and_blocks(name, rows, to_move, move):
    g = game(name)
    state = tictactoe(g, rows, to_move)
    assert g.propnet().incremental == (name == "tictactoe")  # both ways of evaluating the network
    search = GDLGumbelSearch(g, uniform(g), simulations=200, games=3, seed=0)
    result = search.run(np.stack([state] * 3))  # three trees, three draws of the Gumbel noise
    for t in range(3):
        assert term(g, to_move, result.actions[t]) == move
        root = search.root(t)
        best = root["q"][list(root["actions"]).index(result.actions[t])]
        assert best == root["q"][root["visits"] > 0].max()


def test_the_search_plays_forced_moves_through_and_each_node_is_its_movers():
    """Every node of the trees is the state its path reaches with the pauses played, its
    role the one with a choice there, its edges that role's legal ids; and the search finds
    the winning second pick across a pause and a turn of its own in a row."""
    g = game("pauses")
    machine = CompiledMachine(g)
    roles = list(g.roles)
    start = machine.initial()
    search = GDLGumbelSearch(g, noisy(g, 0), simulations=64, games=2, seed=1)
    search.run(np.stack([start, start]))
    checked = {"white": 0, "black": 0, "terminal": 0, "pauses": 0}

    def walk(t, node, state):
        if search.nodes[t, node, TERMINAL]:
            assert machine.terminal(state)
            checked["terminal"] += 1
            return
        legal = machine.legal(state)
        choosers = [r for r in range(2) if len(legal[r]) > 1]
        assert choosers == [search.nodes[t, node, NROLE]]
        mover = choosers[0]
        checked[roles[mover]] += 1
        first, n = search.nodes[t, node, FIRST_EDGE], search.nodes[t, node, EDGES]
        assert list(search.e_action[first : first + n]) == list(legal[mover])
        for e in range(first, first + n):
            child = search.e_child[e]
            if child < 0:
                continue
            ids = [int(m[0]) for m in legal]
            ids[mover] = int(search.e_action[e])
            nxt = machine.next(state, ids)
            while not machine.terminal(nxt) and all(len(m) == 1 for m in machine.legal(nxt)):
                nxt = machine.next(nxt, [int(m[0]) for m in machine.legal(nxt)])  # the pause
                checked["pauses"] += 1
            walk(t, child, nxt)

    for t in range(2):
        walk(t, 0, start)
    assert min(checked.values()) > 0, checked
    # white to pick at step 2 (after its step-0 pick and the pause): 2 draws at worst, 1 loses
    at_two = state_from_fluents(g, ["(step 2)", "(picked white 0 1)"])
    two = gdl.raw_env(g).term_to_action("(pick 2)", role="white")
    for seed in range(3):
        result = GDLGumbelSearch(g, uniform(g), simulations=32, seed=seed).run(at_two[None])
        assert result.actions[0] == two
        assert result.root_values[0] == pytest.approx(0.0, abs=0.35)  # a draw with best play


def test_the_policy_target_covers_the_legal_actions_and_the_roots_observation_is_the_envs():
    g = game("connect_four")
    states = random_states(g, 6, seed=3)
    seen: list = []
    search = GDLGumbelSearch(g, noisy(g, 1, seen), simulations=12, games=6, seed=2)
    result = search.run(states)
    machine = CompiledMachine(g)
    vg = GDLVectorGames(g, 6)
    vg.reset()
    vg.states[:] = states
    for t in range(6):
        legal = machine.legal(states[t])
        mover = [r for r in range(2) if len(legal[r]) > 1][0]
        lo, hi = result.offsets[t], result.offsets[t + 1]
        assert sorted(result.policy_actions[lo:hi]) == list(legal[mover])
        assert result.policy_probs[lo:hi].sum() == pytest.approx(1.0)
        assert (result.policy_probs[lo:hi] > 0).all()
        assert result.actions[t] in legal[mover]
        assert search.root(t)["visits"].sum() == 12
        # the roots' input: the base set's fluents, then the role to act
        expected = np.zeros(len(g.fluents) + 2, np.int8)
        expected[: len(g.fluents)] = machine.fluent_vector(states[t])
        expected[len(g.fluents) + mover] = 1
        assert (seen[0][t] == expected).all()
    # a state over, or another sheet's vector, is refused
    over = tictactoe(game("tictactoe"), "x x x\no o .\n. . .", "oplayer")
    with pytest.raises(ValueError, match="fluent vectors"):
        search.run(over[None])
    with pytest.raises(ValueError, match="of 0 and 1"):
        search.run(states * 2)
    tsearch = GDLGumbelSearch(game("tictactoe"), uniform(game("tictactoe")), simulations=4)
    with pytest.raises(ValueError, match="is over"):
        tsearch.run(over[None])
    with pytest.raises(ValueError, match="holds 1 games"):
        tsearch.run(np.stack([over, over]))


def test_simultaneous_moves_and_other_role_counts_are_refused(tmp_path, capsys):
    rps = gdl.load(RPS, name="rps")
    with pytest.raises(SimultaneousMoveError, match="simultaneous"):
        GDLGumbelSearch(rps, uniform(rps), simulations=4).run(CompiledMachine(rps).initial()[None])
    later = gdl.load(TURN_THEN_SIMULTANEOUS, name="later")
    search = GDLGumbelSearch(later, uniform(later), simulations=4)
    with pytest.raises(SimultaneousMoveError, match="one role chooses at a time"):
        search.run(CompiledMachine(later).initial()[None])  # left chooses; the tree meets both choosing
    three = gdl.load(RPS.replace("(role right)", "(role right) (role third)"), name="three")
    with pytest.raises(ValueError, match="two-role games; three has 3 roles"):
        GDLGumbelSearch(three, uniform(three))
    path = tmp_path / "three.kif"
    path.write_text(RPS.replace("(role right)", "(role right) (role third)"))
    with pytest.raises(ValueError, match="two-role games"):
        train(AZConfig(env=f"gdl:{path}"), minutes=0.01, out=str(tmp_path / "run"))
    rps_path = tmp_path / "rps.kif"
    rps_path.write_text(RPS)
    with pytest.raises(SimultaneousMoveError):
        train(AZConfig(env=f"gdl:{rps_path}", games=2), minutes=0.01, out=str(tmp_path / "run"))
    with pytest.raises(SystemExit):
        az_main(["--env", f"gdl:{path}", "--minutes", "1", "--out", str(tmp_path / "run")])
    assert "a two-role game is needed" in capsys.readouterr().err
    assert az_main(["--env", f"gdl:{rps_path}", "--minutes", "1", "--out", str(tmp_path / "run"), "--quiet"]) == 2
    assert "simultaneous" in capsys.readouterr().err


# ----------------------------------------------------------------------------- training and playing
def test_a_short_training_run_writes_the_model_resumes_and_plays(tmp_path, capsys):
    out = str(tmp_path / "run")
    config = AZConfig(
        env="gdl:tictactoe", simulations=4, games=8, min_buffer=8, batch_size=16, channels=16, blocks=1, eval_games=4
    )
    first = train(config, minutes=0.04, out=out, progress=False)
    assert first["step"] >= 1 and first["games"] >= 1
    d = json.load(open(f"{out}/model.json"))
    assert d["env"] == "gdl:tictactoe" and d["network"] == "GDLAZNet" and d["arguments"]["width"] == 16
    net = load_model(f"{out}/model.json")
    assert isinstance(net, GDLAZNet) and net.input_shape == (len(game("tictactoe").fluents) + 2,)
    rows = open(f"{out}/log.csv").read().splitlines()
    assert rows[0].startswith("step,") and rows[-1].split(",")[7] != ""  # net_vs_random measured
    # resume: the saved size wins over the config's, the counters go on
    again = train(AZConfig(env="gdl:tictactoe", simulations=4, games=8), minutes=0.03, out=out, resume=True)
    assert again["step"] > first["step"] and again["positions"] > first["positions"]
    assert json.load(open(f"{out}/model.json"))["arguments"]["width"] == 16
    # the command line, and the model as an agent in the arena
    assert main(["arena", "--env", "gdl:tictactoe", "--agents", f"az:{out}/model.json:4,random", "--games", "2"]) == 0
    assert "az:" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["tictactoe", "connect_four"])
def test_a_saved_model_plays_legal_moves_in_the_arena(name, tmp_path):
    torch.manual_seed(0)
    path = save_model(GDLAZNet(f"gdl:{name}", width=32, blocks=1), str(tmp_path / "m"), c_scale=0.1)
    agents = [
        make_agent(f"az:{path}", f"gdl:{name}", seed=0),
        make_agent(f"az:{path}:8", f"gdl:{name}", seed=1),
        make_agent("random", f"gdl:{name}", seed=2),
    ]
    assert isinstance(agents[1], GDLGumbelAZAgent) and agents[1].simulations == 8
    result = round_robin(f"gdl:{name}", agents, games=2, progress=False)  # an illegal move is an ArenaError
    assert len(result.games) == 6 and all(r.length > 0 for r in result.games)


def test_a_model_of_a_sheet_by_relative_path_loads_from_anywhere(tmp_path, monkeypatch):
    (tmp_path / "sheets").mkdir()
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(gdl.game_path("tictactoe"), tmp_path / "sheets" / "mine.kif")
    monkeypatch.chdir(tmp_path)
    path = save_model(GDLAZNet("gdl:sheets/mine.kif", width=8, blocks=0), "m")
    monkeypatch.chdir(tmp_path / "elsewhere")  # the relative path no longer reads the sheet
    net = load_model(str(tmp_path / path))
    assert net.env_name == f"gdl:{tmp_path / 'sheets' / 'mine.kif'}"
    assert make_agent(f"az:{tmp_path / path}", "gdl:../sheets/mine.kif").game.name == "mine"
    # a shipped sheet, given by its path, is stored by its name
    assert GDLAZNet(f"gdl:{gdl.game_path('tictactoe')}", width=8, blocks=0).env_name == "gdl:tictactoe"


def test_az_agent_refusals(tmp_path):
    ttt = save_model(GDLAZNet("gdl:tictactoe", width=8, blocks=0), str(tmp_path / "ttt"))
    with pytest.raises(AgentSpecError, match="another sheet than connect_four"):
        make_agent(f"az:{ttt}", "gdl:connect_four")
    kernel = save_model(AZNet("skirmish_v0", 4, 0), str(tmp_path / "k"))
    with pytest.raises(AgentSpecError, match="not the GDL game tictactoe"):
        make_agent(f"az:{kernel}", "gdl:tictactoe")
    with pytest.raises(AgentSpecError, match="az:runs/az/gdl_tictactoe/model.json"):
        make_agent("az:model.pt", "gdl:tictactoe")
    with pytest.raises(AgentSpecError, match="az:PATH.json"):
        make_agent("alphazero", "gdl:tictactoe")
    g = game("tictactoe")
    agent = GDLGumbelAZAgent(g, ttt, simulations=0)
    over = tictactoe(g, "x x x\no o .\n. . .", "oplayer")
    with pytest.raises(ValueError, match="game is over"):
        agent(over)
    start = CompiledMachine(g).initial()
    assert term(g, "oplayer", agent(start, role="oplayer")) == "noop"  # a forced move needs no search
    with pytest.raises(ValueError, match="not a state of tictactoe"):
        agent(np.zeros(3, np.uint8))
    with pytest.raises(ValueError, match="no feature planes"):
        train(AZConfig(env="gdl:tictactoe", features=True), minutes=0.01, out=str(tmp_path / "run"))
