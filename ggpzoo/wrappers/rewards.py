"""Reward wrappers: map the GGP goals every ggpzoo env reports to rewards.

Every ggpzoo env puts each agent's goal (0..100) in ``infos[agent]["goal"]`` after reset
and after every step. These AEC wrappers turn the goals into rewards:

* [`WinLossReward`][ggpzoo.wrappers.rewards.WinLossReward] - at the end, +1 to the higher goal, -1 to the lower, 0 each
  when equal (the default rewards of the envs, made explicit);
* [`GoalReward`][ggpzoo.wrappers.rewards.GoalReward] - at the end, each agent gets its own goal / 100;
* [`GoalDeltaReward`][ggpzoo.wrappers.rewards.GoalDeltaReward] - after every step, each agent gets the change of its own
  goal
  / 100 (so in the Skirmish games a capture pays the capturer at once); with
  ``zero_sum=True``, its own change minus the opponent's.

"The end" is the end by the rules: a step after which every agent is terminated and none
is truncated. A truncation (``max_steps``) is no end: the game was cut off, so
[`WinLossReward`][ggpzoo.wrappers.rewards.WinLossReward] and [`GoalReward`][ggpzoo.wrappers.rewards.GoalReward] pay
nothing there (a learner should bootstrap), while [`GoalDeltaReward`][ggpzoo.wrappers.rewards.GoalDeltaReward] pays the
step's change as on any step. A game that the wrapped env ends for another reason, flagging every agent terminated
*and* truncated (PettingZoo's ``TerminateIllegalWrapper`` in ``env()``, on an illegal
action), keeps the wrapped env's rewards of that step: the mover's -1 gets through.

Each wrapper works on ``env()`` and on ``raw_env``, overrides one hook,
[`GoalRewardWrapper.goal_rewards()`][ggpzoo.wrappers.rewards.GoalRewardWrapper.goal_rewards], and keeps ``rewards`` and
``_cumulative_rewards`` by the AEC rules (see `ggpzoo.wrappers.accounting`): a reward earned on the other
agent's move reaches an agent through ``last()`` at its next turn.

>>> from ggpzoo.envs import skirmish_v0
>>> from ggpzoo.wrappers import GoalDeltaReward
>>> env = GoalDeltaReward(skirmish_v0.env(), zero_sum=True)
>>> env.reset()
>>> env.rewards
{'white': 0.0, 'black': 0.0}

Change log: added in 0.1.0.
"""

from __future__ import annotations

from pettingzoo import AECEnv

from ggpzoo.engine.rewards import REWARD_KINDS, goal_reward
from ggpzoo.wrappers.accounting import InvalidWrapperArgument, RewardAccounting

__all__ = ["GoalRewardWrapper", "WinLossReward", "GoalReward", "GoalDeltaReward", "REWARDS", "reward_wrapper"]


class GoalRewardWrapper(RewardAccounting):
    """Base of the goal-reward wrappers: subclasses override
    [`goal_rewards()`][ggpzoo.wrappers.rewards.GoalRewardWrapper.goal_rewards] only.

    Args:
        env: a two-agent AEC env that reports ``infos[agent]["goal"]`` (every ggpzoo env,
            wrapped by ``env()`` or not).
    """

    def __init__(self, env: AECEnv):
        super().__init__(env)
        agents = list(getattr(env, "possible_agents", []))
        if len(agents) != 2:
            raise InvalidWrapperArgument(f"{type(self).__name__} needs a two-agent env, got possible_agents={agents}")
        self._goals: dict[str, int] = {}

    def goal_rewards(self, before: dict[str, int], after: dict[str, int], ended: bool) -> dict[str, float]:
        """The rewards of a step from the goals ``before`` and ``after`` it.

        ``ended`` is True when the step ended the game by the rules (and at reset, when
        the start state is terminal, with ``before == after``).
        """
        raise NotImplementedError

    def _read_goals(self) -> dict[str, int]:
        infos = self.env.infos
        try:
            return {a: infos[a]["goal"] for a in self.env.agents}
        except KeyError:
            raise InvalidWrapperArgument(
                f"{type(self).__name__} needs an env that reports infos[agent]['goal'] "
                f"(a ggpzoo env); got infos {infos!r}"
            ) from None

    def _rules_end(self) -> bool:
        env = self.env
        return bool(env.agents) and all(env.terminations.values()) and not any(env.truncations.values())

    def _begin(self, rewards=None) -> None:
        self._goals = self._read_goals()
        ended = self._rules_end()
        super()._begin(self.goal_rewards(self._goals, self._goals, True) if ended else None)

    def step(self, action) -> None:
        agent = self._step_live(action)
        if agent is None:
            return
        env = self.env
        before, after = self._goals, self._read_goals()
        self._goals = after
        rewards = self.goal_rewards(before, after, self._rules_end())
        if all(env.terminations.values()) and all(env.truncations.values()):
            # ended by the wrapped env, not by the rules (an illegal action in env()): keep its rewards
            rewards = {a: rewards.get(a, 0.0) + env.rewards.get(a, 0.0) for a in env.agents}
        self._pay(agent, rewards)

    def _kind_rewards(self, kind: int, before, after, ended) -> dict[str, float]:
        """Each agent's `ggpzoo.engine.rewards.goal_reward()` of reward kind ``kind`` (the
        rule the batched self-play env applies too)."""
        rewards = {}
        for a, g in after.items():
            o = self._other(a)
            opp_after = after.get(o, 0)
            opp_before = before.get(o, opp_after)
            rewards[a] = float(
                goal_reward(kind, int(before.get(a, g)), int(opp_before), int(g), int(opp_after), bool(ended))
            )
        return rewards

    def _other(self, agent: str) -> str:
        a, b = self.env.possible_agents
        return b if agent == a else a


class WinLossReward(GoalRewardWrapper):
    """At the end, +1 to the agent with the higher goal, -1 to the lower, 0 each when equal.

    The envs' default rewards, written out: ``WinLossReward(env)`` pays exactly what ``env``
    pays, so it is the base to copy for a new mapping.

    >>> from ggpzoo.envs import amazons_v0
    >>> env = WinLossReward(amazons_v0.env())
    >>> env.reset()
    >>> env.last()[1]
    0.0
    """

    def goal_rewards(self, before, after, ended):
        return self._kind_rewards(REWARD_KINDS["winloss"], before, after, ended) if ended else {}


class GoalReward(GoalRewardWrapper):
    """At the end, each agent gets its own goal / 100 (0.0 .. 1.0); nothing before.

    Not zero-sum: in Skirmish a game that ends 9 captures to 4 pays 0.54 and 0.24; in
    Amazons the winner gets 1.0 and the loser 0.0 (both 1.0 when both are stuck).
    """

    def goal_rewards(self, before, after, ended):
        return self._kind_rewards(REWARD_KINDS["goal"], before, after, ended) if ended else {}


class GoalDeltaReward(GoalRewardWrapper):
    """After every step, each agent gets the change of its own goal / 100.

    Dense: in Skirmish a capture pays the capturer 0.06 (0.10 in the endgame) at once. The
    rewards telescope, so an episode pays each agent (final goal - start goal) / 100;
    where goals change only at the end (Amazons, Mad Bishops) that is the only reward.

    Args:
        env: the env to wrap.
        zero_sum: if True, each agent gets its own change minus the opponent's, so the two
            rewards of a step always sum to 0 (a capture pays the capturer +0.06 and the
            captured -0.06).
    """

    def __init__(self, env: AECEnv, zero_sum: bool = False):
        if not isinstance(zero_sum, bool):
            raise InvalidWrapperArgument(f"zero_sum must be True or False, got {zero_sum!r}")
        super().__init__(env)
        self.zero_sum = zero_sum

    def goal_rewards(self, before, after, ended):
        return self._kind_rewards(REWARD_KINDS["delta_zero_sum" if self.zero_sum else "delta"], before, after, ended)


REWARDS = {
    "winloss": WinLossReward,
    "goal": GoalReward,
    "delta": GoalDeltaReward,
    "delta_zero_sum": lambda env: GoalDeltaReward(env, zero_sum=True),
}
"""Reward wrappers by name, for command lines and configs: ``REWARDS[name](env)``."""


def reward_wrapper(env: AECEnv, reward: str | None) -> AECEnv:
    """``env`` wrapped in the reward wrapper named ``reward`` (a key of [`REWARDS`][ggpzoo.wrappers.rewards.REWARDS]),
    or as is for None."""
    if reward is None:
        return env
    if reward not in REWARDS:
        raise InvalidWrapperArgument(f"unknown reward {reward!r}; choose from: {', '.join(REWARDS)}")
    return REWARDS[reward](env)
