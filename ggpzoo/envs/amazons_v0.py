"""Amazons, one action per turn: see `ggpzoo.envs.amazons.amazons`."""

from ggpzoo.envs.amazons.amazons import env, raw_env

__all__ = ["env", "raw_env"]
