"""Amazons with split turns (move, then fire): see `ggpzoo.envs.amazons.amazons_split`."""

from ggpzoo.envs.amazons.amazons_split import env, raw_env

__all__ = ["env", "raw_env"]
