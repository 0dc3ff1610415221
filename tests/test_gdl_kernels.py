"""ggpzoo's GDL editions of the five games against the hand-written kernels, in lockstep.

Random games are played on the kernel; at every step the GDL game (compiled path on every
step, exact path on the first game of each test) must agree: the terminal test (the
sheet's, or a role with no legal move: the rules every game shares, docs/games/index.md),
both goals, and the legal set of the role in control mapped to kernel ids (the other
role's only move is ``noop``).
"""

from __future__ import annotations

import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.envs.amazons import kernel as AK
from ggpzoo.envs.mad_bishops import kernel as MK
from ggpzoo.envs.skirmish import kernel as SK
from ggpzoo.gdl.syntax import to_text

_GAMES: dict = {}


def game(name):
    if name not in _GAMES:
        _GAMES[name] = gdl.load(gdl.game_path(name))
    return _GAMES[name]


def machine(name, backend):
    key = (name, backend)
    if key not in _GAMES:
        _GAMES[key] = game(name).machine(backend)
    return _GAMES[key]


def _cell(x, y, w):
    return (int(y) - 1) * w + (int(x) - 1)


def kernel_id(name, term, aux):
    """The kernel action id of the GDL move ``term`` (the id formulas of the game pages)."""
    if name == "amazons":
        assert term[0] == "play"
        x1, y1, x2, y2, x3, y3 = term[1:]
        src, dst, arrow = _cell(x1, y1, 10), _cell(x2, y2, 10), _cell(x3, y3, 10)
        assert AK.BASE[src, dst] >= 0
        return int(AK.BASE[src, dst]) + int(AK.QPOS[dst, arrow])
    if name == "amazons_split" and term[0] == "fire":
        return int(aux[AK.FIRER]) * 100 + _cell(term[1], term[2], 10)
    assert term[0] == "move", term
    w = 8 if name.startswith("skirmish") else 10
    return _cell(term[1], term[2], w) * w * w + _cell(term[3], term[4], w)


KERNELS = {
    "amazons": (AK, AK.AMAZONS),
    "amazons_split": (AK, AK.SPLIT),
    "mad_bishops": (MK, 0),
    "skirmish": (SK, SK.SKIRMISH),
    "skirmish_endgame": (SK, SK.ENDGAME),
}


def _check_state(name, K, board, aux, m, state, legal_buf):
    """Compare one state; return (kernel legal ids, map kernel id -> GDL id) or None at the end."""
    g = m.game
    over = bool(K.is_terminal(board, aux))
    term = m.terminal(state)
    legal = None if term else m.legal(state)
    gdl_over = term or any(len(l) == 0 for l in legal)
    assert gdl_over == over, f"{name}: terminal {gdl_over} (GDL) vs {over} (kernel)"
    kg = tuple(int(v) for v in K.goals(board, aux))
    assert tuple(int(v) for v in m.goals(state)) == kg, f"{name}: goals differ"
    if over:
        return None
    role = int(aux[0])
    n = K.legal_actions(board, aux, legal_buf)
    kl = sorted(int(a) for a in legal_buf[:n])
    mine = g.roles[role]
    other = g.roles[1 - role]
    mapping = {kernel_id(name, g.actions[mine][int(i)], aux): int(i) for i in legal[role]}
    assert sorted(mapping) == kl, f"{name}: legal sets differ"
    assert [to_text(g.actions[other][int(i)]) for i in legal[1 - role]] == ["noop"]
    return kl, mapping, role, legal


def play_lockstep(name, n_games, seed, backend="compiled", max_plies=None):
    K, variant = KERNELS[name]
    m = machine(name, backend)
    rng = np.random.default_rng(seed)
    board = np.zeros(K.H * K.W, np.int8)
    aux = np.zeros(K.AUX_SIZE, np.int32)
    buf = np.zeros(K.MAX_LEGAL, np.int32)
    plies = 0
    for _ in range(n_games):
        K.init(board, aux, variant)
        state = m.initial()
        for _ in range(max_plies or 10**6):
            got = _check_state(name, K, board, aux, m, state, buf)
            if got is None:
                break
            kl, mapping, role, legal = got
            a = kl[int(rng.integers(len(kl)))]
            joint = [int(l[0]) for l in legal]
            joint[role] = mapping[a]
            K.apply(board, aux, a)
            state = m.next(state, joint)
            plies += 1
    return plies


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
