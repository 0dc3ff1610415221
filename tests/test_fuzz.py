"""Fuzzing the public API with hypothesis (issue 14): nothing crashes, every bad input gets
its documented error, and after every call the invariants hold: the mask is the legal
set, goals are in 0..100, the state passes its kernel's check.

Bounded for CI: the ``ci`` profile (default) runs in about a minute; set
``HYPOTHESIS_PROFILE=long`` for a longer search.
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from ggpzoo.engine.batch import VectorGames
from ggpzoo.envs import ENVS, load
from ggpzoo.wrappers import AmazonsTurnDecomposition, GoalDeltaReward, MoveDecomposition, WinLossReward

settings.register_profile(
    "ci",
    max_examples=25,
    stateful_step_count=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long",
    max_examples=500,
    stateful_step_count=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
if PROFILE not in ("ci", "long"):
    PROFILE = "ci"
FUZZ = settings.get_profile(PROFILE)  # applied per test: no global profile for other test files

NAMES = list(ENVS)
KERNELS = {name: load(name).raw_env.kernel for name in NAMES}
VARIANTS = {name: load(name).raw_env.variant for name in NAMES}

# Values that break kernels: out of range, edges of int8/int32, off-by-one.
CELL_VALUES = st.one_of(st.integers(-2, 15), st.sampled_from([-128, -1, 127, 100]))
AUX_VALUES = st.one_of(
    st.integers(-2, 6), st.sampled_from([-(2**31), -1, 59, 60, 63, 64, 99, 100, 101, 5000, 2**31 - 1])
)
ODD_ACTIONS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.integers(-3, 100_000),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=3),
    st.integers(0, 5000).map(np.int64),
    st.integers(0, 5000).map(lambda a: np.array(a)),
    st.integers(0, 5000).map(lambda a: np.array([a, a])),
    st.integers(0, 5000).map(float).map(np.float32),
    st.just([1]),
)


def mutated_state(draw, name):
    """A state of ``name``: a reachable one with a few cells and aux entries changed."""
    env = load(name).raw_env()
    env.reset()
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    for _ in range(draw(st.integers(0, 30))):
        legal = env.legal_actions()
        if not legal.size:
            break
        env.step(int(rng.choice(legal)))
    board, aux = env.get_state()
    for _ in range(draw(st.integers(0, 3))):
        board[draw(st.integers(0, board.size - 1))] = draw(CELL_VALUES)
    for _ in range(draw(st.integers(0, 2))):
        aux[draw(st.integers(0, aux.size - 1))] = draw(AUX_VALUES)
    return board, aux


@st.composite
def states(draw, name):
    kind = draw(st.sampled_from(["mutated", "mutated", "mutated", "other game", "typed", "structure"]))
    if kind == "mutated":
        return mutated_state(draw, name)
    if kind == "other game":
        other = load(draw(st.sampled_from(NAMES))).raw_env()
        other.reset()
        return other.get_state()
    if kind == "typed":
        board, aux = mutated_state(draw, name)
        how = draw(st.sampled_from(["float", "nan", "wide", "list", "bool", "2d"]))
        if how == "float":
            return board + draw(st.sampled_from([0.0, 0.5, 1e-9])), aux
        if how == "nan":
            board = board.astype(float)
            board[draw(st.integers(0, board.size - 1))] = np.nan
            return board, aux
        if how == "wide":
            return board.astype(np.int64) + draw(st.sampled_from([0, 256, -256, 2**40])), aux
        if how == "list":
            return board.tolist(), aux.tolist()
        if how == "bool":
            return board.astype(bool), aux
        return board.reshape(-1, 1), aux
    return draw(st.sampled_from([None, (), (1,), (1, 2, 3), "state", {"board": 1}, (None, None), ([], [])]))


def invariants(env):
    """The invariants of a ggpzoo env (raw, or through PettingZoo's and ggpzoo's wrappers)."""
    raw = env.unwrapped
    board, aux = raw.get_state()
    assert raw.kernel.check_state(board, aux) == 0
    legal = raw.legal_actions()
    assert (np.diff(legal) > 0).all()
    if raw.agents:
        for agent in raw.agents:
            assert 0 <= raw.infos[agent]["goal"] <= 100
        mask = raw.observe(raw.agent_selection)["action_mask"]
        assert np.flatnonzero(mask).tolist() == legal.tolist()
        for other in raw.agents:
            if other != raw.agent_selection:
                assert not raw.observe(other)["action_mask"].any()
        live = not (raw.terminations[raw.agent_selection] or raw.truncations[raw.agent_selection])
        assert bool(legal.size) == live
    if env is not raw and env.agents and hasattr(env, "legal_actions"):
        obs = env.observe(env.agent_selection)
        assert env.observation_space(env.agent_selection).contains(obs)
        assert np.flatnonzero(obs["action_mask"]).tolist() == env.legal_actions().tolist()


def snapshot(env):
    raw = env.unwrapped
    board, aux = raw.get_state()
    return board.tolist(), aux.tolist(), raw.agent_selection, list(raw.agents), raw.legal_actions().tolist()


# ----------------------------------------------------------------------------- stateless
@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(data=st.data())
def test_set_state_accepts_exactly_what_passes_the_check(name, data):
    """A state either raises ValueError and changes nothing, or passes the kernel's check;
    then the env plays from it (random legal actions to the end or 40 actions) and every
    state on the way passes too."""
    env = load(name).raw_env()
    env.reset()
    state = data.draw(states(name))
    before = snapshot(env)
    try:
        env.set_state(state)
    except ValueError as e:
        assert str(e)
        assert snapshot(env) == before
        return
    rng = np.random.default_rng(0)
    for _ in range(40):
        invariants(env)
        legal = env.legal_actions()
        if not legal.size:
            break
        env.step(int(rng.choice(legal)))
    invariants(env)


@pytest.mark.parametrize("name", NAMES)
@FUZZ
@given(action=ODD_ACTIONS)
def test_odd_actions(name, action):
    raw = load(name).raw_env()
    raw.reset()
    before = snapshot(raw)
    try:
        raw.step(action)
    except ValueError:
        assert snapshot(raw) == before
    invariants(raw)
    env = load(name).env()
    env.reset()
    try:
        env.step(action)
    except (ValueError, AssertionError):  # PettingZoo's AssertOutOfBoundsWrapper asserts
        pass
    invariants(env)


# ----------------------------------------------------------------------------- stateful
class GameMachine(RuleBasedStateMachine):
    """Random legal and illegal calls on one game through ``raw_env``, ``env()``, a reward
    wrapper with a turn decomposition, and the batched engine."""

    @initialize(name=st.sampled_from(NAMES))
    def start(self, name):
        self.name = name
        self.raw = load(name).raw_env()
        self.env = load(name).env()
        decomposition = AmazonsTurnDecomposition if name == "amazons_v0" else MoveDecomposition
        self.wrapped = decomposition(GoalDeltaReward(load(name).env()))
        self.plain = WinLossReward(load(name).raw_env())
        self.targets = [self.raw, self.env, self.wrapped, self.plain]
        for t in self.targets:
            t.reset()
        self.vector = VectorGames(name, 6, auto_reset=True)
        self.vector.reset()
        self.seen = [self.raw.get_state()]  # reachable states, for set_state

    def _target(self, data):
        return data.draw(st.sampled_from(self.targets))

    @rule(data=st.data())
    def step_legal(self, data):
        t = self._target(data)
        if not t.agents:
            t.reset()
            return
        agent = t.agent_selection
        if t.terminations[agent] or t.truncations[agent]:
            t.step(None)
            return
        mask = t.observe(agent)["action_mask"]
        legal = np.flatnonzero(mask)
        t.step(int(data.draw(st.sampled_from(legal.tolist()))))
        self.seen.append(t.unwrapped.get_state())

    @rule(data=st.data(), action=ODD_ACTIONS)
    def step_odd(self, data, action):
        t = self._target(data)
        if not t.agents:
            with pytest.raises(RuntimeError) if t is self.raw else _anything():
                t.step(action)
            return
        before = snapshot(t)
        try:
            t.step(action)
        except (ValueError, AssertionError, TypeError) as e:
            # raw_env: ValueError; env(): AssertOutOfBoundsWrapper's AssertionError;
            # a wrapper's ValueError; a dead step with an action: PettingZoo's ValueError
            assert isinstance(e, (ValueError, AssertionError)), e
            if t is self.raw or isinstance(t, WinLossReward):
                assert snapshot(t) == before

    @rule(data=st.data())
    def set_state(self, data):
        t = self._target(data)
        if data.draw(st.booleans()):
            state = self.seen[data.draw(st.integers(0, len(self.seen) - 1))]
        else:
            state = data.draw(states(self.name))
        before = snapshot(t)
        try:
            t.set_state(state)
        except ValueError:
            assert snapshot(t) == before

    @rule(
        data=st.data(), seed=st.one_of(st.none(), st.integers(0, 10), st.floats(), st.booleans(), st.text(max_size=2))
    )
    def reset(self, data, seed):
        t = self._target(data)
        try:
            t.reset(seed=seed)
        except ValueError:
            assert not (seed is None or (type(seed) is int))

    @rule(seed=st.integers(-5, 2**64 + 5) | st.floats() | st.none())
    def vector_step(self, seed):
        try:
            actions = self.vector.random_actions(seed=seed)
        except ValueError:
            assert not (type(seed) is int and 0 <= seed < 2**63)
            return
        self.vector.step(np.where(actions < 0, 0, actions))

    @rule(actions=st.lists(st.integers(-(2**40), 2**40), min_size=6, max_size=6) | st.lists(st.integers(), max_size=8))
    def vector_step_odd(self, actions):
        before = self.vector.boards.copy()
        try:
            self.vector.step(
                np.array(actions, dtype=object).astype(np.int64) if all(abs(a) < 2**62 for a in actions) else actions
            )
        except (ValueError, OverflowError, TypeError):
            assert (self.vector.boards == before).all()

    @rule(roles=st.lists(st.integers(-3, 3), max_size=8))
    def vector_observe(self, roles):
        try:
            obs = self.vector.observe(np.array(roles, np.int64))
        except ValueError:
            assert len(roles) != 6 or not set(roles) <= {0, 1}
            return
        assert obs.shape[0] == 6

    @precondition(lambda self: hasattr(self, "raw"))
    @invariant()
    def hold(self):
        for t in self.targets:
            if t.unwrapped.agents:
                invariants(t)
        v = self.vector
        kernel = KERNELS[self.name]
        for i in range(v.num_games):
            assert kernel.check_state(v.boards[i], v.auxs[i]) == 0
            assert 0 <= v.goals[i].min() and v.goals[i].max() <= 100
        masks = v.action_masks()
        assert (masks.sum(axis=1) == np.where(v.terminal, 0, v.n_legal)).all()


class _anything:
    """A context manager that lets any of the documented errors through and fails on the rest."""

    def __enter__(self):
        return self

    def __exit__(self, kind, value, tb):
        return kind is None or issubclass(kind, (ValueError, AssertionError, RuntimeError))


TestGameMachine = GameMachine.TestCase
TestGameMachine.settings = settings(
    max_examples=60 if PROFILE == "ci" else 400,
    stateful_step_count=40 if PROFILE == "ci" else 80,
    deadline=None,
    derandomize=PROFILE == "ci",
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
