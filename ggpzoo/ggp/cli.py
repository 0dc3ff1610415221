"""``python -m ggpzoo ggp-player`` and ``python -m ggpzoo ggp-match``: see the guide "GGP matches"."""

from __future__ import annotations

import argparse
import logging
import os
import sys

__all__ = ["match_main", "player_main"]


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (0 < value < 10**6):
        raise argparse.ArgumentTypeError(f"{text} is not a positive number of seconds")
    return value


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port (0..65535)")
    return int(text)


def _seed(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not a non-negative whole number")
    return int(text)


def _unwritable(path: str) -> str:
    """Why ``path`` cannot be written (``""``: it can), found by opening it, before a match is played."""
    existed = os.path.lexists(path)
    try:
        with open(path, "a"):
            pass
    except OSError as e:
        return e.strerror or type(e).__name__
    if not existed:
        os.remove(path)
    return ""


def player_main(argv: list[str] | None = None) -> int:
    from ggpzoo.ggp.player import (
        AGENT_HELP,
        SILENCE_GRACE,
        SILENCE_PLAY_CLOCKS,
        GGPPlayer,
        PlayerServer,
        check_log_dir,
        check_origin,
    )
    from ggpzoo.ggp.protocol import MAX_MESSAGE_BYTES
    from ggpzoo.ggp.seeds import SEED_SEARCH, SEED_SEARCHES

    p = _Parser(
        prog="python -m ggpzoo ggp-player",
        description="Serve a General Game Playing player over the GGP protocol (HTTP POST), one match at a time, "
        "for any GDL sheet a game server sends. Logs each match on stderr (and to --log-dir). "
        f"Messages up to {MAX_MESSAGE_BYTES // 2**20} MiB; a match whose server says nothing for "
        f"{SILENCE_PLAY_CLOCKS} play clocks + {SILENCE_GRACE:g} s is dropped.",
        epilog="example: python -m ggpzoo ggp-player --port 9147 --agent mcts --log-dir ggp-logs",
    )
    net = p.add_argument_group("network")
    net.add_argument("--port", type=_port, default=9147, help="TCP port (default 9147, the usual GGP port; 0: any)")
    net.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default 127.0.0.1: this machine only; 0.0.0.0: every interface, "
        "for a game server on another machine)",
    )
    net.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="a web page origin (e.g. http://localhost:8080) whose browser requests are answered; "
        "repeatable (default: none, requests from web pages are refused)",
    )
    play = p.add_argument_group("play")
    play.add_argument("--agent", default="mcts", help=f"what plays: {AGENT_HELP}")
    play.add_argument("--name", default="ggpzoo", help="the name INFO answers (default ggpzoo)")
    search = p.add_argument_group("search")
    search.add_argument(
        "--seed", type=_seed, default=None, help="seeds the searches' random numbers (default: a fresh seed)"
    )
    seeds = p.add_argument_group(
        "seed games",
        "the five hand-written games of ggpzoo, recognised from the sheet a server sends "
        "(whatever its symbols are called) and played on their own kernels",
    )
    seeds.add_argument(
        "--no-seeds",
        action="store_true",
        help="play the seed games on their sheets too, not on their hand-written kernels",
    )
    seeds.add_argument(
        "--seed-search",
        choices=SEED_SEARCHES,
        default=SEED_SEARCH,
        help="the search on a seed game's kernel: alpha-beta (default) or the game's shipped AlphaZero "
        "network with Gumbel search",
    )
    logs = p.add_argument_group("logs")
    logs.add_argument("--log-dir", default=None, help="write each match's log to LOG_DIR/MATCHID.json")
    logs.add_argument("--quiet", action="store_true", help="log warnings only")
    args = p.parse_args(argv)
    try:
        if args.log_dir is not None:
            check_log_dir(args.log_dir)
        for origin in args.allow_origin:
            check_origin(origin)
    except ValueError as e:
        p.error(str(e))
    logging.basicConfig(
        level=logging.WARNING if args.quiet else logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr
    )
    try:
        player = GGPPlayer(
            args.agent,
            name=args.name,
            seed=args.seed,
            log_dir=args.log_dir,
            seeds=not args.no_seeds,
            seed_search=args.seed_search,
        )
        server = PlayerServer(player, args.host, args.port, warm_seeds=True, allow_origins=args.allow_origin)
    except (ValueError, OSError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 1
    host, port = server.address
    what = "the search kernels" + ("" if args.no_seeds else " and the seed games' searches")
    print(
        f"ggpzoo GGP player ({player.agent}) listening on {host}:{port}; loading {what} meanwhile "
        "(a first run compiles them: up to a few minutes)",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print(f"\n{p.prog}: interrupted", file=sys.stderr)
        return 130
    finally:
        server.stop()
    return 0


def match_main(argv: list[str] | None = None) -> int:
    from ggpzoo.ggp.server import run_match, save, summary

    p = _Parser(
        prog="python -m ggpzoo ggp-match",
        description="Play one GGP match between players over the GGP protocol, judged as ggp-base's game server "
        "judges: an illegal, unreadable or late reply (play clock + 1 s) gets a random legal move, recorded.",
        epilog="example: python -m ggpzoo ggp-match tictactoe --player 127.0.0.1:9147 --player 127.0.0.1:9148 "
        "--start 20 --play 1 --scramble --out match.json",
    )
    p.add_argument("sheet", help="a .kif path or a sheet shipped in ggpzoo/gdl/games (e.g. tictactoe)")
    p.add_argument(
        "--player",
        action="append",
        required=True,
        metavar="HOST:PORT",
        help="a player, once per role, in the sheet's role order",
    )
    p.add_argument("--start", type=_seconds, default=20.0, help="start clock in seconds (default 20)")
    p.add_argument("--play", type=_seconds, default=1.0, help="play clock in seconds (default 1)")
    p.add_argument("--scramble", action="store_true", help="rename every symbol but GDL keywords and numbers")
    p.add_argument("--seed", type=_seed, default=None, help="seeds the scrambling and the moves played for errors")
    p.add_argument("--match-id", default=None, help="the match id (default: a random one)")
    p.add_argument("--out", default=None, help="write the match record (JSON) here")
    p.add_argument("--quiet", action="store_true", help="print the result line only")
    args = p.parse_args(argv)
    if args.out is not None:
        why = _unwritable(args.out)
        if why:
            p.error(f"--out {args.out!r} cannot be written: {why}")

    def progress(turn, moves, errors):
        if not args.quiet:
            bad = "; ".join(e for e in errors if e)
            print(f"{turn + 1:4d}  {' '.join(moves)}" + (f"   [{bad}]" if bad else ""), file=sys.stderr)

    try:
        record = run_match(
            args.sheet,
            args.player,
            start_clock=args.start,
            play_clock=args.play,
            scramble_names=args.scramble,
            seed=args.seed,
            match_id=args.match_id,
            progress=progress,
        )
        if args.out:
            save(record, args.out)
    except (ValueError, OSError) as e:
        print(f"{p.prog}: error: {str(e).splitlines()[0] if str(e) else type(e).__name__}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"\n{p.prog}: interrupted", file=sys.stderr)
        return 130
    print(summary(record))
    return 0
