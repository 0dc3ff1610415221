"""Property tests of the Machine boundary: whatever a caller passes, a call succeeds or raises
ValueError, and a refused call leaves the arrays it was given as they were."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ggpzoo.engine.machine import ArrayMachine
from ggpzoo.gdl.machine import ReasonerMachine

GAMES = ["amazons_v0", "amazons_split_v0", "mad_bishops_v0", "skirmish_v0", "skirmish_endgame_v0", "gdl:tictactoe"]
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
INT64 = st.integers(-(2**63), 2**63 - 1)
ANY_ID = st.one_of(INT64, st.integers(-3, 12), st.floats(allow_nan=True), st.booleans(), st.none(), st.text(max_size=2))


@pytest.fixture(scope="module", params=GAMES + ["reasoner:gdl:tictactoe"])
def machine(request):
    name = request.param
    m = ReasonerMachine(name.split(":", 1)[1]) if name.startswith("reasoner:") else ArrayMachine(name)
    s = m.initial()
    st_ = m.status(s)
    s2 = m.next(s, [int(la[0]) if len(la) else -1 for la in st_.legal])  # a second state, mid-game
    return m, [s, s2]


def _array_state(m, states, data):
    """A state built from a real one: wrong sizes, dtypes and garbage values."""
    board, aux = states[0] if isinstance(states[0], tuple) else (np.zeros(9, np.int8), np.zeros(3, np.int32))
    n = data.draw(st.sampled_from([len(board), 0, 1, 3, len(board) - 1, len(board) + 1]))
    dtype = data.draw(st.sampled_from([np.int8, np.int32, np.int64, np.uint8, np.float64, np.float32, bool]))
    values = data.draw(st.lists(st.integers(-300, 300), min_size=n, max_size=n))
    b = np.array(values, np.int64).astype(dtype) if data.draw(st.booleans()) else np.resize(board, n).astype(dtype)
    a_values = data.draw(st.lists(st.integers(-(2**33), 2**33), min_size=len(aux), max_size=len(aux)))
    a = np.array(a_values, np.int64) if data.draw(st.booleans()) else aux.copy()
    return (b, a)


def _state(m, states, data):
    kind = data.draw(st.sampled_from(["real", "arrays", "junk"]))
    if kind == "real":
        return data.draw(st.sampled_from(states))
    if kind == "junk":
        return data.draw(st.sampled_from([None, 5, "state", (), (1,), (1, 2, 3), [None, None], {"a": 1}]))
    if isinstance(m, ReasonerMachine):
        return data.draw(st.sampled_from([frozenset({"x"}), frozenset({("cell", "9", "9", "x")}), [("a",)]]))
    return _array_state(m, states, data)


def _snapshot(state):
    if isinstance(state, tuple):
        return [np.array(x, copy=True) if isinstance(x, np.ndarray) else x for x in state]
    return state


def _unchanged(state, before) -> bool:
    if isinstance(state, tuple):
        return all(
            not isinstance(x, np.ndarray) or np.array_equal(x, y, equal_nan=x.dtype.kind == "f")
            for x, y in zip(state, before, strict=True)
        )
    return True


@SETTINGS
@given(data=st.data())
def test_next_succeeds_or_raises_value_error_and_changes_nothing(machine, data):
    m, states = machine
    state = _state(m, states, data)
    count = data.draw(st.sampled_from([len(m.roles), len(m.roles), 0, 1, 3]))
    ids = data.draw(st.lists(ANY_ID, min_size=count, max_size=count))
    if any(state is s for s in states) and count == len(m.roles) and data.draw(st.booleans()):
        legal = m.status(state).legal  # sometimes a legal joint move
        ids = [int(la[0]) if len(la) else i for la, i in zip(legal, ids, strict=True)]
    before = _snapshot(state)
    try:
        m.next(state, ids)
    except ValueError:
        pass
    assert _unchanged(state, before)


@SETTINGS
@given(data=st.data())
def test_status_and_observe_succeed_or_raise_value_error(machine, data):
    m, states = machine
    state = _state(m, states, data)
    role = data.draw(st.one_of(INT64, st.integers(-2, 3), st.booleans(), st.floats(), st.none()))
    before = _snapshot(state)
    for call in (lambda: m.status(state), lambda: m.observe(state, role)):
        try:
            call()
        except ValueError:
            pass
        assert _unchanged(state, before)
