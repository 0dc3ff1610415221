"""One Machine interface for every reasoner, and machines_agree, the check that two agree."""

from __future__ import annotations

import numpy as np
import pytest

from ggpzoo.engine.machine import ArrayMachine, MachinesDisagree, Status, machines_agree
from ggpzoo.gdl.machine import ReasonerMachine


@pytest.mark.parametrize("sheet", ["tictactoe", "connect_four", "rps_fold", "breakthrough"])
def test_the_reasoner_and_the_compiled_network_agree(sheet):
    """Over, goals, every role's legal actions and every observation, state by state."""
    name = f"gdl:{sheet}"
    assert machines_agree(ReasonerMachine(name), ArrayMachine(name), games=3, seed=1, max_steps=80) > 6


def test_a_simultaneous_sheet_lists_every_choosing_role():
    m = ArrayMachine("gdl:rps_fold")
    st = m.status(m.initial())
    assert not st.over and all(len(x) > 1 for x in st.legal)
    r = ReasonerMachine("gdl:rps_fold").status(ReasonerMachine("gdl:rps_fold").initial())
    assert [x.tolist() for x in r.legal] == [x.tolist() for x in st.legal]


def test_a_turn_lists_only_the_role_to_choose():
    for m in (ArrayMachine("gdl:tictactoe"), ReasonerMachine("gdl:tictactoe"), ArrayMachine("skirmish_v0")):
        st = m.status(m.initial())
        assert len(st.legal[0]) > 1 and len(st.legal[1]) == 0, m


class _Broken:
    """A machine that answers like ``inner`` except ``what`` after ``at`` joint moves."""

    def __init__(self, inner, what, at):
        self.inner, self.what, self.at, self.roles = inner, what, at, inner.roles

    def initial(self):
        return (self.inner.initial(), 0)

    def status(self, state):
        s, t = state
        st = self.inner.status(s)
        if t >= self.at and not st.over:
            if self.what == "goals":
                return Status(st.over, st.goals + 1, st.legal)
            if self.what == "legal":
                legal = tuple(x[1:] if len(x) > 1 else x for x in st.legal)
                return Status(st.over, st.goals, legal)
        return st

    def next(self, state, ids):
        return (self.inner.next(state[0], ids), state[1] + 1)

    def observe(self, state, role):
        out = self.inner.observe(state[0], role)
        return out + 1 if self.what == "observe" and state[1] >= self.at else out


@pytest.mark.parametrize("what,match", [("goals", "goals"), ("legal", "legal actions"), ("observe", "observations")])
def test_a_difference_is_named(what, match):
    good = ArrayMachine("gdl:tictactoe")
    with pytest.raises(MachinesDisagree, match=f"game 0, after 2 joint moves: .*{match}"):
        machines_agree(good, _Broken(ArrayMachine("gdl:tictactoe"), what, at=2), games=1, seed=0)


def test_play_forced_plays_a_one_move_turn_by_itself():
    """A hand-written kernel shows a turn with one legal action; with play_forced the move that
    leads there goes on through it, as a sheet's network plays such a turn."""
    plain, forced = ArrayMachine("mad_bishops_v0"), ArrayMachine("mad_bishops_v0", play_forced=True)
    rng = np.random.default_rng(0)
    found = 0
    for _ in range(200):
        s = plain.initial()
        while not plain.status(s).over and found < 3:
            st = plain.status(s)
            ids = [int(x[rng.integers(len(x))]) if len(x) else -1 for x in st.legal]
            after = plain.next(s, ids)
            a = plain.status(after)
            if not a.over and max(len(x) for x in a.legal) == 1:  # a one-move turn
                found += 1
                f = forced.status(forced.next(s, ids))
                assert f.over or max(len(x) for x in f.legal) > 1
                assert int(forced.next(s, ids)[1][2]) > int(after[1][2])  # more moves were played
            s = after
        if found >= 3:
            break
    assert found == 3


def test_the_machines_refuse_moves_after_the_end_and_other_games():
    m = ArrayMachine("gdl:tictactoe")
    s = m.initial()
    while not m.status(s).over:
        st = m.status(s)
        s = m.next(s, [int(x[0]) if len(x) else -1 for x in st.legal])
    with pytest.raises(ValueError, match="the game is over"):
        m.next(s, [0, 0])
    with pytest.raises(ValueError, match="not a GDL game"):
        ReasonerMachine("skirmish_v0")
    with pytest.raises(MachinesDisagree, match="roles differ"):
        machines_agree(ArrayMachine("skirmish_v0"), ArrayMachine("gdl:tictactoe"))


def test_a_lockstep_check_stops_at_its_deadline():
    with pytest.raises(TimeoutError, match="cut off after 0 joint moves"):
        machines_agree(ArrayMachine("gdl:tictactoe"), ArrayMachine("gdl:tictactoe"), deadline=0.0)


GAMES = ["amazons_v0", "amazons_split_v0", "mad_bishops_v0", "skirmish_v0", "skirmish_endgame_v0", "gdl:tictactoe"]


@pytest.mark.parametrize("name", GAMES)
def test_a_machine_refuses_bad_ids_roles_and_states_and_changes_nothing(name):
    m = ArrayMachine(name)
    s = m.initial()
    board, aux = s[0].copy(), s[1].copy()
    st = m.status(s)
    mover = next(r for r, la in enumerate(st.legal) if len(la))
    for bad in (10**9, -1, -(2**31), 2**31 - 1, 9999, 2**70):
        ids = [-1] * len(m.roles)
        ids[mover] = bad
        with pytest.raises(ValueError, match=f"role {m.roles[mover]}'s id"):
            m.next(s, ids)
    with pytest.raises(ValueError, match="ids given for"):
        m.next(s, [int(st.legal[mover][0])])
    with pytest.raises(ValueError, match="not an integer"):
        m.next(s, [0.5, -1])
    for role in (10**7, 7, -1, 1.0, True):
        with pytest.raises(ValueError, match="a role is an integer"):
            m.observe(s, role)
    short, empty, floats = (board[:3], aux), (board[:0], aux), (board.astype(float) + 0.5, aux)
    for bad_state in (short, empty, floats, None, (board,)):
        for call in (m.status, lambda x: m.observe(x, 0), lambda x: m.next(x, [-1] * len(m.roles))):
            with pytest.raises(ValueError):
                call(bad_state)
    assert np.array_equal(s[0], board) and np.array_equal(s[1], aux)
    ids = [int(la[0]) if len(la) else -1 for la in st.legal]
    m.next(s, ids)  # a legal joint move still plays


def test_an_illegal_id_in_the_action_space_is_refused_by_both_machines():
    for m in (ArrayMachine("gdl:tictactoe"), ReasonerMachine("gdl:tictactoe")):
        s = m.initial()
        assert 0 not in m.status(s).legal[0]  # xplayer's noop is not legal at the start
        with pytest.raises(ValueError, match="role xplayer's id 0 is not one of its 9 legal actions"):
            m.next(s, [0, -1])
        with pytest.raises(ValueError, match="role xplayer's id 1000000"):
            m.next(s, [10**6, -1])
        with pytest.raises(ValueError, match="a role is an integer"):
            m.observe(s, 7)
        assert m.status(m.next(s, [1, 12345])).legal[1].size  # a role without a choice gives anything


def test_the_reasoner_machine_checks_its_states():
    m = ReasonerMachine("gdl:tictactoe")
    for bad in (None, 5, "(cell 1 1 x)", frozenset({"x"}), [1, 2]):
        with pytest.raises(ValueError):
            m.status(bad)
    s = m.initial()
    assert m.status(list(s)).legal[0].tolist() == m.status(s).legal[0].tolist()  # the fluents that hold, listed


@pytest.mark.parametrize(
    "kwargs",
    [
        {"games": 0},
        {"games": -1},
        {"max_steps": -1},
        {"max_steps": 0},
        {"deadline": float("nan")},
        {"deadline": float("inf")},
        {"deadline": -1.0},
        {"games": 1.5},
    ],
)
def test_a_lockstep_check_that_would_check_nothing_is_refused(kwargs):
    with pytest.raises(ValueError, match="games|max_steps|deadline"):
        machines_agree(ArrayMachine("skirmish_v0"), ArrayMachine("amazons_v0"), **kwargs)


def test_machines_with_different_numbers_of_roles_disagree_even_with_a_translation():
    class _OneRole:
        roles = ("only",)

    with pytest.raises(MachinesDisagree, match="roles differ"):
        machines_agree(ArrayMachine("gdl:tictactoe"), _OneRole(), translate=lambda s, r, i: i)
