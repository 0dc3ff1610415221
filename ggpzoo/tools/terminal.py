"""Play a ggpzoo game against an agent in the terminal, and read moves typed by a person.

* `parse_move()` - the action a person means by ``"4,1 4,5 4,1"``, ``"e3-f4"`` or
  ``"(4,1)->(4,5)/(4,1)"``, or a `MoveError` that says what is wrong with it.
* `play_terminal()` - the game loop of ``python -m ggpzoo play``.

Cells are 1-based ``x,y`` (column, row) as the boards are drawn, or a column letter and a
row (``a1`` is ``1,1``; Mad Bishops labels its columns a..j).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from ggpzoo.agents.base import Agent
from ggpzoo.envs import load
from ggpzoo.envs.notation import MoveError

__all__ = ["MoveError", "parse_move", "move_help", "play_terminal"]


def move_help(env) -> str:
    """How to type a move in ``env`` now: `GGPEnv.move_help()`."""
    return env.unwrapped.move_help()


def parse_move(env, text: str) -> list[int]:
    """The action(s) a person means by ``text`` in ``env``'s current position:
    `GGPEnv.parse_move()`.

    >>> from ggpzoo.envs import mad_bishops_v0
    >>> env = mad_bishops_v0.raw_env(); env.reset()
    >>> env.action_to_string(parse_move(env, "a1 b2")[0])
    '(1,1)->(2,2)'
    >>> parse_move(env, "a1 c3")
    Traceback (most recent call last):
    ...
    ggpzoo.envs.notation.MoveError: (1,1)->(3,3) is illegal: the path (1,1)->(3,3) is blocked at (2,2)
    """
    return env.unwrapped.parse_move(text)


def _say(out, text: str = "") -> None:
    out.write(text + "\n")
    out.flush()


def _search_note(opponent: Agent, seconds: float) -> str:
    """What the opponent's last move cost: its simulations where it searched (MCTS, a
    network with Gumbel search), and the time it took, measured here for any agent."""
    info = getattr(opponent, "last_search", None) or {}
    sims = f"{info['simulations']} simulations, " if info.get("simulations") else ""
    return f"  ({sims}{seconds:.2f} s)"


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
    _say(
        out,
        f"{env_name}: you play {human}, {opponent.name} plays the other side. "
        "Type a move, or 'help', 'moves', 'undo', 'quit'.",
    )
    _say(out, move_help(env))
    shown = False
    while not env.is_game_over():
        mover = env.agent_selection
        if mover != human:
            start = time.perf_counter()
            action = opponent.act(env)
            seconds = time.perf_counter() - start
            env.step(action)
            _say(
                out, f"{mover} ({opponent.name}) plays {env.action_to_string(action)}{_search_note(opponent, seconds)}"
            )
            shown = False
            continue
        if not shown:
            _say(out, "")
            _say(out, env.render())
            phase = f", {env.phase} step" if env.phase else ""
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
        if env.at_turn_start():
            history.append(env.get_state())
        for a in actions:
            env.step(a)
            _say(out, f"you play {env.action_to_string(a)}")
        shown = False
    _say(out, "")
    _say(out, env.render())
    outcome = env.outcome()
    verdict = "a draw" if outcome.winner is None else "you win" if outcome.winner == human else "you lose"
    how = "cut by max_steps" if outcome.termination == "max_steps" else "over"
    gw, gb = outcome.goals["white"], outcome.goals["black"]
    _say(out, f"game {how} after {outcome.steps} actions: white {gw}, black {gb}: {verdict}")
    return 0
