"""Command-line tools for GDL sheets: ``gdl FILE`` and ``bench --gdl FILE``.

Not wired into ``python -m ggpzoo`` yet; until then::

    python -m ggpzoo.gdl.cli FILE [--games N] [--seconds S] [--no-api-test] [--backend B]
    python -m ggpzoo.gdl.cli bench --gdl FILE [--seconds S]

:func:`main` is the ``gdl`` subcommand (roles, action counts, observation size, grounding
and network size, random-playout speed of both paths, PettingZoo's ``api_test``);
:func:`bench` measures and returns the random-playout transitions/s of the compiled path
and the exact path on one core, and :func:`bench_main` prints them.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

__all__ = ["main", "bench", "bench_main", "exact_playouts"]


def exact_playouts(game, seconds: float = 2.0, seed: int = 0, max_games: int | None = None):
    """Random games on the exact reasoner for about ``seconds``: (transitions, seconds, games)."""
    m = game.machine("exact")
    rng = np.random.default_rng(seed)
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds and (max_games is None or games < max_games):
        s = m.initial()
        while not m.terminal(s) and time.perf_counter() - t0 < seconds * 3:
            legal = m.legal(s)
            if any(len(l) == 0 for l in legal):
                break
            s = m.next(s, [int(l[rng.integers(len(l))]) for l in legal])
            steps += 1
        games += 1
    return steps, time.perf_counter() - t0, games


def compiled_playouts(game, seconds: float = 2.0, seed: int = 0):
    """Random games in numba for at least ``seconds``: (transitions, seconds, games, build seconds)."""
    from ggpzoo.gdl.propnet import random_playouts

    t = time.perf_counter()
    net = game.propnet()
    build = time.perf_counter() - t
    n = 1
    while True:
        steps, dt, _ = random_playouts(net, n, seed=seed)
        if dt >= seconds or n >= 1 << 24:
            return steps, dt, n, build
        n = max(n * 2, int(n * seconds / max(dt, 1e-6) * 1.1))


def bench(path, seconds: float = 2.0, exact: bool = True, ground_time_limit: float = 60.0) -> dict:
    """Random-playout transitions/s of a GDL sheet on one core, compiled and exact.

    Returns ``{"game", "compiled_tps", "exact_tps", "build_s", "net": {...}}`` (a path
    that cannot run is None, with the reason under ``"compiled_error"``)."""
    from ggpzoo import gdl
    from ggpzoo.gdl.ground import GroundingTooLarge

    g = path if isinstance(path, gdl.Game) else gdl.load(path, ground_time_limit=ground_time_limit)
    out = {"game": g.name, "compiled_tps": None, "exact_tps": None}
    try:
        steps, dt, n, build = compiled_playouts(g, seconds)
        out.update(compiled_tps=steps / dt, compiled_games=n, build_s=build, net=g.propnet().stats())
    except GroundingTooLarge as e:
        out["compiled_error"] = str(e)
    if exact:
        steps, dt, n = exact_playouts(g, seconds)
        out.update(exact_tps=steps / dt if dt else None, exact_games=n)
    return out


def _fmt(x) -> str:
    return "-" if x is None else f"{x:,.0f}"


def bench_main(argv=None) -> int:
    """``bench --gdl FILE [FILE...]``: print the random-playout speed of each sheet."""
    p = argparse.ArgumentParser(prog="ggpzoo bench --gdl", description="random-playout transitions/s of GDL sheets, one core")
    p.add_argument("--gdl", nargs="+", required=True, metavar="FILE", help=".kif files (or names of shipped games)")
    p.add_argument("--seconds", type=float, default=2.0, help="time per measurement (default 2)")
    p.add_argument("--no-exact", action="store_true", help="skip the exact path")
    a = p.parse_args(argv)
    from ggpzoo import gdl

    print(f"{'game':<20} {'compiled/s':>12} {'exact/s':>10} {'build s':>8}  network")
    for f in a.gdl:
        try:
            path = f if f.endswith(".kif") or "/" in f else gdl.game_path(f)
            r = bench(path, a.seconds, exact=not a.no_exact)
        except ValueError as e:
            print(f"{f}: {e}", file=sys.stderr)
            return 2
        net = r.get("net", {})
        extra = f"{net.get('atoms', 0):,} atoms, {net.get('rules', 0):,} rules" if net else r.get("compiled_error", "")
        print(f"{r['game']:<20} {_fmt(r['compiled_tps']):>12} {_fmt(r['exact_tps']):>10} {r.get('build_s', 0):>8.1f}  {extra}")
    return 0


def main(argv=None) -> int:
    """``gdl FILE``: describe a GDL sheet, measure it, and run PettingZoo's api_test on it."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:
        return bench_main(argv[1:])
    p = argparse.ArgumentParser(prog="ggpzoo gdl", description="load a GDL sheet as a PettingZoo env and measure it")
    p.add_argument("file", help="a .kif file, or the name of a shipped game (tictactoe, skirmish...)")
    p.add_argument("--backend", default="auto", choices=["auto", "compiled", "exact"])
    p.add_argument("--games", type=int, default=1000, help="random games for the compiled speed (default 1000)")
    p.add_argument("--seconds", type=float, default=2.0, help="time for the exact path's speed (default 2)")
    p.add_argument("--no-api-test", action="store_true", help="skip PettingZoo's api_test")
    p.add_argument("--ground-time-limit", type=float, default=60.0)
    a = p.parse_args(argv)
    from ggpzoo import gdl
    from ggpzoo.gdl.propnet import random_playouts

    try:
        path = a.file if a.file.endswith(".kif") or "/" in a.file else gdl.game_path(a.file)
        t = time.perf_counter()
        g = gdl.load(path, ground_time_limit=a.ground_time_limit)
        print(f"{g.name}: loaded and checked in {time.perf_counter() - t:.2f} s")
        t = time.perf_counter()
        e = gdl.raw_env(g, backend=a.backend)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    print(f"backend: {e.backend} (ready in {time.perf_counter() - t:.2f} s)")
    print("roles: " + ", ".join(f"{r} ({len(e.actions[r])} actions)" for r in g.roles))
    sp = e.observation_space(g.roles[0])
    print(f"observation: {sp['observation'].shape[0]} = {len(g.fluents)} fluents + {len(g.roles)} roles"
          + (f"; planes {sp['planes'].shape} ({', '.join(e.plane_names[:6])}{'...' if len(e.plane_names) > 6 else ''})" if "planes" in sp.spaces else ""))
    if e.backend == "compiled":
        net = g.propnet()
        print("network: " + ", ".join(f"{k} {v}" for k, v in net.stats().items()))
        steps, dt, goals = random_playouts(net, a.games)
        print(f"compiled: {a.games} random games, {steps} transitions in {dt:.3f} s: {steps / dt:,.0f} transitions/s; "
              f"mean goals {', '.join(f'{r} {v:.1f}' for r, v in zip(g.roles, goals))}")
    steps, dt, n = exact_playouts(g, a.seconds)
    print(f"exact: {n} random games, {steps} transitions in {dt:.2f} s: {steps / dt:,.0f} transitions/s")
    if not a.no_api_test:
        from pettingzoo.test import api_test

        api_test(gdl.env(g, backend=e.backend), num_cycles=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
