"""Monte Carlo tree search on a GDL game's compiled network: UCT with random rollouts, in numba.

The search of :mod:`ggpzoo.agents.mcts` (same node table, expansion order, UCT rule,
budgets and answer), played on :class:`ggpzoo.gdl.propnet.Propnet` instead of a
hand-written kernel. A GDL step is a joint move, one move per role; here a tree node is a
state where exactly one role has a choice (more than one legal move), its children are
that role's moves, and the roles with one legal move (``noop``) play it. Joint moves in
which no role has a choice are played through, as the AEC env plays them
(:mod:`ggpzoo.gdl.envs`). A state is over when the sheet says ``terminal`` or when some
role has no legal move (the env's rule too).

Values come from the sheet's goals at the end of a rollout, for the role that chose each
move (``value=``, each in [0, 1]; "the best other" is the highest goal of the other roles):

* ``"outcome"`` (default): 1 if the role's goal beats every other, 0.5 if it ties the
  best other, 0 if below: the env's reward and the arena's score;
* ``"margin"``: ``1/2 + (own goal - best other) / 200``;
* ``"goal"``: the role's own goal / 100 (what a GGP player maximises).

Rollouts play uniformly random joint moves (each role a random legal move), so they run
through simultaneous moves too. **Simultaneous choices inside the tree are refused**: a
search that reaches a state where two or more roles have a choice raises
:class:`SimultaneousMoveError` (a ValueError) naming the roles; a correct search there
needs one statistic per role and move (decoupled UCT), which this agent does not have.
Turn-taking games, the usual case (tic-tac-toe, connect four, breakthrough, the GDL editions
of the hand-written games), never reach one.

>>> from ggpzoo import gdl
>>> env = gdl.raw_env(gdl.game_path("tictactoe")); env.reset()
>>> agent = GDLMCTSAgent(env.game, simulations=50, seed=0)
>>> int(agent.act(env)) in env.legal_actions()
True
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ggpzoo.agents.base import Agent, seeded_rng
from ggpzoo.agents.mcts import (
    ACTION,
    CHILDREN,
    FIRST,
    LEGAL,
    MARGIN,
    MOVER,
    OUTCOME,
    PARENT,
    PERM_A,
    PERM_B,
    SIBLING,
    TERMINAL,
    UCTBudget,
    _fill_node,
    _rand_below,
    _uct_child,
)
from ggpzoo.gdl.envs import MAX_FORCED  # joint moves in a row with no choice before giving up
from ggpzoo.gdl.propnet import (
    _does,
    _eval,
    _goals,
    _goto,
    _legal,
    _legal_live,
    _load_state,
    _next,
    _set_does,
)
from ggpzoo.gdl.syntax import GDLError, to_text

__all__ = ["GDLMCTSAgent", "SimultaneousMoveError", "state_from_fluents"]

# What a state is to the search (``_status``), and why a search stopped (``_search``).
CHOICE, TERMINAL_STATE, FORCED, SIMULTANEOUS = 0, 1, 2, 3
OK, STACK_OVERFLOW, UNMAPPED, TOO_MANY_FORCED, BAD_ROOT = 0, -1, -2, -3, -4


class SimultaneousMoveError(ValueError):
    """The search met a state where two or more roles choose a move at once."""


# ----------------------------------------------------------------------------- the network
# ``net`` below is the tuple of :func:`_net_args`: the Propnet's arrays, in the order the
# propnet's own kernels take them.
@njit(cache=True)
def _status(state, net, out, counts):
    """Bring the network to ``state``; return (what the state is, the choosing role or -1).

    ``out[r, :counts[r]]`` are then role ``r``'s legal ids; negative codes are errors."""
    incremental, vals, cur, true_ids, inc, pa = net[0], net[1], net[2], net[3], net[4], net[5]
    leg, use_live = net[7], net[8]
    if incremental:
        if not _goto(vals, cur, state, true_ids, inc[0], inc[1], inc[2], inc[3], inc[4], inc[5], inc[6], inc[7]):
            return STACK_OVERFLOW, -1
    else:
        _load_state(vals, state, true_ids)
        _eval(vals, pa[0], pa[1], pa[2], pa[3], pa[4], pa[5], pa[6], pa[7], pa[8])
    terminal_atom = leg[0]
    if terminal_atom >= 0 and vals[terminal_atom]:
        return TERMINAL_STATE, -1
    n_roles = counts.shape[0]
    if use_live:
        bad = _legal_live(vals, inc[3], leg[2], leg[3], leg[5], leg[6], n_roles, out, counts)
    else:
        bad = _legal(vals, leg[1], leg[2], leg[3], leg[4], leg[6], n_roles, out, counts)
    if bad >= 0:
        return UNMAPPED, -1
    choosers = 0
    mover = -1
    for r in range(n_roles):
        if counts[r] == 0:
            return TERMINAL_STATE, -1
        if counts[r] > 1:
            choosers += 1
            mover = r
    if choosers == 0:
        return FORCED, -1
    if choosers > 1:
        return SIMULTANEOUS, -1
    return CHOICE, mover


@njit(cache=True)
def _play(state, ids, net):
    """Replace ``state`` by the state after joint move ``ids`` (the network is at ``state``)."""
    incremental, vals, inc, pb, moves = net[0], net[1], net[4], net[6], net[9]
    does_atom, next_atom, next_fluent = moves[0], moves[1], moves[2]
    if incremental:
        i0, i1, i2, i3, i4, i5, i6, i7 = inc
        ok = _does(vals, does_atom, ids, 1, i0, i1, i2, i3, i4, i5, i6, i7)
        _next(vals, next_atom, next_fluent, state)
        ok &= _does(vals, does_atom, ids, 0, i0, i1, i2, i3, i4, i5, i6, i7)
        return ok
    _set_does(vals, does_atom, ids, 1)
    _eval(vals, pb[0], pb[1], pb[2], pb[3], pb[4], pb[5], pb[6], pb[7], pb[8])
    _set_does(vals, does_atom, ids, 0)
    _next(vals, next_atom, next_fluent, state)
    return True


@njit(cache=True)
def _advance(state, net, out, counts, ids):
    """Play joint moves without a choice until a role has one or the game is over."""
    for _ in range(MAX_FORCED):
        code, mover = _status(state, net, out, counts)
        if code != FORCED:
            return code, mover
        for r in range(counts.shape[0]):
            ids[r] = out[r, 0]
        if not _play(state, ids, net):
            return STACK_OVERFLOW, -1
    return TOO_MANY_FORCED, -1


@njit(cache=True)
def _values(net, goals, kind, values):
    """What the state the network is at is worth to each role (see the module docstring)."""
    moves = net[9]
    _goals(net[1], moves[3], moves[4], moves[5], goals)
    n = goals.shape[0]
    for r in range(n):
        best_other = -1
        for j in range(n):
            if j != r and goals[j] > best_other:
                best_other = goals[j]
        if kind == OUTCOME and n > 1:
            values[r] = 1.0 if goals[r] > best_other else (0.5 if goals[r] == best_other else 0.0)
        elif kind == MARGIN and n > 1:
            values[r] = 0.5 + (goals[r] - best_other) / 200.0
        else:
            values[r] = goals[r] / 100.0


# ----------------------------------------------------------------------------- the search
@njit(cache=True)
def _chosen(out, counts, mover, node, k, nodes, ids, sorted_legal):
    """The ``k``-th move of ``mover`` in node ``node``'s random order; fills the joint move ``ids``."""
    n = counts[mover]
    sorted_legal[:n] = np.sort(out[mover, :n])  # the legal list's order depends on the network's history
    a = sorted_legal[(nodes[node, PERM_A] * np.int64(k) + nodes[node, PERM_B]) % n]
    for r in range(counts.shape[0]):
        ids[r] = out[r, 0]
    ids[mover] = a
    return a


@njit(cache=True)
def _init_tree(root, net, nodes, stats, seed):
    """Fill the root node; return (its legal count, its chooser) or (0, code) if it has no choice."""
    n_roles = net[10]
    out = np.zeros((n_roles, net[11]), np.int64)
    counts = np.zeros(n_roles, np.int64)
    state = root.copy()
    code, mover = _status(state, net, out, counts)
    if code != CHOICE:
        return 0, code
    s = np.uint64(seed) | np.uint64(1)
    _fill_node(nodes, stats, 0, -1, -1, -1, 0, counts[mover], s)
    return counts[mover], mover


@njit(cache=True)
def _search(root, net, nodes, stats, n_nodes, simulations, c, seed, max_rollout, kind):
    """Run up to ``simulations`` simulations from state ``root`` (a choice for one role).

    Returns ``(n_nodes, simulations run, status)``: status 0, or a negative error code, or
    ``SIMULTANEOUS`` when the tree reached a state where several roles choose."""
    n_roles = net[10]
    capacity = nodes.shape[0]
    out = np.zeros((n_roles, net[11]), np.int64)
    counts = np.zeros(n_roles, np.int64)
    ids = np.zeros(n_roles, np.int64)
    goals = np.zeros(n_roles, np.int64)
    values = np.zeros(n_roles, np.float64)
    sorted_legal = np.zeros(net[11], np.int64)
    state = root.copy()
    s = np.uint64(seed) | np.uint64(1)
    done = 0
    while done < simulations and n_nodes < capacity:
        state[:] = root
        code, mover = _status(state, net, out, counts)
        if code != CHOICE:  # the caller checked the root: this would be a bug, not a crash
            return n_nodes, done, code if code < 0 else BAD_ROOT
        node = 0
        # selection and expansion
        while nodes[node, TERMINAL] == 0:
            n = nodes[node, LEGAL]
            k = nodes[node, CHILDREN]
            if k < n:
                a = _chosen(out, counts, mover, node, k, nodes, ids, sorted_legal)
                if not _play(state, ids, net):
                    return n_nodes, done, STACK_OVERFLOW
                code, next_mover = _advance(state, net, out, counts, ids)
                if code < 0 or code == SIMULTANEOUS:
                    return n_nodes, done, code
                child = n_nodes
                n_nodes += 1
                terminal = 1 if code == TERMINAL_STATE else 0
                n_child = counts[next_mover] if terminal == 0 else 0
                s = _fill_node(nodes, stats, child, node, a, mover, terminal, n_child, s)
                nodes[child, SIBLING] = nodes[node, FIRST]
                nodes[node, FIRST] = child
                nodes[node, CHILDREN] = k + 1
                node = child
                break
            pick = _uct_child(nodes, stats, node, c)
            for r in range(n_roles):
                ids[r] = out[r, 0]
            ids[mover] = nodes[pick, ACTION]
            if not _play(state, ids, net):
                return n_nodes, done, STACK_OVERFLOW
            code, mover = _advance(state, net, out, counts, ids)
            if code < 0 or code == SIMULTANEOUS:
                return n_nodes, done, code
            node = pick
        # rollout: uniformly random joint moves to the end (or max_rollout joint moves)
        steps = 0
        while code != TERMINAL_STATE and steps < max_rollout:
            for r in range(n_roles):
                s, j = _rand_below(s, counts[r])
                ids[r] = out[r, j]
            if not _play(state, ids, net):
                return n_nodes, done, STACK_OVERFLOW
            steps += 1
            code, _m = _status(state, net, out, counts)
            if code < 0:
                return n_nodes, done, code
        _values(net, goals, kind, values)
        # backup: each node gets the value of the role that moved into it
        while node != -1:
            stats[node, 0] += 1.0
            m = nodes[node, MOVER]
            if m >= 0:
                stats[node, 1] += values[m]
            node = nodes[node, PARENT]
        done += 1
    return n_nodes, done, OK


# ----------------------------------------------------------------------------- the agent
def _net_args(net) -> tuple:
    """The Propnet's arrays as the tuple the kernels above take."""
    if net.incremental:
        cur, inc = net.cur, net.inc_arrays()
    else:  # no change propagation: full evaluation of each phase; the incremental slots are unused
        one = np.zeros(1, np.int32)
        cur, inc = np.zeros(len(net.fluents), np.uint8), (one,) * 8  # the shapes of inc_arrays()
    layout = net.batch_arrays()  # the network's read-only arrays, grouped as the kernels take them
    return (
        bool(net.incremental),
        net.vals,
        cur,
        net.true_ids,
        inc,
        layout["phase_a"],
        layout["phase_b"],
        layout["legal"],
        bool(net.use_live),
        layout["moves"],
        np.int64(len(net.roles)),
        np.int64(net.max_legal),
    )


def state_from_fluents(game, fluents) -> np.ndarray:
    """The compiled state (``uint8`` over the network's fluents) where exactly ``fluents`` hold.

    ``fluents``: GDL text (``"(cell 1 1 x)"``) or terms; a fluent the grounding never makes
    true is a ValueError. Also turns an exact-path state (a frozenset of terms) into a
    compiled one.

    >>> from ggpzoo import gdl
    >>> g = gdl.load(gdl.game_path("tictactoe"))
    >>> int(state_from_fluents(g, ["(control oplayer)", "(cell 2 2 x)"]).sum())
    2
    """
    from ggpzoo.gdl.syntax import parse

    net = game.propnet()
    state = np.zeros(len(net.fluents), np.uint8)
    for f in fluents:
        if isinstance(f, str):
            rules = parse(f)
            if len(rules) != 1 or rules[0].body:
                raise ValueError(f"{f!r} is not one fluent term")
            f = rules[0].head
        i = net.fluent_index.get(f)
        if i is None:
            raise ValueError(f"{to_text(f)} is not a fluent of {game.name} (no state of the grounding has it)")
        state[i] = 1
    return state


class GDLMCTSAgent(UCTBudget, Agent):
    """UCT with random rollouts on a GDL game's compiled network; called with a state.

    Args:
        game: a :class:`ggpzoo.gdl.Game`, or what :func:`ggpzoo.gdl.load` reads (a ``.kif``
            path, KIF text). Its network is built here if it was not (see
            ``ground_time_limit`` in :func:`ggpzoo.gdl.load`).
        simulations, seconds, c, seed, max_rollout, value: as
            :class:`ggpzoo.agents.MCTSAgent` (``max_rollout`` counts joint moves; ``value``
            as in this module's docstring).

    ``agent(state, role=None)`` takes a compiled state (``env.unwrapped.get_state()`` of a
    GDL env on the compiled backend, or :func:`state_from_fluents`; an exact-path state, a
    frozenset of fluents, is converted) and returns an action id of the choosing role
    (``role`` if given, else the one role with a choice). ``agent.act(env)`` passes the
    env's state and ``agent_selection``. After each call, :attr:`last_search` holds
    ``simulations``, ``seconds``, ``nodes``, ``legal``, ``visits`` and ``value``.
    """

    name = "mcts"
    takes = "state"

    def __init__(
        self,
        game,
        simulations: int | None = None,
        seconds: float | None = None,
        c: float = 0.5,
        seed: int | None = None,
        max_rollout: int = 10_000,
        value: str = "outcome",
    ):
        from ggpzoo.gdl.game import Game, load
        from ggpzoo.gdl.propnet import CompiledMachine

        self._settings(simulations, seconds, c, max_rollout, value)
        self.rng = seeded_rng(seed)
        self.game = game if isinstance(game, Game) else load(game)
        self.net = self.game.propnet()
        self.roles = list(self.game.roles)
        self._machine = CompiledMachine(self.game)  # for the checks at the root

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded_rng(seed)

    def _seed(self) -> int:
        return int(self.rng.integers(1, 2**62))

    def act(self, env) -> int:
        """The move of ``env.agent_selection`` in a GDL env of this agent's game."""
        from ggpzoo.gdl.game import Game

        raw = env.unwrapped
        game = getattr(raw, "game", None)
        if not isinstance(game, Game):
            raise ValueError(f"GDLMCTSAgent plays GDL envs (ggpzoo.gdl.env), got {type(raw).__name__}")
        state = raw.get_state()
        if game is not self.game:
            if game.text != self.game.text:
                raise ValueError(f"this GDLMCTSAgent plays {self.game.name}, got a GDL env of {game.name}")
            state = frozenset(raw.machine.fluents(state))  # another load of the same sheet: go by the fluents
        return self(state, role=raw.agent_selection)

    def _checked(self, state) -> np.ndarray:
        n = len(self.net.fluents)
        if isinstance(state, frozenset):
            return state_from_fluents(self.game, state)
        if isinstance(state, tuple) or not isinstance(state, np.ndarray):
            raise TypeError(
                f"GDLMCTSAgent takes a GDL state (a uint8 array of {n} fluents, env.unwrapped.get_state()), "
                f"got {type(state).__name__}"
            )
        if state.shape != (n,) or not (np.issubdtype(state.dtype, np.integer) or state.dtype == np.bool_):
            raise ValueError(
                f"not a state of {self.game.name}: expected {n} fluents (0/1), got {state.dtype} {state.shape}"
            )
        if n and (state.min() < 0 or state.max() > 1):
            raise ValueError(f"not a state of {self.game.name}: fluents must be 0 or 1")
        return np.ascontiguousarray(state, np.uint8).copy()

    def __call__(self, state, role: str | None = None) -> int:
        root = self._checked(state)
        net = self.net
        if role is not None and role not in self.roles:
            raise ValueError(f"role must be one of {self.roles}, got {role!r}")
        machine = self._machine
        if machine.terminal(root):
            raise ValueError("no legal action: the game is over")
        legal = machine.legal(root)
        if any(len(m) == 0 for m in legal):
            stuck = self.roles[[len(m) for m in legal].index(0)]
            raise ValueError(f"no legal action: the game is over ({stuck} has no move)")
        choosers = [self.roles[i] for i, m in enumerate(legal) if len(m) > 1]
        if role is not None and role not in choosers:
            if len(choosers) > 1 or len(legal[self.roles.index(role)]) != 1:
                raise ValueError(f"{role} is not to move here")
            return int(legal[self.roles.index(role)][0])  # a forced move: nothing to search
        if len(choosers) > 1:
            raise SimultaneousMoveError(_simultaneous(choosers))
        if role is None and not choosers:
            raise ValueError("no role has a choice here: every role has one legal move")
        args = _net_args(net)
        if net.incremental:  # the live legal list's order depends on the network's history: start from one
            net.reset_values(root)
        c, cap, kind = self.c, self.max_rollout, self._value

        def init(nodes, stats):
            n, _mover = _init_tree(root, args, nodes, stats, self._seed())
            return n

        def search(nodes, stats, n_nodes, simulations):
            n_nodes, ran, code = _search(root, args, nodes, stats, n_nodes, simulations, c, self._seed(), cap, kind)
            if code != OK:
                raise _Stopped(code)
            return n_nodes, ran

        try:
            return self._run(init, search)
        except _Stopped as e:
            if net.incremental:  # its counters may be half updated
                net.reset_values(net.init)
            if e.code == SIMULTANEOUS:
                raise SimultaneousMoveError(_simultaneous(None)) from None
            raise GDLError(
                {
                    STACK_OVERFLOW: "propagation stack overflow in the network",
                    UNMAPPED: "a legal move outside the action space (the sheet's input relation)",
                    BAD_ROOT: "the search's root is not a state where one role chooses",
                    TOO_MANY_FORCED: f"{MAX_FORCED} joint moves in a row without a choice: the game seems endless",
                }[e.code]
            ) from None
        finally:
            net.last = None  # the network was moved: the machines' cache of its state is stale


class _Stopped(Exception):
    def __init__(self, code: int):
        self.code = code


def _simultaneous(choosers) -> str:
    who = f"roles {', '.join(choosers)} choose" if choosers else "two or more roles choose"
    return (
        f"{who} a move at the same time (a simultaneous move); GDLMCTSAgent searches games where one role "
        "chooses at a time (it has no decoupled UCT): play this game with another agent, e.g. random"
    )
