"""Mad Bishops: the kernel and the env against the rules on docs/games/mad_bishops_v0.md.

Positions are drawn with `kernel.from_string()` (10 rows, y = 10 first; ``W`` white,
``B`` black). A slow pure-Python move generator written from docs/games/mad_bishops_v0.md (``ref_legal``)
checks the kernel on the start, on random playouts and on random boards. Run this file
as a script, ``python tests/test_mad_bishops.py DEPTH``, to print the reference perft
counts that ``tests/perft/mad_bishops_v0.txt`` records.

Sections, in the order every game's test file keeps: a plain-Python reference written from
docs/games/mad_bishops_v0.md alone, start and perft, legal actions, apply, terminal and goals, observation
planes, illegal-action reasons, the action-id contract, random games against the
reference. PettingZoo's api_test and seed_test run for every env in tests/test_api.py.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ggpzoo  # noqa: F401  (registers the envs)
from ggpzoo.envs import mad_bishops_v0
from ggpzoo.envs.mad_bishops import kernel as K
from ggpzoo.envs.mad_bishops.mad_bishops import raw_env

# Written from docs/games/mad_bishops_v0.md with its own data: a dict {(x, y): "white" | "black"} of pieces.
DIAGONALS = ((1, 1), (1, -1), (-1, 1), (-1, -1))
ROLES = ("white", "black")


def ref_pieces(board: np.ndarray) -> dict:
    return {(c % 10 + 1, c // 10 + 1): ROLES[v - 1] for c, v in enumerate(board.tolist()) if v}


def ref_threats(pieces: dict, x: int, y: int) -> tuple[list, list]:
    """The opposing pieces and the empty cells the piece at (x, y) threatens."""
    prey, empty = [], []
    for dx, dy in DIAGONALS:
        cx, cy = x + dx, y + dy
        while 1 <= cx <= 10 and 1 <= cy <= 10:
            if (cx, cy) in pieces:  # the first occupied cell along this diagonal
                if pieces[cx, cy] != pieces[x, y]:
                    prey.append((cx, cy))
                break
            empty.append((cx, cy))  # every cell between is empty
            cx, cy = cx + dx, cy + dy
    return prey, empty


def ref_legal(pieces: dict, mover: str) -> set:
    """The legal moves ``((x1, y1), (x2, y2))`` of ``mover``, by the two clauses of its rules."""
    opposing_sees = set()
    for (x, y), who in pieces.items():
        if who != mover:
            opposing_sees.update(ref_threats(pieces, x, y)[1])
    moves = set()
    for (x, y), who in pieces.items():
        if who != mover:
            continue
        prey, empty = ref_threats(pieces, x, y)
        moves.update(((x, y), p) for p in prey)  # 1. capture
        if not prey:  # 2. a step into a cell an opposing piece threatens
            moves.update(((x, y), e) for e in empty if e in opposing_sees)
    return moves


def ref_ids(moves: set) -> list[int]:
    return sorted(((y1 - 1) * 10 + x1 - 1) * 100 + (y2 - 1) * 10 + x2 - 1 for (x1, y1), (x2, y2) in moves)


def ref_start() -> dict:
    pieces = {(x, y): "white" for x in range(1, 10, 2) for y in range(1, 10, 2)}
    pieces.update({(x, y): "black" for x in range(2, 11, 2) for y in range(2, 11, 2)})
    return pieces


def ref_perft(pieces: dict, mover: str, depth: int) -> int:
    if len(set(pieces.values())) < 2:
        return 0
    moves = ref_legal(pieces, mover)
    if depth == 1:
        return len(moves)
    other = ROLES[1 - ROLES.index(mover)]
    total = 0
    for src, dst in moves:
        nxt = dict(pieces)
        nxt[dst] = nxt.pop(src)
        total += ref_perft(nxt, other, depth - 1)
    return total


def legal(board, aux) -> list[int]:
    out = np.empty(K.MAX_LEGAL, np.int32)
    n = K.legal_actions(board, aux, out)
    return out[:n].tolist()


def act(src, dst) -> int:
    (x1, y1), (x2, y2) = src, dst
    return ((y1 - 1) * 10 + x1 - 1) * 100 + (y2 - 1) * 10 + x2 - 1


def load(env, board, aux):
    """Reset ``env`` (wrapped or raw) and put it in the state ``(board, aux)``."""
    env.reset()  # the order-enforcing wrapper wants a reset first
    env.unwrapped.set_state((board, aux))
    return env


def last_of(env, agent):
    return env.rewards[agent], env.terminations[agent], env.truncations[agent], env.infos[agent]["goal"]


EMPTY_ROW = ". . . . . . . . . ."


# ----------------------------------------------------------------------------- start and perft
def test_start_position_has_81_captures():
    board, aux = K.new_state()
    pieces = ref_pieces(board)
    assert sorted(pieces) == sorted(ref_start())
    assert all(pieces[p] == ref_start()[p] for p in pieces)
    acts = legal(board, aux)
    assert len(acts) == 81
    assert acts == sorted(acts)
    for a in acts:
        assert board[a // 100] == K.WHITE and board[a % 100] == K.BLACK  # every one a capture
    assert not K.is_terminal(board, aux)
    assert K.goals(board, aux) == (100, 100)


def test_reference_agrees_at_depth_two():
    board, aux = K.new_state()
    total = 0
    for a in legal(board, aux):
        b, x = board.copy(), aux.copy()
        K.apply(b, x, a)
        assert legal(b, x) == ref_ids(ref_legal(ref_pieces(b), "black"))
        total += len(legal(b, x))
    assert total == 6130 == ref_perft(ref_start(), "white", 2)


# ----------------------------------------------------------------------------- legal actions
def test_step_only_to_a_cell_an_opposing_piece_threatens():
    # The white piece at (2,2) sees no black piece. It sees (1,1), (1,3), (3,1) and the
    # main diagonal up to (10,10); black (6,2) threatens (4,4), black (10,8) threatens
    # (3,1) and (9,9). Those three are its only moves.
    board, aux = K.from_string(
        """
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . B
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . W . . . B . . . .
        . . . . . . . . . .
        """
    )
    assert legal(board, aux) == [act((2, 2), (3, 1)), act((2, 2), (4, 4)), act((2, 2), (9, 9))]
    e = load(raw_env(), board, aux)
    for dst in [(1, 1), (1, 3), (3, 3), (5, 5), (10, 10)]:
        with pytest.raises(ValueError, match=r"no black piece threatens \(\d+,\d+\)"):
            e.step(e.encode_action((2, 2), dst))
    e.step(e.encode_action((2, 2), (4, 4)))
    assert e.get_state()[0][K.W * 3 + 3] == K.WHITE and e.agent_selection == "black"
    # Black (6,2) now threatens white (4,4) and may only take it; black (10,8) does not see
    # it and steps to (5,3) or (9,9), cells the white piece threatens.
    assert e.legal_actions().tolist() == [act((6, 2), (4, 4)), act((10, 8), (5, 3)), act((10, 8), (9, 9))]


def test_piece_with_a_capture_may_not_step_but_its_neighbour_may():
    # White (3,3) threatens black (6,6) along the empty (4,4), (5,5): it may only capture.
    # Its neighbour white (4,2) sees no black piece and steps to (7,5), which (6,6) threatens.
    board, aux = K.from_string(
        """
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . B . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . W . . . . . . .
        . . . W . . . . . .
        . . . . . . . . . .
        """
    )
    assert legal(board, aux) == [act((4, 2), (7, 5)), act((3, 3), (6, 6))]
    e = load(raw_env(), board, aux)
    # (4,4) and (5,5) are threatened by black, so only the capture rule bars them.
    for dst in [(4, 4), (5, 5)]:
        with pytest.raises(ValueError, match=r"\(3,3\) has a capture \(it threatens the black piece at \(6,6\)\)"):
            e.step(e.encode_action((3, 3), dst))
    with pytest.raises(ValueError, match=r"no black piece threatens \(8,6\)"):
        e.step(e.encode_action((4, 2), (8, 6)))
    e.step(e.encode_action((4, 2), (7, 5)))  # capturing is not compulsory
    board2, aux2 = e.get_state()
    assert board2[K.W * 4 + 6] == K.WHITE and board2[K.W * 1 + 3] == K.EMPTY
    assert board2[K.W * 5 + 5] == K.BLACK and aux2[K.ROLE] == 1 and aux2[K.STEP] == 1


def test_capture_at_long_range():
    # White (1,1) and black (10,10) see each other across the whole main diagonal.
    board, aux = K.from_string(
        """
        . B . . . . . . . B
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        W . . . . . . . . .
        """
    )
    assert legal(board, aux) == [act((1, 1), (10, 10))]
    K.apply(board, aux, act((1, 1), (10, 10)))
    assert ref_pieces(board) == {(10, 10): "white", (2, 10): "black"}
    assert aux[K.ROLE] == 1 and aux[K.STEP] == 1
    assert not K.is_terminal(board, aux)
    # Black (2,10) sees the anti-diagonal down to (10,2), which crosses white's diagonal at (6,6).
    assert legal(board, aux) == [act((2, 10), (6, 6))]


# ----------------------------------------------------------------------------- terminal and goals
@pytest.mark.parametrize("role", [0, 1])
def test_capturing_the_last_piece_ends_the_game(role):
    rows = "\n".join(["B . . . . . . . . ."] + [EMPTY_ROW] * 8 + [". . . . . . . . . W"])
    board, aux = K.from_string(rows, role=role)  # white (10,1), black (1,10)
    e = load(mad_bishops_v0.env(), board, aux)
    mover, other = ROLES[role], ROLES[1 - role]
    assert e.agent_selection == mover
    src, dst = ((10, 1), (1, 10)) if role == 0 else ((1, 10), (10, 1))
    e.step(e.unwrapped.encode_action(src, dst))
    assert last_of(e, mover) == (1.0, True, False, 100)
    assert last_of(e, other) == (-1.0, True, False, 0)
    assert K.goals(*e.unwrapped.get_state()) == ((100, 0) if role == 0 else (0, 100))
    obs, reward, term, trunc, info = e.last()
    assert term and not obs["action_mask"].any()
    e.step(None)
    e.step(None)
    assert e.agents == []


def test_piece_counts_at_the_end():
    # A role with no piece loses even when it is its turn: 0/100 with white to move.
    rows = "\n".join(["B . . . . . . . . ."] + [EMPTY_ROW] * 9)
    board, aux = K.from_string(rows, role=0)
    assert K.is_terminal(board, aux) and K.goals(board, aux) == (0, 100)
    assert legal(board, aux) == []


def test_a_position_with_no_legal_action_ends_the_game_as_a_draw():
    # Unreachable in play (kernel docstring: a legal action exists while a colour class
    # holds pieces of both roles, and play keeps every piece on x + y even). Built here:
    # white takes black's last piece on the even class, and black's other piece, on (1,2)
    # (x + y odd), can never meet white's. Black is in control with no legal action.
    rows = "\n".join(["B . . . . . . . . B"] + [EMPTY_ROW] * 7 + ["B . . . . . . . . .", "W . . . . . . . . ."])
    board, aux = K.from_string(rows)
    assert legal(board, aux) == [act((1, 1), (10, 10))]  # (1,10) is on the odd class too
    e = load(mad_bishops_v0.env(), board, aux)
    e.step(act((1, 1), (10, 10)))
    b, x = e.unwrapped.get_state()
    assert x[K.ROLE] == 1 and legal(b, x) == [] and ref_legal(ref_pieces(b), "black") == set()
    assert K.is_terminal(b, x) and K.goals(b, x) == (100, 100)
    assert e.agent_selection == "black"
    assert last_of(e, "white") == (0.0, True, False, 100)
    assert last_of(e, "black") == (0.0, True, False, 100)


def test_max_steps_truncates():
    e = mad_bishops_v0.env(max_steps=3)
    e.reset()
    for _ in range(3):
        assert not e.truncations["white"]
        e.step(int(e.unwrapped.legal_actions()[0]))
    for agent in ROLES:
        assert last_of(e, agent) == (0.0, False, True, 100)
    obs, reward, term, trunc, info = e.last()
    assert trunc and not term and not obs["action_mask"].any()
    assert not K.is_terminal(*e.unwrapped.get_state())  # the game itself still runs
    e.step(None)
    e.step(None)
    assert e.agents == []
    e.reset()  # a new game starts afresh
    assert e.unwrapped.legal_actions().size == 81 and not e.truncations["white"]


def test_no_truncation_by_default():
    e = mad_bishops_v0.env()
    e.reset()
    for _ in range(6):
        e.step(int(e.unwrapped.legal_actions()[0]))
    assert not any(e.truncations.values()) and e.unwrapped.get_state()[1][K.STEP] == 6


def test_a_game_ending_at_max_steps_is_terminated_not_truncated():
    rows = "\n".join(["B . . . . . . . . ."] + [EMPTY_ROW] * 8 + [". . . . . . . . . W"])
    board, aux = K.from_string(rows)
    aux[K.STEP] = 9
    e = load(mad_bishops_v0.env(max_steps=10), board, aux)
    e.step(act((10, 1), (1, 10)))
    assert last_of(e, "white") == (1.0, True, False, 100)
    assert last_of(e, "black") == (-1.0, True, False, 0)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "10"])
def test_max_steps_must_be_a_positive_int(bad):
    with pytest.raises(ValueError, match="max_steps"):
        raw_env(max_steps=bad)


# ----------------------------------------------------------------------------- observation planes
def test_observation_planes(start):
    board, _ = start.get_state()
    grid = board.reshape(10, 10)
    w = start.observe("white")
    assert w["observation"].shape == (10, 10, 3) and w["observation"].dtype == np.int8
    assert (w["observation"][:, :, 0] == (grid == K.WHITE)).all()
    assert (w["observation"][:, :, 1] == (grid == K.BLACK)).all()
    assert (w["observation"][:, :, 2] == 1).all()
    b = start.observe("black")
    assert (b["observation"][:, :, 0] == w["observation"][:, :, 1]).all()
    assert (b["observation"][:, :, 1] == w["observation"][:, :, 0]).all()
    assert (b["observation"][:, :, 2] == 0).all() and not b["action_mask"].any()
    assert w["observation"][0, 0, 0] == 1 and w["observation"][1, 1, 1] == 1  # (1,1) white, (2,2) black
    start.step(act((1, 1), (2, 2)))
    b = start.observe("black")
    assert (b["observation"][:, :, 2] == 1).all() and b["observation"][1, 1, 1] == 1
    assert start.observation_space("black").contains(b)


def test_render():
    e = raw_env(render_mode="ansi")
    e.reset()
    lines = e.render().splitlines()
    assert lines[0] == "10   .  B  .  B  .  B  .  B  .  B"
    assert lines[9] == " 1   W  .  W  .  W  .  W  .  W  ."
    assert lines[10] == "     a  b  c  d  e  f  g  h  i  j"


if __name__ == "__main__":
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    for d in range(1, depth + 1):
        print("depth", d, ref_perft(ref_start(), "white", d), flush=True)


# ----------------------------------------------------------------------------- illegal-action reasons
@pytest.fixture
def start():
    e = raw_env()
    e.reset()
    return e


@pytest.mark.parametrize(
    "src,dst,reason",
    [
        ((2, 2), (3, 3), r"there is no white piece at \(2,2\): it holds a black piece"),
        ((2, 1), (3, 2), r"there is no white piece at \(2,1\): it is empty"),
        ((1, 1), (1, 3), r"\(1,1\)->\(1,3\) is not along a diagonal"),
        ((1, 1), (1, 1), r"\(1,1\)->\(1,1\) is not along a diagonal"),
        ((1, 1), (3, 3), r"the path \(1,1\)->\(3,3\) is blocked at \(2,2\)"),
        ((1, 1), (4, 4), r"the path \(1,1\)->\(4,4\) is blocked at \(2,2\)"),
    ],
)
def test_why_illegal(start, src, dst, reason):
    with pytest.raises(ValueError, match=r"illegal for white: " + reason):
        start.step(start.encode_action(src, dst))


def test_why_illegal_own_piece():
    board, aux = K.from_string(
        "\n".join([EMPTY_ROW] * 7 + [". . W . . . . . . .", ". . . . . . . . . B", "W . . . . . . . . ."])
    )
    e = load(raw_env(), board, aux)
    with pytest.raises(ValueError, match=r"\(3,3\) holds a white piece of your own"):
        e.step(e.encode_action((1, 1), (3, 3)))


def test_illegal_action_types_and_range(start):
    for bad, pattern in [
        (-1, "out of range"),
        (10_000, "out of range"),
        (1.5, "integer"),
        (True, "bool"),
        ("1", "integer"),
    ]:
        with pytest.raises(ValueError, match=pattern):
            start.step(bad)
    wrapped = mad_bishops_v0.env()
    wrapped.reset()
    wrapped.step(act((1, 1), (1, 2)))  # PettingZoo's classic wrapper: illegal move loses
    assert wrapped.rewards["white"] == -1 and wrapped.terminations["black"]


# ----------------------------------------------------------------------------- action-id contract
def test_encode_decode_round_trip(start):
    for a in [0, 99, 1234, 9900, 9999]:
        assert start.encode_action(*start.decode_action(a)) == a
    assert start.encode_action((1, 1), (2, 2)) == 11
    assert start.encode_action((10, 10), (9, 9)) == 9988
    assert start.decode_action(1346) == ((4, 2), (7, 5))
    assert start.action_to_string(11) == "(1,1)->(2,2)"
    with pytest.raises(ValueError, match="off the 10x10 board"):
        start.encode_action((0, 1), (2, 2))
    with pytest.raises(ValueError, match="2 cells"):
        start.encode_action((1, 1), (2, 2), (3, 3))


# ----------------------------------------------------------------------------- random games against the reference
@st.composite
def random_positions(draw):
    """Any board: each role on the even class, the odd class or both, at any density."""
    density = draw(st.floats(0.02, 0.9))
    classes = [draw(st.sampled_from([(0,), (1,), (0, 1)])) for _ in range(2)]
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    board = np.zeros(K.N, np.int8)
    for c in range(K.N):
        parity = (c % 10 + c // 10) % 2
        if rng.random() < density:
            roles = [r for r in (0, 1) if parity in classes[r]]
            if roles:
                board[c] = 1 + roles[rng.integers(len(roles))]
    aux = np.array([draw(st.integers(0, 1)), 0, 0], np.int32)
    return board, aux


@settings(max_examples=300, deadline=None)
@given(random_positions())
def test_kernel_matches_reference_and_stuck_theorem(position):
    board, aux = position
    pieces = ref_pieces(board)
    mover = ROLES[aux[K.ROLE]]
    moves = ref_legal(pieces, mover)
    assert legal(board, aux) == ref_ids(moves)
    both = set(pieces.values()) == set(ROLES)
    assert bool(K.is_terminal(board, aux)) == (not both or not moves)  # docs/games/index.md: shared rules
    assert K.goals(board, aux) == tuple(100 if r in pieces.values() else 0 for r in ROLES)
    for a in legal(board, aux):
        b = board.copy()
        K.apply(b, aux.copy(), a)
        dst = ((a % 100) % 10 + 1, (a % 100) // 10 + 1)
        assert ref_pieces(b)[dst] == mover


def on_even_class(board) -> bool:
    cells = np.flatnonzero(board)
    return bool(np.all((cells % 10 + cells // 10) % 2 == 0))


def test_random_playouts_keep_the_invariants():
    rng = np.random.default_rng(7)
    e = raw_env()
    for _game in range(12):
        e.reset()
        board, aux = e.get_state()
        counts = {1: 25, 2: 25}
        steps = 0
        while not e.terminations["white"]:
            mover = e.agent_selection
            acts = e.legal_actions()
            mask = e.observe(mover)["action_mask"]
            assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == acts.tolist()
            assert not e.observe(ROLES[1 - ROLES.index(mover)])["action_mask"].any()
            assert acts.tolist() == ref_ids(ref_legal(ref_pieces(board), mover))
            a = int(acts[rng.integers(len(acts))])
            captured = board[a % 100]
            e.step(a)
            steps += 1
            board, aux = e.get_state()
            if captured:
                counts[int(captured)] -= 1
            assert {1: int((board == 1).sum()), 2: int((board == 2).sum())} == counts
            assert on_even_class(board)
            assert e.infos["white"]["goal"] == (100 if counts[1] else 0)
            assert e.infos["black"]["goal"] == (100 if counts[2] else 0)
        assert min(counts.values()) == 0 and aux[K.STEP] == steps
        winner = "white" if counts[1] else "black"
        assert e.rewards[winner] == 1.0 and e.rewards[ROLES[1 - ROLES.index(winner)]] == -1.0


def test_mask_is_exactly_what_step_accepts():
    """At a few playout positions, try all 10_000 ids on raw_env.step."""
    rng = np.random.default_rng(3)
    e = raw_env()
    e.reset()
    for depth in range(40):
        if e.terminations["white"]:
            break
        if depth % 10 == 0:
            board, aux = e.get_state()
            mask = e.observe(e.agent_selection)["action_mask"]
            for a in range(K.NUM_ACTIONS):
                if mask[a]:
                    load(e, board, aux).step(a)
                    assert e.get_state()[1][K.STEP] == aux[K.STEP] + 1
                    load(e, board, aux)
                else:
                    with pytest.raises(ValueError) as info:
                        e.step(a)
                    assert "game is over" not in str(info.value)
                    b, x = e.get_state()
                    assert (b == board).all() and (x == aux).all()
        acts = e.legal_actions()
        e.step(int(acts[rng.integers(len(acts))]))
