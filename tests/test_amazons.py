"""Amazons and Amazons (split turns): the rules on docs/games/amazons_v0.md and amazons_split_v0.md.

Positions are drawn with ``kernel.from_string``: rows from y = 10 down to y = 1, ``W``/``B``
queens, ``x`` arrows, ``.`` empty.

Sections, in the order every game's test file keeps: a plain-Python reference written from
docs/games/amazons_v0.md alone, start and perft, legal actions, apply, terminal and goals, observation
planes, illegal-action reasons, the action-id contract, random games against the
reference. PettingZoo's api_test and seed_test run for every env in tests/test_api.py.
"""

import numpy as np
import pytest

from ggpzoo.envs import amazons_split_v0, amazons_v0
from ggpzoo.envs.amazons import kernel as K
from ggpzoo.utils import sample_action

QUEEN_DIRS = [(1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1), (1, -1), (-1, 1)]


def at(env, x, y):
    return env.get_state()[0][(y - 1) * 10 + (x - 1)]


def load(env_module, rows, role=0):
    env = env_module.raw_env()
    variant = env.variant
    env.set_state(K.from_string(rows, variant, role))
    return env


def slide(board, x, y):
    """Cells a queen at (x, y) reaches over empty cells, from docs/games/amazons_v0.md, in plain Python."""
    for dx, dy in QUEEN_DIRS:
        cx, cy = x + dx, y + dy
        while 1 <= cx <= 10 and 1 <= cy <= 10 and board[(cy - 1) * 10 + cx - 1] == K.EMPTY:
            yield cx, cy
            cx, cy = cx + dx, cy + dy


def reference_actions(board, aux):
    """The legal actions as cell tuples, written straight from docs/games/amazons_v0.md."""
    piece = K.WHITE + aux[K.ROLE]
    board = [int(v) for v in board]
    if aux[K.VARIANT] == K.SPLIT and aux[K.PHASE] == 1:
        f = int(aux[K.FIRER])
        fx, fy = f % 10 + 1, f // 10 + 1
        return {((fx, fy), t) for t in slide(board, fx, fy)}
    actions = set()
    for c in range(100):
        if board[c] != piece:
            continue
        src = (c % 10 + 1, c // 10 + 1)
        for dst in slide(board, *src):
            if aux[K.VARIANT] == K.SPLIT:
                actions.add((src, dst))
                continue
            after = list(board)
            after[c] = K.EMPTY
            after[(dst[1] - 1) * 10 + dst[0] - 1] = piece
            actions.update((src, dst, arrow) for arrow in slide(after, *dst))
    return actions


# ----------------------------------------------------------------------------- start and perft
def test_opening_counts():
    env = amazons_v0.raw_env()
    env.reset()
    assert len(env.legal_actions()) == 2176
    assert env.observe("white")["action_mask"].sum() == 2176
    assert env.observe("black")["action_mask"].sum() == 0

    split = amazons_split_v0.raw_env()
    split.reset()
    assert len(split.legal_actions()) == 80
    split.step(split.encode_action((4, 1), (4, 5)))
    assert split.agent_selection == "white" and split.phase == "fire"
    assert len(split.legal_actions()) == 32
    assert {split.decode_action(a)[0] for a in split.legal_actions()} == {(4, 5)}


def test_start_position():
    env = amazons_v0.raw_env()
    env.reset()
    obs = env.observe("white")["observation"]
    white = {(x + 1, y + 1) for y, x in zip(*np.nonzero(obs[:, :, 0]), strict=True)}
    black = {(x + 1, y + 1) for y, x in zip(*np.nonzero(obs[:, :, 1]), strict=True)}
    assert white == {(4, 1), (7, 1), (1, 4), (10, 4)}
    assert black == {(1, 7), (10, 7), (4, 10), (7, 10)}
    assert obs[:, :, 2].sum() == 0
    # from black's side the queen planes swap
    obs_b = env.observe("black")["observation"]
    np.testing.assert_array_equal(obs_b[:, :, 0], obs[:, :, 1])
    np.testing.assert_array_equal(obs_b[:, :, 1], obs[:, :, 0])


# ----------------------------------------------------------------------------- legal actions
OPEN_FILE = """
x x x x x x x x . B
x x x x x x x x x x
x x x x . x x x x x
x x x x . x x x x x
x x x x . x x x x x
x x x x W x x x x x
x x x x . x x x x x
x x x x . x x x x x
x x x x x x x x x x
x x x x x x x x x x
"""


def test_arrow_over_and_onto_the_vacated_origin():
    # White's queen on (5,5) has only the file 5 cells (5,3)..(5,8) to use; black (10,10)
    # keeps one free cell so that the game is not over.
    env = load(amazons_v0, OPEN_FILE)
    legal = {env.decode_action(a) for a in env.legal_actions()}
    assert ((5, 5), (5, 7), (5, 5)) in legal  # onto the origin
    assert ((5, 5), (5, 7), (5, 3)) in legal  # over the origin
    assert ((5, 5), (5, 3), (5, 8)) in legal  # over the origin the other way
    assert ((5, 5), (5, 7), (5, 9)) not in legal  # (5,9) is an arrow
    # every destination d in {3,4,6,7,8}, every other cell of the file as arrow: 5 * 5
    assert len(legal) == 25
    env.step(env.encode_action((5, 5), (5, 7), (5, 3)))
    assert at(env, 5, 5) == K.EMPTY and at(env, 5, 7) == K.WHITE and at(env, 5, 3) == K.ARROW


def test_split_fire_over_and_onto_the_vacated_origin():
    env = load(amazons_split_v0, OPEN_FILE)
    assert {env.decode_action(a) for a in env.legal_actions()} == {((5, 5), (5, y)) for y in (3, 4, 6, 7, 8)}
    env.step(env.encode_action((5, 5), (5, 7)))
    fires = {env.decode_action(a)[1] for a in env.legal_actions()}
    assert fires == {(5, 3), (5, 4), (5, 5), (5, 6), (5, 8)}
    obs = env.observe("white")["observation"]
    assert obs[:, :, 3].all()  # fire phase
    assert obs[6, 4, 4] == 1 and obs[:, :, 4].sum() == 1  # the queen that must fire, (5,7)
    with pytest.raises(ValueError, match=r"must come from the queen that just moved, at \(5,7\)"):
        env.step(env.encode_action((10, 10), (9, 9)))
    env.step(env.encode_action((5, 7), (5, 5)))
    assert at(env, 5, 5) == K.ARROW and env.agent_selection == "black"


# ----------------------------------------------------------------------------- terminal and goals
BOXED = """
. . . B . . B . . .
. . . . . . . . . .
. . . . . . . . . .
B . . . . . . . . B
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . W
. . . . . . . . . .
x x . . . . . . . .
W x . W . . W . . .
"""


def test_a_boxed_queen_has_no_move():
    env = load(amazons_v0, BOXED)  # (1,1) is walled in by arrows on (2,1), (1,2), (2,2)
    sources = {env.decode_action(a)[0] for a in env.legal_actions()}
    assert sources == {(4, 1), (7, 1), (10, 4)}
    split = load(amazons_split_v0, BOXED)
    assert {split.decode_action(a)[0] for a in split.legal_actions()} == {(4, 1), (7, 1), (10, 4)}
    with pytest.raises(ValueError, match=r"queen move \(1,1\)->\(1,3\) is blocked at \(1,2\)"):
        split.step(split.encode_action((1, 1), (1, 3)))


MOVER_STUCK = """
B . x x x x x x x x
x x x x x x x x x x
x x x x x x x x x x
x x x x x x x x x x
x x x x x x x x x x
B x B x B x x x x x
x x x x x x x x x x
W x W x W x x x x x
x x x x x x x x x x
W . . x x x x x x x
"""


def test_game_ends_when_the_side_that_just_moved_is_stuck():
    env = load(amazons_v0, MOVER_STUCK)
    assert env.infos["white"]["goal"] == 0 and env.infos["black"]["goal"] == 0
    assert not any(env.terminations.values())
    # White's last free queen goes to (3,1) and shoots (2,1): now it is boxed in.
    env.step(env.encode_action((1, 1), (3, 1), (2, 1)))
    assert all(env.terminations.values())  # though black, to move, still has (1,10)->(2,10)
    board, aux = env.get_state()
    assert K.has_queen_move(board, K.BLACK) and not K.has_queen_move(board, K.WHITE)
    assert env.infos["white"]["goal"] == 0 and env.infos["black"]["goal"] == 100
    assert env.rewards == {"white": -1.0, "black": 1.0}
    assert not env.legal_actions().size
    assert env.observe("black")["action_mask"].sum() == 0


def test_split_goes_on_when_the_mover_is_stuck_and_ends_when_the_role_to_act_is():
    env = load(amazons_split_v0, MOVER_STUCK)
    assert (env.infos["white"]["goal"], env.infos["black"]["goal"]) == (0, 100)
    env.step(env.encode_action((1, 1), (3, 1)))
    assert (env.infos["white"]["goal"], env.infos["black"]["goal"]) == (0, 100)  # white still acts
    env.step(env.encode_action((3, 1), (2, 1)))
    # white is boxed in, but the rule sheet ends the game only when the role to act is stuck
    assert not any(env.terminations.values()) and env.agent_selection == "black"
    assert (env.infos["white"]["goal"], env.infos["black"]["goal"]) == (100, 0)
    env.step(env.encode_action((1, 10), (2, 10)))
    env.step(env.encode_action((2, 10), (1, 10)))
    assert all(env.terminations.values()) and env.agent_selection == "white"
    assert (env.infos["white"]["goal"], env.infos["black"]["goal"]) == (0, 100)
    assert env.rewards == {"white": -1.0, "black": 1.0}


BOTH_STUCK = """
x x x x x x x x x x
x x x x x x x x x x
x x x x x x x x x x
x x x x x x x x x x
B x B x B x x x x x
x x x x x x x x x x
W x W x W x x x x x
x x x x x x x x x x
x x x x x x x x x x
W . . . B x x x x x
"""


def test_both_stuck_is_a_draw():
    env = load(amazons_v0, BOTH_STUCK)
    env.step(env.encode_action((1, 1), (4, 1), (3, 1)))
    assert all(env.terminations.values())
    assert env.infos["white"]["goal"] == 100 and env.infos["black"]["goal"] == 100
    assert env.rewards == {"white": 0.0, "black": 0.0}


def test_goals_while_running():
    env = amazons_v0.raw_env()
    env.reset()
    env.step(env.legal_actions()[0])
    assert (env.infos["white"]["goal"], env.infos["black"]["goal"]) == (0, 0)
    split = amazons_split_v0.raw_env()
    split.reset()
    seen = []
    for _ in range(4):
        seen.append((split.agent_selection, split.infos["white"]["goal"], split.infos["black"]["goal"]))
        split.step(split.legal_actions()[0])
    assert seen == [("white", 0, 100), ("white", 0, 100), ("black", 100, 0), ("black", 100, 0)]


# ----------------------------------------------------------------------------- feature planes (no rule)
def reference_territory(board, role):
    """The four feature planes, in plain Python: one-move reach of each side, then the empty
    cells each side's queens reach in fewer queen moves (breadth-first over slides)."""
    board = [int(v) for v in board]
    planes = np.zeros((10, 10, 4), np.int8)
    dist = []
    for side, piece in enumerate((K.WHITE + role, K.BLACK - role)):
        queens = [(c % 10 + 1, c // 10 + 1) for c in range(100) if board[c] == piece]
        for q in queens:
            for x, y in slide(board, *q):
                planes[y - 1, x - 1, side] = 1
        d, frontier, step = {}, queens, 0
        while frontier:
            step += 1
            nxt = []
            for q in frontier:
                for cell in slide(board, *q):
                    if cell not in d:
                        d[cell] = step
                        nxt.append(cell)
            frontier = nxt
        dist.append(d)
    for y in range(1, 11):
        for x in range(1, 11):
            if board[(y - 1) * 10 + x - 1] == K.EMPTY:
                own, opp = dist[0].get((x, y), 999), dist[1].get((x, y), 999)
                planes[y - 1, x - 1, 2] = own < opp
                planes[y - 1, x - 1, 3] = opp < own
    return planes


# White's queen at (1,1) owns the walled corner (2,1); black's queens are nearer the rest.
TERRITORY = """
. . . . . . . . . .
. . . . . . . . . .
. . . . . B . . . .
. . . . . . . . . .
. . . . . . . . . .
. . . . . . . . . .
x x x . . . . . . .
. . x . . . . . B .
. . x . . . . . . .
W . x x . . . . . .
"""


def test_territory_planes_on_a_drawn_position():
    board, _ = K.from_string(TERRITORY)
    out = np.zeros((10, 10, 4), np.int8)
    K.territory_planes(board, 0, out)
    white_owns = {(x + 1, y + 1) for y, x in zip(*np.nonzero(out[:, :, 2]), strict=True)}
    assert white_owns == {(2, 1), (1, 2), (2, 2), (1, 3), (2, 3)}  # the walled corner
    assert out[:, :, 0].sum() == 4 and out[1, 2, 0] == 0  # (2,3) is two queen moves from (1,1)
    assert out[9, 5, 3] == 1 and out[0, 9, 3] == 1  # (6,10) one move from (6,8); (10,1) two from (9,3)
    assert not (out[:, :, 2] & out[:, :, 3]).any()
    np.testing.assert_array_equal(out, reference_territory(board, 0))
    K.territory_planes(board, 1, out)  # black's view swaps the sides
    np.testing.assert_array_equal(out, reference_territory(board, 1))
    np.testing.assert_array_equal(out[:, :, 3], reference_territory(board, 0)[:, :, 2])


@pytest.mark.parametrize("env_module", [amazons_v0, amazons_split_v0], ids=["amazons", "split"])
def test_territory_planes_match_the_reference_in_random_games(env_module):
    env = env_module.raw_env()
    rng = np.random.default_rng(7)
    out = np.zeros((10, 10, 4), np.int8)
    for game in range(3):
        env.reset(seed=game)
        while not any(env.terminations.values()):
            board, aux = env.get_state()
            for role in (0, 1):
                K.territory_planes(board, role, out)
                np.testing.assert_array_equal(out, reference_territory(board, role))
            env.step(sample_action(env.observe(env.agent_selection)["action_mask"], rng))


# ----------------------------------------------------------------------------- illegal-action reasons
def test_illegal_action_messages_say_why():
    env = amazons_v0.raw_env()
    env.reset()
    cases = {
        ((5, 5), (5, 6), (5, 7)): r"no white queen at \(5,5\)",
        ((4, 10), (4, 9), (4, 8)): r"no white queen at \(4,10\)",
        ((4, 1), (4, 10), (4, 9)): r"queen move \(4,1\)->\(4,10\) is blocked at \(4,10\)",
        ((1, 4), (1, 8), (1, 9)): r"queen move \(1,4\)->\(1,8\) is blocked at \(1,7\)",
        ((4, 1), (4, 5), (4, 10)): r"arrow \(4,5\)->\(4,10\) is blocked at \(4,10\)",
        ((7, 1), (7, 4), (1, 4)): r"arrow \(7,4\)->\(1,4\) is blocked at \(1,4\)",
    }
    before = env.get_state()
    for cells, why in cases.items():
        with pytest.raises(ValueError, match=why):
            env.step(env.encode_action(*cells))
        np.testing.assert_array_equal(env.get_state()[0], before[0])
    with pytest.raises(ValueError, match="not a queen move followed by an arrow"):
        env.encode_action((1, 1), (2, 3), (2, 4))
    with pytest.raises(ValueError, match="off the 10x10 board"):
        env.encode_action((0, 1), (1, 2), (1, 3))
    with pytest.raises(ValueError, match="names 3 cells"):
        env.encode_action((1, 1), (1, 2))

    split = amazons_split_v0.raw_env()
    split.reset()
    with pytest.raises(ValueError, match=r"\(4,1\)->\(5,3\) is not along a rank, file or diagonal"):
        split.step(split.encode_action((4, 1), (5, 3)))
    with pytest.raises(ValueError, match="names 2 cells"):
        split.encode_action((4, 1), (5, 3), (5, 4))


# ----------------------------------------------------------------------------- action-id contract
def queen_lines(c):
    x, y = c % 10, c // 10
    cells = set()
    for dx, dy in QUEEN_DIRS:
        cx, cy = x + dx, y + dy
        while 0 <= cx < 10 and 0 <= cy < 10:
            cells.add(cy * 10 + cx)
            cx, cy = cx + dx, cy + dy
    return sorted(cells)


def test_amazons_action_ids_follow_the_contract():
    """Ids enumerate src ascending, dst over Q(src), arrow over Q(dst), from a plain rebuild."""
    env = amazons_v0.raw_env()
    expected = [(src, dst, arrow) for src in range(100) for dst in queen_lines(src) for arrow in queen_lines(dst)]
    assert len(expected) == env.num_actions == 86_980
    to_xy = lambda c: (c % 10 + 1, c // 10 + 1)  # noqa: E731
    for a, (src, dst, arrow) in enumerate(expected):
        cells = (to_xy(src), to_xy(dst), to_xy(arrow))
        assert env.decode_action(a) == cells
        assert env.encode_action(*cells) == a


def test_split_action_ids_round_trip():
    env = amazons_split_v0.raw_env()
    for a in range(10_000):
        (x1, y1), (x2, y2) = env.decode_action(a)
        assert a == ((y1 - 1) * 10 + x1 - 1) * 100 + (y2 - 1) * 10 + x2 - 1
        assert env.encode_action((x1, y1), (x2, y2)) == a


# ----------------------------------------------------------------------------- random games against the reference
@pytest.mark.parametrize("env_module", [amazons_v0, amazons_split_v0], ids=["amazons", "split"])
def test_random_playouts_match_the_reference_and_keep_invariants(env_module):
    env = env_module.raw_env()
    rng = np.random.default_rng(2026)
    split = env.variant == K.SPLIT
    for game in range(6):
        env.reset(seed=game)
        while not any(env.terminations.values()):
            board, aux = env.get_state()
            assert (board == K.WHITE).sum() == 4 and (board == K.BLACK).sum() == 4
            completed_turns = aux[K.STEP] // 2 if split else aux[K.STEP]
            assert (board == K.ARROW).sum() == completed_turns
            legal = env.legal_actions()
            assert list(legal) == sorted(legal)
            assert {env.decode_action(a) for a in legal} == reference_actions(board, aux)
            env.step(sample_action(env.observe(env.agent_selection)["action_mask"], rng))
        board, aux = env.get_state()
        if split:
            assert not K.has_queen_move(board, K.WHITE + aux[K.ROLE])
        else:
            assert not (K.has_queen_move(board, K.WHITE) and K.has_queen_move(board, K.BLACK))


def test_legal_actions_write_only_inside_a_max_legal_buffer():
    """``legal_actions`` writes every candidate (branch-free), so the candidates of four
    queens must fit MAX_LEGAL, and the entries past the buffer stay untouched."""
    most = max(sum(int(K.QLEN[d]) for d in K.QCELL[s, : K.QLEN[s]]) for s in range(K.N))
    assert 4 * most <= K.MAX_LEGAL
    board, aux = K.new_state()
    guard = np.full(K.MAX_LEGAL + 16, -7, np.int32)
    for t in range(40):  # a random game, the buffer checked at every state
        n = K.legal_actions(board, aux, guard[: K.MAX_LEGAL])
        assert (guard[K.MAX_LEGAL :] == -7).all()
        assert (np.diff(guard[:n]) > 0).all()
        if n == 0:
            break
        K.apply(board, aux, int(guard[(7 * t) % n]))
