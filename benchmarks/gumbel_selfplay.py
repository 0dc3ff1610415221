"""Self-play speed of Gumbel AlphaZero: positions searched per second, and the network's share.

An untrained network (the default size of `network_for()`) plays ``--games``
games together, each move a `GumbelSearch` of
``--simulations``; no training steps. The first move (numba compiling or loading its
cache) is not timed.

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/gumbel_selfplay.py --env skirmish_v0 --seconds 30
"""

from __future__ import annotations

import argparse
import time

import torch

from ggpzoo.agents.gumbel import GumbelSearch
from ggpzoo.training.az.net import evaluator, network_for
from ggpzoo.training.az.train import SelfPlay


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", required=True, help="any two-role game: skirmish_v0, gdl:tictactoe, ...")
    p.add_argument("--games", type=int, default=64)
    p.add_argument("--simulations", type=int, default=16)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument("--device", default="cpu")
    args = p.parse_args()
    torch.set_num_threads(args.threads)
    play = SelfPlay(args.env)
    net = network_for(play.spec).to(args.device).eval()
    evaluate = evaluator(net, args.device)
    spent = [0.0]

    def timed(obs):
        t = time.perf_counter()
        out = evaluate(obs)
        spent[0] += time.perf_counter() - t
        return out

    search = GumbelSearch(play.spec, timed, args.simulations, args.games, seed=0)
    G = args.games
    play.start(G, 1000)
    play.play(play.run(search).actions)  # warm-up
    spent[0] = 0.0
    positions, games, start = 0, 0, time.perf_counter()
    while time.perf_counter() - start < args.seconds:
        ended, _ = play.play(play.run(search).actions)
        positions += G
        games += int(ended.sum())
    elapsed = time.perf_counter() - start
    print(
        f"{args.env}: {positions / elapsed:.1f} positions/s ({positions} positions, {games} games finished, "
        f"{args.games} games x {args.simulations} simulations, {elapsed:.1f} s; network {spent[0] / elapsed:.0%} "
        f"of the time, {sum(p.numel() for p in net.parameters()):,} parameters, torch threads {args.threads}, "
        f"{args.device})"
    )


if __name__ == "__main__":
    main()
