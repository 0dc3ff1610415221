"""Random play on a GDL sheet three ways, in joint moves per CPU-second of this process (one core):

* ``playouts``: whole random games on one network inside one numba call (``random_playouts``);
* ``batched``: N games on `ggpzoo.engine.VectorGames`, ``step(random_actions(t))`` from Python;
* ``envs``: N ``gdl.raw_env`` envs (compiled path) stepped one by one in Python, a random legal action each.

    NUMBA_NUM_THREADS=1 python benchmarks/gdl_batch.py tictactoe connect_four breakthrough --games 256

Joint moves count forced ones too (none in these turn-taking sheets: every move is a choice).
Best of ``--repeats`` measurements of ``--seconds`` each.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from ggpzoo import gdl
from ggpzoo.gdl.cli import batched_playouts
from ggpzoo.gdl.propnet import random_playouts


def env_steps(game, n: int, seconds: float, seed: int = 0) -> float:
    rng = np.random.default_rng(seed)
    envs = [gdl.raw_env(game, backend="compiled") for _ in range(n)]
    for e in envs:
        e.reset()
    steps, t0 = 0, time.process_time()
    while time.process_time() - t0 < seconds:
        for e in envs:
            if e.is_game_over():
                e.reset()
            legal = e.legal_actions()
            e.step(int(legal[rng.integers(len(legal))]))
            steps += 1
    return steps / (time.process_time() - t0)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sheets", nargs="+")
    p.add_argument("--games", type=int, default=256)
    p.add_argument("--seconds", type=float, default=1.0)
    p.add_argument("--repeats", type=int, default=3)
    a = p.parse_args()
    print(f"{'sheet':<16} {'playouts/s':>12} {f'batched x{a.games}/s':>16} {f'envs x{a.games}/s':>14}")
    for name in a.sheets:
        g = gdl.load(gdl.game_path(name) if not name.endswith(".kif") else name)
        net = g.propnet()
        best = [0.0, 0.0, 0.0]
        for _ in range(a.repeats):
            n = 64
            while True:
                steps, dt, _ = random_playouts(net, n, clock=time.process_time)
                if dt >= a.seconds:
                    break
                n *= 2
            best[0] = max(best[0], steps / dt)
            steps, dt = batched_playouts(g, a.games, a.seconds)
            best[1] = max(best[1], steps / dt)
            best[2] = max(best[2], env_steps(g, a.games, a.seconds))
        print(f"{g.name:<16} {best[0]:>12,.0f} {best[1]:>16,.0f} {best[2]:>14,.0f}")


if __name__ == "__main__":
    main()
