"""
# Any GDL game (`ggpzoo.gdl.env(path)`)

| Creation           | `ggpzoo.gdl.env("game.kif")`, `raw_env(...)`, `parallel_env(...)`               |
|--------------------|----------------------------------------------------------------------------------|
| Agents             | the sheet's roles, in the sheet's order                                          |
| Action space       | `Discrete(k)` per role: its possible moves (`input`, else grounding or domains)  |
| Observation        | `{"observation": int8 (F + R,), "action_mask": int8 (k,)[, "planes": int8 (H, W, C)]}` |
| Backends           | `"compiled"` (propositional network in numba), `"exact"` (the reasoner), `"auto"` |

A GDL game is simultaneous: every role makes a move at every step, and turn-taking games
give the waiting role a single legal move (`noop`). In this AEC env a role with exactly
one legal move plays it automatically (`forced` lists the joint moves where no role had a
choice that the last `step()` or `reset()` played, each as `[(role, action id), ...]`);
the roles with a choice act in role order
(`agent_selection`), and the joint move is applied once all have chosen. A state the
sheet does not call terminal where some role has no legal move ends the game (as in
the rules every game shares (docs/games/index.md)).

`raw_env` is a `ggpzoo.envs.base.GGPEnv`, the env class of every ggpzoo game: `reset` (its
`seed`: None or an integer; the sheets have no chance), dead steps, an illegal action's
`ValueError` (which says why), `outcome()`, `explain_illegal()`, the checks of `set_state`,
copies and `render` are theirs. `parallel_env` (a `TurnParallelEnv` in which every live role
gives an action at each step) plays one joint move per step.

### Observation
`observation`: one byte per fluent of the base set (`game.fluents`, from `base`,
grounding or argument domains), 1 when the fluent is true, followed by a one-hot of the observing role.
`planes` (only when the fluents describe a grid, `(cell ?x ?y ...)` and the like):
`planes[y, x, c]` is 1 when the fluent of channel `c` (`env.unwrapped.plane_names[c]`)
holds at coordinates (x, y), both in the sheet's own order (numbers numerically).
`action_mask`: 1 for the legal moves of `agent_selection`, zeros for every other agent
and once the game is over.

### Actions
Action id `i` of a role is `env.unwrapped.actions[role][i]`; `action_to_term(i)` gives its
GDL text, e.g. `"(mark 1 3)"`, and `term_to_action("(mark 1 3)")` the id (of
`agent_selection`, or of `role=`). `parse_move("mark 1 3")` reads a move as a person types
it (any case, or its number in `legal_moves_text()`), as `python -m ggpzoo play` does.

### Rendering
`render_mode="ansi"`: the board where the fluents describe a grid, with a legend and the
other true fluents, else the true fluents (`board_string()`, `ggpzoo.gdl.board`);
`board_image()` draws the grid as an RGB image.

### Positions
`set_state(state)` continues from `get_state()`'s value or from a list of the fluents that
hold (`["(cell 1 1 x)", "(control oplayer)"]`); `checked_state(state)` checks one.

### Goals and rewards
`infos[agent]["goal"]` is the role's goal value in the current state, after reset and
after every step. Rewards are 0 until the end; then, with two or more roles, +1 for a
role whose goal beats every other role's, -1 for one below the best other, 0 for a tie
at the top; in a one-role game, goal / 100.

### Version history
* v0: initial release; `set_state` and `checked_state` added in 0.6.0 (no change to play).
  In 0.7.0 `render_mode="ansi"` draws the grid (it listed the true fluents) and the moves of
  people (`parse_move`, `move_help`), `outcome` and `board_image` were added (no change to play);
  `raw_env` became a `GGPEnv` (`reset` refuses a `seed` that is not an integer; no change to play).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from ggpzoo.envs.base import ActionSpace, GGPEnv, TurnParallelEnv, integer_id, wrapped
from ggpzoo.envs.notation import MoveError
from ggpzoo.envs.propnet.kernel import MAX_FORCED  # joint moves in a row with no choice before the env gives up
from ggpzoo.gdl.board import SheetBoard
from ggpzoo.gdl.game import Game, load
from ggpzoo.gdl.spec import gdl_spec
from ggpzoo.gdl.states import fluent_terms, fluent_vector, one_term, state_from_fluents
from ggpzoo.gdl.syntax import GDLError, sort_key, to_text

__all__ = ["env", "grid_layout", "make_machine", "parallel_env", "raw_env"]


def _coord(t) -> bool:
    return type(t) is str and ((t.isascii() and t.isdigit()) or (len(t) == 1 and t.isascii() and t.isalpha()))


def grid_layout(fluents: list):
    """Board planes for fluents like ``(cell ?x ?y ?content)``, or None.

    Returns ``(xs, ys, channels, fluent_index, flat_index)``: the x and y values, the
    channel names (the fluent with ``?x ?y`` left out), and for each grid fluent its index in
    ``fluents`` and its flat index in the ``(H, W, C)`` planes.
    """
    by_functor: dict = {}
    for i, f in enumerate(fluents):
        if type(f) is tuple and len(f) >= 3 and _coord(f[1]) and _coord(f[2]):
            by_functor.setdefault((f[0], len(f)), []).append(i)
    grids = {k: v for k, v in by_functor.items() if len(v) >= 4}
    if not grids:
        return None
    idx = sorted(i for v in grids.values() for i in v)
    xs = sorted({fluents[i][1] for i in idx}, key=sort_key)
    ys = sorted({fluents[i][2] for i in idx}, key=sort_key)
    chans = sorted({(fluents[i][0],) + fluents[i][3:] for i in idx}, key=sort_key)
    xi = {v: j for j, v in enumerate(xs)}
    yi = {v: j for j, v in enumerate(ys)}
    ci = {v: j for j, v in enumerate(chans)}
    C, W = len(chans), len(xs)
    flat = [(yi[fluents[i][2]] * W + xi[fluents[i][1]]) * C + ci[(fluents[i][0],) + fluents[i][3:]] for i in idx]
    names = [to_text(c) if len(c) > 1 else c[0] for c in chans]
    return xs, ys, names, np.array(idx, np.int64), np.array(flat, np.int64)


def make_machine(game: Game, backend: str):
    """The game's state machine for ``backend`` (``"auto"``: compiled, else exact)."""
    if backend == "auto":
        from ggpzoo.gdl.ground import GroundingTooLarge

        try:
            return game.machine("compiled")
        except GroundingTooLarge:
            return game.machine("exact")
    return game.machine(backend)


class raw_env(GGPEnv):
    """AEC env over any GDL sheet (see the module docstring): a [`GGPEnv`][ggpzoo.envs.base.GGPEnv] whose state is
    its sheet's machine's, with the joint moves of the sheet's roles taken in role order.

    Args:
        path: a ``.kif`` path, KIF text, or a loaded [`Game`][ggpzoo.gdl.game.Game].
        backend: ``"auto"`` (default: compiled, falling back to exact when grounding goes
            past ``ground_time_limit``), ``"compiled"`` or ``"exact"``.
        render_mode: ``None`` or ``"ansi"``: the position as text, a board where the sheet's
            fluents describe a grid, else the true fluents
            ([`board_string()`][ggpzoo.gdl.envs.raw_env.board_string]).
        max_steps: if given, a game still running after this many joint moves ends by truncation.
        ground_time_limit: seconds of CPU time grounding may take before giving up.
    """

    metadata = {"name": "gdl_v0", "render_modes": ["ansi"], "is_parallelizable": True, "render_fps": 2}

    def __init__(
        self,
        path=None,
        backend: str = "auto",
        render_mode: str | None = None,
        max_steps: int | None = None,
        ground_time_limit: float = 60.0,
    ):
        EzPickle.__init__(
            self,
            path=path,
            backend=backend,
            render_mode=render_mode,
            max_steps=max_steps,
            ground_time_limit=ground_time_limit,
        )
        AECEnv.__init__(self)
        if path is None:
            raise ValueError("raw_env needs a GDL sheet: a .kif path, KIF text or a ggpzoo.gdl.Game")
        self._setup(render_mode, max_steps)
        if backend not in ("auto", "compiled", "exact"):
            raise ValueError(f"backend must be 'auto', 'compiled' or 'exact', got {backend!r}")
        self.game = g = path if isinstance(path, Game) else load(path, ground_time_limit=ground_time_limit)
        self.machine = make_machine(g, backend)
        self.backend = self.machine.backend
        self.game_spec = gdl_spec(g)
        self.metadata = dict(self.metadata, name=f"gdl_{g.name}_v0")
        self.possible_agents = list(g.roles)
        self.agents = self.possible_agents[:]
        self.actions = {r: list(g.actions[r]) for r in g.roles}
        for r, ms in self.actions.items():
            if not ms:
                raise GDLError(f"role {r} has no possible move: the sheet gives it no legal move in any state")
        self._action_ids = {r: dict(g.action_ids[r]) for r in g.roles}
        nf, nr = len(g.fluents), len(g.roles)
        self._nf = nf
        self.grid = grid_layout(g.fluents)
        self.plane_names = self.grid[2] if self.grid else []
        self.sheet_board = SheetBoard(g.fluents, self.grid)
        self._folded_ids: dict = {}  # role -> {GDL text in lower case: action id}, made when a person types a move
        self.observation_spaces = {}
        for r in g.roles:
            d = {
                "observation": spaces.Box(0, 1, (nf + nr,), np.int8),
                "action_mask": spaces.Box(0, 1, (len(self.actions[r]),), np.int8),
            }
            if self.grid:
                xs, ys, names = self.grid[:3]
                d["planes"] = spaces.Box(0, 1, (len(ys), len(xs), len(names)), np.int8)
            self.observation_spaces[r] = spaces.Dict(d)
        self.action_spaces = {r: ActionSpace(len(self.actions[r])) for r in g.roles}
        self._state = None
        self._legal = [np.zeros(0, np.int64) for _ in g.roles]
        self._masks = {r: np.zeros(len(self.actions[r]), np.int8) for r in g.roles}
        self._choosers: list[int] = []
        self._chosen: dict = {}
        self._steps = 0
        self._over = True

    @property
    def _mask(self) -> np.ndarray:
        """The mask of ``agent_selection`` (what `GGPEnv`'s legality checks read)."""
        return self._masks[self.agent_selection]

    # ------------------------------------------------------------------ flow
    _MOVE_STATE = (
        "_state", "_steps", "_chosen", "_choosers", "_legal", "_goals", "_over", "infos", "rewards",
        "terminations", "truncations", "agents", "_cumulative_rewards", "agent_selection", "forced",
    )  # fmt: skip

    def _saved(self) -> dict:
        """What a move or a new position changes, to put back if the sheet fails on the way
        (a legal move outside the action space, a bad goal, endless forced moves)."""
        out = {k: getattr(self, k) for k in self._MOVE_STATE if hasattr(self, k)}
        for k, v in out.items():
            if isinstance(v, (dict, list)):
                out[k] = v.copy()
        out["_masks"] = {r: m.copy() for r, m in self._masks.items()}
        return out

    def _guarded(self, change, *args) -> None:
        """Run ``change(*args)``; on an error, leave the env as it was, then raise."""
        saved = self._saved()
        try:
            change(*args)
        except BaseException:
            for k in self._MOVE_STATE:
                if k not in saved and hasattr(self, k):
                    delattr(self, k)
            for r, m in saved.pop("_masks").items():
                self._masks[r][:] = m  # in place: the arrays stay the env's own
            self.__dict__.update(saved)
            raise

    def _start_from(self, state) -> None:
        self._guarded(self._enter, self.machine.initial() if state is None else state)

    def _enter(self, state) -> None:
        self._state = state
        self._steps = 0
        self._start()

    def _end(self, truncated: bool = False) -> None:
        self._over = True
        self._choosers = []
        for r in self.possible_agents:
            self._masks[r][:] = 0
        if truncated:
            self.truncations = {a: True for a in self.agents}
            return
        self.rewards = self._end_rewards(self._goals)
        self.terminations = {a: True for a in self.agents}

    def _look(self) -> list | None:
        """The state's goals (also in ``infos``), and every role's legal ids; None once the game is over."""
        m = self.machine
        self._goals = m.goals(self._state)
        self.infos = {r: self._info(i, int(self._goals[i])) for i, r in enumerate(self.possible_agents)}
        if m.terminal(self._state):
            return None
        legal = m.legal(self._state)
        return None if any(len(l) == 0 for l in legal) else legal

    def _cut(self) -> bool:
        return self.max_steps is not None and self._steps >= self.max_steps

    def _after_change(self) -> None:
        """Play forced joint moves, then find who chooses next (or end the game). ``forced``
        lists the joint moves played so, each as ``[(role, action id), ...]``."""
        m = self.machine
        self.forced = []
        for _ in range(MAX_FORCED):
            legal = self._look()
            self.rewards = {a: 0.0 for a in self.agents}
            if legal is None or self._cut():
                return self._finish(legal is not None)
            choosers = [i for i, l in enumerate(legal) if len(l) > 1]
            self._legal = legal
            if choosers:
                self._over = False
                self._choosers = choosers
                self._chosen = {}
                self._select(choosers[0])
                return
            self._state = m.next(self._state, [int(l[0]) for l in legal])
            self.forced.append([(r, int(l[0])) for r, l in zip(self.possible_agents, legal, strict=True)])
            self._steps += 1
        raise GDLError(f"{MAX_FORCED} joint moves in a row without a choice: the game does not seem to end")

    def _finish(self, truncated: bool) -> None:
        self._end(truncated)
        if self.agents:
            self.agent_selection = self.agents[0]

    def _select(self, i: int) -> None:
        for r in self.possible_agents:
            self._masks[r][:] = 0
        r = self.possible_agents[i]
        self._masks[r][self._legal[i]] = 1
        self.agent_selection = r

    def step(self, action) -> None:
        self._need_game()
        agent = self.agent_selection
        if not self.agents:
            raise RuntimeError("step() called after the game ended and every agent was removed; call reset()")
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        self._guarded(self._play, agent, self._check_action(action))

    def _play(self, agent: str, a: int) -> None:
        self._cumulative_rewards[agent] = 0.0
        self.forced = []
        i = self.possible_agents.index(agent)
        self._chosen[i] = a
        pending = [c for c in self._choosers if c not in self._chosen]
        if pending:
            self._select(pending[0])
            self.rewards = {a_: 0.0 for a_ in self.agents}
            return
        joint = [self._chosen.get(j, int(l[0]) if len(l) else 0) for j, l in enumerate(self._legal)]
        self._state = self.machine.next(self._state, joint)
        self._steps += 1
        self._after_change()
        self._accumulate_rewards()

    def _goal_values(self):
        return self._goals

    def _steps_played(self) -> int:
        return int(self._steps)

    def at_turn_start(self) -> bool:
        """Whether the next action begins a joint move (no role has chosen yet in this one)."""
        return not self._chosen

    # ------------------------------------------------------------------ observations
    def observe(self, agent):
        self._need_game()
        self._role(agent)
        fv = self.machine.fluent_vector(self._state).astype(np.int8)
        v = np.zeros(self._nf + len(self.possible_agents), np.int8)
        v[: self._nf] = fv
        v[self._nf + self.possible_agents.index(agent)] = 1
        out = {"observation": v, "action_mask": self._masks[agent].copy()}
        if self.grid:
            xs, ys, names, fi, flat = self.grid
            planes = np.zeros(len(ys) * len(xs) * len(names), np.int8)
            planes[flat] = fv[fi]
            out["planes"] = planes.reshape(len(ys), len(xs), len(names))
        return out

    # ------------------------------------------------------------------ moves as text
    def _role(self, role: str | None) -> str:
        """``role``, or the role to choose now; ValueError for a role the sheet does not have."""
        if role is None:
            self._need_game()
            return self.agent_selection
        if role not in self.actions:
            raise ValueError(
                f"{role!r} is not a role of {self.game.name}; its roles: {', '.join(self.possible_agents)}"
            )
        return role

    def action_to_term(self, action, role: str | None = None) -> str:
        """The GDL text of action id ``action`` of ``role`` (default ``agent_selection``)."""
        role = self._role(role)
        a = integer_id(action, len(self.actions[role]))
        return to_text(self.actions[role][a])

    def term_to_action(self, text: str, role: str | None = None) -> int:
        """The action id of the move written ``text`` (GDL), for ``role`` (default ``agent_selection``)."""
        role = self._role(role)
        i = self._action_ids[role].get(one_term(text, "move"))
        if i is None:
            raise ValueError(f"{text.strip()} is not a possible move of {role}")
        return i

    def action_to_string(self, action, role: str | None = None) -> str:
        """Action id ``action`` of ``role`` (default ``agent_selection``) as its GDL text (`action_to_term()`)."""
        return self.action_to_term(action, role)

    def _why_illegal(self, action: int) -> str:
        return f"it is not one of the {int(self._mask.sum())} legal moves of {self.agent_selection} now"

    def move_help(self) -> str:
        """How a person types a move now ([`parse_move()`][ggpzoo.envs.base.GGPEnv.parse_move]), with a legal
        one as the example."""
        self._need_game()
        role = self.agent_selection
        legal = self.legal_terms(role) if not self._over else []
        example = legal[0] if legal else to_text(self.actions[role][0])
        bare = f" (or '{example[1:-1]}')" if example.startswith("(") else ""
        return (
            f"A move is a GDL term of the sheet, e.g. '{example}'{bare}, in any case, "
            "or its number in the list that 'moves' shows."
        )

    def legal_moves_text(self, limit: int = 60) -> str:
        """The legal moves of ``agent_selection``, numbered as [`parse_move()`][ggpzoo.envs.base.GGPEnv.parse_move]
        reads them (the first ``limit``)."""
        terms = self.legal_terms()
        listed = ", ".join(f"[{k}] {t}" for k, t in enumerate(terms[:limit], 1))
        more = f" ... and {len(terms) - limit} more" if len(terms) > limit else ""
        return f"{len(terms)} legal moves: {listed}{more}"

    def _read_move(self, text: str) -> list[int]:
        """A sheet's move: the move of ``agent_selection`` written as a GDL term (``"(mark 1 2)"``, or
        ``"mark 1 2"`` without the outer parentheses; any case: matched to the sheet's spelling), or its
        number in [`legal_moves_text()`][ggpzoo.gdl.envs.raw_env.legal_moves_text] (``"3"``, counted from 1)."""
        if self._over:
            raise MoveError("the game is over")
        role = self.agent_selection
        legal = self.legal_actions(role)
        if text.isascii() and text.isdigit():
            k = int(text)
            if not 1 <= k <= len(legal):
                raise MoveError(f"{role} has {len(legal)} legal moves now: a move's number is 1..{len(legal)}")
            return [int(legal[k - 1])]
        written = text if text.startswith("(") or " " not in text else f"({text})"
        try:
            term = one_term(written, "move")
        except ValueError as e:
            raise MoveError(str(e)) from None
        a = self._action_ids[role].get(term)
        if a is None:
            if role not in self._folded_ids:
                self._folded_ids[role] = {to_text(t).lower(): i for i, t in enumerate(self.actions[role])}
            a = self._folded_ids[role].get(to_text(term).lower())
        if a is None:
            raise MoveError(f"{text} is not a move of {role} in {self.game.name}, e.g. {self.legal_terms(role)[0]}")
        if not self._masks[role][a]:
            some = ", ".join(self.legal_terms(role)[:6]) + (", ..." if len(legal) > 6 else "")
            raise MoveError(f"{to_text(self.actions[role][a])} is illegal for {role} now; legal: {some} ({len(legal)})")
        return [a]

    def legal_actions(self, agent: str | None = None) -> np.ndarray:
        """The legal ids of ``agent`` (default ``agent_selection``) while it is to choose."""
        self._need_game()
        return np.flatnonzero(self._masks[self._role(agent)]).astype(np.int64)

    def legal_terms(self, agent: str | None = None) -> list[str]:
        agent = self._role(agent)
        return [to_text(self.actions[agent][int(i)]) for i in self.legal_actions(agent)]

    # ------------------------------------------------------------------ state
    def get_state(self):
        """The machine state (a frozenset of fluents, or a bool array in the compiled path)."""
        self._need_game()
        return self._state.copy() if isinstance(self._state, np.ndarray) else self._state

    def checked_state(self, state):
        """``state`` as a state of this env's machine, checked; else ValueError (nothing changes).

        Takes what [`get_state()`][ggpzoo.gdl.envs.raw_env.get_state] returns (a ``uint8`` vector over the network's
        fluents on the compiled path, a frozenset of fluent terms on the exact path), or the fluents that
        hold, as GDL text or terms (``["(cell 1 1 x)", "(control oplayer)"]``), on either path.
        """
        if isinstance(state, np.ndarray):
            if self.backend != "compiled":
                raise ValueError("an array state is a state of the compiled path; this env runs the exact path")
            return fluent_vector(self.game, state, "a vector")
        terms = fluent_terms(self.game, state)
        return terms if self.backend == "exact" else state_from_fluents(self.game, terms)

    def _copied(self, key: str, value, memo):
        """The sheet (read-only) and its spec are shared; the machine is a new one of the same network."""
        if key in ("game", "game_spec"):
            return value
        if key == "machine":
            return self.game.machine(self.backend)
        return super()._copied(key, value, memo)

    def true_fluents(self) -> list[str]:
        """The fluents true now, as GDL text, sorted."""
        fv = self.machine.fluent_vector(self._state)
        return [to_text(self.game.fluents[i]) for i in np.flatnonzero(fv)]

    def board_string(self) -> str:
        """The position as text ([`SheetBoard`][ggpzoo.gdl.board.SheetBoard]): the grid of a sheet whose fluents
        describe one (``(cell ?x ?y ...)``), with a legend and the other true fluents; else the true
        fluents, one a line."""
        self._need_game()
        return self.sheet_board.text(self.machine.fluent_vector(self._state))

    def board_image(self, cell_px: int | None = None) -> np.ndarray:
        """The position as an ``uint8 (rows, columns, 3)`` RGB image of the sheet's grid, cells
        ``cell_px`` pixels wide (default `ggpzoo.envs.render.CELL_PX`); ValueError for a sheet without a grid."""
        self._need_game()
        fv = self.machine.fluent_vector(self._state)
        return self.sheet_board.image(fv, cell_px, f"the GDL game {self.game.name}")


def env(path=None, **kwargs):
    """The wrapped GDL env (PettingZoo-classic wrappers, as every ggpzoo env)."""
    return wrapped(raw_env(path, **kwargs))


class parallel_env(TurnParallelEnv):
    """Parallel API: every live role gives an action each step (a role with one legal
    move must give that one; its mask shows it). Arguments as [`raw_env`][ggpzoo.gdl.envs.raw_env]."""

    def __init__(self, path=None, **kwargs):
        EzPickle.__init__(self, path=path, **kwargs)
        self._adopt(raw_env(path, **kwargs))
        self.observation_spaces = self.aec.observation_spaces
        self.action_spaces = self.aec.action_spaces

    @property
    def _aec(self) -> raw_env:
        return self.aec

    def _obs(self):
        e = self.aec
        out = {}
        for i, r in enumerate(self.possible_agents):
            o = e.observe(r)
            m = np.zeros(len(e.actions[r]), np.int8)
            if not e._over:
                m[e._legal[i]] = 1
            o["action_mask"] = m
            out[r] = o
        return out

    def reset(self, seed=None, options=None):
        e = self.aec
        e.reset(seed=seed)
        # A sheet whose game is over at its start: no agent is live (step() is refused).
        self.agents = [] if e._over else self.possible_agents[:]
        obs = self._obs()
        return {r: obs[r] for r in self.agents}, {r: dict(e.infos[r]) for r in self.agents}

    def step(self, actions):
        e = self.aec
        if e._over:
            raise RuntimeError("step() after the game ended; call reset()")
        joint = []
        for i, r in enumerate(self.possible_agents):
            if r not in actions:
                raise ValueError(f"no action for {r}")
            a = integer_id(actions[r], len(e.actions[r]))
            if a not in e._legal[i]:
                raise ValueError(f"action {a} = {to_text(e.actions[r][a])} is illegal for {r} now")
            joint.append(a)
        out = []
        e._guarded(lambda: out.append(self._play(joint)))  # a sheet's error leaves the game as it was
        return out[0]

    def _play(self, joint):
        e = self.aec
        e._state = e.machine.next(e._state, joint)
        e._steps += 1
        legal = e._look()  # one joint move at a time: no forced moves played ahead here
        infos = dict(e.infos)
        term = legal is None
        trunc = not term and e._cut()
        rewards = {r: 0.0 for r in self.agents}
        if term:
            e.agents = e.possible_agents[:]
            e._end(False)
            rewards = dict(e.rewards)
        else:
            e._legal = legal
            e._over = trunc
        obs = self._obs()
        terms = {r: term for r in self.agents}
        truncs = {r: trunc for r in self.agents}
        agents = self.agents
        if term or trunc:
            e._over = True
            self.agents = []
        return ({r: obs[r] for r in agents}, rewards, terms, truncs, infos)
