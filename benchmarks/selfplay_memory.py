"""Memory of a long self-play run: the resident set size (RSS) of a process that plays N
games of a sheet through the SB3 self-play env (`SelfPlayVecEnv`) with random legal
learner actions, sampled every tenth of the run. It stays flat: the env keeps no record of
finished games.

    nice python benchmarks/selfplay_memory.py --env gdl:tictactoe --learner-steps 1000000 --envs 64

Prints the RSS (MiB) at each sample and the growth from the first sample (taken after the
first 10% of the run, when numba's compiled code and the games' arrays are in place) to the
last; exits 1 if it grew by more than ``--max-growth`` MiB.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time

import numpy as np


def rss_mib() -> float:
    """The process's resident set size now (Linux ``/proc``), else its peak (``getrusage``), in MiB."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * resource.getpagesize() / 2**20
    except OSError:
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**10


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", default="gdl:tictactoe", help="a two-role game (default gdl:tictactoe)")
    p.add_argument("--learner-steps", type=int, default=1_000_000, help="learner steps in all (default 1,000,000)")
    p.add_argument("--envs", type=int, default=64, help="games in the batch (default 64)")
    p.add_argument("--opponents", default="random,greedy", help="the pool, comma-separated (default random,greedy)")
    p.add_argument("--max-growth", type=float, default=8.0, help="MiB of growth that fails the check (default 8)")
    a = p.parse_args(argv)

    from ggpzoo.training.selfplay import SelfPlayVecEnv

    env = SelfPlayVecEnv(a.env, a.envs, opponents=a.opponents.split(","), seed=0)
    env.reset()
    rng = np.random.default_rng(0)
    steps = max(a.learner_steps // a.envs, 10)
    every = max(steps // 10, 1)
    samples, episodes, t = [], 0, time.perf_counter()
    for k in range(1, steps + 1):
        masks = env.action_masks()
        _, _, dones, _ = env.step((masks * rng.random(masks.shape) + masks).argmax(axis=1))
        episodes += int(dones.sum())
        if k % every == 0:
            samples.append(rss_mib())
            print(f"{k * a.envs:>12,} learner steps  {episodes:>10,} episodes  RSS {samples[-1]:8.1f} MiB", flush=True)
    seconds = time.perf_counter() - t
    growth = samples[-1] - samples[0]
    print(
        f"{a.env}: {steps * a.envs:,} learner steps ({steps * a.envs / seconds:,.0f}/s), {episodes:,} episodes; "
        f"RSS {samples[0]:.1f} -> {samples[-1]:.1f} MiB (growth {growth:+.1f} MiB, max {max(samples):.1f})"
    )
    return 1 if growth > a.max_growth else 0


if __name__ == "__main__":
    sys.exit(main())
