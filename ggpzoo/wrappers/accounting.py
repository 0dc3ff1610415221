"""Reward bookkeeping for AEC wrappers that set rewards of their own.

* `RewardAccounting` - a ``BaseWrapper`` that keeps its own ``rewards`` and
  ``_cumulative_rewards`` with PettingZoo's AEC rules, reading nothing private of the
  wrapped env.

PettingZoo's ``BaseWrapper`` forwards ``rewards`` and ``_cumulative_rewards`` to the
wrapped env, so a wrapper that changes rewards must hold both dicts itself, or ``last()``
(which reads ``_cumulative_rewards`` of the object it is called on) and every wrapper
outside it would still see the old rewards. The AEC rules kept here:

* after a live step by ``agent``: ``_cumulative_rewards[agent] = 0``, then ``rewards`` is
  the step's reward of every live agent and is added to each agent's
  ``_cumulative_rewards``, so a reward earned by the agent *not* selected waits for it
  in ``_cumulative_rewards`` and reaches it through ``last()`` at its next turn;
* after a dead step (``step(None)`` of a terminated or truncated agent): that agent's
  entries are gone and every remaining ``rewards`` entry is 0, the others' cumulative
  rewards are kept;
* the keys of both dicts are always ``env.agents``.
"""

from __future__ import annotations

import copy
from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

__all__ = ["RewardAccounting", "InvalidWrapperArgument"]


class InvalidWrapperArgument(ValueError):
    """A wrapper was built on an env or with an argument it cannot work with."""


class RewardAccounting(BaseWrapper):
    """Base of the ggpzoo wrappers that set rewards: holds ``rewards`` and ``_cumulative_rewards``.

    Subclasses call `_begin()` after the wrapped env was reset (or set to a state),
    `_step_live()` (or `_step_dead_or_over()`) to step it, and `_pay()` after a
    live step.
    """

    def __init__(self, env: AECEnv):
        if not isinstance(env, AECEnv):
            raise InvalidWrapperArgument(f"{type(self).__name__} wraps a PettingZoo AEC env, got {type(env).__name__}")
        super().__init__(env)
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self.env.reset(seed=seed, options=options)
        self._begin()

    def __copy__(self):
        """A deep copy: a shallow one would share the wrapped game."""
        return copy.deepcopy(self)

    def set_state(self, state) -> None:
        """Continue from a game state, as ``raw_env.set_state`` does (see `ggpzoo.envs.base.GGPEnv`)."""
        self.env.set_state(state)
        self._begin()

    def _begin(self, rewards: dict[str, float] | None = None) -> None:
        """Start the books: every live agent's reward is ``rewards[agent]`` (default 0)."""
        rewards = rewards or {}
        self.rewards = {a: float(rewards.get(a, 0.0)) for a in self.env.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.env.agents}
        self._add_rewards()

    def _pay(self, agent: str, rewards: dict[str, float]) -> None:
        """Book a live step by ``agent`` that earned ``rewards`` (missing agents: 0)."""
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: float(rewards.get(a, 0.0)) for a in self.env.agents}
        self._add_rewards()

    def _add_rewards(self) -> None:
        for a, r in self.rewards.items():
            self._cumulative_rewards[a] = self._cumulative_rewards.get(a, 0.0) + r

    def _step_live(self, action) -> str | None:
        """Step the wrapped env with ``action``; return the agent that acted, or None when it
        was a dead step or a step after the end (forwarded and booked by `_step_dead_or_over()`)."""
        if self._step_dead_or_over(action):
            return None
        agent = self.env.agent_selection
        self.env.step(action)
        return agent

    def _step_dead_or_over(self, action) -> bool:
        """Forward ``action`` if the game is over or the selected agent is dead; True if it was."""
        env = self.env
        if env.agents:
            agent = env.agent_selection
            if not (env.terminations[agent] or env.truncations[agent]):
                return False
        env.step(action)  # the wrapped env checks that ``action`` is None, or warns/raises
        self.rewards = {a: 0.0 for a in env.agents}
        self._cumulative_rewards = {a: self._cumulative_rewards.get(a, 0.0) for a in env.agents}
        return True
