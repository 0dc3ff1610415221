"""The compiled network's optimisations change its shape, never its answers: factoring the
literals shared by many rules of an atom, and holding the last joint move's does atoms."""

from __future__ import annotations

import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.envs.propnet import kernel
from ggpzoo.gdl import propnet as P
from ggpzoo.gdl.cli import compare_paths
from ggpzoo.gdl.propnet import Propnet, random_playouts

# Two roles take turns setting numbers. ``busy`` has six rules sharing (true (control a));
# ``(away ?n)`` is the OR of the does atoms of every move that does not set n (a frame
# axiom's "this move leaves n alone").
SHEET = """
(role a) (role b)
(init (control a))
(num 1) (num 2) (num 3) (num 4) (num 5) (num 6)
(<= (input ?r (set ?n)) (role ?r) (num ?n))
(<= (input ?r noop) (role ?r))
(<= (legal ?r (set ?n)) (true (control ?r)) (num ?n) (not (true (c ?n))))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (control b)) (true (control a)))
(<= (next (control a)) (true (control b)))
(<= (next (c ?n)) (does ?r (set ?n)))
(<= (away ?n) (num ?n) (does ?r (set ?m)) (distinct ?n ?m))
(<= (next (c ?n)) (true (c ?n)) (away ?n))
(<= busy (true (control a)) (true (c ?n)))
(<= terminal (true (c 1)) (true (c 2)))
(<= (goal a 100) busy)
(<= (goal a 0) (not busy))
(<= (goal b 50) (role b))
"""


def _fan(net: Propnet, atom) -> int:
    """How many rules of the network read ``atom``."""
    i = net.ids[atom]
    return int(net.fan_start[i + 1] - net.fan_start[i])


def test_factoring_takes_a_shared_literal_out_of_many_rules(monkeypatch):
    """With the bound at 4, busy's six rules become one reading (true (control a)) and a
    new atom (the OR of (true (c ?n))): the literal reaches 1 rule instead of 6, and both
    networks play exactly as the exact path."""
    control_a = ("true", ("control", "a"))
    monkeypatch.setattr(P, "FACTOR_MIN_RULES", 10**9)
    plain = Propnet(gdl.load(SHEET))
    monkeypatch.setattr(P, "FACTOR_MIN_RULES", 4)
    game = gdl.load(SHEET)
    factored = game.propnet()
    assert plain.n_factored == 0 and factored.n_factored >= 1
    assert factored.n_atoms == plain.n_atoms + factored.n_factored
    assert _fan(plain, control_a) - _fan(factored, control_a) == 5
    assert compare_paths(game, n_games=6, seed=3) > 0
    a, b = random_playouts(plain, 200, seed=1), random_playouts(factored, 200, seed=1)
    assert a[0] == b[0] and np.array_equal(a[2], b[2])


def test_factoring_leaves_rules_without_a_shared_literal():
    """The default bound (32) leaves this small sheet's network as grounded."""
    net = Propnet(gdl.load(SHEET))
    assert net.n_factored == 0 and P.FACTOR_MIN_RULES == 32


@pytest.mark.parametrize("hold", [False, True])
def test_held_does_atoms_stay_on_between_moves_and_answer_the_same(hold):
    """A holding network keeps the last move's does atoms on after ``play`` (a releasing
    one turns them off); both play the same games and agree with the exact path."""
    game = gdl.load(SHEET)
    net = game._propnet = Propnet(game, hold_does=hold)
    assert net.hold_does is hold and net.stats()["hold_does"] is hold
    T, W = net.tables, net.work()
    state = net.init.copy()
    out, counts = np.zeros((2, net.max_legal), np.int64), np.zeros(2, np.int64)
    assert kernel.status(T, W, state, out, counts) == kernel.CHOICE
    ids = np.array([out[0, 0], out[1, 0]], np.int64)
    assert kernel.play(T, W, state, ids)
    vals = kernel._vals(T, W)
    on = [int(vals[net.does_atom[r, ids[r]]]) for r in range(2)]
    assert on == ([1, 1] if hold else [0, 0])
    # (away n) for every n the move did not set: on while held, off at rest otherwise
    away = [int(vals[net.ids[("away", str(n))]]) for n in range(1, 7)]
    assert sum(away) == (5 if hold else 0)
    assert compare_paths(game, n_games=6, seed=5) > 0
    other = Propnet(game, hold_does=not hold)
    a, b = random_playouts(net, 300, seed=2), random_playouts(other, 300, seed=2)
    assert a[0] == b[0] and np.array_equal(a[2], b[2])


@pytest.mark.parametrize("track_next", [False, True])
def test_a_holding_network_counts_as_a_recount_from_scratch(track_next):
    """After many random games, a holding network's values, counters and pending fluents
    equal a reset at its state with the held does atoms turned on again."""
    net = Propnet(gdl.load(SHEET), hold_does=True, track_next=track_next)
    T, W = net.tables, net.work()
    assert kernel.playouts(T, W, 50, 7, 1000)[2] == kernel.OK
    part = {p: slice(T[kernel.WORK + 2 * i], T[kernel.WORK + 2 * i] + T[kernel.WORK + 2 * i + 1])
            for i, p in enumerate(kernel.WORK_PARTS)}  # fmt: skip
    held = W[part["held"]].copy()
    assert (held >= 0).all()
    fresh = W.copy()
    kernel.reset(T, fresh, W[part["cur"]].astype(np.uint8))
    assert (fresh[part["held"]] == -1).all()
    # turn the held does atoms on in the fresh work area by playing nothing: flip them
    vals = kernel._vals(T, fresh)
    for a in held:
        assert kernel._flip(
            vals, a, 1, fresh[part["stack"]], net.fan_start, net.fan_rule, kernel.table(T, kernel.ATOM_TAG),
            fresh[part["live"]], net.rule_head, fresh[part["sat"]], fresh[part["cnt"]], fresh[part["pend"]],
        )  # fmt: skip
    for p in ("vals", "cur", "sat", "cnt"):
        assert np.array_equal(W[part[p]], fresh[part[p]]), p
    assert _pending(W[part["pend"]]) == _pending(fresh[part["pend"]])


def _pending(pend):
    """The pending fluents of a work area's ``pend`` part (a list in any order), checked
    against their positions."""
    if len(pend) == 0:
        return []
    nf = (len(pend) - 1) // 2
    listed = [int(f) for f in pend[1 : 1 + pend[0]]]
    assert [pend[1 + nf + f] for f in listed] == list(range(len(listed)))
    assert sum(pend[1 + nf :] >= 0) == len(listed)
    return sorted(listed)


@pytest.mark.parametrize("hold", [False, True])
def test_a_move_leaves_the_work_area_at_the_new_state(hold):
    """The protocol judges the state a move reached without comparing it with the work area
    (a propagating network's move keeps it there): after random moves through
    `apply_status`, the values and counters equal a recount from scratch at the board, and
    the legal ids come ascending."""
    net = Propnet(gdl.load(SHEET), hold_does=hold)
    T, W = net.tables, net.work()
    board, aux = np.zeros(len(net.fluents), np.uint8), np.zeros(kernel.AUX_SIZE, np.int32)
    legal, goals = np.zeros(net.max_legal, np.int32), np.zeros(2, np.int64)
    part = {p: slice(T[kernel.WORK + 2 * i], T[kernel.WORK + 2 * i] + T[kernel.WORK + 2 * i + 1])
            for i, p in enumerate(kernel.WORK_PARTS)}  # fmt: skip
    rng = np.random.default_rng(0)
    n, moves = -1, 0
    while moves < 200:
        if n < 0:  # over: a new game
            assert kernel.init(T, W, board, aux) == kernel.OK
            n = kernel.turn_status(T, W, board, aux, legal, goals)
            continue
        n = kernel.apply_status(T, W, board, aux, legal[rng.integers(n)], legal, goals)
        moves += 1
        assert n >= -1 and list(legal[: max(n, 0)]) == sorted(legal[: max(n, 0)])
        fresh = W.copy()
        kernel.reset(T, fresh, board)
        for p in ("vals", "cur", "sat", "cnt") if not hold else ("cur",):
            assert np.array_equal(W[part[p]], fresh[part[p]]), p


def test_legal_ids_are_sorted_like_numpy_sorts_them():
    """The kernel's sort of a legal list (a check, an insertion sort up to 16, numpy's sort
    beyond) on sorted, reversed and shuffled lists of every length up to 40."""
    rng = np.random.default_rng(3)
    for n in range(41):
        for a in (np.arange(45), np.arange(45)[::-1].copy(), rng.integers(0, 30, 45)):
            a = a.astype(np.int32)
            want = a.copy()
            want[:n].sort()
            kernel._ascending(a, n)
            assert np.array_equal(a, want), n
