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
