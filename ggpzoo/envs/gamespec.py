"""``GameSpec``: the static facts of one game, in one frozen record.

Every game has one spec. A hand-written game's is written next to its kernel
(``ggpzoo/envs/<family>/spec.py``) and registered in `ggpzoo.envs`; a GDL rule sheet's is
made when the sheet is read (``spec("gdl:tictactoe")``, `ggpzoo.gdl.spec.gdl_spec()`),
with the table interpreter of compiled sheets as its kernel. The env classes are built
from it, and every tool, wrapper, agent and the batched engine asks the spec for the
capabilities it needs (roles, ``simultaneous``, action counts, observation shape, training
aids) instead of testing the game's name or kind (OpenSpiel's ``GameType``/``Game`` facts and
pgx's ``Env`` properties play the same part)::

    >>> import ggpzoo.envs
    >>> s = ggpzoo.envs.spec("skirmish_v0")
    >>> s.num_actions, s.obs_shape, s.action_parts
    (4096, (8, 8, 17), ('piece', 'destination'))
    >>> t = ggpzoo.envs.spec("gdl:tictactoe")
    >>> t.agents, t.action_counts, t.simultaneous
    (('xplayer', 'oplayer'), {'xplayer': 10, 'oplayer': 10}, True)

The arrays of the engine's game protocol (`ggpzoo.engine.dispatch`) come from the spec
too: ``kernel_id``, ``variant``, the read-only tables ``tables`` and a work area per game
``work()`` (both empty for a hand-written kernel), ``board_size`` and ``aux_size``.

A spec needs numpy and numba only: no PettingZoo, no gymnasium.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property, partial
from types import MappingProxyType, ModuleType

import numpy as np

__all__ = ["GameSpec", "ROLE", "VARIANT", "STEP", "AGENTS", "MOVE_DECOMPOSITION"]

# Slots of ``aux`` shared by every kernel, and the roles.
ROLE = 0
VARIANT = 1
# About how many seconds numba takes to compile a game's engine with an empty cache on 2 cores:
# the hand-written kernels, or the sheet interpreter (the first run's notice says so).
ENGINE_COMPILE_SECONDS = {"kernels": 15, "sheet": 60}
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
        agents: the roles, in order (role ``i`` is ``aux[ROLE] == i``).
        role_actions: each role's action count, when the roles' action spaces differ in
            size; None when every role has ``num_actions``.
        simultaneous: whether several roles may choose at once in some state (a GDL sheet
            where more than one role has a choice of moves); the game protocol's
            ``status`` then says ``SIMULTANEOUS`` in those states.
        aux_in_state: whether ``aux`` is part of what the state is (two states are the same
            only if their boards and auxes are); False for a sheet, whose ``aux`` holds what its
            fluents imply and a count of the joint moves played.
        game: the loaded [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game] of a GDL game; None for a
            hand-written one.
        path: a GDL game's ``.kif`` file (empty for a sheet loaded from text).
        references: other implementations of the same or a similar game, for the
            benchmark ([`ggpzoo.tools.bench`][ggpzoo.tools.bench]): ``"openspiel"`` an OpenSpiel game timed through
            ``rl_environment`` and ``"pyspiel"`` one timed through its C++ state API, each
            ``(game, params, actions per turn)``; ``"chess"`` a PettingZoo classic env name.
    """

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
    agents: tuple[str, ...] = AGENTS
    role_actions: tuple[int, ...] | None = None
    simultaneous: bool = False
    aux_in_state: bool = True
    game: object | None = None
    path: str = ""

    def __post_init__(self):
        object.__setattr__(self, "references", MappingProxyType(dict(self.references)))
        object.__setattr__(self, "recipe", MappingProxyType(dict(self.recipe)))

    def __repr__(self) -> str:
        return f"GameSpec({self.name!r})"

    # ------------------------------------------------------------------ capabilities
    @property
    def num_roles(self) -> int:
        return len(self.agents)

    @property
    def action_counts(self) -> dict[str, int]:
        """role -> the size of its ``Discrete`` action space."""
        counts = self.role_actions or (self.num_actions,) * self.num_roles
        return dict(zip(self.agents, (int(c) for c in counts), strict=True))

    @property
    def sheet(self) -> str | None:
        """A GDL game's sheet name (``"tictactoe"`` for ``gdl:tictactoe`` and
        ``gdl:dir/tictactoe.kif``); None for a hand-written game."""
        return None if self.game is None else self.game.name

    @property
    def num_fluents(self) -> int:
        """A GDL game's base set size (its observation's fluents); 0 for a hand-written game."""
        return 0 if self.game is None else len(self.game.fluents)

    @property
    def label(self) -> str:
        """A name safe for file and folder names: the env name, ``"gdl_tictactoe"`` for a sheet."""
        return f"gdl_{self.game.name}" if self.game is not None else self.name

    @property
    def portable_name(self) -> str:
        """A name that gives this game back from any working directory (what a saved model
        records): the env name; for a sheet its shipped name (``"gdl:tictactoe"``), else
        ``gdl:`` and its absolute path (a sheet loaded from text: its name)."""
        if self.game is None or not self.path:
            return self.name
        from ggpzoo.gdl import game_path

        try:
            shipped = game_path(self.game.name)
        except ValueError:
            shipped = None
        return f"gdl:{self.game.name}" if shipped == self.path else f"gdl:{self.path}"

    @property
    def fingerprint(self) -> str | None:
        """``"sha256:..."`` of a sheet's text, which a saved model records so that a model of
        another sheet is refused before that sheet is read; None for a hand-written game."""
        if self.game is None:
            return None
        import hashlib

        return "sha256:" + hashlib.sha256(self.game.text.encode()).hexdigest()

    @property
    def kernel_id(self) -> int:
        """The game's id in the engine's dispatch ([`ggpzoo.engine.dispatch`][ggpzoo.engine.dispatch])."""
        from ggpzoo.engine.dispatch import kernel_id

        return kernel_id(self.kernel)

    @cached_property
    def network(self):
        """A GDL game's compiled network ([`ggpzoo.gdl.propnet.Propnet`][ggpzoo.gdl.propnet.Propnet]), built once
        (grounding the sheet); ValueError for a hand-written game."""
        if self.game is None:
            raise ValueError(f"{self.name} is a hand-written game: it has no compiled network")
        return self.game.propnet()

    @property
    def tables(self) -> np.ndarray:
        """The read-only tables ``T`` of the game protocol (empty for a hand-written kernel)."""
        if self.game is None:
            from ggpzoo.engine.dispatch import NO_TABLES

            return NO_TABLES
        return self.network.tables

    def work(self) -> np.ndarray:
        """A new work area ``W`` of one game (``int32``; empty for a hand-written kernel)."""
        if self.game is None:
            return np.zeros(0, np.int32)
        return self.network.work()

    @property
    def board_size(self) -> int:
        """The length of a state's ``board`` (``int8``): cells, or a sheet's state fluents."""
        if self.game is None:
            return self.num_cells
        return len(self.network.fluents)

    @property
    def compile_seconds(self) -> int:
        """About how long numba takes to compile this game's engine with an empty cache
        (`ENGINE_COMPILE_SECONDS`): for the notice of a first run."""
        return ENGINE_COMPILE_SECONDS["kernels" if self.game is None else "sheet"]

    @property
    def planes_shape(self) -> tuple[int, int, int]:
        """The shape the game protocol's ``observation`` writes: ``obs_shape``, or
        ``(1, 1, n)`` for a sheet's observation vector of ``n``."""
        shape = self.obs_shape
        return shape if len(shape) == 3 else (1, 1, shape[0])

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
        """An upper bound on the number of legal actions of one role in any state."""
        if self.game is not None:
            return max(int(self.network.max_legal), 1)
        return int(self.kernel.MAX_LEGAL)

    @property
    def obs_shape(self) -> tuple[int, ...]:
        """The observation's shape: ``(H, W, planes)``, or ``(planes,)`` for a sheet (its
        base set's fluents, then a one-hot of the role)."""
        if self.game is not None:
            return (self.num_planes,)
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
        board = np.zeros(self.board_size, np.int8)
        aux = np.zeros(self.aux_size, np.int32)
        if self.game is None:
            self.kernel.init(board, aux, self.variant)
            return board, aux
        from ggpzoo.engine.dispatch import start
        from ggpzoo.envs.propnet.kernel import ERRORS

        code = start(self.kernel_id, board, aux, self.tables, self.work(), self.variant)
        if code != 0:
            raise ValueError(f"{self.name}: {ERRORS.get(code + 10, code)}")
        return board, aux

    def check_state(self, state) -> tuple[np.ndarray, np.ndarray]:
        """``state`` as fresh, contiguous ``(int8 board, int32 aux)`` arrays of this game, or a
        ValueError naming the first problem
        ([`ggpzoo.envs.state_check.checked_state()`][ggpzoo.envs.state_check.checked_state]:
        types and shapes, then the kernel's own ``check_state`` of the position). A GDL game's
        state may also be its env's ``get_state()`` or the fluents that hold
        ([`ggpzoo.gdl.states.protocol_state()`][ggpzoo.gdl.states.protocol_state])."""
        if self.game is not None:
            from ggpzoo.gdl.states import protocol_state

            return protocol_state(self.game, state)
        from ggpzoo.envs.state_check import checked_state

        return checked_state(state, self.kernel, self.variant, self.name)

    # ------------------------------------------------------------------ env
    def _factory(self, name: str):
        f = getattr(importlib.import_module(self.env_module), name)
        return f if self.game is None else partial(f, self.game)

    def env_factory(self):
        """The ``env()`` factory (imports PettingZoo): ``env(**kwargs)`` makes the wrapped AEC env."""
        return self._factory("env")

    def env(self, **kwargs):
        """The wrapped AEC env of this game (PettingZoo's ``env()``)."""
        return self._factory("env")(**kwargs)

    def raw_env(self, **kwargs):
        """The unwrapped AEC env of this game."""
        return self._factory("raw_env")(**kwargs)

    def parallel_env(self, **kwargs):
        """This game with PettingZoo's Parallel API (roles that take turns: only the mover's
        action counts, [`TurnParallelEnv`][ggpzoo.envs.base.TurnParallelEnv]; a sheet: every role's)."""
        return self._factory("parallel_env")(**kwargs)

    def module(self):
        """What [`ggpzoo.envs.load()`][ggpzoo.envs.load] returns: the env module, or for a sheet its
        ``env``, ``raw_env`` and ``parallel_env`` bound to it."""
        if self.game is None:
            return importlib.import_module(self.env_module)
        from types import SimpleNamespace

        names = ("env", "raw_env", "parallel_env")
        return SimpleNamespace(**{n: self._factory(n) for n in names})

    def decomposition_wrapper(self):
        """The wrapper class named by ``decomposition`` (imports PettingZoo), or None."""
        if self.decomposition is None:
            return None
        module, _, name = self.decomposition.partition(":")
        return getattr(importlib.import_module(module), name)
