"""The engine layer and the game specs: dispatch, layering, one home for each game's facts.

Sections: the specs against the envs built from them, the kernel dispatch against the direct
kernel calls, Gymnasium's vector vocabulary on VectorGames, and the architecture's rules
(what the engine imports; no game named outside its folder).
"""

from __future__ import annotations

import ast
import io
import pathlib
import tokenize

import numpy as np
import pytest
from helpers import random_states

from ggpzoo.engine import VectorGames, dispatch
from ggpzoo.engine.batch import play_games as play
from ggpzoo.envs import SPECS, load, spec
from ggpzoo.envs.gamespec import GameSpec

NAMES = list(SPECS)
PACKAGE = pathlib.Path(__file__).resolve().parents[1] / "ggpzoo"


# ----------------------------------------------------------------------------- specs
@pytest.mark.parametrize("name", NAMES)
def test_the_env_is_built_from_its_spec(name):
    s = spec(name)
    assert isinstance(s, GameSpec) and s.name == name
    env = load(name).env()
    raw = env.unwrapped
    assert raw.game_spec is s and raw.metadata["name"] == name
    assert raw.kernel is s.kernel and raw.variant == s.variant
    obs_space = env.observation_space("white")
    assert obs_space["observation"].shape == s.obs_shape and obs_space["observation"].dtype == s.obs_dtype
    assert obs_space["action_mask"].shape == (s.num_actions,)
    assert env.action_space("black").n == s.num_actions
    board, aux = s.new_state()
    raw.reset()
    b, a = raw.get_state()
    np.testing.assert_array_equal(board, b)
    np.testing.assert_array_equal(aux, a)
    assert len(raw.move_parts()) == len(raw.decode_action(int(raw.legal_actions()[0])))


@pytest.mark.parametrize("name", NAMES)
def test_training_aids_of_the_spec_work(name):
    s = spec(name)
    env = load(name).raw_env()
    env.reset()
    if s.potential is not None:
        assert s.potential(*env.get_state()) == 0.0  # the starts are symmetric
    if s.reach_planes is not None:
        out = np.zeros((s.height, s.width, 2), np.int8)
        s.reach_planes(env.get_state()[0], 0, out)
        assert out.any()
    wrapper = s.decomposition_wrapper()
    if wrapper is not None:
        wrapped = wrapper(load(name).env())
        wrapped.reset()
        assert wrapped.action_space("white").n == s.num_cells
    assert s.turn_actions in (1, 2)


def test_unknown_names_raise_naming_the_known_ones():
    for bad in ("chess_v0", None, 3, ["amazons_v0"]):
        with pytest.raises(ValueError, match="unknown environment .* known: amazons_v0"):
            spec(bad)
    with pytest.raises(ValueError, match="unknown environment"):
        VectorGames("chess_v0", 2)


def test_specs_are_frozen():
    s = spec("skirmish_v0")
    with pytest.raises(AttributeError):
        s.num_actions = 5
    with pytest.raises(TypeError):
        s.references["x"] = 1


# ----------------------------------------------------------------------------- dispatch
@pytest.mark.parametrize("name", NAMES)
def test_every_dispatcher_matches_the_direct_kernel_call(name):
    s = spec(name)
    k, game = s.kernel, dispatch.kernel_id(s.kernel)
    assert dispatch.KERNELS[game] is k
    board, aux = np.zeros(s.num_cells, np.int8), np.zeros(s.aux_size, np.int32)
    dispatch.init(game, board, aux, s.variant)
    np.testing.assert_array_equal(board, s.new_state()[0])
    out_d, out_k = np.zeros(dispatch.MAX_LEGAL, np.int32), np.zeros(k.MAX_LEGAL, np.int32)
    obs_d, obs_k = np.zeros(s.obs_shape, s.obs_dtype), np.zeros(s.obs_shape, s.obs_dtype)
    for board, aux in random_states(name, games=3, seed=1):
        assert dispatch.is_terminal(game, board, aux) == k.is_terminal(board, aux)
        assert tuple(dispatch.goals(game, board, aux)) == tuple(k.goals(board, aux))
        for role in (0, 1):
            dispatch.observe(game, board, aux, role, obs_d)
            k.observe(board, aux, role, obs_k)
            np.testing.assert_array_equal(obs_d, obs_k)
            reach_d, reach_k = np.zeros((s.height, s.width, 2), np.int8), np.zeros((s.height, s.width, 2), np.int8)
            dispatch.reach_planes(game, board, role, reach_d)
            s.reach_planes(board, role, reach_k)
            np.testing.assert_array_equal(reach_d, reach_k)
            planes = s.num_planes + s.num_feature_planes
            net_in = np.full((s.height, s.width, planes), 7, s.obs_dtype)
            dispatch.net_input(game, board, aux, role, net_in, s.num_planes)
            np.testing.assert_array_equal(net_in[:, :, : s.num_planes], obs_k)
            if s.feature_planes is not None:
                feat_d = np.zeros((s.height, s.width, s.num_feature_planes), s.obs_dtype)
                feat_k = np.zeros_like(feat_d)
                dispatch.feature_planes(game, board, role, feat_d)
                s.feature_planes(board, role, feat_k)
                np.testing.assert_array_equal(feat_d, feat_k)
                np.testing.assert_array_equal(net_in[:, :, s.num_planes :], feat_k)
            else:
                assert s.num_feature_planes == 0
                with pytest.raises(ValueError, match="no feature planes"):
                    dispatch.feature_planes(game, board, role, reach_d)
        if s.potential is not None:
            assert dispatch.potential(game, board, aux) == s.potential(board, aux)
        else:
            with pytest.raises(ValueError, match="no potential"):
                dispatch.potential(game, board, aux)
        view = np.zeros_like(board)
        dispatch.stage_board(game, board, np.zeros(3, np.int32), 0, view)
        np.testing.assert_array_equal(view, board)  # before the last stage: the board itself
        if k.is_terminal(board, aux):
            continue
        n = dispatch.legal_actions(game, board, aux, out_d)
        assert n == k.legal_actions(board, aux, out_k)
        np.testing.assert_array_equal(out_d[:n], out_k[:n])
        b1, a1, b2, a2 = board.copy(), aux.copy(), board.copy(), aux.copy()
        dispatch.apply(game, b1, a1, out_d[n // 2])
        k.apply(b2, a2, out_k[n // 2])
        np.testing.assert_array_equal(b1, b2)
        np.testing.assert_array_equal(a1, a2)


@pytest.mark.parametrize("name", NAMES)
def test_the_game_protocol_matches_the_kernel_calls(name):
    """status/step of a hand-written kernel (empty T and W) are its goals, is_terminal,
    legal_actions and apply."""
    s = spec(name)
    k, game = s.kernel, dispatch.kernel_id(s.kernel)
    T, W = dispatch.NO_TABLES, s.work()  # the product's types: numba compiles no extra copy for the tests
    board, aux = np.zeros(s.num_cells, np.int8), np.zeros(s.aux_size, np.int32)
    assert dispatch.start(game, board, aux, T, W, s.variant) == 0
    np.testing.assert_array_equal(board, s.new_state()[0])
    legal, out_k, goals = np.zeros(k.MAX_LEGAL, np.int32), np.zeros(k.MAX_LEGAL, np.int32), np.zeros(2, np.int64)
    for board, aux in random_states(name, games=2, seed=3):
        n = dispatch.status(game, board, aux, T, W, legal, goals)
        assert tuple(goals) == tuple(k.goals(board, aux))
        if k.is_terminal(board, aux):
            assert n == dispatch.OVER and dispatch.role_legal(game, board, aux, T, W, 0, legal) == 0
            continue
        assert n == k.legal_actions(board, aux, out_k) and legal[:n].tolist() == out_k[:n].tolist()
        role = int(aux[0])
        assert dispatch.role_legal(game, board, aux, T, W, 1 - role, legal) == 0
        assert dispatch.role_legal(game, board, aux, T, W, role, legal) == n
        b1, a1, b2, a2, b3, a3 = board.copy(), aux.copy(), board.copy(), aux.copy(), board.copy(), aux.copy()
        assert dispatch.step(game, b1, a1, T, W, out_k[n // 2]) == 0
        ids = np.zeros(2, np.int64)
        ids[role] = out_k[n // 2]
        assert dispatch.step_joint(game, b3, a3, T, W, ids) == 0
        k.apply(b2, a2, out_k[n // 2])
        for x, y in ((b1, b2), (a1, a2), (b3, b2), (a3, a2)):
            np.testing.assert_array_equal(x, y)


@pytest.mark.parametrize("sheet", ["tictactoe", "connect_four", "rps_fold", "breakthrough"])
def test_the_game_protocol_plays_gdl_sheets_as_the_exact_reasoner(sheet):
    """The PROPNET family (every sheet's network as tables T and one game's work area W)
    plays random games move for move as the exact reasoner: legal actions of the role to
    choose, every role's where several choose, goals, the end; forced moves played through."""
    from ggpzoo import gdl

    g = gdl.load(gdl.game_path(sheet))
    net, exact = g.propnet(), g.machine("exact")
    T, W = net.tables, net.work()
    R, game = len(g.roles), dispatch.kernel_id(dispatch.propnet)
    assert game == dispatch.PROPNET
    board, aux = np.zeros(len(net.fluents), np.int8), np.zeros(dispatch.propnet.AUX_SIZE, np.int32)
    legal, goals = np.zeros(net.max_legal, np.int32), np.zeros(R, np.int64)
    rng = np.random.default_rng(0)
    simultaneous = 0
    for _ in range(3):
        assert dispatch.start(game, board, aux, T, W, 0) == 0
        state = exact.initial()
        while True:  # the exact game with the forced joint moves played through
            if exact.terminal(state) or any(len(m) == 0 for m in exact.legal(state)):
                break
            moves = exact.legal(state)
            if any(len(m) > 1 for m in moves):
                break
            state = exact.next(state, [m[0] for m in moves])
        while True:
            assert frozenset(net.fluents[i] for i in np.flatnonzero(board)) == exact.fluents(state)
            n = dispatch.status(game, board, aux, T, W, legal, goals)
            assert goals.tolist() == [int(x) for x in exact.goals(state)]
            moves = exact.legal(state)
            if n == dispatch.OVER:
                assert exact.terminal(state) or any(len(m) == 0 for m in moves)
                assert aux[0] == -1
                break
            choosers = [r for r in range(R) if len(moves[r]) > 1]
            ids = np.array([m[0] for m in moves], np.int64)
            if n == dispatch.SIMULTANEOUS:
                simultaneous += 1
                assert len(choosers) > 1 and aux[0] == -2
                for r in range(R):
                    m = dispatch.role_legal(game, board, aux, T, W, r, legal)
                    assert legal[:m].tolist() == sorted(moves[r])
                    ids[r] = legal[rng.integers(m)]
                assert dispatch.step_joint(game, board, aux, T, W, ids) == 0
            else:
                assert choosers == [aux[0]] and legal[:n].tolist() == sorted(moves[aux[0]])
                ids[aux[0]] = legal[rng.integers(n)]
                assert dispatch.step(game, board, aux, T, W, ids[aux[0]]) == 0
            state = exact.next(state, list(ids))
            while not exact.terminal(state) and all(len(m) == 1 for m in exact.legal(state)):
                state = exact.next(state, [m[0] for m in exact.legal(state)])
    assert (simultaneous > 0) == (sheet == "rps_fold")


@pytest.mark.parametrize("bad", [-1, len(dispatch.KERNELS), 99])
def test_an_unknown_kernel_id_raises_in_every_dispatcher(bad):
    s = spec("skirmish_v0")
    board, aux = s.new_state()
    out = np.zeros(dispatch.MAX_LEGAL, np.int32)
    obs = np.zeros(s.obs_shape, s.obs_dtype)
    calls = [
        lambda: dispatch.init(bad, board, aux, 0),
        lambda: dispatch.legal_actions(bad, board, aux, out),
        lambda: dispatch.apply(bad, board, aux, 0),
        lambda: dispatch.is_terminal(bad, board, aux),
        lambda: dispatch.goals(bad, board, aux),
        lambda: dispatch.observe(bad, board, aux, 0, obs),
        lambda: dispatch.check_state(bad, board, aux),
        lambda: dispatch.reach_planes(bad, board, 0, obs[:, :, :2]),
    ]
    for call in calls:
        with pytest.raises(ValueError, match="unknown kernel id"):
            call()
    np.testing.assert_array_equal(board, s.new_state()[0])  # nothing was played


def test_a_kernel_without_a_branch_has_no_id():
    with pytest.raises(ValueError, match="has no branch"):
        dispatch.kernel_id(np)


# ----------------------------------------------------------------------------- vector vocabulary
def test_vector_games_speak_gymnasiums_vector_vocabulary():
    from gymnasium.vector import AutoresetMode

    games = VectorGames("mad_bishops_v0", 4)
    assert games.num_envs == 4
    assert games.single_action_space.n == 10_000
    assert games.single_observation_space.shape == (10, 10, 3)
    assert games.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    assert VectorGames("mad_bishops_v0", 4, auto_reset=False).metadata["autoreset_mode"] == AutoresetMode.DISABLED
    with pytest.raises(RuntimeError, match="call reset"):
        games.step(np.zeros(4, np.int64))
    games.reset()
    first = games.boards.copy()
    games.step(games.random_actions(seed=3))
    games.reset(options={"reset_mask": np.array([True, False, True, False])})
    np.testing.assert_array_equal(games.boards[[0, 2]], first[[0, 2]])
    assert (games.auxs[[1, 3], 2] == 1).all()
    with pytest.raises(ValueError, match="bool array"):
        games.reset(np.array([1.0, 0.0, 1.0, 0.0]))


def test_play_checks_its_arguments():
    with pytest.raises(ValueError, match="seed must be an integer"):
        play("skirmish_v0", 2, seed=-1)
    with pytest.raises(ValueError, match="num_games"):
        play("skirmish_v0", -2)


# ----------------------------------------------------------------------------- architecture
def _imports(path: pathlib.Path) -> set[str]:
    tree = ast.parse(path.read_text())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


def test_the_engine_imports_only_the_games_and_itself():
    allowed = (
        "numpy",
        "numba",
        "gymnasium",
        "ggpzoo.engine",
        "ggpzoo.envs",
        "__future__",
        "typing",
        "functools",
        "collections",
        "time",
        "sys",  # the compile notice (warmup.py): its stream, its thread
        "threading",
        "contextlib",
    )
    forbidden = ("ggpzoo.envs.base", "pettingzoo")  # the AEC envs are above the engine
    for path in sorted((PACKAGE / "engine").glob("*.py")):
        for name in _imports(path):
            assert name.startswith(allowed) and not name.startswith(forbidden), f"{path.name} imports {name}"
    for path in [
        PACKAGE / "envs" / "gamespec.py",
        *sorted(PACKAGE.glob("envs/*/spec.py")),
        *sorted(PACKAGE.glob("envs/*/kernel.py")),
    ]:
        assert not any(n.startswith(("pettingzoo", "ggpzoo.wrappers", "ggpzoo.agents")) for n in _imports(path)), path


# Files allowed to name games: each game's folder, the registry and its classic-module shims,
# the dispatch's explicit branches, and the two re-exports of the 0.2.0 import path of
# AmazonsTurnDecomposition.
# ggp/seeds.py maps each game's original GGP sheet to its kernel (fingerprints, move shapes),
# for the GGP player.
NAMING_ALLOWED = {
    "envs/__init__.py",
    "engine/dispatch.py",
    "wrappers/__init__.py",
    "wrappers/turns.py",
    "ggp/seeds.py",
}


def _code_words(path: pathlib.Path) -> set[str]:
    """Identifiers and string literals of ``path``, docstrings and comments left out."""
    text = path.read_text()
    docstrings = set()
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant):
                docstrings.add(body[0].value.lineno)
    words = set()
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type == tokenize.NAME or (tok.type == tokenize.STRING and tok.start[0] not in docstrings):
            words.add(tok.string.lower())
    return words


def test_no_module_outside_a_games_folder_names_a_game():
    # the table interpreter's folder (envs/propnet) holds no game: every compiled sheet runs on it
    families = {p.name for p in (PACKAGE / "envs").iterdir() if (p / "kernel.py").exists()} - {"propnet"}
    words = families | {n.rsplit("_v", 1)[0] for n in NAMES}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.split("/")[:2] in [["envs", f] for f in families] or rel in NAMING_ALLOWED:
            continue
        if rel.startswith("envs/") and rel.removeprefix("envs/").removesuffix(".py") in SPECS:
            continue  # the classic-module shims, ggpzoo/envs/<name>.py
        named = {w for w in _code_words(path) for g in words if g in w}
        assert not named, f"ggpzoo/{rel} names {sorted(named)}"


def test_the_public_dispatchers_check_their_arguments_before_numba():
    """numba does no bounds checks: a short buffer, a state of another size, a bad role or an
    illegal action read and wrote past the arrays (Amazons' opening into 10 slots: SIGSEGV)."""
    s = spec("amazons_v0")
    board, aux = s.new_state()
    T, W = dispatch.NO_TABLES, s.work()
    legal, goals = np.zeros(s.max_legal, np.int32), np.zeros(2, np.int32)
    before = board.copy(), aux.copy()
    bad = [
        (lambda: dispatch.legal_actions(0, board, aux, np.empty(10, np.int32)), "at least 4900"),
        (lambda: dispatch.legal_actions(0, board[:3], aux, legal), "board must have 100"),
        (lambda: dispatch.legal_actions(0, board.astype(np.int64), aux, legal), "board must be int8"),
        (lambda: dispatch.apply(0, board, aux, 10**9), "not one of role 0's"),
        (lambda: dispatch.apply(0, board, aux, -1), "not one of role 0's"),
        (lambda: dispatch.observe(0, board, aux, 5, np.zeros((10, 10, 3), np.float32)), "role must be"),
        (lambda: dispatch.observe(0, board, aux, 0, np.zeros((3, 3, 3), np.float32)), "shape"),
        (lambda: dispatch.status(0, board, aux, T, W, legal[:5], goals), "at least 4900"),
        (lambda: dispatch.step(0, board, aux, T, W, 2**31 - 1), "not one of"),
        (lambda: dispatch.step_joint(0, board, aux, T, W, np.array([10**6, -1], np.int32)), "not one of"),
        (lambda: dispatch.role_legal(0, board, aux, T, W, 7, legal), "role must be"),
        (lambda: dispatch.init(0, board, aux, 9), "variant"),
        (lambda: dispatch.is_terminal(0, np.full(100, 9, np.int8), aux), "bad state"),
    ]
    for call, message in bad:
        with pytest.raises(ValueError, match=message):
            call()
    assert np.array_equal(board, before[0]) and np.array_equal(aux, before[1])
    g = spec("gdl:tictactoe")
    b, a = g.new_state()
    W = g.work()
    assert dispatch.status(dispatch.PROPNET, b, a, g.tables, W, np.zeros(g.max_legal, np.int32), goals) == 9
    with pytest.raises(ValueError, match="not one of"):
        dispatch.step(dispatch.PROPNET, b, a, g.tables, W, 0)  # xplayer's noop: in range, not legal
    with pytest.raises(ValueError, match="W must have"):
        dispatch.step(dispatch.PROPNET, b, a, g.tables, W[:5], 1)
    assert dispatch.step(dispatch.PROPNET, b, a, g.tables, W, 1) == 0
