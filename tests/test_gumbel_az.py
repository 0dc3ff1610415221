"""Gumbel AlphaZero: the search (ggpzoo.agents.gumbel), the network and its files, the agent
specs, and a short training run with resume (ggpzoo.training.az); the same code for
hand-written games and GDL sheets (the tests parametrized over both, then what only a sheet
has: joint moves without a choice, simultaneous moves, three roles)."""

from __future__ import annotations

import collections
import json
import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from ggpzoo.agents import AgentSpecError, make_agent  # noqa: E402
from ggpzoo.agents.gumbel import (  # noqa: E402
    EDGES,
    FIRST_EDGE,
    NROLE,
    TERMINAL,
    GumbelAZAgent,
    GumbelSearch,
    considered_visits,
    improved_policy,
    policy_cells,
)
from ggpzoo.engine.dispatch import start, status, step  # noqa: E402
from ggpzoo.envs import SPECS, load, spec  # noqa: E402
from ggpzoo.envs.amazons import kernel as amazons  # noqa: E402
from ggpzoo.envs.mad_bishops import kernel as mad_bishops  # noqa: E402
from ggpzoo.training.az.net import (  # noqa: E402
    MAX_MODEL_BYTES,
    AZNet,
    GDLAZNet,
    action_logits,
    evaluator,
    load_model,
    network_for,
    save_model,
)
from ggpzoo.training.az.train import AZConfig, ReplayBuffer, train  # noqa: E402
from tests.helpers import random_positions  # noqa: E402

torch.set_num_threads(1)


def uniform(parts: int, cells: int, value: float = 0.0):
    """A network with equal logits everywhere and a constant value."""

    def evaluate(obs):
        return np.zeros((len(obs), parts, cells), np.float32), np.full(len(obs), value, np.float32)

    return evaluate


def noisy(parts: int, cells: int, seed: int, seen: list | None = None):
    rng = np.random.default_rng(seed)

    def evaluate(obs):
        if seen is not None:
            seen.append(obs.copy())
        return rng.normal(size=(len(obs), parts, cells)).astype(np.float32), rng.uniform(-1, 1, len(obs))

    return evaluate


def legal_of(name, board, aux):
    """The legal actions of the role to choose, by the game protocol (any game)."""
    s = spec(name)
    out, goals = np.empty(s.max_legal, np.int32), np.zeros(s.num_roles, np.int64)
    n = status(s.kernel_id, board.copy(), aux.copy(), s.tables, s.work(), out, goals)
    return out[: max(n, 0)]


def protocol_positions(name, count: int, seed: int, max_depth: int = 30):
    """``(boards, auxs)``: ``count`` states where a role chooses, from seeded random play
    through the game protocol (any game)."""
    s = spec(name)
    rng = np.random.default_rng(seed)
    legal, goals = np.zeros(s.max_legal, np.int32), np.zeros(s.num_roles, np.int64)
    boards, auxs = [], []
    while len(boards) < count:
        b, x, w = np.zeros(s.board_size, np.int8), np.zeros(s.aux_size, np.int32), s.work()
        assert start(s.kernel_id, b, x, s.tables, w, s.variant) == 0
        for _ in range(int(rng.integers(0, max_depth))):
            n = status(s.kernel_id, b, x, s.tables, w, legal, goals)
            if n <= 0:
                break
            assert step(s.kernel_id, b, x, s.tables, w, legal[rng.integers(n)]) == 0
        if status(s.kernel_id, b, x, s.tables, w, legal, goals) > 0:
            boards.append(b)
            auxs.append(x)
    return np.stack(boards), np.stack(auxs)


def env_state(name, board, aux):
    """What the env of ``name`` takes in ``set_state``: ``(board, aux)``, a sheet's env its
    compiled fluent vector."""
    return board.astype(np.uint8) if spec(name).game is not None else (board, aux)


# a hand-written game and two sheets: the tests of the one search, agent and training
GAMES = ["skirmish_v0", "gdl:tictactoe", "gdl:connect_four"]


# ----------------------------------------------------------------------------- sequential halving
def test_considered_visits_halves_the_actions():
    # mctx's sequence: 4 actions once each, then the best 2 twice each (16 / (2 * 4) = 2 rounds)
    assert considered_visits(4, 16) == (0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5)
    assert considered_visits(1, 3) == (0, 1, 2)
    assert considered_visits(16, 16) == (0,) * 16


@pytest.mark.parametrize(
    "name", ["skirmish_v0", "amazons_v0", "amazons_split_v0", "mad_bishops_v0", "gdl:tictactoe", "gdl:connect_four"]
)
@pytest.mark.parametrize("simulations", [1, 7, 32])
def test_search_spends_exactly_the_budget_as_sequential_halving_says(name, simulations):
    s = spec(name)
    boards, auxs = protocol_positions(name, 3, seed=simulations)
    search = GumbelSearch(name, noisy(*policy_cells(s)[1], 0), simulations, games=3, seed=1)
    result = search.run(boards, auxs)
    for g, (board, aux) in enumerate(zip(boards, auxs, strict=True)):
        root = search.root(g)
        legal = legal_of(name, board, aux)
        assert root["visits"].sum() == simulations
        assert result.actions[g] in legal
        # the target covers exactly the legal actions and is a distribution
        lo, hi = result.offsets[g], result.offsets[g + 1]
        assert sorted(result.policy_actions[lo:hi]) == sorted(legal)
        assert result.policy_probs[lo:hi].sum() == pytest.approx(1.0)
        # each simulation raised one considered action from the considered count: the
        # number of actions visited more than v times is the number of v's in the sequence
        sequence = collections.Counter(considered_visits(root["considered"], simulations))
        for v in range(simulations):
            assert (root["visits"] > v).sum() == sequence[v], (v, root["visits"][root["visits"] > 0])
        assert root["considered"] == min(16, len(legal))
        # the chosen action is one of the most visited
        chosen = root["visits"][list(root["actions"]).index(result.actions[g])]
        assert chosen == root["visits"].max()


def test_gumbel_top_k_without_noise_considers_the_largest_logits():
    name = "skirmish_v0"
    board, aux = spec(name).new_state()

    def evaluate(obs):  # the logit of an action: its destination cell's number
        logits = np.zeros((len(obs), 2, 64), np.float32)
        logits[:, 1] = np.arange(64)
        return logits, np.zeros(len(obs), np.float32)

    search = GumbelSearch(name, evaluate, simulations=4, max_considered=4, gumbel_scale=0.0)
    search.run(board[None], aux[None])
    root = search.root()
    visited = set(root["actions"][root["visits"] > 0] % 64)
    dests = sorted({int(a) % 64 for a in root["actions"]}, reverse=True)
    assert visited == set(dests[: len(visited)]) and len(visited) >= 2


# ----------------------------------------------------------------------------- finding wins
MATE_IN_ONE = """
. . . . . . . . W .
. . . . . . . . . .
. . . . . W . . . .
. . . . . . . . . .
. . . . . . . . . .
. . . . . B . . . .
. . . . . . . . . .
. . . . . . . . . W
. . W . . . . . . .
. . . . . . . . . .
"""


@pytest.mark.parametrize("seed", range(4))
def test_search_with_a_uniform_network_finds_the_win_in_one(seed):
    board, aux = mad_bishops.from_string(MATE_IN_ONE, role=0)
    legal = legal_of("mad_bishops_v0", board, aux)
    wins = []
    for a in legal:  # the drawing: five moves, one takes black's last piece
        b, x = board.copy(), aux.copy()
        mad_bishops.apply(b, x, a)
        if mad_bishops.is_terminal(b, x):
            wins.append(int(a))
    assert len(legal) == 5 and len(wins) == 1
    search = GumbelSearch("mad_bishops_v0", uniform(2, 100), simulations=16, seed=seed)
    result = search.run(board[None], aux[None])
    assert result.actions[0] == wins[0]
    lo, hi = result.offsets[0], result.offsets[1]
    target = dict(zip(result.policy_actions[lo:hi].tolist(), result.policy_probs[lo:hi], strict=True))
    assert max(target, key=target.get) == wins[0] and target[wins[0]] > 0.5
    # black, to move with the same board, has no win: the search says so
    assert result.root_values[0] > 0


# ----------------------------------------------------------------------------- the policy target
def reference_improved_policy(logits, visits, q, raw, c_visit=50.0, c_scale=0.1):
    """Danihelka et al.'s completed-Q policy, written plainly with numpy."""
    prior = np.exp(logits - logits.max())
    prior /= prior.sum()
    seen = visits > 0
    if seen.any():
        weighted = (prior[seen] * q[seen]).sum() / prior[seen].sum()
        mixed = (raw + visits.sum() * weighted) / (1 + visits.sum())
    else:
        mixed = raw
    completed = np.where(seen, q, mixed)
    completed = (completed - completed.min()) / max(completed.max() - completed.min(), 1e-8)
    sigma = (c_visit + visits.max()) * c_scale * completed
    z = np.exp(logits + sigma - (logits + sigma).max())
    return z / z.sum()


def test_policy_target_equals_the_formula_on_a_hand_built_node():
    logits = np.array([1.0, 0.5, -0.3, 0.0, 2.0])
    visits = np.array([3, 0, 1, 0, 4])
    q = np.array([0.2, 123.0, -0.6, 0.0, 0.5])  # the unvisited Q's are ignored
    got = improved_policy(logits, visits, q, -0.1)
    # by hand: prior p = softmax(logits); mixed = (-0.1 + 8 * (p0*0.2 + p2*-0.6 + p4*0.5)/(p0+p2+p4)) / 9
    p = np.exp(logits) / np.exp(logits).sum()
    mixed = (-0.1 + 8 * (p[0] * 0.2 + p[2] * -0.6 + p[4] * 0.5) / (p[0] + p[2] + p[4])) / 9
    completed = np.array([0.2, mixed, -0.6, mixed, 0.5])
    sigma = (50 + 4) * 0.1 * (completed + 0.6) / 1.1
    expected = np.exp(logits + sigma) / np.exp(logits + sigma).sum()
    np.testing.assert_allclose(got, expected, rtol=1e-9)
    np.testing.assert_allclose(got, reference_improved_policy(logits, visits, q, -0.1), rtol=1e-9)
    # nothing visited: completed Q is the raw value everywhere, and the target is the prior
    np.testing.assert_allclose(improved_policy(logits, np.zeros(5, np.int64), q, 0.3), p, rtol=1e-9)


def test_policy_target_of_a_search_equals_the_formula_on_its_root():
    s = spec("skirmish_v0")
    board, aux = random_positions("skirmish_v0", 1, seed=5)[0]
    search = GumbelSearch("skirmish_v0", noisy(2, 64, 3), simulations=24, seed=2)
    result = search.run(board[None], aux[None])
    root = search.root()
    expected = reference_improved_policy(root["logits"], root["visits"], root["q"], root["raw_value"])
    np.testing.assert_allclose(result.policy_probs, expected, rtol=1e-6)
    assert list(result.policy_actions) == list(root["actions"]) and s.num_cells == 64


# ----------------------------------------------------------------------------- values and roles
@pytest.mark.parametrize(
    "name, phase, sign",
    [
        ("amazons_split_v0", "move", +1),  # white moves, then white fires: the same side
        ("amazons_split_v0", "fire", -1),  # white fires, then black moves
        ("amazons_v0", "move", -1),  # a whole turn: then black moves
    ],
)
def test_a_childs_value_counts_for_the_role_that_acts_there(name, phase, sign):
    s = spec(name)
    board, aux = s.new_state()
    if phase == "fire":
        amazons.apply(board, aux, legal_of(name, board, aux)[0])
        assert aux[amazons.ROLE] == 0 and aux[amazons.PHASE] == 1
    # every evaluated state is worth +0.5 to the role to act there; four simulations
    # visit four root actions once each
    search = GumbelSearch(name, uniform(len(s.action_parts), 100, 0.5), simulations=4, max_considered=4, seed=0)
    result = search.run(board[None], aux[None])
    root = search.root()
    assert (root["visits"] > 0).sum() == 4
    np.testing.assert_allclose(root["q"][root["visits"] > 0], sign * 0.5)
    assert result.root_values[0] == pytest.approx((0.5 + 4 * sign * 0.5) / 5)


# ----------------------------------------------------------------------------- the factored head
@pytest.mark.parametrize("name", sorted(SPECS))
def test_an_actions_logit_is_the_sum_of_its_parts(name):
    s = spec(name)
    torch.manual_seed(0)
    net = AZNet(name, channels=8, blocks=1).eval()
    env = load(name).raw_env()
    rng = np.random.default_rng(0)
    for board, aux in random_positions(name, 3, seed=1):
        search = GumbelSearch(name, evaluator(net), simulations=1)
        search.run(board[None], aux[None])
        root = search.root()
        env.set_state((board, aux))
        obs = env.observe(env.agent_selection)["observation"]
        with torch.no_grad():
            part_logits = net(torch.as_tensor(obs[None]))[0][0].numpy()
        for i in rng.choice(len(root["actions"]), size=min(20, len(root["actions"])), replace=False):
            a = int(root["actions"][i])
            # the cells from the env's own decoding, not from the spec's table
            cells = [(y - 1) * s.width + (x - 1) for x, y in env.decode_action(a)]
            assert len(cells) == len(s.action_parts)
            expected = sum(part_logits[p, c] for p, c in enumerate(cells))
            assert root["logits"][i] == pytest.approx(expected, abs=1e-5)
            got = action_logits(
                torch.as_tensor(part_logits[None]), torch.zeros(1, dtype=torch.long), torch.as_tensor([cells])
            )
            assert float(got[0]) == pytest.approx(expected, abs=1e-5)


# ----------------------------------------------------------------------------- feature planes
@pytest.mark.parametrize("name", sorted(SPECS))
def test_the_network_reads_the_feature_planes_after_the_observation(name, tmp_path):
    s = spec(name)
    if not s.num_feature_planes:
        with pytest.raises(ValueError, match="has no feature planes"):
            AZNet(name, channels=4, blocks=0, features=1)
        with pytest.raises(ValueError, match="has no feature planes"):
            GumbelSearch(name, uniform(len(s.action_parts), s.num_cells), features=True)
        return
    net = AZNet(name, channels=4, blocks=0, features=1).eval()
    assert net.input_shape == (s.height, s.width, s.num_planes + s.num_feature_planes)
    assert AZNet(name, channels=4, blocks=0).input_shape == s.obs_shape
    loaded = load_model(save_model(net, str(tmp_path / "f")), name)
    assert loaded.config["features"] == 1 and loaded.input_shape == net.input_shape
    seen = []

    def evaluate(obs):
        seen.append(obs.copy())
        return uniform(len(s.action_parts), s.num_cells)(obs)

    env = load(name).raw_env()
    for board, aux in random_positions(name, 2, seed=3):
        seen.clear()
        GumbelSearch(name, evaluate, simulations=1, features=True).run(board[None], aux[None])
        env.set_state((board, aux))
        planes = seen[0][0]  # the root, seen by the role to act
        np.testing.assert_array_equal(planes[:, :, : s.num_planes], env.observe(env.agent_selection)["observation"])
        features = np.zeros((s.height, s.width, s.num_feature_planes), s.obs_dtype)
        s.feature_planes(board, int(aux[0]), features)
        np.testing.assert_array_equal(planes[:, :, s.num_planes :], features)
        for simulations in (0, 2):
            agent = GumbelAZAgent(name, loaded, simulations=simulations, seed=0)
            assert agent((board, aux)) in env.legal_actions()
    bad = json.loads((tmp_path / "f.json").read_text())
    bad["arguments"]["features"] = 2
    (tmp_path / "g.json").write_text(json.dumps(bad))
    (tmp_path / "g.pt").write_bytes((tmp_path / "f.pt").read_bytes())
    with pytest.raises(ValueError, match="features must be an integer in 0..1"):
        load_model(str(tmp_path / "g.json"))


def test_training_uses_the_feature_planes_when_the_game_has_them(tmp_path):
    s = spec("amazons_split_v0")
    config = dict(env=s.name, simulations=2, games=2, channels=4, blocks=0, batch_size=8, min_buffer=4, max_moves=6)
    for features, planes in ((None, s.num_planes + s.num_feature_planes), (False, s.num_planes)):
        out = str(tmp_path / str(features))
        train(AZConfig(**config, features=features), minutes=0.01, out=out, progress=False)
        model = load_model(os.path.join(out, "model.json"), s.name)
        assert model.input_shape[2] == planes
        buffer = ReplayBuffer(100, model.input_shape, s.obs_dtype)
        buffer.load(os.path.join(out, "buffer.npz"))  # positions of the same shape
        # a resumed run keeps the checkpoint's choice, whatever the config says
        train(AZConfig(**config, features=not model.config.get("features")), minutes=0.01, out=out, resume=True,
              progress=False)  # fmt: skip
        assert load_model(os.path.join(out, "model.json")).input_shape[2] == planes


# ----------------------------------------------------------------------------- files
def test_save_and_load_round_trip_with_plain_weights(tmp_path):
    net = AZNet("amazons_v0")
    path = save_model(net, str(tmp_path / "m"), step=7)
    assert os.path.getsize(tmp_path / "m.pt") < MAX_MODEL_BYTES  # a default network fits a shipped baseline
    loaded = load_model(path, "amazons_v0")
    assert loaded.info["step"] == 7
    obs = torch.as_tensor(np.random.default_rng(0).integers(0, 2, (2, 10, 10, 3)), dtype=torch.int8)
    with torch.no_grad():
        for a, b in zip(net(obs), loaded(obs), strict=True):
            torch.testing.assert_close(a, b)
    # the weights are plain tensors: weights_only loads them
    state = torch.load(tmp_path / "m.pt", weights_only=True)
    assert all(isinstance(v, torch.Tensor) for v in state.values())
    with pytest.raises(ValueError, match="not of 'skirmish_v0'"):
        load_model(path, "skirmish_v0")


class _Planted:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.makedirs, (self.marker,))


def test_a_pickle_planted_in_the_weights_is_refused(tmp_path):
    path = save_model(AZNet("skirmish_v0", channels=4, blocks=0), str(tmp_path / "m"))
    marker = tmp_path / "ran"
    torch.save({"stem.weight": _Planted(str(marker))}, tmp_path / "m.pt")
    with pytest.raises(ValueError, match="not a plain weights file"):
        load_model(path)
    assert not marker.exists()
    d = json.loads((tmp_path / "m.json").read_text())
    (tmp_path / "m.json").write_text(json.dumps(d | {"weights": "../m.pt"}))
    with pytest.raises(ValueError, match="file name next to the description"):
        load_model(path)
    (tmp_path / "m.json").write_text(json.dumps(d | {"arguments": {"channels": 4096, "blocks": 1000}}))
    with pytest.raises(ValueError, match="channels must be an integer in 0..256"):
        load_model(path)  # refused before anything is built
    (tmp_path / "m.json").write_text(json.dumps(d | {"format": "ggpzoo-policy-1"}))
    with pytest.raises(ValueError, match="not a model description"):
        load_model(path)


# ----------------------------------------------------------------------------- agent specs
def test_agent_specs(tmp_path, monkeypatch):
    import ggpzoo.baselines

    monkeypatch.setattr(ggpzoo.baselines, "DIRECTORY", str(tmp_path))  # a package with no baselines
    no_baseline = r"no baseline network is shipped for skirmish_v0.*python -m ggpzoo\.training\.az --env skirmish_v0"
    with pytest.raises(AgentSpecError, match=no_baseline):
        make_agent("baseline:32", "skirmish_v0")
    for text, message in [
        ("baseline:abc", "search budget is a positive number"),
        ("baseline:0", "search budget is a positive number"),
        ("az:", "give the network's description"),
        ("az:/nonexistent/model.json", "no such model file"),
        ("az:/nonexistent/model.json:16", "no such model file: /nonexistent/model.json"),
    ]:
        with pytest.raises(AgentSpecError, match=message):
            make_agent(text, "skirmish_v0")
    path = save_model(AZNet("skirmish_v0", channels=4, blocks=1), str(tmp_path / "net"))
    with pytest.raises(AgentSpecError, match="a model of 'skirmish_v0', not of 'mad_bishops_v0'"):
        make_agent(f"az:{path}", "mad_bishops_v0")
    alone, searching = make_agent(f"az:{path}", "skirmish_v0"), make_agent(f"az:{path}:8", "skirmish_v0", seed=1)
    assert isinstance(alone, GumbelAZAgent) and (alone.simulations, searching.simulations) == (0, 8)
    assert searching.name == f"az:{path}:8"
    # a shipped baseline is found by the env's name
    save_model(AZNet("skirmish_v0", channels=4, blocks=1), str(tmp_path / "skirmish_v0"))
    assert ggpzoo.baselines.available() == ["skirmish_v0"]
    env = load("skirmish_v0").raw_env()
    env.reset()
    for text in ("baseline", "baseline:4", "baseline:0.05s"):
        agent = make_agent(text, "skirmish_v0", seed=0)
        assert agent.act(env) in env.legal_actions()
    assert make_agent("baseline:0.05s", "skirmish_v0").seconds == 0.05


def test_a_budget_in_seconds_sizes_the_search_to_the_time(tmp_path):
    """``seconds``: the first move measures on 8 simulations, later moves run as many as the
    measured time per simulation fits (more for a larger budget), always a legal move."""
    from ggpzoo.agents.gumbel import _budget_size

    path = save_model(AZNet("skirmish_endgame_v0", channels=4, blocks=1), str(tmp_path / "net"))
    env = load("skirmish_endgame_v0").raw_env()
    env.reset(seed=0)
    quick = GumbelAZAgent("skirmish_endgame_v0", path, seconds=0.001, seed=0)
    slow = GumbelAZAgent("skirmish_endgame_v0", path, seconds=1.0, seed=0)
    assert (quick.name, slow.seconds, slow.simulations) == ("az:0.001s", 1.0, 0)
    for _ in range(3):
        for agent in (quick, slow):
            assert agent(env.get_state()) in env.legal_actions()
        env.step(int(env.legal_actions()[0]))
    assert quick.last_search["simulations"] <= 8 < slow.last_search["simulations"]
    assert [_budget_size(n) for n in (1, 7, 8, 9, 12, 16, 10**9)] == [1, 7, 8, 8, 11, 16, 9975792]
    for bad in (0, -1, 1e9, float("nan"), True):
        with pytest.raises(ValueError, match="seconds must be a number in"):
            GumbelAZAgent("skirmish_endgame_v0", path, seconds=bad)
    with pytest.raises(ValueError, match="simulations or as seconds, not both"):
        GumbelAZAgent("skirmish_endgame_v0", path, simulations=4, seconds=1.0)


def test_the_search_scale_comes_with_the_model(tmp_path):
    net = AZNet("amazons_v0", channels=4, blocks=1)
    trained = save_model(net, str(tmp_path / "a"), c_scale=1.0)
    assert GumbelAZAgent("amazons_v0", trained, simulations=4).search.c_scale == 1.0
    assert GumbelAZAgent("amazons_v0", trained, simulations=4, c_scale=0.5).search.c_scale == 0.5
    older = save_model(net, str(tmp_path / "b"))  # a model saved before c_scale was recorded
    assert GumbelAZAgent("amazons_v0", older, simulations=4).search.c_scale == 0.1
    for bad in ("1", True, -1.0, float("nan")):
        with pytest.raises(ValueError, match="c_scale must be a positive number"):
            GumbelAZAgent("amazons_v0", save_model(net, str(tmp_path / "c"), c_scale=bad), simulations=4)
    # the reason amazons_v0 trains with 1.0: over thousands of actions and 16 visited, 0.1
    # leaves the policy target at the prior, 1.0 moves it onto the best visited action
    n = 2000
    logits, visits, q = np.zeros(n), np.zeros(n, np.int32), np.zeros(n)
    visits[:16], q[:16] = 1, np.linspace(-1, 1, 16)
    assert improved_policy(logits, visits, q, 0.0, c_scale=0.1)[15] < 0.01
    assert improved_policy(logits, visits, q, 0.0, c_scale=1.0)[15] > 0.9


def test_the_shipped_baselines_load_as_plain_weights_and_play():
    """Every shipped network: a description, weights that torch reads with
    weights_only=True, under 5 MB, for its own env, and an agent that plays legal moves."""
    import os

    import torch

    import ggpzoo.baselines

    shipped = ggpzoo.baselines.available()
    assert "skirmish_endgame_v0" in shipped
    for name in shipped:
        path = ggpzoo.baselines.baseline_path(name)
        weights = path[: -len(".json")] + ".pt"
        assert os.path.getsize(weights) < MAX_MODEL_BYTES
        torch.load(weights, weights_only=True)  # tensors only
        assert load_model(path, name).env_name == name
        env = load(name).raw_env()
        env.reset(seed=0)
        for spec_text in ("baseline", "baseline:8"):
            agent = make_agent(spec_text, name, seed=0)
            for _ in range(3):
                action = agent.act(env)
                assert action in env.legal_actions()
                env.step(action)


# ----------------------------------------------------------------------------- training
def test_a_short_training_run_resumes(tmp_path):
    config = AZConfig(
        env="skirmish_endgame_v0", simulations=4, games=4, channels=8, blocks=1, batch_size=32,
        min_buffer=16, max_moves=12, eval_games=2, checkpoint_minutes=1, eval_minutes=1,
    )  # fmt: skip
    train(config, minutes=0.001, out=str(tmp_path / "warm"), progress=False)  # numba compiles outside the clock
    out = str(tmp_path / "run")
    first = train(config, minutes=0.05, out=out, progress=False)
    assert first["step"] > 0 and first["games"] > 0
    model = load_model(os.path.join(out, "model.json"), "skirmish_endgame_v0")
    assert model.info["step"] == first["step"]
    assert sorted(os.listdir(os.path.join(out, "snapshots"))) == ["min000.json", "min000.pt"]
    assert load_model(os.path.join(out, "snapshots", "min000.json")).info["step"] == first["step"]
    s = spec("skirmish_endgame_v0")
    saved = ReplayBuffer(config.buffer_size, s.obs_shape, s.obs_dtype)
    saved.load(os.path.join(out, "buffer.npz"))
    assert 0 < len(saved) <= first["positions"]
    second = train(config, minutes=0.05, out=out, resume=True, progress=False)
    kept = ReplayBuffer(config.buffer_size, s.obs_shape, s.obs_dtype)
    kept.load(os.path.join(out, "buffer.npz"))  # the resumed run went on from the saved buffer
    n = len(saved)
    assert len(kept) > n and np.array_equal(kept.obs[:n], saved.obs[:n]) and np.array_equal(kept.z[:n], saved.z[:n])
    assert second["step"] > first["step"] and second["positions"] > first["positions"]
    assert second["seconds"] > first["seconds"]
    assert 0 < first["cpu_seconds"] < second["cpu_seconds"]  # CPU time counts on across the resume
    rows = (tmp_path / "run" / "log.csv").read_text().splitlines()
    assert rows[0].startswith("step,positions") and len(rows) >= 3
    last = dict(zip(rows[0].split(","), rows[-1].split(","), strict=True))
    assert int(last["step"]) == second["step"] and 0 <= float(last["net_vs_random"]) <= 1
    assert float(last["cpu_seconds"]) == round(second["cpu_seconds"], 1)
    with pytest.raises(ValueError, match="trains 'skirmish_endgame_v0', not 'skirmish_v0'"):
        train(AZConfig(env="skirmish_v0"), minutes=0.01, out=out, resume=True, progress=False)
    # a run into the folder of another, without --resume, is refused before it writes
    before = {f: os.path.getmtime(os.path.join(out, f)) for f in os.listdir(out)}
    with pytest.raises(ValueError, match=r"holds a run already: add --resume to train it more, or give another --out"):
        train(config, minutes=0.01, out=out, progress=False)
    assert {f: os.path.getmtime(os.path.join(out, f)) for f in os.listdir(out)} == before


def test_the_replay_buffer_saves_and_loads_in_order(tmp_path):
    full = ReplayBuffer(5, (2,), np.int8)
    for i in range(7):  # a ring that wrapped: positions 2..6 remain, oldest at index 2
        full.add(np.array([i, -i]), np.arange(i % 3 + 1), np.full(i % 3 + 1, 1 / (i % 3 + 1)), float(i))
    full.save(tmp_path / "b.npz")
    back = ReplayBuffer(5, (2,), np.int8)
    back.load(tmp_path / "b.npz")
    assert back.z.tolist() == [2, 3, 4, 5, 6] and back.obs[:, 0].tolist() == [2, 3, 4, 5, 6]
    assert [a.tolist() for a in back.actions] == [np.arange(i % 3 + 1).tolist() for i in range(2, 7)]
    smaller = ReplayBuffer(3, (2,), np.int8)  # keeps the newest
    smaller.load(tmp_path / "b.npz")
    assert sorted(smaller.z.tolist()) == [4, 5, 6] and len(smaller) == 3
    with pytest.raises(ValueError, match="another shape"):
        ReplayBuffer(5, (3,), np.int8).load(tmp_path / "b.npz")
    as_planes = ReplayBuffer(5, (1, 1, 2), np.int8)  # a sheet's older buffer: observation vectors
    as_planes.load(tmp_path / "b.npz")
    assert as_planes.obs[:, 0, 0, 0].tolist() == [2, 3, 4, 5, 6]
    empty = ReplayBuffer(4, (2,), np.int8)
    empty.save(tmp_path / "e.npz")
    back.load(tmp_path / "e.npz")
    assert len(back) == 0


def test_command_line(tmp_path, capsys):
    from ggpzoo.training.az.__main__ import main

    with pytest.raises(SystemExit) as e:
        main(["--env", "chess_v9", "--minutes", "1", "--out", str(tmp_path)])
    assert e.value.code == 2 and "unknown env 'chess_v9'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--env", "skirmish_v0", "--minutes", "0", "--out", str(tmp_path)])
    assert "not a positive finite number" in capsys.readouterr().err
    assert main(["--env", "skirmish_v0", "--minutes", "1", "--out", str(tmp_path / "none"), "--resume"]) == 2
    assert "no checkpoint at" in capsys.readouterr().err


def test_the_self_play_benchmark_runs(monkeypatch, capsys):
    import runpy

    script = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "gumbel_selfplay.py")
    argv = ["gumbel_selfplay.py", "--env", "skirmish_endgame_v0", "--games", "2", "--simulations", "2"]
    argv += ["--seconds", "0.3"]
    monkeypatch.setattr("sys.argv", argv)
    runpy.run_path(script, run_name="__main__")
    out = capsys.readouterr().out
    assert out.startswith("skirmish_endgame_v0: ") and "positions/s" in out


def test_the_ladder_says_what_is_wrong_with_its_run_folder(tmp_path):
    import runpy

    ladder = runpy.run_path(os.path.join(os.path.dirname(__file__), "..", "benchmarks", "az_ladder.py"))
    missing = str(tmp_path / "runs" / "az" / "skirmish_v0")
    with pytest.raises(SystemExit, match=f"--run {missing}: no such folder"):
        ladder["main"](["--env", "skirmish_v0", "--run", missing])
    with pytest.raises(SystemExit, match=f"--run {tmp_path}: the folder holds no snapshots/minNNN.json"):
        ladder["main"](["--env", "skirmish_v0", "--run", str(tmp_path)])


def test_the_ladder_rates_snapshots_and_plots(tmp_path, capsys, monkeypatch):
    import runpy

    config = AZConfig(env="skirmish_endgame_v0", simulations=2, games=2, channels=8, blocks=1, batch_size=16,
                      min_buffer=8, max_moves=10, eval_games=2)  # fmt: skip
    out = str(tmp_path / "run")
    train(config, minutes=0.02, out=out, progress=False)
    os.rename(os.path.join(out, "snapshots", "min000.json"), os.path.join(out, "snapshots", "min005.json"))
    train(config, minutes=0.02, out=out, resume=True, progress=False)  # a second snapshot, min000
    script = os.path.join(os.path.dirname(__file__), "..", "benchmarks", "az_ladder.py")
    ladder = runpy.run_path(script)
    assert [m for m, _ in ladder["snapshots"](out)] == [0, 5]
    argv = ["--env", "skirmish_endgame_v0", "--run", out, "--games", "2", "--simulations", "2"]
    argv += ["--anchors", "random,greedy,mcts:4,mcts:8", "--json", str(tmp_path / "ladder.json")]
    assert ladder["main"](argv) == 0
    data = json.loads((tmp_path / "ladder.json").read_text())
    assert data["minutes"] == {"0min": 0, "5min": 5, "5min+2": 5}
    played = {(p["agent"], p["opponent"]) for p in data["pairs"]}
    assert played == {
        ("random", "greedy"), ("greedy", "mcts:4"), ("mcts:4", "mcts:8"),
        ("random", "0min"), ("greedy", "0min"), ("mcts:4", "0min"),
        ("greedy", "5min"), ("mcts:4", "5min"), ("0min", "5min"),
        ("mcts:4", "5min+2"), ("mcts:8", "5min+2"), ("5min", "5min+2"),
    }  # fmt: skip
    assert all(p["games"] == 2 for p in data["pairs"]) and "rank" in capsys.readouterr().out
    pytest.importorskip("matplotlib")
    assert ladder["main"](["--plot", str(tmp_path / "ladder.json"), "--out", str(tmp_path / "ladder.png")]) == 0
    assert (tmp_path / "ladder.png").stat().st_size > 1000
    monkeypatch.chdir(tmp_path)  # by default the plot goes under runs/, not over the docs' pictures
    assert ladder["main"](["--plot", str(tmp_path / "ladder.json")]) == 0
    assert (tmp_path / "runs" / "ladder" / "ladder.png").stat().st_size > 1000


# ----------------------------------------------------------------------------- every two-role game
@pytest.mark.parametrize("name", GAMES)
def test_the_roots_input_is_the_envs_observation_of_the_role_to_act(name):
    s = spec(name)
    boards, auxs = protocol_positions(name, 4, seed=3)
    seen: list = []
    search = GumbelSearch(name, noisy(*policy_cells(s)[1], 1, seen), simulations=6, games=4, seed=2)
    search.run(boards, auxs)
    env = s.raw_env()
    env.reset()
    for g in range(4):
        env.set_state(env_state(name, boards[g], auxs[g]))
        observed = env.observe(env.agent_selection)["observation"]
        assert seen[0][g].shape == s.planes_shape
        np.testing.assert_array_equal(seen[0][g].reshape(observed.shape), observed)
        assert search.root(g)["visits"].sum() == 6


@pytest.mark.parametrize("name", GAMES)
def test_a_saved_model_plays_legal_moves_in_the_arena(name, tmp_path):
    from ggpzoo.tools.arena import round_robin

    torch.manual_seed(0)
    net = network_for(name, 8, blocks=1)
    assert isinstance(net, AZNet if len(spec(name).obs_shape) == 3 else GDLAZNet)
    path = save_model(net, str(tmp_path / "m"), c_scale=0.1)
    loaded = load_model(path, name)
    assert loaded.input_shape == net.input_shape and loaded.env_name == name
    agents = [
        make_agent(f"az:{path}", name, seed=0),
        make_agent(f"az:{path}:8", name, seed=1),
        make_agent("random", name, seed=2),
    ]
    assert isinstance(agents[1], GumbelAZAgent) and agents[1].simulations == 8
    result = round_robin(name, agents, games=2, progress=False)  # an illegal move is an ArenaError
    assert len(result.games) == 6 and all(r.length > 0 for r in result.games)


@pytest.mark.parametrize("name", GAMES)
def test_the_agent_alone_plays_the_legal_action_of_the_largest_logit(name):
    s = spec(name)
    torch.manual_seed(1)
    net = network_for(name, 8, blocks=0).eval()
    agent = GumbelAZAgent(name, net, simulations=0)
    cells = policy_cells(s)[0]
    boards, auxs = protocol_positions(name, 3, seed=4)
    env = s.raw_env()
    env.reset()
    for b, x in zip(boards, auxs, strict=True):
        env.set_state(env_state(name, b, x))
        obs = env.observe(env.agent_selection)["observation"]
        with torch.no_grad():
            logits = net(torch.as_tensor(obs[None]))[0][0].numpy()
        legal = legal_of(name, b, x)
        scores = [sum(logits[p, cells[a, p]] for p in range(cells.shape[1])) for a in legal]
        assert agent.act(env) == legal[int(np.argmax(scores))]
    over_b, over_x = boards[0].copy(), auxs[0].copy()
    w, out, goals = s.work(), np.zeros(s.max_legal, np.int32), np.zeros(2, np.int64)
    while status(s.kernel_id, over_b, over_x, s.tables, w, out, goals) > 0:
        step(s.kernel_id, over_b, over_x, s.tables, w, out[0])
    with pytest.raises(ValueError, match="game is over"):
        agent((over_b, over_x))
    with pytest.raises(ValueError, match="is over: there is nothing to search"):
        GumbelSearch(name, noisy(*policy_cells(s)[1], 0), simulations=2).run(over_b[None], over_x[None])
    with pytest.raises(ValueError, match="holds 1 games"):
        GumbelSearch(name, noisy(*policy_cells(s)[1], 0), simulations=2).run(boards[:2], auxs[:2])


def test_the_training_loop_trains_a_sheet_resumes_and_plays(tmp_path, capsys):
    """The hand-written games' run: test_a_short_training_run_resumes."""
    from ggpzoo.tools.cli import main

    name = "gdl:tictactoe"
    s = spec(name)
    out = str(tmp_path / "run")
    config = AZConfig(
        env=name, simulations=4, games=8, min_buffer=8, batch_size=16, channels=16, blocks=1, eval_games=4,
        max_moves=20,
    )  # fmt: skip
    train(config, minutes=0.001, out=str(tmp_path / "warm"), progress=False)  # numba compiles outside the clock
    first = train(config, minutes=0.04, out=out, progress=False)
    assert first["step"] >= 1 and first["games"] >= 1
    d = json.load(open(f"{out}/model.json"))
    assert d["env"] == name and d["network"] == ("AZNet" if len(s.obs_shape) == 3 else "GDLAZNet")
    assert ("fingerprint" in d) == (s.game is not None)
    net = load_model(f"{out}/model.json", name)
    assert net.input_shape[:2] == s.planes_shape[:2]
    buffer = ReplayBuffer(100, net.input_shape, s.obs_dtype)
    buffer.load(f"{out}/buffer.npz")
    assert len(buffer) > 0
    rows = open(f"{out}/log.csv").read().splitlines()
    last = dict(zip(rows[0].split(","), rows[-1].split(","), strict=True))
    assert 0 <= float(last["net_vs_random"]) <= 1 and 0 <= float(last["net_vs_greedy"]) <= 1
    again = train(AZConfig(env=name, simulations=4, games=8), minutes=0.03, out=out, resume=True, progress=False)
    assert again["step"] > first["step"] and again["positions"] > first["positions"]
    assert json.load(open(f"{out}/model.json"))["arguments"] == d["arguments"]
    assert main(["arena", "--env", name, "--agents", f"az:{out}/model.json:4,random", "--games", "2"]) == 0
    assert "az:" in capsys.readouterr().out


def test_the_greedy_measure_is_greedy_choice_through_the_protocol():
    """net_score's greedy opponent, written on the game protocol, picks what the engine's
    greedy_choice picks in the hand-written games (the same ties drawn the same way)."""
    from ggpzoo.engine.policies import greedy_choice
    from ggpzoo.training.az.train import _greedy

    for name in ("mad_bishops_v0", "amazons_split_v0", "skirmish_endgame_v0"):
        s = spec(name)
        boards, auxs = protocol_positions(name, 20, seed=5, max_depth=60)
        for b, x in zip(boards, auxs, strict=True):
            legal = legal_of(name, b, x)
            n = len(legal)
            bb, xx = np.zeros_like(b), np.zeros_like(x)
            w, goals, scratch = np.zeros(0, np.int32), np.zeros(2, np.int64), np.zeros(s.max_legal, np.int32)
            want = greedy_choice(s.kernel_id, b, x, legal, n, np.uint64(12345), bb, xx)
            got = _greedy(s.kernel_id, s.tables, w, b, x, legal, n, np.uint64(12345), bb, xx, goals, scratch)
            assert (int(got[0]), int(got[1])) == (int(want[0]), int(want[1]))


# ----------------------------------------------------------------------------- what only a sheet has
# Tic-tac-toe whose ground network has a positive cycle: evaluated by full passes instead
# of change propagation (the other code path of the network).
CYCLIC_EXTRA = """
(<= (linked 1) (true (control xplayer)))
(<= (linked 1) (linked 2))
(<= (linked 2) (linked 1))
(<= terminal (line x) (linked 1))
"""

# White picks at steps 0 and 2, black at 3 and 5; steps 1 and 4 are pauses where both roles
# play noop (joint moves without a choice), so white chooses twice in a row between them.
# The second picks decide: 2 beats 1; white wins if its step-2 pick beats black's step-5 pick.
PAUSES = """
(role white) (role black)
(succ 0 1) (succ 1 2) (succ 2 3) (succ 3 4) (succ 4 5) (succ 5 6)
(turn 0 white) (turn 2 white) (turn 3 black) (turn 5 black)
(pick 1) (pick 2)
(<= (input ?r (pick ?n)) (role ?r) (pick ?n))
(<= (input ?r noop) (role ?r))
(init (step 0))
(<= (legal ?r (pick ?n)) (true (step ?s)) (turn ?s ?r) (pick ?n))
(<= (legal ?r noop) (role ?r) (true (step ?s)) (not (turn ?s ?r)))
(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
(<= (next (picked ?r ?s ?n)) (true (step ?s)) (does ?r (pick ?n)))
(<= (next (picked ?r ?s ?n)) (true (picked ?r ?s ?n)))
(<= terminal (true (step 6)))
(<= (goal white 100) (true (picked white 2 2)) (true (picked black 5 1)))
(<= (goal white 0) (true (picked white 2 1)) (true (picked black 5 2)))
(<= (goal white 50) (true (picked white 2 ?n)) (true (picked black 5 ?n)))
(<= (goal white 50) (not terminal))
(<= (goal black 100) (goal white 0))
(<= (goal black 0) (goal white 100))
(<= (goal black 50) (goal white 50))
"""

RPS = """
(role left) (role right)
(beats rock scissors) (beats scissors paper) (beats paper rock)
(<= (input ?r ?m) (role ?r) (beats ?m ?x))
(init (round 1))
(<= (legal ?r ?m) (role ?r) (true (round 1)) (beats ?m ?x))
(<= (next (round 2)) (true (round 1)))
(<= terminal (true (round 2)))
(<= (goal ?r 50) (role ?r))
"""

# One round where only left chooses, then one where both choose at once.
TURN_THEN_SIMULTANEOUS = """
(role left) (role right)
(move a) (move b) (move noop)
(succ 1 2) (succ 2 3)
(<= (input ?r ?m) (role ?r) (move ?m))
(init (step 1))
(<= (legal left a) (true (step 1)))
(<= (legal left b) (true (step 1)))
(<= (legal right noop) (true (step 1)))
(<= (legal ?r a) (role ?r) (true (step 2)))
(<= (legal ?r b) (role ?r) (true (step 2)))
(<= (next (step ?y)) (true (step ?x)) (succ ?x ?y))
(<= terminal (true (step 3)))
(<= (goal ?r 50) (role ?r))
"""


def sheet(text: str, name: str):
    from ggpzoo import gdl

    return spec(gdl.load(text, name=name))


def sheet_state(s, fluents):
    """``(board, aux)`` of sheet ``s`` where exactly ``fluents`` hold (through its env)."""
    env = s.raw_env()
    env.reset()
    env.set_state(fluents)
    return env.get_state().astype(np.int8), np.zeros(s.aux_size, np.int32)


def tictactoe(s, rows: str, to_move: str):
    """A state from three rows of ``x``, ``o``, ``.``, top row y = 1, columns x = 1..3."""
    marks = [line.split() for line in rows.strip().splitlines()]
    fl = [f"(cell {x + 1} {y + 1} {'b' if m == '.' else m})" for y, row in enumerate(marks) for x, m in enumerate(row)]
    return sheet_state(s, fl + [f"(control {to_move})"])


def term(s, role, action):
    return s.raw_env().action_to_term(int(action), role=role)


@pytest.mark.parametrize("cyclic", [False, True])
@pytest.mark.parametrize(
    "rows,to_move,move",
    [
        ("x x .\no o .\n. . .", "xplayer", "(mark 3 1)"),  # x wins in one
        ("o o .\nx . .\n. . x", "xplayer", "(mark 3 1)"),  # x blocks o's row
        ("x . .\no o .\nx x .", "oplayer", "(mark 3 2)"),  # o wins rather than block x's bottom row
        ("x x .\n. o .\n. . .", "oplayer", "(mark 3 1)"),  # o blocks x's row
    ],
)
def test_a_uniform_network_with_enough_simulations_wins_and_blocks_on_a_sheet(cyclic, rows, to_move, move):
    from ggpzoo import gdl

    s = spec("gdl:tictactoe")
    if cyclic:
        with open(gdl.game_path("tictactoe")) as f:
            s = sheet(f.read() + CYCLIC_EXTRA, "tictactoe_cyclic")
    assert s.network.incremental == (not cyclic)  # both ways of evaluating the network
    b, x = tictactoe(s, rows, to_move)
    search = GumbelSearch(s, uniform(1, s.num_actions), simulations=200, games=3, seed=0)
    result = search.run(np.stack([b] * 3), np.stack([x] * 3))  # three trees, three draws of the Gumbel noise
    for t in range(3):
        assert term(s, to_move, result.actions[t]) == move
        root = search.root(t)
        best = root["q"][list(root["actions"]).index(result.actions[t])]
        assert best == root["q"][root["visits"] > 0].max()


def test_the_search_plays_a_sheets_forced_moves_through_and_each_node_is_its_movers():
    """Every node of the trees is the state its path reaches with the pauses played, its
    role the one with a choice there, its edges that role's legal ids; and the search finds
    the winning second pick across a pause and a turn of its own in a row."""
    from ggpzoo.gdl.propnet import CompiledMachine

    s = sheet(PAUSES, "pauses")
    machine = CompiledMachine(s.game)
    roles = list(s.agents)
    first_state = machine.initial()
    search = GumbelSearch(s, noisy(1, s.num_actions, 0), simulations=64, games=2, seed=1)
    zeros = np.zeros((2, s.aux_size), np.int32)
    search.run(np.stack([first_state, first_state]).astype(np.int8), zeros)
    checked = {"white": 0, "black": 0, "terminal": 0, "pauses": 0}

    def walk(t, node, state):
        if search.nodes[t, node, TERMINAL]:
            assert machine.terminal(state)
            checked["terminal"] += 1
            return
        legal = machine.legal(state)
        choosers = [r for r in range(2) if len(legal[r]) > 1]
        assert choosers == [search.nodes[t, node, NROLE]]
        mover = choosers[0]
        checked[roles[mover]] += 1
        first, n = search.nodes[t, node, FIRST_EDGE], search.nodes[t, node, EDGES]
        assert list(search.e_action[first : first + n]) == list(legal[mover])
        for e in range(first, first + n):
            child = search.e_child[e]
            if child < 0:
                continue
            ids = [int(m[0]) for m in legal]
            ids[mover] = int(search.e_action[e])
            nxt = machine.next(state, ids)
            while not machine.terminal(nxt) and all(len(m) == 1 for m in machine.legal(nxt)):
                nxt = machine.next(nxt, [int(m[0]) for m in machine.legal(nxt)])  # the pause
                checked["pauses"] += 1
            walk(t, child, nxt)

    for t in range(2):
        walk(t, 0, first_state)
    assert min(checked.values()) > 0, checked
    # white to pick at step 2 (after its step-0 pick and the pause): 2 draws at worst, 1 loses
    b, x = sheet_state(s, ["(step 2)", "(picked white 0 1)"])
    two = s.raw_env().term_to_action("(pick 2)", role="white")
    for seed in range(3):
        result = GumbelSearch(s, uniform(1, s.num_actions), simulations=32, seed=seed).run(b[None], x[None])
        assert result.actions[0] == two
        assert result.root_values[0] == pytest.approx(0.0, abs=0.35)  # a draw with best play


def test_simultaneous_moves_and_other_role_counts_are_refused(tmp_path, capsys):
    from ggpzoo.training.az.__main__ import main as az_main

    rps = sheet(RPS, "rps")
    b, x = rps.new_state()
    with pytest.raises(ValueError, match=r"^gdl:rps: several roles choose at once \(a simultaneous move\)"):
        GumbelSearch(rps, uniform(1, rps.num_actions), simulations=4).run(b[None], x[None])
    later = sheet(TURN_THEN_SIMULTANEOUS, "later")
    b, x = later.new_state()
    search = GumbelSearch(later, uniform(1, later.num_actions), simulations=4)
    with pytest.raises(ValueError, match="gdl:later: .*simultaneous.*one role chooses at a time"):
        search.run(b[None], x[None])  # left chooses; the tree meets both choosing
    three = sheet(RPS.replace("(role right)", "(role right) (role third)"), "three")
    with pytest.raises(ValueError, match="two-role games; gdl:three has 3 roles"):
        GumbelSearch(three, uniform(1, three.num_actions))
    path = tmp_path / "three.kif"
    path.write_text(RPS.replace("(role right)", "(role right) (role third)"))
    with pytest.raises(ValueError, match="two-role games"):
        train(AZConfig(env=f"gdl:{path}"), minutes=0.01, out=str(tmp_path / "run"))
    rps_path = tmp_path / "rps.kif"
    rps_path.write_text(RPS)
    with pytest.raises(ValueError, match="simultaneous"):
        train(AZConfig(env=f"gdl:{rps_path}", games=2), minutes=0.01, out=str(tmp_path / "run"))
    from ggpzoo.training.az.train import net_score

    with pytest.raises(ValueError, match="gdl:rps: .*simultaneous"):  # not a game that never moves
        net_score(network_for(rps, 8, blocks=0), rps, "random", 2)
    with pytest.raises(SystemExit):
        az_main(["--env", f"gdl:{path}", "--minutes", "1", "--out", str(tmp_path / "run")])
    assert "a two-role game is needed" in capsys.readouterr().err
    assert az_main(["--env", f"gdl:{rps_path}", "--minutes", "1", "--out", str(tmp_path / "run"), "--quiet"]) == 2
    assert "simultaneous" in capsys.readouterr().err


def test_a_model_of_a_sheet_by_relative_path_loads_from_anywhere(tmp_path, monkeypatch):
    import shutil

    from ggpzoo import gdl

    (tmp_path / "sheets").mkdir()
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(gdl.game_path("tictactoe"), tmp_path / "sheets" / "mine.kif")
    monkeypatch.chdir(tmp_path)
    path = save_model(GDLAZNet("gdl:sheets/mine.kif", width=8, blocks=0), "m")
    monkeypatch.chdir(tmp_path / "elsewhere")  # the relative path no longer reads the sheet
    net = load_model(str(tmp_path / path))
    assert net.env_name == f"gdl:{tmp_path / 'sheets' / 'mine.kif'}"
    assert make_agent(f"az:{tmp_path / path}", "gdl:../sheets/mine.kif").spec.sheet == "mine"
    # a shipped sheet, given by its path, is stored by its name
    assert GDLAZNet(f"gdl:{gdl.game_path('tictactoe')}", width=8, blocks=0).env_name == "gdl:tictactoe"


def test_az_agent_refusals_between_games(tmp_path):
    ttt = save_model(GDLAZNet("gdl:tictactoe", width=8, blocks=0), str(tmp_path / "ttt"))
    with pytest.raises(AgentSpecError, match="is a model of 'gdl:tictactoe', another sheet than connect_four"):
        make_agent(f"az:{ttt}", "gdl:connect_four")
    kernel = save_model(AZNet("skirmish_v0", 4, 0), str(tmp_path / "k"))
    with pytest.raises(AgentSpecError, match="is a model of 'skirmish_v0', not of 'gdl:tictactoe'"):
        make_agent(f"az:{kernel}", "gdl:tictactoe")
    with pytest.raises(AgentSpecError, match="is a model of 'gdl:tictactoe', not of 'skirmish_v0'"):
        make_agent(f"az:{ttt}", "skirmish_v0")
    with pytest.raises(ValueError, match="the model plays 'skirmish_v0', not of 'gdl:tictactoe'"):
        GumbelAZAgent("gdl:tictactoe", AZNet("skirmish_v0", 4, 0))
    with pytest.raises(AgentSpecError, match="az:runs/az/gdl_tictactoe/model.json"):
        make_agent("az:model.pt", "gdl:tictactoe")
    with pytest.raises(ValueError, match="GDLAZNet reads an observation vector"):
        GDLAZNet("skirmish_v0")
    with pytest.raises(ValueError, match="AZNet reads observation planes"):
        AZNet("gdl:tictactoe")
    agent = GumbelAZAgent("gdl:tictactoe", ttt)
    with pytest.raises(ValueError, match="not a state of gdl:tictactoe"):
        agent(np.zeros(3, np.uint8))
    with pytest.raises(TypeError, match="takes a game state"):
        GumbelAZAgent("skirmish_v0", kernel)(np.zeros(64, np.int8))  # a kernel's state needs its aux
    with pytest.raises(ValueError, match="no feature planes"):
        train(AZConfig(env="gdl:tictactoe", features=True), minutes=0.01, out=str(tmp_path / "run"))


def test_the_old_gdl_names_warn_and_give_the_one_tool():
    from ggpzoo.agents import gdl_gumbel
    from ggpzoo.training.az import gdl as az_gdl
    from ggpzoo.training.az.train import SelfPlay, net_score

    with pytest.warns(DeprecationWarning, match="use ggpzoo.agents.gumbel.GumbelSearch"):
        assert gdl_gumbel.GDLGumbelSearch is GumbelSearch
    with pytest.warns(DeprecationWarning, match="GumbelAZAgent"):
        assert gdl_gumbel.GDLGumbelAZAgent is GumbelAZAgent
    with pytest.warns(DeprecationWarning, match="SelfPlay"):
        assert az_gdl.GDLSelfPlay is SelfPlay
    with pytest.warns(DeprecationWarning, match="net_score"):
        assert az_gdl.gdl_net_score is net_score


def test_a_log_of_an_older_run_keeps_its_columns(tmp_path):
    """A run resumed from a log.csv written before a column was added appends rows with the
    file's own columns (a CSV stays rectangular)."""
    from ggpzoo.training.az.train import _write_row

    path = tmp_path / "log.csv"
    path.write_text("step,positions,games,seconds\n1,2,3,4.0\n")
    _write_row(str(path), {"step": 5, "positions": 6, "games": 7, "seconds": 8.0, "cpu_seconds": 9.0})
    assert path.read_text().splitlines() == ["step,positions,games,seconds", "1,2,3,4.0", "5,6,7,8.0"]
    fresh = tmp_path / "new.csv"
    _write_row(str(fresh), {"step": 1, "cpu_seconds": 2.5})
    header, row = fresh.read_text().splitlines()
    assert header.split(",")[:5] == ["step", "positions", "games", "seconds", "cpu_seconds"]
    assert row.split(",")[:5] == ["1", "", "", "", "2.5"]
