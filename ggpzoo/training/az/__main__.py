"""``python -m ggpzoo.training.az --env ENV --minutes M --out DIR``: Gumbel AlphaZero self-play
training (`ggpzoo.training.az.train()`)."""

from __future__ import annotations

import argparse
import sys

from ggpzoo.tools.cli import _any_env_name, _positive_float, _positive_int, _seed, _threads


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python -m ggpzoo.training.az",
        description="Train a Gumbel AlphaZero network by self-play; play it as az:OUT/model.json.",
    )
    p.add_argument(
        "--env", required=True, type=_any_env_name, help="the game: an env name, or gdl:SHEET (a two-role GDL game)"
    )
    p.add_argument(
        "--minutes",
        required=True,
        type=_positive_float,
        help="minutes of this run, wall clock (setup, the first compile, evaluations and saves included); "
        "with --resume, this many more",
    )
    p.add_argument(
        "--out",
        required=True,
        help="directory: checkpoint.pt, model.json + model.pt, log.csv; one that holds a run already is refused "
        "unless you --resume it",
    )
    p.add_argument("--simulations", type=_positive_int, default=16, help="search simulations per move (default 16)")
    p.add_argument("--games", type=_positive_int, default=64, help="self-play games played together (default 64)")
    p.add_argument(
        "--c-scale",
        type=_positive_float,
        default=0.1,
        help="scale of the completed Q-values in the search and its policy targets (default 0.1, mctx's; "
        "1.0 for games with thousands of legal actions)",
    )
    p.add_argument("--device", default="cpu", choices=("cpu", "cuda"), help="where the network runs (default cpu)")
    p.add_argument("--resume", action="store_true", help="go on from OUT/checkpoint.pt")
    p.add_argument(
        "--channels",
        type=_positive_int,
        default=None,
        help="network width: conv channels (default 32), or a GDL game's MLP width (default 128)",
    )
    p.add_argument("--blocks", type=int, default=3, help="residual blocks (default 3)")
    p.add_argument(
        "--features",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="the network also reads the game's feature planes (default: when the game has them)",
    )
    p.add_argument("--batch-size", type=_positive_int, default=256, help="training batch (default 256)")
    p.add_argument("--lr", type=_positive_float, default=1e-3, help="Adam's learning rate (default 1e-3)")
    p.add_argument("--checkpoint-minutes", type=_positive_float, default=5.0, help="save every (default 5)")
    p.add_argument("--eval-minutes", type=_positive_float, default=5.0, help="measure strength every (default 5)")
    p.add_argument("--eval-games", type=_positive_int, default=32, help="games per opponent and measure (default 32)")
    p.add_argument(
        "--threads", type=_threads, default=None, help="torch CPU threads (default: torch's; at most the CPU count)"
    )
    p.add_argument("--seed", type=_seed, default=0, help="seeds self-play and the network (default 0)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    args = p.parse_args(argv)
    from ggpzoo.training import check_out_folder

    try:
        check_out_folder(args.out)  # before any work
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2

    import torch

    from ggpzoo.training.az.train import AZConfig, train

    if args.threads:
        torch.set_num_threads(args.threads)
    config = AZConfig(
        env=args.env,
        simulations=args.simulations,
        games=args.games,
        c_scale=args.c_scale,
        channels=args.channels,
        blocks=max(args.blocks, 0),
        features=args.features,
        batch_size=args.batch_size,
        lr=args.lr,
        checkpoint_minutes=args.checkpoint_minutes,
        eval_minutes=args.eval_minutes,
        eval_games=args.eval_games,
        device=args.device,
        seed=args.seed,
    )
    try:
        done = train(config, args.minutes, args.out, resume=args.resume, progress=False if args.quiet else None)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(
        f"{args.env}: {done['step']} steps, {done['positions']} positions, {done['games']} games, "
        f"{done['seconds']:.0f} s ({done['cpu_seconds']:.0f} CPU-seconds) in all; play it as az:{args.out}/model.json"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
