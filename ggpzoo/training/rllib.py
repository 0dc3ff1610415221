"""Ray RLlib glue: any ggpzoo env as an RLlib multi-agent env with action masking.

RLlib's action-masking PPO module
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``)
reads observations of the form ``{"observations": <float tensor>, "action_mask": <0/1>}``.
ggpzoo's envs give ``{"observation": ..., "action_mask": ...}``, with int8 planes in some
games, so [`RLlibObservation`][ggpzoo.training.rllib.RLlibObservation] renames the key and casts the planes to float32
(the mask stays int8: a quarter of the memory on Amazons' 86,980 actions). Everything else is
RLlib's own: [`rllib_env()`][ggpzoo.training.rllib.rllib_env] wraps the result in RLlib's ``PettingZooEnv``.

The module needs ``ray[rllib]`` (``pip install "ggpzoo[distributed]"``) only for
[`rllib_env()`][ggpzoo.training.rllib.rllib_env] and [`register()`][ggpzoo.training.rllib.register]; importing it does
not import ray. The functions live here, in an importable module, so that Ray can unpickle them on every node of a
cluster (each node needs ggpzoo installed, like ray itself).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo.utils import BaseWrapper

from ggpzoo.envs import ENVS, load
from ggpzoo.envs.base import AGENTS

__all__ = [
    "SHARED_POLICY",
    "RLlibObservation",
    "register",
    "rllib_env",
    "rllib_env_name",
    "seat_policy_mapping",
    "shared_policy_mapping",
]

#: The module id both seats map to with a shared policy.
SHARED_POLICY = "shared"


class RLlibObservation(BaseWrapper):
    """Observations as ``{"observations": float32 planes, "action_mask": int8 mask}``."""

    def __init__(self, env):
        super().__init__(env)
        self._spaces = {}
        for agent in env.possible_agents:
            space = env.observation_space(agent)
            planes = space["observation"]
            self._spaces[agent] = spaces.Dict(
                {
                    "observations": spaces.Box(
                        planes.low.astype(np.float32), planes.high.astype(np.float32), planes.shape, np.float32
                    ),
                    "action_mask": space["action_mask"],
                }
            )

    def observation_space(self, agent):
        return self._spaces[agent]

    def observe(self, agent):
        obs = self.env.observe(agent)
        if obs is None:
            return None
        return {
            "observations": np.asarray(obs["observation"], dtype=np.float32),
            "action_mask": obs["action_mask"],
        }


def rllib_env(env_config: dict | None = None):
    """An RLlib ``PettingZooEnv`` over ggpzoo env ``env_config["env"]``.

    ``env_config`` is RLlib's per-env dict:

    ``"env"``
        the ggpzoo env name (required);
    ``"max_steps"``
        optional, the env's ``max_steps`` truncation;
    ``"illegal_moves"``
        ``"raise"`` (default): the bare ``raw_env``, where an illegal action raises a
        ``ValueError`` -- with action masking none should ever be played, so one is a bug
        to hear about; ``"lose"``: the PettingZoo-classic ``env()``, where it ends the
        game with -1 to the mover.
    """
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    config = dict(env_config or {})
    if "env" not in config:
        raise ValueError(f"env_config must name the ggpzoo env, e.g. {{'env': {next(iter(ENVS))!r}}}; got {config}")
    module = load(config["env"])
    kwargs = {"max_steps": config["max_steps"]} if config.get("max_steps") is not None else {}
    illegal = config.get("illegal_moves", "raise")
    if illegal == "raise":
        env = module.raw_env(**kwargs)
    elif illegal == "lose":
        env = module.env(**kwargs)
    else:
        raise ValueError(f"illegal_moves must be 'raise' or 'lose', got {illegal!r}")
    return PettingZooEnv(RLlibObservation(env))


def rllib_env_name(name: str) -> str:
    """The name [`register()`][ggpzoo.training.rllib.register] gives ggpzoo env ``name`` in Ray Tune's registry."""
    return f"ggpzoo_{name}"


def register(name: str) -> str:
    """Register ggpzoo env ``name`` with ``ray.tune.registry``; return the registered name.

    ``PPOConfig().environment(register(name), env_config={"env": name})`` then builds
    [`rllib_env()`][ggpzoo.training.rllib.rllib_env] on every EnvRunner.
    """
    if name not in ENVS:
        raise ValueError(f"unknown environment {name!r}; known: {', '.join(ENVS)}")
    from ray.tune.registry import register_env

    registered = rllib_env_name(name)
    register_env(registered, rllib_env)
    return registered


def shared_policy_mapping(agent_id, episode=None, **kwargs) -> str:
    """Both seats play one policy (self-play with parameter sharing)."""
    return SHARED_POLICY


def seat_policy_mapping(agent_id, episode=None, **kwargs) -> str:
    """One policy per seat: ``white`` and ``black``."""
    if agent_id not in AGENTS:
        raise ValueError(f"unknown agent {agent_id!r}; ggpzoo agents are {AGENTS}")
    return agent_id
