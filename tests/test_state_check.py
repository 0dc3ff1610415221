"""The state check of every kernel (issue 14): reachable states pass, each impossible or
corrupt state is refused with a ValueError naming the problem, and a refused state
changes nothing (``raw_env.set_state``, agents). Also run under ``NUMBA_BOUNDSCHECK=1`` in CI."""

from __future__ import annotations

import numpy as np
import pytest

from ggpzoo.agents import GreedyAgent, MCTSAgent
from ggpzoo.engine import dispatch as kernels
from ggpzoo.engine.batch import VectorGames
from ggpzoo.envs import ENVS, load
from ggpzoo.envs.amazons import kernel as AK
from ggpzoo.envs.mad_bishops import kernel as MK
from ggpzoo.envs.skirmish import kernel as SK
from ggpzoo.envs.state_check import checked_state

NAMES = list(ENVS)


def snapshot(env):
    """Everything a refused call must leave as it was."""
    board, aux = env.get_state()
    return (
        board.tolist(),
        aux.tolist(),
        env.agent_selection,
        list(env.agents),
        dict(env.rewards),
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
        {a: dict(i) for a, i in env.infos.items()},
        env.legal_actions().tolist(),
        np.flatnonzero(env.observe(env.agent_selection)["action_mask"]).tolist(),
    )


# ----------------------------------------------------------------------------- reachable states pass
@pytest.mark.parametrize("name", NAMES)
def test_every_state_of_random_games_passes(name):
    env = load(name).raw_env()
    kernel = env.kernel
    rng = np.random.default_rng(0)
    games = 30 if name == "mad_bishops_v0" else 60
    for _ in range(games):
        env.reset()
        while True:
            board, aux = env.get_state()
            assert kernel.check_state(board, aux) == 0, (name, kernel.check_state_detail(board, aux))
            checked_state((board, aux), kernel, env.variant, name)
            if not env.legal_actions().size:
                break
            env.step(int(rng.choice(env.legal_actions())))


@pytest.mark.parametrize("name", NAMES)
def test_every_state_of_batched_games_passes(name):
    games = VectorGames(name, 64)
    games.reset()
    for t in range(400):
        for i in range(games.num_games):
            assert kernels.check_state(games.game, games.boards[i], games.auxs[i]) == 0
        games.step(games.random_actions(seed=t))
    assert games.pop_results() or name == "mad_bishops_v0"  # games ended and restarted on the way


def test_drawings_pass():
    rows = [".........B"] + ["." * 10] * 7 + ["xx........", "Wx........"]
    for variant in (AK.AMAZONS, AK.SPLIT):
        board, aux = AK.from_string("\n".join(rows), variant)
        assert AK.check_state(board, aux) == 0
        assert aux[AK.STEP] == 3 * (1 + variant)
    board, aux = MK.from_string("\n".join(["B" + "." * 9] + ["." * 10] * 8 + ["." * 9 + "W"]))
    assert MK.check_state(board, aux) == 0


# ----------------------------------------------------------------------------- each problem is named
def amazons(variant=AK.AMAZONS):
    return AK.new_state(variant)


def split_fire():
    board, aux = AK.new_state(AK.SPLIT)
    board[3], board[43] = AK.EMPTY, AK.WHITE  # (4,1) -> (4,5)
    aux[AK.PHASE], aux[AK.FIRER], aux[AK.STEP] = 1, 43, 1
    return board, aux


def edit(state_fn, fn):
    def make():
        board, aux = state_fn()
        fn(board, aux)
        return board, aux

    return make


AMAZONS_BAD = [
    ("value", edit(amazons, lambda b, a: b.__setitem__(0, 4)), r"cell \(1,1\) holds 4"),
    ("negative value", edit(amazons, lambda b, a: b.__setitem__(5, -1)), r"cell \(6,1\) holds -1"),
    ("white queens", edit(amazons, lambda b, a: b.__setitem__(slice(10, 13), AK.WHITE)), "white has 7 queens"),
    ("black queens", edit(amazons, lambda b, a: b.__setitem__(slice(10, 20), AK.BLACK)), "black has 14 queens"),
    ("role -1", edit(amazons, lambda b, a: a.__setitem__(AK.ROLE, -1)), r"aux\[ROLE\] is -1"),
    ("role 5", edit(amazons, lambda b, a: a.__setitem__(AK.ROLE, 5)), r"aux\[ROLE\] is 5"),
    ("variant", edit(amazons, lambda b, a: a.__setitem__(AK.VARIANT, 2)), r"aux\[VARIANT\] is 2"),
    ("phase in amazons", edit(amazons, lambda b, a: a.__setitem__(AK.PHASE, 1)), r"aux\[PHASE\] is 1"),
    ("phase 2", edit(lambda: amazons(AK.SPLIT), lambda b, a: a.__setitem__(AK.PHASE, 2)), r"aux\[PHASE\] is 2"),
    ("firer in move phase", edit(amazons, lambda b, a: a.__setitem__(AK.FIRER, 3)), r"aux\[FIRER\] is 3"),
    ("firer 5000", edit(split_fire, lambda b, a: a.__setitem__(AK.FIRER, 5000)), r"aux\[FIRER\] is 5000"),
    ("firer not a queen", edit(split_fire, lambda b, a: a.__setitem__(AK.FIRER, 44)), r"firer \(5,5\) holds no queen"),
    ("firer other queen", edit(split_fire, lambda b, a: a.__setitem__(AK.FIRER, 60)), r"firer \(1,7\) holds no queen"),
    ("step vs arrows", edit(amazons, lambda b, a: b.__setitem__(50, AK.ARROW)), "one arrow per action"),
    ("split step", edit(split_fire, lambda b, a: a.__setitem__(AK.STEP, 0)), r"2 \* \(the arrows"),
]


def bishops():
    return MK.new_state()


MAD_BISHOPS_BAD = [
    ("value", edit(bishops, lambda b, a: b.__setitem__(1, 3)), r"cell \(2,1\) holds 3"),
    ("white pieces", edit(bishops, lambda b, a: b.__setitem__(1, MK.WHITE)), "white has 26 pieces"),
    ("black pieces", edit(bishops, lambda b, a: b.__setitem__(1, MK.BLACK)), "black has 26 pieces"),
    ("role", edit(bishops, lambda b, a: a.__setitem__(MK.ROLE, 2)), r"aux\[ROLE\] is 2"),
    ("variant", edit(bishops, lambda b, a: a.__setitem__(MK.VARIANT, 1)), r"aux\[VARIANT\] is 1"),
    ("step", edit(bishops, lambda b, a: a.__setitem__(MK.STEP, -3)), r"aux\[STEP\] is -3"),
]


def skirmish(variant=SK.SKIRMISH):
    return SK.new_state(variant)


def endgame():
    return SK.new_state(SK.ENDGAME)


SKIRMISH_BAD = [
    ("all 127", edit(skirmish, lambda b, a: b.__setitem__(slice(None), 127)), r"cell \(1,1\) holds 127"),
    ("value 14", edit(skirmish, lambda b, a: b.__setitem__(30, 14)), r"cell \(7,4\) holds 14"),
    ("hole filled", edit(skirmish, lambda b, a: b.__setitem__(18, SK.EMPTY)), r"cell \(3,3\) is a hole"),
    ("hole moved", edit(skirmish, lambda b, a: b.__setitem__(30, SK.HOLE)), r"\(7,4\) holds a hole value"),
    ("pawn far rank", edit(skirmish, lambda b, a: b.__setitem__(59, SK.PAWN)), r"far rank at \(4,8\)"),
    ("pawn back rank", edit(skirmish, lambda b, a: b.__setitem__(3, SK.PAWN)), r"back rank at \(4,1\)"),
    ("role", edit(skirmish, lambda b, a: a.__setitem__(SK.ROLE, 7)), r"aux\[ROLE\] is 7"),
    ("variant", edit(skirmish, lambda b, a: a.__setitem__(SK.VARIANT, 3)), r"aux\[VARIANT\] is 3"),
    ("step over limit", edit(skirmish, lambda b, a: a.__setitem__(SK.STEP, 100)), r"aux\[STEP\] is 100"),
    ("endgame step", edit(endgame, lambda b, a: a.__setitem__(SK.STEP, 60)), r"aux\[STEP\] is 60"),
    ("negative step", edit(skirmish, lambda b, a: a.__setitem__(SK.STEP, -1)), r"aux\[STEP\] is -1"),
    ("third knight", edit(skirmish, lambda b, a: b.__setitem__(30, SK.KNIGHT)), "white has 3 pieces of a type"),
    ("second black king", edit(skirmish, lambda b, a: b.__setitem__(30, SK.KING + 6)), "black has 2 pieces of a type"),
    ("queen without promotion", edit(skirmish, lambda b, a: b.__setitem__(30, SK.QUEEN)), "white has 2 pieces"),
    ("king in the endgame", edit(endgame, lambda b, a: b.__setitem__(30, SK.KING)), "white has 1 pieces"),
    (
        "captures vs material",
        edit(skirmish, lambda b, a: (a.__setitem__(SK.STEP, 9), a.__setitem__(SK.WHITE_CAPTURES, 1))),
        r"aux\[WHITE_CAPTURES\] is 1",
    ),
    (
        "negative captures",
        edit(skirmish, lambda b, a: a.__setitem__(SK.BLACK_CAPTURES, -2)),
        r"aux\[BLACK_CAPTURES\] is -2",
    ),
    (
        "captures vs step",
        edit(skirmish, lambda b, a: (b.__setitem__(48, SK.EMPTY), a.__setitem__(SK.WHITE_CAPTURES, 1))),
        r"aux\[WHITE_CAPTURES\] is 1",
    ),
]


def test_a_promoted_queen_is_allowed():
    board, aux = SK.new_state()
    board[8], board[30] = SK.EMPTY, SK.QUEEN  # a pawn gone, a second queen
    assert SK.check_state(board, aux) == 0


CASES = (
    [("amazons_v0", *c) for c in AMAZONS_BAD if "split" not in c[0] and c[0] not in ("phase 2", "firer 5000")]
    + [
        ("amazons_split_v0", *c)
        for c in AMAZONS_BAD
        if "split" in c[0] or c[0] in ("phase 2", "firer 5000", "firer not a queen", "firer other queen")
    ]
    + [("mad_bishops_v0", *c) for c in MAD_BISHOPS_BAD]
    + [("skirmish_v0", *c) for c in SKIRMISH_BAD if "endgame" not in c[0]]
    + [("skirmish_endgame_v0", *c) for c in SKIRMISH_BAD if "endgame" in c[0]]
)


@pytest.mark.parametrize("name, what, make, message", CASES, ids=[f"{c[0]}-{c[1]}" for c in CASES])
def test_bad_state_is_refused_and_changes_nothing(name, what, make, message):
    env = load(name).raw_env()
    env.reset()
    rng = np.random.default_rng(1)
    for _ in range(3):
        env.step(int(rng.choice(env.legal_actions())))
    before = snapshot(env)
    board, aux = make()
    assert env.kernel.check_state(board, aux) != 0
    with pytest.raises(ValueError, match=message):
        env.set_state((board, aux))
    assert snapshot(env) == before
    wrapped = load(name).env()
    wrapped.reset()
    with pytest.raises(ValueError, match=message):
        wrapped.set_state((board, aux))


# ----------------------------------------------------------------------------- types and structure
@pytest.mark.parametrize(
    "state, message",
    [
        (None, "a state is a pair"),
        ((1, 2, 3), "a tuple of length 3"),
        ("board", "got str"),
        ((None, np.zeros(5, np.int32)), "board is None"),
        ((AK.new_state()[0].astype(float) + 0.7, AK.new_state()[1]), r"board\[0\] is 0.7, not a whole number"),
        ((np.full(100, np.nan), AK.new_state()[1]), "is nan, not a whole number"),
        ((AK.new_state()[0].astype(np.int64) + 257, AK.new_state()[1]), r"board\[0\] is 257, outside -128..127"),
        ((AK.new_state()[0], np.array([0, 0, 0, 0, 2**40])), r"aux\[4\] is 1099511627776, outside"),
        ((AK.new_state()[0].astype(bool), AK.new_state()[1]), "must hold integers, got dtype bool"),
        ((["a"] * 100, AK.new_state()[1]), "must hold integers"),
        (([[1, 2], [3]], AK.new_state()[1]), "not an array of numbers|shape"),
        ((AK.new_state()[0].reshape(10, 10), AK.new_state()[1]), r"state must be \(board \(100,\), aux \(5,\)\)"),
        ((SK.new_state()), r"not a amazons_v0 state\?"),
        ((AK.new_state(AK.SPLIT)), r"amazons_v0 plays variant 0"),
    ],
)
def test_state_types_are_checked_not_cast(state, message):
    env = load("amazons_v0").raw_env()
    env.reset()
    before = snapshot(env)
    with pytest.raises(ValueError, match=message):
        env.set_state(state)
    assert snapshot(env) == before


def test_lists_and_other_integer_dtypes_are_converted():
    env = load("skirmish_v0").raw_env()
    env.reset()
    board, aux = env.get_state()
    other = load("skirmish_v0").raw_env()
    other.set_state((board.tolist(), aux.tolist()))
    assert other.get_state()[0].tolist() == board.tolist()
    other.set_state((board.astype(np.int64)[::-1][::-1], aux.astype(np.uint8)))  # any integer dtype, any layout
    other.set_state((board.astype(np.float64), aux.astype(np.float32)))  # whole numbers in floats are fine
    assert other.get_state()[0].dtype == np.int8 and other.get_state()[1].dtype == np.int32


# ----------------------------------------------------------------------------- agents and the dispatch
def test_agents_refuse_corrupt_states():
    board, aux = AK.new_state()
    board[:18] = AK.WHITE  # 20 queens: used to abort the interpreter (free(): invalid next size)
    for agent in (MCTSAgent("amazons_v0", simulations=5), GreedyAgent("amazons_v0")):
        with pytest.raises(ValueError, match="white has 20 queens"):
            agent((board, aux))
    board, aux = SK.new_state()
    board[:] = 127
    with pytest.raises(ValueError, match="holds 127"):
        MCTSAgent("skirmish_v0", simulations=5)((board, aux))


def test_agent_settings_are_checked():
    for kwargs in (
        {"seconds": True},
        {"seconds": float("nan")},
        {"seconds": float("inf")},
        {"max_rollout": 0},
        {"max_rollout": -5},
        {"c": float("nan")},
        {"c": True},
        {"c": "1"},
    ):
        with pytest.raises(ValueError):
            MCTSAgent("skirmish_v0", **kwargs)
    for name in ("chess_v6", "", None):
        with pytest.raises(ValueError):
            MCTSAgent(name)


@pytest.mark.skipif(not __import__("numba").config.BOUNDSCHECK, reason="only with NUMBA_BOUNDSCHECK=1 (CI runs it)")
def test_with_bounds_checks_refused_states_fail_loudly_in_the_kernels():
    """Why the check exists: the kernels themselves index without bounds checks, and the
    states it refuses run off their tables and buffers (a segfault without NUMBA_BOUNDSCHECK)."""
    board, aux = AK.new_state()
    board[:] = AK.EMPTY
    board[::9] = AK.WHITE  # 12 white queens with room to move: more legal ids than MAX_LEGAL
    with pytest.raises(IndexError):
        AK.legal_actions(board, aux, np.zeros(AK.MAX_LEGAL, np.int32))
    board, aux = AK.new_state(AK.SPLIT)
    aux[AK.PHASE], aux[AK.FIRER] = 1, 5000  # a fire phase whose queen is off the board
    with pytest.raises(IndexError):
        AK.legal_actions(board, aux, np.zeros(AK.MAX_LEGAL, np.int32))
    board, aux = SK.new_state()
    board[:] = 127  # no such piece: COLOR[127]
    with pytest.raises(IndexError):
        SK.legal_actions(board, aux, np.zeros(SK.MAX_LEGAL, np.int32))


def test_docstring_example():
    import doctest

    import ggpzoo.envs.state_check as module

    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted and not result.failed


@pytest.mark.parametrize("kernel", [AK, MK, SK])
def test_every_code_has_a_message(kernel):
    """Codes run 0..len(CHECK_MESSAGES) - 1 (the shape code is the last), each message formats."""
    board, aux = kernel.new_state()
    code, _ = kernel.check_state_detail(board[:-1], aux)  # the shape problem: the last code
    assert code == len(kernel.CHECK_MESSAGES) - 1
    for message in kernel.CHECK_MESSAGES[1:]:
        assert message.format(d=5, cell="(1,1)", value=7)
