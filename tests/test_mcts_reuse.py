"""MCTSAgent(reuse=True): the next search starts from the previous tree's subtree of the new
state (ggpzoo.agents.mcts, REUSE_*): exactly that subtree, on hand-written kernels, sheets
and simultaneous moves; a fresh tree where the state is not in the last tree."""

from __future__ import annotations

import pytest

from ggpzoo.agents import MCTSAgent
from ggpzoo.agents import mcts as mcts_module
from ggpzoo.agents.mcts import ACTION, BLOCK, FIRST, JOINT, PARENT, SIBLING
from ggpzoo.envs import spec


def _children(agent, node):
    ch = agent._nodes[node, FIRST]
    while ch != -1:
        yield int(ch)
        ch = agent._nodes[ch, SIBLING]


def _subtree(agent, node, depth=3):
    """The subtree of ``node`` as nested tuples: (action, joint move, visits, value sum, children)."""
    kids = [] if depth == 0 else [_subtree(agent, ch, depth - 1) for ch in _children(agent, node)]
    return (
        int(agent._nodes[node, ACTION]) if node else -1,
        int(agent._ext[node, JOINT]) if node else -1,
        float(agent._stats[node, 0]),
        round(float(agent._stats[node, 1]), 9) if node else 0.0,
        sorted(kids),
    )


def _child(agent, node, action):
    return next(ch for ch in _children(agent, node) if agent._nodes[ch, ACTION] == action)


def _most_visited(agent, node):
    return max(_children(agent, node), key=lambda ch: agent._stats[ch, 0])


@pytest.mark.parametrize("name", ["skirmish_endgame_v0", "gdl:connect_four"])
def test_the_next_search_starts_from_the_played_moves_subtree(name):
    env = spec(name).raw_env()
    env.reset(seed=0)
    agent = MCTSAgent(name, simulations=400, seed=0, reuse=True)
    a = agent.act(env)
    node = _child(agent, 0, a)
    grandchild = _most_visited(agent, node)  # the opponent's move the search tried most
    b = int(agent._nodes[grandchild, ACTION])
    visits = agent._stats[grandchild, 0]
    env.step(a)
    env.step(b)  # two plies: the new root is the first root's grandchild
    agent.act(env)
    assert agent.last_search["reused"] == visits > 1  # the root has the grandchild's visits
    assert agent._stats[0, 0] == visits + 400  # and 400 more
    assert MCTSAgent(name).reuse is False  # off by default


@pytest.mark.parametrize("name", ["skirmish_endgame_v0", "gdl:connect_four"])
def test_the_kept_tree_is_exactly_the_subtree(name):
    env = spec(name).raw_env()
    env.reset(seed=0)
    agent = MCTSAgent(name, simulations=600, seed=1, reuse=True)
    a = agent.act(env)
    node = _child(agent, 0, a)
    before = _subtree(agent, node, depth=5)
    env.step(a)
    board, aux, T, W, *_ = agent._root(env.unwrapped.get_state(), None)
    kept = agent._reuse_tree(board, aux, T, W)
    after = _subtree(agent, 0, depth=5)
    assert kept > 1 and after[2] == before[2] and after[4] == before[4]  # every node's move, visits, value
    assert [agent._nodes[ch, PARENT] for ch in _children(agent, 0)] == [0] * len(before[4])  # their parent: the root


def test_an_unknown_state_gets_a_fresh_tree_as_without_reuse():
    name = "gdl:connect_four"
    env = spec(name).raw_env()
    env.reset(seed=0)
    with_reuse = MCTSAgent(name, simulations=300, seed=3, reuse=True)
    without = MCTSAgent(name, simulations=300, seed=3)
    assert with_reuse.act(env) == without.act(env)
    for _ in range(8):  # eight plies on: deeper than REUSE_DEPTH below the tree's root
        env.step(env.legal_actions()[-1])
    a, b = with_reuse.act(env), without.act(env)
    assert with_reuse.last_search["reused"] == 0
    assert a == b
    for key in ("simulations", "nodes", "visits", "value"):
        assert with_reuse.last_search[key] == without.last_search[key]


def test_another_games_state_or_a_failed_search_gets_a_fresh_tree():
    env = spec("gdl:connect_four").raw_env()
    env.reset(seed=0)
    agent = MCTSAgent("gdl:connect_four", simulations=200, seed=0, reuse=True)
    agent.act(env)
    state = env.unwrapped.get_state().copy()
    state[:] = 0  # no such board below the root (nor a legal one)
    with pytest.raises(ValueError):
        agent(state)
    assert agent._kept is None  # the tree of a search that failed is not kept
    agent.act(env)
    assert agent.last_search["reused"] == 0


def test_a_tree_over_the_cap_is_not_kept(monkeypatch):
    name = "gdl:connect_four"
    env = spec(name).raw_env()
    env.reset(seed=0)
    agent = MCTSAgent(name, simulations=300, seed=0, reuse=True)
    a = agent.act(env)
    env.step(a)
    monkeypatch.setattr(mcts_module, "REUSE_MAX_NODES", 100)
    agent.act(env)
    assert agent.last_search["reused"] == 0
    monkeypatch.setattr(mcts_module, "REUSE_MAX_NODES", 10**6)
    b = agent.act(env)  # the same state again: the whole tree is kept
    assert agent.last_search["reused"] == 300
    assert b in env.legal_actions()


def test_simultaneous_moves_reuse_the_joint_moves_child():
    name = "gdl:rps_fold"
    env = spec(name).raw_env()
    env.reset(seed=0)
    agent = MCTSAgent(name, simulations=500, seed=0, reuse=True)
    roles = list(env.agents)
    moves = {}
    for r in roles:  # each role asks at the same state: the second search adds to the first's tree
        moves[r] = agent(env.unwrapped.get_state(), role=r)
    assert agent.last_search["reused"] == 500
    o = int(agent._ext[0, BLOCK])
    counts = [int(agent._eint[o + r]) for r in range(len(roles))]
    at, joint, radix = o + len(roles), 0, 1
    for r, role in enumerate(roles):  # the joint move's number (see BLOCK)
        ids = list(agent._eint[at : at + counts[r]])
        joint += ids.index(moves[role]) * radix
        radix *= counts[r]
        at += counts[r]
    child = next((ch for ch in _children(agent, 0) if agent._ext[ch, JOINT] == joint), None)
    assert child is not None
    visits = agent._stats[child, 0]
    for r in roles:
        env.step(moves[r])
    assert not any(env.terminations.values())  # rps_fold has three rounds
    agent(env.unwrapped.get_state(), role=roles[0])
    assert agent.last_search["reused"] == visits > 0
