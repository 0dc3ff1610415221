"""Alpha-beta search: negamax with iterative deepening, a transposition table and move
ordering, in numba on the engine's game protocol (`ggpzoo.engine.dispatch`).

The classical yardstick of two-player games, as chess and Amazons programs play: for a
budget in seconds per move it searches depth 1, 2, 3, ... until the time is spent and
plays the best move of the deepest search (a search cut by the clock still counts once
it has searched the previous best move: its best is then at least as good); for a fixed
depth it searches that deep whatever the time.

* **Search.** Negamax alpha-beta (fail-soft) on ``status`` and ``step`` of
  `ggpzoo.engine.dispatch`, so the same code plays every hand-written kernel and every
  compiled GDL sheet with two roles that take turns. The role to move is read at every
  node: where one role moves twice in a row (amazons_split's move then fire, or a sheet's
  role that moves again) the value is not negated, only where the mover changes. A
  state where several roles choose at once is a `ValueError` (alpha-beta needs turns).
* **Transposition table.** A fixed-size table of ``2**table_bits`` entries (default
  ``2**20``, 24 bytes each: 24 MiB), indexed by a Zobrist-style hash of the board's cells
  and the ``aux`` slots (role, phase, step and captures for the hand-written games; the
  state's fluents alone for a sheet). It gives the first move to try at every node and,
  for entries of the same move's search and at least the depth needed, the value or a
  bound. Entries of earlier moves only order moves. Wins are stored relative to the node
  (so shorter wins stay preferred).
* **Move ordering.** The table's move, then captures (Skirmish: most valuable victim,
  least valuable attacker; Mad Bishops: every capture), then two killer moves per ply
  (moves that cut off at the same depth before), then the history heuristic (how often
  and how deep a move cut off). At the root ties break by the agent's seed.
* **Quiescence.** In Skirmish, at depth 0 the search plays on captures only (at most
  ``quiescence`` plies, 8 by default) with the static evaluation as a "stand pat" bound,
  so that no leaf is scored in the middle of an exchange. (Not in Mad Bishops: there
  nearly every move is a capture, so a capture search is the whole search.)
* **Evaluation**, always from one role's side and zero-sum (the other role's is its
  negation); a finished game is worth ``WIN`` (10**6) less the plies to it for the role
  with the higher goal, its negation for the other, 0 for equal goals:

  - Amazons (both editions): the queen-distance and king-distance territory of the
    Amazons programming literature (J. Lieberum, "An evaluation function for the game of
    Amazons", Theoretical Computer Science 349, 2005): each empty cell counts for the
    side whose queens reach it in fewer queen moves (``t1``) and king moves (``t2``), a
    tie for the side to move (0.2); ``c1 = 2 * sum(2**-Dw - 2**-Db)`` and
    ``c2 = sum(clip((Db - Dw) / 6, -1, 1))`` over the king distances refine them, and
    ``w``, the sum of ``2**-|Dw - Db|`` over the cells both sides reach, weights them by
    the stage (large in the opening, 0 once the regions are closed); and mobility: a
    penalty ``6 / (1 + m)`` for each queen that reaches only ``m`` cells, in the opening.
  - Skirmish (both editions): 10 points a capture (the goal counts captures) plus the
    material on the board with piece values pawn 1, knight 3, bishop 3, rook 5, queen 9,
    king 3 (the king is a plain piece here), weighted from 1 down to 0.3 as the game
    nears its last action (material left is worth less when it can no longer capture).
  - Mad Bishops: 10 points a piece (a side without pieces loses) plus 0.1 a legal move.
  - A GDL sheet: its goals, own minus the other role's.

Budgets: ``seconds`` in (0, `MAX_SECONDS`] per move, or ``depth`` in 1..`MAX_DEPTH`
(plies; a ply is an action, so an Amazons split turn is two). A fixed depth has no time
bound: depth 4 in the Amazons opening (about 2,000 moves a ply) takes minutes.

>>> from ggpzoo.envs import skirmish_endgame_v0
>>> env = skirmish_endgame_v0.raw_env(); env.reset()
>>> agent = AlphaBetaAgent("skirmish_endgame_v0", depth=2, seed=0)
>>> int(agent(env.get_state())) in env.legal_actions()
True
>>> agent.last_search["depth"]
2
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit, objmode

from ggpzoo.agents.base import MAX_SECONDS, Agent, seeded_rng, warm_once
from ggpzoo.engine.dispatch import (
    OVER,
    PROPNET,
    SIMULTANEOUS,
    capture_key,
    evaluation,
    goals,
    is_terminal,
    quiescent,
    status,
    step,
)
from ggpzoo.envs.propnet import kernel as PN

__all__ = ["AlphaBetaAgent", "MAX_DEPTH", "MAX_SECONDS", "WIN", "evaluate", "terminal_value"]

SCRATCH_CELLS = 128  # the evaluations' scratch rows: at least every kernel's cell count
MAX_DEPTH = 32  # the deepest fixed-depth or iterative-deepening search, in plies
MAX_QUIESCENCE = 16  # capture plies past the depth, at most
MAX_PLY = MAX_DEPTH + MAX_QUIESCENCE + 1  # rows of the per-ply buffers
WIN = 1e6  # a won game's value (less the plies to it)
INF = 1e18
EXACT, LOWER, UPPER = 0, 1, 2  # what a table entry's value is
# Slots of the search's control array ``ctl`` (int64).
# STOP: set by another thread (`AlphaBetaAgent.interrupt`) to end the search at its next look at the clock
NODES, CHECK, ABORT, ERROR, GEN, QPLIES, SELDEPTH, HORIZON, BEST, ROOT_DONE, SALT, STOP = range(12)
CTL_SIZE = 12
CHECK_EVERY = 128  # nodes between two looks at the clock
MIN_TABLE_BITS, MAX_TABLE_BITS = 10, 26


@njit(cache=True)
def _now():
    with objmode(t="float64"):
        t = time.perf_counter()
    return t


@njit(cache=True, inline="always")
def _mix(x):
    """splitmix64's finaliser: a 64-bit hash of a 64-bit number."""
    x = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    x = (x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@njit(cache=True)
def position_hash(game, board, aux):
    """The transposition table's key of a state: every non-empty cell (or true fluent) and,
    for a hand-written kernel, every ``aux`` slot."""
    h = np.uint64(0x9E3779B97F4A7C15)
    for c in range(board.shape[0]):
        v = board[c]
        if v != 0:
            h ^= _mix(np.uint64(c) * np.uint64(64) + np.uint64(v & 63) + np.uint64(1))
    if game != PROPNET:
        for i in range(aux.shape[0]):
            h ^= _mix((np.uint64(np.uint32(aux[i])) << np.uint64(8)) + np.uint64(i) + np.uint64(0x5BD1E995))
    return h


# ----------------------------------------------------------------------------- evaluations
@njit(cache=True)
def _evaluate(game, board, aux, goal, me, scratch, aux_scratch, legal_scratch):
    """The static value of a state that is not over for role ``me`` (0 or 1)."""
    if game == PROPNET:
        return float(goal[me] - goal[1 - me])
    v = evaluation(game, board, aux, scratch, aux_scratch, legal_scratch)
    return v if me == 0 else -v


@njit(cache=True)
def terminal_value(goal, me, ply):
    """The value for role ``me`` of a finished game with goals ``goal``, ``ply`` actions
    after the search's root: ``WIN - ply`` if its goal is the higher, the negation if
    lower, 0 if equal."""
    d = goal[me] - goal[1 - me]
    if d > 0:
        return WIN - ply
    if d < 0:
        return -WIN + ply
    return 0.0


def evaluate(game, board, aux, goal, me) -> float:
    """`_evaluate()` from Python (for tests and study): the static value for role ``me`` of
    a state of kernel id ``game`` with goals ``goal``."""
    scratch = np.zeros((5, SCRATCH_CELLS), np.int64)
    return float(
        _evaluate(
            game, board, aux, np.asarray(goal, np.int64), me, scratch, np.zeros(8, np.int32), np.zeros(512, np.int32)
        )
    )


# ----------------------------------------------------------------------------- the search
@njit(cache=True, inline="always")
def _is_capture(game, board, action):
    return game != PROPNET and capture_key(game, board, action) >= 0


@njit(cache=True)
def _order(game, board, legal, n, keys, tt_move, killers, history, mover, ply, salt):
    """Fill ``keys[:n]`` with each legal action's ordering key (higher first); return the
    order of ``legal[:n]`` to search."""
    for i in range(n):
        a = legal[i]
        if a == tt_move:
            k = np.int64(1) << 50
        elif _is_capture(game, board, a):
            k = (np.int64(1) << 45) + capture_key(game, board, a)
        elif a == killers[ply, 0]:
            k = np.int64(1) << 44
        elif a == killers[ply, 1]:
            k = (np.int64(1) << 44) - 1
        else:
            k = min(history[mover, a], (np.int64(1) << 40) - 1)
        if ply == 0:  # the seed breaks ties at the root
            k = k * 1024 + np.int64(_mix(salt ^ np.uint64(a)) & np.uint64(1023))
        keys[i] = -k
    return np.argsort(keys[:n], kind="mergesort")


@njit(cache=True)
def _node(
    game, T, W, boards, auxs, legal, keys, goal, ply, depth, qply, alpha, beta, me,
    tt_key, tt_val, tt_move, tt_info, killers, history, ctl, deadline, scratch, aux_scratch,
):  # fmt: skip
    """The negamax value for role ``me`` of the state ``(boards[ply], auxs[ply])`` searched
    ``depth`` plies deep (then captures only, ``qply`` plies of them left), in the window
    ``(alpha, beta)`` of ``me``'s values. Sets ``ctl[ABORT]`` (and returns 0) when the
    clock runs out or the rules fail."""
    board, aux, g = boards[ply], auxs[ply], goal[ply]
    ctl[NODES] += 1
    if ctl[NODES] >= ctl[CHECK]:
        ctl[CHECK] = ctl[NODES] + CHECK_EVERY
        if ctl[STOP] != 0 or _now() > deadline:
            ctl[ABORT] = 1
            return 0.0
    if ply > ctl[SELDEPTH]:
        ctl[SELDEPTH] = ply
    quiesce = game != PROPNET and quiescent(game)
    if depth <= 0 and (not quiesce or qply <= 0 or ply >= MAX_PLY - 1):
        # a leaf: no legal list needed where the kernel answers "over?" on its own
        if game == PROPNET:
            n = status(game, board, aux, T, W, legal[MAX_PLY], g)
            if n < SIMULTANEOUS or n == SIMULTANEOUS:
                ctl[ERROR] = n
                ctl[ABORT] = 1
                return 0.0
            over = n == OVER
        else:
            w, b = goals(game, board, aux)
            g[0], g[1] = w, b
            over = is_terminal(game, board, aux)
        if over:
            return terminal_value(g, me, ply)
        ctl[HORIZON] = 1
        return _evaluate(game, board, aux, g, me, scratch, aux_scratch, legal[MAX_PLY])
    n = status(game, board, aux, T, W, legal[ply], g)
    if n < 0:
        if n == OVER:
            return terminal_value(g, me, ply)
        ctl[ERROR] = n
        ctl[ABORT] = 1
        return 0.0
    mover = np.int64(aux[0])  # one type for every recursive call's role
    sign = 1.0
    a, b = alpha, beta
    if mover != me:  # search for the mover, and negate: only where the mover changes
        sign = -1.0
        a, b = -beta, -alpha
    a0 = a
    best = -INF
    best_move = -1
    first = -1
    h = np.uint64(0)
    idx = 0
    mask = tt_key.shape[0] - 1
    if depth > 0:
        h = position_hash(game, board, aux)
        idx = np.int64(h & np.uint64(mask))
        if tt_key[idx] == h:
            first = tt_move[idx]
            info = tt_info[idx]
            if ply > 0 and (info >> 10) == ctl[GEN] and (info & 255) >= depth:
                v = tt_val[idx]
                if v > WIN / 2:
                    v -= ply
                elif v < -WIN / 2:
                    v += ply
                flag = (info >> 8) & 3
                if flag == EXACT or (flag == LOWER and v >= b) or (flag == UPPER and v <= a):
                    return sign * v
    else:  # quiescence: the static value bounds what the side to move can get
        ctl[HORIZON] = 1
        best = _evaluate(game, board, aux, g, mover, scratch, aux_scratch, legal[MAX_PLY])
        if best >= b:
            return sign * best
        if best > a:
            a = best
    order = _order(game, board, legal[ply], n, keys[ply], first, killers, history, mover, ply, np.uint64(ctl[SALT]))
    child_board, child_aux = boards[ply + 1], auxs[ply + 1]
    for j in range(n):
        act = legal[ply, order[j]]
        capture = _is_capture(game, board, act)
        if depth <= 0 and not capture:
            break  # captures come first
        if game == PROPNET and j > 0:  # bring the network's work area back to this state
            status(game, board, aux, T, W, legal[MAX_PLY], goal[MAX_PLY])
        child_board[:] = board
        child_aux[:] = aux
        err = step(game, child_board, child_aux, T, W, act)
        if err != 0:
            ctl[ERROR] = err
            ctl[ABORT] = 1
            return 0.0
        v = _node(
            game, T, W, boards, auxs, legal, keys, goal, ply + 1, depth - 1, qply - (1 if depth <= 0 else 0),
            a, b, mover, tt_key, tt_val, tt_move, tt_info, killers, history, ctl, deadline, scratch, aux_scratch,
        )  # fmt: skip
        if ctl[ABORT]:
            return 0.0
        if v > best:
            best = v
            best_move = act
            if ply == 0:
                ctl[BEST] = act
        if ply == 0:
            ctl[ROOT_DONE] += 1
        if v > a:
            a = v
        if a >= b:
            if not capture and depth > 0:
                if killers[ply, 0] != act:
                    killers[ply, 1] = killers[ply, 0]
                    killers[ply, 0] = act
                history[mover, act] += depth * depth
            break
    if depth > 0:
        flag = UPPER if best <= a0 else (LOWER if best >= b else EXACT)
        info = tt_info[idx]
        if tt_key[idx] == h or (info >> 10) != ctl[GEN] or depth >= (info & 255):
            stored = best
            if stored > WIN / 2:
                stored += ply
            elif stored < -WIN / 2:
                stored -= ply
            tt_key[idx] = h
            tt_val[idx] = stored
            tt_move[idx] = best_move
            tt_info[idx] = np.int32((ctl[GEN] << 10) | (flag << 8) | depth)
    return sign * best


# ----------------------------------------------------------------------------- the agent
class AlphaBetaAgent(Agent):
    """Alpha-beta search with iterative deepening (see the module docstring); called with a
    game state.

    Args:
        env: a hand-written env's name (``"skirmish_v0"``), or a GDL game with two roles
            that take turns (``"gdl:tictactoe"`` or a loaded [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game]).
        seconds: the budget per move in wall-clock seconds, in (0, ``MAX_SECONDS``]
            (default 1 when ``depth`` is not given): iterative deepening until it is spent.
        depth: a fixed depth in plies instead, 1..``MAX_DEPTH`` (no time bound).
        seed: breaks ties between equally good moves at the root; with a ``depth`` budget
            the same seed and state give the same move.
        table_bits: the transposition table holds ``2**table_bits`` entries of 24 bytes
            (default 20: 24 MiB), 10..26.
        quiescence: the capture plies past the depth in Skirmish (default 8, at most
            ``MAX_QUIESCENCE``; 0 scores every leaf as it is).

    A hand-written game's agent takes ``(board, aux)`` (``env.unwrapped.get_state()``); a
    sheet's takes its compiled state, and ``act(env)`` passes it either. After each call,
    `last_search` holds ``depth`` (the deepest finished iteration), ``value`` (for the
    role to move), ``nodes``, ``seconds`` and ``legal``.
    """

    takes = "state"

    def __init__(
        self,
        env,
        seconds: float | None = None,
        depth: int | None = None,
        seed: int | None = None,
        table_bits: int = 20,
        quiescence: int = 8,
    ):
        if seconds is not None and depth is not None:
            raise ValueError("give the alpha-beta budget as seconds or as a depth, not both")
        if seconds is None and depth is None:
            seconds = 1.0
        if depth is not None and (
            isinstance(depth, (bool, np.bool_))
            or not isinstance(depth, (int, np.integer))
            or not 1 <= depth <= MAX_DEPTH
        ):
            raise ValueError(f"depth must be an integer in 1..{MAX_DEPTH}, got {depth!r}")
        if seconds is not None and (
            isinstance(seconds, (bool, np.bool_))
            or not isinstance(seconds, (int, float, np.integer, np.floating))
            or not (0 < seconds <= MAX_SECONDS)
        ):
            raise ValueError(f"seconds must be a number in (0, {MAX_SECONDS:g}], got {seconds!r}")
        bad_bits = isinstance(table_bits, (bool, np.bool_)) or not isinstance(table_bits, (int, np.integer))
        if bad_bits or not MIN_TABLE_BITS <= table_bits <= MAX_TABLE_BITS:
            raise ValueError(f"table_bits must be an integer in {MIN_TABLE_BITS}..{MAX_TABLE_BITS}, got {table_bits!r}")
        bad_q = isinstance(quiescence, (bool, np.bool_)) or not isinstance(quiescence, (int, np.integer))
        if bad_q or not 0 <= quiescence <= MAX_QUIESCENCE:
            raise ValueError(f"quiescence must be an integer in 0..{MAX_QUIESCENCE}, got {quiescence!r}")
        self.seconds = None if seconds is None else float(seconds)
        self.depth = None if depth is None else int(depth)
        self.quiescence = int(quiescence)
        self.rng = seeded_rng(seed)
        self.name = f"ab:{self.seconds:g}s" if self.depth is None else f"ab:d{self.depth}"
        from ggpzoo.envs import spec as _spec

        s = _spec(env)  # an env name, a spec or a loaded GDL game
        if s.num_roles != 2:
            raise ValueError(f"alpha-beta plays two-role games; {s.name} has roles {', '.join(s.agents)}")
        self.spec, self.env_name = s, s.name
        self.game = s.kernel_id
        self._T, self._W = s.tables, s.work()
        cells, aux_size, max_legal, actions = s.board_size, s.aux_size, max(s.max_legal, 1), s.num_actions
        self._boards = np.zeros((MAX_PLY + 2, cells), np.int8)
        self._auxs = np.zeros((MAX_PLY + 2, aux_size), np.int32)
        self._legal = np.zeros((MAX_PLY + 1, max_legal), np.int32)
        self._keys = np.zeros((MAX_PLY + 1, max_legal), np.int64)
        self._goal = np.zeros((MAX_PLY + 1, 2), np.int64)
        size = 1 << int(table_bits)
        self._tt_key = np.zeros(size, np.uint64)
        self._tt_val = np.zeros(size, np.float64)
        self._tt_move = np.full(size, -1, np.int32)
        self._tt_info = np.zeros(size, np.int32)
        self._killers = np.full((MAX_PLY + 1, 2), -1, np.int32)
        self._history = np.zeros((2, max(actions, 1)), np.int64)
        self._ctl = np.zeros(CTL_SIZE, np.int64)
        self._scratch = np.zeros((5, SCRATCH_CELLS), np.int64)
        self._aux_scratch = np.zeros(8, np.int32)
        self._me = 0
        self._gen = 0
        self.last_search: dict = {}
        self.warmup()

    def warmup(self) -> None:
        def play(state):
            agent = AlphaBetaAgent(self.spec, depth=1, seed=0, table_bits=MIN_TABLE_BITS, quiescence=self.quiescence)
            agent._search(1, -1.0)  # stops at once: compiles the search where the start has one move
            agent(state)

        warm_once(self.spec, "ab", ("ab", self.game), play)

    def _search(self, depth: int, deadline: float) -> float:
        """One iteration from ``boards[0]``: ``depth`` plies, until ``deadline``
        (`time.perf_counter()`). With a deadline passed and ``ctl[CHECK]`` 0 it stops at
        once."""
        ctl = self._ctl
        ctl[ABORT] = ctl[BEST] = ctl[ROOT_DONE] = ctl[HORIZON] = 0
        # (called from Python, so that every ply is an int64: a literal 0 from a numba
        # caller makes a second compiled copy, and cached copies that call each other crash)
        return _node(
            self.game, self._T, self._W, self._boards, self._auxs, self._legal, self._keys, self._goal, 0, depth,
            self.quiescence, -INF, INF, self._me, self._tt_key, self._tt_val, self._tt_move, self._tt_info,
            self._killers, self._history, ctl, deadline, self._scratch, self._aux_scratch,
        )  # fmt: skip

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded_rng(seed)

    def interrupt(self) -> None:
        """End the search in progress, from another thread: it stops at its next look at the
        clock (every `CHECK_EVERY` nodes) and answers as at its deadline. A search started
        later is not affected."""
        self._ctl[STOP] = 1

    def act(self, env) -> int:
        return self(env.unwrapped.get_state())

    def _root(self, state) -> None:
        """``state`` checked (`GameSpec.check_state`), into ``boards[0]``, ``auxs[0]``."""
        board, aux = self.spec.check_state(state)
        self._boards[0], self._auxs[0] = board, aux
        if self.spec.tables is not self._T:  # a sheet's network rebuilt its tables
            self._T, self._W = self.spec.tables, self.spec.work()

    def __call__(self, state) -> int:
        start = time.perf_counter()
        self._root(state)
        game, T, W = self.game, self._T, self._W
        board, aux = self._boards[0], self._auxs[0]
        n = status(game, board, aux, T, W, self._legal[0], self._goal[0])
        if n == OVER:
            raise ValueError("no legal action: the game is over")
        if n == SIMULTANEOUS:
            raise ValueError(
                "alpha-beta needs turns: several roles choose a move at the same time here "
                "(play this sheet with mcts, whose decoupled UCT searches such states)"
            )
        if n < 0:
            raise ValueError(f"the rules failed at the root (code {n})")
        legal = self._legal[0, :n].copy()
        self._me = int(aux[0])
        self.last_search = {"depth": 0, "value": 0.0, "nodes": 0, "seconds": 0.0, "legal": int(n)}
        if n == 1:
            self.last_search["seconds"] = time.perf_counter() - start
            return int(legal[0])
        ctl = self._ctl
        ctl[:] = 0
        ctl[CHECK] = CHECK_EVERY
        self._gen = self._gen % (2**20) + 1  # this move's table entries (gen << 10 fits an int32)
        ctl[GEN] = self._gen
        ctl[SALT] = int(self.rng.integers(0, 2**62))
        self._killers[:] = -1
        self._history >>= 2  # the history of earlier moves fades
        deadline = math.inf if self.seconds is None else start + self.seconds
        max_depth = MAX_DEPTH if self.depth is None else self.depth
        best, value, done = int(legal[0]), 0.0, 0
        for d in range(1, max_depth + 1):
            v = self._search(d, deadline)
            if ctl[ERROR]:
                self._raise(int(ctl[ERROR]))
            if ctl[ABORT]:
                if ctl[ROOT_DONE] > 0 and ctl[BEST] >= 0:  # the previous best was searched first
                    best = int(ctl[BEST])
                break
            best, value, done = int(ctl[BEST]), float(v), d
            if abs(value) > WIN / 2 or not ctl[HORIZON]:  # a proven result, or the whole tree searched
                break
        self.last_search = {
            "depth": done,
            "value": value,
            "nodes": int(ctl[NODES]),
            "seconds": time.perf_counter() - start,
            "legal": int(n),
        }
        return best

    def _raise(self, code: int):
        if code == SIMULTANEOUS:
            raise ValueError(
                "alpha-beta needs turns: the search reached a state where several roles choose at once "
                "(play this sheet with mcts, whose decoupled UCT searches such states)"
            )
        raise ValueError(
            f"{self.spec.name}: the sheet's network failed during the search "
            f"(code {code}: {PN.ERRORS.get(code + 10, '?')})"
        )
