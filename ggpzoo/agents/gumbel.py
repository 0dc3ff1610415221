"""Gumbel AlphaZero search: many games searched at once, the trees in numba, the leaves of
every tree evaluated by one batched network call per simulation step.

The search is Gumbel MuZero's (Danihelka et al., "Policy improvement by planning with
Gumbel", ICLR 2022; DeepMind's ``mctx.gumbel_muzero_policy`` is the reference), on the
true rules instead of a learned model: the game protocol of `ggpzoo.engine.dispatch`
(``start``, ``status``, ``step``, ``observation``), so the same code searches every
two-role game where one role chooses at a time, hand-written kernels and compiled GDL sheets
alike (a sheet's joint moves where no role has a choice are played by the protocol itself;
a state where several roles choose at once is refused with a ValueError naming the game):

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
batch of observations ``(B, H, W, planes)`` from the role to act
([`network_input()`][ggpzoo.agents.gumbel.network_input]: the spec's ``planes_shape``, ``(1, 1, n)`` for a
sheet's observation vector, plus the feature planes if asked), ``part_logits``
``float32 (B, parts, cells)`` (one logit per cell for each part of an action, see
[`ggpzoo.envs.gamespec.GameSpec.action_cells()`][ggpzoo.envs.gamespec.GameSpec.action_cells]; a sheet's actions name
no cells: one part whose cells are the action ids, [`policy_cells()`][ggpzoo.agents.gumbel.policy_cells]),
``values`` ``float32 (B,)`` in [-1, 1]. An action's logit is the sum of its parts' logits, computed here for the legal
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

from ggpzoo.agents.base import MAX_SECONDS, _StateAgent, seeded_rng, warm_once
from ggpzoo.agents.mcts import MAX_SIMULATIONS  # a search's tree nodes in all (games x simulations), as MCTS's
from ggpzoo.engine.dispatch import OVER, SIMULTANEOUS, feature_planes, observation, status, step
from ggpzoo.engine.rng import next_random, stream
from ggpzoo.envs import spec as _spec
from ggpzoo.envs.gamespec import ROLE
from ggpzoo.envs.propnet.kernel import ERRORS

__all__ = [
    "GumbelSearch",
    "SearchResult",
    "GumbelAZAgent",
    "considered_visits",
    "improved_policy",
    "network_input",
    "policy_cells",
    "two_role_spec",
]

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
def network_input(game, board, aux, T, role, out, planes):
    """The AlphaZero network's input of ``role`` in any game of the protocol: the observation
    (`ggpzoo.engine.dispatch.observation()`) into ``out[:, :, :planes]``, then, when ``out``
    has more planes, the game's feature planes into the rest (`ggpzoo.engine.dispatch.feature_planes()`)."""
    observation(game, board, aux, T, role, out[:, :, :planes])
    if out.shape[2] > planes:
        feature_planes(game, board, role, out[:, :, planes:])


@njit(cache=True, inline="always")
def outcome0(goals):
    """+1, -1 or 0: role 0's outcome from the two roles' goals (the sign of their difference)."""
    return 1.0 if goals[0] > goals[1] else (-1.0 if goals[0] < goals[1] else 0.0)


@njit(cache=True)
def _init_node(nodes, values, g, c, parent, role):
    """Node ``c`` of tree ``g``: a fresh, unexpanded, non-terminal child of ``parent`` where
    ``role`` acts."""
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
def _new_node(nodes, values, g, c, parent, game, board, aux, T, W, legal, goals, e_action, top):
    """Node ``c`` of tree ``g`` for the state ``(board, aux)`` (``W`` its work area): by the
    protocol's ``status``, a terminal node worth the goals' outcome for role 0, or a node of
    the role to choose whose edges (its legal actions, ascending) take the edge pool's next
    slots from ``top[0]`` (their logits come with the network's output, `_expand_node()`).
    Returns the legal count, OVER, or what else ``status`` said (SIMULTANEOUS, an error)."""
    n = status(game, board, aux, T, W, legal, goals)
    _init_node(nodes, values, g, c, parent, aux[ROLE])
    if n == OVER:
        nodes[g, c, TERMINAL] = 1
        values[g, c, OUTCOME0] = outcome0(goals)
        return n
    if n < 0:
        return n
    first = top[0]
    nodes[g, c, FIRST_EDGE] = first
    nodes[g, c, EDGES] = n
    for i in range(n):
        e_action[first + i] = legal[i]
    top[0] = first + n
    return n


@njit(cache=True)
def _start(game, T, W, roots_b, roots_x, active, nodes, values, n_nodes, leaf, boards, auxs, obs, planes, legal,
           goals, e_action, top):  # fmt: skip
    """Make each active tree's root; observe the roots to evaluate. Returns (their count, 0
    or what ``status`` said of the failing root, that tree)."""
    k = 0
    for g in range(roots_b.shape[0]):
        leaf[g, 0] = -1
        if not active[g]:
            continue
        boards[g, :] = roots_b[g]
        auxs[g, :] = roots_x[g]
        n_nodes[g] = 1
        code = _new_node(nodes, values, g, 0, -1, game, boards[g], auxs[g], T, W[g], legal, goals, e_action, top)
        if code < 0:
            return k, code, g
        network_input(game, boards[g], auxs[g], T, auxs[g, ROLE], obs[k], planes)
        leaf[g, 0], leaf[g, 1] = 0, k
        k += 1
    return k, 0, -1


@njit(cache=True)
def _descend(
    game, T, W, roots_b, roots_x, active, nodes, values, n_nodes, e_action, e_logit, e_child, e_gumbel,
    table, considered_m, c_visit, c_scale, leaf, boards, auxs, obs, planes, scratch, legal, goals, top,
):  # fmt: skip
    """One simulation's selection in every active tree, down to a new node (observed into
    ``obs`` when the network must evaluate it) or a terminal one. Returns (the number
    observed, 0 or the code of what went wrong, the failing tree)."""
    k = 0
    follow = W.shape[1] > 0  # a work area follows its game's board: ``status`` brings it to the root
    for g in range(roots_b.shape[0]):
        leaf[g, 0] = -1
        if not active[g]:
            continue
        boards[g, :] = roots_b[g]
        auxs[g, :] = roots_x[g]
        if follow:
            status(game, boards[g], auxs[g], T, W[g], legal, goals)
        node = 0
        while True:
            if nodes[g, node, TERMINAL]:
                leaf[g, 0], leaf[g, 1] = node, -1
                break
            e = _select(
                nodes, values, e_logit, e_child, e_gumbel, g, node, table, considered_m, c_visit, c_scale, scratch
            )
            code = step(game, boards[g], auxs[g], T, W[g], e_action[e])
            if code != 0:
                return k, code, g
            c = e_child[e]
            if c < 0:
                c = n_nodes[g]
                n_nodes[g] += 1
                e_child[e] = c
                code = _new_node(
                    nodes, values, g, c, node, game, boards[g], auxs[g], T, W[g], legal, goals, e_action, top
                )
                if code == OVER:
                    leaf[g, 0], leaf[g, 1] = c, -1
                elif code < 0:
                    return k, code, g
                else:
                    network_input(game, boards[g], auxs[g], T, auxs[g, ROLE], obs[k], planes)
                    leaf[g, 0], leaf[g, 1] = c, k
                    k += 1
                break
            node = c
    return k, 0, -1


@njit(cache=True)
def _expand_node(
    g, c, k, part_logits, net_values, cells, nodes, values, e_action, e_logit, e_child, e_gumbel,
    considered_m, max_considered, rng, gumbel_scale,
):  # fmt: skip
    """Expand node ``c`` of tree ``g`` (its edges made by `_new_node()`) with the network's
    output row ``k`` (an action's logit: the sum of its parts' logits); at the root, draw the
    Gumbel noise."""
    parts = cells.shape[1]
    first = nodes[g, c, FIRST_EDGE]
    n = nodes[g, c, EDGES]
    for i in range(n):
        a = e_action[first + i]
        s = 0.0
        for p in range(parts):
            s += part_logits[k, p, cells[a, p]]
        e_logit[first + i] = s
        e_child[first + i] = -1
        e_gumbel[first + i] = 0.0
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
    leaf, nodes, values, part_logits, net_values, cells, e_action, e_logit, e_child, e_gumbel,
    considered_m, max_considered, rng, gumbel_scale,
):  # fmt: skip
    """Expand each tree's new leaf with the network's output (its legal actions' logits: the
    sums of their parts' logits) and back its value up to the root."""
    for g in range(leaf.shape[0]):
        c = leaf[g, 0]
        if c < 0:
            continue
        k = leaf[g, 1]
        if k >= 0:
            _expand_node(
                g, c, k, part_logits, net_values, cells, nodes, values, e_action, e_logit, e_child, e_gumbel,
                considered_m, max_considered, rng, gumbel_scale,
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


def policy_cells(spec) -> tuple[np.ndarray, tuple[int, int]]:
    """``(cells, (parts, width))``: the cells each action id names (``int[num_actions, parts]``)
    and the shape of one row of the network's part logits. A game whose actions name cells
    ([`action_parts`][ggpzoo.envs.gamespec.GameSpec]) has a logit per cell of each part; one
    whose actions name none (a GDL sheet's) has one part whose "cells" are the action ids."""
    if spec.action_parts:
        return spec.action_cells(), (len(spec.action_parts), spec.num_cells)
    return np.arange(spec.num_actions, dtype=np.int32)[:, None], (1, spec.num_actions)


def two_role_spec(env):
    """The [`GameSpec`][ggpzoo.envs.gamespec.GameSpec] of ``env`` (a name, a spec, or a loaded GDL game),
    checked to have two roles (AlphaZero's values are one role's against the other's)."""
    s = _spec(env)
    if s.num_roles != 2:
        raise ValueError(f"AlphaZero plays two-role games; {s.name} has {s.num_roles} roles ({', '.join(s.agents)})")
    return s


def status_error(spec, code: int, where: str = "") -> ValueError:
    """The one-line error of a protocol ``status``/``step`` code that is no legal count."""
    where = f" ({where})" if where else ""
    if code == SIMULTANEOUS:
        return ValueError(
            f"{spec.name}: several roles choose at once (a simultaneous move){where}; AlphaZero plays games "
            "where one role chooses at a time"
        )
    if code == OVER:
        return ValueError(f"{spec.name}: the game is over{where}: there is nothing to search")
    return ValueError(f"{spec.name}: {ERRORS.get(code + 10, f'error {code}')}{where}")


class GumbelSearch:
    """Gumbel MuZero search of up to ``games`` states of a two-role game at once.

    Args:
        env_name: the game: an env name (``"skirmish_v0"``, ``"gdl:tictactoe"``), its
            [`GameSpec`][ggpzoo.envs.gamespec.GameSpec] or a loaded GDL game.
        evaluate: ``evaluate(obs) -> (part_logits, values)`` (see the module docstring).
        simulations: the budget per state (at least 1).
        games: how many states one [`run()`][ggpzoo.agents.gumbel.GumbelSearch.run] searches at most.
        max_considered: root actions sampled by Gumbel-Top-k (mctx's default, 16).
        gumbel_scale: 1 samples the root actions; 0 takes the top logits (no noise).
        c_visit, c_scale: sigma's constants.
        seed: seeds the Gumbel noise.
        features: the network reads the game's feature planes after the observation
            ([`network_input()`][ggpzoo.agents.gumbel.network_input]; an AZNet's ``features``).

    A state where several roles choose at once (a GDL sheet's simultaneous move), at the
    root or anywhere in a tree, is a ValueError naming the game.
    """

    def __init__(
        self,
        env_name,
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
        self.spec = S = two_role_spec(env_name)
        self.env_name = S.name
        self.game = S.kernel_id
        self.T = S.tables
        G = self.games
        # each tree walks its states on its own work area (empty for a hand-written game)
        self.W = np.stack([S.work() for _ in range(G)])
        self.cells, logit_shape = policy_cells(S)
        self.boards = np.zeros((G, S.board_size), np.int8)
        self.auxs = np.zeros((G, S.aux_size), np.int32)
        if features and not S.num_feature_planes:
            raise ValueError(f"{S.name} has no feature planes")
        h, w, self.planes = S.planes_shape
        planes = self.planes + (S.num_feature_planes if features else 0)
        self.obs = np.zeros((G, h, w, planes), S.obs_dtype)
        self.legal = np.zeros(S.max_legal, np.int32)
        self.goals = np.zeros(S.num_roles, np.int64)
        self._trees(S.max_legal, logit_shape)

    def _settings(self, evaluate, simulations, games, max_considered, gumbel_scale, c_visit, c_scale, seed) -> None:
        """Check and keep the search's settings."""
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

    def _room(self, n: int) -> None:
        """Room in the edge pool for one new node of each of ``n`` trees."""
        need = int(self.top[0]) + n * self.max_legal
        if need > self.e_action.shape[0]:
            self._pool(max(need, 2 * self.e_action.shape[0]), keep=int(self.top[0]))

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
        _expand_backup(
            self.leaf, self.nodes, self.values, part_logits, vals, self.cells, self.e_action, self.e_logit,
            self.e_child, self.e_gumbel, self.considered_m, self.max_considered, self._rng_states, self.gumbel_scale,
        )  # fmt: skip

    def _failed(self, code: int, g: int, root: bool) -> ValueError:
        """The error of tree ``g``'s walk; the work areas start afresh (a failed walk may leave
        one half updated)."""
        for i in range(self.games):
            self.W[i] = self.spec.work()
        if root and code == OVER:
            return ValueError(f"state {g} is over: there is nothing to search")
        return status_error(self.spec, code, f"{'state' if root else 'the tree of state'} {g}")

    def run(self, boards: np.ndarray, auxs: np.ndarray, active: np.ndarray | None = None) -> SearchResult:
        """Search the states ``(boards[g], auxs[g])`` for which ``active[g]`` (default all);
        none of them may be over. (A sheet's ``aux`` may be zeros: ``status`` finds the
        role to choose.)"""
        S = self.spec
        boards = np.ascontiguousarray(boards, np.int8)
        auxs = np.ascontiguousarray(auxs, np.int32)
        if boards.ndim != 2 or boards.shape[1] != S.board_size or auxs.shape != (len(boards), S.aux_size):
            raise ValueError(
                f"{S.name}: states are boards (n, {S.board_size}) and auxs (n, {S.aux_size}), "
                f"got {boards.shape} and {auxs.shape}"
            )
        n = boards.shape[0]
        if n > self.games:
            raise ValueError(f"this search holds {self.games} games, got {n}")
        active = np.ones(n, np.bool_) if active is None else np.ascontiguousarray(active, np.bool_)
        leaf = self.leaf[:n]
        seed = int(self.rng.integers(1, 2**62))
        self._rng_states = np.array([stream(seed, g) for g in range(n)], np.uint64)
        self.top[0] = 0
        self.leaf[n:, 0] = -1  # trees past n: not searched now (their leaves may be a larger run's)
        self._room(n)
        k, code, g = _start(
            self.game, self.T, self.W, boards, auxs, active, self.nodes, self.values, self.n_nodes, leaf,
            self.boards, self.auxs, self.obs, self.planes, self.legal, self.goals, self.e_action, self.top,
        )  # fmt: skip
        if code:
            raise self._failed(code, g, True)
        self._expand(k)
        room = n * self.max_legal
        for _ in range(self.simulations):
            if self.top[0] + room > self.e_action.shape[0]:
                self._room(n)
            k, code, g = _descend(
                self.game, self.T, self.W, boards, auxs, active, self.nodes, self.values, self.n_nodes,
                self.e_action, self.e_logit, self.e_child, self.e_gumbel, self.table, self.considered_m,
                self.c_visit, self.c_scale, leaf, self.boards, self.auxs, self.obs, self.planes, self.scratch,
                self.legal, self.goals, self.top,
            )  # fmt: skip
            if code:
                raise self._failed(code, g, False)
            self._expand(k)
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

    def root(self, g: int = 0) -> dict:
        """The root of tree ``g`` after [`run()`][ggpzoo.agents.gumbel.GumbelSearch.run]: its actions, prior logits,
        visits, mean values (for the role to act there) and the network's value (for tests and study)."""
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


@njit(cache=True)
def best_legal(legal, n, part_logits, cells):
    """The action of ``legal[:n]`` with the largest factored logit (the network alone)."""
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


def protocol_state(spec, state, who: str) -> tuple[np.ndarray, np.ndarray]:
    """``state`` as fresh ``(int8 board, int32 aux)`` arrays of game ``spec``, checked, else
    ValueError (TypeError for something that is no state at all).

    Takes what a ggpzoo env's ``get_state()`` gives: the pair ``(board, aux)``; or, for a game
    whose ``aux`` the protocol's ``status`` rebuilds from the board (a GDL sheet's
    compiled state, a 0/1 vector over its fluents), the board alone."""
    if isinstance(state, (tuple, list)) and len(state) == 2:
        if hasattr(spec.kernel, "check_state"):
            return spec.check_state(state)
        board, aux = state
    elif isinstance(state, np.ndarray) and state.ndim == 1 and not hasattr(spec.kernel, "check_state"):
        board, aux = state, np.zeros(spec.aux_size, np.int32)
    else:
        raise TypeError(
            f"{who} takes a game state, env.unwrapped.get_state() (a pair (board, aux)), got {type(state).__name__}"
        )
    board, aux = np.asarray(board), np.asarray(aux)
    if board.shape != (spec.board_size,) or aux.shape != (spec.aux_size,):
        raise ValueError(
            f"not a state of {spec.name}: expected a board ({spec.board_size},) and aux ({spec.aux_size},), "
            f"got {board.shape} and {aux.shape}"
        )
    if not np.issubdtype(board.dtype, np.integer) and board.dtype != np.bool_:
        raise ValueError(f"not a state of {spec.name}: the board holds {board.dtype}, not integers")
    if board.size and (board.min() < 0 or board.max() > 1):
        raise ValueError(f"not a state of {spec.name}: its fluents must be 0 or 1")
    return np.array(board, np.int8), np.array(aux, np.int32)


def _budget_size(simulations: int) -> int:
    """The largest of 1, 2, ..., 8, 10, 11, 13, 16, 19, 23, 27, 32, ... (about four sizes a doubling) not
    above ``simulations``, and below MAX_SIMULATIONS."""
    simulations = min(simulations, MAX_SIMULATIONS - 1)
    k = int(4 * math.log2(max(simulations, 1)))
    while k > 0 and round(2 ** (k / 4)) > simulations:
        k -= 1
    return max(1, round(2 ** (k / 4)))


class GumbelAZAgent(_StateAgent):
    """A trained AlphaZero network (`ggpzoo.training.az`) playing its game, alone or with
    search; called with a state (``env.unwrapped.get_state()``).

    Args:
        env_name: the game: an env name (``"skirmish_v0"``, ``"gdl:tictactoe"``), its
            [`GameSpec`][ggpzoo.envs.gamespec.GameSpec] or a loaded GDL game; two roles.
        model: an [`AZNet`][ggpzoo.training.az.net.AZNet] or
            [`GDLAZNet`][ggpzoo.training.az.net.GDLAZNet], or the path of its ``.json``:
            a model of another game is refused before it is built (a model of another sheet
            by the sheet's fingerprint, before that sheet is read).
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
        env_name,
        model,
        simulations: int = 0,
        seed: int | None = None,
        max_considered: int = 16,
        c_scale: float | None = None,
        seconds: float | None = None,
    ):
        spec = two_role_spec(env_name)
        super().__init__(spec, seed)
        self.env_name = spec.name
        import torch

        from ggpzoo.training.az.net import check_model_game, load_model

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
        if isinstance(model, (str, os.PathLike)):
            net = load_model(model, spec)
        else:
            net = model
            check_model_game(net, spec)
        self.net = net.eval()
        self.device = next(net.parameters()).device
        self.torch = torch
        self.simulations = int(simulations)
        self.cells, _ = policy_cells(spec)
        self.T, self.W = spec.tables, spec.work()
        self.legal = np.zeros(spec.max_legal, np.int32)
        self.goals = np.zeros(spec.num_roles, np.int64)
        self.planes = spec.planes_shape[2]
        self.obs = np.zeros((1, *net.input_shape), spec.obs_dtype)
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
        self.warmup()

    def warmup(self) -> None:
        searching = bool(self.simulations or self.seconds)
        max_considered, c_scale, features = self._search_args

        def play(state):
            sims = 8 if searching else 0
            GumbelAZAgent(self.spec, self.net, sims, seed=0, max_considered=max_considered, c_scale=c_scale)(state)

        warm_once(self.spec, "az", ("az", self.game, searching, features), play)

    def _search_of(self, simulations: int) -> GumbelSearch:
        """The search with budget ``simulations`` (built once; GumbelSearch checks c_scale)."""
        if simulations not in self._searches:
            from ggpzoo.training.az.net import evaluator

            max_considered, c_scale, features = self._search_args
            self._searches[simulations] = GumbelSearch(
                self.spec,
                evaluator(self.net, self.device),
                simulations,
                1,
                max_considered,
                seed=int(self.rng.integers(2**62)),
                c_scale=c_scale,
                features=features,
            )
        return self._searches[simulations]

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

    def _checked(self, state) -> tuple[np.ndarray, np.ndarray]:
        return protocol_state(self.spec, state, type(self).__name__)

    def __call__(self, state) -> int:
        board, aux = self._checked(state)
        n = status(self.game, board, aux, self.T, self.W, self.legal, self.goals)
        if n == OVER:
            raise ValueError("no legal action: the game is over")
        if n < 0:
            raise status_error(self.spec, n)
        if self.seconds is not None:
            r = self._timed_search(board, aux)
            self.last_search["value"] = float(r.root_values[0])
            return int(r.actions[0])
        if self.search is not None:
            r = self.search.run(board[None], aux[None])
            self.last_search = {"value": float(r.root_values[0]), "simulations": self.simulations}
            return int(r.actions[0])
        network_input(self.game, board, aux, self.T, aux[ROLE], self.obs[0], self.planes)
        with self.torch.no_grad():
            logits, v = self.net(self.torch.as_tensor(self.obs, device=self.device))
        self.last_search = {"value": float(v[0])}
        return int(best_legal(self.legal, n, logits[0].float().cpu().numpy(), self.cells))
