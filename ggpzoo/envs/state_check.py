"""The one check of a game state ``(board, aux)`` that every public entry point runs.

[`checked_state()`][ggpzoo.envs.state_check.checked_state] turns what a caller passed (numpy arrays, lists, anything)
into fresh contiguous ``(int8 board, int32 aux)`` arrays of one kernel, or raises a
``ValueError`` that names the first problem. It checks, in order:

1. the structure: a pair ``(board, aux)`` (a tuple or list), each a sequence of numbers;
2. shape and type: ``board`` has ``H * W`` entries and ``aux`` ``AUX_SIZE``; integer or
   bool-free numeric values that are whole numbers and fit the kernel's dtypes (``1.7``,
   ``NaN``, ``257`` on a board are errors, never cast);
3. the rules, in numba: the kernel's ``check_state_detail`` (cell values, piece counts,
   positions the rules make impossible, role, variant, phase, step, capture counts);
4. optionally, that ``aux[VARIANT]`` is the variant of the env that asked.

``raw_env.set_state``, the state-taking agents and the game-file readers call it before
they write anything, so a refused state leaves them as they were.

>>> from ggpzoo.envs.amazons import kernel as K
>>> board, aux = K.new_state()
>>> board[0] = 7
>>> checked_state((board, aux), K)
Traceback (most recent call last):
...
ValueError: bad state: cell (1,1) holds 7: board values are 0 empty, 1 white queen, 2 black queen, 3 arrow
"""

from __future__ import annotations

import numpy as np

__all__ = ["checked_state", "state_problem"]


def _array(x, what: str, size: int, dtype, form: str) -> np.ndarray:
    """``x`` as a fresh contiguous 1-D array of ``dtype`` with ``size`` entries, or a ValueError."""
    if type(x) is np.ndarray and x.dtype == dtype and x.shape == (size,):  # the usual case: get_state()'s
        return x.copy()
    if x is None:
        raise ValueError(f"bad state: {what} is None")
    if isinstance(x, (str, bytes, dict)) or np.isscalar(x):
        raise ValueError(f"bad state: {what} must be an array of {size} integers, got {type(x).__name__}")
    try:
        a = np.asarray(x)
    except (ValueError, TypeError) as e:  # ragged lists and the like
        raise ValueError(f"bad state: {what} is not an array of numbers ({e})") from None
    if a.shape != (size,):
        raise ValueError(f"bad state: state must be {form}: {what} has shape {a.shape}")
    if a.dtype == np.bool_ or not (np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating)):
        raise ValueError(f"bad state: {what} must hold integers, got dtype {a.dtype}")
    if np.issubdtype(a.dtype, np.floating):
        bad = ~np.isfinite(a) | (a != np.round(a))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"bad state: {what}[{i}] is {a[i].item()!r}, not a whole number")
    info = np.iinfo(dtype)
    out_of_range = (a < info.min) | (a > info.max)
    if out_of_range.any():
        i = int(np.flatnonzero(out_of_range)[0])
        raise ValueError(
            f"bad state: {what}[{i}] is {a[i].item()!r}, outside {info.min}..{info.max} ({np.dtype(dtype).name})"
        )
    return np.array(a, dtype=dtype, order="C", copy=True)


def state_problem(kernel, board: np.ndarray, aux: np.ndarray) -> str | None:
    """What the rules kernel ``kernel`` finds wrong with the typed ``(board, aux)``, or None."""
    code, detail = kernel.check_state_detail(board, aux)
    if code == 0:
        return None
    d = int(detail)
    on_board = 0 <= d < kernel.H * kernel.W and board.shape[0] == kernel.H * kernel.W
    cell = f"({d % kernel.W + 1},{d // kernel.W + 1})" if on_board else str(d)
    value = int(board[d]) if on_board else None
    return kernel.CHECK_MESSAGES[int(code)].format(d=d, cell=cell, value=value)


def checked_state(state, kernel, variant: int | None = None, name: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``state`` as fresh ``(int8 board, int32 aux)`` arrays of ``kernel``, checked; else ValueError.

    Args:
        state: a pair ``(board, aux)``, e.g. from ``env.unwrapped.get_state()``.
        kernel: the rules kernel module (``ggpzoo.envs.<family>.kernel``).
        variant: if given, ``aux[VARIANT]`` must be it (the env's own game of the family).
        name: the env's name, for the message.
    """
    if not isinstance(state, (tuple, list)) or len(state) != 2:
        got = "None" if state is None else type(state).__name__
        if isinstance(state, (tuple, list)):
            got = f"a {got} of length {len(state)}"
        raise ValueError(f"a state is a pair (board, aux), e.g. env.unwrapped.get_state(); got {got}")
    cells = kernel.H * kernel.W
    form = f"(board ({cells},), aux ({kernel.AUX_SIZE},))"
    if name:
        form = f"{form} (not a {name} state?)"
    board = _array(state[0], "board", cells, np.int8, form)
    aux = _array(state[1], "aux", kernel.AUX_SIZE, np.int32, form)
    problem = state_problem(kernel, board, aux)
    if problem is not None:
        raise ValueError(f"bad state: {problem}")
    if variant is not None and int(aux[1]) != variant:
        what = f"{name} plays" if name else "this env plays"
        raise ValueError(
            f"bad state: aux[VARIANT] is {int(aux[1])}, {what} variant {variant} (a state of another game?)"
        )
    return board, aux
