"""Mad Bishops: see `ggpzoo.envs.mad_bishops.mad_bishops`."""

from ggpzoo.envs.mad_bishops.mad_bishops import env, raw_env

__all__ = ["env", "raw_env"]
