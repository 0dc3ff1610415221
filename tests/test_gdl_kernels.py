"""ggpzoo's GDL editions of the five games against the hand-written kernels, in lockstep.

Random games are played on the kernel and the sheet through `ggpzoo.engine.machine.machines_agree`
(the sheet compiled, or on the exact reasoner): at every state both must agree on the end (the
sheet's terminal test, or a role with no legal move: the rules every game shares,
docs/games/index.md), both goals, and the legal set of the role in control mapped to the
sheet's moves (the other role has no choice).
"""

from __future__ import annotations

import pytest

from ggpzoo import gdl
from ggpzoo.engine.machine import ArrayMachine, machines_agree
from ggpzoo.envs import spec
from ggpzoo.envs.amazons import kernel as AK
from ggpzoo.gdl.machine import ReasonerMachine
from ggpzoo.gdl.spec import gdl_spec

_GAMES: dict = {}


def game(name):
    if name not in _GAMES:
        _GAMES[name] = gdl.load(gdl.game_path(name))
    return _GAMES[name]


# The GDL edition of each hand-written game, and its env.
ENVS = {
    "amazons": "amazons_v0",
    "amazons_split": "amazons_split_v0",
    "mad_bishops": "mad_bishops_v0",
    "skirmish": "skirmish_v0",
    "skirmish_endgame": "skirmish_endgame_v0",
}


def move_term(name, cells, aux):
    """The GDL move of the kernel action naming ``cells`` (the id formulas of the game pages)."""
    w = 8 if name.startswith("skirmish") else 10
    xy = [v for c in cells for v in (str(c % w + 1), str(c // w + 1))]
    if name == "amazons":
        return ("play", *xy)
    if name == "amazons_split" and aux[AK.PHASE] == 1:
        return ("fire", *xy[2:])  # the fire phase: an action names the firing queen and the arrow's cell
    return ("move", *xy)


def translation(name):
    """``translate(kernel state, role, kernel id) -> the sheet's id`` for `machines_agree`."""
    g = game(name)
    cells = spec(ENVS[name]).action_cells()

    def translate(state, role, a):
        r = g.roles[role]
        return g.action_ids[r][move_term(name, cells[a], state[1])]

    return translate


def other_machine(name, backend):
    key = (name, backend)
    if key not in _GAMES:
        s = gdl_spec(game(name))
        _GAMES[key] = ArrayMachine(s) if backend == "compiled" else ReasonerMachine(s)
    return _GAMES[key]


def play_lockstep(name, n_games, seed, backend="compiled", max_plies=None):
    """Random games on the kernel and the sheet in lockstep (`machines_agree`): over, goals and
    the legal actions mapped to the sheet's moves agree at every state; the joint moves played."""
    kernel = ArrayMachine(ENVS[name], play_forced=True)  # a sheet plays a one-move turn by itself
    return machines_agree(
        kernel,
        other_machine(name, backend),
        games=n_games,
        seed=seed,
        max_steps=max_plies or 10**6,
        translate=translation(name),
    )


@pytest.mark.parametrize(
    "name,n_games", [("amazons_split", 12), ("mad_bishops", 12), ("skirmish", 12), ("skirmish_endgame", 20)]
)
def test_compiled_matches_kernel(name, n_games):
    assert play_lockstep(name, n_games, seed=1) > n_games * 10


@pytest.mark.parametrize(
    "name,plies", [("amazons_split", 60), ("mad_bishops", 40), ("skirmish", 60), ("skirmish_endgame", 59)]
)
def test_exact_matches_kernel(name, plies):
    assert play_lockstep(name, 1, seed=2, backend="exact", max_plies=plies) > 5


def test_amazons_exact_matches_kernel_first_plies():
    """One-action Amazons on the exact path (grounding it is the hard case, see below)."""
    assert play_lockstep("amazons", 1, seed=3, backend="exact", max_plies=3) == 3


def test_amazons_compiled_matches_kernel():
    """One-action Amazons on the compiled path: grounding it (825,090 rule instances) within
    the default limit, the network, and whole random games in lockstep with the kernel."""
    assert play_lockstep("amazons", 3, seed=4) > 3 * 20


def test_amazons_grounding_stops_with_a_clear_message():
    g = gdl.load(gdl.game_path("amazons"), ground_time_limit=1.0)
    with pytest.raises(gdl.GDLError, match="grounding stopped after 1 s"):
        g.machine("compiled")
    # the env's "auto" backend falls back to the exact path
    e = gdl.raw_env(g, backend="auto")
    assert e.backend == "exact"


def test_rules_md_opening_counts_exact():
    """The check figures of the game pages (docs/games/), on the exact reasoner."""

    def count(name, depth):
        g = game(name)
        s = g.initial_state()
        states = [s]
        for _d in range(depth):
            nxt = []
            for st in states:
                mover = next(r for r in g.roles if g.legal(st, r) != ["noop"])
                for mv in g.legal(st, mover):
                    nxt.append(g.next_state(st, {mover: mv, **{r: "noop" for r in g.roles if r != mover}}))
            states = nxt
        return len(states)

    assert count("skirmish", 1) == 14 and count("skirmish", 2) == 196
    assert count("skirmish_endgame", 1) == 6 and count("skirmish_endgame", 2) == 36
    assert count("mad_bishops", 1) == 81
    assert count("amazons_split", 1) == 80
    g = game("amazons_split")
    s = g.next_state(g.initial_state(), {"white": ("move", "4", "1", "4", "5"), "black": "noop"})
    assert len(g.legal(s, "white")) == 32


def test_skirmish_no_move_position():
    """the game pages (docs/games/): white has only pawns at (3,5), (5,4), (6,2); black pawns (3,7), (5,5),
    king (7,7), knight (7,8), black to move: white has no move under the sheet's test."""
    g = game("skirmish")
    cells = [
        ("3", "5", "white", "pawn"),
        ("5", "4", "white", "pawn"),
        ("6", "2", "white", "pawn"),
        ("3", "7", "black", "pawn"),
        ("5", "5", "black", "pawn"),
        ("7", "7", "black", "king"),
        ("7", "8", "black", "knight"),
    ]
    s = frozenset(
        [("cell", *c) for c in cells]
        + [("control", "black"), ("captures", "white", "0"), ("captures", "black", "0"), ("step", "10")]
    )
    assert g.is_terminal(s)
    # with that pawn on (7,2) instead, its push to (7,3) is a move: the game goes on
    s2 = (s - {("cell", "6", "2", "white", "pawn")}) | {("cell", "7", "2", "white", "pawn")}
    assert not g.is_terminal(s2)
