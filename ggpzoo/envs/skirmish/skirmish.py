# noqa: D212, D415
"""
# Skirmish with holes (`skirmish_v0`)

| Creation           | `make("aec", "ggpzoo/skirmish-v0")` or `ggpzoo.envs.skirmish_v0.env()` |
|--------------------|------------------------------------------------------------------------|
| Agents             | `['white', 'black']`                                                   |
| Action space       | `Discrete(4096)`, `a = src * 64 + dst`                                 |
| Observation        | `Box(0, 1, (8, 8, 17), float32)` plus `action_mask` `(4096,)` int8     |
| Rule sheet         | `skirmishHoles.kif` (exact rules below)                     |

Chess pieces from the chess array on an 8x8 board with four holes, (3,3), (6,3), (3,6) and
(6,6), that nothing may stand on or slide across (knights jump over them). There is no
check, checkmate, castling or en passant: the king is an ordinary piece and may be
captured, and the game goes on. A pawn steps one cell forward onto an empty cell, two
from its home rank when both cells are empty, captures one cell diagonally forward, and
becomes a queen on the far rank. The aim is to capture: each role scores from its own
capture count.

### Rules
The exact rules, as the rule sheet `skirmishHoles.kif` states them (cells are 1-based
`(x, y)`, x the column; see also [the rules every game shares](index.md#rules-every-game-shares)):

* **Board.** 8x8 with four holes, (3,3), (3,6), (6,3), (6,6): nothing ever stands on a hole.
* **Start**: the chess array. White: rook (1,1), knight (2,1), bishop (3,1), queen (4,1),
  king (5,1), bishop (6,1), knight (7,1), rook (8,1), pawns on all of rank 2; black the
  same on ranks 8 and 7 (queen (4,8), king (5,8)). Both capture counts 0; step 1. White
  moves first; the roles alternate.
* **A move** `(move x1 y1 x2 y2)`: the piece on (x1,y1) is the mover's, the move is valid
  for its type, and (x2,y2) is neither a hole nor occupied by one of the mover's pieces.
  * Rook, bishop and queen slide as in chess; every cell strictly between must be empty
    and not a hole.
  * Knight: the eight L-shaped jumps, over anything, but never onto a hole.
  * King: one cell in any of the eight directions. There is no check, checkmate or
    castling: the king is an ordinary piece and may be captured.
  * Pawn (white; black's mirror this, moving down): one cell forward onto an empty cell
    that is not a hole; two cells from rank 2 to rank 4 when the cells on ranks 3 and 4 of
    its file are both empty and not holes; one cell diagonally forward onto an opponent's
    piece. No en passant. A pawn reaching the far rank (8 for white, 1 for black) becomes
    a queen.
* **Captures**: a move onto an opponent's piece removes it and adds 1 to the mover's
  capture count.
* **End**, whichever comes first: a role has no pieces; a role (either one, whoever is to
  move) has no move under the rule sheet's test; step 100 is reached (after 99 actions);
  or the role to act has no legal action.
  * The sheet's no-move test (`hasLegalMove`) is the legal-move test without "the
    destination is not a hole": a rook's, bishop's, queen's or king's step, or a knight's
    jump, that lands on a hole counts as a move for it (a defect of the sheet, hence the
    last end condition). A pawn's move never does: a push needs its target cells empty and
    not holes, and a capture needs an opponent's piece on the target.
  * Example: white has only pawns on (3,5), (5,4), (6,2); black has pawns on (3,7), (5,5),
    a king on (7,7) and a knight on (7,8); black is to move. White has no move under the
    test (the pushes to (3,6) and (6,3) would land on holes, (5,4) is blocked), so the
    state is terminal.
* **Goals**, in every state, from the role's own capture count: 0, 6, 12, 18, 24, 30, 36,
  42, 48, 54, 60, 66, 72 for 0..12 captures, then 79, 86, 93, 100 for 13..16.
* **Check figures** (tested by `tests/test_perft.py`): white has 14 legal actions at the
  start; 196 summed over black's replies; 3,230 at the next depth.

### Observation
`obs[y-1, x-1, p]`, absolute cells (no board flip), own/opponent from the observing
agent's side. Planes 0-5: its own pawns, knights, bishops, rooks, queens, king; 6-11: the
opponent's, same order; 12: holes; 13: actions played / 99 (1.0 at the step limit); 14:
its own capture count / 16; 15: the opponent's / 16; 16: all ones when the observer is
black (its pawns move down the board), zeros for white. Every value lies in [0, 1], and
the planes hold the whole state: the observation is Markov.

### Actions
`a = src * 64 + dst` with cells `c = (y - 1) * 8 + (x - 1)`. Promotion is always to a
queen, so there is no promotion choice. `encode_action((x1, y1), (x2, y2))` and
`decode_action(a)` convert with 1-based cells; an illegal action raises a `ValueError` in
`raw_env` saying why (a hole, a blocked path, not a knight move...).

### Goals, end and rewards
Each role's goal, in every state, comes from its own capture count: 0, 6, 12, ..., 72 for
0..12 captures, then 79, 86, 93, 100 for 13..16. `infos[agent]` holds `"goal"` and
`"captures"`. The game ends when a role has no pieces; when a role (either one) has no
move under the rule sheet's test, which also counts a piece's move that lands on a hole
but never a pawn's (a pawn facing a hole is blocked); when the role to act has no legal
action (the rules every game shares); or at step 100, i.e. after 99 actions.
Reward at the end only: +1 to the higher goal, -1 to the lower, 0 each when equal.

### Version history
* v0 (ggpzoo 0.3.0): a pawn's push onto a hole no longer counts as a move in the rule
  sheet's no-move test, so games that reach such a state end there.
* v0: initial release.
"""

from __future__ import annotations

from ggpzoo.envs.base import AGENTS, GGPEnv, cell_str, make_env_fn, make_parallel_fn, xy
from ggpzoo.envs.skirmish import kernel as K
from ggpzoo.envs.skirmish.spec import SKIRMISH

PIECE_NAMES = ("", "pawn", "knight", "bishop", "rook", "queen", "king")


class _SkirmishBase(GGPEnv):
    """What the two Skirmish envs share: the kernel, spaces, encoding, reasons and infos."""

    def _info(self, role: int, goal: int) -> dict:
        return {"goal": int(goal), "captures": int(self._aux[K.WHITE_CAPTURES + role])}

    def _what(self, v: int) -> str:
        """``"a hole"``, ``"the black knight"``... for the board value ``v``."""
        if v == K.HOLE:
            return "a hole"
        return f"the {AGENTS[K.COLOR[v]]} {PIECE_NAMES[K.TYPE[v]]}"

    def _why_illegal(self, action: int) -> str:
        src, dst = divmod(int(action), K.N)
        role = int(self._aux[K.ROLE])
        me = AGENTS[role]
        v, w = int(self._board[src]), int(self._board[dst])
        s, d = cell_str(src, K.W), cell_str(dst, K.W)
        if v == K.EMPTY:
            return f"there is no piece at {s}"
        if v == K.HOLE:
            return f"{s} is a hole: there is no piece there"
        if K.COLOR[v] != role:
            return f"{s} holds {self._what(v)}, not a {me} piece"
        t = int(K.TYPE[v])
        name = PIECE_NAMES[t]
        if src == dst:
            return f"the {name} at {s} must move to another cell"
        if w == K.HOLE:
            return f"{d} is a hole: nothing may stand on it"
        if K.COLOR[w] == role:
            return f"{d} holds {me}'s own {PIECE_NAMES[K.TYPE[w]]}"
        (x1, y1), (x2, y2) = xy(src, K.W), xy(dst, K.W)
        dx, dy = x2 - x1, y2 - y1
        if t == K.PAWN:
            return self._why_pawn(role, src, dst, dx, dy, w)
        if t == K.KNIGHT:
            valid = sorted((abs(dx), abs(dy))) == [1, 2]
        elif t == K.KING:
            valid = max(abs(dx), abs(dy)) == 1
        else:
            straight, diagonal = dx == 0 or dy == 0, abs(dx) == abs(dy)
            valid = {K.BISHOP: diagonal, K.ROOK: straight, K.QUEEN: straight or diagonal}[t]
        if not valid:
            return f"{s}->{d} is not a valid {name} move"
        if t in (K.BISHOP, K.ROOK, K.QUEEN):
            b = self._first_occupied(src, dst)
            if b is not None:
                return f"the {name}'s path is blocked at {cell_str(b, K.W)} by {self._what(int(self._board[b]))}"
        return "the game is over"  # not reached while the game runs: the move would be legal

    def _why_pawn(self, role: int, src: int, dst: int, dx: int, dy: int, w: int) -> str:
        me, d = AGENTS[role], cell_str(dst, K.W)
        fwd = 1 if role == 0 else -1
        if dx == 0 and dy in (fwd, 2 * fwd) and not K.PUSHES[self.variant]:
            return (
                f"pawn pushes are not allowed in {self.metadata['name']}: "
                "a pawn moves only by capturing diagonally forward"
            )
        if dx == 0 and dy == fwd:
            return f"a pawn push needs an empty cell, and {d} holds {self._what(w)}"
        if dx == 0 and dy == 2 * fwd:
            home = K.PAWN_HOME[role] + 1
            if xy(src, K.W)[1] != home:
                return f"a {me} pawn moves two cells only from rank {home}"
            mid = src + K.PAWN_STEP[role]
            if self._board[mid] != K.EMPTY:
                return f"the pawn's path is blocked at {cell_str(mid, K.W)} by {self._what(int(self._board[mid]))}"
            return f"a pawn push needs an empty cell, and {d} holds {self._what(w)}"
        if abs(dx) == 1 and dy == fwd:
            return f"a pawn moves diagonally only to capture, and {d} is empty"
        return f"{cell_str(src, K.W)}->{d} is not a valid {me} pawn move"


class raw_env(_SkirmishBase):
    """Skirmish with holes: chess without check on a board with four holes, scored by captures."""

    game_spec = SKIRMISH


env = make_env_fn(raw_env)
parallel_env = make_parallel_fn(raw_env)
