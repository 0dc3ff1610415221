"""Monte Carlo tree search: UCT with uniformly random rollouts on the rules kernel, in numba.

Values come from the GGP goals of the state where a rollout ends, from the point of view
of the role that chose each action, so the search is correct for every game: turns of two
actions by the same role (amazons_split), goals that grow during the game (Skirmish
captures), draws (equal goals). A node stores the role that moved into it; backing up a
rollout adds that role's value to the node; UCT at a node picks the child with the best
``Q + c * sqrt(ln N / n)``, which is the mover's own value. The answer is the root's
most visited child (ties: the better mean value).

What a finished rollout is worth to a role (``value=``), all in [0, 1]:

* ``"outcome"`` (default): 1 if its goal is the higher, 0.5 if equal, 0 if lower: the
  env's reward and the arena's score, so the search plays to win;
* ``"margin"``: ``1/2 + (own goal - opponent's goal) / 200``: wins by more are better;
* ``"goal"``: its own goal / 100, as a GGP player maximises it (in Skirmish, its own
  captures, blind to its losses: the weakest at winning, see the README's measurements).

The tree lives in flat arrays (one entry per node, children as linked lists). A node's
legal actions are not stored: a node knows their count, and its children are drawn in
the order ``(a * i + b) mod count`` with random ``a`` coprime to the count, so each is
drawn exactly once.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from ggpzoo.agents.base import _StateAgent
from ggpzoo.engine.dispatch import MAX_LEGAL, apply, goals, is_terminal, legal_actions
from ggpzoo.engine.rng import next_random as _next
from ggpzoo.envs.base import ROLE

__all__ = ["MCTSAgent", "UCTBudget"]

# Columns of the int32 node table.
PARENT, ACTION, MOVER, FIRST, SIBLING, CHILDREN, LEGAL, TERMINAL, PERM_A, PERM_B = range(10)
NODE_INTS = 10
# What a finished rollout is worth to a role, from the goals (see MCTSAgent's ``value``).
GOAL, MARGIN, OUTCOME = 0, 1, 2
VALUES = {"goal": GOAL, "margin": MARGIN, "outcome": OUTCOME}
MAX_SIMULATIONS = 10**7  # the node table takes 56 bytes a simulation: 560 MB at most


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
def _new_node(nodes, stats, i, parent, action, mover, game, board, aux, legal, s):
    """Fill node ``i`` for the state ``(board, aux)``; return the rng state and its legal count."""
    n = 0
    terminal = 1 if is_terminal(game, board, aux) else 0
    if terminal == 0:
        n = legal_actions(game, board, aux, legal)
    return _fill_node(nodes, stats, i, parent, action, mover, terminal, n, s), n


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


@njit(cache=True)
def _init_tree(game, root_board, root_aux, nodes, stats, seed):
    legal = np.empty(MAX_LEGAL, np.int32)
    s = np.uint64(seed) | np.uint64(1)
    s, n = _new_node(nodes, stats, 0, -1, -1, -1, game, root_board, root_aux, legal, s)
    return n


@njit(cache=True)
def _search(game, root_board, root_aux, nodes, stats, n_nodes, simulations, c, seed, max_rollout, value_kind):
    """Run up to ``simulations`` simulations; stop early when the node table is full.

    Returns ``(n_nodes, simulations run)``. ``stats[i] = (visits, value sum)``.
    """
    capacity = nodes.shape[0]
    legal = np.empty(MAX_LEGAL, np.int32)
    board = root_board.copy()
    aux = root_aux.copy()
    s = np.uint64(seed) | np.uint64(1)
    done = 0
    while done < simulations and n_nodes < capacity:
        board[:] = root_board
        aux[:] = root_aux
        node = 0
        have_legal = -1  # legal[:have_legal] holds the current state's legal actions
        # selection and expansion
        while nodes[node, TERMINAL] == 0:
            n = nodes[node, LEGAL]
            k = nodes[node, CHILDREN]
            if k < n:
                legal_actions(game, board, aux, legal)
                a = legal[(nodes[node, PERM_A] * np.int64(k) + nodes[node, PERM_B]) % n]
                mover = aux[ROLE]
                apply(game, board, aux, a)
                child = n_nodes
                n_nodes += 1
                s, have_legal = _new_node(nodes, stats, child, node, a, mover, game, board, aux, legal, s)
                nodes[child, SIBLING] = nodes[node, FIRST]
                nodes[node, FIRST] = child
                nodes[node, CHILDREN] = k + 1
                node = child
                break
            pick = _uct_child(nodes, stats, node, c)
            apply(game, board, aux, nodes[pick, ACTION])
            node = pick
        # rollout: uniformly random legal actions to the end (or max_rollout actions)
        if nodes[node, TERMINAL] == 0:
            n = have_legal if have_legal >= 0 else legal_actions(game, board, aux, legal)
            steps = 0
            while True:
                s, j = _rand_below(s, n)
                apply(game, board, aux, legal[j])
                steps += 1
                if steps >= max_rollout or is_terminal(game, board, aux):
                    break
                n = legal_actions(game, board, aux, legal)
        g = goals(game, board, aux)
        if value_kind == GOAL:
            value0 = g[0] / 100.0
            value1 = g[1] / 100.0
        elif value_kind == MARGIN:
            value0 = 0.5 + (g[0] - g[1]) / 200.0
            value1 = 1.0 - value0
        else:
            value0 = 1.0 if g[0] > g[1] else (0.5 if g[0] == g[1] else 0.0)
            value1 = 1.0 - value0
        # backup: each node gets the value of the role that moved into it
        while node != -1:
            stats[node, 0] += 1.0
            stats[node, 1] += value0 if nodes[node, MOVER] == 0 else value1
            node = nodes[node, PARENT]
        done += 1
    return n_nodes, done


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


class UCTBudget:
    """The settings and the budget loop the UCT agents share (this module's and
    `ggpzoo.agents.gdl_mcts.GDLMCTSAgent`): checks ``simulations``, ``seconds``, ``c``,
    ``max_rollout`` and ``value``, keeps the node tables between moves, and runs a search
    for a number of simulations or of seconds (see `_run()`)."""

    def _settings(self, simulations, seconds, c, max_rollout, value) -> None:
        if simulations is not None and seconds is not None:
            raise ValueError("give the MCTS budget as simulations or as seconds, not both")
        if simulations is None and seconds is None:
            simulations = 1000
        bad = isinstance(simulations, bool) or not isinstance(simulations, (int, np.integer)) or simulations < 1
        if simulations is not None and (bad or simulations > MAX_SIMULATIONS):
            raise ValueError(f"simulations must be an integer in 1..{MAX_SIMULATIONS:,}, got {simulations!r}")
        if seconds is not None and (
            isinstance(seconds, (bool, np.bool_))
            or not isinstance(seconds, (int, float, np.integer, np.floating))
            or not (seconds > 0 and math.isfinite(seconds))
        ):
            raise ValueError(f"seconds must be a positive number, got {seconds!r}")
        if (
            isinstance(c, (bool, np.bool_))
            or not isinstance(c, (int, float, np.integer, np.floating))
            or not (c >= 0 and math.isfinite(c))
        ):
            raise ValueError(f"c must be a non-negative finite number, got {c!r}")
        if (
            isinstance(max_rollout, (bool, np.bool_))
            or not isinstance(max_rollout, (int, np.integer))
            or max_rollout < 1
        ):
            raise ValueError(f"max_rollout must be a positive integer, got {max_rollout!r}")
        self.simulations = None if simulations is None else int(simulations)
        self.seconds = None if seconds is None else float(seconds)
        self.c = float(c)
        self.max_rollout = int(max_rollout)
        if value not in VALUES:
            raise ValueError(f"value must be one of {sorted(VALUES)}, got {value!r}")
        self.value = value
        self._value = VALUES[value]
        self.name = f"mcts:{self.simulations}" if self.seconds is None else f"mcts:{self.seconds:g}s"
        self.last_search: dict = {}
        self._nodes = np.zeros((0, NODE_INTS), np.int32)
        self._stats = np.zeros((0, 2), np.float64)

    def _tables(self, capacity: int) -> tuple[np.ndarray, np.ndarray]:
        if self._nodes.shape[0] < capacity:  # kept between moves: allocating is not free
            self._nodes = np.zeros((capacity, NODE_INTS), np.int32)
            self._stats = np.zeros((capacity, 2), np.float64)
        return self._nodes, self._stats

    def _run(self, init, search, answer=None) -> int:
        """Search within the budget; return the root's most visited child's action.

        ``init(nodes, stats)`` fills the root (node 0) and returns its legal count;
        ``search(nodes, stats, n_nodes, simulations)`` runs up to that many simulations
        and returns ``(n_nodes, simulations run)``; ``answer(nodes, stats)``, if given,
        returns ``(action, visits, value sum)`` instead of the root's most visited child
        (the GDL agent's simultaneous roots keep per-role statistics). Sets `last_search`."""
        start = time.perf_counter()
        if self.seconds is None:
            nodes, stats = self._tables(self.simulations + 1)
            n_legal = init(nodes, stats)
            if n_legal == 0:
                raise ValueError("no legal action: the game is over")
            n_nodes, done = search(nodes, stats, 1, self.simulations)
        else:
            nodes, stats = self._tables(4096)
            n_legal = init(nodes, stats)
            if n_legal == 0:
                raise ValueError("no legal action: the game is over")
            deadline = start + self.seconds
            n_nodes, done, chunk = 1, 0, 8
            while True:
                t0 = time.perf_counter()
                if n_nodes + chunk > nodes.shape[0]:  # grow the tables, keeping the tree
                    if nodes.shape[0] > MAX_SIMULATIONS:  # memory is bounded too: stop early
                        break
                    grown_nodes = np.zeros((2 * nodes.shape[0] + chunk, NODE_INTS), np.int32)
                    grown_stats = np.zeros((grown_nodes.shape[0], 2), np.float64)
                    grown_nodes[:n_nodes], grown_stats[:n_nodes] = nodes[:n_nodes], stats[:n_nodes]
                    self._nodes, self._stats = nodes, stats = grown_nodes, grown_stats
                n_nodes, ran = search(nodes, stats, n_nodes, chunk)
                done += ran
                now = time.perf_counter()
                if now >= deadline:
                    break
                per_sim = (now - t0) / max(ran, 1)
                # chunks of about 10 ms, never past the deadline
                chunk = int(max(1, min((deadline - now) / per_sim, 0.01 / per_sim)))
        if answer is None:
            best = _best_child(nodes, stats)
            action, visits, total = int(nodes[best, ACTION]), stats[best, 0], stats[best, 1]
        else:
            action, visits, total = answer(nodes, stats)
        self.last_search = {
            "simulations": int(done),
            "seconds": time.perf_counter() - start,
            "nodes": int(n_nodes),
            "legal": int(n_legal),
            "visits": int(visits),
            "value": float(total / visits),
        }
        return action


class MCTSAgent(UCTBudget, _StateAgent):
    """UCT with random rollouts on env ``env_name``'s rules kernel; called with a state ``(board, aux)``.

    Args:
        env_name: the env whose states it is given (a key of ``ggpzoo.envs.ENVS``).
        simulations: the budget in simulations per move (default 1000 when ``seconds``
            is not given).
        seconds: the budget in wall-clock seconds per move instead (not reproducible).
        c: the UCT exploration constant, on values in [0, 1] (default 0.5).
        seed: seeds the rollouts and the expansion order; with a ``simulations`` budget,
            the same seed and states give the same moves.
        max_rollout: a rollout longer than this many actions is scored with the goals of
            the state where it stops (every game here ends well before the default).
        value: what a rollout is worth to a role: ``"outcome"`` (default), ``"margin"``
            or ``"goal"`` (see the module docstring).

    After each call, `last_search` holds ``simulations``, ``seconds``, ``nodes``,
    ``visits`` and ``value`` (the chosen child's visits and mean value for the mover).

    >>> from ggpzoo.envs import skirmish_endgame_v0
    >>> env = skirmish_endgame_v0.raw_env(); env.reset()
    >>> agent = MCTSAgent("skirmish_endgame_v0", simulations=50, seed=0)
    >>> int(agent(env.get_state())) in env.legal_actions()
    True
    """

    name = "mcts"

    def __init__(
        self,
        env_name: str,
        simulations: int | None = None,
        seconds: float | None = None,
        c: float = 0.5,
        seed: int | None = None,
        max_rollout: int = 100_000,
        value: str = "outcome",
    ):
        super().__init__(env_name, seed)
        self._settings(simulations, seconds, c, max_rollout, value)

    def __call__(self, state) -> int:
        board, aux = self._checked(state)
        game, c, cap, kind = self.game, self.c, self.max_rollout, self._value

        def init(nodes, stats):
            return _init_tree(game, board, aux, nodes, stats, self._seed())

        def search(nodes, stats, n_nodes, simulations):
            return _search(game, board, aux, nodes, stats, n_nodes, simulations, c, self._seed(), cap, kind)

        return self._run(init, search)
