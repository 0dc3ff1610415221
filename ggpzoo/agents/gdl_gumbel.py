"""Gumbel AlphaZero search on a GDL game's compiled network: `GDLGumbelSearch` and the
agent `GDLGumbelAZAgent`.

The search is `ggpzoo.agents.gumbel.GumbelSearch`'s, the same code: Gumbel-Top-k and
sequential halving at the root, the deterministic rule below it, completed Q, the answer
and the policy target (``_select``, ``_finish``, ``_expand_node``, ``_backup``, the halving
table). Only the state operations differ: a state is a ``uint8`` vector over the network's
fluents, and each tree walks it on its own copy of the network's values, the rows of a
`ggpzoo.gdl.batch.GDLVectorGames` (moved by the table interpreter
`ggpzoo.envs.propnet.kernel`, each tree on its own work area).

* **Nodes.** A node is a state where one role has a choice; its edges are that role's legal
  action ids (ascending). The other role plays its one legal move (``noop``), and joint
  moves where no role has a choice are played through, as the AEC env and the batched
  engine play them. A state where the sheet says ``terminal``, or where a role has no legal
  move, is a terminal node worth the goals' outcome for role 0 (+1 if its goal is above the
  other's, -1 below, 0 for a tie).
* **Values** are from the side of the role that acts in a node (its ``NROLE``), as in the
  hand-written games; a network's value is for the role to act in its input.
* **Refused:** a sheet without exactly two roles (ValueError), and a state where both roles
  choose at once (`SimultaneousMoveError`, at the root or
  wherever the tree meets one).

The network is ``evaluate(obs) -> (logits, values)``: ``obs`` int8 ``(B, F + 2)``, the
env's ``observation`` (a byte per fluent of the base set, then a one-hot of the role to
act); ``logits`` float32 ``(B, 1, A)``, one per action id of the role to act (``A`` the
larger role's action count); ``values`` ``(B,)`` in [-1, 1] for that role.
(`ggpzoo.training.az.net.GDLAZNet` is one.)
"""

from __future__ import annotations

import os

import numpy as np
from numba import njit

from ggpzoo.agents.base import Agent, seeded_rng
from ggpzoo.agents.gdl_mcts import SimultaneousMoveError, checked_state, env_state
from ggpzoo.agents.gumbel import (
    C_SCALE,
    C_VISIT,
    NROLE,
    TERMINAL,
    GumbelSearch,
    _backup,
    _expand_node,
    _init_node,
    _leaf_value,
    _select,
    _set_terminal,
)
from ggpzoo.envs.propnet import kernel
from ggpzoo.envs.propnet.kernel import CHOICE, ERRORS, FORCED, OK, OVER, STACK_OVERFLOW
from ggpzoo.gdl.batch import GDLVectorGames, advance
from ggpzoo.gdl.syntax import GDLError

__all__ = ["GDLGumbelSearch", "GDLGumbelAZAgent", "two_role_game"]

# why a search stopped (the batched engine's codes are -1..-3)
ROOT_OVER, ROOT_FORCED, SIMULTANEOUS_MOVE = -11, -12, -13


def two_role_game(game):
    """The `ggpzoo.gdl.Game` of ``game`` (``"gdl:SHEET"``, a GDLSpec or a Game),
    checked to have two roles (AlphaZero's values are one role's against the other's)."""
    from ggpzoo.gdl.spec import gdl_game

    g = gdl_game(game)
    if g is None:
        raise ValueError(f"not a GDL game: {game!r} (a GDL game is named gdl:SHEET)")
    if len(g.roles) != 2:
        raise ValueError(
            f"AlphaZero on GDL plays two-role games; {g.name} has {len(g.roles)} roles ({', '.join(g.roles)})"
        )
    return g


# ----------------------------------------------------------------------------- numba: one tree's state
@njit(cache=True)
def _observe(state, role, cols, src, nf, out):
    """The network's input of ``state`` for ``role``: the base set's fluents, then a one-hot
    of the role (the env's ``observation``)."""
    out[:] = 0
    for j in range(cols.shape[0]):
        out[cols[j]] = state[src[j]]
    out[nf + role] = 1


@njit(cache=True)
def _outcome0(goals):
    return 1.0 if goals[0] > goals[1] else (-1.0 if goals[0] < goals[1] else 0.0)


@njit(cache=True)
def _start(roots, active, nodes, values, n_nodes, leaf, T, W, states, S, obs, cols, src, nf):
    """Make each active tree's root (a state where one role chooses); observe the roots.
    Returns (how many observed, OK or an error code, the failing tree)."""
    out, counts = S[0], S[1]
    k = 0
    for g in range(roots.shape[0]):
        leaf[g, 0] = -1
        if not active[g]:
            continue
        states[g, :] = roots[g]
        code = kernel.status(T, W[g], states[g], out[g], counts[g])
        if code != CHOICE:
            if code < 0:
                return k, code, g
            return k, (ROOT_OVER if code == OVER else (ROOT_FORCED if code == FORCED else SIMULTANEOUS_MOVE)), g
        mover = 0
        for r in range(counts.shape[1]):
            if counts[g, r] > 1:
                mover = r
        n_nodes[g] = 1
        _init_node(nodes, values, g, 0, -1, mover)
        _observe(states[g], mover, cols, src, nf, obs[k])
        leaf[g, 0], leaf[g, 1] = 0, k
        k += 1
    return k, OK, -1


@njit(cache=True)
def _descend(
    roots, active, nodes, values, n_nodes, e_action, e_logit, e_child, e_gumbel, table, considered_m,
    c_visit, c_scale, leaf, T, W, states, S, obs, cols, src, nf, scratch, ids,
):  # fmt: skip
    """One simulation's selection in every active tree (gumbel.py's ``_descend`` on GDL
    states), down to a new node (observed into ``obs`` when the network must evaluate it)
    or a terminal one. Returns (how many observed, OK or an error code, the failing tree)."""
    out, over, mover = S[0], S[2], S[4]
    goals = S[6]
    k = 0
    for g in range(roots.shape[0]):
        leaf[g, 0] = -1
        if not active[g]:
            continue
        states[g, :] = roots[g]
        code = advance(g, T, W, states, S, 0, ids)  # the root is a choice: this only moves the network
        if code != OK:
            return k, code, g
        node = 0
        while True:
            if nodes[g, node, TERMINAL]:
                leaf[g, 0], leaf[g, 1] = node, -1
                break
            e = _select(
                nodes, values, e_logit, e_child, e_gumbel, g, node, table, considered_m, c_visit, c_scale, scratch
            )
            for r in range(ids.shape[0]):
                ids[r] = out[g, r, 0]  # the other role's one legal move
            ids[nodes[g, node, NROLE]] = e_action[e]
            if not kernel.play(T, W[g], states[g], ids):
                return k, STACK_OVERFLOW, g
            code = advance(g, T, W, states, S, 0, ids)  # forced joint moves played through
            if code != OK:
                return k, code, g
            if not over[g] and mover[g] < 0:
                return k, SIMULTANEOUS_MOVE, g
            c = e_child[e]
            if c < 0:
                c = n_nodes[g]
                n_nodes[g] += 1
                e_child[e] = c
                if over[g]:
                    _init_node(nodes, values, g, c, node, -1)
                    _set_terminal(nodes, values, g, c, _outcome0(goals[g]))
                    leaf[g, 0], leaf[g, 1] = c, -1
                else:
                    _init_node(nodes, values, g, c, node, mover[g])
                    _observe(states[g], mover[g], cols, src, nf, obs[k])
                    leaf[g, 0], leaf[g, 1] = c, k
                    k += 1
                break
            node = c
    return k, OK, -1


@njit(cache=True)
def _expand_backup(
    leaf, nodes, values, logits, net_values, cells, e_action, e_logit, e_child, e_gumbel, top, S,
    considered_m, max_considered, rng, gumbel_scale, legal,
):  # fmt: skip
    """Expand each tree's new leaf with its mover's legal ids (ascending; left in ``S`` by
    `_descend()`) and the network's logits, and back its value up to the root."""
    out, counts = S[0], S[1]
    for g in range(leaf.shape[0]):
        c = leaf[g, 0]
        if c < 0:
            continue
        k = leaf[g, 1]
        if k >= 0:
            m = nodes[g, c, NROLE]
            n = counts[g, m]
            for i in range(n):
                legal[i] = out[g, m, i]
            legal[:n].sort()  # the live legal list's order depends on the network's history
            _expand_node(
                g, c, k, legal, n, logits, net_values, cells, nodes, values, e_action, e_logit, e_child,
                e_gumbel, top, considered_m, max_considered, rng, gumbel_scale,
            )  # fmt: skip
        v, role = _leaf_value(nodes, values, net_values, g, c, k)
        _backup(nodes, values, g, c, v, role)


# ----------------------------------------------------------------------------- the search
class GDLGumbelSearch(GumbelSearch):
    """Gumbel MuZero search of up to ``games`` states of a two-role GDL game at once.

    Args:
        game: ``"gdl:SHEET"``, its GDLSpec or a loaded `ggpzoo.gdl.Game` (compiled
            path: a sheet that does not ground raises ``GroundingTooLarge``).
        evaluate: ``evaluate(obs) -> (logits (B, 1, A), values (B,))`` (module docstring).
        simulations, games, max_considered, gumbel_scale, c_visit, c_scale, seed: as
            `GumbelSearch`.

    `run()` takes states (``uint8 (n, fluents)``: ``GDLVectorGames.states``, a GDL env's
    ``get_state()``, `state_from_fluents()`), each a state where
    one role chooses; the answer's actions are that role's ids.
    """

    def __init__(
        self,
        game,
        evaluate,
        simulations: int = 16,
        games: int = 1,
        max_considered: int = 16,
        gumbel_scale: float = 1.0,
        c_visit: float = C_VISIT,
        c_scale: float = C_SCALE,
        seed: int | None = None,
    ):
        self._settings(evaluate, simulations, games, max_considered, gumbel_scale, c_visit, c_scale, seed)
        self.game = two_role_game(game)
        self.env_name = f"gdl:{self.game.name}"
        # each tree walks its states on its own row of the network's values
        self.walkers = w = GDLVectorGames(self.game, self.games, auto_reset=False)
        w.reset()
        self.tables = w.kernel_tables()
        self.num_actions = int(w.num_actions.max())
        self.cells = np.arange(self.num_actions, dtype=np.int64)[:, None]
        self.obs = np.zeros((self.games, self.tables.num_fluents + len(w.roles)), np.int8)
        self.legal = np.zeros(w.max_actions, np.int64)
        self.ids = np.zeros(len(w.roles), np.int64)
        self._trees(w.max_actions, (1, self.num_actions))

    def _kernel_args(self) -> tuple:
        t = self.tables
        return t.T, t.W, t.states, t.S

    def _stop(self, code: int, g: int):
        self.walkers.reset()  # a failing walk may leave its row of the network half updated
        if code == SIMULTANEOUS_MOVE:
            raise SimultaneousMoveError(
                f"both roles of {self.game.name} choose a move at once (a simultaneous move; tree {g}); "
                "AlphaZero on GDL searches games where one role chooses at a time"
            )
        if code == ROOT_OVER:
            raise ValueError(f"state {g} is over: there is nothing to search")
        if code == ROOT_FORCED:
            raise ValueError(f"state {g}: no role has a choice (every role has one legal move)")
        raise GDLError(f"tree {g}: {ERRORS[code]}")

    def _expand_leaves(self, logits: np.ndarray, vals: np.ndarray) -> None:
        _expand_backup(
            self.leaf, self.nodes, self.values, logits, vals, self.cells, self.e_action, self.e_logit,
            self.e_child, self.e_gumbel, self.top, self.tables.S, self.considered_m, self.max_considered,
            self._rng_states, self.gumbel_scale, self.legal,
        )  # fmt: skip

    def run(self, states: np.ndarray, active: np.ndarray | None = None):
        """Search the states ``states[g]`` for which ``active[g]`` (default all); each must be
        a state where one role chooses. Returns a `SearchResult`."""
        w = self.walkers
        a = np.asarray(states)
        if a.ndim != 2 or a.shape[1] != w.states.shape[1]:
            raise ValueError(f"states must be (n, {w.states.shape[1]}) fluent vectors, got shape {a.shape}")
        if a.size and (a.min() < 0 or a.max() > 1):
            raise ValueError("states must be fluent vectors of 0 and 1")
        states = np.ascontiguousarray(a, np.uint8)
        n = states.shape[0]
        if n > self.games:
            raise ValueError(f"this search holds {self.games} games, got {n}")
        active = np.ones(n, np.bool_) if active is None else np.ascontiguousarray(active, np.bool_)
        T, W, walk, S = self._kernel_args()
        leaf, cols, src, nf = self.leaf[:n], self.tables.obs_cols, self.tables.obs_src, self.tables.num_fluents

        def start():
            k, code, g = _start(
                states, active, self.nodes, self.values, self.n_nodes, leaf, T, W, walk, S, self.obs, cols, src, nf
            )
            if code != OK:
                self._stop(code, g)
            return k

        def descend():
            k, code, g = _descend(
                states, active, self.nodes, self.values, self.n_nodes, self.e_action, self.e_logit, self.e_child,
                self.e_gumbel, self.table, self.considered_m, self.c_visit, self.c_scale, leaf,
                T, W, walk, S, self.obs, cols, src, nf, self.scratch, self.ids,
            )  # fmt: skip
            if code != OK:
                self._stop(code, g)
            return k

        return self._search(n, active, start, descend)


# ----------------------------------------------------------------------------- the agent
class GDLGumbelAZAgent(Agent):
    """A trained GDL AlphaZero network (``python -m ggpzoo.training.az --env gdl:SHEET``)
    playing its game, alone or with search; called with a state.

    Args:
        game: the game (``"gdl:SHEET"``, a GDLSpec or a loaded Game); the model must be of
            the same sheet (the same text).
        model: a `GDLAZNet`, or the path of its ``.json``.
        simulations: 0 plays the network alone (the legal id of the largest logit); more
            runs `GDLGumbelSearch` with that budget per move.
        seed, max_considered, c_scale: as `GumbelAZAgent`.

    ``agent(state, role=None)`` and ``agent.act(env)`` as `GDLMCTSAgent`.
    Needs torch (the ``train`` extra).
    """

    takes = "state"

    def __init__(
        self,
        game,
        model,
        simulations: int = 0,
        seed: int | None = None,
        max_considered: int = 16,
        c_scale: float | None = None,
    ):
        import torch

        from ggpzoo.gdl.propnet import CompiledMachine
        from ggpzoo.gdl.spec import gdl_game
        from ggpzoo.training.az.net import GDLAZNet, evaluator, load_model

        self.game = two_role_game(game)
        net = load_model(model) if isinstance(model, (str, os.PathLike)) else model
        if not isinstance(net, GDLAZNet):
            raise ValueError(f"the model plays {getattr(net, 'env_name', None)!r}, not the GDL game {self.game.name}")
        if gdl_game(net.env_name).text != self.game.text:
            raise ValueError(f"the model plays {net.env_name!r}, another sheet than {self.game.name}")
        if isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 0:
            raise ValueError(f"simulations must be a non-negative integer, got {simulations!r}")
        self.rng = seeded_rng(seed)
        self.net = net.eval()
        self.device = next(net.parameters()).device
        self.torch = torch
        self.roles = list(self.game.roles)
        self.simulations = int(simulations)
        self.machine = CompiledMachine(self.game)
        self.search = None
        if c_scale is None:
            c_scale = getattr(net, "info", {}).get("c_scale", C_SCALE)
        if self.simulations:
            self.search = GDLGumbelSearch(
                self.game,
                evaluator(self.net, self.device),
                self.simulations,
                1,
                max_considered,
                seed=int(self.rng.integers(2**62)),
                c_scale=c_scale,
            )
        self.name = "az" if not self.simulations else f"az:{self.simulations}"
        self.last_search: dict = {}

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded_rng(seed)
            if self.search is not None:
                self.search.rng = seeded_rng(seed)

    def act(self, env) -> int:
        """The move of ``env.agent_selection`` in a GDL env of this agent's game."""
        state, role = env_state(env, self.game, "GDLGumbelAZAgent")
        return self(state, role=role)

    def __call__(self, state, role: str | None = None) -> int:
        root = checked_state(self.game, state, "GDLGumbelAZAgent")
        if role is not None and role not in self.roles:
            raise ValueError(f"role must be one of {self.roles}, got {role!r}")
        if self.machine.terminal(root):
            raise ValueError("no legal action: the game is over")
        legal = self.machine.legal(root)
        if any(len(m) == 0 for m in legal):
            raise ValueError("no legal action: the game is over (a role has no move)")
        choosers = [i for i, m in enumerate(legal) if len(m) > 1]
        if role is not None and self.roles.index(role) not in choosers:
            if len(choosers) > 1 or len(legal[self.roles.index(role)]) != 1:
                raise ValueError(f"{role} is not to move here")
            return int(legal[self.roles.index(role)][0])  # a forced move: nothing to search
        if len(choosers) > 1:
            raise SimultaneousMoveError(
                f"roles {', '.join(self.roles[i] for i in choosers)} choose at once (a simultaneous move); "
                "AlphaZero on GDL plays games where one role chooses at a time"
            )
        if not choosers:
            raise ValueError("no role has a choice here: every role has one legal move")
        mover = choosers[0]
        if self.search is not None:
            r = self.search.run(root[None])
            self.last_search = {"value": float(r.root_values[0]), "simulations": self.simulations}
            return int(r.actions[0])
        obs = np.zeros((1, len(self.game.fluents) + len(self.roles)), np.int8)
        obs[0, : len(self.game.fluents)] = self.machine.fluent_vector(root)
        obs[0, len(self.game.fluents) + mover] = 1
        with self.torch.no_grad():
            logits, v = self.net(self.torch.as_tensor(obs, device=self.device))
        self.last_search = {"value": float(v[0])}
        ids = legal[mover]
        return int(ids[int(np.argmax(logits[0, 0].float().cpu().numpy()[ids]))])
