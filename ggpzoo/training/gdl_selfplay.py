"""Deprecated (0.7): every two-role game, GDL sheets included, trains on
[`ggpzoo.training.selfplay.SelfPlayVecEnv`][ggpzoo.training.selfplay.SelfPlayVecEnv]
(``SelfPlayVecEnv("gdl:tictactoe", num_envs=16)``). This module goes in 0.8."""

from __future__ import annotations

import warnings

__all__ = ["GDLSelfPlayVecEnv"]


def GDLSelfPlayVecEnv(game, num_envs: int = 16, *, reward: str | None = None, max_steps: int | None = None, **kwargs):
    """Deprecated: ``SelfPlayVecEnv(spec, num_envs, reward=..., max_steps=..., **kwargs)`` for the
    GDL game ``game`` (a loaded `ggpzoo.gdl.Game`, a ``.kif`` path or KIF text); ``reward=None``
    is ``"winloss"``."""
    warnings.warn(
        "ggpzoo.training.gdl_selfplay.GDLSelfPlayVecEnv is deprecated: use "
        "ggpzoo.training.selfplay.SelfPlayVecEnv('gdl:SHEET', ...) (or a GameSpec)",
        DeprecationWarning,
        2,
    )
    from ggpzoo.gdl.game import Game, load
    from ggpzoo.gdl.spec import gdl_spec
    from ggpzoo.training.selfplay import SelfPlayVecEnv

    spec = gdl_spec(game if isinstance(game, Game) else load(game))
    return SelfPlayVecEnv(spec, num_envs, reward="winloss" if reward is None else reward, max_steps=max_steps, **kwargs)
