"""A saved sb3-contrib ``MaskablePPO`` model as an agent (needs the ``train`` extra).

The model sees what it saw in training with :class:`ggpzoo.single_agent.SingleAgentEnv`:
the env's ``observation`` planes from the mover's side, and the legal actions as
``action_masks``. A model trained on amazons_v0 through
:class:`~ggpzoo.wrappers.AmazonsTurnDecomposition` (``Discrete(100)``, the default of
``SingleAgentEnv("amazons_v0")``) is asked three times per turn, queen, destination and
arrow, on that wrapper's observations; the agent then plays the whole turn.
"""

from __future__ import annotations

import os

import numpy as np

from ggpzoo.agents.base import Agent
from ggpzoo.envs import load

__all__ = ["SB3Agent", "load_model"]


def load_model(path: str):
    """``MaskablePPO.load(path)`` on the CPU, with a clear error for a missing file or package."""
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

    Args:
        model: a path to the saved ``.zip`` or a loaded model.
        env_name: the env it plays (a key of ``ggpzoo.envs.ENVS``); the model's action and
            observation spaces must be that env's (or, for amazons_v0, the turn decomposition's).
        deterministic: play the most likely action (default) instead of sampling.
    """

    takes = "state"  # a decomposed amazons_v0 turn needs the state; other games use the observation

    def __init__(self, model, env_name: str, deterministic: bool = True, name: str | None = None):
        self.path = model if isinstance(model, str) else None
        self.model = load_model(model) if isinstance(model, str) else model
        self.env_name = env_name
        self.deterministic = bool(deterministic)
        self.name = name or (f"sb3:{os.path.basename(self.path)}" if self.path else "sb3")
        self.env = load(env_name).raw_env()
        n = getattr(getattr(self.model, "action_space", None), "n", None)
        shape = tuple(getattr(getattr(self.model, "observation_space", None), "shape", ()) or ())
        obs_shape = self.env.observation_space("white")["observation"].shape
        self.decomposed = None
        if n == self.env.num_actions and shape == obs_shape:
            self.takes = "observation"
        elif env_name == "amazons_v0" and n == 100:
            from ggpzoo.wrappers import AmazonsTurnDecomposition

            self.decomposed = AmazonsTurnDecomposition(self.env)
            want = self.decomposed.observation_space("white")["observation"].shape
            if shape != want:
                raise ValueError(f"the model observes shape {shape}; amazons_v0 turn decomposition gives {want}")
        else:
            raise ValueError(
                f"the model has {n} actions and observations of shape {shape}; {env_name} has "
                f"{self.env.num_actions} actions and observations of shape {obs_shape}: was it trained on another env?"
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
        if self.decomposed is None:
            if not isinstance(x, dict):  # a state: observe it
                self.env.set_state(x)
                x = self.env.observe(self.env.agent_selection)
            return self._predict(x)
        if isinstance(x, dict):
            raise TypeError(f"{self.name} plays amazons_v0 turns in three steps and needs the state (board, aux)")
        dec = self.decomposed
        dec.set_state(x)
        agent = dec.agent_selection
        cells = []
        for _ in range(3):
            c = self._predict(dec.observe(agent))
            cells.append(c)
            if len(cells) < 3:
                dec.step(c)
        src, dst, arrow = cells
        from ggpzoo.envs.amazons import kernel as K

        return int(K.BASE[src, dst] + K.QPOS[dst, arrow])
