"""GDL grounding, two checkouts side by side: CPU seconds per sheet, and whether they agree.

Each sheet is grounded in a fresh subprocess with one checkout on ``PYTHONPATH``; the two
alternate (old, new, new, old, ...) so that both see the same load on a shared machine.
Per sheet: the median CPU time of each (``Grounding.cpu_seconds``), their ratio, the rule
instances, and whether the two groundings are identical (a hash of the fluents, the moves
and the instances in order). Make the old checkout with ``git worktree add /tmp/old
<commit>``.

    python benchmarks/gdl_ground_speed.py --old /tmp/old --new . --rounds 2 amazons skirmish checkers.kif
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

CODE = """
import hashlib, json, sys
from ggpzoo import gdl
sheet, limit = sys.argv[1], float(sys.argv[2])
path = sheet if sheet.endswith(".kif") else gdl.game_path(sheet)
g = gdl.load(path, ground_time_limit=limit)
gr = g.grounding()
digest = hashlib.sha256(repr((gr.fluents, sorted(gr.moves.items()), gr.instances)).encode()).hexdigest()
print(json.dumps([gr.cpu_seconds, len(gr.instances), digest, gdl.__file__]))
"""


def ground(root: str, sheet: str, limit: float) -> tuple[float, int, str]:
    env = dict(os.environ, PYTHONPATH=os.path.abspath(root), NUMBA_NUM_THREADS="1")
    sheet = os.path.abspath(sheet) if sheet.endswith(".kif") else sheet
    cmd = [sys.executable, "-c", CODE, sheet, str(limit)]
    # cwd too: ``python -c`` puts the working directory first on sys.path
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=os.path.abspath(root))
    if out.returncode != 0:
        raise SystemExit(f"{root}: {sheet}: {out.stderr.strip().splitlines()[-1]}")
    cpu, n, digest, where = json.loads(out.stdout.strip().splitlines()[-1])
    if not where.startswith(os.path.abspath(root)):
        raise SystemExit(f"ran {where}, not {root}'s ggpzoo")
    return cpu, n, digest


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("sheets", nargs="+", help="shipped sheet names or .kif paths")
    p.add_argument("--old", required=True, help="the reference checkout")
    p.add_argument("--new", default=".", help="the checkout to compare (default .)")
    p.add_argument("--rounds", type=int, default=2, help="groundings per sheet and checkout (default 2)")
    p.add_argument("--time-limit", type=float, default=600.0, help="CPU seconds a grounding may take (default 600)")
    a = p.parse_args(argv)
    print(f"{'sheet':28s} {'instances':>10s} {'old s':>8s} {'new s':>8s} {'old/new':>8s}  same")
    totals = [0.0, 0.0]
    for sheet in a.sheets:
        times: dict = {"old": [], "new": []}
        digests: dict = {"old": set(), "new": set()}
        n = 0
        for r in range(a.rounds):
            for which in ("old", "new") if r % 2 == 0 else ("new", "old"):
                cpu, n, digest = ground(getattr(a, which), sheet, a.time_limit)
                times[which].append(cpu)
                digests[which].add(digest)
        old, new = statistics.median(times["old"]), statistics.median(times["new"])
        totals[0] += old
        totals[1] += new
        same = "yes" if len(digests["old"] | digests["new"]) == 1 else "NO"
        name = os.path.basename(sheet)
        print(f"{name:28s} {n:10,d} {old:8.2f} {new:8.2f} {old / max(new, 1e-9):8.2f}  {same}", flush=True)
    print(f"{'total':28s} {'':10s} {totals[0]:8.1f} {totals[1]:8.1f} {totals[0] / max(totals[1], 1e-9):8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
