"""The AEC env class of every ggpzoo game, and the rules-kernel protocol.

A game is two pieces:

1. A **rules kernel** (``ggpzoo/envs/<family>/kernel.py``): pure numba functions over a
   state of two plain numpy arrays, knowing nothing of PettingZoo.

   ``board``
       ``int8[H * W]``, one entry per cell ``c = (y - 1) * W + (x - 1)``; the kernel
       documents what the values mean.
   ``aux``
       ``int32[AUX_SIZE]``: ``aux[ROLE]`` is the role in control (0 white, 1 black),
       ``aux[VARIANT]`` selects the game of the family, ``aux[STEP]`` counts the actions
       applied since the start; later slots are the kernel's own (phase, capture counts…).

   Every kernel module defines ``H``, ``W``, ``AUX_SIZE``, ``MAX_LEGAL`` (an upper bound on
   the number of legal actions in any state) and these ``@njit(cache=True)`` functions:

   ``init(board, aux, variant)``
       writes the start position into the arrays.
   ``legal_actions(board, aux, out) -> n``
       writes the legal action ids of the role in control, ascending, into ``out[:n]``.
   ``apply(board, aux, action)``
       plays a legal action in place (it does not check legality).
   ``is_terminal(board, aux) -> bool``
       the whole terminal test, including the rules every game shares (docs/games/index.md): a role in control with no
       legal action ends the game.
   ``goals(board, aux) -> (white, black)``
       the GGP goal values, 0..100, of the current state.
   ``observe(board, aux, role, out)``
       fills ``out`` (``[H, W, C]`` of the env's ``obs_dtype``, int8 unless the env says
       otherwise) with the observation planes from ``role``'s side.
   ``check_state(board, aux) -> code``
       0 when the kernel can play the state, else an error code; ``check_state_detail``
       also returns the cell or value, and ``CHECK_MESSAGES[code]`` says what is wrong.
       The other functions assume a state that passes (they do no bounds checks):
       `ggpzoo.envs.state_check.checked_state()` runs it on every state that comes
       from outside.

   The functions update arrays in place and read nothing but their arguments and constant
   tables, so a caller copies ``board`` and ``aux`` to keep a state (search, batching).

2. A thin **env class** (``ggpzoo/envs/<family>/<game>.py``) that subclasses
   `GGPEnv` and gives its kernel, variant, action count, observation shape and the
   human-facing pieces: action encoding in 1-based ``(x, y)`` cells and the reason an
   action is illegal.

`GGPEnv` does everything the games share: spaces, reset, dead steps, legality
checks with a clear ``ValueError``, rewards from goals at the end, goals in ``infos``,
the outcome, moves typed by people, checked ``set_state``, copies, the opt-in ``max_steps``
truncation, and the rendering (text, image, window: `ggpzoo.envs.render`).

A GDL sheet's env ([`ggpzoo.gdl.envs.raw_env`][ggpzoo.gdl.envs.raw_env]) is a `GGPEnv` too: it
keeps its state in the sheet's machine instead of kernel arrays and replaces the pieces that
read them (``_start_from``, ``_after_change``, ``step``, ``observe``, ``get_state``/``checked_state``,
``_goal_values``, ``_steps_played``, ``_read_move``, ``_why_illegal``, the board drawings).
"""

from __future__ import annotations

import copy
import importlib.util
import operator
import re
from typing import Any, NamedTuple

import numpy as np
from gymnasium import spaces
from gymnasium.error import DependencyNotInstalled
from gymnasium.utils import EzPickle
from numba import njit
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from ggpzoo.envs import render as _render
from ggpzoo.envs.gamespec import AGENTS, ROLE, STEP, VARIANT, GameSpec
from ggpzoo.envs.notation import MAX_MOVE_TEXT, MoveError, read_cells
from ggpzoo.envs.state_check import checked_state

__all__ = [
    "ROLE",
    "VARIANT",
    "STEP",
    "AGENTS",
    "GGPEnv",
    "Outcome",
    "ActionSpace",
    "make_env_fn",
    "wrapped",
    "make_parallel_fn",
    "TurnParallelEnv",
    "cell",
    "xy",
    "cell_str",
    "integer_id",
]


def cell(x: int, y: int, width: int) -> int:
    """Return the cell index of 1-based column ``x`` and row ``y``."""
    return (y - 1) * width + (x - 1)


def xy(c: int, width: int) -> tuple[int, int]:
    """Return the 1-based ``(x, y)`` of cell index ``c``."""
    return c % width + 1, c // width + 1


def cell_str(c: int, width: int) -> str:
    """Cell index ``c`` as ``"(x,y)"``, 1-based, the form every message uses."""
    x, y = xy(c, width)
    return f"({x},{y})"


def integer_id(action, n: int, what: str = "action id") -> int:
    """``action`` as an int in ``range(n)``, or a ValueError naming what is wrong with it.

    Accepts Python and numpy integers and 0-d integer arrays; refuses bools and floats.
    """
    if isinstance(action, (bool, np.bool_)):
        raise ValueError(f"action must be an integer {what}, got the bool {action!r}")
    try:
        a = operator.index(action)
    except TypeError:
        raise ValueError(
            f"action must be an integer {what} in [0, {n}), got {action!r} of type {type(action).__name__}"
        ) from None
    if not 0 <= a < n:
        raise ValueError(f"action {a} is out of range: {what}s are 0..{n - 1}")
    return a


@njit(cache=True)
def _set_mask(mask, actions, n, value):
    """``mask[actions[:n]] = value``, without numpy's fancy-indexing cost (7 us for 2000)."""
    for i in range(n):
        mask[actions[i]] = value


class ActionSpace(spaces.Discrete):
    """``Discrete(n)`` whose ``contains`` answers a plain ``int`` without numpy.

    PettingZoo's ``AssertOutOfBoundsWrapper`` asks ``contains`` at every step; gymnasium's
    takes 2 us for an int. The answers are gymnasium's for every input but bools, which
    gymnasium takes for 0 and 1 and this space refuses: through ``env()``, ``step(True)``
    then fails in ``AssertOutOfBoundsWrapper`` ("action is not in action space") instead of
    inside PettingZoo's ``TerminateIllegalWrapper`` with a numpy error.
    """

    def contains(self, x) -> bool:
        if type(x) is int:
            return 0 <= x < self.n
        if isinstance(x, (bool, np.bool_)):
            return False
        return super().contains(x)


class Outcome(NamedTuple):
    """How a finished game ended (python-chess's ``Board.outcome()`` is the model).

    ``winner`` is ``"white"``, ``"black"`` (a GDL game: the role whose goal beats every other
    role's), or None for a draw (equal goals at the top); ``goals`` the final ``{agent: goal}``;
    ``termination`` ``"rules"`` when the rules ended the game, or ``"max_steps"`` when the env's
    ``max_steps`` cut it short (then ``winner`` compares the goals of the last state); ``steps``
    the actions played (a GDL game: the joint moves).
    """

    winner: str | None
    goals: dict
    termination: str
    steps: int


class GGPEnv(AECEnv, EzPickle):
    """AEC environment over a ggpzoo rules kernel (or, in `ggpzoo.gdl.envs.raw_env`, a GDL sheet's machine).

    Subclasses set ``game_spec`` (a [`GameSpec`][ggpzoo.envs.gamespec.GameSpec]): the kernel,
    variant, spaces, pieces and ``metadata`` all come from it. They may extend
    `_info()`, implement `_why_illegal()`, and override
    [`decode_action()`][ggpzoo.envs.base.GGPEnv.decode_action]/[`encode_action()`][ggpzoo.envs.base.GGPEnv.encode_action]
    when actions are not the from/to pairs ``src * cells + dst``.

    Args:
        render_mode: ``None``; ``"ansi"`` (text); ``"rgb_array"`` (a numpy image); or
            ``"human"`` (a pygame window, redrawn after every reset and step; needs the
            ``render`` extra). See `ggpzoo.envs.render`.
        max_steps: if given, a game still running after this many actions ends by
            truncation (not termination). ``None`` (the default) plays the rules as written.
        mask_in_infos: if True, ``infos[agent]["action_mask"]`` also holds the agent's mask
            (a copy of ``observe(agent)["action_mask"]``), for libraries that read it there
            (AgileRL's multi-agent algorithms, PettingZoo's non-dict convention). Off by
            default: it copies the mask at every step.
    """

    game_spec: GameSpec
    # Copied from ``game_spec`` when a subclass sets it (read by code written before specs).
    kernel: Any
    variant: int = 0
    num_actions: int
    num_planes: int
    obs_dtype = np.int8  # dtype of the observation planes (the mask is always int8)
    obs_high = 1  # upper bound of the observation planes
    piece_chars: str  # one character per board value, e.g. ".WBx"
    file_names: str | None = None  # column labels for rendering; numbers when None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        s = cls.__dict__.get("game_spec")
        if s is None:
            return
        cls.kernel, cls.variant, cls.num_actions, cls.num_planes = s.kernel, s.variant, s.num_actions, s.num_planes
        cls.obs_dtype, cls.obs_high, cls.piece_chars, cls.file_names = (
            s.obs_dtype,
            s.obs_high,
            s.piece_chars,
            s.file_labels,
        )
        cls.metadata = {
            "name": s.name,
            "render_modes": ["ansi", "rgb_array", "human"],
            "is_parallelizable": False,
            "render_fps": 2,
        }

    def __init__(self, render_mode: str | None = None, max_steps: int | None = None, mask_in_infos: bool = False):
        EzPickle.__init__(self, render_mode=render_mode, max_steps=max_steps, mask_in_infos=mask_in_infos)
        super().__init__()
        self._setup(render_mode, max_steps, mask_in_infos)
        k = self.kernel
        self.possible_agents = list(AGENTS)
        self.agents = self.possible_agents[:]
        obs_space = spaces.Dict(
            {
                "observation": spaces.Box(0, self.obs_high, (k.H, k.W, self.num_planes), self.obs_dtype),
                "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8),
            }
        )
        # One space object per agent, returned by every call (PettingZoo's api_test checks).
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: ActionSpace(self.num_actions) for a in self.possible_agents}

        self._board = np.zeros(k.H * k.W, np.int8)
        self._aux = np.zeros(k.AUX_SIZE, np.int32)
        self._legal = np.zeros(k.MAX_LEGAL, np.int32)
        self._n_legal = 0
        self._mask = np.zeros(self.num_actions, np.int8)  # kept equal to the legal list
        self._over = True  # no game until reset()

    def _setup(self, render_mode, max_steps, mask_in_infos=False) -> None:
        """Check and keep the arguments every env takes (a bad one: a ValueError naming it)."""
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        if max_steps is not None and (
            isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1
        ):
            raise ValueError(f"max_steps must be a positive integer or None, got {max_steps!r}")
        if render_mode == "human" and importlib.util.find_spec("pygame") is None:
            raise DependencyNotInstalled(
                "render_mode='human' needs pygame: pip install 'ggpzoo[render]' (or use 'rgb_array' or 'ansi')"
            )
        if not isinstance(mask_in_infos, (bool, np.bool_)):
            raise ValueError(f"mask_in_infos must be True or False, got {mask_in_infos!r}")
        self.mask_in_infos = bool(mask_in_infos)
        self.render_mode = render_mode
        self._last_action: int | None = None  # the last action played, drawn highlighted
        self._window = None  # the pygame window of render_mode="human"
        if render_mode == "human":  # redraw after every step, without a test in step()'s hot path
            self.step = self._step_and_draw
        self.max_steps = None if max_steps is None else int(max_steps)

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ game flow
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game. The games have no chance moves: ``seed`` changes nothing (it
        must still be None or an integer, as gymnasium's seeds are)."""
        if seed is not None and (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))):
            raise ValueError(f"seed must be None or an integer, got {seed!r}")
        self._start_from(None)

    def set_state(self, state) -> None:
        """Continue from ``state``, e.g. one from [`get_state()`][ggpzoo.envs.base.GGPEnv.get_state].

        The env is as after [`reset()`][ggpzoo.envs.base.GGPEnv.reset], but in that position: every agent live,
        rewards cleared (or set, if the position is terminal). The state is copied.

        The state is checked first ([`checked_state()`][ggpzoo.envs.base.GGPEnv.checked_state]): a bad one raises
        ``ValueError`` naming the problem and leaves the env as it was.
        """
        self._start_from(self.checked_state(state))

    def checked_state(self, state):
        """``state`` as fresh arrays of this game (a kernel state ``(board, aux)``), checked
        ([`ggpzoo.envs.state_check.checked_state()`][ggpzoo.envs.state_check.checked_state]); else a
        ``ValueError`` naming the problem."""
        return checked_state(state, self.kernel, self.variant, self.metadata["name"])

    def _start_from(self, state) -> None:
        """Start from ``state`` (a checked one), or from the start position when None."""
        if state is None:
            self.kernel.init(self._board, self._aux, self.variant)
        else:
            self._board[:], self._aux[:] = state
        self._start()

    def _start(self) -> None:
        """Every agent live, rewards cleared, then the state's legal moves, goals and flags."""
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self._last_action = None
        self._after_change()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def step(self, action) -> None:
        agent = self.agent_selection
        if not self.agents:
            raise RuntimeError("step() called after the game ended and every agent was removed; call reset()")
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)  # PettingZoo: only None is accepted here
        # Fast path for a plain legal int; anything else goes through the full check.
        a = (
            action
            if type(action) is int and 0 <= action < self.num_actions and self._mask[action]
            else (self._check_action(action))
        )
        self._cumulative_rewards[agent] = 0.0
        self.kernel.apply(self._board, self._aux, a)
        self._last_action = a
        self._after_change()
        if self._over:  # rewards are zero until the end
            self._accumulate_rewards()

    def _after_change(self) -> None:
        """Refresh the legal list, mask, goals, rewards and flags from the kernel state."""
        k, board, aux = self.kernel, self._board, self._aux
        _set_mask(self._mask, self._legal, self._n_legal, 0)
        self._over = bool(k.is_terminal(board, aux))
        if self._over:
            self._n_legal = 0
        else:
            self._n_legal = k.legal_actions(board, aux, self._legal)
            _set_mask(self._mask, self._legal, self._n_legal, 1)
        gw, gb = k.goals(board, aux)
        gw, gb = int(gw), int(gb)  # plain ints also under NUMBA_DISABLE_JIT=1
        white, black = self.possible_agents
        self.infos = {white: self._info(0, gw), black: self._info(1, gb)}
        self.agent_selection = self.possible_agents[aux[ROLE]]
        if self._over:
            self.rewards = self._end_rewards((gw, gb))
            self.terminations = {white: True, black: True}
        else:
            self.rewards = {white: 0.0, black: 0.0}
            if self.max_steps is not None and aux[STEP] >= self.max_steps:
                self.truncations = {white: True, black: True}
                _set_mask(self._mask, self._legal, self._n_legal, 0)
                self._n_legal = 0
        if self.mask_in_infos:
            for a in self.possible_agents:
                self.infos[a]["action_mask"] = self._agent_mask(a)

    def _info(self, role: int, goal: int) -> dict:
        """The ``infos`` entry of ``role``; subclasses may add keys."""
        return {"goal": goal}

    def _end_rewards(self, goals) -> dict:
        """Every agent's reward at the end of a game from the goals (one per role, in order):
        `ggpzoo.engine.rewards.outcome_rewards()` (+1 above every other role, -1 below the best
        other, 0 tied at the top; a one-role game: goal / 100)."""
        from ggpzoo.engine.rewards import outcome_rewards

        out = np.zeros(len(goals))
        outcome_rewards(np.asarray(goals, np.int64), out)
        return {a: float(r) + 0.0 for a, r in zip(self.possible_agents, out, strict=True)}  # a draw: +0.0

    # ------------------------------------------------------------------ observations
    def last(self, observe: bool = True):
        """PettingZoo's ``last()``; before the first [`reset()`][ggpzoo.envs.base.GGPEnv.reset] a
        ``RuntimeError`` says to call it (as ``observe`` and the other queries do)."""
        self._need_game()
        return super().last(observe)

    def observe(self, agent):
        self._need_game()
        role = AGENTS.index(agent)
        k = self.kernel
        obs = np.empty((k.H, k.W, self.num_planes), self.obs_dtype)
        k.observe(self._board, self._aux, role, obs)
        return {"observation": obs, "action_mask": self._agent_mask(agent)}

    def _agent_mask(self, agent) -> np.ndarray:
        """A fresh copy of ``agent``'s mask: the legal actions if it is to act, else all zeros."""
        if agent == self.agent_selection and self._n_legal and not self.terminations.get(agent, True):
            return self._mask.copy()
        return np.zeros(self.num_actions, np.int8)

    def legal_actions(self) -> np.ndarray:
        """The legal action ids of ``agent_selection``, ascending (empty once the game is over,
        also when a wrapper ended it, as PettingZoo's ``TerminateIllegalWrapper`` does)."""
        if self._n_legal:
            agent = self.agent_selection
            if self.terminations.get(agent, True) or self.truncations.get(agent, True):
                return self._legal[:0].copy()
        return self._legal[: self._n_legal].copy()

    # ------------------------------------------------------------------ game over
    def is_game_over(self) -> bool:
        """Whether the game has ended: by the rules, or cut short by ``max_steps``."""
        return self._over or any(getattr(self, "truncations", {}).values())

    def _need_game(self) -> None:
        if not hasattr(self, "infos"):
            raise RuntimeError("no game yet: call reset() first")

    def outcome(self) -> Outcome | None:
        """How the game ended (an [`Outcome`][ggpzoo.envs.base.Outcome]), or None while it runs."""
        self._need_game()
        if not self.is_game_over():
            return None
        goals = {r: int(g) for r, g in zip(self.possible_agents, self._goal_values(), strict=True)}
        best = max(goals.values())
        top = [r for r, g in goals.items() if g == best]
        winner = top[0] if len(top) == 1 and len(goals) > 1 else None
        cut = any(self.truncations.values())
        return Outcome(winner, goals, "max_steps" if cut else "rules", self._steps_played())

    def _goal_values(self):
        """Every role's goal now, in role order (``infos`` loses an agent's once it is done)."""
        return self.kernel.goals(self._board, self._aux)

    def _steps_played(self) -> int:
        return int(self._aux[STEP])

    @property
    def phase(self) -> str | None:
        """The stage of a turn of several actions (``"move"``, ``"fire"``); None when a turn is one action."""
        return None

    def at_turn_start(self) -> bool:
        """Whether the next action begins a turn (not the fire step of a split turn)."""
        return True

    # ------------------------------------------------------------------ moves as text
    def move_parts(self) -> tuple[str, ...]:
        """What each cell of the next action names, e.g. ``("piece", "destination")``."""
        return self.game_spec.action_parts

    def move_help(self) -> str:
        """How to type a move now ([`parse_move()`][ggpzoo.envs.base.GGPEnv.parse_move]), with an example of a legal
        one."""
        parts = self.move_parts()
        legal = self.legal_actions()
        example = self.action_to_string(int(legal[0])) if len(legal) else "(1,1)->(2,2)"
        plain = " ".join(f"{x},{y}" for x, y in re.findall(r"\((\d+),(\d+)\)", example))
        return (
            f"A move names {len(parts)} cells ({', '.join(parts)}), each as x,y (column, row, counted from 1 "
            f"at the lower left) or as a column letter and a row (a1 = 1,1), e.g. '{plain}' or '{example}'."
        )

    def legal_moves_text(self, limit: int = 60) -> str:
        """The legal actions, as [`action_to_string()`][ggpzoo.envs.base.GGPEnv.action_to_string] writes them
        (the first ``limit``): what ``python -m ggpzoo play`` shows for 'moves'."""
        legal = self.legal_actions()
        names = [self.action_to_string(int(a)) for a in legal[:limit]]
        more = f" ... and {len(legal) - limit} more" if len(legal) > limit else ""
        return f"{len(legal)} legal moves: " + ", ".join(names) + more

    def parse_move(self, text: str) -> list[int]:
        """The legal action(s) a person means by ``text`` now: cells (``"4,1 4,5"``,
        ``"e3-f4"``, ``"(4,1)->(4,5)/(4,1)"``) or an action id (``"1234"``).

        Returns one action (two in games whose whole turn may be typed at once, such as
        ``amazons_split_v0``). Raises [`MoveError`][ggpzoo.envs.notation.MoveError] (a
        ValueError) saying why ``text`` names no legal action.
        """
        self._need_game()
        if not isinstance(text, str):
            raise MoveError(f"a move is text, got {type(text).__name__}")
        text = text.strip()
        if len(text) > MAX_MOVE_TEXT:
            raise MoveError(f"a move is at most {MAX_MOVE_TEXT} characters, got {len(text)}")
        return self._read_move(text)

    def _read_move(self, text: str) -> list[int]:
        """`parse_move()` of stripped ``text`` of a sensible length."""
        if text.isascii() and text.isdigit():  # a raw action id (not '²' or other digits int() refuses)
            a = int(text)
            if not 0 <= a < self.num_actions:
                raise MoveError(f"action id {a} is out of range: ids are 0..{self.num_actions - 1}")
            return [self._legal_or_raise(a)]
        return self._actions_from_cells(read_cells(text, self.kernel.W, self.kernel.H), text)

    def _actions_from_cells(self, cells: list[tuple[int, int]], text: str) -> list[int]:
        parts = self.move_parts()
        if len(cells) != len(parts):
            raise MoveError(f"a move here names {len(parts)} cells ({', '.join(parts)}); {text!r} names {len(cells)}")
        try:
            a = self.encode_action(*cells)
        except ValueError as e:
            raise MoveError(f"{text!r} is not a move: {e}") from None
        return [self._legal_or_raise(a)]

    def _legal_or_raise(self, a: int) -> int:
        reason = self.explain_illegal(a)
        if reason is not None:
            raise MoveError(f"{self.action_to_string(a)} is illegal: {reason}")
        return a

    def explain_illegal(self, action) -> str | None:
        """None if ``action`` is legal now, else why not (a short sentence).

        Raises ValueError if ``action`` is not an action id of ``agent_selection`` at all.
        """
        self._need_game()
        mask = self._mask
        a = integer_id(action, len(mask))
        if mask[a]:
            return None
        if self.is_game_over():
            return "the game is over"
        return self._why_illegal(a)

    # ------------------------------------------------------------------ actions
    def _check_action(self, action) -> int:
        """Return ``action`` as an int if it is legal now, else raise a ValueError saying why."""
        mask = self._mask
        a = integer_id(action, len(mask))
        if mask[a]:
            return a
        reason = self.explain_illegal(a)
        raise ValueError(f"action {a} = {self.action_to_string(a)} is illegal for {self.agent_selection}: {reason}")

    def action_to_string(self, action: int, role: str | None = None) -> str:
        """``action`` as its 1-based cells, e.g. ``(4,1)->(4,5)/(4,1)`` (the same for every ``role``)."""
        cells = self.decode_action(action)
        return "->".join(f"({x},{y})" for x, y in cells[:2]) + "".join(f"/({x},{y})" for x, y in cells[2:])

    def decode_action(self, action: int) -> tuple[tuple[int, int], ...]:
        """Return the 1-based ``(x, y)`` cells that action id ``action`` names.

        The default is the from/to encoding ``a = src * cells + dst`` of most games.
        """
        n = self.kernel.H * self.kernel.W
        a = integer_id(action, self.num_actions)
        return xy(a // n, self.kernel.W), xy(a % n, self.kernel.W)

    def encode_action(self, *cells: tuple[int, int]) -> int:
        """Return the action id of the given 1-based ``(x, y)`` cells (default: from, to)."""
        if len(cells) != 2:
            raise ValueError(f"a {self.metadata['name']} action names 2 cells (from, to), got {len(cells)}")
        src, dst = (self._cell(c) for c in cells)
        return src * self.kernel.H * self.kernel.W + dst

    def _cell(self, xy_: tuple[int, int]) -> int:
        """The index of the 1-based cell ``(x, y)``; ValueError if it is off the board."""
        k = self.kernel
        try:
            x, y = xy_
            if isinstance(x, (bool, np.bool_)) or isinstance(y, (bool, np.bool_)):
                raise TypeError
            x, y = operator.index(x), operator.index(y)
        except (TypeError, ValueError):
            raise ValueError(f"a cell is a pair of integers (x, y), got {xy_!r}") from None
        if not (1 <= x <= k.W and 1 <= y <= k.H):
            raise ValueError(f"cell {xy_} is off the {k.W}x{k.H} board (x runs 1..{k.W}, y 1..{k.H})")
        return cell(x, y, k.W)

    def _first_occupied(self, a: int, b: int, inclusive: bool = False) -> int | None:
        """The first non-empty cell from ``a`` towards ``b`` along their line, ``a`` excluded and
        ``b`` only if ``inclusive``; None if there is none. ``a`` and ``b`` share a line."""
        w = self.kernel.W
        (x, y), (bx, by) = xy(a, w), xy(b, w)
        dx, dy = (bx > x) - (bx < x), (by > y) - (by < y)
        while (x, y) != (bx, by):
            x, y = x + dx, y + dy
            if (x, y) == (bx, by) and not inclusive:
                break
            if self._board[cell(x, y, w)] != 0:
                return cell(x, y, w)
        return None

    def _why_illegal(self, action: int) -> str:
        """A short reason why the in-range ``action`` is not legal in the current state."""
        raise NotImplementedError

    # ------------------------------------------------------------------ state and rendering
    def get_state(self) -> tuple[np.ndarray, np.ndarray]:
        """A copy of the kernel state ``(board, aux)``."""
        return self._board.copy(), self._aux.copy()

    def render(self):
        """The current position: text (``"ansi"``), an ``uint8 (rows, columns, 3)`` image
        (``"rgb_array"``) or a redrawn window (``"human"``, returns None)."""
        mode = self.render_mode
        if mode is None:
            import gymnasium

            modes = [repr(m) for m in self.metadata["render_modes"]]
            modes = ", ".join(modes[:-1]) + " or " + modes[-1] if len(modes) > 1 else modes[0]
            gymnasium.logger.warn(f"render() called without a render_mode; pass render_mode={modes}")
            return None
        if mode == "ansi":
            return self.board_string()
        image = self.board_image()
        if mode == "rgb_array":
            return image
        if self._window is None:
            self._window = _render.Window(f"ggpzoo: {self.metadata['name']}", self.metadata["render_fps"])
        self._window.show(image)
        return None

    def _step_and_draw(self, action) -> None:
        """``step`` of ``render_mode="human"``: the step, then the window redrawn."""
        type(self).step(self, action)
        self.render()

    def last_action_cells(self) -> tuple[int, ...]:
        """The cell indices the last action named (empty after reset or ``set_state``)."""
        if self._last_action is None:
            return ()
        w = self.kernel.W
        return tuple((y - 1) * w + (x - 1) for x, y in self.decode_action(self._last_action))

    def board_string(self) -> str:
        """The board as text, row ``H`` at the top, with 1-based coordinates (files a.. where
        the game names them) and the cells of the last action in ``[brackets]``."""
        k = self.kernel
        return _render.board_text(self._board, k.H, k.W, self.piece_chars, self.file_names, self.last_action_cells())

    def board_image(self, cell_px: int | None = None) -> np.ndarray:
        """The board as an ``uint8 (rows, columns, 3)`` RGB image (what ``"rgb_array"`` renders),
        cells ``cell_px`` pixels wide (default `ggpzoo.envs.render.CELL_PX`)."""
        k = self.kernel
        to_move = int(self._aux[ROLE]) if self._n_legal else None  # no dot once the game is over
        return _render.board_image(
            self._board,
            k.H,
            k.W,
            self.piece_chars,
            self.file_names,
            self.last_action_cells(),
            to_move=to_move,
            cell_px=cell_px or _render.CELL_PX,
        )

    def __deepcopy__(self, memo):
        """An independent copy of the env and its game (``EzPickle`` alone would rebuild a fresh env)."""
        new = type(self).__new__(type(self))
        memo[id(self)] = new
        for key, value in self.__dict__.items():
            if key == "step":  # render_mode="human" binds step to _step_and_draw
                continue
            new.__dict__[key] = None if key == "_window" else self._copied(key, value, memo)
        if self.render_mode == "human":
            new.step = new._step_and_draw
        return new

    def _copied(self, key: str, value, memo):
        """The copy's value of attribute ``key`` (a deep copy; subclasses share what is read-only)."""
        return copy.deepcopy(value, memo)

    def __copy__(self):
        return self.__deepcopy__({})

    def close(self) -> None:
        if self._window is not None:
            self._window.close()
            self._window = None


class TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's, with ``set_state``, and judging each action by the mask of the position
    at that step (PettingZoo's judges it by the mask its last ``observe`` kept, stale after a
    ``set_state`` on the unwrapped env)."""

    def set_state(self, state) -> None:
        self.env.set_state(state)  # checked there first: a bad state changes nothing here either
        self._prev_obs = None
        self._prev_info = None
        self._terminated = False

    def step(self, action) -> None:
        # Judge the action by the mask of the position now, not by the one the last observe()
        # kept: ``env.unwrapped.set_state()`` changes the position behind this wrapper.
        self._prev_obs, self._prev_info = {"action_mask": self.env.unwrapped._mask}, None
        super().step(action)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's, with ``set_state`` counted as a reset, a ``reset`` that raised (a bad
    seed) not counted as one, and copies that share nothing: ``copy.copy(env())`` is a
    deep copy (a shallow one would share the game)."""

    def reset(self, seed=None, options=None) -> None:
        was = self._has_reset, self._has_updated
        try:
            super().reset(seed=seed, options=options)
        except Exception:
            self._has_reset, self._has_updated = was
            raise

    def set_state(self, state) -> None:
        self.env.set_state(state)
        self._has_reset = True

    def __copy__(self):
        return copy.deepcopy(self)

    def __str__(self) -> str:
        return str(self.env)


def wrapped(raw: GGPEnv):
    """``raw`` in the PettingZoo-classic wrappers every ggpzoo ``env()`` returns (with
    ``set_state``: an illegal move ends the game at -1, ``set_state`` counts as a reset)."""
    e = TerminateIllegalWrapper(raw, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return OrderEnforcingWrapper(e)


def make_env_fn(raw_env_cls):
    """Return the PettingZoo-classic ``env()`` factory for ``raw_env_cls``."""

    def env(**kwargs):
        return wrapped(raw_env_cls(**kwargs))

    env.__doc__ = f"The wrapped {raw_env_cls.metadata['name']} environment (PettingZoo classic wrappers)."
    return env


class TurnParallelEnv(ParallelEnv, EzPickle):
    """PettingZoo's Parallel API for a game whose roles take turns (a hand-written game).

    Every step takes an ``actions`` dict; only the action of the role to move counts (its
    ``action_mask`` shows its legal actions; the other role's mask is all zeros, and its action,
    if given, is ignored). ``infos[agent]["active_agent"]`` names the role to move. Rewards,
    goals, ``max_steps`` and the observation are the AEC env's (``raw_env``, whose arguments
    this takes); once the game ends no agent is live. A GDL sheet's Parallel env,
    `ggpzoo.gdl.envs.parallel_env` (a subclass), takes every role's action each step instead, since
    its roles may move at once.
    """

    def __init__(self, raw_env_cls, **kwargs):
        EzPickle.__init__(self, raw_env_cls, **kwargs)
        self._adopt(raw_env_cls(**kwargs))

    def _adopt(self, aec: GGPEnv) -> None:
        self.aec = aec
        self.possible_agents = self.aec.possible_agents[:]
        self.agents = []
        self.metadata = dict(self.aec.metadata, is_parallelizable=True)
        self.render_mode = self.aec.render_mode

    def observation_space(self, agent):
        return self.aec.observation_space(agent)

    def action_space(self, agent):
        return self.aec.action_space(agent)

    @property
    def unwrapped(self):
        return self

    def _out(self):
        e = self.aec
        obs = {a: e.observe(a) for a in self.agents}
        infos = {a: dict(e.infos[a], active_agent=e.agent_selection) for a in self.agents}
        return obs, infos

    def reset(self, seed=None, options=None):
        self.aec.reset(seed=seed, options=options)
        self.agents = self.possible_agents[:]
        return self._out()

    def step(self, actions):
        e = self.aec
        if not self.agents:
            raise RuntimeError("step() after the game ended; call reset()")
        if not isinstance(actions, dict):
            raise TypeError(f"actions must be a dict agent -> action, got {type(actions).__name__}")
        mover = e.agent_selection
        if mover not in actions:
            raise ValueError(f"no action for {mover}, the agent to move")
        e.step(actions[mover])  # checked by the AEC env: an illegal action raises ValueError, nothing changes
        obs, infos = self._out()
        rewards = {a: float(e.rewards[a]) for a in self.agents}
        terms = {a: bool(e.terminations[a]) for a in self.agents}
        truncs = {a: bool(e.truncations[a]) for a in self.agents}
        if any(terms.values()) or any(truncs.values()):
            self.agents = []
        return obs, rewards, terms, truncs, infos

    def state(self):
        return self.aec.state() if hasattr(self.aec, "state") else None

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()


def make_parallel_fn(raw_env_cls):
    """Return the ``parallel_env()`` factory for ``raw_env_cls``: a
    [`TurnParallelEnv`][ggpzoo.envs.base.TurnParallelEnv] over it."""

    def parallel_env(**kwargs):
        return TurnParallelEnv(raw_env_cls, **kwargs)

    parallel_env.__doc__ = f"The {raw_env_cls.metadata['name']} environment with PettingZoo's Parallel API."
    return parallel_env
