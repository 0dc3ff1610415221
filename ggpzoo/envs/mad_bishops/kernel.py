"""Rules kernel of Mad Bishops (``madBishops.kif``; game by Mark Steere).

The rules on docs/games/mad_bishops_v0.md and docs/games/index.md ("Rules every game shares")
are the contract.

Board (``int8[100]``, cell ``c = (y - 1) * 10 + (x - 1)``; row y = 10 at the top; files
a..j are x = 1..10)::

    y=10  90 91 92 93 94 95 96 97 98 99        . B . B . B . B . B
    y= 9  80 81 ...                 89         W . W . W . W . W .
     ...                                       ...
    y= 2  10 11 ...                 19         . B . B . B . B . B
    y= 1   0  1  2  3  4  5  6  7  8  9        W . W . W . W . W .
          x=1 (a)                  x=10 (j)

Values: ``EMPTY`` 0, ``WHITE`` 1, ``BLACK`` 2. White starts on the 25 cells with x and y
odd, black on the 25 with x and y even. Pieces move along diagonals only, so every piece
stays on the cells where x + y is even for the whole game.

``aux``: ``[ROLE, VARIANT, STEP]``; ``VARIANT`` is always 0 (one game in the family).

Action ids (the public contract): ``src * 100 + dst``, the cells of the piece and of
its destination. Discrete(10_000); ids that are not diagonal moves are never legal.

Legality, on the board before the move (docs/games/mad_bishops_v0.md): a piece *threatens an opposing piece*
when that piece is the first occupied cell along one of its four diagonals, and *threatens
an empty cell* on one of its diagonals when every cell in between is empty. A move is a
capture of a threatened opposing piece, or, for a piece that threatens no opposing piece,
a step to an empty cell it threatens that some opposing piece threatens too.

When the game can get stuck. Call the cells with x + y even and those with x + y odd the
two colour classes; each diagonal line lies in one class. Theorem: the role in control
has a legal action if and only if some colour class holds pieces of both roles. So in
play from the start (everything on x + y even) the game never gets stuck: it ends exactly
when a role has lost its last piece. The "Common" stuck rule only fires in positions
built by hand, e.g. with the two roles on different colour classes. `is_terminal()`
uses the theorem; the tests check it against the move generator on random positions.

Proof. Both roles have a legal action when there is an *interaction*: (a) a white and a
black piece consecutive along a diagonal line (no piece between), which threaten each
other, so both roles can capture; or (b) an empty cell threatened by a white piece and by
a black piece, each of which can capture or else step there. Give a cell its diagonal
``k = x - y`` and anti-diagonal ``s = x + y``; lines ``k`` and ``s`` of the same parity
cross on the board iff ``|k| <= m(s) = min(s - 2, 20 - s)``. Take a white piece at
(k, s) and a black one at (k', s') in one colour class, and suppose line k crosses line
s' at a cell e. If e holds a piece, one of the two lines holds pieces of both roles, so
two consecutive ones differ: (a). If e is empty, the first piece from e towards the white
piece along k is white, which threatens e, or black, and then (a) holds along k; likewise
along s' for black; so (a) or (b). Hence with no interaction line k misses line s' and
line k' misses line s: ``m(s') < |k| <= m(s)`` and ``m(s) < |k'| <= m(s')`` (the
right-hand bounds say the pieces are on the board), a contradiction. Conversely, pieces on
different colour classes never see each other or a common cell, so the role in control
has no capture and no cell to step to.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpzoo.envs.geometry import lines, parse_drawing, rays

H = W = 10
N = H * W
EMPTY, WHITE, BLACK = 0, 1, 2
ROLE, VARIANT, STEP = 0, 1, 2
AUX_SIZE = 3
# A destination is reached from at most one source per diagonal direction (the first
# piece that way from it), so no state of any board has more than 4 * 100 legal actions.
MAX_LEGAL = 4 * N
NUM_ACTIONS = N * N

# ----------------------------------------------------------------------------- tables
# The 4 diagonal directions as (dx, dy).
DIRS = ((1, 1), (-1, -1), (1, -1), (-1, 1))


def _build_tables():
    ray, ray_len = rays(H, W, DIRS)  # RAY[c, d, k]: the k-th cell from c in direction d
    return (ray, ray_len, *lines(ray, ray_len))  # D(c) ascending, with direction and distance


_tables = _build_tables()
RAY, RAY_LEN, DLEN, DCELL, DDIR, DDIST = (t.astype(np.int8) for t in _tables)
del _tables


# ----------------------------------------------------------------------------- state
@njit(cache=True)
def init(board, aux, variant):
    for c in range(N):
        x, y = c % W, c // W  # 0-based: 1-based odd is 0-based even
        if x % 2 == 0 and y % 2 == 0:
            board[c] = WHITE
        elif x % 2 == 1 and y % 2 == 1:
            board[c] = BLACK
        else:
            board[c] = EMPTY
    aux[ROLE] = 0
    aux[VARIANT] = variant
    aux[STEP] = 0


# ----------------------------------------------------------------------------- threats
@njit(cache=True)
def _threat_mask(board, piece):
    """The empty cells some piece of value ``piece`` threatens, as a 100-bit mask (lo, hi)."""
    lo = np.uint64(0)
    hi = np.uint64(0)
    one = np.uint64(1)
    for c in range(N):
        if board[c] != piece:
            continue
        for d in range(4):
            for k in range(RAY_LEN[c, d]):
                t = RAY[c, d, k]
                if board[t] != EMPTY:
                    break
                if t < 64:
                    lo |= one << np.uint64(t)
                else:
                    hi |= one << np.uint64(t - 64)
    return lo, hi


@njit(cache=True)
def _in_mask(lo, hi, t):
    if t < 64:
        return (lo >> np.uint64(t)) & np.uint64(1) != 0
    return (hi >> np.uint64(t - 64)) & np.uint64(1) != 0


# ----------------------------------------------------------------------------- legal actions
@njit(cache=True)
def legal_actions(board, aux, out):
    own = WHITE + aux[ROLE]
    opp = BLACK - aux[ROLE]
    n = 0
    reach = np.empty(4, np.int64)  # empty cells a piece sees in each direction
    have_threats = False
    lo = np.uint64(0)
    hi = np.uint64(0)
    for src in range(N):
        if board[src] != own:
            continue
        captures = False
        for d in range(4):
            k = 0
            length = RAY_LEN[src, d]
            while k < length and board[RAY[src, d, k]] == EMPTY:
                k += 1
            reach[d] = k
            if k < length and board[RAY[src, d, k]] == opp:
                captures = True
        base = np.int64(src * N)  # int64: base + an int8 cell must not wrap (NUMBA_DISABLE_JIT)
        if captures:  # only captures: the first cell past the empty run, when it is opposing
            for i in range(DLEN[src]):
                dst = DCELL[src, i]
                if DDIST[src, i] == reach[DDIR[src, i]] + 1 and board[dst] == opp:
                    out[n] = base + dst
                    n += 1
        else:  # steps to empty cells it sees that an opposing piece threatens
            if not have_threats:
                lo, hi = _threat_mask(board, opp)
                have_threats = True
            for i in range(DLEN[src]):
                dst = DCELL[src, i]
                if DDIST[src, i] <= reach[DDIR[src, i]] and _in_mask(lo, hi, dst):
                    out[n] = base + dst
                    n += 1
    return n


# ----------------------------------------------------------------------------- apply
@njit(cache=True)
def apply(board, aux, action):
    src, dst = action // N, action % N
    board[dst] = board[src]  # a piece on dst is captured
    board[src] = EMPTY
    aux[ROLE] = 1 - aux[ROLE]
    aux[STEP] += 1


# ----------------------------------------------------------------------------- terminal and goals
@njit(cache=True)
def is_terminal(board, aux):
    """A role has no piece, or the role in control has no legal action.

    By the theorem in the module docstring, the second happens exactly when no colour
    class (x + y even, x + y odd) holds pieces of both roles; that test also covers the
    first.
    """
    seen = 0  # bit (2 * parity + role): a piece of role on that colour class
    for c in range(N):
        v = board[c]
        if v != EMPTY:
            seen |= 1 << (2 * ((c // W + c % W) & 1) + v - 1)
    return (seen & 3) != 3 and (seen & 12) != 12


@njit(cache=True)
def goals(board, aux):
    white = 0
    black = 0
    for c in range(N):
        if board[c] == WHITE:
            white = 100
        elif board[c] == BLACK:
            black = 100
        if white and black:
            break
    return white, black


@njit(cache=True)
def terminal_goals(board, aux):
    """``(is_terminal, white's goal, black's goal)`` in one pass over the board: `is_terminal()`
    and `goals()` together (the game protocol's ``status`` asks for both at every step)."""
    seen = 0  # bit (2 * parity + role), as in is_terminal: white's bits are 0 and 2, black's 1 and 3
    for c in range(N):
        v = board[c]
        if v != EMPTY:
            seen |= 1 << (2 * ((c // W + c % W) & 1) + v - 1)
    return (seen & 3) != 3 and (seen & 12) != 12, 100 if seen & 5 else 0, 100 if seen & 10 else 0


# ----------------------------------------------------------------------------- reach (no rule)
@njit(cache=True)
def material_balance(board, aux):
    """White's material balance ``(Nw - Nb) / (Nw + Nb)`` over the pieces on the board, in
    [-1, 1]: the side that loses its last piece loses. Not a rule: the potential of
    `ggpzoo.wrappers.PotentialShaping` and of the batched self-play env."""
    white = 0
    black = 0
    for c in range(N):
        if board[c] == WHITE:
            white += 1
        elif board[c] == BLACK:
            black += 1
    total = white + black
    return 0.0 if total == 0 else (white - black) / total


@njit(cache=True)
def reach_planes(board, role, out):
    """``out[y, x, 0]`` = 1 on every cell a piece of ``role`` covers: the empty cells along
    its diagonals up to the first occupied one, and that one, whoever holds it (an opposing
    piece it threatens, or its own side's piece it defends); ``out[y, x, 1]`` the same for
    the other role. Not a rule: the extra planes of `ggpzoo.wrappers.ReachPlanes`."""
    out[:] = 0
    for c in range(N):
        v = board[c]
        if v == EMPTY:
            continue
        plane = 0 if v == WHITE + role else 1
        for d in range(4):
            for k in range(RAY_LEN[c, d]):
                t = RAY[c, d, k]
                out[t // W, t % W, plane] = 1
                if board[t] != EMPTY:
                    break


# ----------------------------------------------------------------------------- observation
@njit(cache=True)
def observe(board, aux, role, out):
    """Planes: own pieces, opponent pieces, all ones when ``role`` is in control."""
    own = WHITE + role
    opp = BLACK - role
    turn = 1 if aux[ROLE] == role else 0
    for c in range(N):
        y, x = c // W, c % W
        v = board[c]
        out[y, x, 0] = 1 if v == own else 0
        out[y, x, 1] = 1 if v == opp else 0
        out[y, x, 2] = turn


def new_state() -> tuple[np.ndarray, np.ndarray]:
    """A fresh ``(board, aux)`` at the start position."""
    board = np.zeros(N, np.int8)
    aux = np.zeros(AUX_SIZE, np.int32)
    init(board, aux, 0)
    return board, aux


def from_string(rows: str, role: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A state from a drawing: 10 rows, y = 10 first, of ``.`` empty, ``W`` white, ``B`` black.

    Spaces are ignored; ``role`` is the role in control (0 white, 1 black).
    """
    board, aux = new_state()
    board[:] = parse_drawing(rows, H, W, ".WB")
    aux[ROLE] = role
    return board, aux


# ----------------------------------------------------------------------------- state check
STEP_MAX = 2**31 - 2  # aux[STEP] is int32 and grows by one per action
# Codes of `check_state()`; ``CHECK_MESSAGES[code]`` says what is wrong (``{d}`` is the
# detail `check_state_detail()` returns, ``{cell}`` the same as a 1-based cell).
CHECK_MESSAGES = (
    "",
    "cell {cell} holds {value}: board values are 0 empty, 1 white, 2 black",
    "white has {d} pieces: the start has 25, and nothing adds a piece",
    "black has {d} pieces: the start has 25, and nothing adds a piece",
    "aux[ROLE] is {d}: the role in control is 0 (white) or 1 (black)",
    "aux[VARIANT] is {d}: mad_bishops has the one variant 0",
    "aux[STEP] is {d}: it counts the actions played, 0..2**31 - 2",
    "the board has {d} cells or aux the wrong length: a state is (int8[100], int32[3])",
)


@njit(cache=True)
def check_state_detail(board, aux):
    """``(code, detail)``: 0 when ``(board, aux)`` is a state the kernel can play, else the
    first problem found (a code of ``CHECK_MESSAGES``) and its cell or value.

    Checked: cell values, at most 25 pieces a side, role, variant and step. Pieces off the
    start's colour class (x + y odd) are allowed: hand-drawn positions use them to reach
    the "no legal action" ending (see the module docstring), and the kernel handles them.
    """
    if board.shape[0] != N or aux.shape[0] != AUX_SIZE:
        return 7, board.shape[0]
    white = 0
    black = 0
    for c in range(N):
        v = board[c]
        if v < EMPTY or v > BLACK:
            return 1, c
        if v == WHITE:
            white += 1
        elif v == BLACK:
            black += 1
    if white > 25:
        return 2, white
    if black > 25:
        return 3, black
    if aux[ROLE] != 0 and aux[ROLE] != 1:
        return 4, aux[ROLE]
    if aux[VARIANT] != 0:
        return 5, aux[VARIANT]
    if aux[STEP] < 0 or aux[STEP] > STEP_MAX:
        return 6, aux[STEP]
    return 0, 0


@njit(cache=True)
def check_state(board, aux):
    """0 when ``(board, aux)`` is a state the kernel can play, else an error code
    (``CHECK_MESSAGES``); see `check_state_detail()`."""
    return check_state_detail(board, aux)[0]


# ----------------------------------------------------------------------------- a search's evaluation
@njit(cache=True)
def evaluation(board, aux, aux_scratch, legal_scratch):
    """White's static value of a state that is not over, for a search (alpha-beta): 10 a
    piece ahead and 0.1 a legal move ahead (``aux_scratch``, ``legal_scratch``: buffers)."""
    pieces = 0
    for c in range(N):
        if board[c] == WHITE:
            pieces += 1
        elif board[c] == BLACK:
            pieces -= 1
    a = aux_scratch[: aux.shape[0]]
    a[:] = aux
    a[ROLE] = 0
    moves = legal_actions(board, a, legal_scratch)
    a[ROLE] = 1
    moves -= legal_actions(board, a, legal_scratch)
    return 10.0 * pieces + 0.1 * moves


@njit(cache=True)
def capture_key(board, action):
    """-1 when ``action`` captures nothing, else 0 (every capture alike)."""
    return -1 if board[action % N] == EMPTY else 0
