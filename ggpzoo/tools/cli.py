"""The command line: ``python -m ggpzoo {list,bench,arena,replay,play,train,warmup,gdl,ggp-player,ggp-match}``.

Every subcommand has ``--help``. Errors are one line on stderr (``ggpzoo arena: error:
...``), never a traceback: exit status 2 for a bad command line, 1 for anything else
that went wrong. Long work draws a progress bar on stderr when it is a terminal.
"""

from __future__ import annotations

import argparse
import math
import os
import sys

import numpy as np

from ggpzoo.envs import ENVS, load, registry_id

__all__ = ["main"]

DESCRIPTION = "ggpzoo: PettingZoo environments for two-player General Game Playing board games."
_E = list(ENVS)  # the examples name registered games, whichever they are
EPILOG = f"""examples:
  python -m ggpzoo list
  python -m ggpzoo bench --env {_E[0]} --seconds 5
  python -m ggpzoo arena --env {_E[2 % len(_E)]} --agents random,greedy,mcts:200 --games 20
  python -m ggpzoo arena --env gdl:tictactoe --agents random,mcts:200 --games 20
  python -m ggpzoo train --env gdl:tictactoe --minutes 5 --eval-every 1 --out runs
  python -m ggpzoo replay --env {_E[-1]} --white mcts:200 --black greedy --out game.gif --save game.json
  python -m ggpzoo play --env {_E[3 % len(_E)]} --opponent mcts:1000
  python -m ggpzoo warmup    # compile the engine and the searches once, ahead of time"""


class CLIError(Exception):
    """A problem to report in one line."""


class UsageError(CLIError):
    """A bad command-line value found after parsing: exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


TRAIN_MINUTES = 30.0  # train --minutes when not given
MAX_CELL_PX = 256  # replay --cell-px: a 10x10 board is then 2560 pixels wide, 20 MB a frame
MAX_GIF_BYTES = 1 << 30  # the frames of a replay GIF are held in memory: at most this many bytes
WARMUP_AGENTS = "greedy,mcts,ab"  # warmup --agents when not given


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def _positive_int(text: str) -> int:
    value = _whole(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not positive")
    return value


MAX_THREADS = os.cpu_count() or 1  # --threads: at most the machine's CPU count


def _threads(text: str) -> int:
    value = _positive_int(text)
    if value > MAX_THREADS:
        raise argparse.ArgumentTypeError(f"{text} threads: at most the CPU count, {MAX_THREADS}")
    return value


def _seed(text: str) -> int:
    value = _whole(text)
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"{text} is not a seed in 0..2**63 - 1")
    return value


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"{text} is not a positive finite number")
    return value


def _env_name(text: str) -> str:
    """An env name: a registered game, or ``gdl:SHEET`` (``--env`` of play and replay)."""
    _env_spec(text)
    return text


def _env_spec(text: str):
    """The spec of env ``text``, or an ``ArgumentTypeError`` saying why there is none."""
    from ggpzoo.envs import spec

    try:
        return spec(text)
    except ValueError as e:  # GDLError is one: a sheet that cannot be read or checked
        message = str(e)
        if message.startswith("unknown environment"):
            message = f"unknown env {text!r}; choose from {', '.join(ENVS)}, or gdl:SHEET (a GDL game)"
        raise argparse.ArgumentTypeError(message) from None


def _any_env_name(text: str) -> str:
    """An env name of a two-role game (``--env`` of arena and train)."""
    agents = _env_spec(text).agents
    if len(agents) != 2:
        raise argparse.ArgumentTypeError(f"{text} has roles {', '.join(agents)}; a two-role game is needed")
    return text


def _gdl_sheet(text: str) -> str:
    """``--gdl SHEET``: the env name ``gdl:SHEET``."""
    return _any_env_name("gdl:" + text)


def build_parser() -> argparse.ArgumentParser:
    from ggpzoo.agents.spec import GDL_SPEC_HELP, SPEC_HELP

    parser = _Parser(
        prog="python -m ggpzoo",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(
        dest="command",
        metavar="{list,bench,arena,replay,play,train,warmup,gdl,ggp-player,ggp-match}",
        parser_class=_Parser,
    )

    sub.add_parser(
        "list", help="list the environments and the agents", description="List the environments and the agent specs."
    )

    sub.add_parser(
        "bench",
        help="self-play speed of the envs (python -m ggpzoo.tools.bench)",
        add_help=False,
        description="Self-play throughput; see python -m ggpzoo bench --help.",
    )

    sub.add_parser(
        "gdl",
        help="load a GDL rule sheet as an env: roles, actions, speed, api_test",
        add_help=False,
        description="A GDL sheet as a PettingZoo env; see python -m ggpzoo gdl --help.",
    )

    for name, what in (("ggp-player", "serve a GGP player"), ("ggp-match", "run a GGP match between players")):
        sub.add_parser(name, help=f"{what} over the GGP protocol (HTTP)", add_help=False, description=what)

    arena = sub.add_parser(
        "arena",
        help="round-robin tournament: W/D/L table with intervals, Elo",
        description=(
            "Every pair of agents plays --games games: games 2k and 2k+1 start from the same random opening "
            "(--openings plies), once with each agent as white. Prints each agent's wins, draws and losses, "
            "its games and distinct games, a 95% Wilson interval on its score (n = the distinct games), "
            "maximum-likelihood Elo ratings with 95% margins, and each pair's result; a warning when games "
            "repeat."
        ),
    )
    game = arena.add_mutually_exclusive_group(required=True)
    game.add_argument("--env", type=_any_env_name, help=f"one of: {', '.join(ENVS)}; or gdl:SHEET, a two-role GDL game")
    game.add_argument(
        "--gdl",
        metavar="SHEET",
        type=_gdl_sheet,
        help="the same as --env gdl:SHEET: a .kif path or a sheet shipped in ggpzoo/gdl/games (e.g. tictactoe); "
        f"its agents: {GDL_SPEC_HELP}",
    )
    arena.add_argument("--agents", required=True, help=f"comma-separated agent specs, at least two: {SPEC_HELP}")
    arena.add_argument(
        "--games",
        type=_positive_int,
        default=10,
        help="games per pair (default 10; an even number keeps colours balanced)",
    )
    arena.add_argument(
        "--openings",
        type=_whole,
        default=None,
        metavar="PLIES",
        help="each pair of games starts from this many uniformly random legal plies (never ending the game), "
        "played once with each seat order, so that even deterministic agents play independent games "
        "(default 4; 0: every game from the plain start)",
    )
    arena.add_argument("--seed", type=_seed, default=0, help="seeds every game and the openings (default 0)")
    arena.add_argument(
        "--max-steps", type=_positive_int, default=None, help="cut games after this many actions (scored a draw)"
    )
    arena.add_argument("--anchor", default=None, help="the agent rated Elo 0 (default: the first)")
    arena.add_argument("--csv", metavar="PATH", help="write one row per game as CSV")
    arena.add_argument(
        "--json",
        metavar="PATH",
        help="write standings, pairs, Elo, the distinct games and every game's actions as JSON "
        "(also when stopped with Ctrl-C: the games finished, flagged interrupted)",
    )
    arena.add_argument("--no-progress", action="store_true", help="no progress bar")

    replay = sub.add_parser(
        "replay",
        help="play or load a game; write it as an animated GIF (or a PNG), text and JSON",
        description=(
            "Play a game between two agents, or load one (a JSON move list, or a game of an arena JSON file), "
            "then write it as an animated GIF (--out game.gif), a picture of the final position "
            "(--out board.png), every position as text (--out game.txt) and/or a JSON move list "
            "(--save game.json). A GDL game (--env gdl:SHEET) is drawn where its fluents describe a grid "
            "((cell ?x ?y ...) and the like); one without a grid has no picture, only text."
        ),
    )
    replay.add_argument(
        "--env", type=_env_name, help="the env to play, or gdl:SHEET, a two-role GDL game (not needed with --load)"
    )
    replay.add_argument("--load", metavar="PATH", help="a game JSON file (or an arena --json file) to replay")
    replay.add_argument("--index", type=int, default=None, help="with an arena JSON file: which game (default 0)")
    replay.add_argument(
        "--white",
        default="random",
        help=f"white's agent when playing, a GDL game's first role's (default random): {SPEC_HELP}",
    )
    replay.add_argument("--black", default="random", help="black's agent, a GDL game's second role's (default random)")
    replay.add_argument("--seed", type=_seed, default=0, help="seeds the agents (default 0)")
    replay.add_argument("--max-steps", type=_positive_int, default=None, help="cut the game after this many actions")
    replay.add_argument(
        "--out",
        metavar="PATH",
        help="write the game as an animated .gif, its final position as a .png, or every position as .txt",
    )
    replay.add_argument("--save", metavar="PATH", help="write the game as a JSON move list")
    replay.add_argument("--fps", type=_positive_float, default=2.0, help="GIF frames per second (default 2; 0.1..50)")
    replay.add_argument("--cell-px", type=int, default=None, help="cell size in pixels (default 48)")
    replay.add_argument("--no-progress", action="store_true", help="no progress bar")

    play = sub.add_parser(
        "play",
        help="play against an agent in the terminal",
        description="Play a game in the terminal against an agent. Type a move as its cells, each as x,y "
        "(column, row, counted from 1 at the lower left as the board is drawn: 4,1 4,5) or as a column letter "
        "and a row (a = column 1: d1 d5); in a GDL game (--env gdl:SHEET) as a GDL term of the sheet ((mark 1 2) "
        "or mark 1 2, in any case) or its number in the list 'moves' shows. 'help', 'moves', 'undo', 'quit' also "
        "work. Every agent spec plays, e.g. --opponent baseline:32 or --opponent az:runs/az/ENV/model.json; "
        "it plays every role but yours.",
    )
    play.add_argument(
        "--env", required=True, type=_env_name, help=f"one of: {', '.join(ENVS)}; or gdl:SHEET, a GDL game"
    )
    play.add_argument(
        "--opponent", default="mcts", help=f"the agent to play against (default mcts, 1000 simulations): {SPEC_HELP}"
    )
    play.add_argument(
        "--color",
        "--role",
        dest="color",
        metavar="ROLE",
        default=None,
        help="your side: white or black (default white; white moves first), or a GDL game's role "
        "(default its first, e.g. xplayer)",
    )
    play.add_argument("--seed", type=_seed, default=None, help="seeds the opponent")

    train = sub.add_parser(
        "train",
        help="train MaskablePPO on the batched self-play env (needs the train extra)",
        description="Train a game with MaskablePPO on the batched self-play env, with the game's recipe "
        "(ggpzoo.training.train), a GDL game (--gdl) too. Writes OUT/ENV/ (OUT/gdl_SHEET/): "
        "eval.csv, checkpoints, model.zip, policy.json/.pt, summary.json.",
    )
    game = train.add_mutually_exclusive_group(required=True)
    game.add_argument("--env", type=_any_env_name, help=f"one of: {', '.join(ENVS)}; or gdl:SHEET, a two-role GDL game")
    game.add_argument(
        "--gdl",
        metavar="SHEET",
        type=_gdl_sheet,
        help="the same as --env gdl:SHEET: a .kif path or a sheet shipped in ggpzoo/gdl/games (e.g. tictactoe); "
        "it trains an MLP on the fluent vector",
    )
    train.add_argument(
        "--minutes",
        type=_positive_float,
        default=None,
        help=f"minutes of training in this run (default {TRAIN_MINUTES:g}); with --resume, this many more. "
        "The clock starts after the first batch of moves (numba's first compile, about a minute in a fresh "
        "install, is not counted) and stops during evaluations and checkpoints",
    )
    train.add_argument(
        "--timesteps",
        type=_positive_int,
        default=None,
        help="stop after this many learner steps in this run (with --resume, this many more), "
        "or at --minutes, whichever comes first",
    )
    train.add_argument(
        "--out",
        default="runs",
        help="output folder (default runs): the run is OUT/ENV/; a folder that holds a run already is refused "
        "unless you --resume it",
    )
    train.add_argument("--seed", type=_seed, default=0)
    train.add_argument("--resume", action="store_true", help="go on from OUT/ENV/checkpoint.zip")
    train.add_argument("--eval-every", type=_positive_float, default=3.0, help="minutes between evaluations")
    train.add_argument("--eval-games", type=_positive_int, default=200, help="games per opponent per evaluation")
    train.add_argument("--final-eval-games", type=_positive_int, default=300, help="games per opponent at the end")
    train.add_argument("--threads", type=_threads, default=1, help="torch threads (default 1; at most the CPU count)")
    train.add_argument("--device", default="cpu", help="torch device: cpu (default) or cuda")
    train.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a recipe key (JSON value), e.g. --set n_envs=128 --set 'opponents={\"greedy\": 1}'",
    )
    train.add_argument("--no-progress", action="store_true", help="no progress bar")

    warmup = sub.add_parser(
        "warmup",
        help="compile the engine and the agents' searches now (numba's cache), so that later runs start at once",
        description="Compile, once, the numba code of the envs and of the agents' searches into numba's cache "
        "(a minute or two after an install or an update), so that later commands start at once.",
    )
    warmup.add_argument(
        "--env",
        action="append",
        type=_env_name,
        help=f"an env to warm (repeat for several; default: {next(iter(ENVS))}, which shares its code with every "
        "hand-written game, and gdl:tictactoe, which shares its code with every GDL sheet)",
    )
    warmup.add_argument(
        "--agents", default=WARMUP_AGENTS, help=f"comma-separated agent specs (default {WARMUP_AGENTS})"
    )
    return parser


# ----------------------------------------------------------------------------- subcommands
def _list(args) -> int:
    from ggpzoo.agents.spec import SPEC_HELP

    print(f"{'env':<21} {'registry id':<28} {'actions':>8}  {'observation':<22} game")
    for name in ENVS:
        raw = load(name).raw_env
        k = raw.kernel
        obs = f"({k.H}, {k.W}, {raw.num_planes}) {np.dtype(raw.obs_dtype).name}"
        doc = (raw.__doc__ or "").strip().splitlines()[0]
        print(f"{name:<21} {registry_id(name):<28} {raw.num_actions:>8}  {obs:<22} {doc}")
    from ggpzoo.gdl import GAMES_DIR

    sheets = sorted(f[:-4] for f in os.listdir(GAMES_DIR) if f.endswith(".kif"))
    print(f"\nGDL games (--env gdl:SHEET, or gdl:PATH.kif for any sheet): {', '.join('gdl:' + s for s in sheets)}")
    print(f"\nagents: {SPEC_HELP}")
    return 0


def _make_agents(specs: list[str], env: str, seed: int | None):
    from ggpzoo.agents import make_agent

    agents = []
    for i, spec in enumerate(specs):
        agents.append(make_agent(spec, env, seed=None if seed is None else seed + 1000 * i))
    return agents


def _arena(args) -> int:
    from ggpzoo.tools.arena import MAX_OPENING_PLIES, OPENING_PLIES, ArenaInterrupted, check_output, round_robin

    prog = "python -m ggpzoo arena"
    openings = OPENING_PLIES if args.openings is None else args.openings
    try:
        if not 0 <= openings <= MAX_OPENING_PLIES:
            raise ValueError(f"--openings must be in 0..{MAX_OPENING_PLIES} plies, got {openings}")
        for path in (args.csv, args.json):  # before the first game, not after the last
            if path is not None:
                check_output(path)
    except ValueError as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        return 2
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    if len(specs) < 2:
        raise CLIError(f"--agents needs at least two agents, got {specs}")
    if len(set(specs)) != len(specs):
        raise CLIError(f"--agents names an agent twice: {args.agents!r}")
    anchor = 0
    if args.anchor is not None:
        if args.anchor not in specs:
            raise CLIError(f"--anchor {args.anchor!r} is none of the agents {specs}")
        anchor = specs.index(args.anchor)
    env = args.env or args.gdl
    agents = _make_agents(specs, env, args.seed)
    progress = False if args.no_progress else None
    try:
        result = round_robin(
            env,
            agents,
            args.games,
            seed=args.seed,
            max_steps=args.max_steps,
            anchor=anchor,
            progress=progress,
            openings=openings,
        )
    except ArenaInterrupted as stop:  # show and save the games finished so far, then stop as Ctrl-C does
        print(stop.result.table())
        _arena_outputs(args, stop.result)
        raise
    print(result.table())
    _arena_outputs(args, result)
    return 0


def _arena_outputs(args, result) -> None:
    if args.csv:
        result.write_csv(args.csv)
        print(f"wrote {args.csv}")
    if args.json:
        result.write_json(args.json)
        print(f"wrote {args.json}" + (f" ({len(result.games)} games, interrupted)" if result.interrupted else ""))


def _check_writable(path: str | None) -> None:
    """Fail now, not after an hour of games, if ``path`` cannot be written."""
    if path is None:
        return
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CLIError(f"cannot write {path}: no folder {folder}")
    if os.path.isdir(path):
        raise CLIError(f"cannot write {path}: it is a folder")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise CLIError(f"cannot write {path}: permission denied")
    if not os.path.exists(path) and not os.access(folder, os.W_OK | os.X_OK):
        raise CLIError(f"cannot write {path}: the folder {folder} is not writable")


def _replay(args) -> int:
    from ggpzoo.envs import spec
    from ggpzoo.tools import replay as R
    from ggpzoo.tools._progress import Progress

    if args.out and not args.out.lower().endswith((".gif", ".png", ".txt")):
        raise CLIError(
            f"--out must end in .gif (the game), .png (the final position) or .txt (the game as text), got {args.out!r}"
        )
    if args.cell_px is not None and not 16 <= args.cell_px <= MAX_CELL_PX:
        raise CLIError(f"--cell-px must be in 16..{MAX_CELL_PX}, got {args.cell_px}")
    if not R.MIN_FPS <= args.fps <= R.MAX_FPS:  # before the game is played
        raise CLIError(f"--fps must be in {R.MIN_FPS:g}..{R.MAX_FPS:g} frames a second, got {args.fps:g}")
    for path in (args.out, args.save):
        _check_writable(path)
    show = False if args.no_progress else None
    if args.load:
        if not os.path.isfile(args.load):
            raise CLIError(f"no such game file: {args.load}")
        game = R.load_game(args.load, args.index)
        if args.env and args.env != game["env"]:
            raise CLIError(f"--env {args.env} but {args.load} is a game of {game['env']}")
    else:
        if not args.env:
            raise CLIError("give --env to play a game, or --load a game file")
        if args.out and not args.out.lower().endswith(".txt"):  # no game played for a picture it cannot draw
            _drawable(args.env)
        white, black = _make_agents([args.white, args.black], args.env, args.seed)
        with Progress(None, f"playing {white.name} vs {black.name}", enabled=show) as bar:
            game = R.record_game(
                args.env,
                white,
                black,
                seed=args.seed,
                max_steps=args.max_steps,
                on_move=lambda env, a: bar.update(1, "actions"),
            )
    roles = spec(game["env"]).agents
    goals = game["goals"]
    top = [r for r, g in zip(roles, goals, strict=True) if g == max(goals)]
    if game["over"]:
        result = f"{top[0]} wins" if len(top) == 1 else "a draw"
    else:
        result = "cut before the end"
    players = [game.get("white", roles[0]), game.get("black", roles[1])] + list(roles[2:])
    who = " vs ".join(f"{p} ({r})" for p, r in zip(players, roles, strict=True))
    print(f"{game['env']}: {who}, {len(game['actions'])} actions, goals {'-'.join(map(str, goals))}: {result}")
    if args.save:
        R.save_game(game, args.save)
        print(f"wrote {args.save}")
    if args.out:
        if args.out.lower().endswith(".txt"):
            R.write_text(game, args.out)
        elif args.out.lower().endswith(".png"):
            _drawable(game["env"])
            R.write_png(R.final_image(game, args.cell_px), args.out)
        else:
            _drawable(game["env"])
            frame = R.final_image(game, args.cell_px).nbytes
            if frame * (len(game["actions"]) + 1) > MAX_GIF_BYTES:
                raise CLIError(
                    f"a GIF of {len(game['actions']) + 1} frames of {frame / 2**20:.1f} MB would not fit in "
                    f"{MAX_GIF_BYTES >> 20} MB; use a smaller --cell-px or --out a .png"
                )
            with Progress(len(game["actions"]), "drawing", enabled=show) as bar:
                frames = R.positions(game, args.cell_px, on_frame=bar.update)
            R.write_gif(frames, args.out, fps=args.fps)
        print(f"wrote {args.out}")
    return 0


def _drawable(env_name: str) -> None:
    """A CLIError if the positions of ``env_name`` cannot be drawn (a GDL sheet without a grid)."""
    env = load(env_name).raw_env()
    env.reset()
    try:
        env.board_image(16)
    except ValueError as e:
        raise CLIError(f"{e}; --out GAME.txt writes its positions as text") from None


def _play(args) -> int:
    from ggpzoo.envs import spec
    from ggpzoo.tools.terminal import play_terminal

    roles = spec(args.env).agents
    if len(roles) < 2:
        raise CLIError(f"{args.env} has one role ({roles[0]}): play needs a game of two or more roles")
    (opponent,) = _make_agents([args.opponent], args.env, args.seed)
    return play_terminal(args.env, opponent, human=args.color)


def _train(args) -> int:
    import json

    from ggpzoo.training.train import DEFAULT_RECIPE, train

    overrides = {}
    for item in args.set:
        key, eq, value = item.partition("=")
        if not eq:
            raise CLIError(f"--set takes KEY=VALUE, got {item!r}")
        if key.strip() not in DEFAULT_RECIPE:
            raise CLIError(f"--set: unknown recipe keys [{key.strip()!r}]; known: {', '.join(DEFAULT_RECIPE)}")
        try:
            overrides[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            overrides[key.strip()] = value  # a bare string, e.g. --set reward=winloss
    from ggpzoo.training import check_out_folder

    try:
        check_out_folder(args.out)  # before any work
    except ValueError as e:
        raise UsageError(f"--out: {e}") from None
    game = args.env or args.gdl
    minutes = args.minutes
    if minutes is None:
        minutes = TRAIN_MINUTES
        print(f"no --minutes given: training for {minutes:g} minutes (the default); Ctrl-C stops and saves")
    summary = train(
        game,
        out=args.out,
        minutes=minutes,
        timesteps=args.timesteps,
        seed=args.seed,
        resume=args.resume,
        eval_every=args.eval_every,
        eval_games=args.eval_games,
        final_eval_games=args.final_eval_games,
        threads=args.threads,
        device=args.device,
        progress=not args.no_progress,
        **overrides,
    )
    print(
        f"{summary['env']}: {summary['timesteps']:,} steps in {summary['train_minutes']} min of training "
        f"({summary['steps_per_second']:,} steps/s); wrote {os.path.join(args.out, summary['env'])}"
    )
    return 0


def _warmup(args) -> int:
    import time

    from ggpzoo.agents import make_agent

    for env_name in args.env or [next(iter(ENVS)), "gdl:tictactoe"]:
        start = time.perf_counter()
        env = load(env_name).raw_env()
        specs = [a.strip() for a in args.agents.split(",") if a.strip()]
        for spec in specs:
            if not (spec.startswith("ab") and len(env.possible_agents) != 2):
                make_agent(spec, env_name, seed=0)  # the agents that search compile theirs when built
        for seed in range(2):  # random games through the env's own code
            env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            while not env.is_game_over():
                env.step(int(rng.choice(env.legal_actions())))
        print(f"{env_name}: the engine and {', '.join(specs)} ready ({time.perf_counter() - start:.1f} s)")
    return 0


def _notice(args):
    """The compile notice of a command (`ggpzoo.engine.warmup.compile_notice`): it names the
    command's env and the searches of its agents."""
    from contextlib import nullcontext

    from ggpzoo.engine.warmup import compile_notice, estimate
    from ggpzoo.envs import compile_seconds

    env = getattr(args, "env", None) or getattr(args, "gdl", None)
    if args.command == "warmup" or not isinstance(env, str):
        return nullcontext()
    names = {"mcts": "mcts", "ab": "ab", "greedy": "greedy", "baseline": "az", "az": "az"}
    specs = [getattr(args, k, None) or "" for k in ("agents", "opponent", "white", "black")]
    kinds = sorted({names[k] for a in ",".join(specs).split(",") if (k := a.strip().partition(":")[0]) in names})
    what = f"the {env} engine" + (f" and the {', '.join(kinds)} search" if kinds else "")
    return compile_notice(what, estimate(compile_seconds(env), kinds))


COMMANDS = {"list": _list, "arena": _arena, "replay": _replay, "play": _play, "train": _train, "warmup": _warmup}


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); return the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] == "bench":  # its own parser and --help (bench --gdl: the GDL benchmark's)
        from ggpzoo.tools import bench

        return bench.main(argv[1:], prog="python -m ggpzoo bench")
    if argv and argv[0] == "gdl":  # ggpzoo.gdl.cli's own parser
        from ggpzoo.gdl.cli import main as gdl_main

        return gdl_main(argv[1:])
    if argv and argv[0] in ("ggp-player", "ggp-match"):  # ggpzoo.ggp.cli's own parsers
        from ggpzoo.ggp import cli as ggp_cli

        return (ggp_cli.player_main if argv[0] == "ggp-player" else ggp_cli.match_main)(argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    if args.command == "play" and args.color is not None:  # the roles are the game's: known once --env is
        from ggpzoo.envs import spec

        roles = spec(args.env).agents
        if args.color not in roles:
            prog = f"{parser.prog} play"
            parser.exit(
                2,
                f"{prog}: error: argument --color/--role: invalid choice: {args.color!r} (choose from "
                f"{', '.join(roles)}) (see {prog} --help)\n",
            )
    try:
        with _notice(args):
            return COMMANDS[args.command](args)
    except (KeyboardInterrupt, Exception) as e:  # noqa: BLE001 - the promised one-line error
        if _interrupted(e):  # Ctrl-C at any moment (in numba's code: a SystemError): no traceback
            print("\nbye", flush=True)
            return 130
        if not _expected(e):
            raise
        message = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        print(f"{parser.prog} {args.command}: error: {message}", file=sys.stderr)
        return 2 if isinstance(e, UsageError) else 1


def _interrupted(e: BaseException) -> bool:
    """Whether ``e`` is Ctrl-C: a KeyboardInterrupt, or the SystemError numba raises when one
    arrives while its code runs (the KeyboardInterrupt is its context)."""
    while e is not None:
        if isinstance(e, KeyboardInterrupt):
            return True
        e = e.__cause__ or e.__context__
    return False


def _expected(e: Exception) -> bool:
    """Errors of the user's input or environment, reported in one line (the rest are bugs)."""
    from gymnasium.error import DependencyNotInstalled

    from ggpzoo.tools.arena import ArenaError

    return isinstance(e, (CLIError, ValueError, OSError, ImportError, ArenaError, DependencyNotInstalled))
