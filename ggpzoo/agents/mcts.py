"""Monte Carlo tree search for every game: UCT with uniformly random rollouts, in numba.

The search plays on the game protocol of [`ggpzoo.engine.dispatch`][ggpzoo.engine.dispatch] (``status``, ``step``,
``role_legal``, ``step_joint``), so one agent searches every game: the hand-written kernels
at their own speed, and any GDL rule sheet (``"gdl:tictactoe"``) on its compiled network.
Values come from the goals (0..100 per role) of the state where a rollout ends, from the
point of view of the role that chose each action, so the search is correct for every game:
turns of two actions by the same role (amazons_split), goals that grow during the game
(Skirmish captures), draws (equal goals), more than two roles.

* **One role chooses** (every hand-written game; turn-taking sheets): a node stores the role
  that moved into it; backing up a rollout adds that role's value to the node; UCT at a
  node picks the child with the best ``Q + c * sqrt(ln N / n)``, which is the mover's own
  value. The answer is the root's most visited child (ties: the better mean value).
* **Several roles choose at once** (a sheet's simultaneous moves): decoupled UCT (DUCT, the
  usual approach of GGP players such as CadiaPlayer and Sancho; Lanctot et al., "Monte Carlo
  Tree Search in Simultaneous Move Games"). Each role keeps its own statistics, visits and
  the sum of its own values, per legal action of its own; each simulation picks each role's
  action independently (one it has not tried yet, else UCT on its statistics, and once in
  ``EXPLORE`` a random one, which keeps two roles of a symmetric game from mirroring each
  other for good); the children are indexed by the joint move, made when a joint move is
  first played; the backup adds each role's own value to the action it played. The answer
  at such a root is the most visited of the asked role's actions.

What a finished rollout is worth to a role (``value=``), all in [0, 1] ("the best other" is
the highest goal of the other roles; with one role, every kind is ``"goal"``):

* ``"outcome"`` (default): 1 if its goal beats every other, 0.5 if it ties the best other,
  0 if below: the env's reward and the arena's score, so the search plays to win;
* ``"margin"``: ``1/2 + (own goal - best other) / 200``: wins by more are better;
* ``"goal"``: its own goal / 100, as a GGP player maximises it (in Skirmish, its own
  captures, blind to its losses: the weakest at winning, see the README's measurements).

Rollouts play uniformly random actions (where several roles choose, each a random legal
action). The tree lives in flat arrays (one entry per node, children as linked lists). A
node's legal actions are not stored: a node knows their count, and its children are drawn
in the order ``(a * i + b) mod count`` with random ``a`` coprime to the count, so each is
drawn exactly once.

In a GDL env the roles with a choice act one after the other and the joint move is
applied when all have chosen; until then ``env.unwrapped.get_state()`` is the state before
it, so ``act(env)`` searches from that state for ``agent_selection``: a role never sees
what the roles before it chose in the same step.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit, types
from numba.extending import overload

from ggpzoo.agents.base import _any_role, _ProtocolAgent, protocol_error, warm_once
from ggpzoo.engine.dispatch import (
    NOT_A_SHEET,
    OVER,
    SIMULTANEOUS,
    playout,
    role_legal,
    status,
    step,
    step_joint,
)
from ggpzoo.engine.rng import next_random as _next
from ggpzoo.envs.gamespec import ROLE

__all__ = ["MCTSAgent", "MAX_ROLLOUT"]

# Columns of the int32 node table.
PARENT, ACTION, MOVER, FIRST, SIBLING, CHILDREN, LEGAL, TERMINAL, PERM_A, PERM_B = range(10)
NODE_INTS = 10
# What a finished rollout is worth to a role, from the goals (see MCTSAgent's ``value``).
GOAL, MARGIN, OUTCOME = 0, 1, 2
VALUES = {"goal": GOAL, "margin": MARGIN, "outcome": OUTCOME}
MAX_SIMULATIONS = 10**7  # the node tables take 72 bytes a simulation: 720 MB at most
# A rollout stops after this many moves (``max_rollout``'s default) and is scored with the
# goals of the state where it stopped: every shipped game ends well before it, and a sheet
# whose games never end costs a search at most this many moves a simulation.
MAX_ROLLOUT = 1_000
# Decoupled UCT. ``ext[node]`` (int64, one row per node, beside the node table) holds
# ``BLOCK``: the offset of the node's block in the edge tables if several roles choose
# there (a simultaneous node), else -1; and ``JOINT``: for a child of a simultaneous node,
# the joint move that leads to it, else -1. A block at offset ``o`` is, for R roles,
# ``eint[o + r]`` = role r's legal count ``n_r`` (1 for a role without a choice), then
# each role's legal ids in turn, ascending, with ``estat[i] = (visits, value sum)`` for the
# role's action ``eint[i]`` (the value is that role's). A joint move is the mixed-radix
# number of the roles' action indices (role 0 the lowest digit, role r's radix n_r).
BLOCK, JOINT = 0, 1
MAX_JOINT = 2**62  # joint moves a simultaneous node can index
# At a simultaneous node each role plays a random action once in EXPLORE picks (and UCT ties
# are broken at random). In a symmetric game both roles often hold the same statistics, and
# picking by UCT alone they would then pick the same action again and again: mirrored play,
# every result a draw, every action (a losing one too) worth 1/2, for good.
EXPLORE = 20
# Why a search stopped, besides the game protocol's error codes.
TOO_MANY_JOINT = -100


@njit(cache=True)
def _rand_below(s, n):
    s, r = _next(s)
    return s, np.int64((r * np.uint64(n)) >> np.uint64(32))


@njit(cache=True)
def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


@njit(cache=True)
def _fill_node(nodes, stats, i, parent, action, mover, terminal, n, s):
    """Fill node ``i`` (``n`` legal actions, drawn in a random order); return the rng state."""
    nodes[i, PARENT] = parent
    nodes[i, ACTION] = action
    nodes[i, MOVER] = mover
    nodes[i, FIRST] = -1
    nodes[i, SIBLING] = -1
    nodes[i, CHILDREN] = 0
    nodes[i, TERMINAL] = terminal
    nodes[i, LEGAL] = n
    stats[i, 0] = 0.0
    stats[i, 1] = 0.0
    a = 1
    b = 0
    if n > 1:
        s, a = _rand_below(s, n - 1)
        a += 1
        while _gcd(a, n) != 1:
            a = a + 1 if a + 1 < n else 1
        s, b = _rand_below(s, n)
    nodes[i, PERM_A] = a
    nodes[i, PERM_B] = b
    return s


@njit(cache=True)
def _values(goals, kind, values):
    """What a state with goals ``goals`` is worth to each role (see the module docstring)."""
    n = goals.shape[0]
    if n == 2 and kind == MARGIN:  # the two values sum to exactly 1
        values[0] = 0.5 + (goals[0] - goals[1]) / 200.0
        values[1] = 1.0 - values[0]
        return
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


@njit(cache=True, inline="always")
def _roles_legal(game, board, aux, T, W, rl, counts):
    """Every role's legal actions into ``rl[r, :counts[r]]`` (ascending), at a state where
    several roles choose (after ``status``)."""
    for r in range(counts.shape[0]):
        counts[r] = role_legal(game, board, aux, T, W, r, rl[r])


@njit(cache=True)
def _uct_child(nodes, stats, node, c):
    """The child of ``node`` with the best ``Q + c * sqrt(ln N / n)`` (every child visited)."""
    log_n = math.log(stats[node, 0])
    best = -1.0
    pick = -1
    ch = nodes[node, FIRST]
    while ch != -1:
        v = stats[ch, 0]
        u = stats[ch, 1] / v + c * math.sqrt(log_n / v)
        if u > best:
            best = u
            pick = ch
        ch = nodes[ch, SIBLING]
    return pick


# ----------------------------------------------------------------------------- decoupled UCT
@njit(cache=True)
def _add_block(eint, estat, n_edges, rl, counts):
    """Append a simultaneous node's block (see ``BLOCK``) for the legal actions ``rl``/``counts``.

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
        for j in range(n):
            eint[at + j] = rl[r, j]
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


# ----------------------------------------------------------------------------- the search
@njit(cache=True)
def _init_root(nodes, stats, ext, n, seed):
    """Fill the root node (node 0), where ``status`` said ``n`` (SIMULTANEOUS: its block is
    added by `_add_block()`, and ``ext[0, BLOCK]`` set, by the caller)."""
    s = np.uint64(seed) | np.uint64(1)
    ext[0, BLOCK] = -1
    ext[0, JOINT] = -1
    # one call, every argument an int64 (not a literal): `_search`'s one compiled `_fill_node`
    none = np.int64(-1)
    terminal = np.int64(1 if n < 0 and n != SIMULTANEOUS else 0)
    _fill_node(nodes, stats, np.int64(0), none, none, none, terminal, np.int64(max(n, 0)), s)


# Decoupled UCT's steps inside `_search`, compiled only where the tables ``T`` may hold a
# sheet's network: a hand-written game (``T`` is `NO_TABLES`, int8) has no simultaneous
# node, and its first search does not compile them.
def _duct_move(game, board, aux, T, W, nodes, ext, eint, estat, o, node, c, ids, s):
    """At the simultaneous node ``node`` (block ``o``): each role's move by `_duct_pick()`, the
    joint move played. Returns (the child of that joint move or -1, the joint move's number,
    ``step_joint``'s code, the rng state)."""


@overload(_duct_move)
def _ov_duct_move(game, board, aux, T, W, nodes, ext, eint, estat, o, node, c, ids, s):
    if T.dtype == types.int8:
        return lambda game, board, aux, T, W, nodes, ext, eint, estat, o, node, c, ids, s: (
            -1, np.int64(-1), NOT_A_SHEET, s
        )  # fmt: skip

    def impl(game, board, aux, T, W, nodes, ext, eint, estat, o, node, c, ids, s):
        joint, s = _duct_pick(eint, estat, o, c, ids, s)
        pick = nodes[node, FIRST]
        while pick != -1 and ext[pick, JOINT] != joint:
            pick = nodes[pick, SIBLING]
        return pick, joint, step_joint(game, board, aux, T, W, ids), s

    return impl


def _duct_block(game, board, aux, T, W, rl, counts, eint, estat, n_edges):
    """A new simultaneous node's block: every role's legal actions (after ``status``), added
    by `_add_block()`. Returns what it returns."""


@overload(_duct_block)
def _ov_duct_block(game, board, aux, T, W, rl, counts, eint, estat, n_edges):
    if T.dtype == types.int8:
        return lambda game, board, aux, T, W, rl, counts, eint, estat, n_edges: (-1, n_edges, eint, estat)

    def impl(game, board, aux, T, W, rl, counts, eint, estat, n_edges):
        _roles_legal(game, board, aux, T, W, rl, counts)
        return _add_block(eint, estat, n_edges, rl, counts)

    return impl


@njit(cache=True, nogil=True)  # without the GIL: a thread beside the search (a GGP player's reply) is not held up
def _search(
    game, root_board, root_aux, T, W, nodes, stats, ext, eint, estat, n_edges, n_nodes, simulations, c, seed,
    max_rollout, kind, max_legal, n_roles,
):  # fmt: skip
    """Run up to ``simulations`` simulations from the root (node 0); stop early when the node
    table is full.

    A node where one role chooses is a UCT node: its children are that role's actions, made
    in the node's random order, then picked by UCT. A node where several roles choose picks
    each role's move by `_duct_pick()` and goes to the child of that joint move, made when
    first played. Returns ``(n_nodes, simulations run, status, n_edges, eint, estat)``:
    status 0 or an error code (the game protocol's, or ``TOO_MANY_JOINT``); the edge tables
    are new arrays when they grew. ``stats[i] = (visits, value sum)``."""
    capacity = min(nodes.shape[0], ext.shape[0])
    legal = np.empty(max_legal, np.int32)
    rl = np.empty((n_roles, max_legal), np.int32)
    counts = np.zeros(n_roles, np.int64)
    ids = np.zeros(n_roles, np.int32)
    goals = np.zeros(n_roles, np.int32)
    values = np.zeros(n_roles, np.float64)
    board = root_board.copy()
    aux = root_aux.copy()
    s = np.uint64(seed) | np.uint64(1)
    done = 0
    while done < simulations and n_nodes < capacity:
        board[:] = root_board
        aux[:] = root_aux
        if W.shape[0] > 0:  # a work area (a sheet's network values) is a cache of the state: bring it to the root
            code = status(game, board, aux, T, W, legal, goals)
            if code < SIMULTANEOUS:
                return n_nodes, done, code, n_edges, eint, estat
        node = 0
        fresh = False  # goals hold the current state's (status ran there)
        # selection and expansion
        while nodes[node, TERMINAL] == 0:
            o = ext[node, BLOCK]
            joint = np.int64(-1)
            a = -1
            mover = -1
            if o < 0:  # one role chooses: its next untried action, else UCT over the children
                k = nodes[node, CHILDREN]
                n = nodes[node, LEGAL]
                if k < n:
                    status(game, board, aux, T, W, legal, goals)
                    a = legal[(nodes[node, PERM_A] * np.int64(k) + nodes[node, PERM_B]) % n]
                    mover = aux[ROLE]
                    code = step(game, board, aux, T, W, a)
                    pick = -1
                else:
                    pick = _uct_child(nodes, stats, np.int64(node), c)  # int64: one compiled copy
                    code = step(game, board, aux, T, W, nodes[pick, ACTION])
            else:  # several roles choose: decoupled UCT, then the joint move's child if it exists
                pick, joint, code, s = _duct_move(game, board, aux, T, W, nodes, ext, eint, estat, o, node, c, ids, s)
            if code < 0:
                return n_nodes, done, code, n_edges, eint, estat
            if pick != -1:
                node = pick
                continue
            # expansion: a new child, then a rollout from it
            child = n_nodes
            code = status(game, board, aux, T, W, legal, goals)
            fresh = True
            if code < SIMULTANEOUS:
                return n_nodes, done, code, n_edges, eint, estat
            block = -1
            if code == SIMULTANEOUS:
                block, n_edges, eint, estat = _duct_block(game, board, aux, T, W, rl, counts, eint, estat, n_edges)
                if block < 0:
                    return n_nodes, done, TOO_MANY_JOINT, n_edges, eint, estat
            n_nodes += 1
            terminal = np.int64(1 if code == OVER else 0)
            s = _fill_node(nodes, stats, child, np.int64(node), np.int64(a), np.int64(mover), terminal, max(code, 0), s)
            ext[child, BLOCK] = block
            ext[child, JOINT] = joint
            nodes[child, SIBLING] = nodes[node, FIRST]
            nodes[node, FIRST] = child
            nodes[node, CHILDREN] += 1
            node = child
            break
        # rollout: uniformly random actions to the end (or max_rollout moves)
        if nodes[node, TERMINAL] == 0:
            s, err = playout(game, board, aux, T, W, code, legal, goals, rl, counts, ids, s, max_rollout)
            if err < 0:
                return n_nodes, done, err, n_edges, eint, estat
        elif not fresh:  # a terminal node reached again: its goals
            status(game, board, aux, T, W, legal, goals)
        _values(goals, kind, values)
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
    return n_nodes, done, 0, n_edges, eint, estat


@njit(cache=True)
def _best_child(nodes, stats):
    """The root child with the most visits (ties: the higher mean value); -1 if none."""
    pick = -1
    ch = nodes[0, FIRST]
    while ch != -1:
        if (
            pick == -1
            or stats[ch, 0] > stats[pick, 0]
            or (stats[ch, 0] == stats[pick, 0] and stats[ch, 1] > stats[pick, 1])
        ):
            pick = ch
        ch = nodes[ch, SIBLING]
    return pick


# ----------------------------------------------------------------------------- search reuse
# With ``reuse=True`` the next search starts from the previous search's subtree of the new
# root state, found below the previous root at most REUSE_DEPTH plies down, at most
# REUSE_CHECKS nodes looked at (each replayed from the previous root and compared with the
# new state element by element, a sheet's fluents, a hand-written game's board and aux: a
# kept node is the very same state). A
# previous tree of more than REUSE_MAX_NODES nodes (72 bytes each: 144 MB) is not kept.
REUSE_DEPTH = 4
REUSE_CHECKS = 20_000
REUSE_MAX_NODES = 2_000_000


@njit(cache=True)
def _same(a, b):
    """Are two arrays (contiguous) equal element by element, shape and all?"""
    if a.size != b.size:
        return False
    fa = a.ravel()
    fb = b.ravel()
    for i in range(fa.shape[0]):
        if fa[i] != fb[i]:
            return False
    return True


@njit(cache=True)
def _replay(game, T, W, nodes, ext, eint, root_board, root_aux, board, aux, node, path, ids, legal, goals):
    """The state of tree node ``node`` into ``board``/``aux``: the moves from the root (node 0,
    whose state is ``root_board``/``root_aux``) replayed. Returns 0 or an error code."""
    d = 0
    x = node
    while nodes[x, PARENT] != -1:
        path[d] = x
        d += 1
        x = nodes[x, PARENT]
    board[:] = root_board
    aux[:] = root_aux
    n_roles = ids.shape[0]
    for i in range(d - 1, -1, -1):
        code = status(game, board, aux, T, W, legal, goals)
        if code < SIMULTANEOUS:
            return code
        ch = path[i]
        o = ext[nodes[ch, PARENT], BLOCK]
        if o < 0:
            code = step(game, board, aux, T, W, nodes[ch, ACTION])
        else:  # the joint move's number back to each role's move (see BLOCK)
            joint = ext[ch, JOINT]
            at = o + n_roles
            for r in range(n_roles):
                n = eint[o + r]
                ids[r] = eint[at + joint % n]
                joint //= n
                at += n
            code = step_joint(game, board, aux, T, W, ids)
        if code < 0:
            return code
    return 0


@njit(cache=True)
def _find_state(
    game, T, W, nodes, stats, ext, eint, root_board, root_aux, target_board, target_aux, with_aux, max_depth,
    max_checks, n_roles, max_legal,
):  # fmt: skip
    """The node of the tree (node 0 at ``root_board``/``root_aux``) whose state is exactly
    ``target_board``/``target_aux``, at most ``max_depth`` plies below the root: the nodes
    one ply down are looked at first, then two plies down, and so on; where several nodes of
    the first depth that has one are that state (moves in another order that lead to the same
    state), the most visited. -1 if none was found among the first ``max_checks`` nodes
    looked at. The auxes are compared too where ``with_aux`` (the spec's ``aux_in_state``: a
    sheet's state is its fluents alone, its ``aux`` holds what they imply and a move count)."""
    if _same(root_board, target_board) and (not with_aux or _same(root_aux, target_aux)):
        return 0
    board = root_board.copy()
    aux = root_aux.copy()
    path = np.empty(max_depth + 1, np.int64)
    stack = np.empty(max_depth + 1, np.int64)  # the child being looked at, per depth
    ids = np.zeros(n_roles, np.int32)
    legal = np.empty(max_legal, np.int32)
    goals = np.zeros(n_roles, np.int32)
    checks = 0
    for target_depth in range(1, max_depth + 1):
        found = -1
        deeper = False  # nodes below this depth exist
        depth = 1
        stack[1] = nodes[0, FIRST]
        while depth >= 1:
            ch = stack[depth]
            if ch == -1:
                depth -= 1
                if depth >= 1:
                    stack[depth] = nodes[stack[depth], SIBLING]
                continue
            if depth < target_depth:
                if nodes[ch, FIRST] != -1:
                    depth += 1
                    stack[depth] = nodes[ch, FIRST]
                else:
                    stack[depth] = nodes[ch, SIBLING]
                continue
            deeper = deeper or nodes[ch, FIRST] != -1
            checks += 1
            if checks > max_checks:
                return found
            code = _replay(game, T, W, nodes, ext, eint, root_board, root_aux, board, aux, ch, path, ids, legal, goals)
            if code == 0 and _same(board, target_board) and (not with_aux or _same(aux, target_aux)):
                if found == -1 or stats[ch, 0] > stats[found, 0]:
                    found = ch
            stack[depth] = nodes[ch, SIBLING]
        if found != -1 or not deeper:
            return found
    return -1


@njit(cache=True)
def _rebase(nodes, stats, ext, eint, estat, k, n_roles, new_nodes, new_stats, new_ext, new_eint, new_estat):
    """Copy the subtree of node ``k`` into the new tables, ``k`` as the root (node 0), the
    nodes breadth first, each simultaneous node's block of edges with it. Returns
    ``(nodes, edges)`` used in the new tables."""
    old = np.empty(new_nodes.shape[0], np.int64)  # the old index of each new node
    parent = np.empty(new_nodes.shape[0], np.int64)
    sibling = np.empty(new_nodes.shape[0], np.int64)
    old[0] = k
    parent[0] = -1
    sibling[0] = -1
    head = 0
    tail = 1
    n_edges = 0
    while head < tail:
        o = old[head]
        new_nodes[head] = nodes[o]
        new_nodes[head, PARENT] = parent[head]
        new_nodes[head, SIBLING] = sibling[head]
        new_stats[head] = stats[o]
        new_ext[head, JOINT] = ext[o, JOINT]
        new_ext[head, BLOCK] = -1
        b = ext[o, BLOCK]
        if b >= 0:
            size = n_roles
            for r in range(n_roles):
                size += eint[b + r]
            new_eint[n_edges : n_edges + size] = eint[b : b + size]
            new_estat[n_edges : n_edges + size] = estat[b : b + size]
            new_ext[head, BLOCK] = n_edges
            n_edges += size
        ch = nodes[o, FIRST]
        new_nodes[head, FIRST] = tail if ch != -1 else -1
        while ch != -1:  # the children keep their order, numbered one after the other
            old[tail] = ch
            parent[tail] = head
            sibling[tail] = tail + 1 if nodes[ch, SIBLING] != -1 else -1
            tail += 1
            ch = nodes[ch, SIBLING]
        head += 1
    new_nodes[0, ACTION] = -1  # the root, as a new tree's
    new_nodes[0, MOVER] = -1
    new_ext[0, JOINT] = -1
    return tail, n_edges


class MCTSAgent(_ProtocolAgent):
    """UCT with random rollouts on the rules of game ``env_name``; called with a state.

    Args:
        env_name: the game whose states it is given: an env name (``"skirmish_v0"``,
            ``"gdl:tictactoe"``, ``"gdl:PATH.kif"``), its spec, or a loaded
            [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game].
        simulations: the budget in simulations per move (default 1000 when ``seconds``
            is not given).
        seconds: the budget in wall-clock seconds per move instead (not reproducible).
        c: the UCT exploration constant, on values in [0, 1] (default 0.5).
        seed: seeds the rollouts and the expansion order; with a ``simulations`` budget,
            the same seed and states give the same moves.
        max_rollout: a rollout longer than this many moves is scored with the goals of
            the state where it stops (default `MAX_ROLLOUT`, 1,000: every shipped game ends
            well before it; a sheet whose games never end is searched in bounded time).
        value: what a rollout is worth to a role: ``"outcome"`` (default), ``"margin"``
            or ``"goal"`` (see the module docstring).
        reuse: start each search from what the previous one found about the new state:
            when the state is the previous root or one of its tree's states (at most
            `REUSE_DEPTH` plies below it, the very same board and aux), that subtree, its
            statistics and all, becomes the new tree and the search adds to it (the
            budget counts the new simulations only); otherwise the search starts afresh.
            Off by default (the same seed and states then give the same moves, whatever
            was searched before); the GGP player turns it on.

    ``agent(state, role=None)`` takes a state of the game: ``env.unwrapped.get_state()``
    (``(board, aux)`` of a hand-written game; a GDL env's fluent vector, or on its exact path
    a frozenset of fluents), or what ``spec.check_state()`` takes; it returns an action id of
    ``role`` (default: the role to move; needed where several roles choose at once; a role
    with one legal move gets it without a search). ``agent.act(env)`` passes the env's
    state and ``agent_selection``. After each search, `last_search` holds ``simulations``,
    ``seconds``, ``nodes``, ``legal``, ``visits`` and ``value`` (the chosen action's visits
    and mean value for its role), and ``reused``: the simulations the root had from the
    previous searches (0 without ``reuse``, or where the state was not in the last tree).

    >>> from ggpzoo.envs import skirmish_endgame_v0
    >>> env = skirmish_endgame_v0.raw_env(); env.reset()
    >>> agent = MCTSAgent("skirmish_endgame_v0", simulations=50, seed=0)
    >>> int(agent(env.get_state())) in env.legal_actions()
    True
    >>> from ggpzoo.envs import spec
    >>> env = spec("gdl:rps_fold").raw_env(); env.reset()   # both roles throw at once
    >>> env.action_to_term(MCTSAgent("gdl:rps_fold", simulations=300, seed=0).act(env))
    'paper'
    """

    name = "mcts"

    def __init__(
        self,
        env_name,
        simulations: int | None = None,
        seconds: float | None = None,
        c: float = 0.5,
        seed: int | None = None,
        max_rollout: int = MAX_ROLLOUT,
        value: str = "outcome",
        reuse: bool = False,
    ):
        super().__init__(env_name, seed)
        if simulations is not None and seconds is not None:
            raise ValueError("give the MCTS budget as simulations or as seconds, not both")
        if simulations is None and seconds is None:
            simulations = 1000
        bad = isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 1
        if simulations is not None and (bad or simulations > MAX_SIMULATIONS):
            raise ValueError(f"simulations must be an integer in 1..{MAX_SIMULATIONS:,}, got {simulations!r}")
        if seconds is not None and not (_number(seconds) and seconds > 0 and math.isfinite(seconds)):
            raise ValueError(f"seconds must be a positive number, got {seconds!r}")
        if not (_number(c) and c >= 0 and math.isfinite(c)):
            raise ValueError(f"c must be a non-negative finite number, got {c!r}")
        if not (isinstance(max_rollout, (int, np.integer)) and _number(max_rollout) and max_rollout >= 1):
            raise ValueError(f"max_rollout must be a positive integer, got {max_rollout!r}")
        if value not in VALUES:
            raise ValueError(f"value must be one of {sorted(VALUES)}, got {value!r}")
        self.simulations = None if simulations is None else int(simulations)
        self.seconds = None if seconds is None else float(seconds)
        self.c = float(c)
        self.max_rollout = int(max_rollout)
        self.value = value
        self._value = VALUES[value]
        self.reuse = bool(reuse)
        self._kept = None  # with reuse: (root board, root aux, T, nodes, edges) of the last tree
        self.name = f"mcts:{self.simulations}" if self.seconds is None else f"mcts:{self.seconds:g}s"
        self.last_search: dict = {}
        self.stop = None  # a function of no arguments: true ends a search by the clock early (between chunks)
        # the tree, kept between moves (allocating is not free): the node table, its
        # statistics, and decoupled UCT's tables (see BLOCK)
        self._nodes = np.zeros((0, NODE_INTS), np.int32)
        self._stats = np.zeros((0, 2), np.float64)
        self._ext = np.full((0, 2), -1, np.int64)
        self._eint = np.zeros(1024, np.int64)
        self._estat = np.zeros((1024, 2), np.float64)
        self._n_edges = 0
        self.warmup()

    def warmup(self) -> None:
        def play(state):
            agent = MCTSAgent(self.spec, 2, seed=0, max_rollout=self.max_rollout, value=self.value, reuse=self.reuse)
            for _ in range(1 + self.reuse):  # with reuse, the second search starts from the first's tree
                _any_role(agent, state)

        warm_once(self.spec, "mcts", ("mcts", self.game, self.reuse), play)

    def _tables(self, capacity: int) -> tuple[np.ndarray, np.ndarray]:
        if self._nodes.shape[0] < capacity:
            self._nodes = np.zeros((capacity, NODE_INTS), np.int32)
            self._stats = np.zeros((capacity, 2), np.float64)
        if self._ext.shape[0] < self._nodes.shape[0]:
            self._ext = np.full((self._nodes.shape[0], 2), -1, np.int64)
        return self._nodes, self._stats

    def _grow(self, n_nodes: int, chunk: int) -> None:
        """Double the node tables, keeping the tree's first ``n_nodes`` nodes."""
        size = 2 * self._nodes.shape[0] + chunk
        nodes, stats, ext = np.zeros((size, NODE_INTS), np.int32), np.zeros((size, 2)), np.full((size, 2), -1, np.int64)
        for new, old in ((nodes, self._nodes), (stats, self._stats), (ext, self._ext)):
            new[:n_nodes] = old[:n_nodes]
        self._nodes, self._stats, self._ext = nodes, stats, ext

    def __call__(self, state, role: str | None = None) -> int:
        board, aux, T, W, who, n_legal, forced = self._root(state, role)
        if forced is not None:
            return forced
        game, c, cap, kind = self.game, self.c, self.max_rollout, self._value
        max_legal, n_roles = max(self.spec.max_legal, 1), self.spec.num_roles
        start = time.perf_counter()
        too_many = f"{self.spec.name}: more than {MAX_JOINT} joint moves at one state: too many to number"

        def search(n_nodes: int, simulations: int) -> tuple[int, int]:
            n_nodes, ran, code, self._n_edges, self._eint, self._estat = _search(
                game, board, aux, T, W, self._nodes, self._stats, self._ext, self._eint, self._estat, self._n_edges,
                n_nodes, simulations, c, self._seed(), cap, kind, max_legal, n_roles,
            )  # fmt: skip
            if code == TOO_MANY_JOINT:
                raise ValueError(too_many)
            if code != 0:
                raise ValueError(protocol_error(self.spec, code))
            return n_nodes, ran

        kept = self._reuse_tree(board, aux, T, W) if self.reuse else 0
        self._kept = None
        reused = int(self._stats[0, 0]) if kept else 0
        if kept:  # room for this search's nodes, the kept tree kept
            if self.seconds is None and self._nodes.shape[0] < kept + self.simulations:
                self._grow(kept, kept + self.simulations - 2 * self._nodes.shape[0])
        else:
            self._tables(self.simulations + 1 if self.seconds is None else 4096)
            rl, counts = np.zeros((n_roles, max_legal), np.int32), np.zeros(n_roles, np.int64)
            if who >= 0:  # the work area is at the root (``_root()`` ran ``status`` there)
                for r in range(n_roles):
                    counts[r] = role_legal(game, board, aux, T, W, r, rl[r])
            _init_root(self._nodes, self._stats, self._ext, SIMULTANEOUS if who >= 0 else n_legal, self._seed())
            self._n_edges = 0
            if who >= 0:  # several roles choose at the root: its block
                o, self._n_edges, self._eint, self._estat = _add_block(self._eint, self._estat, 0, rl, counts)
                if o < 0:
                    raise ValueError(too_many)
                self._ext[0, BLOCK] = o
        if self.seconds is None:
            n_nodes, done = search(max(kept, 1), self.simulations)
        else:
            deadline = start + self.seconds
            n_nodes, done, chunk = max(kept, 1), 0, 1  # one simulation first: on a large sheet it can take 50 ms
            while True:
                t0 = time.perf_counter()
                if n_nodes + chunk > self._nodes.shape[0]:  # grow the tables, keeping the tree
                    if self._nodes.shape[0] > MAX_SIMULATIONS:  # memory is bounded too: stop early
                        break
                    self._grow(n_nodes, chunk)
                n_nodes, ran = search(n_nodes, chunk)
                done += ran
                now = time.perf_counter()
                if now >= deadline or self.stop is not None and self.stop():
                    break
                per_sim = (now - t0) / max(ran, 1)
                # chunks of about 10 ms, never past the deadline
                chunk = int(max(1, min((deadline - now) / per_sim, 0.01 / per_sim)))
        if who < 0:
            best = _best_child(self._nodes, self._stats)
            action, visits, total = int(self._nodes[best, ACTION]), self._stats[best, 0], self._stats[best, 1]
        else:  # the most visited move of role ``who`` at the simultaneous root (ties: the higher value)
            o = int(self._ext[0, BLOCK])
            counts = self._eint[o : o + n_roles]
            at = o + n_roles + int(counts[:who].sum())
            edges = self._estat[at : at + int(counts[who])]
            j = max(range(len(edges)), key=lambda m: (edges[m, 0], edges[m, 1]))
            action, visits, total = int(self._eint[at + j]), edges[j, 0], edges[j, 1]
        self.last_search = {
            "simulations": int(done),
            "seconds": time.perf_counter() - start,
            "nodes": int(n_nodes),
            "legal": int(n_legal),
            "visits": int(visits),
            "value": float(total / visits),
            "reused": reused,
        }
        if self.reuse:
            self._kept = (board.copy(), aux.copy(), T, int(n_nodes), int(self._n_edges))
        return action

    def _reuse_tree(self, board, aux, T, W) -> int:
        """With ``reuse``: make the last tree's node of state ``board``/``aux`` the root of the
        tree (see `REUSE_DEPTH`); the number of nodes kept, 0 if none (a fresh tree then)."""
        kept, self._kept = self._kept, None
        if kept is None:
            return 0
        old_board, old_aux, old_T, n_nodes, n_edges = kept
        if old_T is not T or n_nodes > REUSE_MAX_NODES or old_board.shape != board.shape or old_aux.shape != aux.shape:
            return 0
        n_roles, max_legal = self.spec.num_roles, max(self.spec.max_legal, 1)
        k = _find_state(
            self.game, T, W, self._nodes, self._stats, self._ext, self._eint, old_board, old_aux,
            np.ascontiguousarray(board), np.ascontiguousarray(aux), self.spec.aux_in_state, REUSE_DEPTH, REUSE_CHECKS,
            n_roles, max_legal,
        )  # fmt: skip
        # the work area back at the new root (the replays moved it)
        status(self.game, board, aux, T, W, np.empty(max_legal, np.int32), np.zeros(n_roles, np.int32))
        if k < 0 or self._stats[k, 0] < 1:
            return 0
        if k == 0:
            self._n_edges = n_edges
            return n_nodes
        nodes, stats = np.zeros_like(self._nodes), np.zeros_like(self._stats)
        ext = np.full_like(self._ext, -1)
        eint, estat = np.zeros_like(self._eint), np.zeros_like(self._estat)
        n_kept, self._n_edges = _rebase(
            self._nodes, self._stats, self._ext, self._eint, self._estat, k, n_roles, nodes, stats, ext, eint, estat
        )
        self._nodes, self._stats, self._ext, self._eint, self._estat = nodes, stats, ext, eint, estat
        return int(n_kept)


def _number(x) -> bool:
    return not isinstance(x, (bool, np.bool_)) and isinstance(x, (int, float, np.integer, np.floating))
