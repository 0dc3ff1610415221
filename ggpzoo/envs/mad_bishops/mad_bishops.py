# noqa: D212, D415
"""
# Mad Bishops (`mad_bishops_v0`)

| Creation           | `make("aec", "ggpzoo/mad_bishops-v0")` or `ggpzoo.envs.mad_bishops_v0.env()` |
|--------------------|-------------------------------------------------------------------------------|
| Agents             | `['white', 'black']`                                                          |
| Action space       | `Discrete(10000)`, `a = src * 100 + dst`                                      |
| Observation        | `Box(0, 1, (10, 10, 3), int8)` plus `action_mask` `(10000,)` int8             |
| Arguments          | `render_mode=None`, `"ansi"`, `"rgb_array"` or `"human"`; `max_steps=None` or a positive int |
| Rule sheet         | `madBishops.kif`, a game by Mark Steere (rules below)     |

10x10 board, files a..j (x = 1..10), 25 bishops each: white on the cells with x and y
odd, black on those with x and y even. Every piece moves like a chess bishop over empty
cells, and either

* captures an opposing piece it *threatens* (the first occupied cell along one of its
  diagonals, at any distance), or
* if it threatens no opposing piece, steps to an empty cell it sees that some opposing
  piece also threatens, i.e. only into danger.

Threats are judged on the board before the move. Capturing is not compulsory: a piece
with a capture may only capture, but another piece of the same side may step instead.
White moves first. The game ends when a role has lost its last piece.

### Rules
The exact rules, as the rule sheet `madBishops.kif` states them (cells are 1-based
`(x, y)`, files a..j are x = 1..10; see also [the rules every game shares](index.md#rules-every-game-shares)):

* **Board and start.** 10x10. White has a piece on every cell with x and y both in
  {1, 3, 5, 7, 9} (25 pieces), black on every cell with x and y both in {2, 4, 6, 8, 10}
  (25 pieces). White moves first; the roles alternate.
* **Threats**, judged on the board before the move: a piece *threatens an opposing piece*
  when that piece is the first occupied cell along one of its four diagonals (any
  distance); it *threatens an empty cell* on one of its diagonals when every cell in
  between is empty.
* **A move** `(move x1 y1 x2 y2)` of the role in control is legal when either
  1. (capture) its piece on (x1,y1) threatens the opposing piece on (x2,y2); or
  2. its piece on (x1,y1) threatens no opposing piece, (x2,y2) is an empty cell it
     threatens, and some opposing piece threatens (x2,y2).

  Capturing is not compulsory: another piece of the same side may make a type-2 move
  while some piece could capture. The piece lands on (x2,y2), removing what stood there.
* **End**: a role has no pieces left. There is no step limit.
* **Goals**: 100 to a role that still has a piece, 0 to one that has none (100 and 100
  while the game runs).
* **Check figures** (tested by `tests/test_perft.py`): white has 81 legal actions at the
  start, all captures; summed over them, black has 6,130.

### Observation
From the observing agent's side (no board flip: planes use the absolute cells),
`obs[y-1, x-1, p]`: plane 0 its own pieces, plane 1 the opponent's pieces, plane 2 all
ones when it is the observing agent's turn. The rules are the same for both colours, so
these planes are the whole state.

### Action mask
`action_mask` is int8, 1 for the legal actions of the agent to move and all zeros for
the other agent and after the end.

### Actions
`a = src * 100 + dst` with cells `c = (y - 1) * 10 + (x - 1)`: the piece and where it
goes. `encode_action((x1, y1), (x2, y2))` and `decode_action(a)` convert with 1-based
cells; `raw_env.step` raises a `ValueError` that says why an illegal action is illegal.

### Goals, end and rewards
Goals in every state (`infos[agent]["goal"]`): 100 to a role that still has a piece,
0 to one that has none, so 100/100 while the game runs. The game ends when a role has no
piece: the winner gets reward +1, the loser -1, at the end only. The rules' "no legal
action" end (the rules every game shares) cannot happen in play from the start: the side to move
always has a legal action while some colour class of cells holds pieces of both sides
(see the kernel's docstring for the proof), and all pieces stay on the cells where x + y
is even. It would end the game at 100/100, rewards 0/0.

The rules have no step limit. `max_steps=N` (opt-in, default `None`) ends a game still
running after N actions by truncation (both agents truncated, rewards 0), for training.

### Version history
* v0: initial release.
"""

from __future__ import annotations

from ggpzoo.envs.base import GGPEnv, cell, cell_str, make_env_fn, make_parallel_fn, xy
from ggpzoo.envs.mad_bishops import kernel as K
from ggpzoo.envs.mad_bishops.spec import MAD_BISHOPS


class raw_env(GGPEnv):
    """Mad Bishops: one action moves one bishop, capturing or stepping into danger."""

    game_spec = MAD_BISHOPS

    # ------------------------------------------------------------------ reasons
    def _name(self, value: int) -> str:
        return self.possible_agents[value - K.WHITE]

    def _first_piece(self, c: int, dx: int, dy: int) -> int | None:
        """The first occupied cell from ``c`` (exclusive) going ``(dx, dy)``, or None."""
        x, y = xy(c, K.W)
        x, y = x + dx, y + dy
        while 1 <= x <= K.W and 1 <= y <= K.H:
            t = cell(x, y, K.W)
            if self._board[t] != K.EMPTY:
                return t
            x, y = x + dx, y + dy
        return None

    def _threatened_piece(self, src: int) -> int | None:
        """The lowest cell of an opposing piece the piece at ``src`` threatens, or None."""
        opp = K.BLACK + K.WHITE - self._board[src]
        hits = [self._first_piece(src, dx, dy) for dx, dy in K.DIRS]
        hits = [t for t in hits if t is not None and self._board[t] == opp]
        return min(hits) if hits else None

    def _threatener(self, dst: int, opp: int) -> int | None:
        """The lowest cell of a piece of value ``opp`` that threatens the empty ``dst``, or None."""
        hits = [self._first_piece(dst, dx, dy) for dx, dy in K.DIRS]
        hits = [t for t in hits if t is not None and self._board[t] == opp]
        return min(hits) if hits else None

    def _why_illegal(self, action: int) -> str:
        src, dst = divmod(int(action), K.N)
        own = K.WHITE + int(self._aux[K.ROLE])
        opp = K.BLACK + K.WHITE - own
        me, them = self._name(own), self._name(opp)
        s, d = cell_str(src, K.W), cell_str(dst, K.W)
        if self._board[src] != own:
            what = "it is empty" if self._board[src] == K.EMPTY else f"it holds a {them} piece"
            return f"there is no {me} piece at {s}: {what}"
        (x1, y1), (x2, y2) = xy(src, K.W), xy(dst, K.W)
        if src == dst or abs(x2 - x1) != abs(y2 - y1):
            return f"{s}->{d} is not along a diagonal"
        dx, dy = (x2 > x1) - (x2 < x1), (y2 > y1) - (y2 < y1)
        blocker = self._first_piece(src, dx, dy)
        if blocker is not None and abs(xy(blocker, K.W)[0] - x1) < abs(x2 - x1):
            return f"the path {s}->{d} is blocked at {cell_str(blocker, K.W)}"
        if self._board[dst] == own:
            return f"{d} holds a {me} piece of your own"
        if self._board[dst] == opp:
            return "the game is over"  # an unblocked capture is always legal while it runs
        prey = self._threatened_piece(src)
        if prey is not None:
            return (
                f"{d} is empty and the piece at {s} has a capture (it threatens the {them} piece at "
                f"{cell_str(prey, K.W)}): a piece that threatens an opposing piece may only capture"
            )
        if self._threatener(dst, opp) is None:
            return f"no {them} piece threatens {d}: a non-capture move must go to a cell an opposing piece threatens"
        return "the game is over"


env = make_env_fn(raw_env)
parallel_env = make_parallel_fn(raw_env)
