"""How long a fresh install waits for its first move: each command in a fresh subprocess
with an empty numba cache (``NUMBA_CACHE_DIR`` a new empty folder), so that everything the
command needs is compiled, as on the first run after ``pip install``.

Each row times, from the subprocess's start, the imports, building the agent and the env and
the agent's first move ("first move", seconds), and the first move's own time as ``play``
and the arena count it ("think", seconds: compile time that lands in it is counted as the
agent's thinking). ``--revision-path`` times another checkout side by side, the two
alternating (old, new, new, old, ...) so that both see the same load on a busy machine.

    python benchmarks/cold_start.py
    python benchmarks/cold_start.py --revision-path /tmp/old --rounds 2
    python benchmarks/cold_start.py --cases ab,gdl --warm   # a filled cache: later runs
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

TAKEAWAY = """(role white) (role black)
(init (stones 5)) (init (control white))
(<= (legal ?p (take ?k)) (true (control ?p)) (true (stones ?n)) (minus ?n ?k ?m))
(<= (legal ?p noop) (role ?p) (not (true (control ?p))))
(<= (next (stones ?m)) (does ?p (take ?k)) (true (stones ?n)) (minus ?n ?k ?m))
(<= (next (control black)) (true (control white)))
(<= (next (control white)) (true (control black)))
(<= (next (winner ?p)) (does ?p (take ?k)) (true (stones ?k)))
(<= terminal (true (stones 0)))
(<= (goal ?p 100) (true (winner ?p)))
(<= (goal ?p 0) (role ?p) (not (true (winner ?p))))
(minus 5 1 4) (minus 5 2 3) (minus 4 1 3) (minus 4 2 2) (minus 3 1 2)
(minus 3 2 1) (minus 2 1 1) (minus 2 2 0) (minus 1 1 0)
"""

# name: (what it stands for, env, agent spec)
CASES = {
    "play": ("play --env skirmish_endgame_v0 (default opponent mcts)", "skirmish_endgame_v0", "mcts"),
    "ab": ("play --env skirmish_endgame_v0 --opponent ab", "skirmish_endgame_v0", "ab"),
    "baseline": ("play --env skirmish_endgame_v0 --opponent baseline:64", "skirmish_endgame_v0", "baseline:64"),
    "gdl": ("arena --env gdl:takeaway.kif --agents random,mcts:200", "gdl:takeaway.kif", "mcts:200"),
}

CODE = """
import json, sys, time
start = time.perf_counter()
from ggpzoo.agents import make_agent
from ggpzoo.envs import load
env_name, spec = sys.argv[1], sys.argv[2]
agent = make_agent(spec, env_name, seed=0)
env = load(env_name).raw_env()
env.reset(seed=0)
agent.reset(0)
t0 = time.perf_counter()
agent.act(env)
end = time.perf_counter()
print(json.dumps({"first": end - start, "think": end - t0}))
"""


def measure(path: str, case: str, cache: str | None) -> dict:
    """One cold (``cache`` None: a new empty folder) or warm run of ``case`` with checkout ``path``."""
    _, env_name, spec = CASES[case]
    with tempfile.TemporaryDirectory() as work:
        with open(os.path.join(work, "takeaway.kif"), "w") as f:
            f.write(TAKEAWAY)
        env = dict(os.environ, PYTHONPATH=os.path.abspath(path), NUMBA_CACHE_DIR=cache or os.path.join(work, "numba"))
        run = subprocess.run(
            [sys.executable, "-c", CODE, env_name, spec], cwd=work, env=env, capture_output=True, text=True
        )
    if run.returncode:
        raise SystemExit(f"{case} on {path} failed:\n{run.stderr[-2000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--path", default=HERE, help="the checkout to time (default: this one)")
    parser.add_argument("--revision-path", help="another checkout to time side by side (e.g. the previous release)")
    parser.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)}")
    parser.add_argument("--rounds", type=int, default=1, help="runs of each case per checkout (medians shown)")
    parser.add_argument("--warm", action="store_true", help="time later runs: one cache, filled by a first run")
    args = parser.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    if unknown or not cases:
        parser.error(f"unknown case(s) {unknown}; choose from {', '.join(CASES)}")
    if args.rounds < 1:
        parser.error("--rounds must be at least 1")
    paths = [args.revision_path, args.path] if args.revision_path else [args.path]
    with tempfile.TemporaryDirectory() as caches:
        results = {(p, c): [] for p in paths for c in cases}
        for case in cases:
            warm = {p: os.path.join(caches, f"{case}-{i}") for i, p in enumerate(paths)} if args.warm else {}
            for p in paths if args.warm else ():
                measure(p, case, warm[p])  # fills the cache
            for r in range(args.rounds):
                for p in paths if r % 2 == 0 else paths[::-1]:
                    results[p, case].append(measure(p, case, warm.get(p)))
                    print(f"  {case:9s} {p}: {results[p, case][-1]}", file=sys.stderr)
    label = {p: ("before" if p == args.revision_path else "this") for p in paths}
    print(f"{'case':10s} {'checkout':8s} {'first move s':>13s} {'think s':>9s}  command")
    for case in cases:
        for p in paths:
            rows = results[p, case]
            first = statistics.median(r["first"] for r in rows)
            think = statistics.median(r["think"] for r in rows)
            print(f"{case:10s} {label[p]:8s} {first:13.2f} {think:9.2f}  {CASES[case][0]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
