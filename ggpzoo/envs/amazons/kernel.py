"""Rules kernel of Amazons (``amazons.kif``) and Amazons 10x10 (``amazons_10x10.kif``).

Both games share the board and start; the rules on docs/games/amazons_v0.md and amazons_split_v0.md are
the contract. ``aux[VARIANT]`` picks the game:

* ``AMAZONS`` (0): one action is a whole turn, queen move plus arrow, Discrete(86_980).
* ``SPLIT`` (1): a turn is two actions by the same role, a move then a fire, Discrete(10_000).

Board (``int8[100]``, cell ``c = (y - 1) * 10 + (x - 1)``; row y = 10 at the top)::

    y=10  90 91 92 93 94 95 96 97 98 99        . . . b . . b . . .
    y= 9  80 ...                    89         . . . . . . . . . .
     ...                                       b . . . . . . . . b   (y = 7)
    y= 1   0  1  2  3  4  5  6  7  8  9        . . . w . . w . . .
          x=1                      x=10

Values: ``EMPTY`` 0, ``WHITE`` 1 (white queen), ``BLACK`` 2 (black queen), ``ARROW`` 3.

``aux``: ``[ROLE, VARIANT, STEP, PHASE, FIRER]``. ``PHASE`` is 0 (move) or 1 (fire, split
only); ``FIRER`` is the cell of the queen that must fire in the fire phase, else -1.

Action ids (the public contract):

* amazons: let Q(c) be the cells on a queen line from c on the empty board, ascending.
  Ids enumerate (src, dst, arrow) with src ascending, dst ascending over Q(src), arrow
  ascending over Q(dst): ``id = BASE[src, dst] + QPOS[dst, arrow]``.
* amazons_split: ``src * 100 + dst``; in the fire phase src is the queen that just moved
  and dst the arrow's cell.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpzoo.envs.geometry import lines, parse_drawing, rays

H = W = 10
N = H * W
EMPTY, WHITE, BLACK, ARROW = 0, 1, 2, 3
AMAZONS, SPLIT = 0, 1
ROLE, VARIANT, STEP, PHASE, FIRER = 0, 1, 2, 3, 4
QFAR = N  # a queen distance longer than any (an unreachable cell)
AUX_SIZE = 5
MAX_LEGAL = 4 * 35 * 35  # 4 queens, at most 35 cells on the queen lines of any cell
NUM_ACTIONS_SPLIT = N * N

START_WHITE = ((4, 1), (7, 1), (1, 4), (10, 4))
START_BLACK = ((1, 7), (10, 7), (4, 10), (7, 10))

# ----------------------------------------------------------------------------- tables
# The 8 queen directions as (dx, dy).
DIRS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1))


def _build_tables():
    ray, ray_len = rays(H, W, DIRS)
    qlen, qcell, qdir, qdist = lines(ray, ray_len)  # Q(c) ascending, with direction and distance
    qpos = np.full((N, N), -1, np.int64)
    for c in range(N):
        qpos[c, qcell[c, : qlen[c]]] = np.arange(qlen[c])
    # BASE[src, dst]: first id of the triples (src, dst, *); -1 where dst is not in Q(src).
    base = np.full((N, N), -1, np.int64)
    nxt = 0
    for src in range(N):
        for dst in qcell[src, : qlen[src]]:
            base[src, dst] = nxt
            nxt += qlen[dst]
    # Decoding table for amazons ids: DECODE[a] = (src, dst, arrow).
    dec = np.zeros((nxt, 3), np.int64)
    for src in range(N):
        for dst in qcell[src, : qlen[src]]:
            b = base[src, dst]
            dec[b : b + qlen[dst]] = src, dst, 0
            dec[b : b + qlen[dst], 2] = qcell[dst, : qlen[dst]]
    return ray, ray_len, qlen, qcell, qdir, qdist, qpos, base, dec


# Small dtypes keep every table under numba's 1 MB limit for constants that can be cached.
# Tables that enter arithmetic are int32: with NUMBA_DISABLE_JIT=1, numpy keeps
# ``int + int8`` as int8 (NEP 50) where numba would widen it.
_RAY, _RAY_LEN, _QLEN, _QCELL, _QDIR, _QDIST, _QPOS, _BASE, _DECODE = _build_tables()
RAY, RAY_LEN, QLEN = _RAY.astype(np.int8), _RAY_LEN.astype(np.int8), _QLEN.astype(np.int8)
QDIR, QDIST, QPOS = _QDIR.astype(np.int8), _QDIST.astype(np.int8), _QPOS.astype(np.int8)
QCELL, BASE, DECODE = _QCELL.astype(np.int32), _BASE.astype(np.int32), _DECODE.astype(np.int8)
NUM_ACTIONS_AMAZONS = DECODE.shape[0]  # 86_980


# ----------------------------------------------------------------------------- state
@njit(cache=True)
def init(board, aux, variant):
    board[:] = EMPTY
    for x, y in START_WHITE:
        board[(y - 1) * W + (x - 1)] = WHITE
    for x, y in START_BLACK:
        board[(y - 1) * W + (x - 1)] = BLACK
    aux[ROLE] = 0
    aux[VARIANT] = variant
    aux[STEP] = 0
    aux[PHASE] = 0
    aux[FIRER] = -1


@njit(cache=True)
def _reach(board, c, lens):
    """``lens[d]`` = how many empty cells a queen at ``c`` can slide over in direction d.

    Each ray is read to the board's edge, without a branch on what it meets: a loop that
    stops at the first blocker mispredicts its exit at nearly every ray, and costs a third
    more where a batch's games take turns on the core (the predictor meets another board
    each time)."""
    for d in range(8):
        n = 0
        free = 1
        for k in range(RAY_LEN[c, d]):
            free &= board[RAY[c, d, k]] == EMPTY
            n += free
        lens[d] = n


@njit(cache=True)
def _can_move(board, c):
    """A queen at ``c`` has at least one empty neighbouring cell."""
    for d in range(8):
        if RAY_LEN[c, d] > 0 and board[RAY[c, d, 0]] == EMPTY:
            return True
    return False


@njit(cache=True)
def has_queen_move(board, piece):
    for c in range(N):
        if board[c] == piece and _can_move(board, c):
            return True
    return False


# ----------------------------------------------------------------------------- legal actions
@njit(cache=True)
def legal_actions(board, aux, out):
    """The legal ids, ascending, into ``out[:n]``; returns n. ``out`` holds `MAX_LEGAL`
    entries: entries past n may be written too (every candidate is, and there are at most
    4,260 candidates)."""
    piece = WHITE + aux[ROLE]
    n = 0
    dlens = np.empty(8, np.int64)
    alens = np.empty(8, np.int64)
    if aux[VARIANT] == SPLIT and aux[PHASE] == 1:
        src = aux[FIRER]
        _reach(board, np.int64(src), alens)
        for i in range(QLEN[src]):
            if QDIST[src, i] <= alens[QDIR[src, i]]:
                out[n] = src * N + QCELL[src, i]
                n += 1
        return n
    for src in range(N):
        if board[src] != piece:
            continue
        _reach(board, src, dlens)
        if aux[VARIANT] == SPLIT:
            for i in range(QLEN[src]):
                if QDIST[src, i] <= dlens[QDIR[src, i]]:
                    out[n] = src * N + QCELL[src, i]
                    n += 1
            continue
        board[src] = EMPTY  # the arrow may cross or land on the vacated origin
        for i in range(QLEN[src]):
            if QDIST[src, i] > dlens[QDIR[src, i]]:
                continue
            dst = QCELL[src, i]
            _reach(board, dst, alens)
            b = BASE[src, dst]
            for j in range(QLEN[dst]):  # without a branch: every candidate written, the legal kept
                out[n] = b + j
                n += QDIST[dst, j] <= alens[QDIR[dst, j]]
        board[src] = piece
    return n


# ----------------------------------------------------------------------------- apply
@njit(cache=True)
def apply(board, aux, action):
    piece = WHITE + aux[ROLE]
    aux[STEP] += 1
    if aux[VARIANT] == AMAZONS:
        src, dst, arrow = DECODE[action, 0], DECODE[action, 1], DECODE[action, 2]
        board[src] = EMPTY
        board[dst] = piece
        board[arrow] = ARROW
        aux[ROLE] = 1 - aux[ROLE]
        return
    src, dst = action // N, action % N
    if aux[PHASE] == 0:
        board[src] = EMPTY
        board[dst] = piece
        aux[PHASE] = 1
        aux[FIRER] = dst
    else:
        board[dst] = ARROW
        aux[PHASE] = 0
        aux[FIRER] = -1
        aux[ROLE] = 1 - aux[ROLE]


# ----------------------------------------------------------------------------- terminal and goals
@njit(cache=True)
def is_terminal(board, aux):
    if aux[VARIANT] == AMAZONS:
        return not has_queen_move(board, np.int64(WHITE)) or not has_queen_move(board, np.int64(BLACK))
    if aux[PHASE] == 1:
        return not _can_move(board, np.int64(aux[FIRER]))
    return not has_queen_move(board, np.int64(WHITE + aux[ROLE]))


@njit(cache=True)
def goals(board, aux):
    if aux[VARIANT] == AMAZONS:
        white = 0 if has_queen_move(board, np.int64(BLACK)) else 100
        black = 0 if has_queen_move(board, np.int64(WHITE)) else 100
        return white, black
    if aux[ROLE] == 0:
        return 0, 100
    return 100, 0


@njit(cache=True)
def terminal_goals(board, aux):
    """``(is_terminal, white's goal, black's goal)``: `is_terminal()` and `goals()` together,
    each side's queen mobility tested once (the game protocol's ``status`` asks for both)."""
    if aux[VARIANT] == AMAZONS:
        white = has_queen_move(board, np.int64(WHITE))
        black = has_queen_move(board, np.int64(BLACK))
        return not white or not black, 0 if black else 100, 0 if white else 100
    g = goals(board, aux)
    return is_terminal(board, aux), g[0], g[1]


# ----------------------------------------------------------------------------- heuristic (no rule)
@njit(cache=True)
def mobility(board):
    """``(white, black)``: the empty cells each side's queens reach in one queen move,
    summed over its queens (a cell reached by two queens counts twice). Not a rule: the
    potential of `ggpzoo.wrappers.PotentialShaping`."""
    lens = np.empty(8, np.int64)
    white = black = 0
    for c in range(N):
        if board[c] == WHITE or board[c] == BLACK:
            _reach(board, c, lens)
            if board[c] == WHITE:
                white += lens.sum()
            else:
                black += lens.sum()
    return white, black


@njit(cache=True)
def mobility_balance(board, aux):
    """White's mobility balance ``(Mw - Mb) / (Mw + Mb)`` (`mobility()`), in [-1, 1]: the
    side that runs out of moves loses. Not a rule: the potential of
    `ggpzoo.wrappers.PotentialShaping` and of the batched self-play env."""
    white, black = mobility(board)
    total = white + black
    return 0.0 if total == 0 else (white - black) / total


@njit(cache=True)
def stage_board(board, chosen, stage, out):
    """The board a turn decomposition shows after ``stage`` of an amazons_v0 turn's cells
    ``chosen`` (queen, destination, arrow): at the arrow stage (2) the queen stands on its
    destination, not yet firing; before it, the board as it is. Not a rule: the view of
    `AmazonsTurnDecomposition` and of the batched
    self-play env."""
    out[:] = board
    if stage == 2:
        out[chosen[1]] = board[chosen[0]]
        out[chosen[0]] = EMPTY


@njit(cache=True)
def reach_planes(board, role, out):
    """``out[y, x, 0]`` = 1 where a queen of ``role`` reaches the empty cell (x, y) in one
    queen move, ``out[y, x, 1]`` the same for the other role; 0 elsewhere. Not a rule: the
    extra planes of `ggpzoo.wrappers.ReachPlanes`."""
    out[:] = 0
    lens = np.empty(8, np.int64)
    for c in range(N):
        v = board[c]
        if v == WHITE or v == BLACK:
            plane = 0 if v == WHITE + role else 1
            _reach(board, c, lens)
            for d in range(8):
                for n in range(lens[d]):
                    t = RAY[c, d, n]
                    out[t // W, t % W, plane] = 1


@njit(cache=True)
def _queen_distance(board, piece, dist, queue):
    """``dist[c]`` = the fewest queen moves a queen of ``piece`` needs to reach the empty cell
    ``c`` over empty cells (arrows and queens block), ``QFAR`` where none can."""
    dist[:] = QFAR
    tail = 0
    for c in range(N):
        if board[c] == piece:
            dist[c] = 0
            queue[tail] = c
            tail += 1
    head = 0
    while head < tail:
        c = queue[head]
        head += 1
        for d in range(8):
            for n in range(RAY_LEN[c, d]):
                t = RAY[c, d, n]
                if board[t] != EMPTY:
                    break
                if dist[t] > dist[c] + 1:
                    dist[t] = dist[c] + 1
                    queue[tail] = t
                    tail += 1


@njit(cache=True)
def territory_planes(board, role, out):
    """The feature planes of ``role``'s view, ``out`` (H, W, 4), 1 on empty cells: ``0``/``1``
    those ``role``'s / the other role's queens reach in one queen move (`reach_planes()`),
    ``2``/``3`` those ``role``'s / the other role's queens reach in fewer queen moves than
    the other side's (the queen-distance territory of Amazons programs). Not a rule: the
    extra input planes of the AlphaZero network (``GameSpec.feature_planes``)."""
    own = np.empty(N, np.int64)
    opp = np.empty(N, np.int64)
    queue = np.empty(N, np.int64)
    _queen_distance(board, WHITE + role, own, queue)
    _queen_distance(board, BLACK - role, opp, queue)
    for c in range(N):
        y, x = c // W, c % W
        empty = board[c] == EMPTY  # a queen's own cell is at distance 0, not 1
        out[y, x, 0] = 1 if empty and own[c] == 1 else 0  # one queen move: the reach planes
        out[y, x, 1] = 1 if empty and opp[c] == 1 else 0
        out[y, x, 2] = 1 if empty and own[c] < opp[c] else 0
        out[y, x, 3] = 1 if empty and opp[c] < own[c] else 0


# ----------------------------------------------------------------------------- observation
@njit(cache=True)
def observe(board, aux, role, out):
    """Planes: own queens, opponent queens, arrows; split adds the fire phase and the firer."""
    own = WHITE + role
    opp = BLACK - role
    planes = out.shape[2]
    out[:] = 0
    for c in range(N):
        y, x = c // W, c % W
        v = board[c]
        if v == own:
            out[y, x, 0] = 1
        elif v == opp:
            out[y, x, 1] = 1
        elif v == ARROW:
            out[y, x, 2] = 1
    if planes > 3 and aux[PHASE] == 1:
        out[:, :, 3] = 1
        f = aux[FIRER]
        out[f // W, f % W, 4] = 1


def new_state(variant: int = AMAZONS) -> tuple[np.ndarray, np.ndarray]:
    """A fresh ``(board, aux)`` at the start position."""
    board = np.zeros(N, np.int8)
    aux = np.zeros(AUX_SIZE, np.int32)
    init(board, aux, variant)
    return board, aux


def from_string(rows: str, variant: int = AMAZONS, role: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """A state from a drawing: 10 rows, y = 10 first, of ``.`` empty, ``W``/``B`` queens, ``x`` arrows.

    Spaces are ignored. ``aux[STEP]`` is the actions the arrows took (one each in amazons,
    a move and a fire each in amazons_split). For a split fire phase, set ``aux[PHASE]``,
    ``aux[FIRER]`` and one more step after.
    """
    board, aux = new_state(variant)
    board[:] = parse_drawing(rows, H, W, ".WBx")
    aux[ROLE] = role
    aux[STEP] = int(np.count_nonzero(board == ARROW)) * (2 if variant == SPLIT else 1)
    return board, aux


# ----------------------------------------------------------------------------- state check
# Codes of `check_state()`; ``CHECK_MESSAGES[code]`` says what is wrong (``{d}`` is the
# detail `check_state_detail()` returns, ``{cell}`` the same as a 1-based cell).
CHECK_MESSAGES = (
    "",
    "cell {cell} holds {value}: board values are 0 empty, 1 white queen, 2 black queen, 3 arrow",
    "white has {d} queens: the start has 4, and nothing adds a queen",
    "black has {d} queens: the start has 4, and nothing adds a queen",
    "aux[ROLE] is {d}: the role in control is 0 (white) or 1 (black)",
    "aux[VARIANT] is {d}: 0 (amazons) or 1 (amazons_split)",
    "aux[PHASE] is {d}: 0 (move) or 1 (fire, amazons_split only)",
    "aux[FIRER] is {d}: it is -1 outside a fire phase",
    "aux[FIRER] is {d}: in the fire phase it is the cell (0..99) of the queen that just moved",
    "the fire phase's firer {cell} holds no queen of the role in control",
    "aux[STEP] is {d}, but amazons plays one arrow per action: STEP must equal the arrows on the board",
    (
        "aux[STEP] is {d}, but amazons_split plays a move and a fire per arrow: STEP must be "
        "2 * (the arrows on the board) + PHASE"
    ),
    "the board has {d} cells or aux the wrong length: a state is (int8[100], int32[5])",
)


@njit(cache=True)
def check_state_detail(board, aux):
    """``(code, detail)``: 0 when ``(board, aux)`` is a state the kernel can play, else the
    first problem found (a code of ``CHECK_MESSAGES``) and its cell or value.

    Checked: cell values; at most 4 queens a side (so legal lists fit ``MAX_LEGAL``); role,
    variant, phase; the firer of a fire phase is a queen of the role in control, and there
    is none outside one; the step counts the arrows (one per amazons action, one per move
    and fire of amazons_split). Drawings from `from_string()` set the step.
    """
    if board.shape[0] != N or aux.shape[0] != AUX_SIZE:
        return 12, board.shape[0]
    white = 0
    black = 0
    arrows = 0
    for c in range(N):
        v = board[c]
        if v < EMPTY or v > ARROW:
            return 1, c
        if v == WHITE:
            white += 1
        elif v == BLACK:
            black += 1
        elif v == ARROW:
            arrows += 1
    if white > 4:
        return 2, white
    if black > 4:
        return 3, black
    role, variant, phase, firer = aux[ROLE], aux[VARIANT], aux[PHASE], aux[FIRER]
    if role != 0 and role != 1:
        return 4, role
    if variant != AMAZONS and variant != SPLIT:
        return 5, variant
    if phase != 0 and (phase != 1 or variant != SPLIT):
        return 6, phase
    if phase == 0:
        if firer != -1:
            return 7, firer
    else:
        if firer < 0 or firer >= N:
            return 8, firer
        if board[firer] != WHITE + role:
            return 9, firer
    if variant == AMAZONS and aux[STEP] != arrows:
        return 10, aux[STEP]
    if variant == SPLIT and aux[STEP] != 2 * arrows + phase:
        return 11, aux[STEP]
    return 0, 0


@njit(cache=True)
def check_state(board, aux):
    """0 when ``(board, aux)`` is a state the kernel can play, else an error code
    (``CHECK_MESSAGES``); see `check_state_detail()`."""
    return check_state_detail(board, aux)[0]


# ----------------------------------------------------------------------------- a search's evaluation
EVAL_POW2 = np.array([2.0**-d for d in range(QFAR + 1)])  # 2**-d for the distances


@njit(cache=True)
def _king_distance(board, piece, dist, queue):
    """``dist[c]`` = the fewest king steps a queen of ``piece`` needs to reach the empty cell
    ``c`` over empty cells, ``QFAR`` where none can (as ``_queen_distance``)."""
    dist[:] = QFAR
    tail = 0
    for c in range(N):
        if board[c] == piece:
            dist[c] = 0
            queue[tail] = c
            tail += 1
    head = 0
    while head < tail:
        c = queue[head]
        head += 1
        for d in range(8):
            if RAY_LEN[c, d] > 0:
                t = RAY[c, d, 0]
                if board[t] == EMPTY and dist[t] > dist[c] + 1:
                    dist[t] = dist[c] + 1
                    queue[tail] = t
                    tail += 1


@njit(cache=True)
def evaluation(board, aux, scratch):
    """White's static value of a state that is not over, for a search (alpha-beta): queen-
    and king-distance territory (Lieberum's evaluation: the cells each side reaches first,
    by queen moves and by king steps, weighted towards the king distances as the board
    closes) and a penalty for queens with few moves. ``scratch``: int64 (5, N)."""
    qw, qb, kw, kb, queue = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    _queen_distance(board, WHITE, qw, queue)
    _queen_distance(board, BLACK, qb, queue)
    _king_distance(board, WHITE, kw, queue)
    _king_distance(board, BLACK, kb, queue)
    tempo = 0.2 if aux[ROLE] == 0 else -0.2
    far = QFAR
    t1 = t2 = c1 = c2 = w = 0.0
    for c in range(N):
        if board[c] != EMPTY:
            continue
        a, b = qw[c], qb[c]
        if a < b:
            t1 += 1.0
        elif a > b:
            t1 -= 1.0
        elif a < far:
            t1 += tempo
        c1 += EVAL_POW2[a] - EVAL_POW2[b]
        if a < far and b < far:
            w += EVAL_POW2[abs(a - b)]
        a, b = kw[c], kb[c]
        if a < b:
            t2 += 1.0
        elif a > b:
            t2 -= 1.0
        elif a < far:
            t2 += tempo
        if a < far or b < far:
            c2 += min(1.0, max(-1.0, (b - a) / 6.0))
    stage = min(w / 40.0, 1.0)  # 1 in the opening, 0 once no cell is contested
    lens = queue[:8]
    mob = 0.0
    for c in range(N):
        v = board[c]
        if v == WHITE or v == BLACK:
            _reach(board, c, lens)
            m = 0
            for d in range(8):
                m += lens[d]
            mob += (-6.0 if v == WHITE else 6.0) / (1.0 + m)
    return (1.0 - 0.4 * stage) * t1 + 0.4 * stage * t2 + stage * (0.2 * c1 + 0.2 * c2 + mob)
