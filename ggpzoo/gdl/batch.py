"""Deprecated: N games of one GDL sheet stepped together in numba (`GDLVectorGames`).

[`ggpzoo.engine.VectorGames`][ggpzoo.engine.VectorGames] plays every game, sheets included
(``VectorGames("gdl:connect_four", 256)``); this module stays for one minor version.

    from ggpzoo import gdl
    from ggpzoo.gdl.batch import GDLVectorGames
    games = GDLVectorGames(gdl.load(gdl.game_path("connect_four")), num_games=256)
    games.reset()
    for t in range(1000):
        step = games.step(games.random_actions(seed=t))   # or your policy on games.observe()
    print(games.pop_results()[:3])                          # [((goal per role), length), ...]

The turns are the AEC env's ([`ggpzoo.gdl.envs`][ggpzoo.gdl.envs]): a role with one legal move plays it by
itself, joint moves where no role has a choice are played through, and a state ends the game
when the sheet says ``terminal`` or when some role has no legal move (or, with
``max_steps``, after that many joint moves: truncation). ``step(actions)`` takes one action
id per game (that of the one role with a choice) or, shape ``(N, R)``, one per role (needed
where several roles choose at once; entries of roles without a choice are ignored).

Every game keeps its own work area of the network (its values and, for a propagating
network, its rule and atom counters, its list of true legal atoms and its scratch:
`work()`), so that moving game ``i`` touches only its rows,
and the games run in parallel threads (numba's ``prange``, as in
[`ggpzoo.engine.VectorGames`][ggpzoo.engine.VectorGames]); the results do not depend on the number of threads.
Every input is checked in Python before numba sees it: a bad one raises
``ValueError`` and changes nothing.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

import numpy as np
from gymnasium import spaces
from numba import njit, prange

from ggpzoo.engine.batch import MAX_RESULTS, _bool_array
from ggpzoo.engine.rng import random_legal, stream
from ggpzoo.envs.propnet import kernel
from ggpzoo.envs.propnet.kernel import CHOICE, ERRORS, MAX_FORCED, OK, OVER
from ggpzoo.gdl.syntax import GDLError, to_text

__all__ = ["GDLVectorGames", "GDLStepResult", "KernelTables"]


# ----------------------------------------------------------------------------- one game
# ``S`` is the tuple of per-game status arrays (legal ids, their counts, over, truncated,
# mover, steps, goals), one row per game; game ``i`` is ``states[i]`` on work area ``W[i]``.
@njit(cache=True)
def advance(i, T, W, states, S, max_steps, ids):
    """Play game ``i``'s forced joint moves up to a choice, the end or ``max_steps`` (0: no
    limit); fill its row of ``S``. Returns OK or an error code
    ([`ggpzoo.envs.propnet.kernel.ERRORS`][ggpzoo.envs.propnet.kernel.ERRORS])."""
    out, counts, over, truncated, mover, steps, goals = S
    limit = max_steps - steps[i] if max_steps > 0 else MAX_FORCED
    code, played = kernel.advance(T, W[i], states[i], out[i], counts[i], ids, limit)
    steps[i] += played
    if code < 0:
        return code
    kernel.goals(T, W[i], goals[i])
    if code == OVER:
        over[i] = True
        mover[i] = -1
        return OK
    if max_steps > 0 and steps[i] >= max_steps:
        over[i] = True
        truncated[i] = True
        mover[i] = -1
        return OK
    over[i] = False
    mover[i] = -2
    if code == CHOICE:
        for r in range(counts.shape[1]):
            if counts[i, r] > 1:
                mover[i] = r
    return OK


@njit(cache=True)
def restart(i, T, W, states, S, max_steps, ids):
    """Game ``i`` at the initial state, its forced moves played."""
    kernel.restart(T, W[i], states[i])
    S[3][i] = False
    S[5][i] = 0
    return advance(i, T, W, states, S, max_steps, ids)


# ----------------------------------------------------------------------------- batches
# Every game has its own work area ``W[i]``, state row and status rows: the games of a batch
# run in parallel threads (numba's ``prange``), each writing only its own rows; ``codes[i]``
# is game ``i``'s error code (OK if none), and ``ids[i]`` its joint-move scratch.
@njit(cache=True)
def _first_error(codes):
    """(the first game whose code is an error, its code), or (-1, OK)."""
    for i in range(codes.shape[0]):
        if codes[i] != OK:
            return i, codes[i]
    return -1, OK


@njit(cache=True, parallel=True)
def _reset_batch(which, T, W, states, S, max_steps, ids, codes):
    """Restart the games where ``which``; returns (the first failing game or -1, its code)."""
    for i in prange(which.shape[0]):
        codes[i] = OK
        if which[i]:
            codes[i] = restart(i, T, W, states, S, max_steps, ids[i])
    return _first_error(codes)


@njit(cache=True, parallel=True)
def _check_batch(actions, which, S, bad):
    """``bad[i]`` = the first role whose action in live game ``i`` (where ``which``) is not legal, else -1."""
    out, counts, over = S[0], S[1], S[2]
    for i in prange(actions.shape[0]):
        bad[i] = -1
        if over[i] or not which[i]:
            continue
        for r in range(counts.shape[1]):
            n = counts[i, r]
            if n <= 1:
                continue
            found = False
            for j in range(n):
                if out[i, r, j] == actions[i, r]:
                    found = True
                    break
            if not found:
                bad[i] = r
                break


@njit(cache=True)
def _step_one(i, actions, auto_reset, T, W, states, S, max_steps, R, ids):
    """Game ``i``'s joint move, its forced moves, and its restart if it ended; its code."""
    out, counts, over, truncated, mover, steps, goals = S
    finished, final_goals, final_trunc, lengths = R
    n_roles = counts.shape[1]
    for r in range(n_roles):
        ids[r] = out[i, r, 0] if counts[i, r] == 1 else actions[i, r]
    if not kernel.play(T, W[i], states[i], ids):
        return kernel.STACK_OVERFLOW
    steps[i] += 1
    code = advance(i, T, W, states, S, max_steps, ids)
    if code != OK:
        return code
    if over[i]:
        finished[i] = True
        for r in range(n_roles):
            final_goals[i, r] = goals[i, r]
        final_trunc[i] = truncated[i]
        lengths[i] = steps[i]
        if auto_reset:
            return restart(i, T, W, states, S, max_steps, ids)
    return OK


@njit(cache=True, parallel=True)
def _step_batch(actions, which, auto_reset, T, W, states, S, max_steps, R, ids, codes):
    """One joint move in each live game where ``which``, then its forced moves; ``R`` = (finished,
    final goals, final truncated, lengths). Returns (the first failing game or -1, its code)."""
    over, finished = S[2], R[0]
    for i in prange(actions.shape[0]):
        finished[i] = False
        codes[i] = OK
        if not over[i] and which[i]:
            codes[i] = _step_one(i, actions, auto_reset, T, W, states, S, max_steps, R, ids[i])
    return _first_error(codes)


@njit(cache=True, parallel=True)
def _random_batch(seed, S, actions):
    """A uniformly random legal move for every role of every live game (-1 where over)."""
    out, counts, over = S[0], S[1], S[2]
    for i in prange(actions.shape[0]):
        if over[i]:
            for r in range(counts.shape[1]):
                actions[i, r] = -1
            continue
        s = stream(seed, i)
        for r in range(counts.shape[1]):
            if counts[i, r] == 1:
                actions[i, r] = out[i, r, 0]
            else:
                s, actions[i, r] = random_legal(out[i, r], counts[i, r], s)


@njit(cache=True, parallel=True)
def _mask_batch(S, masks):
    """``masks[i, r]``: 1 for each legal id of role ``r`` in live game ``i``."""
    out, counts, over = S[0], S[1], S[2]
    for i in prange(masks.shape[0]):
        masks[i] = 0
        if over[i]:
            continue
        for r in range(counts.shape[1]):
            for j in range(counts[i, r]):
                masks[i, r, out[i, r, j]] = 1


# ----------------------------------------------------------------------------- the API
class GDLStepResult(NamedTuple):
    """What [`GDLVectorGames.step()`][ggpzoo.gdl.batch.GDLVectorGames.step] returns, one row per game."""

    rewards: np.ndarray  # float32 (N, R): the env's rewards, non-zero only on the step that ended a game
    finished: np.ndarray  # bool (N,): the game ended on this step (restarted if auto_reset)
    truncated: np.ndarray  # bool (N,): ... by max_steps, not by the rules (valid where finished)
    final_goals: np.ndarray  # int64 (N, R): the ended games' goals (valid where finished)
    lengths: np.ndarray  # int32 (N,): the ended games' joint moves, forced ones included (valid where finished)


def _positive_int(x, what: str) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or x < 1:
        raise ValueError(f"{what} must be a positive integer, got {x!r}")
    return int(x)


class KernelTables(NamedTuple):
    """The arrays a batch's numba kernels take
    ([`GDLVectorGames.kernel_tables()`][ggpzoo.gdl.batch.GDLVectorGames.kernel_tables]), for kernels built on the batch
    (the Gumbel search of `ggpzoo.agents.gdl_gumbel` walks its trees on one). Each is the batch's own array, not a copy:
    moving a game through
    them moves the batch."""

    T: np.ndarray  # the network's tables ([`ggpzoo.envs.propnet.kernel`][ggpzoo.envs.propnet.kernel]), read-only
    W: np.ndarray  # int32 (N, work): each game's work area
    states: np.ndarray  # uint8 (N, fluents): each game's state
    S: tuple  # per game: legal ids, their counts, over, truncated, mover, steps, goals
    obs_cols: np.ndarray  # observation columns that are fluents of the network
    obs_src: np.ndarray  # and the network's fluent index of each
    num_fluents: int  # the observation's fluent part (``len(game.fluents)``)


class GDLVectorGames:
    """``num_games`` independent games of one GDL sheet, stepped together in numba.

    Args:
        game: a [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game], a ``.kif`` path or KIF text (compiled path only:
            a sheet that does not ground raises ``GroundingTooLarge``).
        num_games: the batch size N.
        auto_reset: restart a game on the step that ends it (its result goes to
            [`pop_results()`][ggpzoo.gdl.batch.GDLVectorGames.pop_results]); otherwise finished games wait for
            [`reset()`][ggpzoo.gdl.batch.GDLVectorGames.reset], and their entries in ``actions`` are ignored.
        max_steps: if given, a game still running after this many joint moves ends
            (``truncated``), as the env's ``max_steps``.

    State, one row per game: ``states`` (uint8 ``(N, F)`` over ``net.fluents``, what
    ``CompiledMachine`` uses), ``over``, ``truncated``, ``steps`` (joint moves),
    ``goals`` (int64 ``(N, R)``: the goals in the current state, the env's
    ``infos[role]["goal"]``), ``to_play`` (the role with a choice; -1 where the game is
    over, -2 where several roles choose at once).
    """

    def __init__(self, game, num_games: int, auto_reset: bool = True, max_steps: int | None = None):
        import warnings

        from ggpzoo.gdl.game import Game, load

        warnings.warn(
            "ggpzoo.gdl.batch.GDLVectorGames is deprecated: use ggpzoo.engine.VectorGames('gdl:SHEET') "
            "(or VectorGames(ggpzoo.gdl.spec.gdl_spec(game)))",
            DeprecationWarning,
            2,
        )

        self.game = game if isinstance(game, Game) else load(game)
        self.num_games = n = _positive_int(num_games, "num_games")
        self.max_steps = 0 if max_steps is None else _positive_int(max_steps, "max_steps")
        self.auto_reset = bool(auto_reset)
        g = self.game
        self.net = net = g.propnet()
        self.roles = list(g.roles)
        self.actions = {r: list(g.actions[r]) for r in g.roles}
        for r, ms in self.actions.items():
            if not ms:
                raise GDLError(f"role {r} has no possible move: the sheet gives it no legal move in any state")
        self.num_actions = np.array([len(self.actions[r]) for r in self.roles], np.int64)
        R, K = len(self.roles), int(net.max_legal)
        self.max_actions = K
        # Gymnasium's vector vocabulary (for the role to choose; roles may have fewer ids than K)
        self.num_envs = n
        self.single_action_space = spaces.Discrete(K)
        nf = len(g.fluents)
        self.single_observation_space = spaces.Box(0, 1, (nf + R,), np.int8)
        obs_index = np.array([net.fluent_index.get(f, -1) for f in g.fluents], np.int64)
        self._obs_cols = np.flatnonzero(obs_index >= 0)
        self._obs_src = obs_index[self._obs_cols]
        self._nf = nf

        self._T = net.tables
        self.states = np.zeros((n, len(net.fluents)), np.uint8)
        self._W = np.zeros((n, int(self._T[kernel.W_SIZE])), np.int32)
        self._ids = np.zeros((n, len(self.roles)), np.int64)  # each game's joint-move scratch
        self._codes = np.zeros(n, np.int64)  # each game's error code in the last batch call
        self._out = np.zeros((n, R, K), np.int64)
        self._counts = np.zeros((n, R), np.int64)
        self.over = np.ones(n, np.bool_)
        self.truncated = np.zeros(n, np.bool_)
        self._mover = np.full(n, -1, np.int64)
        self.steps = np.zeros(n, np.int64)
        self.goals = np.zeros((n, R), np.int64)
        self._S = (self._out, self._counts, self.over, self.truncated, self._mover, self.steps, self.goals)
        self._R = (np.zeros(n, np.bool_), np.zeros((n, R), np.int64), np.zeros(n, np.bool_), np.zeros(n, np.int64))
        self._results: deque = deque(maxlen=MAX_RESULTS)  # the newest finished games
        self._started = False  # no game until reset()

    def kernel_tables(self) -> KernelTables:
        """The arrays the batch's kernels take (see [`KernelTables`][ggpzoo.gdl.batch.KernelTables])."""
        return KernelTables(self._T, self._W, self.states, self._S, self._obs_cols, self._obs_src, self._nf)

    # ------------------------------------------------------------------ helpers
    def _require_reset(self) -> None:
        if not self._started:
            raise RuntimeError("no games yet (or a sheet error stopped them): call reset() first")

    def _fail(self, i: int, code: int):
        self._started = False  # the failing game's network may be half updated: every game restarts
        raise GDLError(f"game {i}: {ERRORS[code]}; call reset()")

    # ------------------------------------------------------------------ flow
    def reset(self, which=None, *, options: dict | None = None) -> None:
        """Start every game (or those where the bool array ``which`` is true) anew, forced
        moves played. Gymnasium's form works too: ``reset(options={"reset_mask": mask})``."""
        if options is not None and "reset_mask" in options:
            if which is not None:
                raise ValueError("give the games to reset as which or as options['reset_mask'], not both")
            which = options["reset_mask"]
        if which is None:
            which = np.ones(self.num_games, np.bool_)
        else:
            which = _bool_array(which, self.num_games)
            if not self._started and not which.all():
                raise RuntimeError("the first reset() must start every game")
        i, code = _reset_batch(which, self._T, self._W, self.states, self._S, self.max_steps, self._ids, self._codes)
        if code != OK:
            self._fail(int(i), int(code))
        self._started = True

    @property
    def to_play(self) -> np.ndarray:
        """The role with a choice in each game: its index, -1 where over, -2 where several choose."""
        return self._mover.copy()

    def legal_masks(self) -> np.ndarray:
        """int8 ``(N, R, K)``: 1 for every legal id of every role (a forced ``noop`` too; ``K``
        is the largest role's action count), all zeros where the game is over."""
        self._require_reset()
        out = np.empty((self.num_games, len(self.roles), self.max_actions), np.int8)
        _mask_batch(self._S, out)
        return out

    def action_masks(self) -> np.ndarray:
        """int8 ``(N, K)``: the mask of the role with a choice (the env's ``action_mask`` of
        ``agent_selection``); zeros where the game is over or several roles choose."""
        m = self.legal_masks()
        out = np.zeros((self.num_games, self.max_actions), np.int8)
        one = self._mover >= 0
        out[one] = m[one, self._mover[one]]
        return out

    def legal_actions(self, game: int, role: int | None = None) -> np.ndarray:
        """The legal ids (ascending) of ``role`` (default: the one to choose) in game ``game``."""
        self._require_reset()
        i = self._index(game, self.num_games, "game")
        r = int(self._mover[i]) if role is None else self._index(role, len(self.roles), "role")
        if r < 0 or self.over[i]:
            return np.zeros(0, np.int64)
        return np.sort(self._out[i, r, : self._counts[i, r]])

    @staticmethod
    def _index(x, n: int, what: str) -> int:
        if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or not 0 <= x < n:
            raise ValueError(f"{what} must be an integer in 0..{n - 1}, got {x!r}")
        return int(x)

    def observe(self, roles=None) -> np.ndarray:
        """int8 ``(N, F + R)``: the env's ``observation`` (a byte per fluent of the base set,
        then a one-hot of ``roles[i]``; default the role to choose, else the first)."""
        self._require_reset()
        R = len(self.roles)
        if roles is None:
            roles = np.where(self._mover >= 0, self._mover, 0)
        else:
            a = np.asarray(roles)
            if a.shape != (self.num_games,) or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
                raise ValueError(
                    f"roles must be an integer array of shape ({self.num_games},), got {a.dtype} {a.shape}"
                )
            if ((a < 0) | (a >= R)).any():
                raise ValueError(f"roles are 0..{R - 1}, got {a[(a < 0) | (a >= R)][0]}")
            roles = a
        obs = np.zeros((self.num_games, self._nf + R), np.int8)
        obs[:, self._obs_cols] = self.states[:, self._obs_src]
        obs[np.arange(self.num_games), self._nf + roles] = 1
        return obs

    def fluents(self, game: int) -> frozenset:
        """The fluents true in game ``game`` (terms, as the exact path's states)."""
        i = self._index(game, self.num_games, "game")
        return frozenset(self.net.fluents[j] for j in np.flatnonzero(self.states[i]))

    def random_actions(self, seed: int = 0) -> np.ndarray:
        """int64 ``(N, R)``: a uniformly random legal id for every role of every live game
        (the forced move of a role without a choice; -1 where the game is over). ``step``
        takes it as it is."""
        self._require_reset()
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
            raise ValueError(f"seed must be an integer in 0..2**63 - 1, got {seed!r}")
        out = np.empty((self.num_games, len(self.roles)), np.int64)
        _random_batch(int(seed), self._S, out)
        return out

    def _joint(self, actions, which: np.ndarray) -> np.ndarray:
        """``actions`` as a checked int64 ``(N, R)`` joint move in the games where ``which`` (see `step()`)."""
        n, R = self.num_games, len(self.roles)
        try:
            a = np.asarray(actions)
        except (OverflowError, TypeError, ValueError):  # ragged lists, ints beyond int64
            a = np.asarray(None)
        if a.shape not in ((n,), (n, R)) or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(
                f"actions must be an integer array of shape ({n},) (the role to choose) or ({n}, {R}) "
                f"(one per role), got {a.dtype} {a.shape}"
            )
        if a.dtype == np.uint64 and (a > np.iinfo(np.int64).max).any():
            raise ValueError("actions out of range: an action id is at most the number of moves of its role")
        live = ~self.over & which
        choosing = live[:, None] & (self._counts > 1)
        if a.ndim == 1:
            several = live & (self._mover == -2)
            if several.any():
                i = int(np.flatnonzero(several)[0])
                who = [self.roles[r] for r in np.flatnonzero(self._counts[i] > 1)]
                raise ValueError(
                    f"game {i}: roles {', '.join(who)} choose at once; give one action per role, shape ({n}, {R})"
                )
            joint = self._out[:, :, 0].copy()
            rows = np.flatnonzero(self._mover >= 0)
            joint[rows, self._mover[rows]] = a[rows]
        else:
            joint = np.where(choosing, a, self._out[:, :, 0]).astype(np.int64)
        bad = choosing & ((joint < 0) | (joint >= self.num_actions[None, :]))
        if bad.any():
            i, r = (int(x) for x in np.argwhere(bad)[0])
            raise ValueError(
                f"game {i}: action {int(joint[i, r])} of {self.roles[r]} is out of range 0..{self.num_actions[r] - 1}"
            )
        return joint

    def step(self, actions, which=None) -> GDLStepResult:
        """Play one joint move in every live game (or those where the bool array ``which`` is
        true: the others wait, their entries ignored), then its forced moves.

        ``actions``: integer ``(N,)``, the action id of the role with a choice in each game,
        or ``(N, R)``, one per role (entries of roles without a choice are ignored; the
        only form where several roles choose at once). Entries of games that are over are
        ignored. An illegal or out-of-range action, a wrong shape or dtype raise ValueError
        and change nothing."""
        self._require_reset()
        if which is None:
            which = np.ones(self.num_games, np.bool_)
        else:
            w = np.asarray(which)
            if w.shape != (self.num_games,) or w.dtype != np.bool_:
                raise ValueError(f"which must be a bool array of shape ({self.num_games},), got {w.dtype} {w.shape}")
            which = w
        joint = self._joint(actions, which)
        if self.over.all() and not self.auto_reset:
            raise RuntimeError("every game is over; call reset()")
        bad = np.empty(self.num_games, np.int64)
        _check_batch(joint, which, self._S, bad)
        if (bad >= 0).any():
            i = int(np.flatnonzero(bad >= 0)[0])
            r = int(bad[i])
            legal = ", ".join(to_text(self.actions[self.roles[r]][j]) for j in self.legal_actions(i, r)[:8])
            raise ValueError(
                f"game {i}: action {int(joint[i, r])} = {to_text(self.actions[self.roles[r]][int(joint[i, r])])} "
                f"is illegal for {self.roles[r]} now; legal: {legal}..."
            )
        i, code = _step_batch(
            joint, which, self.auto_reset, self._T, self._W, self.states, self._S, self.max_steps, self._R,
            self._ids, self._codes,
        )  # fmt: skip
        if code != OK:
            self._fail(int(i), int(code))
        finished, final_goals, final_trunc, lengths = (x.copy() for x in self._R)
        rewards = self._rewards(final_goals, finished & ~final_trunc)
        for i in np.flatnonzero(finished):
            self._results.append((tuple(int(x) for x in final_goals[i]), int(lengths[i])))
        return GDLStepResult(rewards, finished, final_trunc & finished, final_goals, lengths.astype(np.int32))

    def _rewards(self, goals: np.ndarray, ended: np.ndarray) -> np.ndarray:
        """The env's rewards where ``ended``: +1 above every other role, -1 below the best
        other, 0 for a tie at the top; goal / 100 with one role."""
        n, R = goals.shape
        out = np.zeros((n, R), np.float32)
        if R == 1:
            out[ended, 0] = goals[ended, 0] / 100.0
            return out
        for r in range(R):
            best_other = np.delete(goals, r, axis=1).max(axis=1)
            out[ended, r] = np.sign(goals[ended, r] - best_other[ended])
        return out + 0.0  # never -0.0

    def pop_results(self) -> list:
        """The games finished since the last call, at most the newest
        `ggpzoo.engine.batch.MAX_RESULTS`: ``((goal per role), joint moves)`` each."""
        results = list(self._results)
        self._results.clear()
        return results
