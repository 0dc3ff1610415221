"""Play a ggpzoo game against an agent in the terminal, and read moves typed by a person.

* `parse_move()` - the action a person means by ``"4,1 4,5 4,1"``, ``"e3-f4"`` or
  ``"(4,1)->(4,5)/(4,1)"`` (in a GDL game ``"(mark 1 2)"`` or ``"mark 1 2"``), or a
  `MoveError` that says what is wrong with it.
* `play_terminal()` - the game loop of ``python -m ggpzoo play``, for every game: it asks
  the env how moves are typed, read and listed (``move_help()``, ``parse_move()``,
  ``legal_moves_text()``) and drawn (``render()``).

Cells are 1-based ``x,y`` (column, row) as the boards are drawn, or a column letter and a
row (``a1`` is ``1,1``; Mad Bishops labels its columns a..j). A GDL game's moves are its
sheet's terms, in any case, or their numbers in the list of legal moves.
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


def _forced_lines(env) -> list[str]:
    """The moves ``env`` played by itself in its last step (a role's only legal move, where no
    role had a choice), as lines to show."""
    from ggpzoo.tools.replay import forced_moves

    return [f"{role} plays {move} (its only move)" for role, move in forced_moves(env)]


def play_terminal(
    env_name: str,
    opponent: Agent,
    human: str | None = None,
    input_fn: Callable[[str], str] | None = None,
    out=None,
) -> int:
    """Play ``env_name`` as role ``human`` (default the first: ``"white"``, or a GDL sheet's first
    role) against ``opponent``, which plays every other role, on the terminal.

    Moves are typed as the env reads them (`GGPEnv.parse_move()`: cells; a GDL sheet's
    ``parse_move()``: GDL terms). Commands besides moves: ``help``, ``moves`` (the legal ones),
    ``undo`` (take back your last move), ``board``, ``quit``. Where several roles choose at once,
    the others' moves are shown once yours is in. Returns 0 when the game ends or the player quits.
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

    env = load(env_name).raw_env(render_mode="ansi")
    roles = list(env.possible_agents)
    if len(roles) < 2:
        raise ValueError(f"{env_name} has one role ({roles[0]}): play needs a game of two or more roles")
    human = roles[0] if human is None else human
    if human not in roles:
        raise ValueError(f"{human!r} is not a role of {env_name}; its roles: {', '.join(roles)}")
    env.reset()
    # An opponent told of the game's start and of every move, as the arena tells it (a remote
    # GGP player, ggp:HOST:PORT: START, PLAY, STOP): it follows one game from the start.
    follows = hasattr(opponent, "begin") and hasattr(opponent, "moved")
    if follows:
        if len(roles) != 2:
            raise ValueError(f"{opponent.name} plays two-role games; {env_name} has roles {', '.join(roles)}")
        opponent.reset()
        opponent.begin(env, next(r for r in roles if r != human))

    def step(role: str, action: int) -> None:
        env.step(action)
        if follows:
            opponent.moved(env, role, int(action))

    history = []  # the positions at the start of each turn the person moved in, for undo
    turn_start, saved = None, False
    hidden = []  # the opponent's moves of a joint move the person has yet to choose in
    others = "the other side" if len(roles) == 2 else "the other roles"
    _say(
        out,
        f"{env_name}: you play {human}, {opponent.name} plays {others}. "
        "Type a move, or 'help', 'moves', 'undo', 'quit'.",
    )
    _say(out, move_help(env))
    shown = False
    while not env.is_game_over():
        if env.at_turn_start():
            turn_start, saved = env.get_state(), False
        mover = env.agent_selection
        if mover != human:
            start = time.perf_counter()
            action = opponent.act(env)
            seconds = time.perf_counter() - start
            text = env.action_to_string(action)
            step(mover, action)
            hidden.append(f"{mover} ({opponent.name}) plays {text}{_search_note(opponent, seconds)}")
            hidden += _forced_lines(env)
            if env.at_turn_start() or env.is_game_over():
                for line in hidden:
                    _say(out, line)
                hidden = []
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
        except EOFError:  # (Ctrl-C goes up: the command line says bye, exit status 130)
            if follows:
                opponent.reset()
            _say(out, "\nbye")
            return 0
        cmd = line.strip().lower()
        if not cmd:
            continue
        if cmd in ("quit", "exit", "q"):
            if follows:
                opponent.reset()  # (a GGP player: ABORT)
            _say(out, "bye")
            return 0
        if cmd in ("help", "?", "h"):
            _say(out, move_help(env))
            _say(out, "Commands: moves (list the legal ones), undo (take back your last move), board, quit.")
            continue
        if cmd in ("moves", "legal"):
            _say(out, env.legal_moves_text())
            continue
        if cmd == "board":
            shown = False
            continue
        if cmd == "undo":
            if follows:
                _say(out, f"no undo against {opponent.name}: it follows the game move by move")
            elif not history:
                _say(out, "nothing to undo: you have not moved yet")
            else:
                env.set_state(history.pop())
                hidden, saved = [], False
                _say(out, "took back your last move")
                shown = False
            continue
        try:
            actions = parse_move(env, line)
        except MoveError as e:
            _say(out, f"{e}. Type 'help' for the format, 'moves' for the legal moves.")
            continue
        if not saved:
            history.append(turn_start)
            saved = True
        for a in actions:
            text = env.action_to_string(a)
            step(mover, a)
            _say(out, f"you play {text}")
            hidden += _forced_lines(env)
        if env.at_turn_start() or env.is_game_over():
            for line in hidden:
                _say(out, line)
            hidden = []
        shown = False
    _say(out, "")
    _say(out, env.render())
    outcome = env.outcome()
    goals = outcome.goals
    best_other = max(g for r, g in goals.items() if r != human)
    verdict = "you win" if goals[human] > best_other else "you lose" if goals[human] < best_other else "a draw"
    how = "cut by max_steps" if outcome.termination == "max_steps" else "over"
    scores = ", ".join(f"{r} {g}" for r, g in goals.items())
    _say(out, f"game {how} after {outcome.steps} actions: {scores}: {verdict}")
    return 0
