# noqa: D212, D415
"""
# Amazons, split turns (`amazons_split_v0`)

| Creation           | `make("aec", "ggpzoo/amazons_split-v0")` or `ggpzoo.envs.amazons_split_v0.env()` |
|--------------------|-------------------------------------------------------------------------------|
| Agents             | `['white', 'black']`                                                          |
| Action space       | `Discrete(10000)`, `a = src * 100 + dst`                                      |
| Observation        | `Box(0, 1, (10, 10, 5), int8)` plus `action_mask` `(10000,)` int8             |
| Rule sheet         | `amazons_10x10.kif` (exact rules below)                       |

Amazons with each turn split into two actions by the same role: first a queen move, then
a fire from the queen that just moved. `agent_selection` stays on the same agent for the
fire. The arrow may cross or land on the vacated origin.

### Rules
The exact rules, as the rule sheet `amazons_10x10.kif` states them (cells are 1-based
`(x, y)`, x the column; see also [the rules every game shares](index.md#rules-every-game-shares)):

* **Board and start** as in `amazons_v0`: 10x10, white queens on (4,1), (7,1), (1,4),
  (10,4), black queens on (1,7), (10,7), (4,10), (7,10). White moves first.
* **A turn** is two actions by the same role:
  1. a move, `(move x1 y1 x2 y2)`: a queen of the mover goes from (x1,y1) to (x2,y2) on a
     rank, file or diagonal; (x2,y2) and every cell strictly between are empty;
  2. a fire, `(fire x y)`, from the queen that just moved: (x,y) is on a rank, file or
     diagonal from it, and (x,y) and every cell strictly between are empty on the board
     after the move (the vacated origin counts as empty).

  Then the other role moves. Arrows stay; nothing is captured.
* **End**: the role to act has no legal action. In practice this happens only at a move
  step (a queen that just moved can always fire back onto the cell it left).
* **Goals**, in every state: 0 to the role to act, 100 to the other.
* **Check figures** (tested by `tests/test_perft.py`): white has 80 legal moves at the
  start; after white's (4,1)->(4,5) it has 32 fire targets; summed over the 80 moves,
  2,176 fire actions (the 2,176 turns of `amazons_v0`).

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
from ggpzoo.envs.amazons.spec import AMAZONS_SPLIT
from ggpzoo.envs.base import cell_str, make_env_fn, make_parallel_fn, xy


class raw_env(_AmazonsBase):
    """Amazons with the move and the fire as two actions of the same role."""

    game_spec = AMAZONS_SPLIT

    @property
    def phase(self) -> str:
        """``"move"`` or ``"fire"``: what the next action of ``agent_selection`` is."""
        return "fire" if self._aux[K.PHASE] else "move"

    def at_turn_start(self) -> bool:
        return not self._aux[K.PHASE]

    def move_parts(self) -> tuple[str, ...]:
        return ("queen that just moved", "arrow") if self._aux[K.PHASE] else self.game_spec.action_parts

    def move_help(self) -> str:
        return super().move_help() + (
            " A turn is a move then a fire: in the fire step give just the arrow's cell; in the"
            " move step you may give 3 cells (queen, destination, arrow) to play both."
        )

    def _actions_from_cells(self, cells: list[tuple[int, int]], text: str) -> list[int]:
        """The fire step takes the arrow's cell alone; the move step a whole turn as 3 cells."""
        if self._aux[K.PHASE] and len(cells) == 1:
            cells = [xy(int(self._aux[K.FIRER]), K.W), *cells]
        elif not self._aux[K.PHASE] and len(cells) == 3:
            move = super()._actions_from_cells(cells[:2], text)[0]
            state = self.get_state()
            self.step(move)
            try:
                fire = super()._actions_from_cells([cells[1], cells[2]], text)[0]
            finally:
                self.set_state(state)
            return [move, fire]
        return super()._actions_from_cells(cells, text)

    def _why_illegal(self, action: int) -> str:
        src, dst = divmod(action, K.N)
        if self._aux[K.PHASE] == 1:
            firer = int(self._aux[K.FIRER])
            if src != firer:
                return (
                    "this is the fire step: the arrow must come from the queen that just moved, "
                    f"at {cell_str(firer, K.W)}"
                )
            return self._line_reason("the arrow", src, dst) or "the game is over"
        return self._queen_reason(src) or self._line_reason("the queen move", src, dst) or "the game is over"


env = make_env_fn(raw_env)
parallel_env = make_parallel_fn(raw_env)
