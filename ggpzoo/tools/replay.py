"""Games as small JSON move lists, and pictures of them: an animated GIF, a PNG or text.

A game file is a JSON object::

    {"env": "skirmish_v0", "white": "random", "black": "mcts:200",
     "actions": [12, 345, ...],                     # action ids, or instead:
     "moves": ["(5,2)->(5,4)", "e7 e5", ...],       # moves as python -m ggpzoo play reads them
     "goals": [6, 12]}                              # written by save_game; not needed to load

Only ``env`` and ``actions`` (or ``moves``) are needed. An arena JSON file
(``python -m ggpzoo arena --json``) also loads: pick its game with ``index``. Every game
replays, GDL sheets (``"env": "gdl:tictactoe"``) too: their ``actions`` are the ids of the
role to choose at each step (``white`` playing the sheet's first role, ``black`` its second),
their ``moves`` GDL terms (``"(mark 1 2)"``). A move the env plays by itself, a role's only
legal move in a joint move where no role has a choice (tic-tac-toe's last mark), is listed in
``moves`` (not in ``actions``: it is no one's choice) where it was played; a waiting role's
``noop`` is not listed. A sheet's positions are drawn where its fluents describe a
grid (``(cell ?x ?y ...)``, see `ggpzoo.gdl.board`); any game's positions can be written as
text.

* [`record_game()`][ggpzoo.tools.replay.record_game] - play a game between two agents, as a game dict.
* [`load_game()`][ggpzoo.tools.replay.load_game] / [`save_game()`][ggpzoo.tools.replay.save_game] - read (checking every
move) and write game files.
* [`positions()`][ggpzoo.tools.replay.positions] / [`final_image()`][ggpzoo.tools.replay.final_image] - the images of
every position of a game, or of its last.
* [`write_gif()`][ggpzoo.tools.replay.write_gif] / [`write_png()`][ggpzoo.tools.replay.write_png] - write them (needs
Pillow: the ``render`` extra).
* [`text_positions()`][ggpzoo.tools.replay.text_positions] / [`write_text()`][ggpzoo.tools.replay.write_text] - every
position as text, and a file of them.
"""

from __future__ import annotations

import json
import reprlib

import numpy as np

from ggpzoo.agents.base import Agent
from ggpzoo.envs import load
from ggpzoo.envs.notation import MoveError
from ggpzoo.tools.arena import forced_moves, play_game

__all__ = [
    "record_game",
    "forced_moves",
    "load_game",
    "save_game",
    "check_game",
    "positions",
    "final_image",
    "text_positions",
    "write_text",
    "write_gif",
    "write_png",
]


def record_game(
    env_name: str, white: Agent, black: Agent, seed: int = 0, max_steps: int | None = None, on_move=None
) -> dict:
    """Play one game of ``env_name`` between ``white`` and ``black``; return it as a game dict.

    ``on_move(env, action)`` is called after every action (e.g. to show progress).
    """
    seeds = np.random.SeedSequence([seed]).generate_state(2)
    env = load(env_name).raw_env(max_steps=max_steps)
    rec = play_game(env, white, black, seeds=(int(seeds[0]), int(seeds[1])), on_move=on_move)
    game = {"env": env_name, "white": white.name, "black": black.name, "actions": rec.actions, "moves": rec.moves}
    return game | _result(env)


def _same_move(a, b: str) -> bool:
    return isinstance(a, str) and " ".join(a.lower().split()) == " ".join(b.lower().split())


def _result(env) -> dict:
    """The final ``goals`` (one per role, in role order) and ``over`` (the game ended by the
    rules, not cut short) of ``env``."""
    outcome = env.outcome()
    goals = [int(env.infos[r]["goal"]) for r in env.possible_agents]
    return {"goals": goals, "over": outcome is not None and outcome.termination == "rules"}


def check_game(data: dict, where: str = "the game") -> dict:
    """A game dict with its ``actions`` checked legal move by move (``moves`` are parsed),
    in one pass: each move is checked, written as text and played.

    Raises ValueError naming the first bad move and why.
    """
    if not isinstance(data, dict) or "env" not in data:
        raise ValueError(f"{where} is not a game: a JSON object with 'env' and 'actions' (or 'moves')")
    name = data["env"]
    try:
        env = load(name).raw_env()
    except ValueError as e:
        raise ValueError(f"{where}: {e}") from None
    env.reset()
    if "actions" in data:
        items, kind = data["actions"], "actions"
    elif "moves" in data:
        items, kind = data["moves"], "moves"
    else:
        raise ValueError(f"{where} has neither 'actions' nor 'moves'")
    if not isinstance(items, list):
        raise ValueError(f"{where}: '{kind}' must be a list")
    actions, moves = [], []
    pending = []  # the moves the env played itself after the last action, as listed in 'moves'
    for k, item in enumerate(items, 1):
        if pending and kind == "moves" and _same_move(item, pending[0]):
            moves.append(pending.pop(0))
            continue
        moves += pending  # (a file that does not list them)
        pending = []
        if env.is_game_over():
            raise ValueError(f"{where}: the game is over after move {k - 1}, but {len(items)} {kind} are given")
        try:
            if kind == "actions":
                if isinstance(item, bool) or not isinstance(item, int):
                    raise MoveError(f"{item!r} is not an action id (an integer)")
                try:
                    reason = env.explain_illegal(item)
                except ValueError as e:  # not an action id of the role to move at all
                    raise MoveError(str(e)) from None
                if reason is not None:
                    raise MoveError(f"{env.action_to_string(item)} is illegal: {reason}")
                chosen = [item]
            else:
                chosen = env.parse_move(str(item))
        except MoveError as e:
            raise ValueError(f"{where}: move {k} ({reprlib.repr(item)}): {e}") from None
        for a in chosen:
            moves.append(env.action_to_string(a))  # before the step: a sheet's move is its role's
            env.step(a)
            actions.append(int(a))
            pending += [m for _, m in forced_moves(env)]
        if kind == "actions":
            moves += pending
            pending = []
    return data | {"actions": actions, "moves": moves + pending} | _result(env)


MAX_GAME_FILE_BYTES = 64 << 20  # game files (and arena JSON files) larger than this are refused unread


def load_game(path: str, index: int | None = None) -> dict:
    """Read a game file (or game ``index`` of an arena JSON file) and check its moves."""
    with open(path, "rb") as f:
        raw = f.read(MAX_GAME_FILE_BYTES + 1)
    if len(raw) > MAX_GAME_FILE_BYTES:
        raise ValueError(f"{path} is over {MAX_GAME_FILE_BYTES >> 20} MB: not a game file")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as e:
        raise ValueError(f"{path} is not UTF-8 text (byte {e.start}): not a game file") from None
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not valid JSON: {e}") from None
    except RecursionError:
        raise ValueError(f"{path} nests JSON too deeply: not a game file") from None
    if isinstance(data, dict) and isinstance(data.get("games"), list):
        games = data["games"]
        i = 0 if index is None else index
        if not -len(games) <= i < len(games):
            raise ValueError(f"{path} holds {len(games)} games; there is no game {i}")
        if not isinstance(games[i], dict):
            raise ValueError(f"{path} game {i} is not a game: a JSON object with 'actions' (or 'moves')")
        data = {"env": data.get("env")} | games[i]
        where = f"{path} game {i}"
    elif index is not None:
        raise ValueError(f"{path} holds one game, not a list of games to index")
    else:
        where = path
    return check_game(data, where)


def save_game(game: dict, path: str) -> None:
    """Write a game dict as JSON (``env``, the players, ``actions``, ``moves``, ``goals``)."""
    keep = {k: game[k] for k in ("env", "white", "black", "actions", "moves", "goals") if k in game}
    with open(path, "w") as f:
        json.dump(keep, f, indent=1)
        f.write("\n")


def positions(game: dict, cell_px: int | None = None, on_frame=None) -> list[np.ndarray]:
    """The board image of every position of ``game``: the start, then after each action.

    ``on_frame()`` is called after each image (e.g. to show progress). A GDL sheet's positions
    are drawn where its fluents describe a grid; for one without, ``board_image()`` raises a
    ValueError saying so (`text_positions()` works for every game).
    """
    env = load(game["env"]).raw_env()
    env.reset()
    frames = [env.board_image(cell_px)]
    for a in game["actions"]:
        env.step(a)
        frames.append(env.board_image(cell_px))
        if on_frame is not None:
            on_frame()
    return frames


def final_image(game: dict, cell_px: int | None = None) -> np.ndarray:
    """The board image of the last position of ``game``."""
    env = load(game["env"]).raw_env()
    env.reset()
    for a in game["actions"]:
        env.step(a)
    return env.board_image(cell_px)


def text_positions(game: dict) -> list[str]:
    """Every position of ``game`` as text (the env's ``board_string()``: the board, or a GDL
    sheet's true fluents), the start first, each after the lines naming the actions that led to
    it (where roles choose at once, all their actions, then the position they lead to)."""
    env = load(game["env"]).raw_env()
    env.reset()
    frames, heads = [f"start\n{env.board_string()}"], []
    k = 0  # the moves listed so far, the env's own included
    for a in game["actions"]:
        k += 1
        heads.append(f"{k}. {env.agent_selection} plays {env.action_to_string(a)}")
        env.step(a)
        for r, m in forced_moves(env):
            k += 1
            heads.append(f"{k}. {r} plays {m} (its only move)")
        if env.at_turn_start() or env.is_game_over():
            frames.append("\n".join(heads + [env.board_string()]))
            heads = []
    return frames


def write_text(game: dict, path: str) -> None:
    """``game`` as a text file: every position (`text_positions()`), a blank line between them."""
    with open(path, "w") as f:
        f.write("\n\n".join(text_positions(game)) + "\n")


def _pillow():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("writing images needs Pillow: pip install 'ggpzoo[render]'") from None
    return Image


MIN_FPS, MAX_FPS = 0.1, 50.0  # GIF frames a second: a frame shows 10 s at most (the last 30 s), 20 ms at least


def write_gif(frames: list[np.ndarray], path: str, fps: float = 2.0, hold_last: float = 3.0) -> None:
    """An animated GIF of ``frames``, ``fps`` frames a second, looping; the last one shown
    ``hold_last`` times as long. One palette for all frames, so colours do not flicker."""
    Image = _pillow()
    if not frames:
        raise ValueError("no frames to write")
    if not MIN_FPS <= fps <= MAX_FPS:
        raise ValueError(f"fps must be in {MIN_FPS:g}..{MAX_FPS:g} (MIN_FPS..MAX_FPS), got {fps}")
    if not 1 <= hold_last <= 10:
        raise ValueError(f"hold_last must be in 1..10, got {hold_last}")
    picks = sorted({0, len(frames) // 2, len(frames) - 1})
    sample = Image.fromarray(np.concatenate([frames[i] for i in picks], axis=0))
    palette = sample.quantize(colors=255, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    images = [Image.fromarray(f).quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
    ms = max(int(round(1000 / fps)), 20)
    durations = [ms] * len(images)
    durations[-1] = int(ms * hold_last)
    images[0].save(path, save_all=True, append_images=images[1:], duration=durations, loop=0, optimize=False)


def write_png(image: np.ndarray, path: str) -> None:
    """``image`` (``uint8 (rows, columns, 3)``) as a PNG file."""
    _pillow().fromarray(image).save(path)
