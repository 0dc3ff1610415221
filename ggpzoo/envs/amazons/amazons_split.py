# noqa: D212, D415
"""
# Amazons, split turns (`amazons_split_v0`)

| Creation           | `make("aec", "ggpzoo/amazons_split-v0")` or `ggpzoo.envs.amazons_split_v0.env()` |
|--------------------|-------------------------------------------------------------------------------|
| Agents             | `['white', 'black']`                                                          |
| Action space       | `Discrete(10000)`, `a = src * 100 + dst`                                      |
| Observation        | `Box(0, 1, (10, 10, 5), int8)` plus `action_mask` `(10000,)` int8             |
| Rule sheet         | `amazons_10x10.kif` (RULES.md, section "amazons_split")                       |

Amazons with each turn split into two actions by the same role: first a queen move, then
a fire from the queen that just moved. `agent_selection` stays on the same agent for the
fire. The arrow may cross or land on the vacated origin.

### Observation
From the observing agent's side: plane 0 its own queens, plane 1 the opponent's queens,
plane 2 arrows, plane 3 all ones in the fire phase, plane 4 marks the queen that must
fire. The last two make the observation Markov.

### Actions
`a = src * 100 + dst` with cells `c = (y - 1) * 10 + (x - 1)`. In a move step src is the
queen and dst its destination; in a fire step src is the queen that just moved and dst
the arrow's cell. `encode_action((x1, y1), (x2, y2))`, `decode_action(a)`.

### Goals, end and rewards
Goals in every state: 0 to the role to act, 100 to the other. The game ends when the role
to act has no legal action (in practice, no queen move at a move step). Reward at the end:
+1 to the winner, -1 to the loser.

### Version history
* v0: initial release.
"""

from __future__ import annotations

from ggpzoo.envs.amazons import kernel as K
from ggpzoo.envs.amazons.amazons import _AmazonsBase
from ggpzoo.envs.base import cell_str, make_env_fn


class raw_env(_AmazonsBase):
    """Amazons with the move and the fire as two actions of the same role."""

    metadata = {"name": "amazons_split_v0", "render_modes": ["ansi", "rgb_array", "human"], "is_parallelizable": False, "render_fps": 2}
    variant = K.SPLIT
    num_actions = K.NUM_ACTIONS_SPLIT
    num_planes = 5

    @property
    def phase(self) -> str:
        """``"move"`` or ``"fire"``: what the next action of ``agent_selection`` is."""
        return "fire" if self._aux[K.PHASE] else "move"

    def _why_illegal(self, action: int) -> str:
        src, dst = divmod(action, K.N)
        if self._aux[K.PHASE] == 1:
            firer = int(self._aux[K.FIRER])
            if src != firer:
                return f"this is the fire step: the arrow must come from the queen that just moved, at {cell_str(firer, K.W)}"
            return self._line_reason("the arrow", src, dst) or "the game is over"
        return self._queen_reason(src) or self._line_reason("the queen move", src, dst) or "the game is over"


env = make_env_fn(raw_env)
