"""Batched self-play: N independent games of one env, stepped together on every core.

The games run on the same rules kernels as the AEC envs (no second copy of any rule):
numba ``prange`` loops call the kernel functions game by game, in parallel threads.

    from ggpzoo.engine import VectorGames
    games = VectorGames("skirmish_v0", num_games=256)
    games.reset()
    for _ in range(1000):
        actions = games.random_actions(seed=_)       # or your policy on games.observe()
        step = games.step(actions)                    # finished games restart by themselves
    print(games.pop_results()[:3])                    # [(white goal, black goal, length), ...]

Whole random or greedy games, without Python in the loop: [`play_games()`][ggpzoo.engine.batch.play_games].

Numba compiles the batched functions once per machine (cached in ``__pycache__``); the
first call in a fresh install takes some seconds.
"""

from __future__ import annotations

from collections import deque
from typing import NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from numba import njit, prange

from ggpzoo.engine.dispatch import apply as _apply
from ggpzoo.engine.dispatch import goals as _goals
from ggpzoo.engine.dispatch import init as _init
from ggpzoo.engine.dispatch import is_terminal as _is_terminal
from ggpzoo.engine.dispatch import kernel_id
from ggpzoo.engine.dispatch import legal_actions as _legal_actions
from ggpzoo.engine.dispatch import observe as _observe
from ggpzoo.engine.policies import greedy_choice
from ggpzoo.engine.rng import random_legal as _random_legal
from ggpzoo.engine.rng import stream
from ggpzoo.envs import spec as _spec
from ggpzoo.envs.gamespec import ROLE, STEP

__all__ = ["MAX_RESULTS", "VectorGames", "StepResult", "play_games", "play"]

# pop_results() returns at most this many finished games (the newest): a batch whose results
# are never popped (a long training run) keeps its memory flat.
MAX_RESULTS = 100_000


# ----------------------------------------------------------------------------- one game
@njit(cache=True)
def _refresh(game, board, aux, legal, goals):
    """Terminal flag and legal count of one game; its goals into ``goals``."""
    g = _goals(game, board, aux)
    goals[0], goals[1] = g[0], g[1]
    if _is_terminal(game, board, aux):
        return True, 0
    return False, _legal_actions(game, board, aux, legal)


@njit(cache=True)
def _is_legal(legal, n, action):
    lo, hi = 0, n  # binary search: the legal list is ascending
    while lo < hi:
        mid = (lo + hi) // 2
        if legal[mid] < action:
            lo = mid + 1
        else:
            hi = mid
    return lo < n and legal[lo] == action


# ----------------------------------------------------------------------------- batches
@njit(cache=True, parallel=True)
def _reset_batch(game, variant, which, boards, auxs, legal, n_legal, goals, terminal):
    for i in prange(boards.shape[0]):
        if which[i]:
            _init(game, boards[i], auxs[i], variant)
            terminal[i], n_legal[i] = _refresh(game, boards[i], auxs[i], legal[i], goals[i])


@njit(cache=True, parallel=True)
def _check_batch(actions, legal, n_legal, terminal, bad):
    for i in prange(actions.shape[0]):
        bad[i] = not terminal[i] and not _is_legal(legal[i], n_legal[i], actions[i])


@njit(cache=True, parallel=True)
def _step_batch(
    game,
    variant,
    auto_reset,
    actions,
    boards,
    auxs,
    legal,
    n_legal,
    goals,
    terminal,
    finished,
    final_goals,
    lengths,
):
    for i in prange(boards.shape[0]):
        finished[i] = False
        if terminal[i]:
            continue
        _apply(game, boards[i], auxs[i], actions[i])
        terminal[i], n_legal[i] = _refresh(game, boards[i], auxs[i], legal[i], goals[i])
        if terminal[i]:
            finished[i] = True
            final_goals[i, 0], final_goals[i, 1] = goals[i, 0], goals[i, 1]
            lengths[i] = auxs[i, STEP]
            if auto_reset:
                _init(game, boards[i], auxs[i], variant)
                terminal[i], n_legal[i] = _refresh(game, boards[i], auxs[i], legal[i], goals[i])


@njit(cache=True, parallel=True)
def _observe_batch(game, boards, auxs, roles, out):
    for i in prange(boards.shape[0]):
        _observe(game, boards[i], auxs[i], roles[i], out[i])


@njit(cache=True, parallel=True)
def _mask_batch(legal, n_legal, out):
    for i in prange(out.shape[0]):
        out[i, :] = 0
        for j in range(n_legal[i]):
            out[i, legal[i, j]] = 1


@njit(cache=True, parallel=True)
def _policy_batch(game, policy, seed, boards, auxs, legal, n_legal, terminal, scratch_b, scratch_x, out):
    """One action per live game: 0 random, 1 greedy; -1 for finished games. Greedy plays its
    candidates on the game's rows of ``scratch_b``/``scratch_x`` (no allocation here)."""
    for i in prange(boards.shape[0]):
        if terminal[i]:
            out[i] = -1
            continue
        s = stream(seed, i)
        if policy == 0:
            s, out[i] = _random_legal(legal[i], n_legal[i], s)
        else:
            s, out[i] = greedy_choice(game, boards[i], auxs[i], legal[i], n_legal[i], s, scratch_b[i], scratch_x[i])


@njit(cache=True, parallel=True)
def _play_batch(game, variant, policies, seed, cells, aux_size, max_legal, goals_out, lengths_out):
    """Whole games, one per index, to the end; ``policies[role]`` is 0 random or 1 greedy."""
    for g in prange(goals_out.shape[0]):
        board = np.empty(cells, np.int8)  # once per game, not per step
        aux = np.empty(aux_size, np.int32)
        b = np.empty(cells, np.int8)
        x = np.empty(aux_size, np.int32)
        legal = np.empty(max_legal, np.int32)
        goals = np.empty(2, np.int64)
        s = stream(seed, g)
        _init(game, board, aux, variant)
        while True:
            over, n = _refresh(game, board, aux, legal, goals)
            if over:
                break
            if policies[aux[ROLE]] == 0:
                s, a = _random_legal(legal, n, s)
            else:
                s, a = greedy_choice(game, board, aux, legal, n, s, b, x)
            _apply(game, board, aux, a)
        goals_out[g, 0], goals_out[g, 1] = goals[0], goals[1]
        lengths_out[g] = aux[STEP]


# ----------------------------------------------------------------------------- the API
def _seed(seed) -> int:
    """``seed`` as an int in 0..2**63 - 1, or a ValueError (no bools, floats or negatives)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an integer in 0..2**63 - 1, got {seed!r}")
    return int(seed)


def _bool_array(x, n: int) -> np.ndarray:
    """``x`` as a bool array of shape ``(n,)``: bools, or integers that are all 0 or 1."""
    a = np.asarray(x)
    if a.shape != (n,):
        raise ValueError(f"which must be a bool array of shape ({n},), got shape {a.shape}")
    if a.dtype != np.bool_ and not (np.issubdtype(a.dtype, np.integer) and np.isin(a, (0, 1)).all()):
        raise ValueError(f"which must be a bool array of shape ({n},) (or of 0s and 1s), got {a.dtype}")
    return a.astype(np.bool_)


def _roles_array(x, n: int) -> np.ndarray:
    """``x`` as an int32 array of shape ``(n,)`` of roles 0 and 1, or a ValueError."""
    a = np.asarray(x)
    if a.shape != (n,) or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"roles must be an integer array of shape ({n},), got {a.dtype} {a.shape}")
    if not np.isin(a, (0, 1)).all():
        raise ValueError(f"roles are 0 (white) or 1 (black), got {a[~np.isin(a, (0, 1))][0]}")
    return a.astype(np.int32)


POLICIES = {"random": 0, "greedy": 1}


class StepResult(NamedTuple):
    """What [`VectorGames.step()`][ggpzoo.engine.batch.VectorGames.step] returns, one row per game."""

    rewards: np.ndarray  # float32 (N, 2): white, black; +1/-1/0 on the step that ended a game
    finished: np.ndarray  # bool (N,): the game ended on this step (restarted if auto_reset)
    final_goals: np.ndarray  # int64 (N, 2): the ended games' goals (valid where finished)
    lengths: np.ndarray  # int32 (N,): the ended games' action counts (valid where finished)


class VectorGames:
    """``num_games`` independent games of env ``name``, stepped together.

    Args:
        name: an env name, a key of ``ggpzoo.envs.ENVS`` (e.g. ``"amazons_v0"``).
        num_games: the batch size N.
        auto_reset: restart a game on the step that ends it (its result goes to
            [`pop_results()`][ggpzoo.engine.batch.VectorGames.pop_results]); otherwise finished games wait for
            [`reset()`][ggpzoo.engine.batch.VectorGames.reset], and their entries in ``actions`` are ignored.
    """

    def __init__(self, name: str, num_games: int, auto_reset: bool = True):
        self.spec = sp = _spec(name)
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        self.name = name
        self.game = kernel_id(sp.kernel)
        self.kernel, self.variant, self.num_actions = sp.kernel, sp.variant, sp.num_actions
        self.observation_shape = sp.obs_shape
        self.obs_dtype = sp.obs_dtype
        self.num_games = n = int(num_games)
        self.auto_reset = bool(auto_reset)
        # Gymnasium's vector vocabulary.
        self.num_envs = n
        self.single_action_space = spaces.Discrete(sp.num_actions)
        self.single_observation_space = spaces.Box(0, sp.obs_high, sp.obs_shape, sp.obs_dtype)
        self.metadata = {"autoreset_mode": AutoresetMode.SAME_STEP if self.auto_reset else AutoresetMode.DISABLED}
        self.boards = np.zeros((n, sp.num_cells), np.int8)
        self.auxs = np.zeros((n, sp.aux_size), np.int32)
        self.legal = np.zeros((n, sp.max_legal), np.int32)
        self.n_legal = np.zeros(n, np.int32)
        self.goals = np.zeros((n, 2), np.int64)
        self.terminal = np.ones(n, np.bool_)
        self._scratch_b = np.zeros_like(self.boards)  # greedy's trial states, one row per game
        self._scratch_x = np.zeros_like(self.auxs)
        self._results: deque = deque(maxlen=MAX_RESULTS)  # the newest finished games
        self._finished = np.zeros(n, np.bool_)
        self._final_goals = np.zeros((n, 2), np.int64)
        self._lengths = np.zeros(n, np.int32)
        self._started = False  # no game until reset()

    def _require_reset(self) -> None:
        if not self._started:
            raise RuntimeError("no games yet: call reset() first")

    def reset(self, which: np.ndarray | None = None, *, options: dict | None = None) -> None:
        """Start every game (or those where the bool array ``which`` is true) anew.

        Gymnasium's form works too: ``reset(options={"reset_mask": mask})``.
        """
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
        _reset_batch(
            self.game, self.variant, which, self.boards, self.auxs, self.legal, self.n_legal, self.goals, self.terminal
        )
        self._started = True

    @property
    def to_play(self) -> np.ndarray:
        """The role in control of each game: 0 white, 1 black."""
        return self.auxs[:, ROLE].copy()

    def legal_actions(self) -> tuple[np.ndarray, np.ndarray]:
        """``(actions, counts)``: row i's legal ids, ascending, are ``actions[i, :counts[i]]``."""
        return self.legal.copy(), self.n_legal.copy()

    def action_masks(self) -> np.ndarray:
        """int8 ``(N, num_actions)`` masks of the role in control (all zeros where finished)."""
        self._require_reset()
        out = np.empty((self.num_games, self.num_actions), np.int8)
        _mask_batch(self.legal, np.where(self.terminal, 0, self.n_legal).astype(np.int32), out)
        return out

    def observe(self, roles: np.ndarray | None = None) -> np.ndarray:
        """Observations ``(N, H, W, C)``, each from ``roles[i]``'s side (default: the role to act)."""
        self._require_reset()
        roles = self.auxs[:, ROLE].copy() if roles is None else _roles_array(roles, self.num_games)
        out = np.empty((self.num_games, *self.observation_shape), self.obs_dtype)
        _observe_batch(self.game, self.boards, self.auxs, roles, out)
        return out

    def random_actions(self, seed: int = 0) -> np.ndarray:
        """A uniformly random legal action per game (-1 where the game is over)."""
        return self._policy(0, seed)

    def greedy_actions(self, seed: int = 0) -> np.ndarray:
        """Per game, `ggpzoo.engine.policies.greedy_choice()`: the best own minus opponent
        goal after the action (a move that ends the game ahead first), random tie-break."""
        return self._policy(1, seed)

    def _policy(self, policy: int, seed: int) -> np.ndarray:
        self._require_reset()
        seed = _seed(seed)
        out = np.empty(self.num_games, np.int32)
        _policy_batch(
            self.game,
            policy,
            seed,
            self.boards,
            self.auxs,
            self.legal,
            self.n_legal,
            self.terminal,
            self._scratch_b,
            self._scratch_x,
            out,
        )
        return out

    def step(self, actions) -> StepResult:
        """Play ``actions[i]`` in game i; raises ValueError (and changes nothing) on an illegal one."""
        try:
            actions = np.asarray(actions)
        except (OverflowError, TypeError, ValueError):  # ragged lists, ints beyond int64 and uint64
            actions = np.asarray(None)
        if actions.shape != (self.num_games,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"actions must be an integer array of shape ({self.num_games},), got {actions.dtype} {actions.shape}"
            )
        self._require_reset()
        if self.terminal.all() and not self.auto_reset:
            raise RuntimeError("every game is over; call reset()")
        out_of_range = ~self.terminal & ((actions < 0) | (actions >= self.num_actions))
        if out_of_range.any():
            i = int(np.flatnonzero(out_of_range)[0])
            raise ValueError(f"game {i}: action {int(actions[i])} is out of range 0..{self.num_actions - 1}")
        bad = np.zeros(self.num_games, np.bool_)
        a32 = np.where(self.terminal, 0, actions).astype(np.int32)
        _check_batch(a32, self.legal, self.n_legal, self.terminal, bad)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"game {i}: action {int(actions[i])} is illegal "
                f"({int(self.n_legal[i])} legal actions; see legal_actions())"
            )
        _step_batch(
            self.game,
            self.variant,
            self.auto_reset,
            a32,
            self.boards,
            self.auxs,
            self.legal,
            self.n_legal,
            self.goals,
            self.terminal,
            self._finished,
            self._final_goals,
            self._lengths,
        )
        finished = self._finished.copy()
        final_goals = self._final_goals.copy()
        lengths = self._lengths.copy()
        rewards = np.zeros((self.num_games, 2), np.float32)
        diff = final_goals[:, 0].astype(np.int64) - final_goals[:, 1]
        rewards[finished, 0] = np.sign(diff[finished])
        rewards[finished, 1] = np.sign(-diff[finished])  # a draw pays +0.0 to both, never -0.0
        for i in np.flatnonzero(finished):
            self._results.append((int(final_goals[i, 0]), int(final_goals[i, 1]), int(lengths[i])))
        return StepResult(rewards, finished, final_goals, lengths)

    def pop_results(self) -> list[tuple[int, int, int]]:
        """The games finished since the last call, at most the newest `MAX_RESULTS`:
        ``(white goal, black goal, length)`` each."""
        results = list(self._results)
        self._results.clear()
        return results


def play_games(name: str, num_games: int, white: str = "random", black: str = "random", seed: int = 0):
    """Play ``num_games`` whole games of ``name`` in parallel with built-in policies.

    Returns ``(goals, lengths)``: int64 ``(num_games, 2)`` final goals (white, black) and the
    number of actions of each game. Policies: ``"random"`` or ``"greedy"``
    (`ggpzoo.engine.policies.greedy_choice()`: one ply, random tie-break).
    """
    seed = _seed(seed)
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
    for p in (white, black):
        if not isinstance(p, str) or p not in POLICIES:
            raise ValueError(f"unknown policy {p!r}; choose from {sorted(POLICIES)}")
    sp = _spec(name)
    goals = np.zeros((num_games, 2), np.int64)
    lengths = np.zeros(num_games, np.int32)
    policies = np.array([POLICIES[white], POLICIES[black]], np.int64)
    _play_batch(
        kernel_id(sp.kernel), sp.variant, policies, seed, sp.num_cells, sp.aux_size, sp.max_legal, goals, lengths
    )
    return goals, lengths


play = play_games  # its name before 0.3.0
