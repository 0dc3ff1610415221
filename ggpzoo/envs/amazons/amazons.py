# noqa: D212, D415
"""
# Amazons (`amazons_v0`)

| Creation           | `make("aec", "ggpzoo/amazons-v0")` or `ggpzoo.envs.amazons_v0.env()` |
|--------------------|----------------------------------------------------------------------|
| Agents             | `['white', 'black']`                                                 |
| Action space       | `Discrete(86980)`                                                    |
| Observation        | `Box(0, 1, (10, 10, 3), int8)` plus `action_mask` `(86980,)` int8    |
| Rule sheet         | `amazons.kif` (exact rules below)                          |

10x10 board, four queens each. A turn moves one queen like a chess queen over empty
cells, then fires an arrow from its new cell, again along a queen line over empty cells;
the arrow may cross or land on the cell the queen just left. Arrows stay for good.

### Rules
The exact rules, as the rule sheet `amazons.kif` states them (cells are 1-based `(x, y)`,
x the column; see also [the rules every game shares](index.md#rules-every-game-shares)):

* **Board and start.** 10x10, empty except four white queens on (4,1), (7,1), (1,4),
  (10,4) and four black queens on (1,7), (10,7), (4,10), (7,10). White moves first; the
  roles alternate, one action per turn.
* **A turn** is one action, `(play x1 y1 x2 y2 x3 y3)` in the sheet: the mover's queen on
  (x1,y1) goes to (x2,y2), then fires an arrow onto (x3,y3).
  * (x2,y2) lies on a rank, file or diagonal from (x1,y1); it and every cell strictly
    between are empty (no queen, no arrow).
  * (x3,y3) lies on a rank, file or diagonal from (x2,y2); it and every cell strictly
    between are empty on the board *after* the queen has left (x1,y1). So the arrow may
    fly over the vacated cell and may land on it. (Some prose descriptions forbid landing
    on the origin; the rule sheet allows it, as do the usual rules of Amazons.)
* **Arrows** stay for the rest of the game. Nothing is ever captured.
* **End**: as soon as *either* role has no queen move (none of its queens has an empty
  neighbouring cell on a rank, file or diagonal), whichever role is to move.
* **Goals**: white 100 if black has no queen move, else 0; black 100 if white has no
  queen move, else 0. Both are 0 while the game runs and both 100 if both are stuck at once.
* **Check figures** (legal actions summed over every position at each depth, tested by
  `tests/test_perft.py`): 2,176 for white at the start; 4,307,152 for black over those
  2,176 positions.

### Observation
From the observing agent's side (no board flip: planes use the absolute cells):
plane 0 its own queens, plane 1 the opponent's queens, plane 2 arrows. `obs[y-1, x-1, p]`.

### Actions
The flattened `(source, destination, arrow)` triples that are geometrically possible:
with Q(c) the cells on a queen line from c on an empty board, ascending, ids run over
src ascending, dst ascending over Q(src), arrow ascending over Q(dst). `encode_action(
(x1, y1), (x2, y2), (x3, y3))` and `decode_action(a)` convert with 1-based cells.

### Goals, end and rewards
The game ends as soon as either role has no queen move, whoever is to move. White's goal
is 100 if black has no queen move, else 0; black's likewise; both 100 is a draw. Reward
at the end only: +1 to the higher goal, -1 to the lower, 0 each when equal.

### Through other libraries
Generic wrappers (TorchRL's `PettingZooWrapper`, Tianshou's `PettingZooEnv`, AgileRL)
copy or convert the 86,980-entry mask at every step, which makes this env run at a few to
a few tens of steps per second through them. There, play `amazons_split_v0` (the same
game, 10,000 actions) or wrap this env in `AmazonsTurnDecomposition` (three choices of
100 per turn). See [Other libraries](../guides/other_libraries.md).

### Version history
* v0: initial release.
"""

from __future__ import annotations

from ggpzoo.envs.amazons import kernel as K
from ggpzoo.envs.amazons.spec import AMAZONS
from ggpzoo.envs.base import GGPEnv, cell_str, integer_id, make_env_fn, make_parallel_fn, xy


class _AmazonsBase(GGPEnv):
    """What the two Amazons envs share: the kernel, the pictures and the reasons."""

    def _line_reason(self, what: str, a: int, b: int) -> str | None:
        if K.QPOS[a, b] < 0:
            return f"{what} {cell_str(a, K.W)}->{cell_str(b, K.W)} is not along a rank, file or diagonal"
        blocker = self._first_occupied(a, b, inclusive=True)
        if blocker is not None:
            return f"{what} {cell_str(a, K.W)}->{cell_str(b, K.W)} is blocked at {cell_str(blocker, K.W)}"
        return None

    def _queen_reason(self, src: int) -> str | None:
        piece = K.WHITE + int(self._aux[K.ROLE])
        if self._board[src] != piece:
            return f"there is no {self.agent_selection} queen at {cell_str(src, K.W)}"
        return None


class raw_env(_AmazonsBase):
    """Amazons: a whole turn (queen move and arrow) is one action."""

    game_spec = AMAZONS

    def decode_action(self, action: int) -> tuple[tuple[int, int], ...]:
        action = integer_id(action, self.num_actions)
        return tuple(xy(int(c), K.W) for c in K.DECODE[action])

    def encode_action(self, *cells: tuple[int, int]) -> int:
        if len(cells) != 3:
            raise ValueError(f"an amazons action names 3 cells (queen, destination, arrow), got {len(cells)}")
        src, dst, arrow = (self._cell(c) for c in cells)
        if K.BASE[src, dst] < 0 or K.QPOS[dst, arrow] < 0:
            raise ValueError(f"{cells} is not a queen move followed by an arrow along a queen line")
        return int(K.BASE[src, dst] + K.QPOS[dst, arrow])

    def _why_illegal(self, action: int) -> str:
        src, dst, arrow = (int(c) for c in K.DECODE[action])
        reason = self._queen_reason(src) or self._line_reason("the queen move", src, dst)
        if reason:
            return reason
        self._board[dst], self._board[src] = self._board[src], K.EMPTY
        try:
            reason = self._line_reason("the arrow", dst, arrow)
        finally:
            self._board[src], self._board[dst] = self._board[dst], K.EMPTY
        return reason or "the game is over"


env = make_env_fn(raw_env)
parallel_env = make_parallel_fn(raw_env)
