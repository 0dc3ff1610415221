"""The spec of ``mad_bishops_v0`` (see `ggpzoo.envs.gamespec.GameSpec`)."""

from __future__ import annotations

from ggpzoo.envs.gamespec import MOVE_DECOMPOSITION, GameSpec
from ggpzoo.envs.mad_bishops import kernel as K

__all__ = ["MAD_BISHOPS", "material_balance"]


material_balance = K.material_balance  # the potential (white's view), in the kernel


MAD_BISHOPS = GameSpec(
    name="mad_bishops_v0",
    kernel=K,
    variant=0,
    num_actions=K.NUM_ACTIONS,
    num_planes=3,
    env_module="ggpzoo.envs.mad_bishops.mad_bishops",
    piece_chars=".WB",
    file_labels="abcdefghij",
    decomposition=MOVE_DECOMPOSITION,
    potential=material_balance,
    reach_planes=K.reach_planes,
    # the from/to pairs scored by CellPolicy: 95% against random in 30 minutes, where two cell choices stayed at 87%
    recipe={"shaping": 1.0, "reach_planes": True, "decompose": False, "policy": "cell", "gamma": 0.9},
    references={"pyspiel": ("checkers", {"rows": 10, "columns": 10}, 1)},
)
