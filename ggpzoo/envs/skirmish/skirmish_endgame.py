# noqa: D212, D415
"""
# Skirmish endgame (`skirmish_endgame_v0`)

| Creation           | `make("aec", "ggpzoo/skirmish_endgame-v0")` or `ggpzoo.envs.skirmish_endgame_v0.env()` |
|--------------------|---------------------------------------------------------------------------------------|
| Agents             | `['white', 'black']`                                                                  |
| Action space       | `Discrete(4096)`, `a = src * 64 + dst`                                                |
| Observation        | `Box(0, 1, (8, 8, 17), float32)` plus `action_mask` `(4096,)` int8                    |
| Rule sheet         | `skirmishFinal1.kif` (exact rules below)                           |

Skirmish with holes (see `skirmish_v0`) from a reduced start: 10 pieces each, no queens and
no kings. White has knights (2,1), (7,1), bishops (3,1), (6,1), rooks (4,1), (5,1) and pawns
(3,2)..(6,2); black mirrors them on ranks 8 and 7. Pawns never push: they move only by
capturing one cell diagonally forward, and still become queens on the far rank. The
game is at most 59 actions long and scores 10 per capture.

### Rules
The exact rules, as the rule sheet `skirmishFinal1.kif` states them: those of
[`skirmish_v0`](skirmish_v0.md) (board, holes, piece moves, captures, promotion, the
sheet's no-move test; see also [the rules every game shares](index.md#rules-every-game-shares)), with these differences:

* **Start**, 10 pieces each, no queens, no kings. White: knights (2,1), (7,1); bishops
  (3,1), (6,1); rooks (4,1), (5,1); pawns (3,2), (4,2), (5,2), (6,2). Black mirrors them
  on ranks 8 and 7: knights (2,8), (7,8); bishops (3,8), (6,8); rooks (4,8), (5,8); pawns
  (3,7), (4,7), (5,7), (6,7).
* **Pawns** move only by capturing, one cell diagonally forward onto an opponent's piece;
  they never push. A pawn reaching the far rank still becomes a queen.
* **End** also at step 60 (after 59 actions), besides the `skirmish_v0` conditions.
* **Goals**: 10 per capture, 0..100 (10 captures is the most possible).
* **Check figures** (tested by `tests/test_perft.py`): white has 6 legal actions at the
  start; then 36 and 300, summed, at the next two depths.

### Observation
As in `skirmish_v0`, `obs[y-1, x-1, p]`, absolute cells, own/opponent from the observing
agent's side. Planes 0-5: its own pawns, knights, bishops, rooks, queens, king; 6-11: the
opponent's; 12: holes; 13: actions played / 59; 14: its own capture count / 10; 15: the
opponent's / 10; 16: all ones when the observer is black. Values in [0, 1]; Markov.

### Actions
`a = src * 64 + dst` with cells `c = (y - 1) * 8 + (x - 1)`; promotion is always to a queen.
`encode_action((x1, y1), (x2, y2))` and `decode_action(a)` convert with 1-based cells; an
illegal action raises a `ValueError` in `raw_env` saying why (pawn pushes are not allowed
in this game, a hole, a blocked path...).

### Goals, end and rewards
Each role's goal, in every state, is 10 per capture it has made (0..100). `infos[agent]`
holds `"goal"` and `"captures"`. The game ends when a role has no pieces; when a role
(either one) has no move under the rule sheet's test, which also counts a piece's move
that lands on a hole (pawns have no pushes here); when the role to act has no legal action
(the rules every game shares); or at step 60, i.e. after 59 actions. Reward at the end only: +1 to
the higher goal, -1 to the lower, 0 each when equal.

### Version history
* v0: initial release.
"""

from __future__ import annotations

from ggpzoo.envs.base import make_env_fn, make_parallel_fn
from ggpzoo.envs.skirmish.skirmish import _SkirmishBase
from ggpzoo.envs.skirmish.spec import SKIRMISH_ENDGAME


class raw_env(_SkirmishBase):
    """Skirmish endgame: 10 pieces each, pawns only capture, 59 actions, 10 points a capture."""

    game_spec = SKIRMISH_ENDGAME


env = make_env_fn(raw_env)
parallel_env = make_parallel_fn(raw_env)
