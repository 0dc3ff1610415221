"""Monte Carlo tree search on a GDL game's compiled network: UCT with random rollouts, in numba.

The search of `ggpzoo.agents.mcts` (same node table, expansion order, UCT rule,
budgets and answer), played on `ggpzoo.gdl.propnet.Propnet` instead of a
hand-written kernel, with decoupled UCT where roles move at once. A GDL step is a joint
move, one move per role; a tree node is a state where at least one role has a choice
(more than one legal move), and the roles with one legal move (``noop``) play it. Joint
moves in which no role has a choice are played through, as the AEC env plays them
([`ggpzoo.gdl.envs`][ggpzoo.gdl.envs]). A state is over when the sheet says ``terminal`` or when some
role has no legal move (the env's rule too).

* **One role chooses** (turn-taking games: tic-tac-toe, connect four, breakthrough, the GDL
  editions of the hand-written games): a UCT node exactly as in `ggpzoo.agents.mcts`;
  its children are that role's moves.
* **Several roles choose at once** (simultaneous moves): decoupled UCT (DUCT, the usual
  approach of GGP players such as CadiaPlayer and Sancho; Lanctot et al., "Monte Carlo Tree Search in
  Simultaneous Move Games"). Each choosing role keeps its own statistics, visits and the
  sum of its own values, per legal move of its own; each simulation picks each role's
  move independently (a move it has not tried yet, else UCT on its statistics, and once
  in ``EXPLORE`` picks a random move, which keeps two roles of a symmetric game from
  mirroring each other for good); the children are indexed by the joint move, made when
  a joint move is first played; the backup adds each role's own value to the move it
  played. The answer at such a root is the most visited of the asked role's moves.

Values come from the sheet's goals at the end of a rollout, for the role that chose each
move (``value=``, each in [0, 1]; "the best other" is the highest goal of the other roles):

* ``"outcome"`` (default): 1 if the role's goal beats every other, 0.5 if it ties the
  best other, 0 if below: the env's reward and the arena's score;
* ``"margin"``: ``1/2 + (own goal - best other) / 200``;
* ``"goal"``: the role's own goal / 100 (what a GGP player maximises).

Rollouts play uniformly random joint moves (each role a random legal move).

In the AEC env the roles with a choice act one after the other and the joint move is
applied when all have chosen; until then ``env.unwrapped.get_state()`` is the state
before it, and the choices made so far are kept apart (not in the state). ``act(env)``
searches from that state for ``agent_selection``, so a role never sees what the roles
before it chose in the same step: it plays the simultaneous game, not a turn-taking one.

>>> from ggpzoo import gdl
>>> env = gdl.raw_env(gdl.game_path("tictactoe")); env.reset()
>>> agent = GDLMCTSAgent(env.game, simulations=50, seed=0)
>>> int(agent.act(env)) in env.legal_actions()
True
>>> rps = gdl.load(gdl.game_path("rps_fold"))   # both roles throw at once
>>> env = gdl.raw_env(rps); env.reset()
>>> env.action_to_term(GDLMCTSAgent(rps, simulations=300, seed=0).act(env)) in ("rock", "paper", "scissors")
True
"""

from __future__ import annotations

import math

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
from ggpzoo.envs.propnet import kernel
from ggpzoo.envs.propnet.kernel import MAX_FORCED, MAX_LEGAL, N_ROLES
from ggpzoo.gdl.syntax import GDLError, to_text

__all__ = ["GDLMCTSAgent", "SimultaneousMoveError", "checked_state", "env_state", "state_from_fluents"]

# What a state is to the search (`ggpzoo.envs.propnet.kernel.status()`), and why a search stopped
# (``_search``): the kernel's codes, and two of the search's own.
CHOICE, TERMINAL_STATE, FORCED, SIMULTANEOUS = kernel.CHOICE, kernel.OVER, kernel.FORCED, kernel.SIMULTANEOUS
OK, STACK_OVERFLOW, UNMAPPED, TOO_MANY_FORCED = (
    kernel.OK,
    kernel.STACK_OVERFLOW,
    kernel.UNMAPPED,
    kernel.TOO_MANY_FORCED,
)
BAD_ROOT, TOO_MANY_JOINT = -4, -5

# Decoupled UCT. ``ext[node]`` (int64, one row per node, beside the node table) holds
# ``BLOCK``: the offset of the node's block in the edge tables if several roles choose
# there (a simultaneous node), else -1; and ``JOINT``: for a child of a simultaneous node,
# the joint move that leads to it, else -1. A block at offset ``o`` is, for R roles,
# ``eint[o + r]`` = role r's legal count ``n_r`` (1 for a role without a choice), then
# each role's legal ids in turn, sorted, with ``estat[i] = (visits, value sum)`` for the
# role's move ``eint[i]`` (the value is that role's). A joint move is the mixed-radix
# number of the roles' move indices (role 0 the lowest digit, role r's radix n_r).
BLOCK, JOINT = 0, 1
MAX_JOINT = 2**62  # joint moves a simultaneous node can index
# At a simultaneous node each role plays a random move once in EXPLORE picks (and UCT ties
# are broken at random). In a symmetric game both roles often hold the same statistics, and
# picking by UCT alone they would then pick the same move again and again: mirrored play,
# every result a draw, every move (a losing one too) worth 1/2, for good.
EXPLORE = 20


class SimultaneousMoveError(ValueError):
    """Kept for code that catches it: until 0.7.0 the agent raised it at a state where two or
    more roles choose at once. It searches those states now (decoupled UCT) and never raises it."""


# ----------------------------------------------------------------------------- the network
# The search walks its states on one work area ``W`` of the network's tables ``T``
# (`ggpzoo.envs.propnet.kernel`).
@njit(cache=True)
def _mover(code, counts):
    """The one role with a choice where ``code`` is CHOICE, else -1."""
    if code == CHOICE:
        for r in range(counts.shape[0]):
            if counts[r] > 1:
                return r
    return -1


@njit(cache=True)
def _status(state, T, W, out, counts):
    """Bring ``W`` to ``state``; return (what the state is, the choosing role or -1)."""
    code = kernel.status(T, W, state, out, counts)
    return code, _mover(code, counts)


@njit(cache=True)
def _advance(state, T, W, out, counts, ids):
    """Play joint moves without a choice until a role has one or the game is over."""
    code, _played = kernel.advance(T, W, state, out, counts, ids, MAX_FORCED)
    if code == FORCED:
        return TOO_MANY_FORCED, -1
    return code, _mover(code, counts)


@njit(cache=True)
def _values(T, W, goals, kind, values):
    """What the state ``W`` is at is worth to each role (see the module docstring)."""
    kernel.goals(T, W, goals)
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
def _add_block(eint, estat, n_edges, out, counts, sorted_legal):
    """Append a simultaneous node's block (see ``BLOCK``) for the legal moves ``out``/``counts``.

    Returns ``(offset, n_edges, eint, estat)``, the tables grown (copied) when full; offset
    -1 if the joint moves are too many to number."""
    n_roles = counts.shape[0]
    need = n_roles
    joint = np.int64(1)
    for r in range(n_roles):
        if counts[r] > MAX_JOINT // joint:
            return -1, n_edges, eint, estat
        joint *= counts[r]
        need += counts[r]
    if n_edges + need > eint.shape[0]:
        size = max(2 * eint.shape[0], n_edges + need)
        grown_int = np.zeros(size, np.int64)
        grown_stat = np.zeros((size, 2), np.float64)
        grown_int[:n_edges] = eint[:n_edges]
        grown_stat[:n_edges] = estat[:n_edges]
        eint, estat = grown_int, grown_stat
    o = n_edges
    at = o + n_roles
    for r in range(n_roles):
        n = counts[r]
        eint[o + r] = n
        sorted_legal[:n] = np.sort(out[r, :n])  # the legal list's order depends on the network's history
        for j in range(n):
            eint[at + j] = sorted_legal[j]
            estat[at + j, 0] = 0.0
            estat[at + j, 1] = 0.0
        at += n
    return o, at, eint, estat


@njit(cache=True)
def _role_move(estat, at, n, c, s):
    """The index of one role's move among its ``n`` moves, whose statistics are
    ``estat[at:at + n]``: one it has not tried yet, at random; else, once in ``EXPLORE``, a
    random one; else the best ``Q + c * sqrt(ln N / n)`` (ties at random). Returns (it, the rng state)."""
    total = 0.0
    untried = 0
    for m in range(n):
        total += estat[at + m, 0]
        if estat[at + m, 0] == 0.0:
            untried += 1
    if untried > 0:
        s, t = _rand_below(s, untried)
        for m in range(n):
            if estat[at + m, 0] == 0.0:
                if t == 0:
                    return m, s
                t -= 1
    s, e = _rand_below(s, EXPLORE)
    if e == 0:
        s, j = _rand_below(s, n)
        return j, s
    log_n = math.log(total)
    best = -1.0
    pick = 0
    ties = 0
    for m in range(n):
        v = estat[at + m, 0]
        u = estat[at + m, 1] / v + c * math.sqrt(log_n / v)
        if u > best:
            best = u
            pick = m
            ties = 1
        elif u == best:
            ties += 1
            s, t = _rand_below(s, ties)
            if t == 0:
                pick = m
    return pick, s


@njit(cache=True)
def _duct_pick(eint, estat, o, c, ids, s):
    """Each role's move at the simultaneous node of block ``o``, chosen independently from its
    own statistics (`_role_move()`). Fills the joint move ``ids``; returns (its number,
    the rng state)."""
    n_roles = ids.shape[0]
    at = o + n_roles
    joint = np.int64(0)
    radix = np.int64(1)
    for r in range(n_roles):
        n = eint[o + r]
        j = 0
        if n > 1:
            j, s = _role_move(estat, at, n, c, s)
        ids[r] = eint[at + j]
        joint += j * radix
        radix *= n
        at += n
    return joint, s


@njit(cache=True)
def _duct_credit(eint, estat, o, joint, values):
    """Add one visit and each role's value to that role's move of joint move ``joint`` at block ``o``."""
    n_roles = values.shape[0]
    at = o + n_roles
    for r in range(n_roles):
        n = eint[o + r]
        j = joint % n
        joint //= n
        estat[at + j, 0] += 1.0
        estat[at + j, 1] += values[r]
        at += n


@njit(cache=True)
def _init_tree(root, T, W, nodes, stats, ext, eint, estat, role, seed):
    """Fill the root node, and its block if several roles choose there.

    Returns ``(n, n_edges, eint, estat)``: ``n`` the legal count of the root's one chooser,
    or of role ``role`` where several choose; 0 if no role chooses (or too many joint moves)."""
    n_roles = T[N_ROLES]
    out = np.zeros((n_roles, T[MAX_LEGAL]), np.int64)
    counts = np.zeros(n_roles, np.int64)
    sorted_legal = np.zeros(T[MAX_LEGAL], np.int64)
    state = root.copy()
    code, mover = _status(state, T, W, out, counts)
    s = np.uint64(seed) | np.uint64(1)
    ext[0, BLOCK] = -1
    ext[0, JOINT] = -1
    if code == CHOICE:
        _fill_node(nodes, stats, 0, -1, -1, -1, 0, counts[mover], s)
        return counts[mover], 0, eint, estat
    if code != SIMULTANEOUS or role < 0 or role >= n_roles:
        return 0, 0, eint, estat
    _fill_node(nodes, stats, 0, -1, -1, -1, 0, 0, s)
    o, n_edges, eint, estat = _add_block(eint, estat, 0, out, counts, sorted_legal)
    if o < 0:
        return 0, 0, eint, estat
    ext[0, BLOCK] = o
    return counts[role], n_edges, eint, estat


@njit(cache=True)
def _search(root, T, W, nodes, stats, ext, eint, estat, n_edges, n_nodes, simulations, c, seed, max_rollout, kind):
    """Run up to ``simulations`` simulations from state ``root`` (a choice for one role or more).

    A node where one role chooses is a UCT node of `ggpzoo.agents.mcts`; a node where
    several roles choose picks each role's move by `_duct_pick()` and goes to the child
    of that joint move, made when first played. Returns ``(n_nodes, simulations run,
    status, n_edges, eint, estat)``: status 0 or a negative error code; the edge tables are
    new arrays when they grew."""
    n_roles = T[N_ROLES]
    capacity = min(nodes.shape[0], ext.shape[0])
    out = np.zeros((n_roles, T[MAX_LEGAL]), np.int64)
    counts = np.zeros(n_roles, np.int64)
    ids = np.zeros(n_roles, np.int64)
    goals = np.zeros(n_roles, np.int64)
    values = np.zeros(n_roles, np.float64)
    sorted_legal = np.zeros(T[MAX_LEGAL], np.int64)
    state = root.copy()
    s = np.uint64(seed) | np.uint64(1)
    done = 0
    while done < simulations and n_nodes < capacity:
        state[:] = root
        code, mover = _status(state, T, W, out, counts)
        if (code != CHOICE and code != SIMULTANEOUS) or (code == SIMULTANEOUS) != (ext[0, BLOCK] >= 0):
            # the caller checked the root: this would be a bug, not a crash
            return n_nodes, done, code if code < 0 else BAD_ROOT, n_edges, eint, estat
        node = 0
        # selection and expansion
        while nodes[node, TERMINAL] == 0:
            o = ext[node, BLOCK]
            a = -1
            who = -1
            joint = np.int64(-1)
            if o < 0:  # one role chooses: its next untried move, else UCT over the children
                n = nodes[node, LEGAL]
                k = nodes[node, CHILDREN]
                if k < n:
                    a = _chosen(out, counts, mover, node, k, nodes, ids, sorted_legal)
                    who = mover
                    pick = -1
                else:
                    pick = _uct_child(nodes, stats, node, c)
                    for r in range(n_roles):
                        ids[r] = out[r, 0]
                    ids[mover] = nodes[pick, ACTION]
            else:  # several roles choose: decoupled UCT, then the joint move's child if it exists
                joint, s = _duct_pick(eint, estat, o, c, ids, s)
                pick = nodes[node, FIRST]
                while pick != -1 and ext[pick, JOINT] != joint:
                    pick = nodes[pick, SIBLING]
            if not kernel.play(T, W, state, ids):
                return n_nodes, done, STACK_OVERFLOW, n_edges, eint, estat
            code, mover = _advance(state, T, W, out, counts, ids)
            if code < 0:
                return n_nodes, done, code, n_edges, eint, estat
            if pick != -1:
                node = pick
                continue
            # expansion: a new child, then a rollout from it
            child = n_nodes
            terminal = 1 if code == TERMINAL_STATE else 0
            n_child = counts[mover] if code == CHOICE else 0
            block = -1
            if code == SIMULTANEOUS:
                block, n_edges, eint, estat = _add_block(eint, estat, n_edges, out, counts, sorted_legal)
                if block < 0:
                    return n_nodes, done, TOO_MANY_JOINT, n_edges, eint, estat
            n_nodes += 1
            s = _fill_node(nodes, stats, child, node, a, who, terminal, n_child, s)
            ext[child, BLOCK] = block
            ext[child, JOINT] = joint
            nodes[child, SIBLING] = nodes[node, FIRST]
            nodes[node, FIRST] = child
            nodes[node, CHILDREN] += 1
            node = child
            break
        # rollout: uniformly random joint moves to the end (or max_rollout joint moves)
        steps = 0
        while code != TERMINAL_STATE and steps < max_rollout:
            for r in range(n_roles):
                s, j = _rand_below(s, counts[r])
                ids[r] = out[r, j]
            if not kernel.play(T, W, state, ids):
                return n_nodes, done, STACK_OVERFLOW, n_edges, eint, estat
            steps += 1
            code, _m = _status(state, T, W, out, counts)
            if code < 0:
                return n_nodes, done, code, n_edges, eint, estat
        _values(T, W, goals, kind, values)
        # backup: each node gets the value of the role that moved into it (none for the
        # child of a simultaneous node), and a simultaneous node's edges of the joint move
        # played there get each role's own value
        while node != -1:
            stats[node, 0] += 1.0
            m = nodes[node, MOVER]
            if m >= 0:
                stats[node, 1] += values[m]
            parent = nodes[node, PARENT]
            if parent != -1 and ext[parent, BLOCK] >= 0:
                _duct_credit(eint, estat, ext[parent, BLOCK], ext[node, JOINT], values)
            node = parent
        done += 1
    return n_nodes, done, OK, n_edges, eint, estat


# ----------------------------------------------------------------------------- the agent
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


def checked_state(game, state, who: str) -> np.ndarray:
    """``state`` as a checked copy of a compiled state of ``game`` (an exact-path state, a
    frozenset of fluents, is converted; a ``(board, aux)`` pair of the game protocol is its
    board); ``who`` names the agent in the errors."""
    n = len(game.propnet().fluents)
    if (
        isinstance(state, tuple)
        and len(state) == 2
        and isinstance(state[0], np.ndarray)
        and isinstance(state[1], np.ndarray)
        and state[1].shape == (kernel.AUX_SIZE,)
    ):
        state = state[0]  # the protocol's (board, aux): the board is the state
    if isinstance(state, frozenset):
        return state_from_fluents(game, state)
    if not isinstance(state, np.ndarray):
        raise TypeError(
            f"{who} takes a GDL state (a uint8 array of {n} fluents, env.unwrapped.get_state()), "
            f"got {type(state).__name__}"
        )
    if state.shape != (n,) or not (np.issubdtype(state.dtype, np.integer) or state.dtype == np.bool_):
        raise ValueError(f"not a state of {game.name}: expected {n} fluents (0/1), got {state.dtype} {state.shape}")
    if n and (state.min() < 0 or state.max() > 1):
        raise ValueError(f"not a state of {game.name}: fluents must be 0 or 1")
    return np.ascontiguousarray(state, np.uint8).copy()


def env_state(env, game, who: str):
    """``(state, role to act)`` of a GDL env of ``game`` (another load of the same sheet goes
    by its fluents); ``who`` names the agent in the errors."""
    from ggpzoo.gdl.game import Game

    raw = env.unwrapped
    other = getattr(raw, "game", None)
    if not isinstance(other, Game):
        raise ValueError(f"{who} plays GDL envs (ggpzoo.gdl.env), got {type(raw).__name__}")
    state = raw.get_state()
    if other is not game:
        if other.text != game.text:
            raise ValueError(f"this {who} plays {game.name}, got a GDL env of {other.name}")
        state = frozenset(raw.machine.fluents(state))
    return state, raw.agent_selection


class GDLMCTSAgent(UCTBudget, Agent):
    """UCT with random rollouts on a GDL game's compiled network; called with a state.

    Args:
        game: a [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game], or what [`ggpzoo.gdl.load()`][ggpzoo.gdl.load] reads (a ``.kif``
            path, KIF text). Its network is built here if it was not (see
            ``ground_time_limit`` in [`ggpzoo.gdl.load()`][ggpzoo.gdl.load]).
        simulations, seconds, c, seed, max_rollout, value: as
            [`ggpzoo.agents.MCTSAgent`][ggpzoo.agents.MCTSAgent] (``max_rollout`` counts joint moves; ``value``
            as in this module's docstring).

    ``agent(state, role=None)`` takes a compiled state (``env.unwrapped.get_state()`` of a
    GDL env on the compiled backend, or [`state_from_fluents()`][ggpzoo.agents.gdl_mcts.state_from_fluents]; an
    exact-path state, a frozenset of fluents, is converted) and returns an action id of ``role`` (default: the
    one role with a choice; needed where several roles choose at once; a role with one
    legal move gets it without a search). ``agent.act(env)`` passes the env's state and
    ``agent_selection`` (never the choices other roles made in the same step: see the
    module docstring). After each call, `last_search` holds ``simulations``,
    ``seconds``, ``nodes``, ``legal``, ``visits`` and ``value`` (of the answer's move, for
    its role).
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
        self._T, self._W = self.net.tables, self.net.work()  # the work area the search walks on
        # decoupled UCT's tables (see BLOCK), kept between moves as the node table is
        self._ext = np.full((0, 2), -1, np.int64)
        self._eint = np.zeros(1024, np.int64)
        self._estat = np.zeros((1024, 2), np.float64)
        self._n_edges = 0

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded_rng(seed)

    def _seed(self) -> int:
        return int(self.rng.integers(1, 2**62))

    def act(self, env) -> int:
        """The move of ``env.agent_selection`` in a GDL env of this agent's game."""
        state, role = env_state(env, self.game, "GDLMCTSAgent")
        return self(state, role=role)

    def _checked(self, state) -> np.ndarray:
        return checked_state(self.game, state, "GDLMCTSAgent")

    def _ext_rows(self, rows: int, keep: int) -> np.ndarray:
        """The ``ext`` table with at least ``rows`` rows (grown with the node table, keeping ``keep``)."""
        if self._ext.shape[0] < rows:
            grown = np.full((rows, 2), -1, np.int64)
            grown[:keep] = self._ext[:keep]
            self._ext = grown
        return self._ext

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
            return int(legal[self.roles.index(role)][0])  # a forced move: nothing to search
        if role is None and not choosers:
            raise ValueError("no role has a choice here: every role has one legal move")
        simultaneous = len(choosers) > 1
        if simultaneous and role is None:
            raise ValueError(
                f"roles {', '.join(choosers)} choose a move at the same time here: pass role= (whose move to answer)"
            )
        if simultaneous and math.prod(len(m) for m in legal) > MAX_JOINT:
            raise GDLError(f"more than {MAX_JOINT} joint moves here: too many to number")
        who = self.roles.index(role) if role is not None else -1
        if self._T is not net.tables:  # set_live() built new tables
            self._T, self._W = net.tables, net.work()
        T, W = self._T, self._W
        kernel.reset(T, W, root)  # the live legal list's order depends on the work area's history: start from none
        c, cap, kind = self.c, self.max_rollout, self._value

        def init(nodes, stats):
            ext = self._ext_rows(nodes.shape[0], 0)
            n, self._n_edges, self._eint, self._estat = _init_tree(
                root, T, W, nodes, stats, ext, self._eint, self._estat, who, self._seed()
            )
            return n

        def search(nodes, stats, n_nodes, simulations):
            ext = self._ext_rows(nodes.shape[0], n_nodes)
            n_nodes, ran, code, self._n_edges, self._eint, self._estat = _search(
                root, T, W, nodes, stats, ext, self._eint, self._estat, self._n_edges,
                n_nodes, simulations, c, self._seed(), cap, kind,
            )  # fmt: skip
            if code != OK:
                raise _Stopped(code)
            return n_nodes, ran

        def answer(nodes, stats):
            """The most visited move of ``role`` at the simultaneous root (ties: the higher value)."""
            o = int(self._ext[0, BLOCK])
            counts = self._eint[o : o + len(self.roles)]
            at = o + len(self.roles) + int(counts[:who].sum())
            edges = self._estat[at : at + int(counts[who])]
            j = max(range(len(edges)), key=lambda m: (edges[m, 0], edges[m, 1]))
            return int(self._eint[at + j]), edges[j, 0], edges[j, 1]

        try:
            return self._run(init, search, answer if simultaneous else None)
        except _Stopped as e:
            raise GDLError(
                {
                    STACK_OVERFLOW: "propagation stack overflow in the network",
                    UNMAPPED: "a legal move outside the action space (the sheet's input relation)",
                    BAD_ROOT: "the search's root is not a state where a role chooses",
                    TOO_MANY_FORCED: f"{MAX_FORCED} joint moves in a row without a choice: the game seems endless",
                    TOO_MANY_JOINT: f"more than {MAX_JOINT} joint moves at one state: too many to number",
                }[e.code]
            ) from None


class _Stopped(Exception):
    def __init__(self, code: int):
        self.code = code
