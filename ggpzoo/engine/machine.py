"""Games as state machines in Python: one interface for every reasoner, and a check that two agree.

A [`Machine`][ggpzoo.engine.machine.Machine] answers four questions about immutable states
(ggp-base's ``StateMachine`` and ggplib's ``StateMachineInterface`` play the same part):

* ``initial()``: the start state;
* ``status(state)``: a [`Status`][ggpzoo.engine.machine.Status]: whether the game is over, every
  role's goal (0..100), and every role's legal action ids (ascending), empty for a role that
  does not choose;
* ``next(state, ids)``: the state after a joint move (one id per role; a role that does not
  choose gives anything, -1 by convention);
* ``observe(state, role)``: what the role sees (the env's observation).

Every call checks what it is given before it plays: a state goes through the game's one
state check (`GameSpec.check_state`, the one the envs and agents run), a role must be an
integer ``0 <= role < len(roles)``, and ``ids`` one integer per role, each a legal id of its
role in that state (a role with no legal action may give any integer). Anything else is a
``ValueError`` that names the problem, and the state given is never changed.

The turns follow the engine's game protocol (`ggpzoo.engine.dispatch`): a state is shown
only where some role has a choice; joint moves where no role has one are played by
``initial`` and ``next`` themselves. Where one role has a choice the others are listed with no
legal action (their one move is implied); where several have one, each lists its own.

Two implementations: [`ArrayMachine`][ggpzoo.engine.machine.ArrayMachine] runs any spec on the
engine's arrays (a hand-written kernel or a compiled sheet), and
`ggpzoo.gdl.machine.ReasonerMachine` runs a sheet on the exact reasoner.
[`machines_agree()`][ggpzoo.engine.machine.machines_agree] plays random games on two machines in
lockstep and names the first difference: the exact reasoner against the compiled network of a
sheet, or a sheet against the hand-written kernel of the same game (with a map of the moves).

    >>> from ggpzoo.engine.machine import ArrayMachine, machines_agree
    >>> m = ArrayMachine("skirmish_v0")
    >>> s = m.initial()
    >>> st = m.status(s)
    >>> st.over, len(st.legal[0]), len(st.legal[1])
    (False, 18, 0)
    >>> machines_agree(m, ArrayMachine("skirmish_v0"), games=2, max_steps=20) > 0
    True
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, NamedTuple, Protocol

import numpy as np

from ggpzoo.engine.dispatch import OVER, SIMULTANEOUS, observation, role_legal, start, status, step, step_joint
from ggpzoo.envs import spec as _spec

__all__ = ["Status", "Machine", "ArrayMachine", "MachinesDisagree", "machines_agree"]


class Status(NamedTuple):
    """What a state is: over or not, every role's goal, every role's legal ids."""

    over: bool
    goals: np.ndarray  # int64, one per role
    legal: tuple  # one ascending int64 array per role; empty for a role that does not choose


class Machine(Protocol):
    """The interface every reasoner implements (see the module docstring)."""

    roles: tuple[str, ...]

    def initial(self) -> Any: ...

    def status(self, state) -> Status: ...

    def next(self, state, ids) -> Any: ...

    def observe(self, state, role: int) -> np.ndarray: ...


def _integer(x) -> bool:
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def checked_role(role, roles, name: str) -> int:
    """``role`` as an int ``0 <= role < len(roles)``, else a ValueError."""
    if not _integer(role) or not 0 <= int(role) < len(roles):
        raise ValueError(f"{name}: a role is an integer 0..{len(roles) - 1} ({', '.join(roles)}), got {role!r}")
    return int(role)


def checked_ids(ids, legal, roles, name: str) -> list[int]:
    """``ids`` (one per role) checked against ``legal`` (a `Status`'s): each id of a role with
    legal actions must be one of them; a role without gives any integer, returned as -1."""
    if isinstance(ids, (str, bytes, dict)) or not hasattr(ids, "__len__") or np.ndim(ids) != 1:
        raise ValueError(f"{name}: ids are a sequence of one integer per role ({len(roles)}), got {ids!r}")
    if len(ids) != len(roles):
        raise ValueError(f"{name}: {len(ids)} ids given for {len(roles)} roles ({', '.join(roles)})")
    out = []
    for r, (i, la) in enumerate(zip(ids, legal, strict=True)):
        if not _integer(i):
            raise ValueError(f"{name}: role {roles[r]}'s id {i!r} is not an integer")
        i = int(i)
        if len(la) == 0:
            out.append(-1)
            continue
        k = int(np.searchsorted(la, i))
        if k == len(la) or int(la[k]) != i:
            raise ValueError(f"{name}: role {roles[r]}'s id {i} is not one of its {len(la)} legal actions now")
        out.append(i)
    return out


def _error(name: str, code: int) -> ValueError:
    from ggpzoo.envs.propnet.kernel import ERRORS

    return ValueError(f"{name}: {ERRORS.get(int(code) + 10, f'error code {int(code)}')}")


class ArrayMachine:
    """Any game on the engine's arrays: a state is a ``(board, aux)`` pair, never changed in
    place (``next`` returns new arrays).

    Args:
        game: an env name (``"skirmish_v0"``, ``"gdl:tictactoe"``) or its spec.
        play_forced: also play by itself a move of a role that has exactly one legal action
            (a sheet's network does this already: a role with one legal move has no choice;
            a hand-written kernel shows such states), so that a kernel and a sheet of the
            same game pass the same states.
    """

    def __init__(self, game, play_forced: bool = False):
        self.spec = s = _spec(game) if isinstance(game, str) else game
        self.roles = tuple(s.agents)
        self.play_forced = bool(play_forced)
        self._game, self._T, self._W = s.kernel_id, s.tables, s.work()
        self._legal = np.zeros(max(s.max_legal, 1), np.int32)
        self._goals = np.zeros(len(self.roles), np.int32)
        self._ids = np.zeros(len(self.roles), np.int32)

    def _status(self, board, aux):
        n = status(self._game, board, aux, self._T, self._W, self._legal, self._goals)
        if n < SIMULTANEOUS:
            raise _error(self.spec.name, n)
        return n

    def _settle(self, board, aux):
        while self.play_forced:
            n = self._status(board, aux)
            if n != 1:
                return
            code = step(self._game, board, aux, self._T, self._W, self._legal[0])
            if code != 0:
                raise _error(self.spec.name, code)

    def initial(self):
        s = self.spec
        board, aux = np.zeros(s.board_size, np.int8), np.zeros(s.aux_size, np.int32)
        code = start(self._game, board, aux, self._T, self._W, s.variant)
        if code != 0:
            raise _error(s.name, code)
        self._settle(board, aux)
        return board, aux

    def _checked(self, state):
        """Fresh ``(board, aux)`` copies of ``state``, checked (`GameSpec.check_state`)."""
        return self.spec.check_state(state)

    def status(self, state) -> Status:
        board, aux = self._checked(state)
        return self._status_of(board, aux)

    def _status_of(self, board, aux) -> Status:
        n = self._status(board, aux)
        goals = self._goals.astype(np.int64)
        empty = np.zeros(0, np.int64)
        if n == OVER:
            return Status(True, goals, (empty,) * len(self.roles))
        if n == SIMULTANEOUS:
            legal = []
            for r in range(len(self.roles)):
                k = role_legal(self._game, board, aux, self._T, self._W, r, self._legal)
                legal.append(self._legal[:k].astype(np.int64))
            return Status(False, goals, tuple(legal))
        mover = int(aux[0])
        legal = [empty] * len(self.roles)
        legal[mover] = self._legal[:n].astype(np.int64)
        return Status(False, goals, tuple(legal))

    def next(self, state, ids):
        board, aux = self._checked(state)
        st = self._status_of(board, aux)
        if st.over:
            raise ValueError(f"{self.spec.name}: the game is over: there is no next state")
        ids = checked_ids(ids, st.legal, self.roles, self.spec.name)
        if int(aux[0]) == SIMULTANEOUS:
            self._ids[:] = ids
            code = step_joint(self._game, board, aux, self._T, self._W, self._ids)
        else:
            code = step(self._game, board, aux, self._T, self._W, ids[int(aux[0])])
        if code != 0:
            raise _error(self.spec.name, code)
        self._settle(board, aux)
        return board, aux

    def observe(self, state, role: int) -> np.ndarray:
        role = checked_role(role, self.roles, self.spec.name)
        board, aux = self._checked(state)
        out = np.zeros(self.spec.planes_shape, np.float32)
        observation(self._game, board, aux, self._T, role, out)
        return out.reshape(self.spec.obs_shape)


class MachinesDisagree(AssertionError):
    """Two machines answered differently (the message names the game, the step and what)."""


def machines_agree(
    a: Machine,
    b: Machine,
    games: int = 3,
    seed: int = 0,
    max_steps: int = 500,
    translate: Callable[[Any, int, int], int] | None = None,
    observations: bool | None = None,
    deadline: float | None = None,
) -> int:
    """Play ``games`` random games on ``a`` and ``b`` in lockstep; return the joint moves played.

    At every state both must agree on whether the game is over, on every goal and on every
    role's legal actions (``a``'s ids mapped by ``translate(state_a, role, id) -> b's id``, the
    identity when None), and, when ``observations`` (default: when there is no
    ``translate``), on every role's observation. The joint move is drawn from ``a``'s legal
    actions. Raises [`MachinesDisagree`][ggpzoo.engine.machine.MachinesDisagree] at the first
    difference, naming the game, the move and what differed, and ``TimeoutError`` past
    ``deadline`` (a ``time.perf_counter()`` value). ``games`` and ``max_steps`` must be at
    least 1 and ``deadline`` finite (else ``ValueError``: a check that plays nothing passes
    nothing); machines with different roles (a different number of roles, or, without
    ``translate``, different names) disagree at once.
    """
    for what, n in (("games", games), ("max_steps", max_steps)):
        if not _integer(n) or n < 1:
            raise ValueError(f"{what} must be an integer >= 1, got {n!r}")
    if deadline is not None and not (isinstance(deadline, (int, float, np.number)) and np.isfinite(deadline)):
        raise ValueError(f"deadline must be a finite time.perf_counter() value or None, got {deadline!r}")
    if deadline is not None and deadline < 0:
        raise ValueError(f"deadline must be a time.perf_counter() value (>= 0) or None, got {deadline!r}")
    if len(a.roles) != len(b.roles) or (tuple(a.roles) != tuple(b.roles) and translate is None):
        raise MachinesDisagree(f"the machines' roles differ: {tuple(a.roles)} and {tuple(b.roles)}")
    if observations is None:
        observations = translate is None
    rng = np.random.default_rng(seed)
    played = 0
    for g in range(games):
        sa, sb = a.initial(), b.initial()
        for t in range(max_steps + 1):
            where = f"game {g}, after {t} joint moves"
            x, y = a.status(sa), b.status(sb)
            if x.over != y.over:
                raise MachinesDisagree(f"{where}: over {x.over} and {y.over}")
            if not np.array_equal(x.goals, y.goals):
                raise MachinesDisagree(f"{where}: goals {x.goals.tolist()} and {y.goals.tolist()}")
            for r, (la, lb) in enumerate(zip(x.legal, y.legal, strict=True)):
                mapped = sorted(la.tolist()) if translate is None else sorted(translate(sa, r, int(i)) for i in la)
                if mapped != sorted(lb.tolist()):
                    raise MachinesDisagree(f"{where}: role {r}'s legal actions {mapped} and {sorted(lb.tolist())}")
            if observations:
                for r in range(len(x.legal)):
                    if not np.array_equal(a.observe(sa, r), b.observe(sb, r)):
                        raise MachinesDisagree(f"{where}: role {r}'s observations differ")
            if x.over or t == max_steps:
                break
            if deadline is not None and time.perf_counter() > deadline:
                raise TimeoutError(f"the machines' lockstep check was cut off after {played} joint moves")
            ids = [int(la[rng.integers(len(la))]) if len(la) else -1 for la in x.legal]
            idb = ids if translate is None else [translate(sa, r, i) if i >= 0 else -1 for r, i in enumerate(ids)]
            sa, sb = a.next(sa, ids), b.next(sb, idb)
            played += 1
    return played
