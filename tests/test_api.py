"""API tests that every registered environment must pass: one parametrized list, ``ENVS``."""

import pickle
import re

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, seed_test
from pettingzoo.utils.env_logger import EnvLogger

import ggpzoo
from ggpzoo.envs import ENVS, load, registry_id
from ggpzoo.utils import sample_action

NAMES = list(ENVS)


@pytest.fixture(params=NAMES)
def name(request):
    return request.param


def test_pettingzoo_api_test(name):
    api_test(load(name).env(), num_cycles=300)


def test_pettingzoo_api_test_raw_env(name):
    api_test(load(name).raw_env(), num_cycles=300)


def test_pettingzoo_seed_test(name):
    seed_test(load(name).env, num_cycles=300)


def test_registry_and_classic_module(name):
    if not ggpzoo.REGISTERED:
        pytest.skip(f"PettingZoo {pettingzoo.__version__} has no registry (1.27 and newer have)")
    env = pettingzoo.make("aec", registry_id(name))
    assert env.metadata["name"] == name
    assert isinstance(env.unwrapped, load(name).raw_env)
    assert registry_id(name) in pettingzoo.aec_registry
    classic = getattr(ggpzoo.envs, name)  # from ggpzoo.envs import <name>
    assert classic.raw_env is load(name).raw_env and classic.env is load(name).env
    # the classic wrapper stack, outermost first
    assert [type(w).__name__ for w in (env, env.env, env.env.env)] == [
        "OrderEnforcingWrapper",
        "AssertOutOfBoundsWrapper",
        "TerminateIllegalWrapper",
    ]


def test_metadata_and_spaces(name):
    raw = load(name).raw_env()
    assert raw.metadata["is_parallelizable"] is False
    assert {"name", "render_modes", "render_fps"} <= set(raw.metadata)
    assert raw.possible_agents == ["white", "black"]
    for agent in raw.possible_agents:
        assert raw.observation_space(agent) is raw.observation_space(agent)
        assert raw.action_space(agent) is raw.action_space(agent)
        assert raw.action_space(agent).n == raw.num_actions
        assert raw.observation_space(agent)["action_mask"].dtype == np.int8


def test_unknown_env_name():
    with pytest.raises(ValueError, match="unknown environment 'nope_v0'"):
        load("nope_v0")


def _play(env, rng, max_steps=None):
    """Play one random game on a raw env; yield before every step."""
    for _ in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        yield obs
        env.step(sample_action(obs["action_mask"], rng))


def test_pickle_round_trip(name):
    raw = load(name).raw_env(max_steps=9)
    clone = pickle.loads(pickle.dumps(raw))
    assert type(clone) is type(raw) and clone.max_steps == 9
    for env in (raw, clone):
        env.reset(seed=3)
    rng1, rng2 = np.random.default_rng(5), np.random.default_rng(5)
    for o1, o2 in zip(_play(raw, rng1), _play(clone, rng2), strict=True):
        np.testing.assert_array_equal(o1["observation"], o2["observation"])
        np.testing.assert_array_equal(o1["action_mask"], o2["action_mask"])
    assert raw._cumulative_rewards == clone._cumulative_rewards


def test_mask_equals_the_actions_step_accepts(name):
    """At every state of seeded random games: each legal action is accepted, sampled illegal
    ones raise ValueError and leave the state as it was."""
    mod = load(name)
    env, probe = mod.raw_env(), mod.raw_env()
    rng = np.random.default_rng(0)
    n = env.num_actions
    for game in range(3):
        env.reset(seed=game)
        for obs in _play(env, rng):
            mask = obs["action_mask"]
            agent = env.agent_selection
            legal = np.flatnonzero(mask)
            np.testing.assert_array_equal(legal, env.legal_actions())
            assert obs["observation"].shape == env.observation_space(agent)["observation"].shape
            state = env.get_state()
            # every legal action (or 40 of them) is accepted
            for a in rng.choice(legal, min(40, len(legal)), replace=False):
                probe.set_state(state)
                probe.step(int(a))
            # sampled illegal actions raise and change nothing
            illegal = rng.integers(0, n, 60)
            for a in illegal[mask[illegal] == 0]:
                with pytest.raises(ValueError, match=f"action {a} = .* is illegal for {agent}"):
                    env.step(int(a))
                b, x = env.get_state()
                np.testing.assert_array_equal(b, state[0])
                np.testing.assert_array_equal(x, state[1])
                assert env.agent_selection == agent


def test_goal_in_infos_after_reset_and_every_step(name):
    env = load(name).raw_env()
    env.reset()
    rng = np.random.default_rng(1)
    for _ in _play(env, rng):
        for agent in env.agents:
            assert 0 <= env.infos[agent]["goal"] <= 100
    # the game ended by the rules: both terminated, no truncation
    assert env.agents == []


def test_final_rewards_follow_goals(name):
    env = load(name).raw_env()
    rng = np.random.default_rng(2)
    for game in range(3):
        env.reset(seed=game)
        totals = {a: 0.0 for a in env.possible_agents}
        goals = None
        for agent in env.agent_iter():
            _, _, term, trunc, info = env.last()
            if term or trunc:
                goals = goals or {a: env.infos[a]["goal"] for a in env.agents}
                totals[agent] = env._cumulative_rewards[agent]
                env.step(None)
                continue
            env.step(sample_action(env.observe(agent)["action_mask"], rng))
        gw, gb = goals["white"], goals["black"]
        expected = float(np.sign(gw - gb))
        assert totals == {"white": expected, "black": -expected}
        # after every agent is done (infos emptied), the outcome still names the goals
        out = env.outcome()
        assert out.goals == {"white": gw, "black": gb}
        assert out.winner == ("white" if gw > gb else "black" if gb > gw else None)


@pytest.mark.parametrize("bad", [1.0, 2.5, "3", None, True, np.float32(1)])
def test_non_integer_action_raises_value_error(name, bad):
    env = load(name).raw_env()
    env.reset()
    state = env.get_state()
    with pytest.raises(ValueError, match="integer action id"):
        env.step(bad)
    np.testing.assert_array_equal(env.get_state()[1], state[1])


def test_out_of_range_action(name):
    raw = load(name).raw_env()
    raw.reset()
    for a in (-1, raw.num_actions, np.int64(raw.num_actions + 5)):
        with pytest.raises(ValueError, match="out of range"):
            raw.step(a)
    wrapped = load(name).env()
    wrapped.reset()
    with pytest.raises(AssertionError, match="not in action space"):
        wrapped.step(raw.num_actions)


def test_numpy_integer_actions_are_accepted(name):
    env = load(name).raw_env()
    env.reset()
    a = env.legal_actions()[0]
    for typed in (np.int64(a), np.int32(a), np.array(a), np.uint16(a)):
        env.reset()
        env.step(typed)
        assert env.get_state()[1][2] == 1  # one action applied


def test_illegal_action_through_env_ends_the_game(name):
    env = load(name).env()
    env.reset()
    mask = env.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    mover = env.agent_selection
    EnvLogger.mqueue.clear()
    env.step(illegal)
    assert any("Illegal move" in m for m in EnvLogger.mqueue)
    assert all(env.terminations.values())
    assert env._cumulative_rewards[mover] == -1
    other = next(a for a in env.possible_agents if a != mover)
    assert env._cumulative_rewards[other] == 0


def test_step_after_the_end(name):
    env = load(name).raw_env()
    env.reset()
    rng = np.random.default_rng(4)
    for _ in _play(env, rng):
        pass
    # every agent stepped out with None; a further step is an error that says so
    with pytest.raises(RuntimeError, match="call reset"):
        env.step(0)
    wrapped = load(name).env()
    wrapped.reset()
    for _ in _play(wrapped, rng):
        pass
    EnvLogger.mqueue.clear()
    wrapped.step(None)  # PettingZoo's OrderEnforcingWrapper: a warning, nothing else
    assert any("step() called after all agents are terminated" in m for m in EnvLogger.mqueue)


def test_dead_agent_must_step_with_none(name):
    env = load(name).raw_env(max_steps=1)
    env.reset()
    env.step(int(env.legal_actions()[0]))
    assert all(env.truncations.values()) or all(env.terminations.values())
    with pytest.raises(ValueError, match="None"):
        env.step(0)


def test_max_steps_truncates(name):
    env = load(name).raw_env(max_steps=3)
    env.reset()
    rng = np.random.default_rng(7)
    steps = 0
    for _obs in _play(env, rng):
        steps += 1
        assert steps <= 3
    assert steps == 3


@pytest.mark.parametrize("bad", [0, -2, 1.5, "10", True])
def test_bad_max_steps(name, bad):
    with pytest.raises(ValueError, match="max_steps"):
        load(name).raw_env(max_steps=bad)


def test_bad_render_mode(name):
    with pytest.raises(ValueError, match="render_mode"):
        load(name).raw_env(render_mode="human3d")


def test_ansi_render(name):
    env = load(name).raw_env(render_mode="ansi")
    env.reset()
    text = env.render()
    k = env.kernel
    assert len(text.splitlines()) == k.H + 1
    assert text.splitlines()[0].lstrip().startswith(str(k.H))


def test_set_state_round_trip(name):
    env = load(name).raw_env()
    env.reset()
    rng = np.random.default_rng(8)
    gen = _play(env, rng)
    for _ in range(5):
        next(gen)
    state = env.get_state()
    mask = env.observe(env.agent_selection)["action_mask"]
    other = load(name).raw_env()
    other.set_state(state)
    assert other.agent_selection == env.agent_selection
    np.testing.assert_array_equal(other.observe(other.agent_selection)["action_mask"], mask)
    with pytest.raises(ValueError, match="state must be"):
        other.set_state((state[0][:-1], state[1]))


@pytest.mark.parametrize(
    "x", [0, 5, 9999, 10_000, -1, np.int64(5), np.int32(-1), np.array(7), np.array([7]), 3.0, "3", None]
)
def test_action_space_contains_answers_as_gymnasium_does(x):
    from gymnasium.spaces import Discrete

    from ggpzoo.envs.base import ActionSpace

    assert ActionSpace(10_000).contains(x) == Discrete(10_000).contains(x)
    assert isinstance(ActionSpace(10_000), Discrete) and ActionSpace(10_000) == Discrete(10_000)


def test_bool_actions_fail_clearly_through_env(name):
    from ggpzoo.envs.base import ActionSpace

    assert not ActionSpace(10).contains(True) and not ActionSpace(10).contains(np.bool_(False))
    env = load(name).env()
    env.reset()
    with pytest.raises(AssertionError, match="not in action space"):
        env.step(True)


def test_action_space_refuses_huge_ints():
    # gymnasium 1.4 answers False; 1.2 (what Ray pins) raises OverflowError. Ours: False.
    from ggpzoo.envs.base import ActionSpace

    assert not ActionSpace(10_000).contains(2**70)


# One env class for every game: a hand-written game's and a GDL sheet's raw_env share GGPEnv's
# checks, copies and outcome (a sheet keeps its state in its machine).
EVERY_KIND = ["skirmish_v0", "amazons_split_v0", "gdl:tictactoe", "gdl:rps_fold"]


@pytest.mark.parametrize("game", EVERY_KIND)
def test_every_game_is_one_env_class(game):
    import copy

    from ggpzoo.envs import spec
    from ggpzoo.envs.base import GGPEnv, TurnParallelEnv

    s = spec(game)
    raw = s.raw_env()
    assert isinstance(raw, GGPEnv) and isinstance(s.parallel_env(), TurnParallelEnv)
    assert raw.game_spec.agents == s.agents and raw.possible_agents == list(s.agents)
    for early in (raw.outcome, lambda: raw.explain_illegal(0), lambda: raw.parse_move("1")):
        with pytest.raises(RuntimeError, match="no game yet: call reset"):
            early()
    with pytest.raises(ValueError, match="seed must be None or an integer"):
        raw.reset(seed="1")
    raw.reset(seed=3)
    start = raw.get_state()
    raw.set_state(raw.checked_state(start))  # what get_state gives, checked, plays on
    legal = raw.legal_actions()
    mask = raw.observe(raw.agent_selection)["action_mask"]
    assert np.flatnonzero(mask).tolist() == legal.tolist()
    for bad in np.flatnonzero(mask == 0)[:1]:  # rock-paper-scissors has no illegal move at the start
        reason = re.escape(raw.explain_illegal(bad))
        with pytest.raises(ValueError, match=rf"action {bad} = .* is illegal for {raw.agent_selection}: {reason}"):
            raw.step(int(bad))
    twin = copy.deepcopy(raw)  # an independent game in the same position
    twin.step(int(legal[0]))
    assert np.array_equal(raw.observe(raw.agent_selection)["action_mask"], mask)
    assert twin.agent_selection != raw.agent_selection or twin.at_turn_start() != raw.at_turn_start()
    while not raw.is_game_over():
        raw.step(int(raw.legal_actions()[-1]))
    out = raw.outcome()
    assert out.goals == {a: raw.infos[a]["goal"] for a in raw.possible_agents}
    assert out.termination == "rules" and out.steps > 0
    paid = {a: (1.0 if a == out.winner else -1.0) if out.winner else 0.0 for a in raw.possible_agents}
    assert raw.rewards == paid
