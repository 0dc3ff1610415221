"""Rendering: ansi text of known positions, rgb_array images, the pygame window (with
SDL_VIDEODRIVER=dummy), PettingZoo's render_test, and replays written as GIF and PNG."""

import json

import numpy as np
import pytest
from pettingzoo.test import render_test
from PIL import Image

from ggpzoo.agents import GreedyAgent, RandomAgent
from ggpzoo.envs import ENVS, load
from ggpzoo.envs.render import CELL_PX, board_image, cell_center
from ggpzoo.envs.skirmish import kernel as SK
from ggpzoo.tools.replay import check_game, load_game, positions, record_game, save_game, write_gif, write_png
from ggpzoo.utils import sample_action

NAMES = list(ENVS)


@pytest.fixture
def display(monkeypatch):
    """A headless pygame display, and no frame-rate wait."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    for name in NAMES:
        monkeypatch.setitem(load(name).raw_env.metadata, "render_fps", 1000)


# ----------------------------------------------------------------------------- ansi
def test_ansi_amazons_marks_the_last_move():
    env = load("amazons_v0").raw_env(render_mode="ansi")
    env.reset()
    env.step(env.encode_action((4, 1), (4, 5), (7, 5)))
    assert env.render() == "\n".join(
        [
            "10   .  .  .  B  .  .  B  .  .  .",
            " 9   .  .  .  .  .  .  .  .  .  .",
            " 8   .  .  .  .  .  .  .  .  .  .",
            " 7   B  .  .  .  .  .  .  .  .  B",
            " 6   .  .  .  .  .  .  .  .  .  .",
            " 5   .  .  . [W] .  . [x] .  .  .",
            " 4   W  .  .  .  .  .  .  .  .  W",
            " 3   .  .  .  .  .  .  .  .  .  .",
            " 2   .  .  .  .  .  .  .  .  .  .",
            " 1   .  .  . [.] .  .  W  .  .  .",
            "     1  2  3  4  5  6  7  8  9 10",
        ]
    )
    env.reset()  # a new game has no last move
    assert "[" not in env.render()


def test_ansi_mad_bishops_files_and_edge_marks():
    env = load("mad_bishops_v0").raw_env(render_mode="ansi")
    env.reset()
    env.step(env.encode_action((9, 1), (10, 2)))  # i1 takes j2: the mark reaches the right edge
    lines = env.render().splitlines()
    assert lines[8] == " 2   .  B  .  B  .  B  .  B  . [W]"
    assert lines[9] == " 1   W  .  W  .  W  .  W  . [.] ."
    assert lines[10] == "     a  b  c  d  e  f  g  h  i  j"


def test_ansi_skirmish_holes_and_set_state():
    env = load("skirmish_v0").raw_env(render_mode="ansi")
    env.reset()
    env.step(env.encode_action((7, 1), (8, 3)))
    text = env.render()
    assert text.splitlines()[5] == " 3   .  .  #  .  .  #  . [N]"
    assert text.splitlines()[7] == " 1   R  N  B  Q  K  B [.] R"
    env.set_state(env.get_state())  # a state set by hand has no last move
    assert "[" not in env.render()


# ----------------------------------------------------------------------------- rgb_array
@pytest.mark.parametrize("name", NAMES)
def test_rgb_array_shape_and_positions_differ(name):
    env = load(name).raw_env(render_mode="rgb_array")
    env.reset()
    start = env.render()
    k = env.kernel
    assert start.dtype == np.uint8 and start.ndim == 3 and start.shape[2] == 3
    assert start.shape[0] > k.H * CELL_PX and start.shape[1] > k.W * CELL_PX
    np.testing.assert_array_equal(start, env.render())  # the same position, the same picture
    rng = np.random.default_rng(0)
    seen = [start]
    for _ in range(4):
        env.step(sample_action(env.observe(env.agent_selection)["action_mask"], rng))
        image = env.render()
        assert image.shape == start.shape
        assert all(np.any(image != other) for other in seen)
        seen.append(image)
    # the last-move tint alone changes the picture
    state = env.get_state()
    env.set_state(state)
    assert np.any(env.render() != seen[-1])
    assert env.board_image(cell_px=20).shape[0] < start.shape[0]


def test_rgb_array_draws_what_stands_on_each_cell():
    board, aux = SK.from_string("""
        . . . . k . . .
        . . . . . . . .
        . . # . . # . .
        . . . . . . . .
        . . . . . . . .
        . . # . . # . .
        . . . . . . . .
        . . . . Q . . .""")
    image = board_image(board, 8, 8, SK.PIECE_CHARS)
    light, dark = np.array((240, 217, 181)), np.array((181, 136, 99))

    def ring(x, y):  # a pixel inside the piece's disc, off its letter
        r, c = cell_center(x, y, 8)
        return image[r - CELL_PX // 4, c + CELL_PX // 10].astype(int)

    assert ring(5, 1).min() > 230  # a white piece: light fill
    assert ring(5, 8).max() < 60  # a black piece: dark fill
    r, c = cell_center(3, 3, 8)
    assert image[r, c].max() < 30  # a hole: black
    r, c = cell_center(2, 2, 8)
    np.testing.assert_array_equal(image[r, c], dark)  # (2,2): x + y even, a dark cell
    r, c = cell_center(2, 1, 8)
    np.testing.assert_array_equal(image[r, c], light)
    amazons = load("amazons_v0").raw_env(render_mode="rgb_array")
    amazons.reset()
    amazons.step(amazons.encode_action((4, 1), (4, 5), (7, 5)))
    image = amazons.render()
    r, c = cell_center(7, 5, 10)
    red = image[r, c].astype(int)
    assert red[0] > 120 and red[1] < 60 and red[2] < 60  # an arrow: a red cross
    r, c = cell_center(4, 1, 10)  # the cell the queen left: tinted
    assert not np.array_equal(image[r, c], light) and not np.array_equal(image[r, c], dark)


def test_bad_cell_size():
    env = load("skirmish_v0").raw_env(render_mode="rgb_array")
    env.reset()
    with pytest.raises(ValueError, match="cell_px"):
        env.board_image(cell_px=8)


# ----------------------------------------------------------------------------- human
def test_human_window(display):
    import pygame

    pygame.display.quit()  # whatever ran before
    env = load("skirmish_endgame_v0").raw_env(render_mode="human")
    assert not pygame.display.get_init()  # nothing opens before the first reset
    env.reset()
    assert pygame.display.get_init()
    surface = pygame.display.get_surface()
    assert surface.get_size() == env.board_image().shape[1::-1]
    assert env.render() is None
    env.step(int(env.legal_actions()[0]))  # drawn after every step
    shown = pygame.surfarray.array3d(surface).transpose(1, 0, 2)
    np.testing.assert_array_equal(shown, env.board_image())
    env.close()
    assert not pygame.display.get_init()


def test_human_without_pygame(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda n, *a: None if n == "pygame" else real(n, *a))
    from gymnasium.error import DependencyNotInstalled

    with pytest.raises(DependencyNotInstalled, match=r"pip install 'ggpzoo\[render\]'"):
        load("skirmish_v0").raw_env(render_mode="human")


@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_render_test(name, display):
    assert load(name).raw_env.metadata["render_modes"] == ["ansi", "rgb_array", "human"]
    render_test(load(name).env)


# ----------------------------------------------------------------------------- replay
def test_replay_gif_round_trip(tmp_path):
    name = "skirmish_endgame_v0"
    game = record_game(name, GreedyAgent(name), RandomAgent(), seed=1)
    assert game["env"] == name and game["white"] == "greedy" and len(game["moves"]) == len(game["actions"])
    path = tmp_path / "game.json"
    save_game(game, path)
    assert json.loads(path.read_text())["actions"] == game["actions"]
    loaded = load_game(str(path))
    assert loaded["actions"] == game["actions"] and loaded["goals"] == game["goals"]
    frames = positions(loaded, cell_px=24)
    assert len(frames) == len(game["actions"]) + 1
    gif = tmp_path / "game.gif"
    write_gif(frames, str(gif), fps=4)
    with Image.open(gif) as im:
        assert im.format == "GIF" and im.n_frames == len(frames)
        assert im.size == (frames[0].shape[1], frames[0].shape[0])
        assert im.info["duration"] == 250 and im.info["loop"] == 0
        im.seek(0)
        first = np.asarray(im.convert("RGB")).astype(int)
        im.seek(im.n_frames - 1)
        last = np.asarray(im.convert("RGB")).astype(int)
    assert np.abs(first - frames[0]).mean() < 2  # one shared palette: the colours survive
    assert np.abs(last - frames[-1]).mean() < 2
    png = tmp_path / "final.png"
    write_png(frames[-1], str(png))
    with Image.open(png) as im:
        np.testing.assert_array_equal(np.asarray(im.convert("RGB")), frames[-1])


def test_replay_reads_moves_and_names_the_bad_one(tmp_path):
    game = check_game({"env": "mad_bishops_v0", "moves": ["a1 b2", "(4,2)->(3,1)", "c3-d4"]})
    env = load("mad_bishops_v0").raw_env()
    assert game["actions"][0] == env.encode_action((1, 1), (2, 2))
    assert game["moves"] == ["(1,1)->(2,2)", "(4,2)->(3,1)", "(3,3)->(4,4)"]
    with pytest.raises(ValueError, match=r"move 2 \('c3 d4'\): \(3,3\)->\(4,4\) is illegal: there is no black piece"):
        check_game({"env": "mad_bishops_v0", "moves": ["a1 b2", "c3 d4"]})
    with pytest.raises(ValueError, match=r"move 1 \(5\): \(1,1\)->\(6,1\) is illegal"):
        check_game({"env": "mad_bishops_v0", "actions": [5]})
    with pytest.raises(ValueError, match="unknown environment 'chess_v0'"):
        check_game({"env": "chess_v0", "actions": []})
    with pytest.raises(ValueError, match="neither 'actions' nor 'moves'"):
        check_game({"env": "mad_bishops_v0"})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="not valid JSON"):
        load_game(str(bad))
    with pytest.raises(ValueError, match="no frames"):
        write_gif([], str(tmp_path / "x.gif"))
