"""Skirmish with holes and Skirmish endgame: the kernel and both environments.

Sections, in the order every game's test file keeps: a plain-Python reference written from
docs/games/skirmish_v0.md alone, start and perft, legal actions, apply, terminal and goals, observation
planes, illegal-action reasons, the action-id contract, random games against the
reference. PettingZoo's api_test and seed_test run for every env in tests/test_api.py.
Positions are drawn with ``kernel.from_string`` (y = 8 on top).
"""

from __future__ import annotations

import numpy as np
import pytest

from ggpzoo.envs import skirmish_endgame_v0, skirmish_v0
from ggpzoo.envs.skirmish import kernel as K

SK, EG = K.SKIRMISH, K.ENDGAME
ENVS = {SK: skirmish_v0, EG: skirmish_endgame_v0}


def c(x, y):
    return (y - 1) * 8 + (x - 1)


def mv(x1, y1, x2, y2):
    return c(x1, y1) * 64 + c(x2, y2)


def legal(board, aux):
    out = np.full(K.MAX_LEGAL, -1, np.int32)
    n = K.legal_actions(board, aux, out)
    return out[:n].tolist()


def dests(board, aux, x, y):
    """The 1-based cells the piece at (x, y) may legally move to."""
    return {((a % 64) % 8 + 1, (a % 64) // 8 + 1) for a in legal(board, aux) if a // 64 == c(x, y)}


def play(board, aux, *moves):
    for m in moves:
        assert m in legal(board, aux), m
        K.apply(board, aux, m)


# A slow, direct transcription of docs/games/skirmish_v0.md over a dict {(x, y): (role, letter)}, sharing no
# code or table with the kernel. ``test_mode`` is the rule sheet's no-move test: a rook's,
# bishop's, queen's, king's or knight's move that lands on a hole counts as a move (no path
# ever crosses a hole); a pawn's never does.
REF_HOLES = {(3, 3), (6, 3), (3, 6), (6, 6)}
REF_GOALS = {
    SK: dict(enumerate([0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 79, 86, 93, 100])),
    EG: {n: 10 * n for n in range(11)},
}
REF_LIMIT = {SK: 99, EG: 59}


def ref_position(board):
    pieces = {}
    for i, v in enumerate(board.tolist()):
        if 1 <= v <= 12:
            pieces[(i % 8 + 1, i // 8 + 1)] = ((v - 1) // 6, "PNBRQK"[(v - 1) % 6])
    return pieces


def ref_moves(pieces, role, variant, test_mode=False):
    """The set of (x1, y1, x2, y2) moves of ``role``."""
    moves = set()

    def on_board(x, y):
        return 1 <= x <= 8 and 1 <= y <= 8

    def may_land(x, y):
        if (x, y) in REF_HOLES:
            return test_mode
        return (x, y) not in pieces or pieces[(x, y)][0] != role

    for (x, y), (r, t) in pieces.items():
        if r != role:
            continue
        if t in "NK":
            steps = (
                [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)]
                if t == "N"
                else [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
            )
            for dx, dy in steps:
                if on_board(x + dx, y + dy) and may_land(x + dx, y + dy):
                    moves.add((x, y, x + dx, y + dy))
        elif t in "RBQ":
            lines = {"R": [(1, 0), (-1, 0), (0, 1), (0, -1)], "B": [(1, 1), (1, -1), (-1, 1), (-1, -1)]}
            for dx, dy in lines.get(t, lines["R"] + lines["B"]):
                tx, ty = x + dx, y + dy
                while on_board(tx, ty):
                    if may_land(tx, ty):
                        moves.add((x, y, tx, ty))
                    if (tx, ty) in pieces or (tx, ty) in REF_HOLES:
                        break
                    tx, ty = tx + dx, ty + dy
        else:
            f = 1 if role == 0 else -1
            # A pawn never lands on a hole, in the no-move test too: the sheet's pushes need
            # their target cells empty and not holes (docs/games/skirmish_v0.md, "End").
            if variant == SK and on_board(x, y + f) and (x, y + f) not in pieces:
                if (x, y + f) not in REF_HOLES:
                    moves.add((x, y, x, y + f))
                home = 2 if role == 0 else 7
                two = (x, y + 2 * f)
                if y == home and (x, y + f) not in REF_HOLES and two not in pieces and two not in REF_HOLES:
                    moves.add((x, y, *two))
            for dx in (-1, 1):
                target = pieces.get((x + dx, y + f))
                if target is not None and target[0] != role:
                    moves.add((x, y, x + dx, y + f))
    return moves


def ref_ids(moves):
    return sorted(c(x1, y1) * 64 + c(x2, y2) for x1, y1, x2, y2 in moves)


def ref_terminal(pieces, role, step, variant):
    if step >= REF_LIMIT[variant]:
        return True
    for r in (0, 1):
        if not any(p[0] == r for p in pieces.values()):
            return True  # a role has no pieces
        if not ref_moves(pieces, r, variant, test_mode=True):
            return True  # the rule sheet's no-move test
    return not ref_moves(pieces, role, variant)  # the rules every game shares (docs/games/index.md)


def ref_apply(pieces, role, move):
    """Play ``move``; return whether it captured."""
    x1, y1, x2, y2 = move
    r, t = pieces.pop((x1, y1))
    captured = (x2, y2) in pieces
    if t == "P" and y2 == (8 if role == 0 else 1):
        t = "Q"
    pieces[(x2, y2)] = (r, t)
    return captured


def ref_perft(pieces, role, variant, depth, step=0):
    if ref_terminal(pieces, role, step, variant):
        return 0
    moves = ref_moves(pieces, role, variant)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        p = dict(pieces)
        ref_apply(p, role, m)
        total += ref_perft(p, 1 - role, variant, depth - 1, step + 1)
    return total


@pytest.mark.parametrize("variant,counts", [(SK, (14, 196, 3230)), (EG, (6, 36, 300))])
def test_reference_reproduces_the_rules_md_counts(variant, counts):
    board, _ = K.new_state(variant)
    pieces = ref_position(board)
    assert tuple(ref_perft(pieces, 0, variant, d) for d in (1, 2, 3)) == counts


# ----------------------------------------------------------------------------- start and perft
def test_skirmish_start_and_opening_moves():
    board, aux = K.new_state(SK)
    assert board.reshape(8, 8)[::-1].tolist() == [
        [10, 8, 9, 11, 12, 9, 8, 10],
        [7] * 8,
        [0, 0, 13, 0, 0, 13, 0, 0],
        [0] * 8,
        [0] * 8,
        [0, 0, 13, 0, 0, 13, 0, 0],
        [1] * 8,
        [4, 2, 3, 5, 6, 3, 2, 4],
    ]
    assert aux.tolist() == [0, SK, 0, 0, 0]
    pawns = [mv(x, 2, x, y) for x in (1, 2, 4, 5, 7, 8) for y in (3, 4)]
    assert legal(board, aux) == sorted(pawns + [mv(2, 1, 1, 3), mv(7, 1, 8, 3)])  # 14
    K.apply(board, aux, mv(5, 2, 5, 4))
    assert len(legal(board, aux)) == 14  # black mirrors white


def test_endgame_start_and_opening_moves():
    board, aux = K.new_state(EG)
    assert (
        K.from_string(
            """
        . n b r r b n .
        . . p p p p . .
        . . # . . # . .
        . . . . . . . .
        . . . . . . . .
        . . # . . # . .
        . . P P P P . .
        . N B R R B N .
        """,
            EG,
        )[0].tolist()
        == board.tolist()
    )
    assert aux.tolist() == [0, EG, 0, 0, 0]
    assert legal(board, aux) == sorted(
        [mv(2, 1, 1, 3), mv(7, 1, 8, 3), mv(3, 1, 2, 2), mv(3, 1, 1, 3), mv(6, 1, 7, 2), mv(6, 1, 8, 3)]
    )


def test_from_string_rejects_bad_drawings():
    empty = ["........"] * 8
    with pytest.raises(ValueError, match="holes are exactly"):
        K.from_string("\n".join(empty))
    rows = ["........", "........", "..#..#..", "........", "........", "..#..#..", "........", "........"]
    K.from_string("\n".join(rows))
    with pytest.raises(ValueError, match="far rank"):
        K.from_string("\n".join(["P......."] + rows[1:]))
    with pytest.raises(ValueError, match="unknown cell"):
        K.from_string("\n".join(["x......."] + rows[1:]))


# ----------------------------------------------------------------------------- legal actions
def test_sliders_stop_at_holes():
    board, aux = K.from_string(
        """
        . . . . . . . k
        . . p . . . n .
        . . # . . # . .
        . . . . . . . .
        . . . Q . . . .
        . . # . . # . .
        . . . . . . . .
        B . R . . . . .
        """
    )
    # The bishop's only diagonal meets the hole (3,3) after one cell.
    assert dests(board, aux, 1, 1) == {(2, 2)}
    # The rook's file is cut by the hole (3,3), which shields the pawn (3,7); along rank 1 it
    # slides freely, but not onto its own bishop.
    assert dests(board, aux, 3, 1) == {(2, 1), (4, 1), (5, 1), (6, 1), (7, 1), (8, 1), (3, 2)}
    # The queen: no move towards (3,3); (5,5) then the hole (6,6) hides the knight on (7,7).
    assert dests(board, aux, 4, 4) == (
        {(x, 4) for x in (1, 2, 3, 5, 6, 7, 8)}
        | {(4, y) for y in (1, 2, 3, 5, 6, 7, 8)}
        | {(5, 5), (3, 5), (2, 6), (1, 7), (5, 3), (6, 2), (7, 1)}
    )


def test_knight_jumps_over_anything_but_never_lands_on_a_hole():
    board, aux = K.from_string(
        """
        . . . . k . . .
        . . . . . . . .
        . . # . . # . .
        . n P P P . . .
        . . P N p . . .
        . . # p P # . .
        . . . . . . . .
        . . . . . . . .
        """
    )
    # Every neighbour of (4,4) is a piece or the hole (3,3); (3,6) and (6,3) are holes.
    assert dests(board, aux, 4, 4) == {(5, 6), (6, 5), (5, 2), (3, 2), (2, 3), (2, 5)}
    aux[K.ROLE] = 1  # the black knight: (3,3) is a hole, (4,4) a capture
    assert dests(board, aux, 2, 5) == {(1, 7), (3, 7), (4, 6), (4, 4), (1, 3)}


def test_pawn_pushes_and_double_steps():
    board, aux = K.from_string(
        """
        . . . . k . . .
        . . . p . p p p
        . . # . . # P .
        . p . B . . . .
        . . . p . . . .
        . . # . b # . .
        P . P P P . . .
        . . . . K . . .
        """
    )
    assert dests(board, aux, 1, 2) == {(1, 3), (1, 4)}  # free file: one or two cells
    assert dests(board, aux, 3, 2) == set()  # the hole (3,3) blocks both
    assert dests(board, aux, 4, 2) == {(4, 3), (5, 3)}  # (4,4) occupied: one cell; captures (5,3)
    assert dests(board, aux, 5, 2) == set()  # the bishop on (5,3) blocks it
    aux[K.ROLE] = 1
    assert dests(board, aux, 4, 7) == {(4, 6)}  # the white bishop on (4,5) stops the double step
    assert dests(board, aux, 6, 7) == {(7, 6)}  # the hole (6,6) ahead; captures on (7,6)
    assert dests(board, aux, 7, 7) == set()  # a white pawn in front, a hole and nothing aside
    assert dests(board, aux, 8, 7) == {(8, 6), (8, 5), (7, 6)}
    assert dests(board, aux, 2, 5) == {(2, 4)}  # off its home rank: one cell only
    assert dests(board, aux, 4, 4) == {(4, 3)}  # (3,3) is a hole, (5,3) its own bishop


def test_endgame_pawns_never_push():
    drawing = """
        . . . . . . . .
        . . p . . . . .
        . . # . . # . .
        . . . . . . . .
        . . . . . . . .
        . . # . . # . .
        P . . P . . . .
        . . . . . . . .
        """
    board, aux = K.from_string(drawing, EG)
    assert legal(board, aux) == []
    board[c(5, 3)] = K.BISHOP + K.BLACK_OFFSET
    assert legal(board, aux) == [mv(4, 2, 5, 3)]  # captures only
    aux[K.ROLE] = 1
    assert dests(board, aux, 3, 7) == set()  # the black pawn neither; only the bishop moves
    board, aux = K.from_string(drawing, SK)  # the same drawing in skirmish pushes
    assert legal(board, aux) == [mv(1, 2, 1, 3), mv(1, 2, 1, 4), mv(4, 2, 4, 3), mv(4, 2, 4, 4)]


def test_legal_actions_are_ascending_and_match_the_reference_in_a_busy_position():
    board, aux = K.from_string(
        """
        r . b . k . n r
        p p . . . p p p
        . . # . . # . .
        . . . q . . . .
        . . B . Q . . .
        . . # . . # . .
        P P . . . P P P
        R N . . K . . R
        """
    )
    for role in (0, 1):
        aux[K.ROLE] = role
        ids = legal(board, aux)
        assert len(ids) > 30 and ids == sorted(set(ids))
        assert ids == ref_ids(ref_moves(ref_position(board), role, SK))


# ----------------------------------------------------------------------------- apply
@pytest.mark.parametrize("variant", [SK, EG])
def test_promotion_by_push_and_by_capture_for_both_colours(variant):
    drawing = """
        . r . . . . . .
        P . . . . . . .
        . . # . . # . .
        . . . . . . . .
        . . . . . . . .
        . . # . . # . .
        . . . . . . . p
        . . . . . . N .
        """
    promotions = [(0, mv(1, 7, 2, 8)), (1, mv(8, 2, 7, 1))]  # by capture
    pushes = [(0, mv(1, 7, 1, 8)), (1, mv(8, 2, 8, 1))]
    promotions += pushes if variant == SK else []
    for role, action in promotions:
        board, aux = K.from_string(drawing, variant, role=role)
        assert action in legal(board, aux)
        src, dst = divmod(action, 64)
        captured = int(board[dst] != K.EMPTY)
        K.apply(board, aux, action)
        assert board[dst] == K.QUEEN + K.BLACK_OFFSET * role
        assert board[src] == K.EMPTY
        assert (aux[K.WHITE_CAPTURES + role], aux[K.WHITE_CAPTURES + 1 - role]) == (captured, 0)
        assert aux[K.ROLE] == 1 - role and aux[K.STEP] == 1
    if variant == EG:
        for role, action in pushes:
            assert action not in legal(*K.from_string(drawing, variant, role=role))


def test_capturing_the_king_does_not_end_the_game():
    board, aux = K.from_string(
        """
        . . . . k . . .
        . . . . . . p .
        . . # . . # . .
        . . . . . . . .
        . . . . Q . . .
        . . # . . # . .
        . . . . . . . .
        . . . . K . . .
        """
    )
    play(board, aux, mv(5, 4, 5, 8))
    assert board[c(5, 8)] == K.QUEEN
    assert aux.tolist() == [1, SK, 1, 1, 0]
    assert not K.is_terminal(board, aux)
    assert K.goals(board, aux) == (6, 0)
    play(board, aux, mv(7, 7, 7, 5))  # black plays on without its king
    assert not K.is_terminal(board, aux)


def test_capture_counts_follow_the_game():
    board, aux = K.new_state(SK)
    play(board, aux, mv(5, 2, 5, 4), mv(4, 7, 4, 5), mv(5, 4, 4, 5), mv(4, 8, 4, 5), mv(2, 1, 1, 3))
    assert board[c(4, 5)] == K.QUEEN + K.BLACK_OFFSET
    assert (aux[K.WHITE_CAPTURES], aux[K.BLACK_CAPTURES], aux[K.STEP]) == (1, 1, 5)
    assert K.goals(board, aux) == (6, 6)


# ----------------------------------------------------------------------------- terminal and goals
BOXED_ROOK = """
    . . . . k . . .
    . . . . . . . .
    . . # . . # . .
    . p P p . . . .
    . P R P . . . .
    . . # . . # . .
    . . . . . . . .
    . . . . . . . .
    """


def test_rook_boxed_in_by_its_pawns_and_holes_ends_the_game_when_it_is_to_move():
    # White: rook (3,4) between its pawns (2,4), (4,4), (3,5) and the hole (3,3). Black pawns
    # block the first two, the hole (3,6) the third. White has no legal action, but the rule
    # sheet's test sees the rook's move onto the hole (3,3): only the rules every game shares
    # (docs/games/index.md) end it.
    board, aux = K.from_string(BOXED_ROOK)
    assert legal(board, aux) == []
    assert K.has_move(board, 0, True, 1) and not K.has_move(board, 0, True, 0)
    assert K.has_move(board, 1, True, 1)
    assert K.is_terminal(board, aux)
    assert K.goals(board, aux) == (0, 0)
    # With black to move the rule sheet does not call it terminal: black plays.
    board, aux = K.from_string(BOXED_ROOK, role=1)
    assert not K.is_terminal(board, aux)
    play(board, aux, mv(5, 8, 5, 7))
    assert legal(board, aux) == [] and K.is_terminal(board, aux)
    # If black takes the rook instead, the pawn (2,4) may push again.
    board, aux = K.from_string(BOXED_ROOK, role=1)
    play(board, aux, mv(2, 5, 3, 4))
    assert legal(board, aux) == [mv(2, 4, 2, 5)] and not K.is_terminal(board, aux)
    assert K.goals(board, aux) == (0, 6)


def test_knight_boxed_in_by_its_pawns_and_a_hole():
    # White: knight (2,1) whose targets are its pawns (1,3), (4,2) and the hole (3,3); the
    # pawns are blocked. Black's pawns are stuck too; only its king moves.
    drawing = """
        . . . . . . . k
        . . . . . . . .
        . . # . . # . .
        . . . . . . . .
        p . . . . . . .
        P . # p . # . .
        . . . P . . . .
        . N . . . . . .
        """
    board, aux = K.from_string(drawing, role=1)
    assert not K.is_terminal(board, aux)
    play(board, aux, mv(8, 8, 8, 7))
    assert legal(board, aux) == [] and K.is_terminal(board, aux)


def test_a_role_without_any_move_ends_the_game_whoever_is_to_move():
    drawing = """
        . . . . . . . k
        . . . . . . . .
        . . # . . # . .
        . . . . . . . .
        . . . . . . . .
        p . # . . # . .
        P . . . . . . .
        . . . . . . . .
        """
    for role in (0, 1):
        board, aux = K.from_string(drawing, role=role)
        assert K.is_terminal(board, aux)
        assert K.has_move(board, 1, True, 0)  # black could move; white cannot, even onto a hole


# The rule sheet's no-move test and pawns (docs/games/skirmish_v0.md, "End"): a pawn's push
# onto a hole is no move, for that test too; other pieces' moves onto holes count.
PAWNS_FACING_HOLES = """
    . . . . . . n .
    . . p . . . k .
    . . # . . # . .
    . . P . p . . .
    . . . . P . . .
    . . # . . # . .
    . . . . . P . .
    . . . . . . . .
    """


def test_white_pawns_facing_holes_have_no_move_so_the_game_is_over():
    # The example of docs/games/skirmish_v0.md: white's pawns (3,5) and (6,2) face the holes (3,6) and (6,3), and
    # (5,4) is blocked by black's pawn; black to move. White has no move under the sheet's
    # test, so the state is terminal, with the goals of the capture counts.
    board, aux = K.from_string(PAWNS_FACING_HOLES, role=1, step=40, captures=(3, 5))
    assert not K.has_move(board, 0, True, 1) and not K.has_move(board, 0, True, 0)
    assert legal(board, aux)  # black could move: only the sheet's test ends it
    assert K.is_terminal(board, aux)
    assert K.goals(board, aux) == (18, 30)
    assert ref_terminal(ref_position(board), 1, 40, SK)
    # The same through the env and the batched engine's dispatch, which call this kernel.
    from ggpzoo.engine import dispatch as kernels

    assert kernels.is_terminal(kernels.KERNELS.index(K), board, aux)
    e = skirmish_v0.raw_env()
    e.reset()
    e.set_state((board, aux))
    assert all(e.terminations.values()) and e.legal_actions().size == 0
    assert [e.infos[a]["goal"] for a in ("white", "black")] == [18, 30]
    assert e.rewards == {"white": -1.0, "black": 1.0}
    # The endgame has no pushes at all: the same pieces have no move there either.
    board, aux = K.from_string(PAWNS_FACING_HOLES, EG, role=1)
    assert K.is_terminal(board, aux)


# As PAWNS_FACING_HOLES, plus one white piece whose only move lands on a hole: a rook (7,3)
# whose other neighbours are its own blocked pawns (8,3), (7,4), (7,2); a knight (4,1) whose
# other jumps land on its own blocked pawns (2,2), (5,3), (6,2).
ONLY_MOVE_ONTO_A_HOLE = {
    "rook": """
        . . . . . . n .
        . . p . . . k .
        . . # . . # . .
        . . P . p . p .
        . . . . P . P p
        . . # . . # R P
        . . . . . P P .
        . . . . . . . .
        """,
    "knight": """
        . . . . . . n .
        . . p . . . k .
        . . # . . # . .
        . . P . p . . .
        . . . . P . . .
        . p # . P # . .
        . P . . . P . .
        . . . N . . . .
        """,
}


@pytest.mark.parametrize("piece", list(ONLY_MOVE_ONTO_A_HOLE))
def test_a_piece_whose_only_move_lands_on_a_hole_keeps_the_game_going(piece):
    # The sheet counts the step or jump onto the hole, so black moves; then white, in control
    # with no legal action, ends the game ("Common").
    board, aux = K.from_string(ONLY_MOVE_ONTO_A_HOLE[piece], role=1)
    assert legal(board, aux_with_role(aux, 0)) == []
    assert K.has_move(board, 0, True, 1) and not K.has_move(board, 0, True, 0)
    assert not K.is_terminal(board, aux)
    play(board, aux, mv(7, 7, 8, 7))
    assert legal(board, aux) == [] and K.is_terminal(board, aux)


def test_black_pawns_facing_holes_have_no_move_so_the_game_is_over():
    # The first position mirrored: black's pawns (3,4) and (6,7) face the holes (3,3) and
    # (6,6), (5,5) is blocked by white's pawn; white to move.
    drawing = """
        . . . . . . . .
        . . . . . p . .
        . . # . . # . .
        . . . . p . . .
        . . p . P . . .
        . . # . . # . .
        . . P . . . K .
        . . . . . . N .
        """
    board, aux = K.from_string(drawing, role=0)
    assert not K.has_move(board, 1, True, 1)
    assert legal(board, aux) and K.is_terminal(board, aux)
    assert ref_terminal(ref_position(board), 0, 0, SK)


@pytest.mark.parametrize("role", [0, 1])
def test_a_home_pawn_whose_first_cell_is_a_hole_has_no_double_step(role):
    # White's pawn (3,2) faces the hole (3,3), black's (6,7) the hole (6,6): the two-cell
    # push would pass over the hole, so neither pawn has a move, legal or under the test.
    drawing = """
        . . . . . . . .
        . . . . . p . .
        . . # . . # . .
        . . . . . . . .
        . . . . . . . .
        . . # . . # . .
        . . P . . . . .
        . . . . . . . .
        """
    board, aux = K.from_string(drawing, role=role)
    assert legal(board, aux) == []
    assert not K.has_move(board, 0, True, 1) and not K.has_move(board, 1, True, 1)
    assert K.is_terminal(board, aux)


def aux_with_role(aux, role):
    """A copy of ``aux`` with ``role`` in control."""
    out = aux.copy()
    out[K.ROLE] = role
    return out


@pytest.mark.parametrize("variant,last", [(SK, 99), (EG, 59)])
def test_the_last_step_of_each_limit(variant, last):
    board, aux = K.from_string(
        """
        . . . . . . . .
        . n . . . . . .
        . . # . . # . .
        . . . . . . . .
        . . . . . . . .
        . . # . . # . .
        . . . . . . N .
        . . . . . . . .
        """,
        variant,
        step=last - 2,
    )
    assert not K.is_terminal(board, aux)
    play(board, aux, mv(7, 2, 8, 4))
    assert aux[K.STEP] == last - 1 and not K.is_terminal(board, aux)  # rule-sheet step `last`
    play(board, aux, mv(2, 7, 3, 5))
    assert aux[K.STEP] == last and K.is_terminal(board, aux)  # rule-sheet step `last + 1`
    assert legal(board, aux)  # moves remain: the limit alone ends it


def test_losing_the_last_piece_ends_the_game():
    board, aux = K.from_string(
        """
        . . . . . . . .
        . . . . . . . .
        . . # . . # . .
        . n . . . . . .
        . . . . . . . .
        . . # . . # . .
        . . . . B . . .
        . . . . . . . .
        """,
        EG,
        captures=(9, 4),
    )
    assert not K.is_terminal(board, aux)
    play(board, aux, mv(5, 2, 2, 5))
    assert K.is_terminal(board, aux)
    assert K.goals(board, aux) == (100, 40)


@pytest.mark.parametrize(
    "variant,table",
    [
        (SK, [0, 6, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66, 72, 79, 86, 93, 100]),
        (EG, [0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100]),
    ],
)
def test_score_tables(variant, table):
    board, aux = K.new_state(variant)
    for n, goal in enumerate(table):
        aux[K.WHITE_CAPTURES], aux[K.BLACK_CAPTURES] = n, len(table) - 1 - n
        assert K.goals(board, aux) == (goal, table[-1 - n])
    aux[K.WHITE_CAPTURES] = 13
    assert K.goals(board, aux)[0] == (79 if variant == SK else 100)


def test_infos_report_goal_and_captures():
    e = skirmish_v0.raw_env()
    e.reset()
    assert e.infos == {"white": {"goal": 0, "captures": 0}, "black": {"goal": 0, "captures": 0}}
    for a in (mv(5, 2, 5, 4), mv(4, 7, 4, 5), mv(5, 4, 4, 5)):
        e.step(a)
    assert e.infos == {"white": {"goal": 6, "captures": 1}, "black": {"goal": 0, "captures": 0}}
    e = skirmish_endgame_v0.raw_env()
    e.reset()
    for a in (mv(2, 1, 1, 3), mv(7, 8, 8, 6), mv(1, 3, 2, 5), mv(8, 6, 7, 4), mv(2, 5, 3, 7)):
        e.step(a)
    assert e.infos == {"white": {"goal": 10, "captures": 1}, "black": {"goal": 0, "captures": 0}}
    assert e.agent_selection == "black"


# ----------------------------------------------------------------------------- observation planes
def state_from_observation(obs, role, variant):
    """Rebuild ``(board, aux)`` from one agent's observation: the planes are the whole state."""
    board = np.zeros(64, np.int8)
    for p in range(12):
        ys, xs = np.nonzero(obs[:, :, p])
        owner = role if p < 6 else 1 - role
        board[ys * 8 + xs] = p % 6 + 1 + K.BLACK_OFFSET * owner
    board[np.flatnonzero(obs[:, :, K.P_HOLE].ravel())] = K.HOLE
    scale, limit = K.CAPTURE_SCALE[variant], K.LIMIT[variant]
    own, opp = (round(float(obs[0, 0, p]) * scale) for p in (K.P_OWN_CAPTURES, K.P_OPP_CAPTURES))
    step = round(float(obs[0, 0, K.P_STEP]) * limit)
    assert obs[0, 0, K.P_BLACK] == role
    for p in (K.P_STEP, K.P_OWN_CAPTURES, K.P_OPP_CAPTURES, K.P_BLACK):
        assert (obs[:, :, p] == obs[0, 0, p]).all()
    white, black = (own, opp) if role == 0 else (opp, own)
    return board, (step, white, black)


@pytest.mark.parametrize("variant", [SK, EG])
def test_observation_planes(variant):
    board, aux = K.new_state(variant)
    aux[K.STEP], aux[K.WHITE_CAPTURES], aux[K.BLACK_CAPTURES] = 33, 3, 5
    obs = np.empty((8, 8, K.NUM_PLANES), np.float32)
    scale, limit = K.CAPTURE_SCALE[variant], K.LIMIT[variant]
    K.observe(board, aux, 0, obs)
    assert obs[1, 2, 0] == 1 and obs[6, 2, 6] == 1  # white pawn (3,2) own; black pawn (3,7) opponent
    assert obs[0, 1, 1] == 1 and obs[7, 1, 7] == 1  # knights
    assert obs[2, 2, 12] == obs[5, 5, 12] == 1 and obs[:, :, 12].sum() == 4
    assert np.allclose(obs[:, :, 13], 33 / limit) and np.allclose(obs[:, :, 14], 3 / scale)
    assert np.allclose(obs[:, :, 15], 5 / scale) and (obs[:, :, 16] == 0).all()
    assert obs[:, :, :12].sum() == (32 if variant == SK else 20)
    K.observe(board, aux, 1, obs)
    assert obs[6, 2, 0] == 1 and obs[1, 2, 6] == 1 and obs[0, 1, 7] == 1 and obs[7, 1, 1] == 1
    assert np.allclose(obs[:, :, 14], 5 / scale) and np.allclose(obs[:, :, 15], 3 / scale)
    assert (obs[:, :, 16] == 1).all()
    if variant == SK:  # kings and queens: (5,1) white king, (4,8) black queen
        assert obs[0, 4, 11] == 1 and obs[7, 3, 4] == 1
    for role in (0, 1):
        K.observe(board, aux, role, obs)
        rebuilt, counters = state_from_observation(obs, role, variant)
        assert rebuilt.tolist() == board.tolist() and counters == (33, 3, 5)
    assert obs.min() >= 0 and obs.max() <= 1


def ref_cover(pieces, role, variant):
    """The cells (x, y) where a piece of ``role`` could capture an opposing piece, from the
    reference's moves: put an opposing piece on each cell that is no hole (in place of what
    stands there) and ask whether some piece of ``role`` captures it."""
    covered = set()
    for x in range(1, 9):
        for y in range(1, 9):
            if (x, y) in REF_HOLES:
                continue
            trial = dict(pieces)
            trial[(x, y)] = (1 - role, "P")
            if any((x2, y2) == (x, y) for (_, _, x2, y2) in ref_moves(trial, role, variant)):
                covered.add((x, y))
    return covered


@pytest.mark.parametrize("variant", [SK, EG])
def test_reach_planes_are_the_cells_each_side_could_capture_on(variant):
    """The planes of ggpzoo.wrappers.ReachPlanes (and of the batched self-play env) against
    the reference, for both viewers, in positions from random games."""
    from helpers import random_positions

    name = "skirmish_v0" if variant == SK else "skirmish_endgame_v0"
    out = np.zeros((8, 8, 2), np.float32)
    for board, _aux in random_positions(name, 25, seed=variant + 11, max_depth=50):
        pieces = ref_position(board)
        for viewer in (0, 1):
            K.reach_planes(board, viewer, out)
            for plane, role in ((0, viewer), (1, 1 - viewer)):
                ys, xs = np.nonzero(out[:, :, plane])
                assert {(x + 1, y + 1) for x, y in zip(xs.tolist(), ys.tolist(), strict=False)} == ref_cover(
                    pieces, role, variant
                )


def test_reach_planes_in_a_drawn_position():
    board, aux = K.from_string(
        """
        . . . . . . . k
        . . p . . . n .
        . . # . . # . .
        . . . . . . . .
        . . . Q . . . .
        . . # . . # . .
        . . . . . . . .
        B . R . . . . .
        """
    )
    out = np.zeros((8, 8, 2), np.float32)
    K.reach_planes(board, 0, out)
    white = {(x + 1, y + 1) for y, x in zip(*np.nonzero(out[:, :, 0]), strict=False)}
    assert (2, 2) in white and (3, 3) not in white  # the bishop's diagonal stops at the hole
    assert (1, 1) in white  # the rook defends the bishop: own pieces are covered
    assert (3, 2) in white and (3, 7) not in white  # the hole (3,3) shields the pawn from the rook
    black = {(x + 1, y + 1) for y, x in zip(*np.nonzero(out[:, :, 1]), strict=False)}
    assert {(2, 6), (4, 6)} <= black  # the black pawn on (3,7) covers its forward diagonals
    assert (5, 6) in black and (6, 6) not in black  # the knight (7,7); never a hole


def test_render():
    e = skirmish_v0.env(render_mode="ansi")
    e.reset()
    lines = e.render().splitlines()
    assert lines[0].split() == ["8", *"rnbqkbnr"]
    assert lines[2].split() == ["6", ".", ".", "#", ".", ".", "#", ".", "."]
    assert lines[7].split() == ["1", *"RNBQKBNR"]
    assert lines[8].split() == [str(x) for x in range(1, 9)]


# ----------------------------------------------------------------------------- illegal-action reasons
@pytest.mark.parametrize(
    "variant,moves,bad,reason",
    [
        (SK, [], mv(4, 4, 4, 5), r"there is no piece at \(4,4\)"),
        (SK, [], mv(3, 3, 3, 4), r"\(3,3\) is a hole: there is no piece there"),
        (SK, [], mv(1, 7, 1, 6), r"\(1,7\) holds the black pawn, not a white piece"),
        (SK, [], mv(4, 1, 4, 1), r"the queen at \(4,1\) must move to another cell"),
        (SK, [], mv(1, 1, 2, 1), r"\(2,1\) holds white's own knight"),
        (SK, [], mv(2, 1, 3, 3), r"\(3,3\) is a hole: nothing may stand on it"),
        (SK, [], mv(2, 1, 2, 3), r"\(2,1\)->\(2,3\) is not a valid knight move"),
        (SK, [], mv(5, 1, 5, 3), r"\(5,1\)->\(5,3\) is not a valid king move"),
        (SK, [], mv(1, 1, 1, 4), r"the rook's path is blocked at \(1,2\) by the white pawn"),
        (SK, [], mv(3, 1, 5, 3), r"the bishop's path is blocked at \(4,2\) by the white pawn"),
        (SK, [], mv(3, 2, 3, 4), r"the pawn's path is blocked at \(3,3\) by a hole"),
        (SK, [], mv(4, 2, 5, 3), r"a pawn moves diagonally only to capture, and \(5,3\) is empty"),
        (SK, [], mv(4, 2, 4, 5), r"\(4,2\)->\(4,5\) is not a valid white pawn move"),
        (
            SK,
            [mv(5, 2, 5, 4), mv(5, 7, 5, 5)],
            mv(5, 4, 5, 5),
            r"a pawn push needs an empty cell, and \(5,5\) holds the black pawn",
        ),
        (SK, [mv(5, 2, 5, 4), mv(5, 7, 5, 5)], mv(5, 4, 5, 6), r"a white pawn moves two cells only from rank 2"),
        (SK, [mv(1, 2, 1, 3)], mv(2, 7, 2, 4), r"\(2,7\)->\(2,4\) is not a valid black pawn move"),
        (SK, [mv(1, 2, 1, 3)], mv(6, 7, 6, 5), r"the pawn's path is blocked at \(6,6\) by a hole"),
        (EG, [], mv(4, 2, 4, 3), r"pawn pushes are not allowed in skirmish_endgame_v0"),
        (EG, [], mv(4, 2, 4, 4), r"pawn pushes are not allowed in skirmish_endgame_v0"),
        (EG, [], mv(4, 1, 4, 3), r"the rook's path is blocked at \(4,2\) by the white pawn"),
    ],
)
def test_illegal_actions_raise_with_a_precise_reason(variant, moves, bad, reason):
    e = ENVS[variant].raw_env()
    e.reset()
    for a in moves:
        e.step(a)
    with pytest.raises(ValueError, match=rf"action {bad} = .* is illegal for {e.agent_selection}: {reason}"):
        e.step(bad)
    assert e.infos[e.agent_selection]["goal"] == 0  # nothing happened
    assert len(e.legal_actions()) > 0


# ----------------------------------------------------------------------------- action-id contract
def test_encode_and_decode_actions():
    e = skirmish_v0.raw_env()
    assert all(e.encode_action(*e.decode_action(a)) == a for a in range(4096))
    assert e.decode_action(mv(5, 2, 5, 4)) == ((5, 2), (5, 4))
    assert e.action_to_string(mv(5, 2, 5, 4)) == "(5,2)->(5,4)"
    with pytest.raises(ValueError, match="off the 8x8 board"):
        e.encode_action((0, 1), (1, 1))
    with pytest.raises(ValueError, match="names 2 cells"):
        e.encode_action(
            (1, 1),
        )


# ----------------------------------------------------------------------------- random games against the reference
@pytest.mark.parametrize("variant", [SK, EG])
def test_random_games_through_the_env(variant):
    """Play to the end: limits, flags, rewards from goals, masks equal to the legal lists."""
    rng = np.random.default_rng(7)
    lengths = []
    for _ in range(6):
        e = ENVS[variant].raw_env()
        e.reset()
        n = 0
        for _agent in e.agent_iter():
            obs, reward, term, trunc, info = e.last()
            if term or trunc:
                e.step(None)
                continue
            mask = obs["action_mask"]
            assert obs["observation"].dtype == np.float32 and mask.dtype == np.int8
            assert np.flatnonzero(mask).tolist() == e.legal_actions().tolist()
            e.step(int(rng.choice(np.flatnonzero(mask))))
            n += 1
            if any(e.terminations.values()):
                gw, gb = e.infos["white"]["goal"], e.infos["black"]["goal"]
                assert e.rewards["white"] == np.sign(gw - gb) == -e.rewards["black"]
                assert not any(e.truncations.values())
        lengths.append(n)
    assert max(lengths) <= K.LIMIT[variant] and K.LIMIT[variant] in lengths


def check_against_reference(board, aux):
    variant, role = int(aux[K.VARIANT]), int(aux[K.ROLE])
    pieces = ref_position(board)
    assert legal(board, aux) == ref_ids(ref_moves(pieces, role, variant))
    for r in (0, 1):
        assert K.has_move(board, r, bool(K.PUSHES[variant]), 1) == bool(ref_moves(pieces, r, variant, True))
    terminal = K.is_terminal(board, aux)
    assert terminal == ref_terminal(pieces, role, int(aux[K.STEP]), variant)
    goals = REF_GOALS[variant]
    assert K.goals(board, aux) == (goals[aux[K.WHITE_CAPTURES]], goals[aux[K.BLACK_CAPTURES]])
    obs = np.empty((8, 8, K.NUM_PLANES), np.float32)
    for r in (0, 1):
        K.observe(board, aux, r, obs)
        rebuilt, counters = state_from_observation(obs, r, variant)
        assert rebuilt.tolist() == board.tolist()
        assert counters == (aux[K.STEP], aux[K.WHITE_CAPTURES], aux[K.BLACK_CAPTURES])
    return terminal


@pytest.mark.parametrize("variant", [SK, EG])
def test_random_games_agree_with_the_reference(variant):
    rng = np.random.default_rng(variant)
    for _ in range(6):
        board, aux = K.new_state(variant)
        pieces, captures = ref_position(board), [0, 0]
        while not check_against_reference(board, aux):
            a = int(rng.choice(legal(board, aux)))
            src, dst = divmod(a, 64)
            role = int(aux[K.ROLE])
            captures[role] += ref_apply(pieces, role, (src % 8 + 1, src // 8 + 1, dst % 8 + 1, dst // 8 + 1))
            K.apply(board, aux, a)
            assert ref_position(board) == pieces
            assert [aux[K.WHITE_CAPTURES], aux[K.BLACK_CAPTURES]] == captures


def first_steps(t, s):
    """The cells a piece of type ``t`` on ``s`` reaches in one step (a slider: its neighbours)."""
    x, y = s % 8, s // 8
    d = K.KNIGHT_JUMPS if t == K.KNIGHT else K.DIRS[K.DIR_FROM[t] : K.DIR_TO[t]]
    return [(y + dy) * 8 + x + dx for dx, dy in d if 0 <= x + dx < 8 and 0 <= y + dy < 8]


def box_piece(board, rng, role):
    """A knight, bishop, rook, queen or king one step from a hole, its other first steps taken
    by its own pawns with pieces in front: often its only move under the sheet's test."""
    t = int(rng.choice([K.KNIGHT, K.BISHOP, K.ROOK, K.QUEEN, K.KING]))
    hole = int(rng.choice(K.HOLE_CELLS))
    spots = [s for s in range(64) if board[s] == K.EMPTY and hole in first_steps(t, s)]
    if not spots:
        return
    s = int(rng.choice(spots))
    board[s] = t + K.BLACK_OFFSET * role
    for p in first_steps(t, s):
        if board[p] == K.EMPTY and p // 8 not in (0, 7):
            board[p] = K.PAWN + K.BLACK_OFFSET * role
            if board[p + K.PAWN_STEP[role]] == K.EMPTY:
                board[p + K.PAWN_STEP[role]] = int(rng.integers(1, 7)) + K.BLACK_OFFSET * int(rng.integers(2))


def random_position(rng):
    """A sparse random position, crowded around the holes so that blocked pieces are common:
    pawns facing holes, and pieces whose only move lands on a hole."""
    variant = int(rng.integers(2))
    board, aux = K.new_state(variant)
    board[board != K.HOLE] = K.EMPTY
    near_holes = [c(x + dx, y + dy) for x, y in K.HOLES for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy]
    for role in (0, 1):
        if rng.random() < 0.4:
            box_piece(board, rng, role)
            continue
        facing = [h - K.PAWN_STEP[role] for h in K.HOLE_CELLS]  # a pawn whose push lands on a hole
        for _ in range(int(rng.integers(1, 5))):
            u = rng.random()
            cell = int(rng.choice(facing if u < 0.4 else near_holes if u < 0.8 else np.arange(64)))
            t = K.PAWN if u < 0.4 else int(rng.choice([K.PAWN] * 4 + [K.KNIGHT, K.BISHOP, K.ROOK, K.QUEEN, K.KING]))
            if board[cell] != K.EMPTY or (t == K.PAWN and cell // 8 == K.PAWN_LAST[role]):
                continue
            board[cell] = t + K.BLACK_OFFSET * role
    # Pawns on their far rank (from box_piece's fillers) cannot occur: make them queens.
    for cell in range(64):
        v = board[cell]
        if K.TYPE[v] == K.PAWN and cell // 8 == K.PAWN_LAST[K.COLOR[v]]:
            board[cell] = K.PROMOTED[K.COLOR[v]]
    aux[K.ROLE] = rng.integers(2)
    aux[K.STEP] = rng.integers(K.LIMIT[variant] + 1)
    aux[K.WHITE_CAPTURES], aux[K.BLACK_CAPTURES] = rng.integers(0, 11, 2)
    return board, aux


def pawns_face_holes(board, role):
    """Whether a pawn of ``role`` stands right in front of a hole."""
    return any(board[h - K.PAWN_STEP[role]] == K.PAWN + K.BLACK_OFFSET * role for h in K.HOLE_CELLS)


def test_random_positions_agree_with_the_reference():
    rng = np.random.default_rng(2024)
    seen = {"terminal": 0, "hole moves only": 0, "ended by Common alone": 0, "no move, pawns facing holes": 0}
    for _ in range(1500):
        board, aux = random_position(rng)
        seen["terminal"] += check_against_reference(board, aux)
        pushes = bool(K.PUSHES[aux[K.VARIANT]])
        for r in (0, 1):
            if K.has_move(board, r, pushes, 1) and not K.has_move(board, r, pushes, 0):
                seen["hole moves only"] += 1
                other_moves = K.has_move(board, 1 - r, pushes, 1)
                in_time = aux[K.STEP] < K.LIMIT[aux[K.VARIANT]]
                seen["ended by Common alone"] += r == aux[K.ROLE] and other_moves and in_time
            if pushes and not K.has_move(board, r, pushes, 1) and pawns_face_holes(board, r):
                seen["no move, pawns facing holes"] += 1
    # The seeded sample exercises every branch of the terminal test.
    assert min(seen.values()) >= 20, seen


def greedy_capture(legal_ids, board, rng):
    """A random capture if there is one, else a random move: play that empties the board."""
    captures = [a for a in legal_ids if board[a % 64] != K.EMPTY]
    return int(rng.choice(captures or legal_ids))


@pytest.mark.parametrize("variant", [SK, EG])
def test_greedy_capture_games_agree_with_the_reference_in_the_env_and_the_engine(variant):
    """Capture-first games empty the board and reach the sparse ends (pawns facing holes,
    pieces boxed in) that random play rarely does. The kernel, the AEC env and the batched
    engine, played in lockstep, agree with the reference at every step."""
    from ggpzoo.engine.batch import VectorGames

    rng = np.random.default_rng(11 + variant)
    n = 24
    games = VectorGames(ENVS[variant].raw_env.metadata["name"], n, auto_reset=False)
    games.reset()
    envs = [ENVS[variant].raw_env() for _ in range(n)]
    boards = []
    for e in envs:
        e.reset()
        boards.append(K.new_state(variant))
    ends = {"no move under the sheet's test": 0, "pawns facing holes": 0}
    while not games.terminal.all():
        actions = np.zeros(n, np.int64)
        for i, (e, (board, aux)) in enumerate(zip(envs, boards, strict=True)):
            terminal = check_against_reference(board, aux)
            assert games.terminal[i] == terminal == all(e.terminations.values())
            if terminal:
                continue
            assert e.get_state()[0].tolist() == games.boards[i].tolist() == board.tolist()
            actions[i] = greedy_capture(legal(board, aux), board, rng)
            K.apply(board, aux, actions[i])
            e.step(int(actions[i]))
            if K.is_terminal(board, aux) and aux[K.STEP] < K.LIMIT[variant]:
                pushes = bool(K.PUSHES[variant])
                for r in (0, 1):
                    if not K.has_move(board, r, pushes, 1):
                        ends["no move under the sheet's test"] += 1
                        ends["pawns facing holes"] += pushes and pawns_face_holes(board, r)
        games.step(actions)
    assert ends["no move under the sheet's test"] >= 1, ends
    if variant == SK:
        assert ends["pawns facing holes"] >= 1, ends
