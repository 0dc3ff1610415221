"""``python -m ggpzoo ggp-player`` and ``python -m ggpzoo ggp-match``: see the guide "GGP matches"."""

from __future__ import annotations

import argparse
import logging
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


def player_main(argv: list[str] | None = None) -> int:
    from ggpzoo.ggp.player import AGENT_HELP, GGPPlayer, PlayerServer
    from ggpzoo.ggp.seeds import SEED_SEARCH, SEED_SEARCHES

    p = _Parser(
        prog="python -m ggpzoo ggp-player",
        description="Serve a General Game Playing player over the GGP protocol (HTTP), one match at a time, "
        "for any GDL sheet a game server sends. Logs each match on stderr (and to --log-dir).",
        epilog="example: python -m ggpzoo ggp-player --port 9147 --agent mcts --log-dir ggp-logs",
    )
    p.add_argument("--port", type=_port, default=9147, help="TCP port (default 9147, the usual GGP port; 0: any)")
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0: every interface)")
    p.add_argument("--agent", default="mcts", help=f"what plays: {AGENT_HELP}")
    p.add_argument("--name", default="ggpzoo", help="the name INFO answers (default ggpzoo)")
    p.add_argument("--seed", type=_seed, default=None, help="seeds the searches")
    p.add_argument("--log-dir", default=None, help="write each match's log to LOG_DIR/MATCHID.json")
    p.add_argument(
        "--no-seeds",
        action="store_true",
        help="play the five seed games (the hand-written games' original sheets) on their sheets too, "
        "not on their hand-written kernels",
    )
    p.add_argument(
        "--seed-search",
        choices=SEED_SEARCHES,
        default=SEED_SEARCH,
        help="the search on a seed game's kernel: alpha-beta (default) or the game's shipped AlphaZero "
        "network with Gumbel search",
    )
    p.add_argument("--quiet", action="store_true", help="log warnings only")
    args = p.parse_args(argv)
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
        what = "the search kernels" + ("" if args.no_seeds else " and the seed games' searches")
        print(f"loading {what}; a first run compiles them: up to a few minutes", file=sys.stderr)
        server = PlayerServer(player, args.host, args.port, warm_seeds=True)
    except (ValueError, OSError) as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 1
    host, port = server.address
    print(f"ggpzoo GGP player ({player.agent}) listening on {host}:{port}", file=sys.stderr, flush=True)
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
