"""Agents from short spec strings, as the command line names them: ``random``, ``greedy``,
``mcts``, ``mcts:200`` (simulations), ``mcts:0.5s`` (seconds), ``sb3:PATH``, a ``PATH.zip``
(pickle: trusted files only), a ``PATH.json`` policy of plain weights, ``baseline`` /
``baseline:32`` (the game's shipped AlphaZero network, alone or with search) and
``az:PATH.json`` / ``az:PATH.json:32`` (any trained one)."""

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
    "| az:PATH.json | az:PATH.json:SIMULATIONS (a network from python -m ggpzoo.training.az)"
)

GDL_SPEC_HELP = (
    "random | greedy | mcts | mcts:SIMULATIONS (e.g. mcts:200) | mcts:SECONDSs (e.g. mcts:0.5s) "
    "| az:PATH.json | az:PATH.json:SIMULATIONS (a network from python -m ggpzoo.training.az --env gdl:SHEET)"
)

TRAIN_HINT = "python -m ggpzoo.training.az --env {env} --minutes 60 --out runs/az/{env}"


class AgentSpecError(ValueError):
    """An agent spec that names no agent, or one that cannot be built."""


def make_agent(spec: str, env_name, seed: int | None = None) -> Agent:
    """The agent named by ``spec`` for env ``env_name``; its ``name`` is ``spec``.

    ``env_name`` is an env name (``"skirmish_v0"``, ``"gdl:tictactoe"``), a spec, or a loaded
    [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game]; ``random``, ``greedy`` and ``mcts`` / ``mcts:N`` /
    ``mcts:Ss`` ([`MCTSAgent`][ggpzoo.agents.MCTSAgent]) play every game.

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
            elif re.fullmatch(r"(\d+\.?\d*|\.\d+)s", arg) and float(arg[:-1]) > 0:
                agent = MCTSAgent(game, seconds=float(arg[:-1]), seed=seed)
            else:
                raise AgentSpecError("the MCTS budget is a number of simulations (mcts:200) or of seconds (mcts:0.5s)")
        elif kind == "baseline":
            from ggpzoo.baselines import available, baseline_path

            simulations = _simulations(arg, "baseline:32")
            path = baseline_path(game.name)
            if path is None:
                shipped = ", ".join(available()) or "none yet"
                raise AgentSpecError(
                    f"no baseline network is shipped for {game.name} (shipped: {shipped}); train one with "
                    f"`{TRAIN_HINT.format(env=game.name)}` and play it as az:runs/az/{label}/model.json"
                )
            agent = _az_agent(path, env_name, simulations, seed)
        elif kind == "az":
            path, simulations = arg, 0
            head, sep, tail = arg.rpartition(":")
            if sep and re.fullmatch(r"\d+", tail):
                path, simulations = head, _simulations(tail, "az:PATH.json:32")
            if not path.endswith(".json"):
                raise AgentSpecError(f"give the network's description, e.g. az:runs/az/{label}/model.json")
            if not os.path.isfile(path):
                raise AgentSpecError(f"no such model file: {path}")
            agent = _az_agent(path, env_name, simulations, seed)
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


def _az_agent(path: str, env_name, simulations: int, seed: int | None) -> Agent:
    """An AlphaZero network's agent: `GumbelAZAgent`, or for a GDL game `GDLGumbelAZAgent`."""
    try:
        from ggpzoo.envs import spec

        game = spec(env_name).game
        if game is not None:
            from ggpzoo.agents.gdl_gumbel import GDLGumbelAZAgent

            _check_model_sheet(path, game)

            return GDLGumbelAZAgent(game, path, simulations=simulations, seed=seed)
        from ggpzoo.agents.gumbel import GumbelAZAgent

        return GumbelAZAgent(env_name, path, simulations=simulations, seed=seed)
    except ImportError as e:
        raise AgentSpecError(f"AlphaZero agents need torch (pip install ggpzoo[train]): {e}") from None


def _check_model_sheet(path: str, game) -> None:
    """Refuse a model whose description names another sheet than ``game``'s, by the sheets'
    texts, before the loader reads (and grounds) that sheet."""
    from ggpzoo.agents.weights import read_description
    from ggpzoo.gdl.game import _read_sheet
    from ggpzoo.gdl.spec import sheet_path
    from ggpzoo.training.az.net import FORMAT, MAX_JSON_BYTES

    _, d, _ = read_description(path, FORMAT, "model", MAX_JSON_BYTES)
    env = d.get("env")
    if not (isinstance(env, str) and env.startswith("gdl:")):
        raise AgentSpecError(f"{path} plays {env!r:.80}, not the GDL game {game.name}")
    try:
        text = _read_sheet(sheet_path(env[len("gdl:") :]))
    except (ValueError, OSError) as e:
        raise AgentSpecError(f"{path} plays {env!r:.80}, whose sheet cannot be read: {e}") from None
    if text != game.text:
        raise AgentSpecError(f"{path} plays {env!r:.80}, another sheet than {game.name}")
