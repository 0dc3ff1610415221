"""Skirmish with holes: see `ggpzoo.envs.skirmish.skirmish`."""

from ggpzoo.envs.skirmish.skirmish import env, raw_env

__all__ = ["env", "raw_env"]
