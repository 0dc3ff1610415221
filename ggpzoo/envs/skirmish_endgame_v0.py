"""Skirmish endgame: see `ggpzoo.envs.skirmish.skirmish_endgame`."""

from ggpzoo.envs.skirmish.skirmish_endgame import env, raw_env

__all__ = ["env", "raw_env"]
