"""Extra observation planes that spell out what a small policy would have to compute.

* :class:`ReachPlanes` - for ``amazons_v0`` and ``amazons_split_v0``: two more planes, the
  empty cells the observer's queens reach in one queen move and those the opponent's
  queens reach. Mobility, what decides Amazons, is then a count over planes rather than a
  function of whole rays of the board, which a policy learns much sooner.

The planes are facts of the position, computed by the rules kernel; nothing is hidden or
added that the board planes do not already determine.

>>> from ggpzoo.envs import amazons_v0
>>> env = ReachPlanes(amazons_v0.env())
>>> env.reset()
>>> obs = env.observe("white")["observation"]
>>> obs.shape, int(obs[:, :, 3].sum()), int(obs[:, :, 4].sum())   # the start: 4 queens each side
((10, 10, 5), 58, 58)

Change log: added in 0.2.0.
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from ggpzoo.envs.amazons import kernel as K
from ggpzoo.wrappers.accounting import InvalidWrapperArgument

__all__ = ["ReachPlanes"]

AMAZONS_ENVS = ("amazons_v0", "amazons_split_v0")


class ReachPlanes(BaseWrapper):
    """Adds two planes to an Amazons observation: the cells each side's queens reach.

    Plane ``P`` (after the wrapped env's ``P`` planes) is 1 on every empty cell a queen of
    the observing agent reaches in one queen move, plane ``P + 1`` the same for the
    opponent's queens. ``action_mask``, rewards and everything else pass through.

    Args:
        env: ``amazons_v0`` or ``amazons_split_v0`` (``env()`` or ``raw_env``), possibly in
            reward or shaping wrappers; put a turn decomposition outside this wrapper.
    """

    def __init__(self, env: AECEnv):
        if not isinstance(env, AECEnv):
            raise InvalidWrapperArgument(f"ReachPlanes wraps a PettingZoo AEC env, got {type(env).__name__}")
        name = getattr(env.unwrapped, "metadata", {}).get("name")
        if name not in AMAZONS_ENVS:
            raise InvalidWrapperArgument(f"ReachPlanes adds Amazons queen-reach planes, got the env {name!r}")
        inner = env.observation_space(env.possible_agents[0])
        h, w, planes = inner["observation"].shape
        if (h, w) != (K.H, K.W) or not isinstance(env.action_space(env.possible_agents[0]), spaces.Discrete) or (
            env.action_space(env.possible_agents[0]).n not in (K.NUM_ACTIONS_AMAZONS, K.NUM_ACTIONS_SPLIT)
        ):
            raise InvalidWrapperArgument("put ReachPlanes inside a turn decomposition, not outside it")
        super().__init__(env)
        space = spaces.Dict(
            {
                "observation": spaces.Box(0, 1, (h, w, planes + 2), np.int8),
                "action_mask": inner["action_mask"],
            }
        )
        self.observation_spaces = {a: space for a in env.possible_agents}
        self._planes = planes

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def observe(self, agent):
        inner = self.env.observe(agent)
        board, _ = self.env.unwrapped.get_state()
        obs = np.empty((K.H, K.W, self._planes + 2), np.int8)
        obs[:, :, : self._planes] = inner["observation"]
        K.reach_planes(board, self.possible_agents.index(agent), obs[:, :, self._planes :])
        return {"observation": obs, "action_mask": inner["action_mask"]}
