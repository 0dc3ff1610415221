"""Two checkouts of ggpzoo side by side: ``python -m ggpzoo bench``'s rows, interleaved.

Each measurement runs in a fresh subprocess with one checkout on ``PYTHONPATH``; the two
alternate (old, new, new, old, ...) so that both see the same load on a shared machine,
and the medians' ratio is printed per env and mode. Make the old checkout with
``git worktree add /tmp/old <commit>``.

    python benchmarks/compare_revisions.py --old /tmp/old --new . --modes aec,batched --rounds 4 --seconds 3
    python benchmarks/compare_revisions.py --old /tmp/old --modes mcts,mcts-compile --envs skirmish_v0 --rounds 3
    python benchmarks/compare_revisions.py --old /tmp/old --modes batched-compile --envs skirmish_v0 --rounds 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

CODE = """
import json, sys
from ggpzoo.tools import bench
name, mode, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
if mode == "aec":
    row = bench.bench_env(name, seconds)
elif mode == "batched":
    row = bench.bench_batched(name, 256, seconds)
elif mode == "batched-compile":  # CPU seconds of the first VectorGames reset and step
    import time
    from ggpzoo.engine import VectorGames
    t0 = time.process_time()
    games = VectorGames(name, 256)
    games.reset()
    games.step(games.random_actions(0))
    print(json.dumps(time.process_time() - t0))
    sys.exit(0)
elif mode.startswith("mcts"):  # MCTS simulations/s from the start; mcts-compile: seconds of the first search
    import time
    from ggpzoo.agents.mcts import MCTSAgent
    from ggpzoo.envs import spec
    state = spec(name).new_state()
    t0 = time.process_time()  # CPU seconds: what a busy machine changes least
    agent = MCTSAgent(name, simulations=1000, seed=0)
    agent(state)
    if mode == "mcts-compile":
        print(json.dumps(time.process_time() - t0))
        sys.exit(0)
    sims, start = 0, time.process_time()
    while time.process_time() - start < seconds:
        agent(state)
        sims += agent.last_search["simulations"]
    row = {"steps_per_s": sims / (time.process_time() - start)}
else:
    row = bench.bench_play(name, seconds)
print(json.dumps(row["steps_per_s"]))
"""


def steps_per_s(root: str, name: str, mode: str, seconds: float) -> float:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(root))
    with tempfile.TemporaryDirectory(prefix="numba-cold-") as cache:
        if mode.endswith("-compile"):  # a cold start: numba compiles everything into an empty cache
            env["NUMBA_CACHE_DIR"] = cache
        out = subprocess.run(
            [sys.executable, "-c", CODE, name, mode, str(seconds)],
            capture_output=True,
            text=True,
            env=env,
            cwd=os.path.abspath(root),
            check=False,
        )
    if out.returncode:
        raise SystemExit(f"{root}: {name} {mode} failed:\n{out.stderr[-2000:]}")
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--old", required=True, help="the old checkout's root")
    p.add_argument("--new", default=".", help="the new checkout's root (default: here)")
    p.add_argument("--envs", default="amazons_v0,amazons_split_v0,skirmish_v0,skirmish_endgame_v0,mad_bishops_v0")
    p.add_argument(
        "--modes",
        default="aec,batched",
        help="aec (env()), batched (VectorGames, N=256), play, mcts (MCTSAgent simulations per CPU second from the "
        "start, 1000 a search), mcts-compile (CPU seconds of the first search with an empty numba cache: "
        "lower is better), batched-compile (CPU seconds of VectorGames' first reset and step, N=256, with an "
        "empty numba cache)",
    )
    p.add_argument("--rounds", type=int, default=4, help="measurements per checkout (default 4)")
    p.add_argument("--seconds", type=float, default=3.0, help="timed seconds per measurement (default 3)")
    args = p.parse_args(argv)
    if args.rounds < 1 or not args.seconds > 0:
        p.error("--rounds and --seconds must be positive")
    for mode in args.modes.split(","):
        for name in args.envs.split(","):
            runs: dict[str, list[float]] = {"old": [], "new": []}
            for r in range(args.rounds):
                for which in ("old", "new") if r % 2 == 0 else ("new", "old"):
                    runs[which].append(steps_per_s(getattr(args, which), name, mode, args.seconds))
            old, new = statistics.median(runs["old"]), statistics.median(runs["new"])
            unit = "s" if mode.endswith("-compile") else "steps/s"
            print(
                f"{mode:15} {name:22} old {old:10.1f}  new {new:10.1f} {unit}  new/old {new / old:5.2f}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
