"""Agents from short spec strings, as the command line names them: ``random``, ``greedy``,
``mcts``, ``mcts:200`` (simulations), ``mcts:0.5s`` (seconds), ``sb3:PATH``, a ``PATH.zip``
(pickle: trusted files only), a ``PATH.json`` policy of plain weights, ``baseline`` /
``baseline:32`` (the game's shipped AlphaZero network, alone or with search),
``baseline:0.25s`` (its search for that many seconds a move), ``az:PATH.json`` /
``az:PATH.json:32`` (any trained one), and ``ab:0.25s`` / ``ab:d4`` (alpha-beta for that
many seconds a move, or that many plies deep). Every budget in seconds is in
(0, ``MAX_SECONDS``] (an hour)."""

from __future__ import annotations

import os
import re

from ggpzoo.agents.base import Agent

__all__ = ["AgentSpecError", "make_agent", "SPEC_HELP", "GDL_SPEC_HELP"]

SPEC_HELP = (
    "random | greedy | mcts | mcts:SIMULATIONS (e.g. mcts:200) | mcts:SECONDSs (e.g. mcts:0.5s) "
    "| sb3:PATH or PATH.zip (a saved MaskablePPO model; pickle: trusted files only) "
    "| PATH.json (plain weights from ggpzoo.agents.weights.save_policy) "
    "| baseline | baseline:SIMULATIONS (the game's shipped AlphaZero network, alone or with Gumbel search) "
    "| az:PATH.json | az:PATH.json:SIMULATIONS (a network from python -m ggpzoo.training.az) "
    "| baseline:SECONDSs (e.g. baseline:0.25s) | ab | ab:SECONDSs (e.g. ab:0.25s) | ab:dDEPTH (e.g. ab:d4; alpha-beta) "
    "| ggp:HOST:PORT (a player over the GGP protocol, e.g. python -m ggpzoo ggp-player)"
)

GDL_SPEC_HELP = (
    "random | greedy | mcts | mcts:SIMULATIONS (e.g. mcts:200) | mcts:SECONDSs (e.g. mcts:0.5s) "
    "| az:PATH.json | az:PATH.json:SIMULATIONS (a network from python -m ggpzoo.training.az --env gdl:SHEET) "
    "| ab | ab:SECONDSs | ab:dDEPTH (alpha-beta, two roles taking turns) "
    "| ggp:HOST:PORT (a player over the GGP protocol)"
)

TRAIN_HINT = "python -m ggpzoo.training.az --env {env} --minutes 60 --out runs/az/{label}"


class AgentSpecError(ValueError):
    """An agent spec that names no agent, or one that cannot be built."""


def make_agent(spec: str, env_name, seed: int | None = None) -> Agent:
    """The agent named by ``spec`` for env ``env_name``; its ``name`` is ``spec``.

    ``env_name`` is an env name (``"skirmish_v0"``, ``"gdl:tictactoe"``), a spec, or a loaded
    [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game]; ``random``, ``greedy``, ``mcts`` / ``mcts:N`` /
    ``mcts:Ss`` ([`MCTSAgent`][ggpzoo.agents.MCTSAgent]) and ``ab`` / ``ab:Ss`` / ``ab:dN``
    ([`AlphaBetaAgent`][ggpzoo.agents.alphabeta.AlphaBetaAgent], two roles taking turns) play every game.

    >>> make_agent("mcts:200", "skirmish_v0").simulations
    200
    >>> make_agent("mcts:abc", "skirmish_v0")
    Traceback (most recent call last):
    ...
    ggpzoo.agents.spec.AgentSpecError: bad agent 'mcts:abc': the MCTS budget is a number of simulations ...
    """
    from ggpzoo.agents.mcts import MCTSAgent
    from ggpzoo.agents.simple import GreedyAgent, RandomAgent
    from ggpzoo.envs import spec as env_spec

    if not isinstance(spec, str):
        raise AgentSpecError(f"an agent spec is a string such as 'random' or 'mcts:200', got {spec!r:.60}")
    text = spec.strip()
    kind, _, arg = text.partition(":")
    try:
        game = env_spec(env_name)  # a name no env has fails here, whatever the agent
    except ValueError as e:
        raise AgentSpecError(f"bad agent {spec!r}: {e}") from None
    label = game.label  # for the examples in messages
    try:
        if text == "random":
            agent = RandomAgent(seed)
        elif text == "greedy":
            agent = GreedyAgent(game, seed)
        elif kind == "mcts":
            if not arg:
                agent = MCTSAgent(game, seed=seed)
            elif re.fullmatch(r"\d+", arg) and int(arg) > 0:
                agent = MCTSAgent(game, simulations=int(arg), seed=seed)
            elif arg.endswith("s"):
                agent = MCTSAgent(game, seconds=_seconds(arg, "mcts:0.5s"), seed=seed)
            else:
                raise AgentSpecError("the MCTS budget is a number of simulations (mcts:200) or of seconds (mcts:0.5s)")
        elif kind == "ggp":
            from ggpzoo.ggp.remote import GGPAgent

            agent = GGPAgent(arg, seed=seed)
        elif kind == "ab":
            from ggpzoo.agents.alphabeta import MAX_DEPTH, AlphaBetaAgent

            if not arg:
                agent = AlphaBetaAgent(game, seed=seed)
            elif arg.startswith("d"):
                if not (re.fullmatch(r"d\d+", arg) and 1 <= int(arg[1:]) <= MAX_DEPTH):
                    raise AgentSpecError(f"the alpha-beta depth is a number of plies in 1..{MAX_DEPTH} (ab:d4)")
                agent = AlphaBetaAgent(game, depth=int(arg[1:]), seed=seed)
            else:
                agent = AlphaBetaAgent(game, seconds=_seconds(arg, "ab:0.25s"), seed=seed)
        elif kind == "baseline":
            from ggpzoo.baselines import available, baseline_path

            seconds = _seconds(arg, "baseline:0.25s") if arg.endswith("s") else None
            simulations = 0 if seconds else _simulations(arg, "baseline:32")
            path = baseline_path(game.label)
            if path is None:
                shipped = ", ".join(available()) or "none yet"
                raise AgentSpecError(
                    f"no baseline network is shipped for {game.name} (shipped: {shipped}); train one with "
                    f"`{TRAIN_HINT.format(env=game.name, label=label)}` and play it as az:runs/az/{label}/model.json"
                )
            agent = _az_agent(path, game, simulations, seed, seconds)
        elif kind == "az":
            path, simulations = arg, 0
            head, sep, tail = arg.rpartition(":")
            if sep and re.fullmatch(r"\d+", tail):
                path, simulations = head, _simulations(tail, "az:PATH.json:32")
            if not path.endswith(".json"):
                raise AgentSpecError(f"give the network's description, e.g. az:runs/az/{label}/model.json")
            if not os.path.isfile(path):
                raise AgentSpecError(f"no such model file: {path}")
            agent = _az_agent(path, game, simulations, seed)
        elif kind == "sb3" or text.endswith((".zip", ".json")):
            from ggpzoo.agents.sb3 import SB3Agent

            path = arg if kind == "sb3" else text
            if not path:
                raise AgentSpecError(f"give the model's path, e.g. sb3:runs/{label}/model.zip")
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


def _seconds(arg: str, example: str) -> float:
    """A budget in seconds a move from a spec (``0.25s``): in (0, MAX_SECONDS]."""
    from ggpzoo.agents.base import MAX_SECONDS

    if re.fullmatch(r"(\d+\.?\d*|\.\d+)s", arg) and 0 < float(arg[:-1]) <= MAX_SECONDS:
        return float(arg[:-1])
    raise AgentSpecError(
        f"the budget in seconds is a positive number up to MAX_SECONDS = {MAX_SECONDS:g} followed by s ({example})"
    )


def _simulations(arg: str, example: str) -> int:
    """A search budget from a spec: 0 (the network alone) when empty."""
    if not arg:
        return 0
    from ggpzoo.agents.mcts import MAX_SIMULATIONS

    if re.fullmatch(r"\d+", arg) and 0 < int(arg) < MAX_SIMULATIONS:
        return int(arg)
    raise AgentSpecError(
        f"the search budget is a positive number of simulations below MAX_SIMULATIONS = {MAX_SIMULATIONS:,} ({example})"
    )


def _az_agent(path: str, env_name, simulations: int, seed: int | None, seconds: float | None = None) -> Agent:
    """An AlphaZero network's agent, `GumbelAZAgent`, for any two-role game (``env_name`` a
    name, a spec or a loaded GDL game): a model of another game is refused before it is
    built (`ggpzoo.training.az.net.load_model()`)."""
    try:
        from ggpzoo.agents.gumbel import GumbelAZAgent

        if seconds is not None:
            return GumbelAZAgent(env_name, path, seconds=seconds, seed=seed)
        return GumbelAZAgent(env_name, path, simulations=simulations, seed=seed)
    except ImportError as e:
        raise AgentSpecError(f"AlphaZero agents need torch (pip install ggpzoo[train]): {e}") from None
