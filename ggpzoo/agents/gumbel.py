"""Gumbel AlphaZero search: many games searched at once, the trees in numba, the leaves of
every tree evaluated by one batched network call per simulation step.

The search is Gumbel MuZero's (Danihelka et al., "Policy improvement by planning with
Gumbel", ICLR 2022; DeepMind's ``mctx.gumbel_muzero_policy`` is the reference), on the
true rules (`ggpzoo.engine.dispatch`) instead of a learned model:

* at the root, Gumbel-Top-k: ``k = min(max_considered, legal)`` actions, those with the
  largest ``g + logits`` (``g`` Gumbel noise), then sequential halving over the budget:
  each phase visits the remaining actions equally and keeps the better half by
  ``g + logits + sigma(completed Q)``;
* inside the tree, the deterministic rule: the action with the largest
  ``pi'(a) - N(a) / (1 + sum N)``, where ``pi' = softmax(logits + sigma(completed Q))``;
* ``completed Q`` is Q of visited actions and the *mixed value* for the others (the
  network's value of the node mixed with the prior-weighted Q of the visited actions),
  min-max rescaled to [0, 1] over the node's actions; ``sigma(q) = (c_visit + max N) *
  c_scale * q`` (mctx's defaults: 50 and 0.1);
* the answer: the action of the root chosen by the same score among the most visited
  ones; the policy target: ``softmax(logits + sigma(completed Q))`` over the legal actions.

Values are from the side of the role that acts: each node records the role to act in its
state (``aux[ROLE]``), and a value backed up to a node counts for the role that acted
into it, so a turn of two actions by the same role (amazons_split) keeps its sign. A
leaf's value is the network's, for the role to act there; a terminal node's is the true
outcome (+1 win, -1 loss, 0 draw, by the goals), whatever the goals were on the way.

The network is any callable ``evaluate(obs) -> (part_logits, values)``: ``obs`` the
batch of observations ``(B, H, W, planes)`` from the role to act, ``part_logits``
``float32 (B, parts, cells)`` (one logit per cell for each part of an action, see
[`ggpzoo.envs.gamespec.GameSpec.action_cells()`][ggpzoo.envs.gamespec.GameSpec.action_cells]), ``values`` ``float32
(B,)`` in [-1, 1]. An action's logit is the sum of its parts' logits, computed here for the legal
actions only (amazons_v0 has 86,980 ids, no network head needs that many).

[`GumbelAZAgent`][ggpzoo.agents.gumbel.GumbelAZAgent] plays with a trained network, with or without search.
"""

from __future__ import annotations

import math
import os
import time
from typing import NamedTuple

import numpy as np
from numba import njit

from ggpzoo.agents.base import MAX_SECONDS, _StateAgent, seeded_rng
from ggpzoo.agents.mcts import MAX_SIMULATIONS  # a search's tree nodes in all (games x simulations), as MCTS's
from ggpzoo.engine.dispatch import MAX_LEGAL, apply, goals, is_terminal, kernel_id, legal_actions, net_input
from ggpzoo.engine.rng import next_random, stream
from ggpzoo.envs import spec as _spec
from ggpzoo.envs.gamespec import ROLE

__all__ = ["GumbelSearch", "SearchResult", "GumbelAZAgent", "considered_visits", "improved_policy"]

C_VISIT = 50.0  # sigma's visit offset (mctx's maxvisit_init)
C_SCALE = 0.1  # sigma's scale (mctx's value_scale)
EPSILON = 1e-8
LOW_LOGIT = -1e9


# ----------------------------------------------------------------------------- sequential halving
def considered_visits(max_considered: int, simulations: int) -> tuple[int, ...]:
    """The visit count a root action must have to be visited at each simulation, when
    sequential halving considers ``max_considered`` actions (mctx's sequence).

    >>> considered_visits(4, 8)
    (0, 0, 0, 0, 1, 1, 2, 2)
    """
    if max_considered <= 1:
        return tuple(range(simulations))
    log2max = int(math.ceil(math.log2(max_considered)))
    sequence: list[int] = []
    visits = [0] * max_considered
    considered = max_considered
    while len(sequence) < simulations:
        extra = max(1, int(simulations / (log2max * considered)))
        for _ in range(extra):
            sequence.extend(visits[:considered])
            for i in range(considered):
                visits[i] += 1
        considered = max(2, considered // 2)
    return tuple(sequence[:simulations])


def _halving_table(max_considered: int, simulations: int) -> np.ndarray:
    """``table[m, s]``: the considered visit count at simulation ``s`` with ``m`` actions."""
    return np.array([considered_visits(m, simulations) for m in range(max_considered + 1)], np.int32).reshape(
        max_considered + 1, simulations
    )


# ----------------------------------------------------------------------------- one node's arithmetic
@njit(cache=True)
def _sigma_completed(logits, visits, qvalues, raw_value, n, c_visit, c_scale, out):
    """``sigma(completed Q)`` of a node's ``n`` actions into ``out[:n]``.

    Q of an unvisited action is the mixed value ``(raw + sum N * sum_visited p q / sum_visited p)
    / (sum N + 1)`` with ``p = softmax(logits)``; then min-max rescaled, then times
    ``(c_visit + max N) * c_scale``.
    """
    top = -np.inf
    for i in range(n):
        top = max(top, logits[i])
    z = 0.0
    for i in range(n):
        z += math.exp(logits[i] - top)
    sum_n = 0
    max_n = 0
    sum_p = 0.0
    sum_pq = 0.0
    for i in range(n):
        if visits[i] > 0:
            p = max(math.exp(logits[i] - top) / z, 1e-38)
            sum_n += visits[i]
            max_n = max(max_n, visits[i])
            sum_p += p
            sum_pq += p * qvalues[i]
    mixed = raw_value
    if sum_n > 0:
        mixed = (raw_value + sum_n * (sum_pq / sum_p)) / (sum_n + 1)
    lo = np.inf
    hi = -np.inf
    for i in range(n):
        q = qvalues[i] if visits[i] > 0 else mixed
        out[i] = q
        lo = min(lo, q)
        hi = max(hi, q)
    scale = (c_visit + max_n) * c_scale / max(hi - lo, EPSILON)
    for i in range(n):
        out[i] = (out[i] - lo) * scale


@njit(cache=True)
def improved_policy(logits, visits, qvalues, raw_value, c_visit=C_VISIT, c_scale=C_SCALE):
    """``softmax(logits + sigma(completed Q))`` of one node: the policy target of a root.

    ``logits`` the actions' prior logits, ``visits`` their visit counts, ``qvalues`` their
    mean values (any number where unvisited), ``raw_value`` the network's value of the node,
    all from the side of the role to act.
    """
    n = logits.shape[0]
    sig = np.empty(n)
    _sigma_completed(logits, visits, qvalues, raw_value, n, c_visit, c_scale, sig)
    out = np.empty(n)
    top = -np.inf
    for i in range(n):
        sig[i] += logits[i]
        top = max(top, sig[i])
    z = 0.0
    for i in range(n):
        out[i] = math.exp(sig[i] - top)
        z += out[i]
    for i in range(n):
        out[i] /= z
    return out


# ----------------------------------------------------------------------------- the trees
# Node columns of ``nodes`` (int32 [games, capacity, NODE_INTS]).
PARENT, NROLE, VISITS, TERMINAL, FIRST_EDGE, EDGES = range(6)
NODE_INTS = 6
# Float columns of ``values`` (float64 [games, capacity, 3]): sum of backed-up values for
# the role that acted into the node, the network's value, the outcome for role 0.
WSUM, RAW, OUTCOME0 = range(3)


@njit(cache=True)
def _gather(nodes, values, e_logit, e_child, g, node, logits, visits, qvalues):
    """A node's edges as plain arrays: prior logits, visits, mean values (for its mover)."""
    first = nodes[g, node, FIRST_EDGE]
    n = nodes[g, node, EDGES]
    for i in range(n):
        e = first + i
        logits[i] = e_logit[e]
        c = e_child[e]
        if c >= 0 and nodes[g, c, VISITS] > 0:
            visits[i] = nodes[g, c, VISITS]
            qvalues[i] = values[g, c, WSUM] / nodes[g, c, VISITS]
        else:
            visits[i] = 0
            qvalues[i] = 0.0
    return n


@njit(cache=True)
def _root_scores(n, logits, visits, qvalues, gumbel, raw, considered, c_visit, c_scale, sig, out):
    """Sequential halving's score of each root action: ``g + logits - max + sigma`` for those
    with ``considered`` visits, ``-inf`` for the others."""
    _sigma_completed(logits, visits, qvalues, raw, n, c_visit, c_scale, sig)
    top = -np.inf
    for i in range(n):
        top = max(top, logits[i])
    for i in range(n):
        if visits[i] == considered:
            out[i] = max(LOW_LOGIT, gumbel[i] + logits[i] - top + sig[i])
        else:
            out[i] = -np.inf


@njit(cache=True)
def _select(nodes, values, e_logit, e_child, e_gumbel, g, node, table, considered_m, c_visit, c_scale, scratch):
    """The edge to follow from ``node`` of tree ``g`` (index into the edge pool)."""
    logits, visits, qvalues, sig, score = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    n = _gather(nodes, values, e_logit, e_child, g, node, logits, visits, qvalues)
    raw = values[g, node, RAW]
    first = nodes[g, node, FIRST_EDGE]
    if node == 0:
        total = 0
        for i in range(n):
            total += visits[i]
        sim = min(int(total), table.shape[1] - 1)
        considered = table[considered_m[g], sim]
        _root_scores(
            n, logits, visits, qvalues, e_gumbel[first : first + n], raw, considered, c_visit, c_scale, sig, score
        )
    else:
        _sigma_completed(logits, visits, qvalues, raw, n, c_visit, c_scale, sig)
        top = -np.inf
        total = 0
        for i in range(n):
            sig[i] += logits[i]
            top = max(top, sig[i])
            total += visits[i]
        z = 0.0
        for i in range(n):
            sig[i] = math.exp(sig[i] - top)
            z += sig[i]
        for i in range(n):
            score[i] = sig[i] / z - visits[i] / (1.0 + total)
    best = 0
    for i in range(1, n):
        if score[i] > score[best]:
            best = i
    return first + best


@njit(cache=True)
def _outcome0(game, board, aux):
    g = goals(game, board, aux)
    return 1.0 if g[0] > g[1] else (-1.0 if g[0] < g[1] else 0.0)


@njit(cache=True)
def _init_node(nodes, values, g, c, parent, role):
    """Node ``c`` of tree ``g``: a fresh, unexpanded, non-terminal child of ``parent`` where
    ``role`` acts (state-free: every game's search makes its nodes with it)."""
    nodes[g, c, PARENT] = parent
    nodes[g, c, NROLE] = role
    nodes[g, c, VISITS] = 0
    nodes[g, c, TERMINAL] = 0
    nodes[g, c, FIRST_EDGE] = -1
    nodes[g, c, EDGES] = 0
    values[g, c, WSUM] = 0.0
    values[g, c, RAW] = 0.0
    values[g, c, OUTCOME0] = 0.0


@njit(cache=True)
def _set_terminal(nodes, values, g, c, outcome0):
    """Mark node ``c`` terminal, worth ``outcome0`` (+1, -1, 0) for role 0."""
    nodes[g, c, TERMINAL] = 1
    values[g, c, OUTCOME0] = outcome0


@njit(cache=True)
def _new_node(nodes, values, g, c, parent, game, board, aux):
    _init_node(nodes, values, g, c, parent, aux[ROLE])
    if is_terminal(game, board, aux):
        _set_terminal(nodes, values, g, c, _outcome0(game, board, aux))
        return True
    return False


@njit(cache=True)
def _start(game, roots_b, roots_x, active, nodes, values, n_nodes, leaf, boards, auxs, obs, planes):
    """Make each active tree's root; observe the roots to evaluate. Returns their count."""
    k = 0
    for g in range(roots_b.shape[0]):
        leaf[g, 0] = -1
        if not active[g]:
            continue
        boards[g, :] = roots_b[g]
        auxs[g, :] = roots_x[g]
        n_nodes[g] = 1
        if _new_node(nodes, values, g, 0, -1, game, boards[g], auxs[g]):
            raise ValueError("a searched state is terminal")
        net_input(game, boards[g], auxs[g], auxs[g, ROLE], obs[k], planes)
        leaf[g, 0], leaf[g, 1] = 0, k
        k += 1
    return k


@njit(cache=True)
def _descend(
    game, roots_b, roots_x, active, nodes, values, n_nodes, e_action, e_logit, e_child, e_gumbel,
    table, considered_m, c_visit, c_scale, leaf, boards, auxs, obs, planes, scratch,
):  # fmt: skip
    """One simulation's selection in every active tree, down to a new node (observed into
    ``obs`` when the network must evaluate it) or a terminal one. Returns the number observed."""
    k = 0
    for g in range(roots_b.shape[0]):
        leaf[g, 0] = -1
        if not active[g]:
            continue
        boards[g, :] = roots_b[g]
        auxs[g, :] = roots_x[g]
        node = 0
        while True:
            if nodes[g, node, TERMINAL]:
                leaf[g, 0], leaf[g, 1] = node, -1
                break
            e = _select(
                nodes, values, e_logit, e_child, e_gumbel, g, node, table, considered_m, c_visit, c_scale, scratch
            )
            apply(game, boards[g], auxs[g], e_action[e])
            c = e_child[e]
            if c < 0:
                c = n_nodes[g]
                n_nodes[g] += 1
                e_child[e] = c
                if _new_node(nodes, values, g, c, node, game, boards[g], auxs[g]):
                    leaf[g, 0], leaf[g, 1] = c, -1
                else:
                    net_input(game, boards[g], auxs[g], auxs[g, ROLE], obs[k], planes)
                    leaf[g, 0], leaf[g, 1] = c, k
                    k += 1
                break
            node = c
    return k


@njit(cache=True)
def _expand_node(
    g, c, k, legal, n, part_logits, net_values, cells, nodes, values, e_action, e_logit, e_child, e_gumbel, top,
    considered_m, max_considered, rng, gumbel_scale,
):  # fmt: skip
    """Expand node ``c`` of tree ``g`` with its ``n`` legal actions ``legal[:n]`` and the
    network's output row ``k`` (an action's logit: the sum of its parts' logits); at the
    root, draw the Gumbel noise. ``top[0]`` is the edge pool's first free slot."""
    parts = cells.shape[1]
    first = top[0]
    nodes[g, c, FIRST_EDGE] = first
    nodes[g, c, EDGES] = n
    for i in range(n):
        a = legal[i]
        s = 0.0
        for p in range(parts):
            s += part_logits[k, p, cells[a, p]]
        e_action[first + i] = a
        e_logit[first + i] = s
        e_child[first + i] = -1
        e_gumbel[first + i] = 0.0
    top[0] = first + n
    values[g, c, RAW] = float(net_values[k])
    if c == 0:
        considered_m[g] = min(max_considered, n)
        if gumbel_scale > 0:
            s = rng[g]
            for i in range(n):
                s, r = next_random(s)
                u = (np.float64(r) + 0.5) / 4294967296.0
                e_gumbel[first + i] = -gumbel_scale * math.log(-math.log(u))
            rng[g] = s


@njit(cache=True)
def _backup(nodes, values, g, c, v, role):
    """Back value ``v`` (for ``role``) up from node ``c`` of tree ``g`` to the root: each
    node's sum counts it for the role that acted into the node."""
    node = c
    while node >= 0:
        nodes[g, node, VISITS] += 1
        parent = nodes[g, node, PARENT]
        if parent >= 0:
            values[g, node, WSUM] += v if nodes[g, parent, NROLE] == role else -v
        node = parent


@njit(cache=True)
def _leaf_value(nodes, values, net_values, g, c, k):
    """The value to back up from leaf ``c`` and the role it is for: the network's (row ``k``)
    for the role to act there, or a terminal node's outcome for role 0."""
    if k >= 0:
        return float(net_values[k]), nodes[g, c, NROLE]
    return values[g, c, OUTCOME0], 0


@njit(cache=True)
def _expand_backup(
    game, leaf, nodes, values, part_logits, net_values, cells, e_action, e_logit, e_child, e_gumbel, top,
    boards, auxs, considered_m, max_considered, rng, gumbel_scale, legal,
):  # fmt: skip
    """Expand each tree's new leaf with the network's output (its legal actions, their
    logits: the sums of their parts' logits) and back its value up to the root.
    ``top[0]`` is the edge pool's first free slot; the caller makes room first."""
    for g in range(leaf.shape[0]):
        c = leaf[g, 0]
        if c < 0:
            continue
        k = leaf[g, 1]
        if k >= 0:
            n = legal_actions(game, boards[g], auxs[g], legal)
            _expand_node(
                g, c, k, legal, n, part_logits, net_values, cells, nodes, values, e_action, e_logit, e_child,
                e_gumbel, top, considered_m, max_considered, rng, gumbel_scale,
            )  # fmt: skip
        v, role = _leaf_value(nodes, values, net_values, g, c, k)
        _backup(nodes, values, g, c, v, role)


@njit(cache=True)
def _finish(active, nodes, values, e_action, e_logit, e_child, e_gumbel, table, considered_m, c_visit, c_scale,
            scratch, actions, root_values, out_actions, out_probs, offsets):  # fmt: skip
    """The chosen action, the root's value estimate and the policy target of each tree;
    targets go to ``out_actions/out_probs[offsets[g]:offsets[g + 1]]``."""
    logits, visits, qvalues, sig, score = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    pos = 0
    for g in range(active.shape[0]):
        offsets[g] = pos
        actions[g] = -1
        root_values[g] = 0.0
        if not active[g]:
            continue
        n = _gather(nodes, values, e_logit, e_child, g, 0, logits, visits, qvalues)
        first = nodes[g, 0, FIRST_EDGE]
        raw = values[g, 0, RAW]
        most = 0
        for i in range(n):
            most = max(most, visits[i])
        _root_scores(n, logits, visits, qvalues, e_gumbel[first : first + n], raw, most, c_visit, c_scale, sig, score)
        best = 0
        for i in range(1, n):
            if score[i] > score[best]:
                best = i
        actions[g] = e_action[first + best]
        # sig holds sigma(completed Q): the target is softmax(logits + sig)
        hi = -np.inf
        for i in range(n):
            hi = max(hi, logits[i] + sig[i])
        z = 0.0
        for i in range(n):
            out_probs[pos + i] = math.exp(logits[i] + sig[i] - hi)
            z += out_probs[pos + i]
        for i in range(n):
            out_probs[pos + i] /= z
            out_actions[pos + i] = e_action[first + i]
        pos += n
        total = raw
        count = 1
        for i in range(n):
            total += visits[i] * qvalues[i]
            count += visits[i]
        root_values[g] = total / count
    offsets[active.shape[0]] = pos


class SearchResult(NamedTuple):
    """What [`GumbelSearch.run()`][ggpzoo.agents.gumbel.GumbelSearch.run] gives for each searched game ``g``.

    ``actions[g]`` the chosen action (-1 for a game not searched); the policy target over
    its legal actions is ``policy_actions[offsets[g]:offsets[g+1]]`` with probabilities
    ``policy_probs[...]``; ``root_values[g]`` the root's value for the role to act (the
    mean of its backed-up values).
    """

    actions: np.ndarray
    policy_actions: np.ndarray
    policy_probs: np.ndarray
    offsets: np.ndarray
    root_values: np.ndarray


class GumbelSearch:
    """Gumbel MuZero search of up to ``games`` states of env ``env_name`` at once.

    Args:
        env_name: the game.
        evaluate: ``evaluate(obs) -> (part_logits, values)`` (see the module docstring).
        simulations: the budget per state (at least 1).
        games: how many states one [`run()`][ggpzoo.agents.gumbel.GumbelSearch.run] searches at most.
        max_considered: root actions sampled by Gumbel-Top-k (mctx's default, 16).
        gumbel_scale: 1 samples the root actions; 0 takes the top logits (no noise).
        c_visit, c_scale: sigma's constants.
        seed: seeds the Gumbel noise.
        features: the network reads the game's feature planes after the observation
            (`ggpzoo.engine.dispatch.net_input()`; an AZNet's ``features``).
    """

    def __init__(
        self,
        env_name: str,
        evaluate,
        simulations: int = 16,
        games: int = 1,
        max_considered: int = 16,
        gumbel_scale: float = 1.0,
        c_visit: float = C_VISIT,
        c_scale: float = C_SCALE,
        seed: int | None = None,
        features: bool = False,
    ):
        self._settings(evaluate, simulations, games, max_considered, gumbel_scale, c_visit, c_scale, seed)
        self.spec = _spec(env_name)
        self.env_name = env_name
        self.game = kernel_id(self.spec.kernel)
        self.cells = self.spec.action_cells()
        G, S = self.games, self.spec
        self.boards = np.zeros((G, S.num_cells), np.int8)
        self.auxs = np.zeros((G, S.aux_size), np.int32)
        if features and not S.num_feature_planes:
            raise ValueError(f"{env_name} has no feature planes")
        self.planes = S.num_planes
        planes = S.num_planes + (S.num_feature_planes if features else 0)
        self.obs = np.zeros((G, S.height, S.width, planes), S.obs_dtype)
        self.legal = np.zeros(MAX_LEGAL, np.int32)
        self._trees(S.max_legal, (self.cells.shape[1], S.num_cells))

    # ------------------------------------------------------------------ shared by every kind of game
    def _settings(self, evaluate, simulations, games, max_considered, gumbel_scale, c_visit, c_scale, seed) -> None:
        """Check and keep the search's settings (any game)."""
        if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 1:
            raise ValueError(f"simulations must be a positive integer, got {simulations!r}")
        if isinstance(max_considered, bool) or not isinstance(max_considered, (int, np.integer)) or max_considered < 1:
            raise ValueError(f"max_considered must be a positive integer, got {max_considered!r}")
        if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
            raise ValueError(f"games must be a positive integer, got {games!r}")
        if int(games) * (int(simulations) + 1) > MAX_SIMULATIONS:
            raise ValueError(
                f"games x (simulations + 1) must be at most MAX_SIMULATIONS = {MAX_SIMULATIONS:,} tree nodes, "
                f"got {int(games):,} x {int(simulations) + 1:,}"
            )
        for name, value in (("c_visit", c_visit), ("c_scale", c_scale)):
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not 0 < value < 1e6:
                raise ValueError(f"{name} must be a positive number, got {value!r}")
        self.evaluate = evaluate
        self.simulations = int(simulations)
        self.games = int(games)
        self.max_considered = int(max_considered)
        self.gumbel_scale = float(gumbel_scale)
        self.c_visit, self.c_scale = float(c_visit), float(c_scale)
        self.rng = seeded_rng(seed)
        self.table = _halving_table(self.max_considered, self.simulations)

    def _trees(self, max_legal: int, logit_shape: tuple[int, int]) -> None:
        """The trees' arrays, for nodes of at most ``max_legal`` actions and a network whose
        output row is ``logit_shape`` (parts, cells)."""
        G, M = self.games, self.simulations + 1
        self.max_legal = int(max_legal)
        self.logit_shape = tuple(int(x) for x in logit_shape)
        self.nodes = np.zeros((G, M, NODE_INTS), np.int32)
        self.values = np.zeros((G, M, 3), np.float64)
        self.n_nodes = np.zeros(G, np.int32)
        self.considered_m = np.zeros(G, np.int32)
        self.leaf = np.full((G, 2), -1, np.int32)
        self.scratch = np.zeros((5, self.max_legal), np.float64)
        self._pool(G * min(self.max_legal, 256) * 4)
        self.top = np.zeros(1, np.int64)

    def _pool(self, size: int, keep: int = 0) -> None:
        old = getattr(self, "e_action", None)
        new = (
            np.zeros(size, np.int32),
            np.zeros(size, np.float32),
            np.zeros(size, np.int32),
            np.zeros(size, np.float32),
        )
        if old is not None and keep:
            for a, b in zip(new, (self.e_action, self.e_logit, self.e_child, self.e_gumbel), strict=True):
                a[:keep] = b[:keep]
        self.e_action, self.e_logit, self.e_child, self.e_gumbel = new

    def _evaluate(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        part_logits, vals = self.evaluate(self.obs[:k])
        part_logits = np.ascontiguousarray(part_logits, np.float32)
        vals = np.ascontiguousarray(vals, np.float32).reshape(-1)
        if part_logits.shape != (k, *self.logit_shape) or vals.shape != (k,):
            raise ValueError(
                f"evaluate gave part logits {part_logits.shape} and values {vals.shape}, "
                f"expected {(k, *self.logit_shape)} and {(k,)}"
            )
        return part_logits, vals

    def _expand(self, k: int) -> None:
        """Evaluate the ``k`` observed leaves, expand them and back their values up (and the
        terminal leaves' outcomes)."""
        if k:
            part_logits, vals = self._evaluate(k)
        else:
            part_logits = np.zeros((1, *self.logit_shape), np.float32)
            vals = np.zeros(1, np.float32)
        need = int(self.top[0]) + k * self.max_legal
        if need > self.e_action.shape[0]:
            self._pool(max(need, 2 * self.e_action.shape[0]), keep=int(self.top[0]))
        self._expand_leaves(part_logits, vals)

    def _search(self, n: int, active: np.ndarray, start, descend) -> SearchResult:
        """The search of ``n`` trees (those where ``active``): ``start()`` makes the roots and
        ``descend()`` runs one simulation's selection in every tree, each returning how many
        leaves it observed for the network (the game's state operations)."""
        seed = int(self.rng.integers(1, 2**62))
        self._rng_states = np.array([stream(seed, g) for g in range(n)], np.uint64)
        self.top[0] = 0
        self.leaf[n:, 0] = -1  # trees past n: not searched now (their leaves may be a larger run's)
        self._expand(start())
        for _ in range(self.simulations):
            self._expand(descend())
        actions = np.full(n, -1, np.int32)
        root_values = np.zeros(n, np.float64)
        offsets = np.zeros(n + 1, np.int64)
        total = int(sum(self.nodes[g, 0, EDGES] for g in range(n) if active[g]))
        out_actions = np.zeros(total, np.int32)
        out_probs = np.zeros(total, np.float64)
        _finish(
            active, self.nodes, self.values, self.e_action, self.e_logit, self.e_child, self.e_gumbel,
            self.table, self.considered_m, self.c_visit, self.c_scale, self.scratch,
            actions, root_values, out_actions, out_probs, offsets,
        )  # fmt: skip
        return SearchResult(actions, out_actions, out_probs, offsets, root_values)

    # ------------------------------------------------------------------ the rules kernels' state operations
    def _expand_leaves(self, part_logits: np.ndarray, vals: np.ndarray) -> None:
        _expand_backup(
            self.game, self.leaf, self.nodes, self.values, part_logits, vals, self.cells,
            self.e_action, self.e_logit, self.e_child, self.e_gumbel, self.top,
            self.boards, self.auxs, self.considered_m, self.max_considered, self._rng_states,
            self.gumbel_scale, self.legal,
        )  # fmt: skip

    def run(self, boards: np.ndarray, auxs: np.ndarray, active: np.ndarray | None = None) -> SearchResult:
        """Search the states ``(boards[g], auxs[g])`` for which ``active[g]`` (default all);
        none of them may be terminal."""
        boards = np.ascontiguousarray(boards, np.int8)
        auxs = np.ascontiguousarray(auxs, np.int32)
        n = boards.shape[0]
        if n > self.games:
            raise ValueError(f"this search holds {self.games} games, got {n}")
        active = np.ones(n, np.bool_) if active is None else np.ascontiguousarray(active, np.bool_)
        leaf = self.leaf[:n]

        def start():
            return _start(
                self.game, boards, auxs, active, self.nodes, self.values, self.n_nodes, leaf,
                self.boards, self.auxs, self.obs, self.planes,
            )  # fmt: skip

        def descend():
            return _descend(
                self.game, boards, auxs, active, self.nodes, self.values, self.n_nodes,
                self.e_action, self.e_logit, self.e_child, self.e_gumbel, self.table, self.considered_m,
                self.c_visit, self.c_scale, leaf, self.boards, self.auxs, self.obs, self.planes, self.scratch,
            )  # fmt: skip

        return self._search(n, active, start, descend)

    def root(self, g: int = 0) -> dict:
        """The root of tree ``g`` after [`run()`][ggpzoo.agents.gumbel.GumbelSearch.run]: its actions, prior logits,
        visits, mean
        values (for the role to act there) and the network's value (for tests and study)."""
        first, n = int(self.nodes[g, 0, FIRST_EDGE]), int(self.nodes[g, 0, EDGES])
        logits, visits, q = np.zeros(n), np.zeros(n, np.int64), np.zeros(n)
        for i in range(n):
            c = self.e_child[first + i]
            logits[i] = self.e_logit[first + i]
            if c >= 0 and self.nodes[g, c, VISITS] > 0:
                visits[i] = self.nodes[g, c, VISITS]
                q[i] = self.values[g, c, WSUM] / visits[i]
        return {
            "actions": self.e_action[first : first + n].copy(),
            "logits": logits,
            "visits": visits,
            "q": q,
            "raw_value": float(self.values[g, 0, RAW]),
            "gumbel": self.e_gumbel[first : first + n].astype(np.float64),
            "considered": int(self.considered_m[g]),
        }


def _budget_size(simulations: int) -> int:
    """The largest of 1, 2, ..., 8, 10, 11, 13, 16, 19, 23, 27, 32, ... (about four sizes a doubling) not
    above ``simulations``, and below MAX_SIMULATIONS."""
    simulations = min(simulations, MAX_SIMULATIONS - 1)
    k = int(4 * math.log2(max(simulations, 1)))
    while k > 0 and round(2 ** (k / 4)) > simulations:
        k -= 1
    return max(1, round(2 ** (k / 4)))


@njit(cache=True)
def _best_legal(game, board, aux, part_logits, cells, legal):
    """The legal action with the largest factored logit (the network alone)."""
    n = legal_actions(game, board, aux, legal)
    # the first legal action unless one has a larger logit: NaN logits (a broken network) never
    # win, so the answer is always a legal action
    best, best_logit = (legal[0] if n > 0 else -1), -np.inf
    for i in range(n):
        a = legal[i]
        s = 0.0
        for p in range(cells.shape[1]):
            s += part_logits[p, cells[a, p]]
        if s > best_logit:
            best, best_logit = a, s
    return best


class GumbelAZAgent(_StateAgent):
    """A trained AlphaZero network (`ggpzoo.training.az`) playing env ``env_name``;
    called with a state ``(board, aux)``.

    Args:
        env_name: the game.
        model: an [`AZNet`][ggpzoo.training.az.net.AZNet], or the path of its ``.json``.
        simulations: 0 plays the network alone (the legal action of the largest logit);
            more runs [`GumbelSearch`][ggpzoo.agents.gumbel.GumbelSearch] with that budget per move.
        seed: seeds the search's Gumbel noise.
        max_considered: the search's Gumbel-Top-k.
        c_scale: sigma's scale; by default the one the model was trained with (its
            ``info["c_scale"]``), else mctx's 0.1.
        seconds: a budget in wall-clock seconds per move instead of ``simulations``, in
            (0, ``MAX_SECONDS``]: Gumbel search's sequential halving needs its budget
            before it starts, so each move runs the number of simulations the time per
            simulation measured on the moves before (the first move measures it on 8)
            fits into ``seconds`` (rounded down to one of about four sizes a doubling,
            each kept built).

    Needs torch (the ``train`` extra).
    """

    def __init__(
        self,
        env_name: str,
        model,
        simulations: int = 0,
        seed: int | None = None,
        max_considered: int = 16,
        c_scale: float | None = None,
        seconds: float | None = None,
    ):
        super().__init__(env_name, seed)
        import torch

        from ggpzoo.training.az.net import load_model

        if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 0:
            raise ValueError(f"simulations must be a non-negative integer, got {simulations!r}")
        if simulations >= MAX_SIMULATIONS:
            raise ValueError(f"simulations must be below MAX_SIMULATIONS = {MAX_SIMULATIONS:,}, got {simulations:,}")
        if seconds is not None:
            if simulations:
                raise ValueError("give the search's budget as simulations or as seconds, not both")
            if (
                isinstance(seconds, (bool, np.bool_))
                or not isinstance(seconds, (int, float, np.integer, np.floating))
                or not 0 < seconds <= MAX_SECONDS
            ):
                raise ValueError(f"seconds must be a number in (0, {MAX_SECONDS:g}], got {seconds!r}")
        self.seconds = None if seconds is None else float(seconds)
        net = load_model(model, env_name) if isinstance(model, (str, os.PathLike)) else model
        if getattr(net, "env_name", None) != env_name:
            raise ValueError(f"the model plays {getattr(net, 'env_name', None)!r}, not {env_name!r}")
        self.net = net.eval()
        self.device = next(net.parameters()).device
        self.torch = torch
        self.simulations = int(simulations)
        self.cells = self.spec.action_cells()
        self.legal = np.zeros(MAX_LEGAL, np.int32)
        self.obs = np.zeros((1, *net.input_shape), self.spec.obs_dtype)
        self.search = None
        if c_scale is None:
            c_scale = getattr(net, "info", {}).get("c_scale", C_SCALE)
        self._search_args = (max_considered, c_scale, bool(net.config.get("features", 0)))
        self._searches: dict[int, GumbelSearch] = {}  # by budget, for a budget in seconds
        self._per_simulation: float | None = None  # seconds, measured
        if self.simulations:
            self.search = self._search_of(self.simulations)
        elif self.seconds is not None:
            self._search_of(8)  # checks the settings now
        self.name = "az" if not self.simulations else f"az:{self.simulations}"
        if self.seconds is not None:
            self.name = f"az:{self.seconds:g}s"
        self.last_search: dict = {}

    def _search_of(self, simulations: int) -> GumbelSearch:
        """The search with budget ``simulations`` (built once; GumbelSearch checks c_scale)."""
        if simulations not in self._searches:
            max_considered, c_scale, features = self._search_args
            self._searches[simulations] = GumbelSearch(
                self.env_name,
                self._evaluator(),
                simulations,
                1,
                max_considered,
                seed=int(self.rng.integers(2**62)),
                c_scale=c_scale,
                features=features,
            )
        return self._searches[simulations]

    def _evaluator(self):
        from ggpzoo.training.az.net import evaluator

        return evaluator(self.net, self.device)

    def reset(self, seed: int | None = None) -> None:
        super().reset(seed)
        if seed is not None:
            for k, search in enumerate(self._searches.values()):  # the first as a lone search's
                search.rng = seeded_rng(seed) if k == 0 else np.random.default_rng([seed, k])

    def _timed_search(self, board: np.ndarray, aux: np.ndarray) -> SearchResult:
        """One search sized to fit ``self.seconds`` (see ``seconds``)."""
        start = time.perf_counter()
        result = None
        if self._per_simulation is None:  # measure on a small search first
            result = self._search_of(8).run(board[None], aux[None])
            self._per_simulation = (time.perf_counter() - start) / 9
            self.last_search = {"simulations": 8}
        left = self.seconds - (time.perf_counter() - start)
        fit = int(left / self._per_simulation) - 1  # the root's evaluation is one more
        if fit >= 1 or result is None:
            sims = _budget_size(max(fit, 1))
            t0 = time.perf_counter()
            result = self._search_of(sims).run(board[None], aux[None])
            measured = (time.perf_counter() - t0) / (sims + 1)
            self._per_simulation = 0.7 * self._per_simulation + 0.3 * measured
            self.last_search = {"simulations": sims}
        return result

    def __call__(self, state) -> int:
        board, aux = self._checked(state)
        if is_terminal(self.game, board, aux):
            raise ValueError("no legal action: the game is over")
        if self.seconds is not None:
            r = self._timed_search(board, aux)
            self.last_search["value"] = float(r.root_values[0])
            return int(r.actions[0])
        if self.search is not None:
            r = self.search.run(board[None], aux[None])
            self.last_search = {"value": float(r.root_values[0]), "simulations": self.simulations}
            return int(r.actions[0])
        net_input(self.game, board, aux, aux[ROLE], self.obs[0], self.spec.num_planes)
        with self.torch.no_grad():
            logits, v = self.net(self.torch.as_tensor(self.obs, device=self.device))
        self.last_search = {"value": float(v[0])}
        return int(_best_legal(self.game, board, aux, logits[0].float().cpu().numpy(), self.cells, self.legal))
