"""Soak benchmark: long random play, watching speed and memory (a script, not a test).

For every env, ``--aec-steps`` random steps through ``env()`` (PettingZoo's wrapped env,
games restarted as they end), then ``--batched-steps`` steps through the batched engine
(``VectorGames`` with ``--num-games`` games, auto-reset). Each run is cut in ``--chunks``
parts; the report gives steps/s and the process's memory (resident set now and its
peak, ``VmRSS`` and ``VmHWM`` of ``/proc/self/status``) after the first and the last
part, so growth shows as a difference. The issue's figures are the defaults:

    python examples/soak.py                                           # 10^6 AEC steps per env, 10^8 batched
    python examples/soak.py --aec-steps 100000 --batched-steps 10000000    # a shorter run
"""

from __future__ import annotations

import argparse
import gc
import sys
import time

import numpy as np

from ggpzoo.engine.batch import VectorGames
from ggpzoo.envs import ENVS, load
from ggpzoo.utils import sample_action


def memory_mb(key: str) -> float:
    """``VmRSS`` (resident now) or ``VmHWM`` (peak resident) of this process in MB; 0
    where /proc is missing."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def aec_chunk(env, steps: int, rng) -> int:
    """``steps`` random steps through ``env`` (reset when the game ends); returns games ended."""
    ended = 0
    for _ in range(steps):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.reset()
            ended += 1
            continue
        env.step(sample_action(env.observe(agent)["action_mask"], rng))
    return ended


def batched_chunk(games: VectorGames, steps: int, t0: int) -> int:
    """At least ``steps`` game steps (batch steps of ``num_games``); returns batch steps done."""
    n = max(1, steps // games.num_games)
    for t in range(n):
        games.step(games.random_actions(seed=t0 + t))
    games.pop_results()
    return n


def report(what: str, rows: list[tuple[float, int, float, float]]) -> str:
    (t_first, s_first, rss_first, peak_first), (t_last, s_last, rss_last, peak_last) = rows[0], rows[-1]
    return (
        f"{what:<36} {s_first / t_first:>13,.0f} {s_last / t_last:>13,.0f} "
        f"{rss_first:>8.1f} {rss_last:>8.1f} {peak_first:>8.1f} {peak_last:>8.1f}"
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--env", default="all", help=f"an env or 'all' (default): {', '.join(ENVS)}")
    p.add_argument("--aec-steps", type=int, default=10**6, help="random steps through env() per env (default 10^6)")
    p.add_argument(
        "--batched-steps", type=int, default=10**8, help="game steps through VectorGames per env (default 10^8)"
    )
    p.add_argument("--num-games", type=int, default=1024, help="batch size of VectorGames (default 1024)")
    p.add_argument("--chunks", type=int, default=10, help="parts each run is cut in, for the first/last figures")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.env != "all" and args.env not in ENVS:
        p.error(f"unknown env {args.env!r}")
    for flag in ("aec_steps", "batched_steps"):
        if getattr(args, flag) < 0:
            p.error(f"--{flag.replace('_', '-')} must be at least 0")
    if args.chunks < 2 or args.num_games < 1:
        p.error("--chunks must be at least 2 and --num-games at least 1")
    names = list(ENVS) if args.env == "all" else [args.env]
    print(
        f"{'run':<36} {'steps/s first':>13} {'steps/s last':>13} {'RSS 1st':>8} {'RSS last':>8} "
        f"{'peak 1st':>8} {'peak last':>8}   (memory in MB)"
    )
    for name in names:
        if args.aec_steps:
            env = load(name).env()
            env.reset()
            aec_chunk(env, 1000, np.random.default_rng(args.seed))  # warm up (compiled kernels)
            rng = np.random.default_rng(args.seed)
            per, rows, ended = args.aec_steps // args.chunks, [], 0
            for _ in range(args.chunks):
                t = time.perf_counter()
                ended += aec_chunk(env, per, rng)
                elapsed = time.perf_counter() - t
                gc.collect()
                rows.append((elapsed, per, memory_mb("VmRSS"), memory_mb("VmHWM")))
            print(report(f"{name} env() x{per * args.chunks:,}", rows) + f"   ({ended:,} games)", flush=True)
        if args.batched_steps:
            games = VectorGames(name, args.num_games)
            games.reset()
            batched_chunk(games, games.num_games, 0)  # warm up
            per, rows, t0 = args.batched_steps // args.chunks, [], 1
            for _ in range(args.chunks):
                t = time.perf_counter()
                n = batched_chunk(games, per, t0)
                t0 += n
                elapsed = time.perf_counter() - t
                gc.collect()
                rows.append((elapsed, n * games.num_games, memory_mb("VmRSS"), memory_mb("VmHWM")))
            total = sum(r[1] for r in rows)
            print(report(f"{name} VectorGames x{total:,}", rows), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
