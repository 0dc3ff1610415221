"""A loaded GDL game: roles, fixed action lists, fluents, and the exact reasoner's answers.

>>> from ggpzoo.gdl import game_path, load
>>> g = load(game_path("tictactoe"))
>>> g.roles
['xplayer', 'oplayer']
>>> s = g.initial_state()
>>> len(g.legal(s, "xplayer")), g.legal(s, "oplayer")
(9, ['noop'])

States of the exact path are ``frozenset``\\ s of fluent terms (see `ggpzoo.gdl.syntax`);
moves are terms too. `Game.machine()` gives the id-based state machine the env plays
on, exact or compiled (`ggpzoo.gdl.propnet`).
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
from functools import cached_property

import numpy as np

from ggpzoo.gdl.lint import lint
from ggpzoo.gdl.logic import STATIC_TIME_LIMIT, Program
from ggpzoo.gdl.syntax import GDLError, goal_value, is_var, parse, sort_key, to_text

__all__ = ["MAX_SHEET_BYTES", "ExactMachine", "Game", "load"]

LEGAL, GOAL, TERMINAL, NEXT = ("legal", 2), ("goal", 2), ("terminal", 0), ("next", 1)


MAX_SHEET_BYTES = 16 << 20  # a rule sheet file larger than this is refused unread

_GC_LOCK = threading.Lock()
_GC_PAUSES = [0, False]  # loads in progress; was the collector on when the first began


@contextlib.contextmanager
def gc_paused():
    """Python's cyclic garbage collector off while a sheet is read, grounded or compiled.

    These steps make millions of long-lived objects, and each full collection walks all of
    them: on the corpus's hex sheet (2.1M objects) collections were half of the load time
    (14.0 s against 7.3 s with the collector off), and each one stopped every thread of the
    process for 0.7 s or more, long enough to miss a GGP play clock. The steps make almost no
    cyclic garbage. Nested and concurrent loads are counted; the collector is turned back on
    (if it was on) when the last one ends."""
    with _GC_LOCK:
        if _GC_PAUSES[0] == 0:
            _GC_PAUSES[1] = gc.isenabled()
            gc.disable()
        _GC_PAUSES[0] += 1
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_PAUSES[0] -= 1
            if _GC_PAUSES[0] == 0 and _GC_PAUSES[1]:
                gc.enable()


def _is_text(s: str) -> bool:
    """KIF text rather than a path: not an existing file, and holds a newline or starts with
    ``(`` or ``;`` (after whitespace). A file named ``tictactoe (1).kif`` stays a path."""
    if "\n" in s or "\0" in s or len(s) > 4096:
        return True
    if os.path.lexists(s):
        return False
    return s.lstrip()[:1] in ("(", ";")


def _read_sheet(path: str) -> str:
    """The text of a sheet file: a regular file of at most `MAX_SHEET_BYTES`, read
    without blocking on a FIFO or reading a device whole."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise GDLError(f"cannot read the GDL file {path!r}: {e.strerror}") from None
    import stat

    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise GDLError(f"{path!r} is {kind}: pass a .kif file or the KIF text")
    if st.st_size > MAX_SHEET_BYTES:
        raise GDLError(f"{path!r} is over MAX_SHEET_BYTES = {MAX_SHEET_BYTES >> 20} MB: not a rule sheet")
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_SHEET_BYTES + 1)
    except OSError as e:
        raise GDLError(f"cannot read the GDL file {path!r}: {e.strerror}") from None
    if len(raw) > MAX_SHEET_BYTES:  # grew since the stat
        raise GDLError(f"{path!r} is over MAX_SHEET_BYTES = {MAX_SHEET_BYTES >> 20} MB: not a rule sheet")
    return raw.decode("utf-8", errors="replace").replace("\r\n", "\n").replace("\r", "\n")  # as text mode reads


def check_time_limit(value, name: str = "ground_time_limit") -> float:
    """``value`` as a float if it is a finite number of seconds >= 0, else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")
    v = float(value)
    if not (0 <= v < float("inf")):
        raise ValueError(f"{name} must be a finite number of seconds >= 0, got {value!r}")
    return v


def load(path_or_text, name: str | None = None, ground_time_limit: float = 60.0, stop=None) -> Game:
    """Read and check a GDL sheet: a path to a ``.kif`` file, or the KIF text itself.

    A string is read as KIF text when it is not an existing file and holds a newline or
    starts with ``(`` or ``;``; anything else is a path. A file must be a regular file of at
    most `MAX_SHEET_BYTES` (16 MB). ``ground_time_limit`` (seconds of CPU time, finite,
    0 or more) bounds the grounding, and the static relations computed at load (which get at
    least `STATIC_TIME_LIMIT`, 10 s). ``stop`` (a function of no arguments) ends the static
    relations' computation with `ggpzoo.gdl.syntax.LoadStopped` when it returns true (a GGP
    player loading the sheet of a match that has ended).

    Raises [`ggpzoo.gdl.GDLError`][ggpzoo.gdl.GDLError] (a ValueError) for a sheet that cannot be read or
    that breaks GDL's rules (unsafe rule, unstratified negation, recursion restriction...).
    """
    check_time_limit(ground_time_limit)
    text = os.fspath(path_or_text) if isinstance(path_or_text, os.PathLike) else str(path_or_text)
    if isinstance(path_or_text, os.PathLike) or not _is_text(text):
        if not os.path.lexists(text):
            raise GDLError(f"no such GDL file: {text!r} (pass a path to a .kif file or the KIF text)")
        src = _read_sheet(text)
        name = name or os.path.splitext(os.path.basename(text))[0]
    else:
        src = text
    return Game(src, name=name or "gdl", ground_time_limit=ground_time_limit, stop=stop)


class Game:
    """A checked GDL game (see the module docstring)."""

    def __init__(self, text: str, name: str = "gdl", ground_time_limit: float = 60.0, stop=None):
        self.name = name
        self.text = text
        self.ground_time_limit = check_time_limit(ground_time_limit)
        with gc_paused():
            rules = parse(text)
            self.program = Program(rules, static_time_limit=max(STATIC_TIME_LIMIT, self.ground_time_limit), stop=stop)
        roles = [a[1] for a in self.program.static_facts(("role", 1))]
        if not roles:
            raise GDLError("the sheet defines no role")
        for role in roles:
            if type(role) is not str:
                r = self.program.rule_for(("role", role))
                raise GDLError(f"a role is a symbol, got {to_text(role)}" + (f" ({r.where()})" if r else ""))
        if len(set(roles)) != len(roles):
            raise GDLError(f"a role is defined twice: {roles}")
        self.roles: list[str] = roles
        for r in self.program.rules:  # a goal value written in a rule's head: checked at load
            if type(r.head) is tuple and len(r.head) == 3 and r.head[0].split("#")[0] == "goal":
                if not is_var(r.head[2]) and goal_value(r.head[2]) is None:
                    raise self.program.bad_goal(r.head)
        lint(rules, roles, name)  # warnings: undefined or unused relations, no terminal, a role without goal
        self._init = frozenset(a[1] for a in self.program.static_facts(("init", 1)))
        self._cache: dict = {}
        self._grounding = None
        self._grounding_failed = None
        self._domains = None
        # where the fixed spaces came from: "input"/"base", "grounding" or "domains"
        self.spaces_from: dict = {}

    # ------------------------------------------------------------------ exact answers
    def initial_state(self) -> frozenset:
        return self._init

    def _phase_a(self, state: frozenset) -> dict:
        got = self._cache.get(state)
        if got is None:
            store = self.program.evaluate(state, (), (LEGAL, GOAL, TERMINAL))
            legal = {r: [] for r in self.roles}
            for a in store[LEGAL].items if LEGAL in store else self.program.static_facts(LEGAL):
                if a[1] in legal:
                    legal[a[1]].append(a[2])
            for r in legal:
                legal[r].sort(key=sort_key)
            goals = {r: [] for r in self.roles}
            for a in store[GOAL].items if GOAL in store else self.program.static_facts(GOAL):
                if a[1] in goals:
                    v = goal_value(a[2])
                    if v is None:
                        raise self.program.bad_goal(a)
                    goals[a[1]].append(v)
            term = bool(store[TERMINAL].facts) if TERMINAL in store else bool(self.program.static_facts(TERMINAL))
            got = (legal, {r: (max(v) if v else 0) for r, v in goals.items()}, term)
            if len(self._cache) > 64:
                self._cache.clear()
            self._cache[state] = got
        return got

    def legal(self, state, role: str) -> list:
        """The legal moves of ``role`` in ``state``, sorted (numbers in numeric order)."""
        return list(self._phase_a(state)[0][role])

    def legal_moves(self, state) -> dict:
        return {r: list(v) for r, v in self._phase_a(state)[0].items()}

    def is_terminal(self, state) -> bool:
        return self._phase_a(state)[2]

    def goals(self, state) -> dict:
        """Goal value per role (0..100). A role the sheet gives no goal in this state gets 0;
        one given several gets the largest (both are sheet defects)."""
        return dict(self._phase_a(state)[1])

    def next_state(self, state, moves: dict) -> frozenset:
        """The state after the joint move ``moves`` (role -> move term)."""
        does = [("does", r, m) for r, m in moves.items()]
        store = self.program.evaluate(state, does, (NEXT,))
        return frozenset(a[1] for a in store[NEXT].items) if NEXT in store else frozenset()

    # ------------------------------------------------------------------ fixed spaces
    def grounding(self, stop=None):
        """The relaxed grounding (`ggpzoo.gdl.ground`), computed once.

        A grounding that ran past ``ground_time_limit`` raises
        `GroundingTooLarge`, and raises it again at once on later
        calls (until ``ground_time_limit`` is raised) instead of trying for as long again.
        ``stop`` (a function of no arguments) ends a grounding in progress with
        `GroundingStopped` when it returns true; a later call starts again."""
        if self._grounding is None:
            from ggpzoo.gdl.ground import GroundingStopped, GroundingTooLarge, ground

            failed = self._grounding_failed
            if failed is not None and self.ground_time_limit <= failed[0]:
                raise failed[1]
            try:
                with gc_paused():
                    self._grounding = ground(self.program, self.roles, time_limit=self.ground_time_limit, stop=stop)
            except GroundingStopped:
                raise
            except GroundingTooLarge as e:
                if not self.program.static_facts(("input", 2)):
                    e = GroundingTooLarge(
                        str(e).split("; raise time_limit")[0]
                        + "; raise ground_time_limit, or play the exact path (backend='exact'; 'auto' falls back to "
                        "it), whose action spaces then come from argument domains (ggpzoo.gdl.domains)"
                    )
                self._grounding_failed = (self.ground_time_limit, e)
                raise e from None
            self._cache.clear()
        return self._grounding

    @cached_property
    def actions(self) -> dict:
        """role -> the list of its possible moves: action id ``i`` is ``actions[role][i]``.

        From the ``input`` relation when the sheet has one, else from grounding, else (when
        grounding runs past ``ground_time_limit``) from argument domains, with a warning
        (``spaces_from`` says which)."""
        inputs = self.program.static_facts(("input", 2))
        if inputs:
            out = {r: [] for r in self.roles}
            for a in inputs:
                if a[1] in out:
                    out[a[1]].append(a[2])
            self.spaces_from["actions"] = "input"
            return {r: sorted(set(v), key=sort_key) for r, v in out.items()}
        got = self._spaces()
        self.spaces_from["actions"] = got[0]
        return {r: list(v) for r, v in got[1].moves.items()}

    @cached_property
    def action_ids(self) -> dict:
        return {r: {m: i for i, m in enumerate(ms)} for r, ms in self.actions.items()}

    @cached_property
    def fluents(self) -> list:
        """The base set: from the ``base`` relation when present, else from grounding, else
        (as for [`actions`][ggpzoo.gdl.game.Game.actions]) from argument domains."""
        base = self.program.static_facts(("base", 1))
        if base:
            self.spaces_from["fluents"] = "base"
            return sorted({a[1] for a in base} | set(self._init), key=sort_key)
        got = self._spaces()
        self.spaces_from["fluents"] = got[0]
        return list(got[1].fluents)

    def _spaces(self):
        """``("grounding", the grounding)``, or ``("domains", the argument domains)`` when
        grounding runs past its limit (a warning says so: the spaces are larger, and they
        differ from the ones a grounding within the limit would give)."""
        from ggpzoo.gdl.ground import GroundingTooLarge

        try:
            return "grounding", self.grounding()
        except GroundingTooLarge as e:
            if self._domains is None:
                import warnings

                from ggpzoo.gdl.domains import domains

                try:
                    # as long as grounding had (at least 10 s): a sheet too large for both fails in bounded time
                    self._domains = domains(self.program, self.roles, time_limit=max(10.0, self.ground_time_limit))
                except GDLError as d:
                    raise GroundingTooLarge(f"{e}; and the argument domains fail too: {d}") from None
                warnings.warn(
                    f"{self.name}: {str(e).split(';')[0]}; the fixed spaces come from argument domains "
                    f"instead ({len(self._domains.fluents):,} fluents; moves "
                    + ", ".join(f"{r} {len(m):,}" for r, m in self._domains.moves.items())
                    + "), larger than grounding's and not the same: raise ground_time_limit for grounding's",
                    stacklevel=4,  # past _spaces, the property and cached_property: the line that read it
                )
            return "domains", self._domains

    @cached_property
    def fluent_ids(self) -> dict:
        return {f: i for i, f in enumerate(self.fluents)}

    def propnet(self):
        """The compiled network (`ggpzoo.gdl.propnet.Propnet`), built once."""
        if getattr(self, "_propnet", None) is None:
            from ggpzoo.gdl.propnet import Propnet

            with gc_paused():
                self._propnet = Propnet(self)
        return self._propnet

    def machine(self, backend: str = "exact"):
        """The id-based state machine: ``"exact"`` (this reasoner) or ``"compiled"``."""
        if backend == "exact":
            return ExactMachine(self)
        if backend == "compiled":
            from ggpzoo.gdl.propnet import CompiledMachine

            return CompiledMachine(self)
        raise ValueError(f"backend must be 'exact' or 'compiled', got {backend!r}")


class ExactMachine:
    """Moves as action ids over the exact reasoner. States are frozensets of fluents.

    Both machines share this interface: ``initial()``, ``legal(state) -> list of int arrays``
    (one per role, ascending ids), ``terminal(state)``, ``goals(state) -> int array``,
    ``next(state, ids)``, ``fluent_vector(state) -> uint8 array``, ``fluents(state)``.
    """

    backend = "exact"

    def __init__(self, game: Game):
        self.game = game
        self.roles = game.roles

    def initial(self):
        return self.game.initial_state()

    def legal(self, state) -> list:
        g = self.game
        out = []
        for r in self.roles:
            ids = g.action_ids[r]
            row = []
            for m in g.legal(state, r):
                i = ids.get(m)
                if i is None:
                    raise GDLError(
                        f"legal move {to_text(m)} of role {r} is not in its action space (the sheet's input relation)"
                    )
                row.append(i)
            out.append(np.array(sorted(row), np.int64))
        return out

    def terminal(self, state) -> bool:
        return self.game.is_terminal(state)

    def goals(self, state) -> np.ndarray:
        g = self.game.goals(state)
        return np.array([g[r] for r in self.roles], np.int64)

    def next(self, state, ids):
        moves = {r: self.game.actions[r][int(i)] for r, i in zip(self.roles, ids, strict=False)}
        return self.game.next_state(state, moves)

    def fluents(self, state) -> frozenset:
        return state

    def fluent_vector(self, state) -> np.ndarray:
        v = np.zeros(len(self.game.fluents), np.uint8)
        ids = self.game.fluent_ids
        for f in state:
            i = ids.get(f)
            if i is not None:
                v[i] = 1
        return v
