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

**Called from Python, every function of the two protocols checks its arguments** (the kernel
id; each array's dtype, length and contiguity, against the kernel's or the sheet's sizes; the
state, by the kernel's ``check_state``; a role; that an action or joint move is legal now)
and raises a ``ValueError`` naming the problem before numba sees them. Inside numba the same
names are the unchecked njit functions (``_status`` and so on), so the batched engine and the
searches pay nothing. The training aids (``potential``, ``reach_planes``, ``feature_planes``,
``net_input``, ``stage_board``) and ``playout`` are numba's own, unchecked.

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
def _init(game, board, aux, variant):
    if game == 0:
        amazons.init(board, aux, variant)
    elif game == 1:
        mad_bishops.init(board, aux, variant)
    elif game == 2:
        skirmish.init(board, aux, variant)
    else:
        raise ValueError("unknown kernel id")


@njit(cache=True)
def _legal_actions(game, board, aux, out):
    if game == 0:
        return amazons.legal_actions(board, aux, out)
    if game == 1:
        return mad_bishops.legal_actions(board, aux, out)
    if game == 2:
        return skirmish.legal_actions(board, aux, out)
    raise ValueError("unknown kernel id")


@njit(cache=True)
def _apply(game, board, aux, action):
    if game == 0:
        amazons.apply(board, aux, action)
    elif game == 1:
        mad_bishops.apply(board, aux, action)
    elif game == 2:
        skirmish.apply(board, aux, action)
    else:
        raise ValueError("unknown kernel id")


@njit(cache=True)
def _is_terminal(game, board, aux):
    if game == 0:
        return amazons.is_terminal(board, aux)
    if game == 1:
        return mad_bishops.is_terminal(board, aux)
    if game == 2:
        return skirmish.is_terminal(board, aux)
    raise ValueError("unknown kernel id")


@njit(cache=True)
def _goals(game, board, aux):
    if game == 0:
        return amazons.goals(board, aux)
    if game == 1:
        return mad_bishops.goals(board, aux)
    if game == 2:
        return skirmish.goals(board, aux)
    raise ValueError("unknown kernel id")


@njit(cache=True)
def _observe(game, board, aux, role, out):
    if game == 0:
        amazons.observe(board, aux, role, out)
    elif game == 1:
        mad_bishops.observe(board, aux, role, out)
    elif game == 2:
        skirmish.observe(board, aux, role, out)
    else:
        raise ValueError("unknown kernel id")


@njit(cache=True)
def _check_state(game, board, aux):
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
    _observe(game, board, aux, role, out[:, :, :planes])
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
def _start(game, board, aux, T, W, variant):
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
def _status(game, board, aux, T, W, legal, goals):
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
def _step(game, board, aux, T, W, action):
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
def _role_legal(game, board, aux, T, W, role, out):
    """Role ``role``'s legal actions into ``out`` (ascending); returns how many (0 for a role
    that does not choose in a hand-written game, or when the game is over). After ``status``."""
    if game == PROPNET:
        return _sheet_role_legal(T, W, board, aux, role, out)
    if game < 0 or game > PROPNET:
        raise ValueError("unknown kernel id")
    if role != aux[0] or _is_terminal(game, board, aux):
        return 0
    return _legal_actions(game, board, aux, out)


@njit(cache=True)
def _step_joint(game, board, aux, T, W, ids):
    """Play joint move ``ids`` (one legal action per role; in a hand-written game only the
    role to choose's counts); 0 or an error code. After ``status``."""
    if game == PROPNET:
        return _sheet_apply_joint(T, W, board, aux, ids)
    return _step(game, board, aux, T, W, ids[aux[0]])


@njit(cache=True)
def _step_status(game, board, aux, T, W, action, legal, goals):
    """`step()` then `status()` in one call (a sheet's network judges the new state once):
    the new state's status, or an error code."""
    if game == PROPNET:
        return _sheet_apply_status(T, W, board, aux, action, legal, goals)
    _step(game, board, aux, T, W, action)
    return _status(game, board, aux, T, W, legal, goals)


@njit(cache=True)
def _step_joint_status(game, board, aux, T, W, ids, legal, goals):
    """`step_joint()` then `status()` in one call: the new state's status, or an error code."""
    if game == PROPNET:
        return _sheet_apply_joint_status(T, W, board, aux, ids, legal, goals)
    _step(game, board, aux, T, W, ids[aux[0]])
    return _status(game, board, aux, T, W, legal, goals)


@njit(cache=True)
def _observation(game, board, aux, T, role, out):
    """What ``role`` sees into ``out`` (``spec.planes_shape``: the env's observation planes; for
    a sheet ``(1, 1, n)``, its base set's fluents then a one-hot of the role)."""
    if game == PROPNET:
        _sheet_observe(T, board, role, out[0, 0])
    else:
        _observe(game, board, aux, role, out)


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


# ----------------------------------------------------------------------------- the checked entry points
# numba does no bounds checks: a buffer too short, a state of another game or an illegal action
# reads and writes past the arrays' ends. So each public name of the protocols above is, from
# Python, a function that checks its arguments (the kernel id; every array's dtype, shape and
# contiguity; the state, by the kernel's ``check_state``; a role; an action, that it is legal)
# and raises a ValueError naming the problem before numba sees them; inside numba (the batched
# engine, the searches) the same name is the unchecked njit function itself, at full speed.
PLANES = ((3, 5), (3,), (17, 17))  # each kernel's observation planes, by variant


def _integer(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _buffer(a, what: str, length: int, dtype=None, at_least: bool = False) -> None:
    if not isinstance(a, np.ndarray) or a.ndim != 1 or not a.flags.c_contiguous:
        raise ValueError(f"{what} must be a 1-D contiguous numpy array, got {type(a).__name__} {np.shape(a)}")
    if dtype is not None and a.dtype != dtype:
        raise ValueError(f"{what} must be {np.dtype(dtype).name}, got {a.dtype}")
    if dtype is None and (a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer)):
        raise ValueError(f"{what} must hold integers, got {a.dtype}")
    if len(a) < length if at_least else len(a) != length:
        raise ValueError(f"{what} must have {'at least ' if at_least else ''}{length} entries, got {len(a)}")


def _sizes(game, T, W, sheet: bool = True):
    """``(cells, aux size, max legal, roles)`` of kernel ``game`` (its tables ``T``, ``W`` for a sheet)."""
    if not _integer(game) or not 0 <= game <= (PROPNET if sheet else PROPNET - 1):
        raise ValueError(f"unknown kernel id {game!r}")
    if game < PROPNET:
        k = KERNELS[game]
        return k.H * k.W, k.AUX_SIZE, k.MAX_LEGAL, 2
    if not isinstance(T, np.ndarray) or T.dtype != np.int32 or T.ndim != 1 or len(T) < propnet.HEADER:
        raise ValueError("T must be a sheet's tables (spec.tables, int32)")
    if W is not None:  # observation() takes no work area
        _buffer(W, "W", int(T[propnet.W_SIZE]), np.int32)
    return int(T[propnet.N_FLUENTS]), propnet.AUX_SIZE, max(int(T[propnet.MAX_LEGAL]), 1), int(T[propnet.N_ROLES])


def _state(game, board, aux, T=NO_TABLES, W=None, sheet: bool = True, contents: bool = True):
    """Check ``board``, ``aux`` (and ``T``, ``W``) for kernel ``game``; its sizes."""
    sizes = _sizes(game, T, W, sheet)
    _buffer(board, "board", sizes[0], np.int8)
    _buffer(aux, "aux", sizes[1], np.int32)
    if contents and game < PROPNET:
        from ggpzoo.envs.state_check import state_problem

        problem = state_problem(KERNELS[game], board, aux)
        if problem is not None:
            raise ValueError(f"bad state: {problem}")
    elif contents and len(board) and ((board != 0) & (board != 1)).any():
        raise ValueError("bad state: a sheet's board holds 0 or 1 per fluent")
    return sizes


def _role(role, roles: int) -> None:
    if not _integer(role) or not 0 <= role < roles:
        raise ValueError(f"role must be an integer 0..{roles - 1}, got {role!r}")


def _legal_now(game, board, aux, T, W, sizes):
    """Every role's legal ids now (a list of arrays; empty for a role that does not choose)."""
    legal, goals_ = np.zeros(sizes[2], np.int32), np.zeros(sizes[3], np.int32)
    n = _status(game, board, aux, T, W, legal, goals_)
    if n == OVER:
        raise ValueError("the game is over: there is no move to play")
    if n < SIMULTANEOUS:
        raise ValueError(f"the sheet fails at this state (error code {n})")
    if n != SIMULTANEOUS:
        out = [legal[:0].copy() for _ in range(sizes[3])]
        out[int(aux[0])] = legal[:n].copy()
        return out
    return [legal[: _role_legal(game, board, aux, T, W, r, legal)].copy() for r in range(sizes[3])]


def _action(action, legal, role) -> None:
    if not _integer(action) or not (legal == action).any():
        raise ValueError(f"action {action!r} is not one of role {role}'s {len(legal)} legal actions now")


def _ids(ids, legal) -> None:
    _buffer(ids, "ids", len(legal))
    for r, la in enumerate(legal):
        if len(la):
            _action(int(ids[r]), la, r)


def _out(out, shape, what: str = "out") -> None:
    if not isinstance(out, np.ndarray) or out.ndim != len(shape) or not out.flags.c_contiguous:
        raise ValueError(f"{what} must be a contiguous numpy array of shape {shape}")
    if out.shape != shape:
        raise ValueError(f"{what} must have shape {shape}, got {out.shape}")


def _planes(game, aux, sizes, T=NO_TABLES):
    if game == PROPNET:  # the sheet's base set (fluents the network may never make included), then the roles
        return (1, 1, int(T[propnet.TAB + 2 * propnet.OBS_SRC + 1]) + sizes[3])
    k = KERNELS[game]
    return (k.H, k.W, PLANES[game][int(aux[1])])


def init(game, board, aux, variant):
    """The start position of hand-written kernel ``game`` (variant ``variant``) into ``board``, ``aux``."""
    _state(game, board, aux, sheet=False, contents=False)
    if not _integer(variant) or not 0 <= variant < len(PLANES[game]):
        raise ValueError(f"variant must be an integer 0..{len(PLANES[game]) - 1}, got {variant!r}")
    _init(game, board, aux, variant)


def legal_actions(game, board, aux, out):
    """The legal actions of the role to move into ``out`` (at least the kernel's ``MAX_LEGAL``); how many."""
    sizes = _state(game, board, aux, sheet=False)
    _buffer(out, "out", sizes[2], at_least=True)
    return _legal_actions(game, board, aux, out)


def apply(game, board, aux, action):
    """The role to move plays ``action`` (one of its legal actions)."""
    sizes = _state(game, board, aux, sheet=False)
    no_work = np.zeros(0, np.int32)  # a hand-written kernel's W, of the type the product passes
    _action(action, _legal_now(game, board, aux, NO_TABLES, no_work, sizes)[int(aux[0])], int(aux[0]))
    _apply(game, board, aux, action)


def is_terminal(game, board, aux):
    _state(game, board, aux, sheet=False)
    return _is_terminal(game, board, aux)


def goals(game, board, aux):
    _state(game, board, aux, sheet=False)
    return _goals(game, board, aux)


def observe(game, board, aux, role, out):
    """What ``role`` sees, into ``out`` (the env's observation planes)."""
    _state(game, board, aux, sheet=False)
    _role(role, 2)
    _out(out, _planes(game, aux, None))
    _observe(game, board, aux, role, out)


def check_state(game, board, aux):
    """0 when ``(board, aux)`` is a state kernel ``game`` can play, else its error code."""
    _state(game, board, aux, sheet=False, contents=False)
    return _check_state(game, board, aux)


def start(game, board, aux, T, W, variant):
    """The start position into ``board``, ``aux`` (and ``W``); 0, or a sheet's error code."""
    _state(game, board, aux, T, W, contents=False)
    if game < PROPNET and (not _integer(variant) or not 0 <= variant < len(PLANES[game])):
        raise ValueError(f"variant must be an integer 0..{len(PLANES[game]) - 1}, got {variant!r}")
    return _start(game, board, aux, T, W, variant)


def status(game, board, aux, T, W, legal, goals):
    """Every role's goal into ``goals``; the legal count of the role to choose (into ``legal``),
    `OVER`, `SIMULTANEOUS` or a sheet's error code."""
    sizes = _state(game, board, aux, T, W)
    _buffer(legal, "legal", sizes[2], at_least=True)
    _buffer(goals, "goals", sizes[3], at_least=True)
    return _status(game, board, aux, T, W, legal, goals)


def step(game, board, aux, T, W, action):
    """The role to choose plays ``action`` (one of its legal actions); 0 or an error code."""
    sizes = _state(game, board, aux, T, W)
    legal = _legal_now(game, board, aux, T, W, sizes)
    if sum(len(la) > 0 for la in legal) != 1:
        raise ValueError("several roles choose at once: play a joint move (step_joint)")
    _action(action, legal[int(aux[0])], int(aux[0]))
    return _step(game, board, aux, T, W, action)


def role_legal(game, board, aux, T, W, role, out):
    """Role ``role``'s legal actions into ``out``; how many."""
    sizes = _state(game, board, aux, T, W)
    _role(role, sizes[3])
    _buffer(out, "out", sizes[2], at_least=True)
    return _role_legal(game, board, aux, T, W, role, out)


def step_joint(game, board, aux, T, W, ids):
    """Play joint move ``ids`` (one legal action per role that chooses); 0 or an error code."""
    sizes = _state(game, board, aux, T, W)
    _ids(ids, _legal_now(game, board, aux, T, W, sizes))
    return _step_joint(game, board, aux, T, W, ids)


def step_status(game, board, aux, T, W, action, legal, goals):
    """`step()` then `status()` in one call."""
    sizes = _state(game, board, aux, T, W)
    _buffer(legal, "legal", sizes[2], at_least=True)
    _buffer(goals, "goals", sizes[3], at_least=True)
    now = _legal_now(game, board, aux, T, W, sizes)
    if sum(len(la) > 0 for la in now) != 1:
        raise ValueError("several roles choose at once: play a joint move (step_joint_status)")
    _action(action, now[int(aux[0])], int(aux[0]))
    return _step_status(game, board, aux, T, W, action, legal, goals)


def step_joint_status(game, board, aux, T, W, ids, legal, goals):
    """`step_joint()` then `status()` in one call."""
    sizes = _state(game, board, aux, T, W)
    _buffer(legal, "legal", sizes[2], at_least=True)
    _buffer(goals, "goals", sizes[3], at_least=True)
    _ids(ids, _legal_now(game, board, aux, T, W, sizes))
    return _step_joint_status(game, board, aux, T, W, ids, legal, goals)


def observation(game, board, aux, T, role, out):
    """What ``role`` sees into ``out`` (``spec.planes_shape``)."""
    sizes = _state(game, board, aux, T, None)
    _role(role, sizes[3])
    _out(out, _planes(game, aux, sizes, T))
    _observation(game, board, aux, T, role, out)


# Inside numba each public name is its njit function (no checks: the callers check at their
# own Python entry points).
@overload(init)
def _ov_public_init(game, board, aux, variant):
    return lambda game, board, aux, variant: _init(game, board, aux, variant)


@overload(legal_actions)
def _ov_public_legal_actions(game, board, aux, out):
    return lambda game, board, aux, out: _legal_actions(game, board, aux, out)


@overload(apply)
def _ov_public_apply(game, board, aux, action):
    return lambda game, board, aux, action: _apply(game, board, aux, action)


@overload(is_terminal)
def _ov_public_is_terminal(game, board, aux):
    return lambda game, board, aux: _is_terminal(game, board, aux)


@overload(goals)
def _ov_public_goals(game, board, aux):
    return lambda game, board, aux: _goals(game, board, aux)


@overload(observe)
def _ov_public_observe(game, board, aux, role, out):
    return lambda game, board, aux, role, out: _observe(game, board, aux, role, out)


@overload(check_state)
def _ov_public_check_state(game, board, aux):
    return lambda game, board, aux: _check_state(game, board, aux)


@overload(start)
def _ov_public_start(game, board, aux, T, W, variant):
    return lambda game, board, aux, T, W, variant: _start(game, board, aux, T, W, variant)


@overload(status)
def _ov_public_status(game, board, aux, T, W, legal, goals):
    return lambda game, board, aux, T, W, legal, goals: _status(game, board, aux, T, W, legal, goals)


@overload(step)
def _ov_public_step(game, board, aux, T, W, action):
    return lambda game, board, aux, T, W, action: _step(game, board, aux, T, W, action)


@overload(role_legal)
def _ov_public_role_legal(game, board, aux, T, W, role, out):
    return lambda game, board, aux, T, W, role, out: _role_legal(game, board, aux, T, W, role, out)


@overload(step_joint)
def _ov_public_step_joint(game, board, aux, T, W, ids):
    return lambda game, board, aux, T, W, ids: _step_joint(game, board, aux, T, W, ids)


@overload(step_status)
def _ov_public_step_status(game, board, aux, T, W, action, legal, goals):
    return lambda game, board, aux, T, W, action, legal, goals: _step_status(
        game, board, aux, T, W, action, legal, goals
    )


@overload(step_joint_status)
def _ov_public_step_joint_status(game, board, aux, T, W, ids, legal, goals):
    return lambda game, board, aux, T, W, ids, legal, goals: _step_joint_status(
        game, board, aux, T, W, ids, legal, goals
    )


@overload(observation)
def _ov_public_observation(game, board, aux, T, role, out):
    return lambda game, board, aux, T, role, out: _observation(game, board, aux, T, role, out)
