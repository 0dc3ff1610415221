"""The agent protocol: a callable that picks an action, from an observation or a game state.

Every agent is called with what it needs to decide, and returns an action id:

* ``takes = "observation"``: the env's observation dict for the agent to move,
  ``{"observation": planes, "action_mask": mask}`` (`RandomAgent`,
  `SB3Agent`);
* ``takes = "state"``: the kernel state ``(board, aux)`` of ``env.unwrapped.get_state()``
  (`GreedyAgent`, `MCTSAgent`), which they copy
  before searching.

`Agent.act()` gives an agent the right one from an env, so code that runs agents
(the arena, ``play``) need not care which.
"""

from __future__ import annotations

import numpy as np

from ggpzoo.engine.dispatch import kernel_id
from ggpzoo.envs import spec
from ggpzoo.envs.state_check import checked_state

__all__ = ["Agent", "seeded_rng", "MAX_SECONDS"]

MAX_SECONDS = 3600.0  # the longest budget per move any agent takes (an hour; specs like ab:0.25s)


def seeded_rng(seed) -> np.random.Generator:
    """``np.random.default_rng(seed)`` for ``seed`` None or a seed the engine takes (an integer
    in 0..2**63 - 1, `ggpzoo.engine.batch._seed()`); anything else (a float, a bool, a
    negative number) is a ValueError naming it."""
    if seed is None:
        return np.random.default_rng()
    from ggpzoo.engine.batch import _seed

    try:
        return np.random.default_rng(_seed(seed))
    except ValueError:
        raise ValueError(f"seed must be None or a non-negative integer below 2**63, got {seed!r}") from None


class Agent:
    """Base class of the ggpzoo agents.

    Attributes:
        name: a short label (the arena's spec string, e.g. ``"mcts:200"``).
        takes: ``"observation"`` or ``"state"``: what `__call__()` expects.
    """

    name: str = "agent"
    takes: str = "observation"

    def __call__(self, x) -> int:
        """The action to play, from an observation dict or a state ``(board, aux)`` (see ``takes``)."""
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed the agent's randomness if ``seed`` is given."""

    def act(self, env) -> int:
        """The action for ``env.agent_selection`` in ``env`` (a ggpzoo env, wrapped or not)."""
        raw = env.unwrapped
        if self.takes == "state":
            return self(raw.get_state())
        return self(raw.observe(raw.agent_selection))

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class _StateAgent(Agent):
    """An agent that searches the kernel state of env ``env_name`` (in numba, via ggpzoo.engine.dispatch)."""

    takes = "state"

    def __init__(self, env_name: str, seed: int | None = None):
        self.env_name = env_name
        self.spec = spec(env_name)
        self.game = kernel_id(self.spec.kernel)
        self.kernel = self.spec.kernel
        self.variant = self.spec.variant
        self.rng = seeded_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded_rng(seed)

    def _checked(self, state) -> tuple[np.ndarray, np.ndarray]:
        """``state`` as contiguous copies, checked to be a state of this agent's game
        (`ggpzoo.envs.state_check.checked_state()`: a ValueError names the problem)."""
        if not isinstance(state, (tuple, list)) or len(state) != 2:
            raise TypeError(
                f"{type(self).__name__} takes a game state (board, aux), e.g. env.unwrapped.get_state(); "
                f"got {type(state).__name__}"
            )
        return checked_state(state, self.kernel, self.variant, self.env_name)

    def _seed(self) -> int:
        return int(self.rng.integers(1, 2**62))
