"""AEC wrappers for the ggpzoo envs, one module per concern.

* :mod:`ggpzoo.wrappers.rewards` - :class:`WinLossReward`, :class:`GoalReward`,
  :class:`GoalDeltaReward`: rewards from the GGP goals (``REWARDS`` names them).
* :mod:`ggpzoo.wrappers.shaping` - :class:`PotentialShaping`: a dense potential-based
  training signal (mobility, material) whose rewards sum to 0 over a game.
* :mod:`ggpzoo.wrappers.features` - :class:`ReachPlanes`: Amazons observations with the
  cells each side's queens reach.
* :mod:`ggpzoo.wrappers.turns` - :class:`AmazonsTurnDecomposition` (an amazons_v0 turn as
  three masked 100-way choices) and :class:`MoveDecomposition` (a from/to action as two).
* :mod:`ggpzoo.wrappers.accounting` - :class:`RewardAccounting`, the AEC reward
  bookkeeping the others share.

Each works on ``env()`` and ``raw_env`` and touches no private field of the wrapped env.
"""

from ggpzoo.wrappers.accounting import InvalidWrapperArgument, RewardAccounting
from ggpzoo.wrappers.rewards import (
    REWARDS,
    GoalDeltaReward,
    GoalReward,
    GoalRewardWrapper,
    WinLossReward,
    reward_wrapper,
)
from ggpzoo.wrappers.features import ReachPlanes
from ggpzoo.wrappers.shaping import POTENTIALS, PotentialShaping
from ggpzoo.wrappers.turns import AmazonsTurnDecomposition, MoveDecomposition, TurnDecomposition

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
