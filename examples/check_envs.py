"""Run the standard checkers on every registered ggpzoo env and print a table.

For each env: PettingZoo's ``api_test`` on ``env()`` and on ``raw_env()``, ``api_test``
on ``env()`` inside each reward wrapper (and, for amazons_v0, inside the turn
decomposition), PettingZoo's ``seed_test``, and Gymnasium's ``check_env`` on the
single-agent bridge `ggpzoo.training.single_agent.SingleAgentEnv`. Exits 1 if any fails.

    python examples/check_envs.py
    python examples/check_envs.py --env skirmish_v0 --cycles 50
"""

from __future__ import annotations

import argparse
import contextlib
import io
import sys
import time
import warnings

from ggpzoo.envs import ENVS, load

CHECKS = ("api env()", "api raw_env", "api wrappers", "seed_test", "gym check_env")


def run_checks(name: str, cycles: int) -> dict[str, str]:
    """``{check: "ok" or "FAIL: why"}`` for env ``name``, plus ``"seconds"``."""
    from gymnasium.utils.env_checker import check_env
    from pettingzoo.test import api_test, seed_test

    from ggpzoo.training.single_agent import SingleAgentEnv
    from ggpzoo.wrappers import REWARDS, AmazonsTurnDecomposition

    mod = load(name)

    def wrappers():
        for wrap in REWARDS.values():
            api_test(wrap(mod.env()), num_cycles=cycles)
        if name == "amazons_v0":
            api_test(AmazonsTurnDecomposition(mod.env()), num_cycles=cycles)

    checks = {
        "api env()": lambda: api_test(mod.env(), num_cycles=cycles),
        "api raw_env": lambda: api_test(mod.raw_env(), num_cycles=cycles),
        "api wrappers": wrappers,
        "seed_test": lambda: seed_test(mod.env, num_cycles=cycles),
        "gym check_env": lambda: check_env(SingleAgentEnv(name), skip_render_check=True),
    }
    row = {}
    start = time.perf_counter()
    for check, run in checks.items():
        try:
            with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                run()
            row[check] = "ok"
        except Exception as e:  # noqa: BLE001 - a checker's failure is a table entry
            row[check] = f"FAIL: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:120]
    row["seconds"] = f"{time.perf_counter() - start:.1f}"
    return row


def format_table(rows: dict[str, dict[str, str]]) -> str:
    cols = ("env", *CHECKS, "seconds")
    cells = [
        [name, *(row[c] if row[c] == "ok" or c == "seconds" else "FAIL" for c in cols[1:])]
        for name, row in rows.items()
    ]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(cols)]
    lines = [" | ".join(c.ljust(w) for c, w in zip(cols, widths, strict=True)), "-+-".join("-" * w for w in widths)]
    lines += [" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)) for r in cells]
    failures = [f"{name}: {c}: {row[c]}" for name, row in rows.items() for c in CHECKS if row[c] != "ok"]
    return "\n".join(lines + ([""] + failures if failures else []))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="check_envs.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", action="append", choices=list(ENVS), help="an env to check (repeatable); default: all")
    p.add_argument("--cycles", type=int, default=300, help="num_cycles of api_test and seed_test (default 300)")
    args = p.parse_args(argv)
    if args.cycles < 1:
        p.error("--cycles must be at least 1")
    rows = {}
    for name in args.env or list(ENVS):
        print(f"checking {name} ...", file=sys.stderr, flush=True)
        rows[name] = run_checks(name, args.cycles)
    print(format_table(rows))
    return 0 if all(row[c] == "ok" for row in rows.values() for c in CHECKS) else 1


if __name__ == "__main__":
    sys.exit(main())
