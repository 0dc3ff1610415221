"""The specs of ``amazons_v0`` and ``amazons_split_v0`` (see `ggpzoo.envs.gamespec.GameSpec`)."""

from __future__ import annotations

from ggpzoo.envs.amazons import kernel as K
from ggpzoo.envs.gamespec import MOVE_DECOMPOSITION, GameSpec

__all__ = ["AMAZONS", "AMAZONS_SPLIT", "mobility_balance"]


mobility_balance = K.mobility_balance  # the potential (white's view), in the kernel


AMAZONS = GameSpec(
    name="amazons_v0",
    kernel=K,
    variant=K.AMAZONS,
    num_actions=K.NUM_ACTIONS_AMAZONS,
    num_planes=3,
    env_module="ggpzoo.envs.amazons.amazons",
    piece_chars=".WBx",
    action_parts=("queen", "destination", "arrow"),
    action_table="DECODE",
    decomposition="ggpzoo.envs.amazons.turns:AmazonsTurnDecomposition",
    decompose_by_default=True,  # 86,980 ids: three cell choices learn far better
    potential=mobility_balance,
    reach_planes=K.reach_planes,
    feature_planes=K.territory_planes,  # reach in one move, and queen-distance territory
    num_feature_planes=4,
    recipe={"shaping": 1.0, "reach_planes": True, "decompose": True, "policy": "cell", "gamma": 0.9},
    references={"openspiel": ("amazons", {}, 3), "pyspiel": ("amazons", {}, 3)},
)

AMAZONS_SPLIT = GameSpec(
    name="amazons_split_v0",
    kernel=K,
    variant=K.SPLIT,
    num_actions=K.NUM_ACTIONS_SPLIT,
    num_planes=5,
    env_module="ggpzoo.envs.amazons.amazons_split",
    piece_chars=".WBx",
    action_parts=("queen", "destination"),
    turn_actions=2,
    decomposition=MOVE_DECOMPOSITION,
    potential=mobility_balance,
    reach_planes=K.reach_planes,
    feature_planes=K.territory_planes,  # reach in one move, and queen-distance territory
    num_feature_planes=4,
    recipe={"shaping": 1.0, "reach_planes": True, "decompose": True, "policy": "cell", "gamma": 0.9},
)
