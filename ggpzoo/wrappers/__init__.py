"""AEC wrappers for the ggpzoo envs, one module per concern.

* `ggpzoo.wrappers.rewards` - `WinLossReward`, `GoalReward`,
  `GoalDeltaReward`: rewards from the GGP goals (``REWARDS`` names them).
* `ggpzoo.wrappers.shaping` - `PotentialShaping`: a dense potential-based
  training signal (mobility, material) whose rewards sum to 0 over a game.
* `ggpzoo.wrappers.features` - `ReachPlanes`: Amazons observations with the
  cells each side's queens reach.
* `ggpzoo.wrappers.turns` - `MoveDecomposition` (a from/to action as two
  masked cell choices) and `TurnDecomposition`, their base. A game whose actions
  need their own decomposition keeps it in its folder and names it in its spec
  (``AmazonsTurnDecomposition``, importable from here too).
* `ggpzoo.wrappers.accounting` - `RewardAccounting`, the AEC reward
  bookkeeping the others share.

Each works on ``env()`` and ``raw_env`` and touches no private field of the wrapped env.
"""

from ggpzoo.wrappers.accounting import InvalidWrapperArgument, RewardAccounting
from ggpzoo.wrappers.features import ReachPlanes
from ggpzoo.wrappers.rewards import (
    REWARDS,
    GoalDeltaReward,
    GoalReward,
    GoalRewardWrapper,
    WinLossReward,
    reward_wrapper,
)
from ggpzoo.wrappers.shaping import POTENTIALS, PotentialShaping
from ggpzoo.wrappers.turns import MoveDecomposition, TurnDecomposition

__all__ = [
    "AmazonsTurnDecomposition",
    "GoalDeltaReward",
    "GoalReward",
    "GoalRewardWrapper",
    "InvalidWrapperArgument",
    "MoveDecomposition",
    "POTENTIALS",
    "PotentialShaping",
    "REWARDS",
    "ReachPlanes",
    "RewardAccounting",
    "TurnDecomposition",
    "WinLossReward",
    "reward_wrapper",
]


def __getattr__(name):  # game-specific wrappers live with their game (its spec names them)
    if name == "AmazonsTurnDecomposition":
        from ggpzoo.envs.amazons.turns import AmazonsTurnDecomposition

        return AmazonsTurnDecomposition
    raise AttributeError(f"module 'ggpzoo.wrappers' has no attribute {name!r}")
