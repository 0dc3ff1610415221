"""The specs of ``skirmish_v0`` and ``skirmish_endgame_v0`` (see `ggpzoo.envs.gamespec.GameSpec`)."""

from __future__ import annotations

import numpy as np

from ggpzoo.envs.gamespec import MOVE_DECOMPOSITION, GameSpec
from ggpzoo.envs.skirmish import kernel as K

__all__ = ["SKIRMISH", "SKIRMISH_ENDGAME"]

SKIRMISH = GameSpec(
    name="skirmish_v0",
    kernel=K,
    variant=K.SKIRMISH,
    num_actions=K.NUM_ACTIONS,
    num_planes=K.NUM_PLANES,
    env_module="ggpzoo.envs.skirmish.skirmish",
    piece_chars=K.PIECE_CHARS,
    obs_dtype=np.float32,
    decomposition=MOVE_DECOMPOSITION,
    reach_planes=K.reach_planes,
    recipe={"reward": "delta_zero_sum", "reach_planes": True, "policy": "cell"},  # captures pay at once
    references={"chess": "chess_v6", "pyspiel": ("chess", {}, 1)},
)

SKIRMISH_ENDGAME = GameSpec(
    name="skirmish_endgame_v0",
    kernel=K,
    variant=K.ENDGAME,
    num_actions=K.NUM_ACTIONS,
    num_planes=K.NUM_PLANES,
    env_module="ggpzoo.envs.skirmish.skirmish_endgame",
    piece_chars=K.PIECE_CHARS,
    obs_dtype=np.float32,
    decomposition=MOVE_DECOMPOSITION,
    reach_planes=K.reach_planes,
    recipe={"reward": "delta_zero_sum", "reach_planes": True, "policy": "cell"},  # captures pay at once
    references={"chess": "chess_v6"},
)
