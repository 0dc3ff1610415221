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

from typing import NamedTuple

import numpy as np
from numba import njit, prange

from ggpzoo.engine.dispatch import (
    OVER,
    PROPNET,
    SIMULTANEOUS,
    observation,
    role_legal,
    start,
    status,
    step,
    step_joint,
)
from ggpzoo.engine.dispatch import reach_planes as _reach_planes
from ggpzoo.engine.dispatch import stage_board as _stage_board
from ggpzoo.engine.policies import greedy_choice
from ggpzoo.engine.rewards import goal_reward, mover_potential, reward_kind
from ggpzoo.engine.rng import next_random, random_legal, stream
from ggpzoo.engine.turns import action_cells, complete_action, forced_choices, stage_mask
from ggpzoo.envs import spec as _spec
from ggpzoo.envs.gamespec import ROLE, STEP, GameSpec
from ggpzoo.envs.propnet.kernel import ERRORS

__all__ = ["SelfPlayGames", "BUILTIN_OPPONENTS", "check_seed"]

BUILTIN_OPPONENTS = {"random": 0, "greedy": 1}
_EXTERNAL = 2
# The table of cells of an undecomposed game (never read), read-only as the games' tables are.
_NO_CELLS = np.zeros((1, 1), np.int32)
_NO_CELLS.flags.writeable = False


def check_seed(seed) -> int:
    """``seed`` as an int in 0..2**63 - 1, or a one-line ValueError (no bools, floats or negatives)."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise ValueError(f"seed must be an integer in 0..2**63 - 1, got {seed!r}")
    return int(seed)


class Games(NamedTuple):
    """The per-game arrays of a batch, one row per game (numba takes the tuple as it is)."""

    boards: np.ndarray  # int8 (N, board_size)
    auxs: np.ndarray  # int32 (N, aux_size)
    W: np.ndarray  # int32 (N, work): each game's work area (empty rows for a hand-written kernel)
    legal: np.ndarray  # int32 (N, max_legal): the legal ids of the role to choose (the learner's where both choose)
    n_legal: np.ndarray  # int32 (N,): how many
    opp_legal: np.ndarray  # int32 (N, max_legal): the opponent's legal ids where both choose
    n_opp: np.ndarray  # int32 (N,)
    goals: np.ndarray  # int64 (N, 2): every role's goal now
    state: np.ndarray  # int32 (N,): the protocol's status (a legal count, OVER, SIMULTANEOUS, an error code)
    terminal: np.ndarray  # bool (N,): over (by the rules, the step cap, or an error)
    truncated: np.ndarray  # bool (N,): ... by the step cap
    codes: np.ndarray  # int32 (N,): a sheet's error code, 0 if none
    chosen: np.ndarray  # int32 (N, parts): the cells chosen so far in a decomposed turn
    stage: np.ndarray  # int32 (N,): how many
    ids: np.ndarray  # int32 (N, 2): a joint move's scratch


# ----------------------------------------------------------------------------- one game
@njit(cache=True)
def _refresh(game, T, g, i, learner, max_steps):
    """Game ``i``'s status after a move: its goals, its legal lists (the role to choose's, or
    the learner's and the opponent's where both choose), whether it is over (by the rules,
    by ``max_steps`` joint moves when > 0, or by a sheet's error)."""
    st = status(game, g.boards[i], g.auxs[i], T, g.W[i], g.legal[i], g.goals[i])
    n, m, trunc = st, 0, False
    if st == SIMULTANEOUS:
        n = role_legal(game, g.boards[i], g.auxs[i], T, g.W[i], learner, g.legal[i])
        m = role_legal(game, g.boards[i], g.auxs[i], T, g.W[i], 1 - learner, g.opp_legal[i])
    if st >= SIMULTANEOUS and st != OVER and max_steps > 0 and g.auxs[i, STEP] >= max_steps:
        st, trunc = OVER, True
    if st < 0 and st != SIMULTANEOUS:
        n = 0
    g.state[i] = st
    g.n_legal[i] = n
    g.n_opp[i] = m
    g.terminal[i] = st == OVER or st < SIMULTANEOUS
    g.truncated[i] = trunc
    g.codes[i] = st if st < SIMULTANEOUS else 0


@njit(cache=True)
def _fail(g, i, code):
    g.state[i] = code
    g.codes[i] = code
    g.terminal[i] = True
    g.n_legal[i] = 0


@njit(cache=True)
def _new_turn(table, parts, skip, g, i):
    g.stage[i] = 0
    if skip and parts > 1:
        g.stage[i] = forced_choices(table, g.legal[i], g.n_legal[i], g.chosen[i], 0, parts)


@njit(cache=True)
def _play(game, T, table, parts, skip, g, i, a, b, learner, max_steps):
    """Play in game ``i``: action ``a`` of the role to choose, or where both choose the joint
    move of the learner's ``a`` and the opponent's ``b``; then start the next turn's choices."""
    if g.state[i] == SIMULTANEOUS:
        g.ids[i, learner] = a
        g.ids[i, 1 - learner] = b
        code = step_joint(game, g.boards[i], g.auxs[i], T, g.W[i], g.ids[i])
    else:
        code = step(game, g.boards[i], g.auxs[i], T, g.W[i], a)
    if code != 0:
        _fail(g, i, code)
        return
    _refresh(game, T, g, i, learner, max_steps)
    _new_turn(table, parts, skip, g, i)


@njit(cache=True)
def _score(goals, role, over):
    """What a greedy choice maximises: ``role``'s goal minus the other's, 1000 more (less)
    for a game it ends ahead (behind)."""
    score = goals[role] - goals[1 - role]
    if score != 0 and over:
        score += 1000 if score > 0 else -1000
    return score


@njit(cache=True)
def _greedy(game, T, g, i, s, learner, sb, sx, sw, sl, sg):
    """Greedy's choice in game ``i`` for the role to choose (ties at random): the action with
    the best `_score()` one move ahead; where both roles choose, the opponent's action with the
    best sum of scores over the learner's replies (its expectation against a uniform one).
    Returns ``(new random state, action)``. A hand-written kernel's choice is
    `ggpzoo.engine.policies.greedy_choice()` (which reads goals and the end without listing the
    legal moves after each candidate)."""
    if game != PROPNET and g.state[i] != SIMULTANEOUS:
        return greedy_choice(game, g.boards[i], g.auxs[i], g.legal[i], g.n_legal[i], s, sb[i], sx[i])
    both = g.state[i] == SIMULTANEOUS
    role = 1 - learner if both else g.auxs[i, ROLE]
    mine = g.opp_legal[i] if both else g.legal[i]
    n = g.n_opp[i] if both else g.n_legal[i]
    replies = g.n_legal[i] if both else 1
    best, ties, choice = -(2**62), 0, mine[0]
    for j in range(n):
        total = 0
        for k in range(replies):
            sb[i, :] = g.boards[i]
            sx[i, :] = g.auxs[i]
            status(game, sb[i], sx[i], T, sw[i], sl[i], sg[i])  # the scratch work area at this board
            if both:
                g.ids[i, role] = mine[j]
                g.ids[i, 1 - role] = g.legal[i, k]
                code = step_joint(game, sb[i], sx[i], T, sw[i], g.ids[i])
            else:
                code = step(game, sb[i], sx[i], T, sw[i], mine[j])
            st = status(game, sb[i], sx[i], T, sw[i], sl[i], sg[i]) if code == 0 else code
            if st < SIMULTANEOUS:  # a sheet's error: never chosen while another action is left
                total -= 10**9
            else:
                total += _score(sg[i], role, st == OVER)
        if total > best:
            best, ties, choice = total, 1, mine[j]
        elif total == best:
            ties += 1  # reservoir sampling: a uniform choice among the ties
            s, r = next_random(s)
            if np.int64((r * np.uint64(ties)) >> np.uint64(32)) == 0:
                choice = mine[j]
    return s, choice


@njit(cache=True)
def _reset_one(game, variant, T, table, parts, skip, g, i, plies, rng, learner, max_steps):
    """Start game ``i`` anew, with ``plies`` uniformly random moves played first (fewer if the
    game would end; none if it did)."""
    for attempt in range(2):
        code = start(game, g.boards[i], g.auxs[i], T, g.W[i], variant)
        if code != 0:
            _fail(g, i, code)
            break
        _refresh(game, T, g, i, learner, max_steps)
        if attempt == 1 or g.codes[i] != 0:
            break
        s = rng[i]
        for _ in range(plies):
            if g.terminal[i]:
                break
            s, a = random_legal(g.legal[i], g.n_legal[i], s)
            b = 0
            if g.state[i] == SIMULTANEOUS:
                s, b = random_legal(g.opp_legal[i], g.n_opp[i], s)
            _play(game, T, table, parts, skip, g, i, a, b, learner, max_steps)
        rng[i] = s
        if not g.terminal[i] or g.codes[i] != 0:
            break
    _new_turn(table, parts, skip, g, i)


@njit(cache=True)
def _choose_one(game, T, table, parts, skip, whole, g, i, c, reply, learner, max_steps):
    """Game ``i``'s learner or opponent makes choice ``c``: a cell when ``parts > 1`` and not
    ``whole`` (the game moves when the last cell is chosen), else a game action; where both
    roles choose, ``c`` is the learner's and ``reply`` the opponent's. The choices are legal."""
    if parts > 1 and not whole:
        g.chosen[i, g.stage[i]] = c
        g.stage[i] += 1
        if g.stage[i] < parts:
            return
        c = complete_action(table, g.legal[i], g.n_legal[i], g.chosen[i], parts)
    _play(game, T, table, parts, skip, g, i, c, reply, learner, max_steps)


@njit(cache=True)
def _advance_one(game, T, table, parts, skip, g, i, learner, code, rng, max_steps, scratch):
    """Play game ``i``'s built-in opponent (``code``) until the learner is to choose (alone or
    with the opponent) or the game is over; returns True where another opponent is to move."""
    sb, sx, sw, sl, sg = scratch
    while not g.terminal[i] and g.state[i] != SIMULTANEOUS and g.auxs[i, ROLE] != learner:
        if code == _EXTERNAL:
            return True
        if code == 0:
            rng[i], a = random_legal(g.legal[i], g.n_legal[i], rng[i])
        else:
            rng[i], a = _greedy(game, T, g, i, rng[i], learner, sb, sx, sw, sl, sg)
        _play(game, T, table, parts, skip, g, i, a, 0, learner, max_steps)
    return False


@njit(cache=True)
def _reply_one(game, T, g, i, learner, code, rng, scratch):
    """Game ``i``'s built-in opponent's choice where both roles choose (-1 for another opponent)."""
    sb, sx, sw, sl, sg = scratch
    a = -1
    if code == 0:
        rng[i], a = random_legal(g.opp_legal[i], g.n_opp[i], rng[i])
    elif code == 1:
        rng[i], a = _greedy(game, T, g, i, rng[i], learner, sb, sx, sw, sl, sg)
    return a


@njit(cache=True)
def _observe_one(game, T, parts, reach, g, i, role, view, base, extra, out):
    """The learner-format observation of game ``i`` from ``role``'s side into ``out``: the
    board planes (of the stage's board), the reach planes if ``reach``, then one plane per
    cell chosen so far when ``parts > 1``."""
    planes = base.shape[2]
    w = out.shape[1]
    _stage_board(game, g.boards[i], g.chosen[i], g.stage[i], view)
    observation(game, view, g.auxs[i], T, role, base)
    out[:, :, :planes] = base
    at = planes
    if reach:
        _reach_planes(game, view, role, extra)
        out[:, :, at : at + 2] = extra
        at += 2
    if parts > 1:
        out[:, :, at:] = 0
        for s in range(g.stage[i]):
            c = g.chosen[i, s]
            out[c // w, c % w, at + s] = 1


@njit(cache=True)
def _mask_one(table, parts, replies, g, i, out):
    """The mask of game ``i``'s chooser into ``out``: the open cells of its stage (``parts >
    1``) or its legal actions (with ``replies``, the opponent's where both roles choose); all
    zeros where the game is over."""
    out[:] = 0
    if g.terminal[i]:
        return
    if parts > 1:
        stage_mask(table, g.legal[i], g.n_legal[i], g.chosen[i], g.stage[i], out)
    elif replies:
        for j in range(g.n_opp[i]):
            out[g.opp_legal[i, j]] = 1
    else:
        for j in range(g.n_legal[i]):
            out[g.legal[i, j]] = 1


@njit(cache=True)
def _reward_one(game, kind, weight, g, i, learner, view, prev):
    """The learner's reward in game ``i`` since its last decision: the goal reward of the
    goals' change, plus ``weight`` times its potential's change (of the stage's board); then
    that decision's goals and potential become the new reference. ``prev`` holds its own goal,
    the opponent's goal and its weighted potential at the last decision. A game cut by the
    step cap has not ended by the rules."""
    own, opp = g.goals[i, learner], g.goals[i, 1 - learner]
    ended = g.terminal[i] and not g.truncated[i]
    r = goal_reward(kind, prev[0], prev[1], own, opp, ended)
    phi = 0.0
    if weight != 0.0:
        _stage_board(game, g.boards[i], g.chosen[i], g.stage[i], view)
        phi = weight * mover_potential(game, view, g.auxs[i], learner, ended)
        r += phi - prev[2]
    prev[0], prev[1], prev[2] = own, opp, phi
    return r


# ----------------------------------------------------------------------------- batches
# Each loop runs its games in parallel threads, one per-game function call each (numba drops
# writes made through the tuple ``g`` in a parallel loop's own body: they go in the callees).
@njit(cache=True, parallel=True)
def _reset_games(game, variant, T, table, parts, skip, idx, plies, rng, learner, max_steps, g):
    for k in prange(idx.shape[0]):
        i = idx[k]
        _reset_one(game, variant, T, table, parts, skip, g, i, plies[k], rng, learner[i], max_steps)


@njit(cache=True, parallel=True)
def _choose_batch(game, T, table, parts, skip, whole, idx, choices, replies, learner, max_steps, g):
    for k in prange(idx.shape[0]):
        i = idx[k]
        _choose_one(game, T, table, parts, skip, whole, g, i, choices[k], replies[k], learner[i], max_steps)


@njit(cache=True, parallel=True)
def _advance(game, T, table, parts, skip, idx, learner, codes, opp, rng, max_steps, g, scratch, waiting):
    for k in prange(idx.shape[0]):
        i = idx[k]
        waiting[i] = _advance_one(game, T, table, parts, skip, g, i, learner[i], codes[opp[i]], rng, max_steps, scratch)


@njit(cache=True, parallel=True)
def _replies(game, T, idx, learner, codes, opp, rng, g, scratch, waiting, out):
    for k in prange(idx.shape[0]):
        i = idx[k]
        waiting[i] = codes[opp[i]] == _EXTERNAL
        out[k] = _reply_one(game, T, g, i, learner[i], codes[opp[i]], rng, scratch)


@njit(cache=True, parallel=True)
def _observe_games(game, T, parts, reach, idx, roles, g, view, base, extra, out):
    for k in prange(idx.shape[0]):
        i = idx[k]
        _observe_one(game, T, parts, reach, g, i, roles[k], view[i], base[i], extra[i], out[k])


@njit(cache=True, parallel=True)
def _mask_games(table, parts, idx, replies, g, out):
    for k in prange(idx.shape[0]):
        _mask_one(table, parts, replies, g, idx[k], out[k])


@njit(cache=True, parallel=True)
def _learner_rewards(game, kind, weight, idx, learner, g, view, prev, out):
    for k in prange(idx.shape[0]):
        i = idx[k]
        out[k] = _reward_one(game, kind, weight, g, i, learner[i], view[i], prev[i])


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
            f"or takes = 'state' and act_states(boards, auxs, roles); got {opponent!r}"
        )
    return _EXTERNAL


def _whole(x, what: str, low: int) -> int:
    if isinstance(x, (bool, np.bool_)) or not isinstance(x, (int, np.integer)) or x < low:
        raise ValueError(f"{what} must be an integer >= {low}, got {x!r}")
    return int(x)


class SelfPlayGames:
    """``num_games`` games of a two-role game, the learner on one seat of each, opponents
    played in batches.

    Args:
        name: a ggpzoo env name (``ggpzoo.envs.ENVS``), ``gdl:SHEET`` (a GDL game), or a
            [`GameSpec`][ggpzoo.envs.gamespec.GameSpec]: any game with two roles.
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
            ``0..opening_plies`` of random moves first (diverse starting positions).
        seed: seeds the opponents, the openings and the pool draws.
        max_steps: a game still running after this many moves (``aux[STEP]``: a sheet's joint
            moves, forced ones included) is cut: it ends truncated, and the ``winloss`` and
            ``goal`` rewards pay nothing for it; None: no cap (a GDL sheet's games need not end:
            [`ggpzoo.training.selfplay`][ggpzoo.training.selfplay] caps them at
            `ggpzoo.tools.arena.GDL_MAX_STEPS`).

    Shaping, decomposition and reach planes are training aids of the hand-written games (a
    spec without one refuses the option). In a GDL game the roles may choose at once: the
    learner then chooses from its own legal moves, and the opponent, blind to that choice,
    from its own.
    """

    def __init__(
        self,
        name,
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
        max_steps: int | None = None,
    ):
        sp = self.spec = name if isinstance(name, GameSpec) else _spec(name)
        name = sp.name
        if sp.num_roles != 2:
            raise ValueError(f"self-play needs a game of two roles; {name} has {', '.join(sp.agents)}")
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
        self.max_steps = 0 if max_steps is None else _whole(max_steps, "max_steps", 1)
        self.name = name
        self.game = sp.kernel_id
        self.variant = sp.variant
        self.T = sp.tables
        self.weight = float(shaping)
        self.decompose = bool(decompose)
        self.reach = bool(reach_planes)
        self.opening_plies = int(opening_plies)
        self.parts = len(sp.action_parts) if self.decompose else 1
        # the cells each action names (read only when decomposed)
        self.table = action_cells(name) if self.decompose else _NO_CELLS
        self.skip = self.decompose and self.parts == 2  # MoveDecomposition makes forced source choices
        self.num_games = n = int(num_games)
        self.num_actions = sp.num_cells if self.decompose else sp.num_actions
        h, w, planes = sp.planes_shape
        self._planes = (h, w, planes + 2 * self.reach + (self.parts - 1))
        # the user's shape: the spec's, or the planes with the aids' planes added
        self.observation_shape = sp.obs_shape if self._planes == sp.planes_shape else self._planes
        self.obs_dtype = np.dtype(sp.obs_dtype)
        work = sp.work()
        self.g = Games(
            boards=np.zeros((n, sp.board_size), np.int8),
            auxs=np.zeros((n, sp.aux_size), np.int32),
            W=np.tile(work, (n, 1)),
            legal=np.zeros((n, sp.max_legal), np.int32),
            n_legal=np.zeros(n, np.int32),
            opp_legal=np.zeros((n, sp.max_legal), np.int32),
            n_opp=np.zeros(n, np.int32),
            goals=np.zeros((n, 2), np.int64),
            state=np.full(n, OVER, np.int32),
            terminal=np.ones(n, np.bool_),
            truncated=np.zeros(n, np.bool_),
            codes=np.zeros(n, np.int32),
            chosen=np.zeros((n, max(self.parts, 1)), np.int32),
            stage=np.zeros(n, np.int32),
            ids=np.zeros((n, 2), np.int32),
        )
        self.boards, self.auxs, self.goals, self.terminal = self.g.boards, self.g.auxs, self.g.goals, self.g.terminal
        self.learner = (np.arange(n) % 2).astype(np.int32)
        self.opponent = np.zeros(n, np.int32)  # each game's index in the pool
        self._prev = np.zeros((n, 3), np.float64)  # learner's goal, opponent's goal, potential
        self._waiting = np.zeros(n, np.bool_)
        # greedy's scratch: a board, aux, work area, legal list and goals per game
        self._scratch = (
            np.zeros_like(self.g.boards),
            np.zeros_like(self.g.auxs),
            self.g.W.copy(),  # a work area (status brings it to any board from a valid one)
            np.zeros_like(self.g.legal),
            np.zeros_like(self.g.goals),
        )
        self._view = np.zeros_like(self.g.boards)
        self._base = np.zeros((n, *sp.planes_shape), self.obs_dtype)
        self._extra = np.zeros((n, h, w, 2), self.obs_dtype)
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
        try:
            weights = [float(w) for w in weights]
        except (TypeError, ValueError):
            raise ValueError(f"weights must be {len(opponents)} numbers >= 0, not all 0; got {weights!r}") from None
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
        """Reseed the opponents' and openings' randomness (``None``: from the OS); seats start
        over (the learner is the first role in even games). A seed that is not None or an
        integer in 0..2**63 - 1 raises ValueError."""
        seed = int(np.random.SeedSequence().entropy % 2**63) if seed is None else check_seed(seed)
        self._rng = np.random.default_rng(seed)
        self._streams = np.array([stream(seed, i) for i in range(self.num_games)], np.uint64)
        self.learner = (np.arange(self.num_games) % 2).astype(np.int32)
        self.episodes[:] = 0

    # ------------------------------------------------------------------ episodes
    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        """Start every game; the learner is to choose in each. Returns ``(observations, masks)``."""
        self._started = False
        self._start(self._all, first=True)
        self._started = True
        return self.observe(), self.action_masks()

    def _check(self) -> None:
        """A sheet's error in some game (its network overflowed, a legal move outside its action
        space, an endless run of forced moves): RuntimeError naming it; every game must restart."""
        bad = np.flatnonzero(self.g.codes)
        if len(bad):
            i, code = int(bad[0]), int(self.g.codes[bad[0]])
            self._started = False
            raise RuntimeError(f"{self.name}: game {i}: {ERRORS.get(code + 10, f'error {code}')}; call reset()")

    def _start(self, idx: np.ndarray, first: bool = False) -> None:
        if not first:
            self.learner[idx] ^= 1  # the other seat at every new episode
        self.episodes[idx] += 1
        p = np.asarray(self._weights) / sum(self._weights)
        self.opponent[idx] = self._rng.choice(len(p), size=len(idx), p=p)
        for _ in range(100):  # a start the opponent ends before the learner moves: again
            plies = self._rng.integers(0, self.opening_plies + 1, size=len(idx)).astype(np.int64)
            _reset_games(self.game, self.variant, self.T, self.table, self.parts, self.skip, idx, plies, self._streams,
                         self.learner, self.max_steps, self.g)  # fmt: skip
            self._check()
            self._reference(idx)
            self._advance(idx)
            idx = idx[self.g.terminal[idx]]
            if not len(idx):
                return
        raise RuntimeError(f"{self.name}: the opponent ends every game before the learner's first move")

    def _reference(self, idx: np.ndarray) -> None:
        """The learner's goals and potential now are where its rewards start counting."""
        self._prev[idx] = 0.0
        _learner_rewards(self.game, self.kind, self.weight, idx, self.learner, self.g, self._view, self._prev,
                         np.zeros(len(idx)))  # fmt: skip
        # the goals' part: goal_reward of no change is 0 before the end, so only the reference matters

    def _advance(self, idx: np.ndarray) -> None:
        """Play the opponents until the learner is to choose (or the game is over) in games ``idx``."""
        while len(idx):
            _advance(self.game, self.T, self.table, self.parts, self.skip, idx, self.learner, self._codes,
                     self.opponent, self._streams, self.max_steps, self.g, self._scratch, self._waiting)  # fmt: skip
            self._check()
            idx = idx[self._waiting[idx]]
            for k in np.unique(self.opponent[idx]):
                group = idx[self.opponent[idx] == k]
                self._opponent_moves(self.opponents[k], group)

    def _opponent_moves(self, opponent, idx: np.ndarray) -> None:
        """One decision of ``opponent`` in each game of ``idx`` (a cell or a whole action)."""
        g = self.g
        if opponent.takes == "state":
            actions = self._state_choices(opponent, idx, g.auxs[idx, ROLE], g.legal, g.n_legal)
            self._choose(idx, actions, actions, whole=True)
            return
        obs = self._observe_rows(idx, g.auxs[idx, ROLE].astype(np.int32))
        masks = self._mask_rows(idx)
        actions = np.asarray(opponent.act_batch(obs, masks))
        self._check_choices(actions, masks, f"opponent {opponent!r}")
        self._choose(idx, actions.astype(np.int32), actions.astype(np.int32))

    def _choose(self, idx: np.ndarray, choices: np.ndarray, replies: np.ndarray, whole: bool = False) -> None:
        """Play ``choices`` (cells, or game actions if ``whole``) and, where both roles choose,
        the opponent's ``replies`` in games ``idx``."""
        _choose_batch(self.game, self.T, self.table, self.parts, self.skip, whole, idx, choices, replies, self.learner,
                      self.max_steps, self.g)  # fmt: skip
        self._check()

    def _state_choices(self, opponent, idx, roles, legal, n_legal) -> np.ndarray:
        """A state opponent's whole actions for ``roles`` in games ``idx``, checked against ``legal``."""
        g = self.g
        roles = np.asarray(roles, np.int32)
        actions = np.asarray(opponent.act_states(g.boards[idx].copy(), g.auxs[idx].copy(), roles.copy()))
        ok = actions.shape == (len(idx),) and np.issubdtype(actions.dtype, np.integer)
        if ok:
            ok = all(a in legal[i, : n_legal[i]] for i, a in zip(idx.tolist(), actions.tolist(), strict=True))
        if not ok:
            raise ValueError(f"opponent {opponent!r} returned illegal game actions {actions!r}")
        return actions.astype(np.int32)

    def _replies(self, idx: np.ndarray) -> np.ndarray:
        """The opponents' choices in games ``idx``, where both roles choose (blind to the learner's)."""
        g = self.g
        out = np.zeros(len(idx), np.int32)
        _replies(self.game, self.T, idx, self.learner, self._codes, self.opponent, self._streams, g, self._scratch,
                 self._waiting, out)  # fmt: skip
        self._check()
        rows = np.flatnonzero(self._waiting[idx])
        for k in np.unique(self.opponent[idx[rows]]):
            at = rows[self.opponent[idx[rows]] == k]
            opponent, group = self.opponents[k], idx[at]
            roles = (1 - self.learner[group]).astype(np.int32)
            if opponent.takes == "state":
                out[at] = self._state_choices(opponent, group, roles, g.opp_legal, g.n_opp)
            else:
                masks = self._mask_rows(group, replies=True)
                actions = np.asarray(opponent.act_batch(self._observe_rows(group, roles), masks))
                self._check_choices(actions, masks, f"opponent {opponent!r}")
                out[at] = actions
        return out

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
        out = np.empty((len(idx), *self._planes), self.obs_dtype)
        _observe_games(self.game, self.T, self.parts, self.reach, idx, roles, self.g, self._view, self._base,
                       self._extra, out)  # fmt: skip
        return out.reshape(len(idx), *self.observation_shape)

    def _mask_rows(self, idx: np.ndarray, replies: bool = False) -> np.ndarray:
        out = np.empty((len(idx), self.num_actions), np.int8)
        _mask_games(self.table, self.parts, idx, replies, self.g, out)
        return out

    def observe(self) -> np.ndarray:
        """The learner's observation in every game ``(N, *observation_shape)``."""
        self._require_reset()
        return self._observe_rows(self._all, self.learner)

    def action_masks(self) -> np.ndarray:
        """The learner's int8 mask in every game ``(N, num_actions)`` (cells when decomposed)."""
        self._require_reset()
        return self._mask_rows(self._all)

    @property
    def truncated(self) -> np.ndarray:
        """Which games were cut by ``max_steps`` (where ``terminal``)."""
        return self.g.truncated

    def _require_reset(self) -> None:
        if not self._started:
            raise RuntimeError("no games yet (or a game's error stopped them): call reset() first")

    # ------------------------------------------------------------------ steps
    def step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict]:
        """Play the learner's ``actions`` (one per game, legal under
        [`action_masks()`][ggpzoo.engine.selfplay.SelfPlayGames.action_masks]), then the opponents' replies; games that
        end start again.

        Returns ``(observations, rewards, ended, info)``: the next observations (of the new
        episode where one ended), the learner's float32 rewards, the bool array of the games
        that ended on this step (by the rules or cut by ``max_steps``), and ``info`` with, for
        the games that ended, ``final_observation`` (the learner's view of the end), ``goals``
        (per role), ``learner`` (its role), ``outcome`` (+1 win, 0 draw, -1 loss by the goals),
        ``truncated`` (cut by ``max_steps``) and ``opponent`` (its index in the pool), each an
        array over all games (zeros elsewhere). An illegal action raises ValueError and changes
        nothing.
        """
        self._require_reset()
        try:
            actions = np.asarray(actions)
        except (OverflowError, TypeError, ValueError):
            actions = np.asarray(None)
        if actions.ndim == 2 and actions.shape[1] == 1:  # SB3 may pass (N, 1)
            actions = actions[:, 0]
        self._check_choices(actions, self.action_masks(), "learner")
        g, idx = self.g, self._all
        replies = np.zeros(self.num_games, np.int32)
        both = np.flatnonzero(g.state == SIMULTANEOUS)
        if len(both):
            replies[both] = self._replies(both)
        self._choose(idx, actions.astype(np.int32), replies)
        self._advance(idx)
        rewards = np.zeros(self.num_games, np.float64)
        _learner_rewards(self.game, self.kind, self.weight, idx, self.learner, g, self._view, self._prev, rewards)
        ended = g.terminal.copy()
        info = {}
        if ended.any():
            done = np.flatnonzero(ended)
            final = np.zeros((self.num_games, *self.observation_shape), self.obs_dtype)
            final[done] = self._observe_rows(done, self.learner[done])
            goals = np.where(ended[:, None], g.goals, 0)
            learner = self.learner.copy()
            me = goals[self._all, learner]
            other = goals[self._all, 1 - learner]
            info = {
                "final_observation": final,
                "goals": goals,
                "learner": learner,
                "outcome": np.where(ended, np.sign(me - other), 0).astype(np.int8),
                "truncated": g.truncated & ended,
                "opponent": self.opponent.copy(),
            }
            self._start(done)
        return self.observe(), rewards.astype(np.float32), ended, info
