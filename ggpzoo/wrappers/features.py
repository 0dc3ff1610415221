"""Extra observation planes that spell out what a small policy would have to compute.

* [`ReachPlanes`][ggpzoo.wrappers.features.ReachPlanes] - two more planes: where the observer's pieces reach and where
  the
  opponent's reach. In ``amazons_v0`` and ``amazons_split_v0`` the empty cells each side's
  queens reach in one queen move (mobility, what decides Amazons, becomes a count over
  planes rather than a function of whole rays); in ``mad_bishops_v0`` the cells each side
  covers: empty cells it threatens, opposing pieces it can take, its own pieces it
  defends (a piece that can be taken without a recapture is where the opponent's plane
  meets its own side's pieces and not its own side's plane); in ``skirmish_v0`` and
  ``skirmish_endgame_v0`` likewise the cells each side could capture on (since 0.4.0;
  the planes then are float32, as the Skirmish observations).

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

import copy

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from ggpzoo.envs import SPECS
from ggpzoo.wrappers.accounting import InvalidWrapperArgument

__all__ = ["ReachPlanes", "REACH"]

REACH = {name: s.reach_planes for name, s in SPECS.items() if s.reach_planes is not None}
"""The games with reach planes (their specs' ``reach_planes``): ``fn(board, role, out)`` fills
``out[:, :, 0:2]`` for ``role``'s view."""


class ReachPlanes(BaseWrapper):
    """Adds two planes to the observation: the cells each side's pieces reach.

    Plane ``P`` (after the wrapped env's ``P`` planes) marks the cells the observing agent's
    pieces reach, plane ``P + 1`` those of the opponent: in Amazons every empty cell a queen
    reaches in one queen move, in Mad Bishops every cell a piece covers (empty cells along
    its diagonals, and the piece of either side that ends one), in Skirmish every cell a
    piece could capture on (`ggpzoo.envs.skirmish.kernel.reach_planes()`).
    ``action_mask``, rewards and everything else pass through.

    Args:
        env: a ggpzoo env whose spec has ``reach_planes`` (all five games; ``env()`` or
            ``raw_env``), possibly in reward or shaping wrappers; put a turn decomposition
            outside this wrapper.
    """

    def __init__(self, env: AECEnv):
        if not isinstance(env, AECEnv):
            raise InvalidWrapperArgument(f"ReachPlanes wraps a PettingZoo AEC env, got {type(env).__name__}")
        game = getattr(env.unwrapped, "game_spec", None)
        if game is None or game.reach_planes is None:
            name = getattr(env.unwrapped, "metadata", {}).get("name")
            raise InvalidWrapperArgument(f"ReachPlanes has planes for {', '.join(REACH)}; got the env {name!r}")
        inner = env.observation_space(env.possible_agents[0])
        h, w, planes = inner["observation"].shape
        if getattr(env.action_space(env.possible_agents[0]), "n", None) != env.unwrapped.num_actions:
            raise InvalidWrapperArgument("put ReachPlanes inside a turn decomposition, not outside it")
        super().__init__(env)
        self._dtype = np.result_type(inner["observation"].dtype, np.int8)  # float32 in the Skirmish games
        space = spaces.Dict(
            {
                "observation": spaces.Box(0, inner["observation"].high.max(), (h, w, planes + 2), self._dtype),
                "action_mask": inner["action_mask"],
            }
        )
        self.observation_spaces = {a: space for a in env.possible_agents}
        self.first_plane = planes  # the index of the first of the two reach planes
        self._reach = game.reach_planes

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def __copy__(self):
        """A deep copy: a shallow one would share the wrapped game."""
        return copy.deepcopy(self)

    def observe(self, agent):
        inner = self.env.observe(agent)
        board, _ = self.env.unwrapped.get_state()
        h, w, _ = inner["observation"].shape
        obs = np.empty((h, w, self.first_plane + 2), self._dtype)
        obs[:, :, : self.first_plane] = inner["observation"]
        self._reach(board, self.possible_agents.index(agent), obs[:, :, self.first_plane :])
        return {"observation": obs, "action_mask": inner["action_mask"]}
