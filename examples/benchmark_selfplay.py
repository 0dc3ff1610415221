"""Self-play throughput of every ggpzoo env: a table and a bar chart (PNG).

Random legal self-play through ``env()``, as `ggpzoo.tools.bench` times it (each step reads
``last()`` and samples from the action mask). With ``--bridge``, also the learner steps/s
through the single-agent bridge against a random opponent (what a MaskablePPO rollout
sees, less the policy).

    python examples/benchmark_selfplay.py                      # every env, 5 s each
    python examples/benchmark_selfplay.py --seconds 2 --out selfplay.png --bridge
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from ggpzoo.envs import ENVS, spec


def bench_bridge(name: str, seconds: float, seed: int = 0) -> dict:
    """Learner steps/s of `SingleAgentEnv` vs random, random masked learner actions.

    turns/s counts the game's turns, both sides' (from the kernel's step counter).
    """
    from ggpzoo.envs.base import STEP
    from ggpzoo.training.single_agent import SingleAgentEnv

    env = SingleAgentEnv(name)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    games = steps = turns = 0
    start = time.perf_counter()
    while True:
        mask = env.action_masks()
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
        if terminated or truncated:
            games += 1
            turns += env.aec_env.unwrapped.get_state()[1][STEP] / spec(name).turn_actions
            env.reset()
            elapsed = time.perf_counter() - start
            if elapsed >= seconds:
                break
    return {
        "env": f"{name} (bridge)",
        "games": games,
        "steps": steps,
        "seconds": elapsed,
        "steps_per_s": steps / elapsed,
        "turns_per_s": turns / elapsed,
        "steps_per_game": steps / games,
    }


def bar_chart(rows: list[dict], path: str, seconds: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = [r["env"] for r in rows]
    values = [r["steps_per_s"] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.5 * len(rows) + 1.5))
    bars = ax.barh(names, values, color=["tab:blue" if "bridge" not in n else "tab:orange" for n in names])
    ax.bar_label(bars, labels=[f"{v:,.0f}" for v in values], padding=3)
    ax.invert_yaxis()
    ax.set_xlabel("steps per second (random self-play, one core)")
    ax.set_title(f"ggpzoo self-play throughput ({seconds:g} s per env)")
    ax.set_xlim(0, max(values) * 1.2)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="benchmark_selfplay.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", action="append", choices=list(ENVS), help="an env to time (repeatable); default: all")
    p.add_argument("--seconds", type=float, default=5.0, help="timed seconds per env (default 5)")
    p.add_argument("--out", default="selfplay.png", help="the bar chart's PNG path (default selfplay.png)")
    p.add_argument("--bridge", action="store_true", help="also time the single-agent bridge vs random")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.seconds <= 0:
        p.error("--seconds must be positive")
    from ggpzoo.tools.bench import bench_env, format_table

    rows = []
    for name in args.env or list(ENVS):
        print(f"timing {name} ...", file=sys.stderr, flush=True)
        rows.append(bench_env(name, args.seconds, args.seed))
        if args.bridge:
            rows.append(bench_bridge(name, args.seconds, args.seed))
    print(format_table(rows))
    bar_chart(rows, args.out, args.seconds)
    print(f"bar chart saved to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
