"""Turn decomposition rules: one game action as a few cell choices, in numba.

A game action names cells (its spec's ``action_parts``: piece and destination in the
from/to games, queen, destination and arrow in ``amazons_v0``). A decomposed turn asks for
those cells one at a time, each masked to the cells that some legal action still allows.
These functions are the one copy of that rule: the AEC wrappers
([`ggpzoo.wrappers.TurnDecomposition`][ggpzoo.wrappers.TurnDecomposition] and its subclasses) and the batched self-play
env ([`ggpzoo.engine.selfplay`][ggpzoo.engine.selfplay]) both call them.

* [`action_cells()`][ggpzoo.engine.turns.action_cells] - the table ``(num_actions, parts)`` of the cells each action
  names
  (the spec's, cached);
* [`stage_mask()`][ggpzoo.engine.turns.stage_mask] - the cells open at a stage, given the choices made;
* [`complete_action()`][ggpzoo.engine.turns.complete_action] - the one legal action that agrees with every choice;
* [`forced_choices()`][ggpzoo.engine.turns.forced_choices] - make the choices (but the last) that have one option.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

__all__ = ["action_cells", "from_to_cells", "stage_mask", "complete_action", "forced_choices"]


@functools.cache
def from_to_cells(num_actions: int, cells: int) -> np.ndarray:
    """The table of from/to actions ``src * cells + dst``: row ``a`` is ``(src, dst)`` (read-only)."""
    ids = np.arange(num_actions, dtype=np.int32)
    table = np.ascontiguousarray(np.stack([ids // cells, ids % cells], axis=1).astype(np.int32))
    table.flags.writeable = False
    return table


@functools.cache
def action_cells(name: str) -> np.ndarray:
    """The cells each action of game ``name`` names, ``(num_actions, len(action_parts))``
    int32: its spec's [`action_cells()`][ggpzoo.envs.gamespec.GameSpec.action_cells], made once and
    read-only."""
    from ggpzoo.envs import spec

    table = spec(name).action_cells()
    table.flags.writeable = False
    return table


@njit(cache=True)
def _agrees(table, a, chosen, stage):
    for s in range(stage):
        if table[a, s] != chosen[s]:
            return False
    return True


@njit(cache=True)
def stage_mask(table, legal, n, chosen, stage, out):
    """``out[c] = 1`` for each cell ``c`` that some legal action in ``legal[:n]`` names at
    ``stage`` while agreeing with ``chosen[:stage]``, else 0. Returns how many cells are open."""
    out[:] = 0
    count = 0
    for j in range(n):
        a = legal[j]
        if _agrees(table, a, chosen, stage):
            c = table[a, stage]
            if out[c] == 0:
                out[c] = 1
                count += 1
    return count


@njit(cache=True)
def complete_action(table, legal, n, chosen, parts):
    """The legal action in ``legal[:n]`` whose cells are ``chosen[:parts]``; -1 if none."""
    for j in range(n):
        if _agrees(table, legal[j], chosen, parts):
            return legal[j]
    return -1


@njit(cache=True)
def forced_choices(table, legal, n, chosen, stage, parts):
    """From ``stage``, fill ``chosen`` with each choice (but the last) that has one option
    (one cell, whatever legal action is taken); returns the new stage."""
    while stage < parts - 1 and n > 0:
        first = -1
        single = True
        for j in range(n):
            a = legal[j]
            if _agrees(table, a, chosen, stage):
                if first == -1:
                    first = table[a, stage]
                elif table[a, stage] != first:
                    single = False
                    break
        if not single or first == -1:
            break
        chosen[stage] = first
        stage += 1
    return stage
