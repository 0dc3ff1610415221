"""Rules kernel of Skirmish w/ Holes (``skirmishHoles.kif``) and Skirmish Endgame 1 (``skirmishFinal1.kif``).

The rules on docs/games/skirmish_v0.md, skirmish_endgame_v0.md and index.md ("Rules every
game shares") are the contract. Both games
are chess without check, castling or en passant on an 8x8 board with four holes; a pawn
reaching the far rank becomes a queen. ``aux[VARIANT]`` picks the game, and the parameter
tables below hold every difference except the start position:

* ``SKIRMISH`` (0): the chess array, pawn pushes, 99 actions at most, score table 0..100
  over 0..16 captures (13 -> 79).
* ``ENDGAME`` (1): 10 pieces each (knights, bishops, rooks, 4 pawns), pawns only capture,
  59 actions at most, 10 points per capture.

Board (``int8[64]``, cell ``c = (y - 1) * 8 + (x - 1)``; row y = 8 at the top)::

    y=8  56 57 58 59 60 61 62 63       r n b q k b n r
    y=7  48 49 50 51 52 53 54 55       p p p p p p p p
    y=6  40 41 42 43 44 45 46 47       . . # . . # . .
    y=5  32 33 34 35 36 37 38 39       . . . . . . . .
    y=4  24 25 26 27 28 29 30 31       . . . . . . . .
    y=3  16 17 18 19 20 21 22 23       . . # . . # . .
    y=2   8  9 10 11 12 13 14 15       P P P P P P P P
    y=1   0  1  2  3  4  5  6  7       R N B Q K B N R
         x=1                  x=8      (skirmish start)

Values: ``EMPTY`` 0; white ``PAWN..KING`` 1..6 (pawn, knight, bishop, rook, queen, king);
black 7..12 in the same order; ``HOLE`` 13 on cells 18, 21, 42, 45, which never change.

``aux``: ``[ROLE, VARIANT, STEP, WHITE_CAPTURES, BLACK_CAPTURES]``. ``STEP`` counts the
actions applied; the rule sheet's ``step`` is ``1 + aux[STEP]``.

Action ids (the public contract): ``src * 64 + dst``, Discrete(4096). Promotion is always
to a queen, so a move needs no more.

Two terminal tests (docs/games/skirmish_v0.md):

* the rule sheet's (``hasLegalMove``): a role, either one, has no move, where a rook's,
  bishop's, queen's or king's step or a knight's jump that *lands on a hole* counts (the
  sheet forgets the hole test there). A slider path through a hole first lands on that
  hole, so only the destination matters. A pawn's move never lands on a hole: the sheet's
  pushes need their target cells empty and not holes, and a capture needs an opponent
  piece, so for pawns the test is the legal-move test;
* "Common": the role in control has no legal action.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpzoo.envs.geometry import parse_drawing, rays

H = W = 8
N = H * W
EMPTY = 0
PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING = 1, 2, 3, 4, 5, 6  # white; black is + BLACK_OFFSET
BLACK_OFFSET = 6
HOLE = 13
SKIRMISH, ENDGAME = 0, 1
ROLE, VARIANT, STEP, WHITE_CAPTURES, BLACK_CAPTURES = 0, 1, 2, 3, 4
AUX_SIZE = 5
NUM_ACTIONS = N * N
MAX_PIECES = 16  # per side; never grows (promotion replaces the pawn); from_string checks it
# A queen reaches at most 27 cells on an empty 8x8 board, and no piece reaches more
# (rook 14, bishop 13, knight 8, king 8, pawn 4): 16 pieces * 27.
MAX_LEGAL = MAX_PIECES * 27
HOLES = ((3, 3), (6, 3), (3, 6), (6, 6))
HOLE_CELLS = tuple((y - 1) * W + (x - 1) for x, y in HOLES)

# ----------------------------------------------------------------------------- parameters
# One entry per variant.
LIMIT = np.array([99, 59], np.int32)  # actions after which the game is over (step 100 / 60)
PUSHES = np.array([True, False])  # pawns may move straight forward
CAPTURE_SCALE = np.array([16, 10], np.int32)  # the most captures possible; observation scale
# GOAL[variant, captures]: the score tables of docs/games/skirmish_v0.md (the endgame caps at 10 captures).
GOAL = np.array(
    [
        [0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 79, 86, 93, 100],
        [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 100, 100, 100, 100, 100, 100],
    ],
    np.int32,
)

# Start positions: white's pieces as rows (x, y, type); black's mirror them on ranks 8 and 7.
START_SKIRMISH = np.array(
    [(x, 1, t) for x, t in enumerate((ROOK, KNIGHT, BISHOP, QUEEN, KING, BISHOP, KNIGHT, ROOK), 1)]
    + [(x, 2, PAWN) for x in range(1, 9)],
    np.int64,
)
START_ENDGAME = np.array(
    [(2, 1, KNIGHT), (7, 1, KNIGHT), (3, 1, BISHOP), (6, 1, BISHOP), (4, 1, ROOK), (5, 1, ROOK)]
    + [(x, 2, PAWN) for x in range(3, 7)],
    np.int64,
)

# ----------------------------------------------------------------------------- tables
# COLOR[v]: 0 white piece, 1 black piece, 2 empty, 3 hole. TYPE[v]: PAWN..KING, 0 otherwise.
COLOR = np.array([2] + [0] * 6 + [1] * 6 + [3], np.int8)
TYPE = np.array([0, 1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6, 0], np.int8)
# DEST_OK[mode, role, v]: a piece of ``role`` may land on a cell holding v. Mode 0 is the
# legal-move rule (empty or opponent); mode 1 the rule sheet's no-move test (holes count too,
# for every piece but the pawn, whose moves ``has_move`` tests on their own).
DEST_OK = np.zeros((2, 2, 14), np.bool_)
for _role in (0, 1):
    for _v in range(14):
        DEST_OK[0, _role, _v] = COLOR[_v] == 2 or COLOR[_v] == 1 - _role
        DEST_OK[1, _role, _v] = DEST_OK[0, _role, _v] or _v == HOLE
del _role, _v

# Slide directions (dx, dy): 0..3 rook lines, 4..7 diagonals; a queen uses all 8.
DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))
KNIGHT_JUMPS = ((1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2))
# First and last + 1 direction of each slider type, and of the king's neighbours, by TYPE.
DIR_FROM = np.array([0, 0, 0, 4, 0, 0, 0], np.int64)
DIR_TO = np.array([0, 0, 0, 8, 4, 8, 8], np.int64)


def _build_tables():
    ray, ray_len = rays(H, W, DIRS)  # RAY[c, d, k]: k-th cell from c along d (k = 0 adjacent)
    knight = np.full((N, 8), -1, np.int64)  # KNIGHT_TO[c, :KNIGHT_N[c]]: knight targets on the board
    knight_n = np.zeros(N, np.int64)
    for c in range(N):
        x, y = c % W, c // W
        for dx, dy in KNIGHT_JUMPS:
            if 0 <= x + dx < W and 0 <= y + dy < H:
                knight[c, knight_n[c]] = (y + dy) * W + x + dx
                knight_n[c] += 1
    return ray, ray_len, knight, knight_n


# int64 index tables (about 33 kB in all): sums like ``src * 64 + dst`` never overflow,
# compiled or under NUMBA_DISABLE_JIT=1 with NumPy 2's scalar rules.
RAY, RAY_LEN, KNIGHT_TO, KNIGHT_N = _build_tables()
# Pawns by role: the forward step, the rank index (0-based) of the double step's start, the
# far rank, and the queen a pawn becomes there.
PAWN_STEP = np.array([W, -W], np.int64)
PAWN_HOME = np.array([1, 6], np.int64)
PAWN_LAST = np.array([7, 0], np.int64)
PROMOTED = np.array([QUEEN, QUEEN + BLACK_OFFSET], np.int64)


# ----------------------------------------------------------------------------- state
@njit(cache=True)
def init(board, aux, variant):
    board[:] = EMPTY
    start = START_SKIRMISH if variant == SKIRMISH else START_ENDGAME
    for i in range(start.shape[0]):
        x, y, t = start[i, 0], start[i, 1], start[i, 2]
        board[(y - 1) * W + x - 1] = t
        board[(H - y) * W + x - 1] = t + BLACK_OFFSET
    for c in HOLE_CELLS:
        board[c] = HOLE
    aux[ROLE] = 0
    aux[VARIANT] = variant
    aux[STEP] = 0
    aux[WHITE_CAPTURES] = 0
    aux[BLACK_CAPTURES] = 0


# ----------------------------------------------------------------------------- legal actions
@njit(cache=True)
def _piece_moves(board, src, role, pushes, out, n):
    """Append ``src * 64 + dst`` for each legal move of the piece at ``src`` to ``out[n:]``."""
    t = TYPE[board[src]]
    base = src * N
    if t == PAWN:
        y = src // W
        if y == PAWN_LAST[role]:  # only in a hand-drawn position: nowhere to go
            return n
        one = src + PAWN_STEP[role]
        if pushes and board[one] == EMPTY:
            out[n] = base + one
            n += 1
            if y == PAWN_HOME[role] and board[one + PAWN_STEP[role]] == EMPTY:
                out[n] = base + one + PAWN_STEP[role]
                n += 1
        x = src % W
        if x > 0 and COLOR[board[one - 1]] == 1 - role:
            out[n] = base + one - 1
            n += 1
        if x < W - 1 and COLOR[board[one + 1]] == 1 - role:
            out[n] = base + one + 1
            n += 1
    elif t == KNIGHT:
        for i in range(KNIGHT_N[src]):
            dst = KNIGHT_TO[src, i]
            if DEST_OK[0, role, board[dst]]:
                out[n] = base + dst
                n += 1
    elif t == KING:
        for d in range(8):
            if RAY_LEN[src, d] > 0:
                dst = RAY[src, d, 0]
                if DEST_OK[0, role, board[dst]]:
                    out[n] = base + dst
                    n += 1
    else:
        for d in range(DIR_FROM[t], DIR_TO[t]):
            for k in range(RAY_LEN[src, d]):
                dst = RAY[src, d, k]
                v = board[dst]
                if v == EMPTY:
                    out[n] = base + dst
                    n += 1
                    continue
                if COLOR[v] == 1 - role:  # a capture ends the slide; own pieces and holes block
                    out[n] = base + dst
                    n += 1
                break
    return n


@njit(cache=True)
def legal_actions(board, aux, out):
    role = aux[ROLE]
    pushes = PUSHES[aux[VARIANT]]
    n = np.int64(0)  # not a literal: one compiled `_piece_moves`
    for src in range(N):
        if COLOR[board[src]] != role:
            continue
        start = n
        n = _piece_moves(board, src, role, pushes, out, n)
        for i in range(start + 1, n):  # insertion sort: ids ascending within one source
            a = out[i]
            j = i - 1
            while j >= start and out[j] > a:
                out[j + 1] = out[j]
                j -= 1
            out[j + 1] = a
    return n


@njit(cache=True)
def has_move(board, role, pushes, mode):
    """Whether ``role`` has a move: ``mode`` 0 a legal one, 1 one under the rule sheet's test."""
    for src in range(N):
        if COLOR[board[src]] != role:
            continue
        t = TYPE[board[src]]
        if t == PAWN:
            if src // W == PAWN_LAST[role]:
                continue
            one = src + PAWN_STEP[role]
            # In both modes a push needs an empty cell (never a hole: docs/games/skirmish_v0.md). A
            # double step needs the single one free, so it adds no move.
            if pushes and board[one] == EMPTY:
                return True
            x = src % W
            if x > 0 and COLOR[board[one - 1]] == 1 - role:
                return True
            if x < W - 1 and COLOR[board[one + 1]] == 1 - role:
                return True
        elif t == KNIGHT:
            for i in range(KNIGHT_N[src]):
                if DEST_OK[mode, role, board[KNIGHT_TO[src, i]]]:
                    return True
        else:  # king and sliders: a slider moves iff it may land on an adjacent cell
            for d in range(DIR_FROM[t], DIR_TO[t]):
                if RAY_LEN[src, d] > 0 and DEST_OK[mode, role, board[RAY[src, d, 0]]]:
                    return True
    return False


# ----------------------------------------------------------------------------- apply
@njit(cache=True)
def apply(board, aux, action):
    role = aux[ROLE]
    src, dst = action // N, action % N
    v = board[src]
    if board[dst] != EMPTY:
        aux[WHITE_CAPTURES + role] += 1
    if TYPE[v] == PAWN and dst // W == PAWN_LAST[role]:
        v = PROMOTED[role]
    board[dst] = v
    board[src] = EMPTY
    aux[STEP] += 1
    aux[ROLE] = 1 - role


# ----------------------------------------------------------------------------- terminal and goals
@njit(cache=True)
def is_terminal(board, aux):
    if aux[STEP] >= LIMIT[aux[VARIANT]]:
        return True
    role = aux[ROLE]
    pushes = PUSHES[aux[VARIANT]]
    # A role without pieces has no move, so the test covers "a role has no pieces". A legal
    # move also passes the rule sheet's test, so the role in control needs only the first.
    # int64 arguments, not literals: one compiled `has_move`
    return not has_move(board, np.int64(1 - role), pushes, np.int64(1)) or not has_move(
        board, np.int64(role), pushes, np.int64(0)
    )


@njit(cache=True)
def goals(board, aux):
    table = GOAL[aux[VARIANT]]
    # int(): plain ints, also under NUMBA_DISABLE_JIT (the base class subtracts comparisons).
    return int(table[min(aux[WHITE_CAPTURES], 16)]), int(table[min(aux[BLACK_CAPTURES], 16)])


# ----------------------------------------------------------------------------- heuristic (no rule)
@njit(cache=True)
def _cover(out, cell, plane):
    out[cell // W, cell % W, plane] = 1


@njit(cache=True)
def reach_planes(board, role, out):
    """``out[y, x, 0]`` = 1 where a piece of ``role`` covers the cell (x, y): it could capture
    an opposing piece standing there (an empty cell it attacks, an opposing piece it can
    take, an own piece it defends); ``out[y, x, 1]`` the same for the other role. Pawns
    cover their two forward diagonals, knights their jumps, the king its neighbours, the
    sliders every cell along their lines up to and including the first piece; holes are
    never covered and block the lines. Not a rule: the extra planes of
    `ggpzoo.wrappers.ReachPlanes` (what greedy play takes and what defends)."""
    out[:] = 0
    for src in range(N):
        c = COLOR[board[src]]
        if c > 1:  # empty or hole
            continue
        plane = 0 if c == role else 1
        t = TYPE[board[src]]
        if t == PAWN:
            if src // W == PAWN_LAST[c]:
                continue
            one = src + PAWN_STEP[c]
            x = src % W
            if x > 0 and board[one - 1] != HOLE:
                _cover(out, one - 1, plane)
            if x < W - 1 and board[one + 1] != HOLE:
                _cover(out, one + 1, plane)
        elif t == KNIGHT:
            for i in range(KNIGHT_N[src]):
                if board[KNIGHT_TO[src, i]] != HOLE:
                    _cover(out, KNIGHT_TO[src, i], plane)
        elif t == KING:
            for d in range(8):
                if RAY_LEN[src, d] > 0 and board[RAY[src, d, 0]] != HOLE:
                    _cover(out, RAY[src, d, 0], plane)
        else:
            for d in range(DIR_FROM[t], DIR_TO[t]):
                for k in range(RAY_LEN[src, d]):
                    dst = RAY[src, d, k]
                    if board[dst] == HOLE:
                        break
                    _cover(out, dst, plane)
                    if board[dst] != EMPTY:
                        break


# ----------------------------------------------------------------------------- observation
NUM_PLANES = 17
P_HOLE, P_STEP, P_OWN_CAPTURES, P_OPP_CAPTURES, P_BLACK = 12, 13, 14, 15, 16


@njit(cache=True)
def observe(board, aux, role, out):
    """Fill ``out`` (``float32[8, 8, 17]``), absolute cells, own/opponent from ``role``'s side.

    Planes 0..5 the observer's pawns, knights, bishops, rooks, queens, king; 6..11 the
    opponent's; 12 holes; 13 ``aux[STEP] / LIMIT``; 14 the observer's captures and 15 the
    opponent's, over ``CAPTURE_SCALE``; 16 ones when the observer is black (its pawns move
    down).
    """
    out[:] = 0.0
    for c in range(N):
        v = board[c]
        if v == EMPTY:
            continue
        y, x = c // W, c % W
        if v == HOLE:
            out[y, x, P_HOLE] = 1.0
        elif COLOR[v] == role:
            out[y, x, TYPE[v] - 1] = 1.0
        else:
            out[y, x, TYPE[v] + 5] = 1.0
    variant = aux[VARIANT]
    out[:, :, P_STEP] = aux[STEP] / LIMIT[variant]
    out[:, :, P_OWN_CAPTURES] = min(aux[WHITE_CAPTURES + role] / CAPTURE_SCALE[variant], 1.0)
    out[:, :, P_OPP_CAPTURES] = min(aux[BLACK_CAPTURES - role] / CAPTURE_SCALE[variant], 1.0)
    out[:, :, P_BLACK] = role


# ----------------------------------------------------------------------------- helpers
PIECE_CHARS = ".PNBRQKpnbrqk#"


def new_state(variant: int = SKIRMISH) -> tuple[np.ndarray, np.ndarray]:
    """A fresh ``(board, aux)`` at the start position."""
    board = np.zeros(N, np.int8)
    aux = np.zeros(AUX_SIZE, np.int32)
    init(board, aux, variant)
    return board, aux


def from_string(
    rows: str,
    variant: int = SKIRMISH,
    role: int = 0,
    step: int = 0,
    captures: tuple[int, int] = (0, 0),
) -> tuple[np.ndarray, np.ndarray]:
    """A state from a drawing: 8 rows, y = 8 first, of ``PNBRQK`` white, ``pnbrqk`` black, ``.`` empty, ``#`` holes.

    Spaces are ignored. The holes must be drawn where they are, (3,3), (6,3), (3,6), (6,6).
    ``step`` is the number of actions played so far (``aux[STEP]``), ``captures`` the
    white and black capture counts.
    """
    board, aux = new_state(variant)
    board[:] = parse_drawing(rows, H, W, PIECE_CHARS)
    for c, v in enumerate(board):
        x, y = c % W, c // W
        if (v == HOLE) != (c in HOLE_CELLS):
            raise ValueError(f"holes are exactly at {HOLES}; ({x + 1},{y + 1}) drawn as {PIECE_CHARS[v]!r}")
        if TYPE[v] == PAWN and y == PAWN_LAST[COLOR[v]]:
            raise ValueError(f"a pawn cannot stand on its far rank, ({x + 1},{y + 1})")
    for r in (0, 1):
        if int(np.sum(COLOR[board] == r)) > MAX_PIECES:
            raise ValueError(f"at most {MAX_PIECES} pieces per side")
    if not 0 <= step <= LIMIT[variant]:
        raise ValueError(f"step must be in 0..{LIMIT[variant]}, got {step}")
    aux[ROLE] = role
    aux[STEP] = step
    aux[WHITE_CAPTURES], aux[BLACK_CAPTURES] = captures
    return board, aux


# ----------------------------------------------------------------------------- state check
# START_COUNT[variant, type]: each side's pieces of each type (PAWN..KING) at the start.
START_COUNT = np.zeros((2, 7), np.int64)
for _v, _start in ((SKIRMISH, START_SKIRMISH), (ENDGAME, START_ENDGAME)):
    for _t in _start[:, 2]:
        START_COUNT[_v, _t] += 1
del _v, _start, _t
IS_HOLE = np.zeros(N, np.bool_)
IS_HOLE[list(HOLE_CELLS)] = True
# Codes of `check_state()`; ``CHECK_MESSAGES[code]`` says what is wrong (``{d}`` is the
# detail `check_state_detail()` returns, ``{cell}`` the same as a 1-based cell).
CHECK_MESSAGES = (
    "",
    "cell {cell} holds {value}: board values are 0 empty, 1..6 white and 7..12 black pieces, 13 hole",
    "cell {cell} is a hole, but the board has no hole value (13) there",
    "cell {cell} holds a hole value, but the holes are exactly at (3,3), (6,3), (3,6), (6,6)",
    "a pawn stands on its own far rank at {cell}: it would have become a queen",
    "a pawn stands on its own back rank at {cell}: pawns start one rank further and only move forward",
    "aux[ROLE] is {d}: the role in control is 0 (white) or 1 (black)",
    "aux[VARIANT] is {d}: 0 (skirmish) or 1 (skirmish_endgame)",
    "aux[STEP] is {d}: it counts the actions played, 0 up to the variant's limit (99 or 59)",
    (
        "white has {d} pieces of a type beyond the start's (pawns, knights, bishops, rooks, king; "
        "queens at most the start's plus the pawns gone)"
    ),
    (
        "black has {d} pieces of a type beyond the start's (pawns, knights, bishops, rooks, king; "
        "queens at most the start's plus the pawns gone)"
    ),
    (
        "aux[WHITE_CAPTURES] is {d}: white's captures are at least 0, at most black's pieces gone "
        "since the start, and with black's at most aux[STEP] (one capture per action at most)"
    ),
    (
        "aux[BLACK_CAPTURES] is {d}: black's captures are at least 0, at most white's pieces gone "
        "since the start, and with white's at most aux[STEP] (one capture per action at most)"
    ),
    "the board has {d} cells or aux the wrong length: a state is (int8[64], int32[5])",
)


@njit(cache=True)
def check_state_detail(board, aux):
    """``(code, detail)``: 0 when ``(board, aux)`` is a state the rules can reach or the
    kernel can play as drawn, else the first problem found (a code of ``CHECK_MESSAGES``)
    and its cell or value.

    Checked: cell values; holes exactly at the four hole cells; no pawn on its own far rank
    (it would be a queen) or its own back rank; per side, no more pawns, knights, bishops,
    rooks or kings than the variant's start has, and no more queens than the start's plus
    the pawns gone (promotion); role, variant, the step within the limit; each side's
    captures between 0 and the opponent's pieces gone, and both together at most
    ``aux[STEP]``. Fewer pieces than the start are allowed (hand-drawn positions). Every
    condition holds at the start and is kept by every legal action, so play from a state
    that passes never leads to one that fails.
    """
    if board.shape[0] != N or aux.shape[0] != AUX_SIZE:
        return 13, board.shape[0]
    counts = np.zeros((2, 7), np.int64)
    for c in range(N):
        v = board[c]
        if v < EMPTY or v > HOLE:
            return 1, c
        if IS_HOLE[c]:
            if v != HOLE:
                return 2, c
            continue
        if v == HOLE:
            return 3, c
        if v == EMPTY:
            continue
        color = COLOR[v]
        t = TYPE[v]
        counts[color, t] += 1
        if t == PAWN:
            y = c // W
            if y == PAWN_LAST[color]:
                return 4, c
            if y == PAWN_LAST[1 - color]:
                return 5, c
    role, variant, step = aux[ROLE], aux[VARIANT], aux[STEP]
    if role != 0 and role != 1:
        return 6, role
    if variant != SKIRMISH and variant != ENDGAME:
        return 7, variant
    if step < 0 or step > LIMIT[variant]:
        return 8, step
    pieces = np.zeros(2, np.int64)
    for side in range(2):
        for t in range(1, 7):
            n = counts[side, t]
            pieces[side] += n
            limit = START_COUNT[variant, t]
            if t == QUEEN:
                limit += START_COUNT[variant, PAWN] - counts[side, PAWN]
            if n > limit:
                return 9 + side, n
    total = START_COUNT[variant].sum()
    for side in range(2):
        caps = aux[WHITE_CAPTURES + side]
        # (not by turn parity: drawings may give either role the move at any step)
        if caps < 0 or caps > total - pieces[1 - side] or np.int64(caps) + aux[BLACK_CAPTURES - side] > step:
            return 11 + side, caps
    return 0, 0


@njit(cache=True)
def check_state(board, aux):
    """0 when ``(board, aux)`` is a state the kernel can play, else an error code
    (``CHECK_MESSAGES``); see `check_state_detail()`."""
    return check_state_detail(board, aux)[0]


# ----------------------------------------------------------------------------- a search's evaluation
# Piece values, by type (EMPTY, PAWN, KNIGHT, BISHOP, ROOK, QUEEN, KING).
PIECE_VALUE = np.array([0, 1, 3, 3, 5, 9, 3], np.int64)


@njit(cache=True)
def evaluation(board, aux):
    """White's static value of a state that is not over, for a search (alpha-beta): 10 a
    capture ahead, plus material (``PIECE_VALUE``), weighted down as the action limit nears."""
    material = 0
    for c in range(N):
        v = board[c]
        if v != EMPTY and v != HOLE:
            value = PIECE_VALUE[TYPE[v]]
            material += value if COLOR[v] == 0 else -value
    limit = LIMIT[aux[VARIANT]]
    left = max(limit - aux[STEP], 0) / limit
    captures = aux[WHITE_CAPTURES] - aux[BLACK_CAPTURES]
    return 10.0 * captures + (0.3 + 0.7 * left) * material


@njit(cache=True)
def capture_key(board, action):
    """-1 when ``action`` captures nothing; else how early a search tries it: the most
    valuable victim first, then the least valuable attacker."""
    dst = action % N
    if board[dst] == EMPTY:
        return -1
    return PIECE_VALUE[TYPE[board[dst]]] * 16 - PIECE_VALUE[TYPE[board[action // N]]]
