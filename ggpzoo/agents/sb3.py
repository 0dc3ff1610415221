"""A saved sb3-contrib ``MaskablePPO`` model as an agent (needs the ``train`` extra).

The model sees what it saw in training with `ggpzoo.training.single_agent.SingleAgentEnv`:
the env's ``observation`` planes from the mover's side, and the legal actions as
``action_masks``. A model trained through a turn decomposition (its actions are cells:
`AmazonsTurnDecomposition` for amazons_v0, the default of
``SingleAgentEnv("amazons_v0")``, or `MoveDecomposition` for the
others) is asked once per choice, on that wrapper's observations; the agent then plays the
whole action.
"""

from __future__ import annotations

import os

import numpy as np

from ggpzoo.agents.base import Agent
from ggpzoo.envs import load
from ggpzoo.wrappers import ReachPlanes, TurnDecomposition

__all__ = ["SB3Agent", "load_model"]


def load_model(path: str):
    """``MaskablePPO.load(path)`` on the CPU, with a clear error for a missing file or package;
    a ``.json`` path loads plain weights instead (`ggpzoo.agents.weights.load_policy()`).

    Loading a ``.zip`` unpickles it, which runs any code the file names: load only models
    you made or trust. ``.json`` + ``.pt`` policies load without running code.
    """
    if path.endswith(".json"):
        from ggpzoo.agents.weights import load_policy

        if not os.path.isfile(path):
            raise FileNotFoundError(f"no such policy description: {path}")
        return load_policy(path)
    if not os.path.isfile(path) and not os.path.isfile(path + ".zip"):
        raise FileNotFoundError(f"no such model file: {path}")
    try:
        from sb3_contrib import MaskablePPO
    except ImportError:
        raise ImportError(
            "loading a MaskablePPO model needs stable-baselines3 and sb3-contrib: pip install 'ggpzoo[train]'"
        ) from None
    try:
        return MaskablePPO.load(path, device="cpu")
    except Exception as e:  # a zip that is not an SB3 model, or one of another algorithm
        raise ValueError(f"cannot load {path} as a MaskablePPO model: {type(e).__name__}: {e}") from None


class SB3Agent(Agent):
    """Plays a saved ``MaskablePPO`` model (or any model with ``predict(obs, action_masks=...)``).

    Loading a saved ``.zip`` runs pickle, and unpickling a file can run any code in it:
    load only models you made or trust. A policy stored with
    `ggpzoo.agents.weights.save_policy()` (``PATH.json`` and ``PATH.pt``: a JSON
    description and plain tensors, read with ``torch.load(weights_only=True)``) loads
    without running code; pass the ``.json`` path.

    Args:
        model: a path to the saved ``.zip`` (pickle: trusted files only) or to a ``.json``
            policy description (plain weights), or a loaded model.
        env_name: the env it plays (a key of ``ggpzoo.envs.ENVS``); the model's action and
            observation spaces must be that env's, or those of the env through a turn
            decomposition and/or [`ReachPlanes`][ggpzoo.wrappers.ReachPlanes] (found from the spaces).
        deterministic: play the most likely action (default) instead of sampling.
    """

    takes = "state"  # "observation" when the model sees the env's own observations

    def __init__(self, model, env_name: str, deterministic: bool = True, name: str | None = None):
        self.path = model if isinstance(model, str) else None
        self.model = load_model(model) if isinstance(model, str) else model
        self.env_name = env_name
        self.deterministic = bool(deterministic)
        self.name = name or (f"sb3:{os.path.basename(self.path)}" if self.path else "sb3")
        self.env = load(env_name).raw_env()
        n = getattr(getattr(self.model, "action_space", None), "n", None)
        shape = tuple(getattr(getattr(self.model, "observation_space", None), "shape", ()) or ())
        self.view = self._view(n, shape)  # the env as the model saw it in training
        self.decomposed = self.view if isinstance(self.view, TurnDecomposition) else None
        self.takes = "observation" if self.view is self.env else "state"

    def _view(self, n, shape):
        """The env, in the wrappers that give the model's spaces: a turn decomposition when its
        actions are cells, `ReachPlanes` when it sees those planes."""
        views = [self.env]
        game = self.env.game_spec
        if game.reach_planes is not None:
            views.append(ReachPlanes(self.env))
        cells = game.num_cells
        decomposition = game.decomposition_wrapper()
        if decomposition is not None:
            views += [decomposition(v) for v in views]
        for view in views:
            if view.action_space("white").n == n and view.observation_space("white")["observation"].shape == shape:
                return view
        obs_shape = self.env.observation_space("white")["observation"].shape
        through = f" (or {cells} through {decomposition.__name__})" if decomposition is not None else ""
        raise ValueError(
            f"the model has {n} actions and observations of shape {shape}; {self.env_name} has "
            f"{self.env.num_actions} actions{through} and observations of shape "
            f"{obs_shape} (more planes through the wrappers): was it trained on another env?"
        )

    def reset(self, seed: int | None = None) -> None:
        if seed is not None and not self.deterministic:  # sampled actions come from torch's generator
            import torch

            torch.manual_seed(seed)

    def _predict(self, obs) -> int:
        action, _ = self.model.predict(
            obs["observation"], deterministic=self.deterministic, action_masks=obs["action_mask"].astype(bool)
        )
        a = int(np.asarray(action).reshape(-1)[0])
        if not obs["action_mask"][a]:
            raise ValueError(f"{self.name} chose the illegal action {a} despite the mask")
        return a

    def __call__(self, x) -> int:
        if self.view is not self.env and isinstance(x, dict):
            raise TypeError(f"{self.name} plays through {type(self.view).__name__} and needs the state (board, aux)")
        if self.decomposed is None:
            if not isinstance(x, dict):  # a state: observe it
                self.view.set_state(x)
                x = self.view.observe(self.view.agent_selection)
            return self._predict(x)
        dec = self.decomposed
        dec.set_state(x)
        agent = dec.agent_selection
        while dec.stage < len(dec.STAGES) - 1:
            dec.step(self._predict(dec.observe(agent)))
        last = self._predict(dec.observe(agent))
        return next(int(t) for t in dec.legal_turns() if dec.turn_steps(t)[-1] == last)
