"""``GameSpec``: the static facts of one game, in one frozen record.

Every game has one spec, written next to its kernel (``ggpzoo/envs/<family>/spec.py``) and
registered in `ggpzoo.envs`. The AEC env class is built from it, and every tool,
wrapper, agent and the batched engine asks the spec instead of testing the game's name
(OpenSpiel's ``GameType``/``Game`` facts and pgx's ``Env`` properties play the same part)::

    >>> import ggpzoo.envs
    >>> s = ggpzoo.envs.spec("skirmish_v0")
    >>> s.num_actions, s.obs_shape, s.action_parts
    (4096, (8, 8, 17), ('piece', 'destination'))

A spec needs numpy and numba only: no PettingZoo, no gymnasium.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType, ModuleType
from typing import ClassVar

import numpy as np

__all__ = ["GameSpec", "ROLE", "VARIANT", "STEP", "AGENTS", "MOVE_DECOMPOSITION"]

# Slots of ``aux`` shared by every kernel, and the roles.
ROLE = 0
VARIANT = 1
STEP = 2
AGENTS = ("white", "black")
# The decomposition of from/to actions ``src * cells + dst``: source cell, then destination.
MOVE_DECOMPOSITION = "ggpzoo.wrappers.turns:MoveDecomposition"


@dataclass(frozen=True, eq=False)
class GameSpec:
    """What one game is: its kernel and variant, spaces, notation and training aids.

    Args:
        name: the env name, ``"<game>_v<N>"``.
        kernel: the rules-kernel module (the protocol in `ggpzoo.envs.base`).
        variant: the kernel's ``aux[VARIANT]`` for this game.
        num_actions: the size of the flat ``Discrete`` action space.
        num_planes: observation planes; the observation is ``(H, W, num_planes)``.
        env_module: the module holding ``raw_env`` and ``env``.
        piece_chars: one character per board value, for text boards and drawings.
        obs_dtype, obs_high: the observation planes' dtype and upper bound.
        file_labels: column labels (``"abcdefghij"``); 1-based numbers when None.
        action_parts: what each cell named by an action is, in order (the from/to games:
            piece, destination). Its length is the number of cells an action names.
        turn_actions: actions in a full turn (everything one role does before the other).
        action_table: the name of the kernel's table of the cells each action names (one
            row per action id, one column per part, e.g. ``"DECODE"``); None when the ids
            are ``src * cells + dst`` (see [`action_cells()`][ggpzoo.envs.gamespec.GameSpec.action_cells]).
        decomposition: the wrapper that splits an action into cell choices, as
            ``"module:Class"`` (`MOVE_DECOMPOSITION` for from/to actions); None if
            there is none.
        decompose_by_default: training decomposes this game's actions unless told not to
            (an action space too large to learn as one choice).
        potential: ``fn(board, aux) -> float`` in [-1, 1], white's view, for potential-based
            shaping; None if the game has none.
        reach_planes: ``fn(board, role, out)`` filling two extra planes (the cells each
            side reaches); None if the game has none.
        feature_planes: ``fn(board, role, out)`` filling ``num_feature_planes`` extra input
            planes for the AlphaZero network ([`AZNet`][ggpzoo.training.az.AZNet]'s
            ``features``): facts a small network cannot compute from the board planes in a
            few layers, as AlphaGo's inputs held liberties; None if the game has none.
        num_feature_planes: how many planes ``feature_planes`` fills.
        recipe: the game's training recipe, what differs from the defaults of
            [`ggpzoo.training.train.DEFAULT_RECIPE`][ggpzoo.training.train.DEFAULT_RECIPE] (reward, shaping,
            decomposition, network, discount...): what ``python -m ggpzoo train`` and ``bench --train`` use.
        references: other implementations of the same or a similar game, for the
            benchmark ([`ggpzoo.tools.bench`][ggpzoo.tools.bench]): ``"openspiel"`` an OpenSpiel game timed through
            ``rl_environment`` and ``"pyspiel"`` one timed through its C++ state API, each
            ``(game, params, actions per turn)``; ``"chess"`` a PettingZoo classic env name.
    """

    # What kind of game: "kernel" (a rules kernel; this class) or "gdl" (a rule sheet,
    # `ggpzoo.gdl.spec.GDLSpec`). Tools that take both ask this.
    kind: ClassVar[str] = "kernel"
    agents: ClassVar[tuple[str, ...]] = AGENTS

    name: str
    kernel: ModuleType
    variant: int
    num_actions: int
    num_planes: int
    env_module: str
    piece_chars: str
    obs_dtype: type = np.int8
    obs_high: float = 1
    file_labels: str | None = None
    action_parts: tuple[str, ...] = ("piece", "destination")
    turn_actions: int = 1
    action_table: str | None = None
    decomposition: str | None = None
    decompose_by_default: bool = False
    potential: Callable[[np.ndarray, np.ndarray], float] | None = None
    reach_planes: Callable | None = None
    feature_planes: Callable | None = None
    num_feature_planes: int = 0
    recipe: Mapping[str, object] = field(default_factory=dict)
    references: Mapping[str, tuple] = field(default_factory=dict)

    def __post_init__(self):
        object.__setattr__(self, "references", MappingProxyType(dict(self.references)))
        object.__setattr__(self, "recipe", MappingProxyType(dict(self.recipe)))

    def __repr__(self) -> str:
        return f"GameSpec({self.name!r})"

    # ------------------------------------------------------------------ derived facts
    @property
    def height(self) -> int:
        return int(self.kernel.H)

    @property
    def width(self) -> int:
        return int(self.kernel.W)

    @property
    def num_cells(self) -> int:
        return int(self.kernel.H * self.kernel.W)

    @property
    def aux_size(self) -> int:
        return int(self.kernel.AUX_SIZE)

    @property
    def max_legal(self) -> int:
        """An upper bound on the number of legal actions in any state."""
        return int(self.kernel.MAX_LEGAL)

    @property
    def obs_shape(self) -> tuple[int, int, int]:
        return (self.height, self.width, self.num_planes)

    def action_cells(self) -> np.ndarray:
        """``int32[num_actions, len(action_parts)]``: the cells each action id names, in the
        order of ``action_parts`` (a new array on every call).

        >>> import ggpzoo.envs
        >>> ggpzoo.envs.spec("skirmish_v0").action_cells()[8 * 64 + 16].tolist()
        [8, 16]
        """
        parts = len(self.action_parts)
        if self.action_table is not None:
            table = np.asarray(getattr(self.kernel, self.action_table), np.int32)
        elif parts == 2 and self.num_actions == self.num_cells**2:
            from ggpzoo.engine.turns import from_to_cells

            table = from_to_cells(self.num_actions, self.num_cells).copy()
        else:
            raise ValueError(f"{self.name}: its action ids are not src * cells + dst; give the spec an action_table")
        if table.shape != (self.num_actions, parts):
            raise ValueError(f"{self.name}: the action table has shape {table.shape}, not {(self.num_actions, parts)}")
        return np.ascontiguousarray(table)

    @property
    def registry_id(self) -> str:
        """``"amazons_split_v0"`` -> ``"ggpzoo/amazons_split-v0"`` (PettingZoo's registry)."""
        game, _, version = self.name.rpartition("_")
        return f"ggpzoo/{game}-{version}"

    # ------------------------------------------------------------------ states
    def new_state(self) -> tuple[np.ndarray, np.ndarray]:
        """A fresh ``(board, aux)`` at the start position."""
        board = np.zeros(self.num_cells, np.int8)
        aux = np.zeros(self.aux_size, np.int32)
        self.kernel.init(board, aux, self.variant)
        return board, aux

    def check_state(self, state) -> tuple[np.ndarray, np.ndarray]:
        """``state`` as fresh, contiguous ``(int8 board, int32 aux)`` arrays of this game, or a
        ValueError naming the first problem
        ([`ggpzoo.envs.state_check.checked_state()`][ggpzoo.envs.state_check.checked_state]:
        types and shapes, then the kernel's own ``check_state`` of the position)."""
        from ggpzoo.envs.state_check import checked_state

        return checked_state(state, self.kernel, self.variant, self.name)

    # ------------------------------------------------------------------ env
    def env_factory(self):
        """The ``env()`` factory (imports PettingZoo)."""
        return importlib.import_module(self.env_module).env

    def decomposition_wrapper(self):
        """The wrapper class named by ``decomposition`` (imports PettingZoo), or None."""
        if self.decomposition is None:
            return None
        module, _, name = self.decomposition.partition(":")
        return getattr(importlib.import_module(module), name)
