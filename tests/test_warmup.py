"""Compile time is never an agent's think time, and a cold cache says so: agents that search
compile (or load) their numba code when they are built (`Agent.warmup()`), the compile notice
(`ggpzoo.engine.warmup`) writes one line when numba compiles, and ``python -m ggpzoo warmup``
fills the cache."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

from ggpzoo.agents import GreedyAgent, MCTSAgent, make_agent
from ggpzoo.agents import base as agent_base
from ggpzoo.agents.alphabeta import AlphaBetaAgent
from ggpzoo.engine import warmup
from ggpzoo.envs import spec
from ggpzoo.tools.cli import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# In a fresh process: for each (env, agent spec), build the env and the agent, then count the
# numba functions that gain a compiled version (compiled, or loaded from the cache) during
# the agent's first move: the move's clock would count that time.
FIRST_MOVE = """
import json, sys
from numba.core.registry import CPUDispatcher
from ggpzoo.agents import make_agent
from ggpzoo.envs import load

def versions():
    found = {}
    for name, mod in list(sys.modules.items()):
        if name.startswith("ggpzoo"):
            for key, f in list(vars(mod).items()):
                if isinstance(f, CPUDispatcher):
                    found[f"{name}.{key}"] = len(f.overloads)
    return found

grown = {}
for env_name, agent_spec in json.loads(sys.argv[1]):
    env = load(env_name).raw_env()
    env.reset(seed=0)
    agent = make_agent(agent_spec, env_name, seed=0)
    before = versions()
    agent.act(env)
    after = versions()
    grown[f"{env_name} {agent_spec}"] = sorted(k for k, n in after.items() if n > before.get(k, 0))
print(json.dumps(grown))
"""


def test_first_move_compiles_nothing():
    """The first move of mcts, greedy, alpha-beta (hand-written game and GDL sheet) and the
    shipped network with search finds
    every numba function its search runs already compiled: none gains a version during it."""
    import json

    cases = [
        ["skirmish_endgame_v0", "mcts:20"],
        ["skirmish_endgame_v0", "ab:d1"],
        ["skirmish_endgame_v0", "greedy"],
        ["gdl:tictactoe", "mcts:20"],
        ["gdl:tictactoe", "ab:d1"],
        ["skirmish_endgame_v0", "baseline:8"],
    ]
    env = dict(os.environ, PYTHONPATH=ROOT)
    run = subprocess.run(
        [sys.executable, "-c", FIRST_MOVE, json.dumps(cases)], capture_output=True, text=True, env=env, timeout=900
    )
    assert run.returncode == 0, run.stderr[-3000:]
    grown = json.loads(run.stdout.strip().splitlines()[-1])
    assert grown == {f"{e} {a}": [] for e, a in cases}


def test_notice_once_when_numba_compiles():
    """One line, only when numba compiles inside the block, once per process."""

    @njit  # not cached: compiles on its first call
    def add(a, b):
        return a + b

    out = io.StringIO()
    old, warmup._said = warmup._said, False
    try:
        with warmup.compile_notice("the x engine", 12, stream=out, after=0):
            assert add(1, 2) == 3  # compiles
            assert add(2.0, 3.0) == 5.0  # compiles again: no second line
        assert out.getvalue() == "compiling the x engine, once (about 12 s); later runs start at once\n"
        warmup._said = False
        quiet = io.StringIO()
        with warmup.compile_notice("the x engine", 12, stream=quiet, after=0):
            assert add(1, 2) == 3  # compiled already: nothing to say
        assert quiet.getvalue() == ""
        add(1j, 2j)  # outside any block: nothing written, and no listener left behind
        assert quiet.getvalue() == "" and out.getvalue().count("\n") == 1
    finally:
        warmup._said = old


def test_no_notice_for_a_short_compile():
    """A compilation shorter than ``after`` seconds (the odd function numba cannot cache,
    compiled in every process) says nothing."""

    @njit
    def sub(a, b):
        return a - b

    out = io.StringIO()
    old, warmup._said = warmup._said, False
    try:
        with warmup.compile_notice("the x engine", 12, stream=out, after=60):
            assert sub(3, 2) == 1
    finally:
        warmup._said = old
    assert out.getvalue() == ""


def test_no_notice_on_a_warm_cache():
    """Building every agent that searches, with numba's cache filled, says nothing."""
    code = (
        "from ggpzoo.agents import make_agent\n"
        "for spec in ('mcts', 'greedy', 'ab'):\n"
        "    for env in ('skirmish_endgame_v0', 'gdl:tictactoe'):\n"
        "        make_agent(spec, env, seed=0)\n"
    )
    env = dict(os.environ, PYTHONPATH=ROOT)
    for _ in range(2):  # the first fills the cache where it is empty
        run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900)
        assert run.returncode == 0, run.stderr[-3000:]
    assert "compiling" not in run.stderr


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    what=st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=40),
    seconds=st.floats(0, 1e4),
    compile_it=st.booleans(),
)
def test_notice_property(what, seconds, compile_it):
    """Whatever it names: exactly that one line when something compiles, else nothing."""

    @njit
    def one():
        return 1

    out = io.StringIO()
    old, warmup._said = warmup._said, False
    try:
        with warmup.compile_notice(what, seconds, stream=out, after=0):
            if compile_it:
                one()
    finally:
        warmup._said = old
    expected = f"compiling {what}, once (about {seconds:.0f} s); later runs start at once\n" if compile_it else ""
    assert out.getvalue() == expected


def test_estimate():
    from ggpzoo.envs import ENGINE_COMPILE_SECONDS, compile_seconds, spec

    assert warmup.estimate(spec("skirmish_v0").compile_seconds) == ENGINE_COMPILE_SECONDS["kernels"]
    assert compile_seconds("skirmish_v0") == spec("skirmish_v0").compile_seconds
    assert compile_seconds("gdl:tictactoe") == spec("gdl:tictactoe").compile_seconds == ENGINE_COMPILE_SECONDS["sheet"]
    assert (
        warmup.estimate(compile_seconds("gdl:tictactoe"), ["mcts", "mcts", "random"])
        == ENGINE_COMPILE_SECONDS["sheet"] + warmup.SEARCH_SECONDS["mcts"]
    )


AGENTS = {
    "mcts": lambda env, seed: MCTSAgent(env, simulations=30, seed=seed),
    "greedy": lambda env, seed: GreedyAgent(env, seed),
    "ab": lambda env, seed: AlphaBetaAgent(env, depth=2, seed=seed, table_bits=10),
}


@settings(max_examples=15, deadline=None)
@given(
    kind=st.sampled_from(sorted(AGENTS)),
    env_name=st.sampled_from(["skirmish_endgame_v0", "gdl:tictactoe", "mad_bishops_v0"]),
    seed=st.integers(0, 2**62),
    warmups=st.integers(0, 3),
    plies=st.integers(0, 4),
)
def test_warmup_changes_no_move(kind, env_name, seed, warmups, plies):
    """An agent warmed up again (its search compiled or loaded anew, any number of times)
    plays exactly what a fresh agent of the same seed plays, from any position."""
    s = spec(env_name)
    env = s.raw_env()
    env.reset(seed=seed % 1000)
    rng = np.random.default_rng(seed)
    for _ in range(plies):
        if env.is_game_over():
            break
        env.step(int(rng.choice(env.legal_actions())))
    if env.is_game_over():
        return
    fresh = AGENTS[kind](env_name, seed)
    warmed = AGENTS[kind](env_name, seed)
    for _ in range(warmups):
        agent_base._WARM.clear()  # it runs again
        warmed.warmup()
    assert warmed.act(env) == fresh.act(env)


def test_warmup_command(capsys):
    assert main(["warmup", "--env", "gdl:tictactoe", "--agents", "greedy,mcts:10"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("gdl:tictactoe: the engine and greedy, mcts:10 ready (")


def test_warmup_command_refuses_bad_input(capsys):
    with pytest.raises(SystemExit) as e:
        main(["warmup", "--env", "nope_v0"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "unknown env 'nope_v0'" in err and err.count("\n") == 1
    assert main(["warmup", "--env", "gdl:tictactoe", "--agents", "mcts:abc"]) == 1
    err = capsys.readouterr().err
    assert "bad agent 'mcts:abc'" in err and err.count("\n") == 1


def test_make_agent_warms(monkeypatch):
    """make_agent's agents run their warm-up when built (once per process and kind)."""
    calls = []
    monkeypatch.setattr(agent_base, "_WARM", set())
    real = agent_base.warm_once

    def spy(s, search, key, play):
        calls.append(key[0])
        return real(s, search, key, play)

    for module in ("ggpzoo.agents.mcts", "ggpzoo.agents.simple", "ggpzoo.agents.alphabeta"):
        monkeypatch.setattr(f"{module}.warm_once", spy)
    for spec_ in ("mcts:5", "greedy", "ab:d1"):
        make_agent(spec_, "skirmish_endgame_v0", seed=0)
    assert calls[0] == "mcts" and "greedy" in calls and "ab" in calls
