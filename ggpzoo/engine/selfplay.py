"""Batched self-play for training: N games in arrays, a learner on one seat of each.

[`SelfPlayGames`][ggpzoo.engine.selfplay.SelfPlayGames] is what a vectorised single-agent env needs, and nothing of any
RL
library: the learner holds one seat per game (white in even games, black in odd ones at
the first reset, swapped in each game at every new episode); the opponent's moves are
played for all games at once, inside numba for the built-in opponents (``"random"``,
``"greedy"``), or by one call per opponent for the others (a frozen network in one batched
forward pass, a search agent game by game); each game draws its opponent from the pool
at the start of each episode. A step takes one learner action per game and returns the
next observations, the learner's rewards, which games ended (they restart at once) and
their final observations and goals.

Every rule comes from the kernel layer, the same functions the AEC wrappers call:

* the game: `ggpzoo.engine.dispatch`;
* rewards: [`ggpzoo.engine.rewards.goal_reward()`][ggpzoo.engine.rewards.goal_reward] (``reward=``) and the potential of
  [`ggpzoo.engine.rewards.mover_potential()`][ggpzoo.engine.rewards.mover_potential] (``shaping=`` weight);
* cell choices (``decompose=``): [`ggpzoo.engine.turns`][ggpzoo.engine.turns] and
  `ggpzoo.engine.dispatch.stage_board()`;
* extra planes (``reach_planes=``): `ggpzoo.engine.dispatch.reach_planes()`.

The learner sees exactly what
[`ggpzoo.training.single_agent.SingleAgentEnv`][ggpzoo.training.single_agent.SingleAgentEnv] would show it with the same
options (``tests/test_selfplay.py`` plays both side by side): the observation planes, the mask, and as reward of each
step everything its own reward wrapper booked for it since its last step (the opponent's replies included).

Opponents other than the built-in ones follow a small protocol: an object with
``takes = "observation"`` and ``act_batch(observations, masks) -> actions`` (the learner's
own view and action space, e.g. a snapshot of the learner) or ``takes = "state"`` and
``act_states(boards, auxs) -> game actions`` (e.g. MCTS); both get one row per game that
waits for it. [`ggpzoo.training.selfplay`][ggpzoo.training.selfplay] has them.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ggpzoo.engine.batch import _refresh, _seed
from ggpzoo.engine.dispatch import apply as _apply
from ggpzoo.engine.dispatch import init as _init
from ggpzoo.engine.dispatch import kernel_id
from ggpzoo.engine.dispatch import observe as _observe
from ggpzoo.engine.dispatch import reach_planes as _reach_planes
from ggpzoo.engine.dispatch import stage_board as _stage_board
from ggpzoo.engine.policies import greedy_choice
from ggpzoo.engine.rewards import goal_reward, mover_potential, reward_kind
from ggpzoo.engine.rng import random_legal, stream
from ggpzoo.engine.turns import action_cells, complete_action, forced_choices, stage_mask
from ggpzoo.envs import spec as _spec
from ggpzoo.envs.gamespec import ROLE

__all__ = ["SelfPlayGames", "BUILTIN_OPPONENTS"]

BUILTIN_OPPONENTS = {"random": 0, "greedy": 1}
_EXTERNAL = 2


# ----------------------------------------------------------------------------- one game
@njit(cache=True)
def _new_turn(table, parts, skip, legal, n, chosen, stage, i):
    stage[i] = 0
    if skip and parts > 1:
        stage[i] = forced_choices(table, legal, n, chosen, 0, parts)


@njit(cache=True)
def _play(game, table, parts, skip, boards, auxs, legal, n_legal, goals, terminal, chosen, stage, i, a):
    """Play game action ``a`` in game ``i`` and start the next turn's choices."""
    _apply(game, boards[i], auxs[i], a)
    terminal[i], n_legal[i] = _refresh(game, boards[i], auxs[i], legal[i], goals[i])
    _new_turn(table, parts, skip, legal[i], n_legal[i], chosen[i], stage, i)


# ----------------------------------------------------------------------------- batches
@njit(cache=True, parallel=True)
def _reset_games(
    game, variant, table, parts, skip, idx, plies, rng, boards, auxs, legal, n_legal, goals, terminal, chosen, stage
):
    """Start games ``idx`` anew, with ``plies[k]`` uniformly random actions played first
    (fewer if the game would end; none if it did)."""
    for k in prange(idx.shape[0]):
        i = idx[k]
        for attempt in range(2):
            _init(game, boards[i], auxs[i], variant)
            terminal[i], n_legal[i] = _refresh(game, boards[i], auxs[i], legal[i], goals[i])
            if attempt == 1:
                break
            s = rng[i]
            for _ in range(plies[k]):
                if terminal[i]:
                    break
                s, a = random_legal(legal[i], n_legal[i], s)
                _apply(game, boards[i], auxs[i], a)
                terminal[i], n_legal[i] = _refresh(game, boards[i], auxs[i], legal[i], goals[i])
            rng[i] = s
            if not terminal[i]:
                break
        _new_turn(table, parts, skip, legal[i], n_legal[i], chosen[i], stage, i)


@njit(cache=True, parallel=True)
def _choose_batch(game, table, parts, skip, idx, choices, boards, auxs, legal, n_legal, goals, terminal, chosen, stage):
    """Game ``idx[k]``'s mover makes choice ``choices[k]``: a cell when ``parts > 1`` (the game
    moves when the last cell is chosen), else a game action. The choices are legal."""
    for k in prange(idx.shape[0]):
        i = idx[k]
        c = choices[k]
        if parts > 1:
            chosen[i, stage[i]] = c
            stage[i] += 1
            if stage[i] < parts:
                continue
            c = complete_action(table, legal[i], n_legal[i], chosen[i], parts)
        _play(game, table, parts, skip, boards, auxs, legal, n_legal, goals, terminal, chosen, stage, i, c)


@njit(cache=True, parallel=True)
def _play_actions(game, table, parts, skip, idx, actions, boards, auxs, legal, n_legal, goals, terminal, chosen, stage):
    """Game ``idx[k]``'s mover plays the whole (legal) game action ``actions[k]``."""
    for k in prange(idx.shape[0]):
        i = idx[k]
        _play(game, table, parts, skip, boards, auxs, legal, n_legal, goals, terminal, chosen, stage, i, actions[k])


@njit(cache=True, parallel=True)
def _advance(
    game,
    table,
    parts,
    skip,
    idx,
    learner,
    codes,
    opp,
    rng,
    boards,
    auxs,
    legal,
    n_legal,
    goals,
    terminal,
    chosen,
    stage,
    scratch_b,
    scratch_x,
    waiting,
):
    """Play the built-in opponents' moves in games ``idx`` until the learner is to move or the
    game is over; ``waiting[i]`` is set where another opponent is to move."""
    for k in prange(idx.shape[0]):
        i = idx[k]
        waiting[i] = False
        while not terminal[i] and auxs[i, ROLE] != learner[i]:
            code = codes[opp[i]]
            if code == 2:
                waiting[i] = True
                break
            if code == 0:
                rng[i], a = random_legal(legal[i], n_legal[i], rng[i])
            else:
                rng[i], a = greedy_choice(
                    game, boards[i], auxs[i], legal[i], n_legal[i], rng[i], scratch_b[i], scratch_x[i]
                )
            _play(game, table, parts, skip, boards, auxs, legal, n_legal, goals, terminal, chosen, stage, i, a)


@njit(cache=True, parallel=True)
def _observe_games(game, parts, reach, idx, roles, boards, auxs, chosen, stage, view, base, extra, out):
    """The learner-format observation of game ``idx[k]`` from ``roles[k]``'s side into
    ``out[k]``: the board planes (of the stage's board), the reach planes if ``reach``,
    then one plane per cell chosen so far when ``parts > 1``."""
    planes = base.shape[3]
    w = out.shape[2]
    for k in prange(idx.shape[0]):
        i = idx[k]
        _stage_board(game, boards[i], chosen[i], stage[i], view[i])
        _observe(game, view[i], auxs[i], roles[k], base[i])
        out[k, :, :, :planes] = base[i]
        at = planes
        if reach:
            _reach_planes(game, view[i], roles[k], extra[i])
            out[k, :, :, at : at + 2] = extra[i]
            at += 2
        if parts > 1:
            out[k, :, :, at:] = 0
            for s in range(stage[i]):
                c = chosen[i, s]
                out[k, c // w, c % w, at + s] = 1


@njit(cache=True, parallel=True)
def _mask_games(table, parts, idx, legal, n_legal, terminal, chosen, stage, out):
    """The mask of game ``idx[k]``'s mover into ``out[k]``: the open cells of its stage
    (``parts > 1``) or its legal actions; all zeros where the game is over."""
    for k in prange(idx.shape[0]):
        i = idx[k]
        if terminal[i]:
            out[k, :] = 0
        elif parts > 1:
            stage_mask(table, legal[i], n_legal[i], chosen[i], stage[i], out[k])
        else:
            out[k, :] = 0
            for j in range(n_legal[i]):
                out[k, legal[i, j]] = 1


@njit(cache=True, parallel=True)
def _learner_rewards(game, kind, weight, idx, learner, boards, auxs, goals, terminal, chosen, stage, view, prev, out):
    """The learner's reward in game ``idx[k]`` since its last decision: the goal reward of
    the goals' change, plus ``weight`` times its potential's change (of the stage's board);
    then that decision's goals and potential become the new reference. ``prev`` holds, per
    game, its own goal, the opponent's goal and its weighted potential at the last decision."""
    for k in prange(idx.shape[0]):
        i = idx[k]
        me = learner[i]
        own, opp = goals[i, me], goals[i, 1 - me]
        ended = terminal[i]
        r = goal_reward(kind, prev[i, 0], prev[i, 1], own, opp, ended)
        phi = 0.0
        if weight != 0.0:
            _stage_board(game, boards[i], chosen[i], stage[i], view[i])
            phi = weight * mover_potential(game, view[i], auxs[i], me, ended)
            r += phi - prev[i, 2]
        prev[i, 0], prev[i, 1], prev[i, 2] = own, opp, phi
        out[k] = r


# ----------------------------------------------------------------------------- the API
def _opponent_code(opponent) -> int:
    if isinstance(opponent, str):
        if opponent not in BUILTIN_OPPONENTS:
            raise ValueError(
                f"unknown opponent {opponent!r}: the built-in ones are {', '.join(BUILTIN_OPPONENTS)}; "
                "others are objects with takes = 'observation' (act_batch) or 'state' (act_states)"
            )
        return BUILTIN_OPPONENTS[opponent]
    takes = getattr(opponent, "takes", None)
    method = {"observation": "act_batch", "state": "act_states"}.get(takes)
    if method is None or not callable(getattr(opponent, method, None)):
        raise TypeError(
            f"an opponent is 'random', 'greedy', or an object with takes = 'observation' and act_batch(obs, masks), "
            f"or takes = 'state' and act_states(boards, auxs); got {opponent!r}"
        )
    return _EXTERNAL


class SelfPlayGames:
    """``num_games`` games of env ``name``, the learner on one seat of each, opponents played
    in batches.

    Args:
        name: a ggpzoo env name (``ggpzoo.envs.ENVS``).
        num_games: the batch size N.
        reward: the learner's reward, one of `ggpzoo.engine.rewards.REWARD_KINDS`
            (as [`ggpzoo.wrappers.REWARDS`][ggpzoo.wrappers.REWARDS] names them).
        shaping: the weight of potential-based shaping (the game spec's potential; 0: none),
            as [`ggpzoo.wrappers.PotentialShaping`][ggpzoo.wrappers.PotentialShaping].
        decompose: each game action as cell choices, as the game spec's decomposition
            wrapper does; None: as the spec's ``decompose_by_default`` says.
        reach_planes: two more planes, as [`ggpzoo.wrappers.ReachPlanes`][ggpzoo.wrappers.ReachPlanes].
        opponents: the pool: ``"random"``, ``"greedy"`` or opponent objects (see the module).
        weights: the chance of each opponent (normalised); default equal.
        opening_plies: at the start of each episode, play a uniformly random number
            ``0..opening_plies`` of random actions first (diverse starting positions).
        seed: seeds the opponents, the openings and the pool draws.
    """

    def __init__(
        self,
        name: str,
        num_games: int,
        *,
        reward: str = "winloss",
        shaping: float = 0.0,
        decompose: bool | None = None,
        reach_planes: bool = False,
        opponents=("random",),
        weights=None,
        opening_plies: int = 0,
        seed: int | None = None,
    ):
        sp = self.spec = _spec(name)
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise ValueError(f"num_games must be a positive integer, got {num_games!r}")
        self.kind = reward_kind(reward)
        self.reward = reward
        if isinstance(shaping, bool) or not isinstance(shaping, (int, float)) or not np.isfinite(shaping):
            raise ValueError(f"shaping must be a finite number, got {shaping!r}")
        if shaping and sp.potential is None:
            raise ValueError(f"{name} has no potential to shape rewards with (shaping must be 0)")
        if reach_planes and sp.reach_planes is None:
            raise ValueError(f"{name} has no reach planes")
        if decompose is None:
            decompose = sp.decompose_by_default
        if decompose and sp.decomposition is None:
            raise ValueError(f"{name} has no turn decomposition")
        if isinstance(opening_plies, bool) or not isinstance(opening_plies, (int, np.integer)) or opening_plies < 0:
            raise ValueError(f"opening_plies must be a whole number >= 0, got {opening_plies!r}")
        self.name = name
        self.game = kernel_id(sp.kernel)
        self.variant = sp.variant
        self.weight = float(shaping)
        self.decompose = bool(decompose)
        self.reach = bool(reach_planes)
        self.opening_plies = int(opening_plies)
        self.parts = len(sp.action_parts) if self.decompose else 1
        # the cells each action names (also used undecomposed: then it is never read)
        self.table = action_cells(name)
        self.skip = self.decompose and self.parts == 2  # MoveDecomposition makes forced source choices
        self.num_games = n = int(num_games)
        self.num_actions = sp.num_cells if self.decompose else sp.num_actions
        planes = sp.num_planes + 2 * self.reach + (self.parts - 1)
        self.observation_shape = (sp.height, sp.width, planes)
        self.obs_dtype = np.dtype(sp.obs_dtype)
        self.boards = np.zeros((n, sp.num_cells), np.int8)
        self.auxs = np.zeros((n, sp.aux_size), np.int32)
        self.legal = np.zeros((n, sp.max_legal), np.int32)
        self.n_legal = np.zeros(n, np.int32)
        self.goals = np.zeros((n, 2), np.int64)
        self.terminal = np.ones(n, np.bool_)
        self.chosen = np.zeros((n, max(self.parts, 1)), np.int32)
        self.stage = np.zeros(n, np.int32)
        self.learner = (np.arange(n) % 2).astype(np.int32)
        self.opponent = np.zeros(n, np.int32)  # each game's index in the pool
        self._prev = np.zeros((n, 3), np.float64)  # learner's goal, opponent's goal, potential
        self._waiting = np.zeros(n, np.bool_)
        self._scratch_b = np.zeros_like(self.boards)
        self._scratch_x = np.zeros_like(self.auxs)
        self._view = np.zeros_like(self.boards)
        self._base = np.zeros((n, sp.height, sp.width, sp.num_planes), self.obs_dtype)
        self._extra = np.zeros((n, sp.height, sp.width, 2), self.obs_dtype)
        self._all = np.arange(n, dtype=np.int64)
        self.episodes = np.zeros(n, np.int64)  # episodes started per game
        self.opponents: list = []
        self._weights: list[float] = []
        self._codes = np.zeros(0, np.int32)
        self.set_opponents(opponents, weights)
        self.seed(seed)
        self._started = False

    # ------------------------------------------------------------------ opponents
    def set_opponents(self, opponents, weights=None) -> None:
        """Replace the pool; games draw from it at their next episode."""
        opponents = [opponents] if isinstance(opponents, str) or hasattr(opponents, "takes") else list(opponents)
        if not opponents:
            raise ValueError("the opponent pool is empty")
        codes = [_opponent_code(o) for o in opponents]
        if weights is None:
            weights = [1.0] * len(opponents)
        weights = [float(w) for w in weights]
        if len(weights) != len(opponents) or any(not np.isfinite(w) or w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(f"weights must be {len(opponents)} numbers >= 0, not all 0; got {weights!r}")
        self.opponents, self._weights = opponents, weights
        self._codes = np.array(codes, np.int32)

    def add_opponent(self, opponent, weight: float = 1.0, max_size: int | None = None, keep: int = 0) -> None:
        """Add ``opponent`` to the pool with ``weight``; with ``max_size``, drop the oldest
        opponent after the first ``keep`` (e.g. the fixed ones before the snapshots) while
        the pool is bigger. Games playing a dropped opponent switch at their next episode
        (until then they play the one now at its place)."""
        opponents, weights = self.opponents + [opponent], self._weights + [float(weight)]
        while max_size is not None and len(opponents) > max(max_size, keep + 1):
            del opponents[keep], weights[keep]
            self.opponent = np.where(self.opponent > keep, self.opponent - 1, self.opponent).astype(np.int32)
        self.set_opponents(opponents, weights)

    def seed(self, seed: int | None = None) -> None:
        """Reseed the opponents' and openings' randomness (``None``: from the OS)."""
        seed = int(np.random.SeedSequence().entropy % 2**63) if seed is None else _seed(seed)
        self._rng = np.random.default_rng(seed)
        self._streams = np.array([stream(seed, i) for i in range(self.num_games)], np.uint64)
        self.learner = (np.arange(self.num_games) % 2).astype(np.int32)
        self.episodes[:] = 0

    # ------------------------------------------------------------------ episodes
    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        """Start every game; the learner is to move in each. Returns ``(observations, masks)``."""
        self._start(self._all, first=True)
        self._started = True
        return self.observe(), self.action_masks()

    def _start(self, idx: np.ndarray, first: bool = False) -> None:
        if not first:
            self.learner[idx] ^= 1  # the other seat at every new episode
        self.episodes[idx] += 1
        p = np.asarray(self._weights) / sum(self._weights)
        self.opponent[idx] = self._rng.choice(len(p), size=len(idx), p=p)
        for _ in range(100):  # a start the opponent ends before the learner moves: again
            plies = self._rng.integers(0, self.opening_plies + 1, size=len(idx)).astype(np.int64)
            _reset_games(self.game, self.variant, self.table, self.parts, self.skip, idx, plies, self._streams,
                         self.boards, self.auxs, self.legal, self.n_legal, self.goals, self.terminal, self.chosen,
                         self.stage)  # fmt: skip
            self._reference(idx)
            self._advance(idx)
            idx = idx[self.terminal[idx]]
            if not len(idx):
                return
        raise RuntimeError(f"{self.name}: the opponent ends every game before the learner's first move")

    def _reference(self, idx: np.ndarray) -> None:
        """The learner's goals and potential now are where its rewards start counting."""
        self._prev[idx] = 0.0
        _learner_rewards(self.game, self.kind, self.weight, idx, self.learner, self.boards, self.auxs, self.goals,
                         self.terminal, self.chosen, self.stage, self._view, self._prev,
                         np.zeros(len(idx)))  # fmt: skip
        # the goals' part: goal_reward of no change is 0 before the end, so only the reference matters

    def _advance(self, idx: np.ndarray) -> None:
        """Play the opponents until the learner is to move (or the game is over) in games ``idx``."""
        while len(idx):
            _advance(self.game, self.table, self.parts, self.skip, idx, self.learner, self._codes, self.opponent,
                     self._streams, self.boards, self.auxs, self.legal, self.n_legal, self.goals, self.terminal,
                     self.chosen, self.stage, self._scratch_b, self._scratch_x, self._waiting)  # fmt: skip
            idx = idx[self._waiting[idx]]
            for k in np.unique(self.opponent[idx]):
                group = idx[self.opponent[idx] == k]
                self._opponent_moves(self.opponents[k], group)

    def _opponent_moves(self, opponent, idx: np.ndarray) -> None:
        """One decision of ``opponent`` in each game of ``idx`` (a cell or a whole action)."""
        if opponent.takes == "state":
            actions = np.asarray(opponent.act_states(self.boards[idx].copy(), self.auxs[idx].copy()))
            legal = np.array(
                [a in self.legal[i, : self.n_legal[i]] for i, a in zip(idx, actions.tolist(), strict=False)]
            )
            if actions.shape != (len(idx),) or not legal.all():
                raise ValueError(f"opponent {opponent!r} returned illegal game actions {actions!r}")
            _play_actions(self.game, self.table, self.parts, self.skip, idx, actions.astype(np.int32), self.boards,
                          self.auxs, self.legal, self.n_legal, self.goals, self.terminal, self.chosen,
                          self.stage)  # fmt: skip
            return
        obs = self._observe_rows(idx, self.auxs[idx, ROLE].astype(np.int32))
        masks = self._mask_rows(idx)
        actions = np.asarray(opponent.act_batch(obs, masks))
        self._check_choices(actions, masks, f"opponent {opponent!r}")
        _choose_batch(self.game, self.table, self.parts, self.skip, idx, actions.astype(np.int32), self.boards,
                      self.auxs, self.legal, self.n_legal, self.goals, self.terminal, self.chosen,
                      self.stage)  # fmt: skip

    @staticmethod
    def _check_choices(actions: np.ndarray, masks: np.ndarray, who: str) -> None:
        n, size = masks.shape
        if actions.shape != (n,) or not np.issubdtype(actions.dtype, np.integer):
            raise ValueError(
                f"{who}: actions must be an integer array of shape ({n},), got {actions.dtype} {actions.shape}"
            )
        bad = (actions < 0) | (actions >= size)
        if not bad.any():
            bad = masks[np.arange(n), actions] == 0
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"{who}: action {int(actions[k])} of game {k} is illegal (not in its action mask)")

    # ------------------------------------------------------------------ the learner's view
    def _observe_rows(self, idx: np.ndarray, roles: np.ndarray) -> np.ndarray:
        out = np.empty((len(idx), *self.observation_shape), self.obs_dtype)
        _observe_games(self.game, self.parts, self.reach, idx, roles, self.boards, self.auxs, self.chosen, self.stage,
                       self._view, self._base, self._extra, out)  # fmt: skip
        return out

    def _mask_rows(self, idx: np.ndarray) -> np.ndarray:
        out = np.empty((len(idx), self.num_actions), np.int8)
        _mask_games(self.table, self.parts, idx, self.legal, self.n_legal, self.terminal, self.chosen, self.stage, out)
        return out

    def observe(self) -> np.ndarray:
        """The learner's observation in every game ``(N, H, W, C)``."""
        self._require_reset()
        return self._observe_rows(self._all, self.learner)

    def action_masks(self) -> np.ndarray:
        """The learner's int8 mask in every game ``(N, num_actions)`` (cells when decomposed)."""
        self._require_reset()
        return self._mask_rows(self._all)

    def _require_reset(self) -> None:
        if not self._started:
            raise RuntimeError("no games yet: call reset() first")

    # ------------------------------------------------------------------ steps
    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play the learner's ``actions`` (one per game, legal under
        [`action_masks()`][ggpzoo.engine.selfplay.SelfPlayGames.action_masks]), then the opponents' replies; games that
        end start again.

        Returns ``(observations, rewards, ended, info)``: the next observations (of the new
        episode where one ended), the learner's float32 rewards, the bool array of the games
        that ended on this step, and ``info`` with, for the games that ended,
        ``final_observation`` (the learner's view of the end), ``goals`` (white, black),
        ``learner`` (its role) and ``outcome`` (+1 win, 0 draw, -1 loss by the goals), each
        an array over all games (zeros elsewhere). An illegal action raises ValueError and
        changes nothing.
        """
        self._require_reset()
        try:
            actions = np.asarray(actions)
        except (OverflowError, TypeError, ValueError):
            actions = np.asarray(None)
        if actions.ndim == 2 and actions.shape[1] == 1:  # SB3 may pass (N, 1)
            actions = actions[:, 0]
        self._check_choices(actions, self.action_masks(), "learner")
        idx = self._all
        _choose_batch(self.game, self.table, self.parts, self.skip, idx, actions.astype(np.int32), self.boards,
                      self.auxs, self.legal, self.n_legal, self.goals, self.terminal, self.chosen,
                      self.stage)  # fmt: skip
        self._advance(idx)
        rewards = np.zeros(self.num_games, np.float64)
        _learner_rewards(self.game, self.kind, self.weight, idx, self.learner, self.boards, self.auxs, self.goals,
                         self.terminal, self.chosen, self.stage, self._view, self._prev, rewards)  # fmt: skip
        ended = self.terminal.copy()
        info = {}
        if ended.any():
            done = np.flatnonzero(ended)
            final = np.zeros((self.num_games, *self.observation_shape), self.obs_dtype)
            final[done] = self._observe_rows(done, self.learner[done])
            goals = np.where(ended[:, None], self.goals, 0)
            learner = self.learner.copy()
            me = goals[self._all, learner]
            other = goals[self._all, 1 - learner]
            info = {
                "final_observation": final,
                "goals": goals,
                "learner": learner,
                "outcome": np.where(ended, np.sign(me - other), 0).astype(np.int8),
                "opponent": self.opponent.copy(),
            }
            self._start(done)
        return self.observe(), rewards.astype(np.float32), ended, info
