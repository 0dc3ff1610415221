"""Play a ggpzoo game against an agent in the terminal, and read moves typed by a person.

* :func:`parse_move` - the action a person means by ``"4,1 4,5 4,1"``, ``"e3-f4"`` or
  ``"(4,1)->(4,5)/(4,1)"``, or a :class:`MoveError` that says what is wrong with it.
* :func:`play_terminal` - the game loop of ``python -m ggpzoo play``.

Cells are 1-based ``x,y`` (column, row) as the boards are drawn, or a file letter and a
rank (``a1`` is ``1,1``; Mad Bishops labels its files a..j).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

from ggpzoo.agents.base import Agent
from ggpzoo.envs import load

__all__ = ["MoveError", "parse_move", "move_help", "play_terminal"]

_CELL = re.compile(r"\(?\s*(\d+)\s*,\s*(\d+)\s*\)?|([a-z])(\d+)", re.IGNORECASE)
# What each cell of an action is, per env.
_PARTS = {
    "amazons_v0": ("queen", "destination", "arrow"),
    "amazons_split_v0": ("queen", "destination"),
}


class MoveError(ValueError):
    """A typed move that names no legal action; the message says why."""


def _parts(env) -> tuple[str, ...]:
    name = env.metadata["name"]
    if name == "amazons_split_v0" and env.phase == "fire":
        return ("queen that just moved", "arrow")
    return _PARTS.get(name, ("piece", "destination"))


def move_help(env) -> str:
    """How to type a move in ``env`` now, with an example of a legal one."""
    env = env.unwrapped
    parts = _parts(env)
    legal = env.legal_actions()
    example = env.action_to_string(int(legal[0])) if len(legal) else "(1,1)->(2,2)"
    cells = re.findall(r"\((\d+),(\d+)\)", example)
    plain = " ".join(f"{x},{y}" for x, y in cells)
    text = (
        f"A move names {len(parts)} cells ({', '.join(parts)}), each as x,y (column, row) or as a "
        f"file letter and a rank (a1 = 1,1), e.g. '{plain}' or '{example}'."
    )
    if env.metadata["name"] == "amazons_split_v0":
        text += (
            " A turn is a move then a fire: in the fire step give just the arrow's cell; in the"
            " move step you may give 3 cells (queen, destination, arrow) to play both."
        )
    return text


def _cells(env, text: str) -> list[tuple[int, int]]:
    k = env.kernel
    stripped = text.strip()
    numbers = stripped.replace(",", " ").split()
    if all(n.isdigit() for n in numbers) and "," not in stripped and len(numbers) >= 2 and len(numbers) % 2 == 0:
        cells = [(int(numbers[i]), int(numbers[i + 1])) for i in range(0, len(numbers), 2)]
    else:
        cells, pos = [], 0
        for m in _CELL.finditer(stripped):
            junk = re.sub(r"[\s\-\u2013>/x:]+", "", stripped[pos : m.start()], flags=re.IGNORECASE)
            if junk:
                raise MoveError(f"could not read {junk!r} in {text!r}")
            if m.group(1) is not None:
                cells.append((int(m.group(1)), int(m.group(2))))
            else:
                cells.append((ord(m.group(3).lower()) - ord("a") + 1, int(m.group(4))))
            pos = m.end()
        junk = re.sub(r"[\s\-\u2013>/x:]+", "", stripped[pos:], flags=re.IGNORECASE)
        if junk or not cells:
            raise MoveError(f"could not read {(junk or text)!r} as cells")
    for x, y in cells:
        if not (1 <= x <= k.W and 1 <= y <= k.H):
            last_file = chr(ord("a") + k.W - 1)
            raise MoveError(
                f"({x},{y}) is off the {k.W}x{k.H} board: x runs 1..{k.W} (files a..{last_file}), y 1..{k.H}"
            )
    return cells


def parse_move(env, text: str) -> list[int]:
    """The action(s) a person means by ``text`` in ``env``'s current position.

    Returns one action, or two for a whole amazons_split turn typed as 3 cells (move and
    fire). Raises :class:`MoveError` with the reason if ``text`` is not a legal move.

    >>> from ggpzoo.envs import mad_bishops_v0
    >>> env = mad_bishops_v0.raw_env(); env.reset()
    >>> env.action_to_string(parse_move(env, "a1 b2")[0])
    '(1,1)->(2,2)'
    >>> parse_move(env, "a1 c3")
    Traceback (most recent call last):
    ...
    ggpzoo.play.MoveError: (1,1)->(3,3) is illegal: the path (1,1)->(3,3) is blocked at (2,2)
    """
    env = env.unwrapped
    text = text.strip()
    if text.isascii() and text.isdigit():  # a raw action id
        actions = [int(text) if len(text) <= 18 else env.num_actions]  # no 4,300-digit int() error
        if not 0 <= actions[0] < env.num_actions:
            raise MoveError(f"action id {text} is out of range: ids are 0..{env.num_actions - 1}")
    else:
        cells = _cells(env, text)
        parts = _parts(env)
        name = env.metadata["name"]
        if name == "amazons_split_v0" and env.phase == "fire" and len(cells) == 1:
            firer = env.decode_action(int(env.legal_actions()[0]))[0]
            cells = [firer, *cells]
        if name == "amazons_split_v0" and env.phase == "move" and len(cells) == 3:
            return _split_turn(env, cells)
        if len(cells) != len(parts):
            raise MoveError(
                f"a move here names {len(parts)} cells ({', '.join(parts)}); {text!r} names {len(cells)}"
            )
        try:
            actions = [env.encode_action(*cells)]
        except ValueError as e:
            raise MoveError(f"{text!r} is not a move: {e}") from None
    a = actions[0]
    if a not in set(env.legal_actions().tolist()):
        raise MoveError(f"{env.action_to_string(a)} is illegal: {env._why_illegal(a)}")
    return actions


def _split_turn(env, cells) -> list[int]:
    """An amazons_split move and fire typed together as (queen, destination, arrow)."""
    move = parse_move(env, f"{cells[0][0]},{cells[0][1]} {cells[1][0]},{cells[1][1]}")[0]
    state = env.get_state()
    env.step(move)
    try:
        fire = parse_move(env, f"{cells[2][0]},{cells[2][1]}")[0]
    finally:
        env.set_state(state)
    return [move, fire]


def _say(out, text: str = "") -> None:
    out.write(text + "\n")
    out.flush()


def play_terminal(
    env_name: str,
    opponent: Agent,
    human: str = "white",
    input_fn: Callable[[str], str] | None = None,
    out=None,
) -> int:
    """Play ``env_name`` as ``human`` (``"white"`` or ``"black"``) against ``opponent`` on the terminal.

    Commands besides moves: ``help``, ``moves`` (the legal ones), ``undo`` (take back your
    last move), ``board``, ``quit``. Returns 0 when the game ends or the player quits.
    """
    out = out or sys.stdout
    if input_fn is None:
        def input_fn(prompt):
            out.write(prompt)
            out.flush()
            line = sys.stdin.readline()
            if not line:
                raise EOFError
            return line
    if human not in ("white", "black"):
        raise ValueError(f"human must be 'white' or 'black', got {human!r}")
    env = load(env_name).raw_env(render_mode="ansi")
    env.reset()
    history = []  # states before each of the person's turns, for undo
    _say(out, f"{env_name}: you play {human}, {opponent.name} plays the other side. "
              "Type a move, or 'help', 'moves', 'undo', 'quit'.")
    _say(out, move_help(env))
    shown = False
    while env.agents and not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        mover = env.agent_selection
        if mover != human:
            action = opponent.act(env)
            env.step(action)
            info = getattr(opponent, "last_search", None)
            extra = f"  ({info['simulations']} simulations, {info['seconds']:.2f} s)" if info else ""
            _say(out, f"{mover} ({opponent.name}) plays {env.action_to_string(action)}{extra}")
            shown = False
            continue
        if not shown:
            _say(out, "")
            _say(out, env.render())
            phase = f", {env.phase} step" if env.metadata["name"] == "amazons_split_v0" else ""
            _say(out, f"{mover} to move (you){phase}")
            shown = True
        try:
            line = input_fn("> ")
        except (EOFError, KeyboardInterrupt):
            _say(out, "\nbye")
            return 0
        cmd = line.strip().lower()
        if not cmd:
            continue
        if cmd in ("quit", "exit", "q"):
            _say(out, "bye")
            return 0
        if cmd in ("help", "?", "h"):
            _say(out, move_help(env))
            _say(out, "Commands: moves (list the legal ones), undo (take back your last move), board, quit.")
            continue
        if cmd in ("moves", "legal"):
            legal = env.legal_actions()
            names = [env.action_to_string(int(a)) for a in legal[:60]]
            more = f" ... and {len(legal) - 60} more" if len(legal) > 60 else ""
            _say(out, f"{len(legal)} legal moves: " + ", ".join(names) + more)
            continue
        if cmd == "board":
            shown = False
            continue
        if cmd == "undo":
            if not history:
                _say(out, "nothing to undo: you have not moved yet")
            else:
                env.set_state(history.pop())
                _say(out, "took back your last move")
                shown = False
            continue
        try:
            actions = parse_move(env, line)
        except MoveError as e:
            _say(out, f"{e}. Type 'help' for the format, 'moves' for the legal moves.")
            continue
        if env.metadata["name"] != "amazons_split_v0" or env.phase == "move":
            history.append(env.get_state())
        for a in actions:
            env.step(a)
            _say(out, f"you play {env.action_to_string(a)}")
        shown = False
    _say(out, "")
    _say(out, env.render())
    gw, gb = env.infos["white"]["goal"], env.infos["black"]["goal"]
    reward = env.rewards[human]
    verdict = "you win" if reward > 0 else "you lose" if reward < 0 else "a draw"
    how = "cut by max_steps" if env.truncations["white"] else "over"
    _say(out, f"game {how} after {int(env.get_state()[1][2])} actions: white {gw}, black {gb}: {verdict}")
    return 0
