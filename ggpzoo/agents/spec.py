"""Agents from short spec strings, as the command line names them: ``random``, ``greedy``,
``mcts``, ``mcts:200`` (simulations), ``mcts:0.5s`` (seconds), ``sb3:PATH``, a ``PATH.zip``
(pickle: trusted files only) or a ``PATH.json`` policy of plain weights."""

from __future__ import annotations

import os
import re

from ggpzoo.agents.base import Agent

__all__ = ["AgentSpecError", "make_agent", "SPEC_HELP"]

SPEC_HELP = (
    "random | greedy | mcts | mcts:SIMULATIONS (e.g. mcts:200) | mcts:SECONDSs (e.g. mcts:0.5s) "
    "| sb3:PATH or PATH.zip (a saved MaskablePPO model; pickle: trusted files only) "
    "| PATH.json (plain weights from ggpzoo.agents.weights.save_policy)"
)


class AgentSpecError(ValueError):
    """An agent spec that names no agent, or one that cannot be built."""


def make_agent(spec: str, env_name: str, seed: int | None = None) -> Agent:
    """The agent named by ``spec`` for env ``env_name``; its ``name`` is ``spec``.

    >>> make_agent("mcts:200", "skirmish_v0").simulations
    200
    >>> make_agent("mcts:abc", "skirmish_v0")
    Traceback (most recent call last):
    ...
    ggpzoo.agents.spec.AgentSpecError: bad agent 'mcts:abc': the MCTS budget is a number of simulations ...
    """
    from ggpzoo.agents.mcts import MCTSAgent
    from ggpzoo.agents.simple import GreedyAgent, RandomAgent

    text = spec.strip()
    kind, _, arg = text.partition(":")
    try:
        if text == "random":
            agent = RandomAgent(seed)
        elif text == "greedy":
            agent = GreedyAgent(env_name, seed)
        elif kind == "mcts":
            if not arg:
                agent = MCTSAgent(env_name, seed=seed)
            elif re.fullmatch(r"\d+", arg) and int(arg) > 0:
                agent = MCTSAgent(env_name, simulations=int(arg), seed=seed)
            elif re.fullmatch(r"(\d+\.?\d*|\.\d+)s", arg) and float(arg[:-1]) > 0:
                agent = MCTSAgent(env_name, seconds=float(arg[:-1]), seed=seed)
            else:
                raise AgentSpecError("the MCTS budget is a number of simulations (mcts:200) or of seconds (mcts:0.5s)")
        elif kind == "sb3" or text.endswith((".zip", ".json")):
            from ggpzoo.agents.sb3 import SB3Agent

            path = arg if kind == "sb3" else text
            if not path:
                raise AgentSpecError("give the model's path, e.g. sb3:models/ppo.zip")
            if not os.path.isfile(path) and not os.path.isfile(path + ".zip"):
                raise AgentSpecError(f"no such model file: {path}")
            agent = SB3Agent(path, env_name)
        else:
            raise AgentSpecError(f"unknown agent; use {SPEC_HELP}") from None
    except AgentSpecError as e:
        raise AgentSpecError(f"bad agent {spec!r}: {e}") from None
    except (ValueError, ImportError, OSError) as e:
        raise AgentSpecError(f"bad agent {spec!r}: {e}") from None
    agent.name = text
    return agent
