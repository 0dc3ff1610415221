"""Rewards from the GGP goals, in numba: the one copy of each reward rule.

The AEC reward wrappers ([`ggpzoo.wrappers.rewards`][ggpzoo.wrappers.rewards]) and the batched self-play env
([`ggpzoo.engine.selfplay`][ggpzoo.engine.selfplay]) both call [`goal_reward()`][ggpzoo.engine.rewards.goal_reward];
potential shaping ([`ggpzoo.wrappers.shaping`][ggpzoo.wrappers.shaping]) and the self-play env both take the potential
of [`mover_potential()`][ggpzoo.engine.rewards.mover_potential].

Reward kinds (`REWARD_KINDS`), for an agent whose goal goes from ``own_before`` to
``own_after`` while the opponent's goes from ``opp_before`` to ``opp_after``:

* ``"winloss"``: at the end, +1 if its goal is the higher, -1 if the lower, 0 if equal;
* ``"goal"``: at the end, its own goal / 100;
* ``"delta"``: its goal's change / 100;
* ``"delta_zero_sum"``: its goal's change minus the opponent's, / 100.
"""

from __future__ import annotations

from numba import njit

from ggpzoo.engine.dispatch import potential

__all__ = ["REWARD_KINDS", "goal_reward", "mover_potential", "outcome_rewards", "reward_kind"]

REWARD_KINDS = {"winloss": 0, "goal": 1, "delta": 2, "delta_zero_sum": 3}


def reward_kind(name: str) -> int:
    """The id of the reward kind ``name``, or a ValueError listing the kinds."""
    if not isinstance(name, str) or name not in REWARD_KINDS:
        raise ValueError(f"unknown reward {name!r}; choose from: {', '.join(REWARD_KINDS)}")
    return REWARD_KINDS[name]


@njit(cache=True)
def goal_reward(kind, own_before, opp_before, own_after, opp_after, ended):
    """An agent's reward for the goals going from ``before`` to ``after``; ``ended``: the game
    ended by the rules at ``after``. Sums telescope: the reward of several steps at once is
    the sum of the steps' rewards."""
    if kind == 0:
        if not ended:
            return 0.0
        return 1.0 if own_after > opp_after else (-1.0 if own_after < opp_after else 0.0)
    if kind == 1:
        return own_after / 100 if ended else 0.0
    if kind == 2:
        return (own_after - own_before) / 100
    return ((own_after - own_before) - (opp_after - opp_before)) / 100


@njit(cache=True)
def mover_potential(game, board, aux, role, ended):
    """``role``'s shaping potential: white's `ggpzoo.engine.dispatch.potential()`, its
    negative for black, and 0 once the game has ended by the rules (so that shaping rewards
    sum to 0 over a game)."""
    if ended:
        return 0.0
    value = potential(game, board, aux)
    return value if role == 0 else 0.0 - value


@njit(cache=True)
def outcome_rewards(goals, out):
    """The end-of-game rewards of every role from its goals into ``out`` (one per role):
    +1 above every other role, -1 below the best other, 0 tied at the top (for two roles:
    the sign of the goal difference); a one-role game's reward is its goal / 100."""
    n = goals.shape[0]
    if n == 1:
        out[0] = goals[0] / 100
        return
    for r in range(n):
        best = -1
        for q in range(n):
            if q != r and goals[q] > best:
                best = goals[q]
        out[r] = 1.0 if goals[r] > best else (-1.0 if goals[r] < best else 0.0)
