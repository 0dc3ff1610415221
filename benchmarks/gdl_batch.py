"""Random play on a GDL sheet five ways, in joint moves per CPU-second of this process (one core):

* ``playouts``: whole random games on one network inside one numba call (``random_playouts``),
  one game at a time;
* ``lanes``: N games on `ggpzoo.engine.VectorGames` as bit lanes (64 games to a machine word),
  ``step(random_actions(t))`` from Python;
* ``work areas``: the same with ``lanes=False`` (each game on its own work area of the network);
* ``play_games``: N whole random games in one numba call (bit lanes where the network suits them);
* ``envs``: N ``gdl.raw_env`` envs (compiled path) stepped one by one in Python, a random legal action each.

    NUMBA_NUM_THREADS=1 python benchmarks/gdl_batch.py tictactoe connect_four breakthrough skirmish --games 256

``--threads 1,2,4`` measures only ``play_games`` of ``--games`` games, per second of wall
clock, on each number of threads (``numba.set_num_threads``), to see how the batch scales:

    python benchmarks/gdl_batch.py tictactoe connect_four breakthrough skirmish --games 4096 --threads 1,2,4,8,16

Joint moves count forced ones too (none in these turn-taking sheets: every move is a choice).
Best of ``--repeats`` measurements of ``--seconds`` each. ``--wall`` times the wall clock
instead, to see what more threads give:

    for t in 1 2; do NUMBA_NUM_THREADS=$t python benchmarks/gdl_batch.py tictactoe connect_four \
        breakthrough skirmish --games 4096 --no-envs --wall; done
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ggpzoo import gdl
from ggpzoo.gdl.cli import batched_playouts, games_playouts
from ggpzoo.gdl.propnet import random_playouts

CLOCK = time.process_time  # --wall: time.perf_counter


def batched(game, n: int, seconds: float, lanes: bool) -> float:
    """Joint moves per second (of ``CLOCK``) of N games on VectorGames stepped from Python (forced ones too)."""
    steps, dt = batched_playouts(game, n, seconds, clock=CLOCK, lanes=lanes)
    return steps / dt


def whole_games(game, n: int, seconds: float) -> float:
    """Joint moves per second (of ``CLOCK``) of ``play_games`` of N random games (again until ``seconds``)."""
    steps, dt = games_playouts(game, n, seconds, clock=CLOCK)
    return steps / dt


def env_steps(game, n: int, seconds: float, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    envs = [gdl.raw_env(game, backend="compiled") for _ in range(n)]
    for e in envs:
        e.reset()
    steps, t0 = 0, CLOCK()
    while CLOCK() - t0 < seconds:
        for e in envs:
            if e.is_game_over():
                e.reset()
            legal = e.legal_actions()
            e.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps / (CLOCK() - t0)


def threads(game, n: int, repeats: int, counts: list[int]) -> None:
    """``play_games`` of N games per second of wall clock on each number of threads (best of
    ``repeats``), and its ratio to the first."""
    import numba

    from ggpzoo.engine import play_games
    from ggpzoo.gdl.spec import gdl_spec

    sp = gdl_spec(game)
    play_games(sp, 64, max_steps=None)  # compile / warm up
    row, first = [], None
    for t in counts:
        if t > numba.config.NUMBA_NUM_THREADS:
            raise SystemExit(f"--threads {t}: numba has {numba.config.NUMBA_NUM_THREADS} threads here")
        numba.set_num_threads(t)
        rate = 0.0
        for seed in range(1, repeats + 1):
            t0 = time.perf_counter()
            lengths = play_games(sp, n, seed=seed, max_steps=None)[1]
            rate = max(rate, int(lengths.sum()) / (time.perf_counter() - t0))
        first = first or rate
        row.append(f"{t}: {rate:,.0f} ({rate / first:.2f}x)")
    print(f"{game.name:<16} " + "  ".join(row), flush=True)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sheets", nargs="+")
    p.add_argument("--games", type=int, default=256)
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--no-envs", dest="envs", action="store_false", help="skip the (slow) envs column")
    p.add_argument("--wall", action="store_true", help="per second of wall clock, not of CPU time (for threads)")
    p.add_argument(
        "--threads",
        help="e.g. 1,2,4: only play_games of --games games per second of wall clock on each number of threads",
    )
    a = p.parse_args()
    global CLOCK
    CLOCK = time.perf_counter if a.wall else time.process_time
    n = a.games
    if a.threads:
        print(f"{'sheet':<16} play_games x{n} per second of wall clock, by threads")
    else:
        print(
            f"{'sheet':<16} {'playouts/s':>12} {f'lanes x{n}/s':>14} {f'work areas x{n}/s':>19} "
            f"{f'play_games x{n}/s':>19} {f'envs x{n}/s':>14}"
        )
    for name in a.sheets:
        g = gdl.load(gdl.game_path(name) if not name.endswith(".kif") else name)
        net = g.propnet()
        if a.threads:
            threads(g, n, a.repeats, [int(t) for t in a.threads.split(",")])
            continue
        best = [0.0] * 5
        for _ in range(a.repeats):
            k = 64  # games one at a time, doubled until they take a.seconds
            while True:
                steps, dt, _ = random_playouts(net, k, clock=CLOCK)
                if dt >= a.seconds:
                    break
                k *= 2
            best[0] = max(best[0], steps / dt)
            best[1] = max(best[1], batched(g, n, a.seconds, lanes=True))
            best[2] = max(best[2], batched(g, n, a.seconds, lanes=False))
            best[3] = max(best[3], whole_games(g, n, a.seconds))
            if a.envs:
                best[4] = max(best[4], env_steps(g, n, a.seconds))
        print(
            f"{g.name:<16} {best[0]:>12,.0f} {best[1]:>14,.0f} {best[2]:>19,.0f} {best[3]:>19,.0f} "
            f"{best[4] if a.envs else float('nan'):>14,.0f}"
        )


if __name__ == "__main__":
    main()
