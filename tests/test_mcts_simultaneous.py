"""Decoupled UCT in the MCTS agent (ggpzoo.agents.mcts): states of a GDL sheet where several
roles choose at once. The agent avoids a dominated move and beats random play at rock-paper-scissors
with a fold (the shipped ``rps_fold``); its trees, replayed move by move with the machine, index
each child by its joint move and add up (each role's move visits sum to the node's); the edge
tables grow without changing the search; a role does not see the other's pending choice in the
AEC env; the arena plays a simultaneous sheet. CI runs this file once more with
``NUMBA_BOUNDSCHECK=1`` (.ci/run)."""

from __future__ import annotations

import json
import math

import numba
import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.agents import MCTSAgent, make_agent
from ggpzoo.agents.mcts import ACTION, BLOCK, CHILDREN, FIRST, JOINT, MOVER, PARENT, SIBLING, TERMINAL, _duct_credit
from ggpzoo.gdl.propnet import CompiledMachine
from ggpzoo.gdl.states import state_from_fluents
from ggpzoo.tools.arena import round_robin
from ggpzoo.tools.cli import main

# Left holds the cards 1 to 5, right 2 to 6; each round both play a card at once, the higher
# card scores. Legal moves shrink with the history (and differ between the roles), so a child
# reached by the wrong joint move has the wrong legal moves; the last round is forced.
CARDS = """
(role left) (role right)
(card 1) (card 2) (card 3) (card 4) (card 5) (card 6)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5)
(<= (greater ?m ?n) (succ ?n ?m))
(<= (greater ?m ?n) (succ ?k ?m) (greater ?k ?n))
(<= (input ?r (play ?c)) (role ?r) (card ?c))
(<= (init (holds left ?c)) (card ?c) (distinct ?c 6))
(<= (init (holds right ?c)) (card ?c) (distinct ?c 1))
(init (points left 0))
(init (points right 0))
(<= (legal ?r (play ?c)) (true (holds ?r ?c)))
(<= (next (holds ?r ?c)) (true (holds ?r ?c)) (not (does ?r (play ?c))))
(<= (wins ?r) (does ?r (play ?x)) (does ?o (play ?y)) (distinct ?r ?o) (greater ?x ?y))
(<= (next (points ?r ?n)) (true (points ?r ?m)) (wins ?r) (succ ?m ?n))
(<= (next (points ?r ?m)) (true (points ?r ?m)) (not (wins ?r)))
(<= (holding ?r) (true (holds ?r ?c)))
(<= terminal (role ?r) (not (holding ?r)))
(<= (ahead ?r) (true (points ?r ?m)) (true (points ?o ?n)) (distinct ?r ?o) (greater ?m ?n))
(<= (goal ?r 100) (ahead ?r))
(<= (goal ?r 0) (role ?r) (ahead ?o) (distinct ?r ?o))
(<= (goal ?r 50) (role ?r) (not (ahead left)) (not (ahead right)))
"""

# Turn, then simultaneous, then turn: left picks a side, both pick one at once (left wins if
# they match), then right picks one (which changes nothing).
MIXED = """
(role left) (role right)
(side a) (side b)
(succ 1 2) (succ 2 3) (succ 3 4)
(<= (input ?r ?s) (role ?r) (side ?s))
(<= (input ?r noop) (role ?r))
(init (phase 1))
(<= (legal left ?s) (true (phase 1)) (side ?s))
(<= (legal right noop) (true (phase 1)))
(<= (legal left ?s) (true (phase 2)) (side ?s))
(<= (legal right ?s) (true (phase 2)) (side ?s))
(<= (legal right ?s) (true (phase 3)) (side ?s))
(<= (legal left noop) (true (phase 3)))
(<= (next (phase ?y)) (true (phase ?x)) (succ ?x ?y))
(<= (next (played ?r ?s)) (does ?r ?s) (true (phase 2)))
(<= (next (played ?r ?s)) (true (played ?r ?s)))
(<= terminal (true (phase 4)))
(<= match (true (played left ?s)) (true (played right ?s)))
(<= (goal left 100) match)
(<= (goal right 0) match)
(<= (goal left 0) (not match))
(<= (goal right 100) (not match))
"""

# Rock-paper-scissors once, with a third role that only waits.
RPS3 = """
(role left) (role right) (role third)
(beats rock scissors) (beats scissors paper) (beats paper rock)
(<= (input ?r ?m) (role ?r) (beats ?m ?x))
(input third noop)
(init (round 1))
(<= (legal left ?m) (true (round 1)) (beats ?m ?x))
(<= (legal right ?m) (true (round 1)) (beats ?m ?x))
(legal third noop)
(<= (next (round 2)) (true (round 1)))
(<= (next (won ?r)) (does ?r ?x) (does ?o ?y) (beats ?x ?y))
(<= terminal (true (round 2)))
(<= (goal ?r 100) (true (won ?r)))
(<= (goal ?r 0) (role ?r) (not (true (won ?r))))
"""

_GAMES: dict = {}


def game(name):
    if name not in _GAMES:
        texts = {"cards": CARDS, "mixed": MIXED, "rps3": RPS3}
        _GAMES[name] = gdl.load(texts[name], name=name) if name in texts else gdl.load(gdl.game_path(name))
    return _GAMES[name]


def rps_state(step, left, right):
    """A state of rps_fold: ``step`` rounds played, the points of each role."""
    return state_from_fluents(game("rps_fold"), [f"(step {step})", f"(points left {left})", f"(points right {right})"])


def throw(role, action):
    return gdl.raw_env(game("rps_fold")).action_to_term(action, role=role)


def root_edges(agent, role):
    """The root's statistics of ``role``: {move text: (visits, value sum)}."""
    roles = list(agent.spec.agents)
    o = int(agent._ext[0, BLOCK])
    counts = agent._eint[o : o + len(roles)]
    r = roles.index(role)
    at = o + len(roles) + int(counts[:r].sum())
    env = agent.spec.raw_env()
    return {
        env.action_to_term(int(agent._eint[at + j]), role=role): tuple(agent._estat[at + j])
        for j in range(int(counts[r]))
    }


def settle(machine, state):
    """Play joint moves without a choice, as the search does after each move."""
    while not machine.terminal(state):
        legal = machine.legal(state)
        if any(len(m) != 1 for m in legal):
            break
        state = machine.next(state, [int(m[0]) for m in legal])
    return state


def check_tree(agent, state) -> tuple[int, int]:
    """Replay every node of ``agent``'s last tree from ``state`` with the compiled machine and
    check it; return (simultaneous nodes, turn nodes) seen.

    A node is terminal exactly when its state is; a turn node's children are its one
    chooser's legal moves; a simultaneous node's block lists each role's legal moves, its
    children have distinct joint numbers, each role's move visits sum to the simulations
    that chose there (the node's visits, less the one that made it), and a move's visits are
    those of the children whose joint move has it; the two roles' values add up to those
    visits (outcome values of a two-role game sum to 1). Every node of the table is reached."""
    nodes, stats, ext, eint, estat = agent._nodes, agent._stats, agent._ext, agent._eint, agent._estat
    n_roles = agent.spec.num_roles
    machine = CompiledMachine(agent.spec.game)
    seen, simultaneous, turns = 0, 0, 0
    todo = [(0, state)]
    while todo:
        i, st = todo.pop()
        seen += 1
        children = []
        ch = nodes[i, FIRST]
        while ch != -1:
            children.append(int(ch))
            ch = nodes[ch, SIBLING]
        assert all(nodes[ch, PARENT] == i for ch in children) and nodes[i, CHILDREN] == len(children)
        legal = [sorted(int(x) for x in m) for m in machine.legal(st)]
        over = machine.terminal(st) or any(not m for m in legal)
        assert nodes[i, TERMINAL] == over
        if over:
            assert not children and ext[i, BLOCK] == -1
            continue
        choosers = [r for r in range(n_roles) if len(legal[r]) > 1]
        chose_here = stats[i, 0] - (i != 0)  # the root is not made by a simulation
        assert sum(stats[ch, 0] for ch in children) == chose_here
        if ext[i, BLOCK] < 0:
            turns += 1
            (mover,) = choosers
            for ch in children:
                assert ext[ch, JOINT] == -1 and nodes[ch, MOVER] == mover
                ids = [m[0] for m in legal]
                ids[mover] = int(nodes[ch, ACTION])
                assert ids[mover] in legal[mover]
                todo.append((ch, settle(machine, machine.next(st, ids))))
            continue
        simultaneous += 1
        assert len(choosers) >= 2
        o = int(ext[i, BLOCK])
        counts = [int(n) for n in eint[o : o + n_roles]]
        assert counts == [len(m) for m in legal]
        edges, at = [], o + n_roles
        for r in range(n_roles):
            assert eint[at : at + counts[r]].tolist() == legal[r]
            edges.append(estat[at : at + counts[r]])
            at += counts[r]
        for r in range(n_roles):
            assert edges[r][:, 0].sum() == chose_here
        if n_roles == 2:
            assert edges[0][:, 1].sum() + edges[1][:, 1].sum() == chose_here
        joints = [int(ext[ch, JOINT]) for ch in children]
        assert len(set(joints)) == len(joints) and all(0 <= j < math.prod(counts) for j in joints)
        by_move = [np.zeros(n) for n in counts]
        for ch, joint in zip(children, joints, strict=True):
            assert nodes[ch, MOVER] == -1 and nodes[ch, ACTION] == -1 and stats[ch, 1] == 0
            ids = []
            for r in range(n_roles):
                j, joint = joint % counts[r], joint // counts[r]
                ids.append(legal[r][j])
                by_move[r][j] += stats[ch, 0]
            todo.append((ch, settle(machine, machine.next(st, ids))))
        for r in range(n_roles):
            assert np.array_equal(by_move[r], edges[r][:, 0])
    assert seen == agent.last_search["nodes"]
    return simultaneous, turns


# ----------------------------------------------------------------------------- play
def test_avoids_the_dominated_move():
    g = game("rps_fold")
    opening = g.propnet().init
    for seed in range(10):
        for role in ("left", "right"):
            agent = MCTSAgent(g, simulations=300, seed=seed)
            assert throw(role, agent(opening, role=role)) != "fold"
            edges = root_edges(agent, role)
            assert sum(v for v, _ in edges.values()) == 300  # every simulation chose a move for each role
            assert edges["fold"][0] < 45  # under 15% of the visits (a quarter would be uniform)
            assert agent.last_search["visits"] == max(v for v, _ in edges.values())
    # the last round, all square: folding loses (unless the other folds too)
    for seed in range(10):
        agent = MCTSAgent(g, simulations=300, seed=seed)
        assert throw("right", agent(rps_state(2, 1, 1), role="right")) != "fold"
        assert root_edges(agent, "right")["fold"][1] / root_edges(agent, "right")["fold"][0] < 0.2


def test_beats_random_at_rps_fold():
    """Against uniform play, any of rock, paper, scissors wins a round half the time and
    loses a quarter: a player that never folds scores 69.5% over three rounds."""
    g = game("rps_fold")
    agents = [make_agent("mcts:200", g, seed=1), make_agent("random", g, seed=2)]
    result = round_robin(g, agents, games=100, seed=0, progress=False)
    row = result.standings()[0]
    assert row["games"] == 100 and row["score_low"] > 0.5 and row["score"] > 0.6
    beats = {("rock", "scissors"), ("scissors", "paper"), ("paper", "rock")}
    beats |= {(x, "fold") for x in ("rock", "paper", "scissors")}
    for record in result.games:
        assert record.length == 6  # three rounds of two moves
        me = 0 if record.white == "mcts:200" else 1
        lead = 0
        for k in range(3):
            mine, theirs = record.moves[2 * k + me], record.moves[2 * k + 1 - me]
            if mine == "fold":  # only in the last round, when it cannot change the result
                assert k == 2 and abs(lead) == 2
            lead += ((mine, theirs) in beats) - ((theirs, mine) in beats)


def test_does_not_see_the_other_roles_pending_choice():
    """The AEC env asks left, then right, and plays the joint move when both have chosen;
    get_state() is the state before it, so right's search is the same whatever left chose."""
    g = game("rps_fold")
    expected = MCTSAgent(g, simulations=200, seed=3)
    move = expected(g.propnet().init, role="right")
    seen = set()
    for left in ("rock", "fold", "scissors"):
        env = gdl.raw_env(g)
        env.reset()
        env.step(env.term_to_action(left))
        assert env.agent_selection == "right" and np.array_equal(env.get_state(), g.propnet().init)
        agent = MCTSAgent(g, simulations=200, seed=3)
        assert agent.act(env) == move
        assert root_edges(agent, "right") == root_edges(expected, "right")
        seen.add(throw("left", env.term_to_action(left)))
    assert len(seen) == 3


def test_roles_at_a_simultaneous_state():
    g = game("rps3")
    start = g.propnet().init
    agent = MCTSAgent(g, simulations=100, seed=0)
    with pytest.raises(ValueError, match="roles left, right choose a move at the same time here: pass role="):
        agent(start)
    env = gdl.raw_env(g)
    assert env.action_to_term(agent(start, role="third"), role="third") == "noop"  # forced: no search
    assert env.action_to_term(agent(start, role="left"), role="left") in ("rock", "paper", "scissors")
    edges = root_edges(agent, "left")
    assert sorted(edges) == ["paper", "rock", "scissors"] and sum(v for v, _ in edges.values()) == 100
    assert sum(v for v, _ in root_edges(agent, "third").values()) == 100  # its one move, every time
    assert check_tree(agent, start) == (1, 0)


# ----------------------------------------------------------------------------- the tree
def test_tree_children_by_joint_move_and_visit_counts():
    g = game("cards")
    start = g.propnet().init
    agent = MCTSAgent(g, simulations=3000, seed=0)
    move = agent(start, role="left")
    assert gdl.raw_env(g).action_to_term(move, role="left").startswith("(play ")
    simultaneous, turns = check_tree(agent, start)
    assert simultaneous > 500 and turns == 0 and agent.last_search["nodes"] > 2000
    edges = root_edges(agent, "right")
    assert sorted(edges) == [f"(play {c})" for c in range(2, 7)]
    assert sum(v for v, _ in edges.values()) == 3000
    # right's cards beat left's: the search finds that right is winning
    assert sum(s for _, s in edges.values()) / 3000 > 0.7
    # the same tree from right's side: same seed, same search, right's answer
    other = MCTSAgent(g, simulations=3000, seed=0)
    answer = gdl.raw_env(g).action_to_term(other(start, role="right"), role="right")
    assert edges[answer][0] == max(v for v, _ in edges.values())
    n = agent.last_search["nodes"]
    assert np.array_equal(other._stats[:n], agent._stats[:n])


def test_tree_through_turns_and_simultaneous_moves():
    g = game("mixed")
    start = g.propnet().init
    agent = MCTSAgent(g, simulations=400, seed=1)
    agent(start)
    simultaneous, turns = check_tree(agent, start)
    # left's two sides, each a simultaneous node; below, right's last choices (decoupled UCT
    # tries each role's two moves, so at least two of the four joint moves of each)
    assert simultaneous == 2 and 1 + 2 * 2 <= turns <= 1 + 2 * 4
    assert agent.last_search["nodes"] <= 1 + 2 + 8 + 16  # the whole tree at most
    # from the simultaneous state: a simultaneous root, turn nodes below
    phase2 = state_from_fluents(g, ["(phase 2)"])
    agent = MCTSAgent(g, simulations=400, seed=1)
    agent(phase2, role="right")
    simultaneous, turns = check_tree(agent, phase2)
    assert simultaneous == 1 and 2 <= turns <= 4
    values = [s / v for v, s in root_edges(agent, "right").values()]
    assert all(0.3 < x < 0.7 for x in values)  # matching pennies: neither side is better


def test_seconds_budget_grows_the_tables_under_the_tree():
    g = game("cards")
    start = g.propnet().init
    agent = MCTSAgent(g, seconds=1.0, seed=0)
    agent(start, role="left")
    assert agent.last_search["nodes"] > 4096  # past the first node table: grown during the search
    check_tree(agent, start)


def test_edge_tables_grow_without_changing_the_search():
    g = game("cards")
    start = g.propnet().init
    a = MCTSAgent(g, simulations=2000, seed=5)
    b = MCTSAgent(g, simulations=2000, seed=5)
    b._eint, b._estat = np.zeros(1, np.int64), np.zeros((1, 2))  # grows from one entry, many times
    assert a(start, role="left") == b(start, role="left")
    n = a.last_search["nodes"]
    assert b._eint.shape[0] > 1024  # grew past what a starts with
    assert n == b.last_search["nodes"] and a._n_edges == b._n_edges > 1024
    assert np.array_equal(a._nodes[:n], b._nodes[:n]) and np.array_equal(a._stats[:n], b._stats[:n])
    assert np.array_equal(a._eint[: a._n_edges], b._eint[: b._n_edges])
    assert np.array_equal(a._estat[: a._n_edges], b._estat[: b._n_edges])
    # the tables are kept between moves (grown now): the same seed and state, the same search
    first, move = a._stats[:n].copy(), a.last_search
    b.reset(seed=5)
    b(start, role="left")
    assert np.array_equal(b._stats[:n], first) and b.last_search["visits"] == move["visits"]


# ----------------------------------------------------------------------------- arena
def test_arena_plays_a_simultaneous_sheet(tmp_path, capsys):
    out = tmp_path / "arena.json"
    argv = ["arena", "--gdl", "rps_fold", "--agents", "random,mcts:50", "--games", "4", "--no-progress"]
    assert main(argv + ["--json", str(out)]) == 0
    assert "gdl:rps_fold: 2 agents, 4 games per pair" in capsys.readouterr().out
    data = json.loads(out.read_text())
    assert len(data["games"]) == 4
    for record in data["games"]:
        assert len(record["moves"]) == 6 and set(record["moves"]) <= {"rock", "paper", "scissors", "fold"}
        assert sorted(record["goals"]) in ([0, 100], [50, 50])


@pytest.mark.skipif(not numba.config.BOUNDSCHECK, reason="only with NUMBA_BOUNDSCHECK=1 (CI runs it)")
def test_with_bounds_checks_the_kernels_check_their_indices():
    """This file's searches ran with bounds checks: an edge block past the tables raises."""
    with pytest.raises(IndexError):
        _duct_credit(np.ones(4, np.int64), np.zeros((4, 2)), 3, 0, np.zeros(2))
