"""Every rules kernel behind one set of numba functions that switch on a kernel id.

Code that must work for any game inside numba (the batched engine, search agents) calls
these: ``init(game, board, aux, variant)``, ``legal_actions(game, board, aux, out)``,
``apply``, ``is_terminal``, ``goals``, ``observe`` and ``check_state``, with the kernel
protocol of `ggpzoo.envs.base`, and the training aids the kernels hold
(``potential``, ``reach_planes``, ``feature_planes``, ``stage_board``: no rules, but one copy of each, shared
by the AEC wrappers and the batched self-play env); ``game`` is the id of a spec's kernel,
`kernel_id()`. Each is one numba function with one explicit branch per kernel, every
kernel a constant, so that it is compiled once and cached (kernels passed as arguments or
captured in closures are recompiled in every process, and numba's cache only notices
changes to this file: hence the explicit list). An unknown id raises ``ValueError``.

A new kernel family joins ``KERNELS`` and gets one branch in each function below;
``tests/test_engine.py`` checks every dispatcher against the direct kernel call for every
registered game.

**One protocol for every game.** The fourth family, [`PROPNET`][ggpzoo.engine.dispatch.PROPNET], is the table
interpreter of [`ggpzoo.envs.propnet.kernel`][ggpzoo.envs.propnet.kernel]: it plays every compiled GDL sheet, whose
network it takes as the read-only tables ``T`` and one game's work area ``W`` (plain int32
arrays, `ggpzoo.gdl.propnet.Propnet.work()`), so that every sheet runs the same cached
machine code. The functions of the game protocol take ``(game, board, aux, T, W)`` for any
family (``T`` and ``W`` empty for the hand-written kernels, [`NO_TABLES`][ggpzoo.engine.dispatch.NO_TABLES]):

* ``start(game, board, aux, T, W, variant)``: the start position;
* ``status(game, board, aux, T, W, legal, goals)``: writes every role's goal into ``goals``
  and returns the number of legal actions of the role to choose (``aux[ROLE]``; into
  ``legal``, ascending), `OVER`, or `SIMULTANEOUS` where several roles choose at
  once (a GDL sheet's simultaneous moves);
* ``step(game, board, aux, T, W, action)``: that role plays ``action``;
* ``role_legal(game, board, aux, T, W, role, out)`` and ``step_joint(game, board, aux, T,
  W, ids)``: one role's legal actions, and a joint move (one action per role), for
  simultaneous states;
* ``playout(game, board, aux, T, W, n, legal, goals, rl, counts, ids, s, max_steps)``: uniformly
  random moves to the end (a search's rollout), each family's loop without a dispatch per move;
* ``observation(game, board, aux, T, role, out)``: what ``role`` sees, into ``out`` of
  shape ``spec.planes_shape`` (``(H, W, planes)``; a sheet's is ``(1, 1, fluents + roles)``,
  its env's observation vector).

A GDL ``board`` is the state's fluent vector (int8, 0 or 1) and its ``aux`` has
`ggpzoo.envs.propnet.kernel.AUX_SIZE` slots; joint moves where no role has a choice are
played by ``start`` and the steps themselves. ``start``, ``step`` and ``step_joint`` return 0,
or for a sheet's error ([`ggpzoo.envs.propnet.kernel.ERRORS`][ggpzoo.envs.propnet.kernel.ERRORS]) that code minus 10, as
``status`` does.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from ggpzoo.engine.rng import next_random
from ggpzoo.envs.amazons import kernel as amazons
from ggpzoo.envs.mad_bishops import kernel as mad_bishops
from ggpzoo.envs.propnet import kernel as propnet
from ggpzoo.envs.skirmish import kernel as skirmish

__all__ = [
    "KERNELS",
    "PROPNET",
    "NO_TABLES",
    "OVER",
    "SIMULTANEOUS",
    "MAX_LEGAL",
    "kernel_id",
    "init",
    "legal_actions",
    "apply",
    "is_terminal",
    "goals",
    "observe",
    "check_state",
    "potential",
    "reach_planes",
    "feature_planes",
    "net_input",
    "stage_board",
    "start",
    "status",
    "step",
    "role_legal",
    "step_joint",
    "step_status",
    "step_joint_status",
    "observation",
    "playout",
]

# The hand-written kernel families, by id: the branches below follow this order.
KERNELS = (amazons, mad_bishops, skirmish)
MAX_LEGAL = max(k.MAX_LEGAL for k in KERNELS)
# The table interpreter of compiled GDL sheets: the game protocol's fourth branch.
PROPNET = len(KERNELS)
# ``T`` of a hand-written kernel: empty, and int8 (a sheet's tables are int32), so that numba
# compiles the hand-written kernels' calls without the table interpreter (see `_sheet`).
NO_TABLES = np.zeros(0, np.int8)
NOT_A_SHEET = -19  # what a PROPNET call returns on NO_TABLES (a kernel id that does not fit its tables)
# What ``status`` returns besides a legal count.
OVER, SIMULTANEOUS = -1, -2


def kernel_id(kernel) -> int:
    """The dispatch id of a kernel module; ValueError if it has no branch here."""
    for i, k in enumerate(KERNELS):
        if k is kernel:
            return i
    if kernel is propnet:
        return PROPNET
    raise ValueError(f"kernel {getattr(kernel, '__name__', kernel)!r} has no branch in ggpzoo.engine.dispatch")


@njit(cache=True)
def init(game, board, aux, variant):
    if game == 0:
        amazons.init(board, aux, variant)
    elif game == 1:
        mad_bishops.init(board, aux, variant)
    elif game == 2:
        skirmish.init(board, aux, variant)
    else:
        raise ValueError("unknown kernel id")


@njit(cache=True)
def legal_actions(game, board, aux, out):
    if game == 0:
        return amazons.legal_actions(board, aux, out)
    if game == 1:
        return mad_bishops.legal_actions(board, aux, out)
    if game == 2:
        return skirmish.legal_actions(board, aux, out)
    raise ValueError("unknown kernel id")


@njit(cache=True)
def apply(game, board, aux, action):
    if game == 0:
        amazons.apply(board, aux, action)
    elif game == 1:
        mad_bishops.apply(board, aux, action)
    elif game == 2:
        skirmish.apply(board, aux, action)
    else:
        raise ValueError("unknown kernel id")


@njit(cache=True)
def is_terminal(game, board, aux):
    if game == 0:
        return amazons.is_terminal(board, aux)
    if game == 1:
        return mad_bishops.is_terminal(board, aux)
    if game == 2:
        return skirmish.is_terminal(board, aux)
    raise ValueError("unknown kernel id")


@njit(cache=True)
def goals(game, board, aux):
    if game == 0:
        return amazons.goals(board, aux)
    if game == 1:
        return mad_bishops.goals(board, aux)
    if game == 2:
        return skirmish.goals(board, aux)
    raise ValueError("unknown kernel id")


@njit(cache=True)
def observe(game, board, aux, role, out):
    if game == 0:
        amazons.observe(board, aux, role, out)
    elif game == 1:
        mad_bishops.observe(board, aux, role, out)
    elif game == 2:
        skirmish.observe(board, aux, role, out)
    else:
        raise ValueError("unknown kernel id")


@njit(cache=True)
def check_state(game, board, aux):
    """0 when ``(board, aux)`` is a state of kernel ``game`` that it can play, else that
    kernel's error code (its ``CHECK_MESSAGES``; `ggpzoo.envs.state_check`)."""
    if game == 0:
        return amazons.check_state(board, aux)
    if game == 1:
        return mad_bishops.check_state(board, aux)
    if game == 2:
        return skirmish.check_state(board, aux)
    raise ValueError("unknown kernel id")


@njit(cache=True)
def potential(game, board, aux):
    """White's shaping potential in [-1, 1] (the spec's ``potential``); ValueError for a
    kernel without one."""
    if game == 0:
        return amazons.mobility_balance(board, aux)
    if game == 1:
        return mad_bishops.material_balance(board, aux)
    raise ValueError("this kernel has no potential")


@njit(cache=True)
def reach_planes(game, board, role, out):
    """The two reach planes of ``role``'s view into ``out`` (H, W, 2) (the spec's
    ``reach_planes``); ValueError for a kernel without them."""
    if game == 0:
        amazons.reach_planes(board, role, out)
    elif game == 1:
        mad_bishops.reach_planes(board, role, out)
    elif game == 2:
        skirmish.reach_planes(board, role, out)
    else:
        raise ValueError("unknown kernel id")


@njit(cache=True)
def feature_planes(game, board, role, out):
    """The spec's ``feature_planes`` of ``role``'s view into ``out`` (H, W, num_feature_planes);
    ValueError for a kernel without them."""
    if game == 0:
        amazons.territory_planes(board, role, out)
    else:
        raise ValueError("this kernel has no feature planes")


@njit(cache=True)
def net_input(game, board, aux, role, out, planes):
    """The AlphaZero network's input: the observation of ``role`` into ``out[:, :, :planes]``,
    then, when ``out`` has more planes, the feature planes into the rest."""
    observe(game, board, aux, role, out[:, :, :planes])
    if out.shape[2] > planes:
        feature_planes(game, board, role, out[:, :, planes:])


@njit(cache=True)
def stage_board(game, board, chosen, stage, out):
    """The board a turn decomposition shows after ``stage`` of a turn's cells ``chosen``:
    Amazons' arrow stage shows the queen on its destination; everything else the board."""
    if game == 0:
        amazons.stage_board(board, chosen, stage, out)
    else:
        out[:] = board


# ----------------------------------------------------------------------------- the game protocol
# The table interpreter's calls, compiled only where ``T`` may hold a sheet's tables: with
# `NO_TABLES` (int8) they are stubs, so a hand-written game's first use does not compile the
# interpreter (a third of the engine's compile time).
def _sheet_init(T, W, board, aux):
    return propnet.init(T, W, board, aux)


def _sheet_status(T, W, board, aux, legal, goals):
    return propnet.turn_status(T, W, board, aux, legal, goals)


def _sheet_apply(T, W, board, aux, action):
    return propnet.apply(T, W, board, aux, action)


def _sheet_role_legal(T, W, board, aux, role, out):
    return propnet.role_legal(T, W, board, aux, role, out)


def _sheet_apply_joint(T, W, board, aux, ids):
    return propnet.apply_joint(T, W, board, aux, ids)


def _sheet_observe(T, board, role, out):
    propnet.observe(T, board, role, out)


@overload(_sheet_init)
def _ov_init(T, W, board, aux):
    if T.dtype == types.int8:
        return lambda T, W, board, aux: NOT_A_SHEET
    return lambda T, W, board, aux: propnet.init(T, W, board, aux)


@overload(_sheet_status)
def _ov_status(T, W, board, aux, legal, goals):
    if T.dtype == types.int8:
        return lambda T, W, board, aux, legal, goals: NOT_A_SHEET
    return lambda T, W, board, aux, legal, goals: propnet.turn_status(T, W, board, aux, legal, goals)


@overload(_sheet_apply)
def _ov_apply(T, W, board, aux, action):
    if T.dtype == types.int8:
        return lambda T, W, board, aux, action: NOT_A_SHEET
    return lambda T, W, board, aux, action: propnet.apply(T, W, board, aux, action)


@overload(_sheet_role_legal)
def _ov_role_legal(T, W, board, aux, role, out):
    if T.dtype == types.int8:
        return lambda T, W, board, aux, role, out: 0
    return lambda T, W, board, aux, role, out: propnet.role_legal(T, W, board, aux, role, out)


@overload(_sheet_apply_joint)
def _ov_apply_joint(T, W, board, aux, ids):
    if T.dtype == types.int8:
        return lambda T, W, board, aux, ids: NOT_A_SHEET
    return lambda T, W, board, aux, ids: propnet.apply_joint(T, W, board, aux, ids)


def _sheet_apply_status(T, W, board, aux, action, legal, goals):
    return propnet.apply_status(T, W, board, aux, action, legal, goals)


def _sheet_apply_joint_status(T, W, board, aux, ids, legal, goals):
    return propnet.apply_joint_status(T, W, board, aux, ids, legal, goals)


@overload(_sheet_apply_status)
def _ov_apply_status(T, W, board, aux, action, legal, goals):
    if T.dtype == types.int8:
        return lambda T, W, board, aux, action, legal, goals: NOT_A_SHEET
    return lambda T, W, board, aux, action, legal, goals: propnet.apply_status(T, W, board, aux, action, legal, goals)


@overload(_sheet_apply_joint_status)
def _ov_apply_joint_status(T, W, board, aux, ids, legal, goals):
    if T.dtype == types.int8:
        return lambda T, W, board, aux, ids, legal, goals: NOT_A_SHEET
    return lambda T, W, board, aux, ids, legal, goals: propnet.apply_joint_status(T, W, board, aux, ids, legal, goals)


@overload(_sheet_observe)
def _ov_observe(T, board, role, out):
    if T.dtype == types.int8:

        def stub(T, board, role, out):
            out[:] = 0

        return stub
    return lambda T, board, role, out: propnet.observe(T, board, role, out)


@njit(cache=True)
def start(game, board, aux, T, W, variant):
    """The start position into ``board``, ``aux`` (and ``W``); 0, or a sheet's error code."""
    if game == 0:
        amazons.init(board, aux, variant)
    elif game == 1:
        mad_bishops.init(board, aux, variant)
    elif game == 2:
        skirmish.init(board, aux, variant)
    elif game == PROPNET:
        return _sheet_init(T, W, board, aux)
    else:
        raise ValueError("unknown kernel id")
    return 0


@njit(cache=True, inline="always")
def _two(g, goals):
    goals[0], goals[1] = g[0], g[1]


@njit(cache=True)
def status(game, board, aux, T, W, legal, goals):
    """Every role's goal into ``goals``; returns the legal count of the role to choose (its
    actions into ``legal``, ascending), OVER, SIMULTANEOUS, or a sheet's error code."""
    if game == 0:
        over, goals[0], goals[1] = amazons.terminal_goals(board, aux)
        return OVER if over else amazons.legal_actions(board, aux, legal)
    if game == 1:
        over, goals[0], goals[1] = mad_bishops.terminal_goals(board, aux)
        return OVER if over else mad_bishops.legal_actions(board, aux, legal)
    if game == 2:
        _two(skirmish.goals(board, aux), goals)
        return OVER if skirmish.is_terminal(board, aux) else skirmish.legal_actions(board, aux, legal)
    if game == PROPNET:
        return _sheet_status(T, W, board, aux, legal, goals)
    raise ValueError("unknown kernel id")


@njit(cache=True)
def step(game, board, aux, T, W, action):
    """The role to choose plays ``action`` (legal: ``status`` listed it); 0 or an error code."""
    if game == 0:
        amazons.apply(board, aux, action)
    elif game == 1:
        mad_bishops.apply(board, aux, action)
    elif game == 2:
        skirmish.apply(board, aux, action)
    elif game == PROPNET:
        return _sheet_apply(T, W, board, aux, action)
    else:
        raise ValueError("unknown kernel id")
    return 0


@njit(cache=True)
def role_legal(game, board, aux, T, W, role, out):
    """Role ``role``'s legal actions into ``out`` (ascending); returns how many (0 for a role
    that does not choose in a hand-written game, or when the game is over). After ``status``."""
    if game == PROPNET:
        return _sheet_role_legal(T, W, board, aux, role, out)
    if game < 0 or game > PROPNET:
        raise ValueError("unknown kernel id")
    if role != aux[0] or is_terminal(game, board, aux):
        return 0
    return legal_actions(game, board, aux, out)


@njit(cache=True)
def step_joint(game, board, aux, T, W, ids):
    """Play joint move ``ids`` (one legal action per role; in a hand-written game only the
    role to choose's counts); 0 or an error code. After ``status``."""
    if game == PROPNET:
        return _sheet_apply_joint(T, W, board, aux, ids)
    return step(game, board, aux, T, W, ids[aux[0]])


@njit(cache=True)
def step_status(game, board, aux, T, W, action, legal, goals):
    """`step()` then `status()` in one call (a sheet's network judges the new state once):
    the new state's status, or an error code."""
    if game == PROPNET:
        return _sheet_apply_status(T, W, board, aux, action, legal, goals)
    step(game, board, aux, T, W, action)
    return status(game, board, aux, T, W, legal, goals)


@njit(cache=True)
def step_joint_status(game, board, aux, T, W, ids, legal, goals):
    """`step_joint()` then `status()` in one call: the new state's status, or an error code."""
    if game == PROPNET:
        return _sheet_apply_joint_status(T, W, board, aux, ids, legal, goals)
    step(game, board, aux, T, W, ids[aux[0]])
    return status(game, board, aux, T, W, legal, goals)


@njit(cache=True)
def observation(game, board, aux, T, role, out):
    """What ``role`` sees into ``out`` (``spec.planes_shape``: the env's observation planes; for
    a sheet ``(1, 1, n)``, its base set's fluents then a one-hot of the role)."""
    if game == PROPNET:
        _sheet_observe(T, board, role, out[0, 0])
    else:
        observe(game, board, aux, role, out)


@njit(cache=True, inline="always")
def _below(s, n):
    """A uniform integer in ``0..n-1`` from the random stream ``s``: (new stream, it)."""
    s, r = next_random(s)
    return s, np.int64((r * np.uint64(n)) >> np.uint64(32))


@njit(cache=True, inline="always")
def playout(game, board, aux, T, W, n, legal, goals, rl, counts, ids, s, max_steps):
    """Uniformly random moves from ``(board, aux)`` until the game is over or ``max_steps`` moves
    (joint moves where several roles choose) were played; writes the goals of the state
    reached into ``goals``.

    ``n`` is what ``status`` returned at ``(board, aux)`` (its legal actions in ``legal``; not
    OVER); ``rl`` (``num_roles x max_legal``), ``counts`` and ``ids`` are scratch for the
    states where several roles choose (each then plays a random legal action); ``s`` is a
    random stream of `ggpzoo.engine.rng`. Returns ``(s, 0)``, or ``(s, error code)`` where a
    sheet failed. The same moves as a loop of ``step`` and ``status``, without a dispatch per move."""
    if game == 0:
        for t in range(1, max_steps + 1):
            s, j = _below(s, n)
            amazons.apply(board, aux, legal[j])
            if t >= max_steps or amazons.is_terminal(board, aux):
                break
            n = amazons.legal_actions(board, aux, legal)
        _two(amazons.goals(board, aux), goals)
        return s, 0
    if game == 1:
        for t in range(1, max_steps + 1):
            s, j = _below(s, n)
            mad_bishops.apply(board, aux, legal[j])
            if t >= max_steps or mad_bishops.is_terminal(board, aux):
                break
            n = mad_bishops.legal_actions(board, aux, legal)
        _two(mad_bishops.goals(board, aux), goals)
        return s, 0
    if game == 2:
        for t in range(1, max_steps + 1):
            s, j = _below(s, n)
            skirmish.apply(board, aux, legal[j])
            if t >= max_steps or skirmish.is_terminal(board, aux):
                break
            n = skirmish.legal_actions(board, aux, legal)
        _two(skirmish.goals(board, aux), goals)
        return s, 0
    if game != PROPNET:
        raise ValueError("unknown kernel id")
    return _sheet_playout(T, W, board, aux, n, legal, goals, rl, counts, ids, s, max_steps)


def _sheet_playout(T, W, board, aux, n, legal, goals, rl, counts, ids, s, max_steps):
    """`playout()`'s loop on a sheet's network (compiled only where ``T`` may hold one)."""


@overload(_sheet_playout)
def _ov_playout(T, W, board, aux, n, legal, goals, rl, counts, ids, s, max_steps):
    if T.dtype == types.int8:
        return lambda T, W, board, aux, n, legal, goals, rl, counts, ids, s, max_steps: (s, NOT_A_SHEET)

    def loop(T, W, board, aux, n, legal, goals, rl, counts, ids, s, max_steps):
        for _ in range(max_steps):
            if n >= 0:
                s, j = _below(s, n)
                err = propnet.apply(T, W, board, aux, legal[j])
            else:  # several roles choose: a random joint move
                for r in range(counts.shape[0]):
                    counts[r] = propnet.role_legal(T, W, board, aux, r, rl[r])
                    j = 0
                    if counts[r] > 1:
                        s, j = _below(s, counts[r])
                    ids[r] = rl[r, j]
                err = propnet.apply_joint(T, W, board, aux, ids)
            if err < 0:
                return s, err
            # the move left W at the new state with its legal moves and aux[0] the role to choose
            if aux[0] == OVER:
                break
            n = SIMULTANEOUS if aux[0] == SIMULTANEOUS else propnet.role_legal(T, W, board, aux, aux[0], legal)
        propnet.goals(T, W, goals)
        return s, 0

    return loop


# ----------------------------------------------------------------------------- a search's aids
@njit(cache=True)
def evaluation(game, board, aux, scratch, aux_scratch, legal_scratch):
    """White's static value of a state that is not over (each kernel's ``evaluation``, for
    alpha-beta search): ``scratch`` int64 (5, cells or more), ``aux_scratch`` int32 (8),
    ``legal_scratch`` int32 (MAX_LEGAL). ValueError for a family without one."""
    if game == 0:
        return amazons.evaluation(board, aux, scratch)
    if game == 1:
        return mad_bishops.evaluation(board, aux, aux_scratch, legal_scratch)
    if game == 2:
        return skirmish.evaluation(board, aux)
    raise ValueError("this kernel has no evaluation")


@njit(cache=True)
def capture_key(game, board, action):
    """-1 when ``action`` captures nothing (or the family has no captures), else a key that
    orders captures for a search (higher first)."""
    if game == 1:
        return mad_bishops.capture_key(board, action)
    if game == 2:
        return skirmish.capture_key(board, action)
    return -1


@njit(cache=True)
def quiescent(game):
    """Whether a search should go on through captures past its depth in this family (a
    quiescence search: Skirmish, where a capture changes the material at once)."""
    return game == 2
