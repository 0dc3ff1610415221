"""Command-line tools for GDL sheets: ``gdl FILE`` and ``bench --gdl FILE``.

    python -m ggpzoo gdl FILE [--games N] [--seconds S] [--no-api-test] [--backend B] [--stats]
    python -m ggpzoo bench --gdl FILE|FOLDER [...] [--seconds S] [--batch N] [--no-exact] [--markdown]
    python -m ggpzoo gdl corpus DIR [--roles 2] [--games 3] [--ground-time-limit S] [--time-limit S]

`main()` is the ``gdl`` subcommand (roles, action counts, observation size, the sheet's
size, random-playout speed of both paths, PettingZoo's ``api_test``);
`bench()` measures and returns the random-playout transitions/s of the compiled path
and the exact path on one core, and `bench_main()` prints them.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

__all__ = [
    "batched_playouts",
    "compiled_speed",
    "games_playouts",
    "bench",
    "bench_main",
    "compiled_playouts",
    "corpus_main",
    "exact_playouts",
    "main",
    "play_sheet",
]


MAX_SECONDS = 3600.0  # --seconds and the other time options of these commands: at most an hour
MAX_GAMES = 1_000_000  # --games
MAX_BATCH = 65_536  # bench --batch: games stepped together
MIN_PLAY_SECONDS = 0.5  # gdl FILE: the compiled speed is timed over at least this much play


def _number(kind, low: float, high: float, what: str):
    """An argparse type: a ``kind`` (int or float) in ``low..high``, finite, else a one-line error naming ``high``."""

    def read(text: str):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'a whole number' if kind is int else 'a number'}"
            ) from None
        if not (low <= v <= high):  # NaN fails too
            span = f"{low:,}..{high:,}" if kind is int else f"{low:g}..{high:g}"
            raise argparse.ArgumentTypeError(f"{text} is not in {span} ({what})")
        return v

    return read


_SECONDS = _number(float, 1e-3, MAX_SECONDS, "MAX_SECONDS")
_LIMIT = _number(float, 0.0, MAX_SECONDS, "MAX_SECONDS")
_GAMES = _number(int, 1, MAX_GAMES, "MAX_GAMES")


def compiled_speed(net, games: int, seconds: float = MIN_PLAY_SECONDS):
    """Random games on the compiled network ``net``: at least ``games`` of them and at least
    ``seconds`` of play (a speed timed over a millisecond says little). Returns
    (games, transitions, seconds, mean goal per role)."""
    from ggpzoo.gdl.propnet import random_playouts

    played = steps = 0
    dt = 0.0
    goal_sum = 0.0
    while played < games or dt < seconds:
        s, t, goals = random_playouts(net, games, seed=played)
        played, steps, dt = played + games, steps + s, dt + t
        goal_sum = goal_sum + goals * games
    return played, steps, dt, goal_sum / played


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


def compiled_playouts(game, seconds: float = 2.0, seed: int = 0, clock=time.perf_counter):
    """Random games in numba for at least ``seconds`` of ``clock``: (transitions, seconds,
    games, build seconds)."""
    from ggpzoo.gdl.propnet import random_playouts

    t = time.perf_counter()
    net = game.propnet()
    build = time.perf_counter() - t
    n = 1
    while True:
        steps, dt, _ = random_playouts(net, n, seed=seed, clock=clock)
        if dt >= seconds or n >= 1 << 24:
            return steps, dt, n, build
        n = max(n * 2, int(n * seconds / max(dt, 1e-6) * 1.1))


def batched_playouts(
    game, num_games: int = 256, seconds: float = 2.0, seed: int = 0, clock=time.process_time, lanes=None
):
    """Random games on [`ggpzoo.engine.VectorGames`][ggpzoo.engine.VectorGames], stepped from Python
    (``step(random_actions(t))``, auto-reset) for at least ``seconds`` of ``clock``:
    (transitions, seconds), transitions counting forced joint moves too, as
    `compiled_playouts()` does. ``lanes``: `VectorGames`'s (None: its default)."""
    from ggpzoo.engine import VectorGames
    from ggpzoo.gdl.spec import gdl_spec

    v = VectorGames(gdl_spec(game), num_games, max_steps=None, lanes=lanes)
    v.reset()
    v.step(v.random_actions(seed))  # compile / warm up
    steps, t0, t = 0, clock(), seed + 1
    while True:
        before = int(v.steps.sum())
        r = v.step(v.random_actions(t))
        steps += int(v.steps.sum()) - before + int(r.lengths[r.finished].sum())
        t += 1
        dt = clock() - t0
        if dt >= seconds:
            return steps, dt


def games_playouts(game, num_games: int = 256, seconds: float = 2.0, seed: int = 0, clock=time.process_time):
    """Whole random games, ``num_games`` at a time in one numba call
    ([`ggpzoo.engine.play_games`][ggpzoo.engine.play_games]: bit lanes where the network suits them), again until
    ``seconds`` of ``clock``: (transitions, seconds)."""
    from ggpzoo.engine import play_games
    from ggpzoo.gdl.spec import gdl_spec

    sp = gdl_spec(game)
    play_games(sp, 2, seed=seed, max_steps=None)  # compile / warm up
    steps, t0 = 0, clock()
    while True:
        seed += 1
        steps += int(play_games(sp, num_games, seed=seed, max_steps=None)[1].sum())
        dt = clock() - t0
        if dt >= seconds:
            return steps, dt


def bench(path, seconds: float = 2.0, exact: bool = True, ground_time_limit: float = 60.0, batch: int = 256) -> dict:
    """Random-playout transitions/s of a GDL sheet on one core, compiled and exact.

    Returns ``{"game", "compiled_tps", "compiled_cpu_tps", "batched_cpu_tps", "exact_tps",
    "build_s", "net": {...}}``: transitions per second of wall clock, and per second of this
    process's CPU time (which other jobs on a shared machine do not inflate);
    ``batched_cpu_tps`` for ``batch`` games on `ggpzoo.engine.VectorGames`
    stepped from Python and ``games_cpu_tps`` for ``batch`` whole games at a time in numba
    (`games_playouts()`; neither measured when ``batch`` is 0). A path that cannot run is None, with the reason
    under ``"compiled_error"``."""
    from ggpzoo import gdl
    from ggpzoo.gdl.ground import GroundingTooLarge

    g = path if isinstance(path, gdl.Game) else gdl.load(path, ground_time_limit=ground_time_limit)
    out = {"game": g.name, "compiled_tps": None, "exact_tps": None}
    try:
        steps, dt, n, build = compiled_playouts(g, seconds)
        out.update(compiled_tps=steps / dt, compiled_games=n, build_s=build, net=g.propnet().stats())
        steps, dt, n, _ = compiled_playouts(g, seconds, clock=time.process_time)
        out.update(compiled_cpu_tps=steps / dt)
        if batch:
            steps, dt = batched_playouts(g, batch, seconds)
            out.update(batched_cpu_tps=steps / dt, batch=batch)
            steps, dt = games_playouts(g, batch, seconds)
            out.update(games_cpu_tps=steps / dt)
    except GroundingTooLarge as e:
        out["compiled_error"] = str(e)
    if exact:
        steps, dt, n = exact_playouts(g, seconds)
        out.update(exact_tps=steps / dt if dt else None, exact_games=n)
    return out


def _fmt(x) -> str:
    """A rate for the tables: whole numbers with thousands separators, one decimal under 10
    (a sheet that plays under one transition per second shows ``0.4``, not ``0``)."""
    if x is None:
        return "-"
    return f"{x:.1f}" if x < 10 else f"{x:,.0f}"


def _sheets(names) -> list[str]:
    """``bench --gdl``'s arguments as sheets: a folder stands for its ``.kif`` files (sorted,
    subfolders included), a name without ``/`` or ``.kif`` for a shipped sheet; ValueError
    for a folder with no sheet."""
    import glob

    from ggpzoo import gdl

    out = []
    for f in names:
        if os.path.isdir(f):
            found = sorted(glob.glob(os.path.join(f, "**", "*.kif"), recursive=True))
            if not found:
                raise ValueError(f"no .kif file in folder {f!r}")
            out.extend(found)
        else:
            out.append(f if f.endswith(".kif") or "/" in f else gdl.game_path(f))
    return out


def bench_main(argv=None) -> int:
    """``bench --gdl FILE|FOLDER [...]``: print the random-playout speed of each sheet, as
    aligned text or (``--markdown``) a Markdown table. A sheet that fails is reported on its
    row and stderr, the others are still measured, and the exit status is 2."""
    p = argparse.ArgumentParser(
        prog="python -m ggpzoo bench --gdl", description="random-playout transitions/s of GDL sheets, one core"
    )
    p.add_argument(
        "--gdl",
        nargs="+",
        required=True,
        metavar="FILE",
        help=".kif files, folders of them (every .kif inside), or names of shipped games",
    )
    p.add_argument("--seconds", type=_SECONDS, default=2.0, help="time per measurement (default 2; at most 3600)")
    p.add_argument("--no-exact", action="store_true", help="skip the exact path")
    p.add_argument(
        "--batch",
        type=_number(int, 0, MAX_BATCH, "MAX_BATCH"),
        default=256,
        metavar="N",
        help="games at a time for the batched columns: stepped from Python on VectorGames, and whole in numba "
        "with play_games (default 256; 0 skips both; at most 65536)",
    )
    p.add_argument("--ground-time-limit", type=_LIMIT, default=60.0, help="CPU seconds grounding may take (default 60)")
    p.add_argument("--markdown", action="store_true", help="print a Markdown table (one row per sheet)")
    a = p.parse_args(argv)
    try:
        files = _sheets(a.gdl)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    if a.markdown:
        print(
            f"| sheet | network (atoms / rules) | build s | compiled/s (wall) | compiled/s (CPU time) "
            f"| batched x{a.batch}/s (CPU time) | games x{a.batch}/s (CPU time) | exact/s (wall) |"
        )
        print("|---|---|---|---|---|---|---|---|")
    else:
        print(
            f"{'game':<20} {'compiled/s':>12} {'(CPU time)':>12} {f'batched x{a.batch}':>13} "
            f"{f'games x{a.batch}':>13} {'exact/s':>10} "
            f"{'build s':>8}  network"
        )
    failed = 0
    for f in files:
        try:
            r = bench(f, a.seconds, exact=not a.no_exact, ground_time_limit=a.ground_time_limit, batch=a.batch)
        except Exception as e:  # noqa: BLE001 - reported per sheet, the others are still measured
            failed += 1
            msg = f"{type(e).__name__}: {e}".splitlines()[0][:300]
            print(f"{f}: {msg}", file=sys.stderr, flush=True)
            name = os.path.basename(f)
            print(f"| `{name}` | error: {msg} | | | | | | |" if a.markdown else f"{name:<20} error: {msg}", flush=True)
            continue
        net = r.get("net", {})
        size = f"{net.get('atoms', 0):,} / {net.get('rules', 0):,}" if net else ""
        if a.markdown:
            build = f"{r['build_s']:.1f}" if "build_s" in r else "-"
            print(
                f"| `{r['game']}` | {size or r.get('compiled_error', '-')} | {build} | {_fmt(r['compiled_tps'])} "
                f"| {_fmt(r.get('compiled_cpu_tps'))} | {_fmt(r.get('batched_cpu_tps'))} "
                f"| {_fmt(r.get('games_cpu_tps'))} | {_fmt(r['exact_tps'])} |",
                flush=True,
            )
            continue
        extra = f"{net.get('atoms', 0):,} atoms, {net.get('rules', 0):,} rules" if net else r.get("compiled_error", "")
        print(
            f"{r['game']:<20} {_fmt(r['compiled_tps']):>12} {_fmt(r.get('compiled_cpu_tps')):>12} "
            f"{_fmt(r.get('batched_cpu_tps')):>13} {_fmt(r.get('games_cpu_tps')):>13} "
            f"{_fmt(r['exact_tps']):>10} {r.get('build_s', 0):>8.1f}  {extra}",
            flush=True,
        )
    return 2 if failed else 0


def compare_paths(game, n_games: int = 2, seed: int = 0, max_steps: int = 500, deadline: float | None = None) -> int:
    """Play random games on the compiled network with the exact reasoner checked at every
    state (`ggpzoo.engine.machine.machines_agree`: over, goals, every role's legal ids and
    observation); raise `MachinesDisagree` (an AssertionError) at the first difference.
    Returns the number of joint moves with a choice played. Past ``deadline`` (a
    ``time.perf_counter`` value) it raises `SheetTooSlow`."""
    from ggpzoo.engine.machine import ArrayMachine, machines_agree
    from ggpzoo.gdl.machine import ReasonerMachine
    from ggpzoo.gdl.spec import gdl_spec

    try:
        return machines_agree(
            ReasonerMachine(game), ArrayMachine(gdl_spec(game)), n_games, seed, max_steps, deadline=deadline
        )
    except TimeoutError as e:
        raise SheetTooSlow(str(e)) from None


def play_sheet(
    path,
    games: int = 3,
    max_steps: int = 2000,
    ground_time_limit: float = 30.0,
    seed: int = 0,
    compare: int = 1,
    time_limit: float | None = 300.0,
    roles: int | None = None,
) -> dict:
    """Load a sheet and play ``games`` random games to the end through the AEC env, then
    ``compare`` games with the compiled and exact paths in lockstep (when it compiles).

    Returns ``{"file", "ok", "roles", "backend", "steps", "error", "notes"}``; ``ok`` means every
    game reached a terminal state (or a state where some role has no legal move) and the paths
    agreed. ``notes`` lists what an ok sheet should still be looked at for: the linter's
    warnings (`ggpzoo.gdl.lint`) and games that were over at reset, with no move.
    Playing (after loading) stops with a `SheetTooSlow` error once the sheet has taken
    ``time_limit`` seconds in all (None: no limit), so a sheet that runs on the slow exact
    path cannot hold up a corpus run. With ``roles``, a sheet with another number
    of roles is loaded but not played (``"skipped": True``)."""
    import os
    import warnings

    from ggpzoo import gdl
    from ggpzoo.gdl.lint import GDLWarning

    out = {"file": os.path.basename(str(path)), "ok": False, "roles": None, "backend": None, "steps": 0, "error": ""}
    out["notes"] = notes = []
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(record=True) as lint:
            warnings.simplefilter("always", GDLWarning)
            g = gdl.load(path, ground_time_limit=ground_time_limit)
        for w in lint:
            if issubclass(w.category, GDLWarning):
                notes.append(str(w.message).split(", ", 1)[-1])  # without "GDL sheet NAME, "
            else:
                warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
        out["roles"] = len(g.roles)
        if roles is not None and len(g.roles) != roles:
            out["skipped"] = True  # not played: another number of roles than asked for
            return out
        e = gdl.raw_env(g, backend="auto", max_steps=max_steps, ground_time_limit=ground_time_limit)
        out["backend"] = e.backend
        rng = np.random.default_rng(seed)
        deadline = None if time_limit is None else t0 + time_limit
        over_at_reset = 0
        for _ in range(games):
            e.reset()
            over_at_reset += not e.agents or e.terminations[e.agent_selection]
            while e.agents and not (e.terminations[e.agent_selection] or e.truncations[e.agent_selection]):
                if deadline is not None and time.perf_counter() > deadline:
                    raise SheetTooSlow(
                        f"random games on the {e.backend} path passed the {time_limit:g} s limit "
                        f"after {out['steps']} moves"
                    )
                e.step(int(rng.choice(e.legal_actions())))
                out["steps"] += 1
            if any(e.truncations.values()):
                raise GameDoesNotEnd(f"a random game did not end within {max_steps} joint moves")
        if over_at_reset:
            notes.append(
                f"{over_at_reset} of {games} games were over at reset, with no move (is terminal true at the start?)"
            )
        if compare and e.backend == "compiled":
            compare_paths(g, compare, seed, deadline=deadline)
        out["ok"] = True
    except Exception as err:  # noqa: BLE001 - reported per sheet
        out["error"] = f"{type(err).__name__}: {err}"[:300]
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


class GameDoesNotEnd(RuntimeError):
    """A sheet that loads but whose random games do not end."""


class SheetTooSlow(RuntimeError):
    """A sheet whose random games (or lockstep check) run past the corpus run's time limit."""


def corpus_main(argv=None) -> int:
    """``corpus DIR|FILES``: load every sheet, play random games to the end, print a table."""
    import glob
    import os

    p = argparse.ArgumentParser(
        prog="python -m ggpzoo gdl corpus", description="which GDL sheets load and play to the end"
    )
    p.add_argument("paths", nargs="+", help=".kif files or folders of them")
    p.add_argument("--games", type=_GAMES, default=3)
    p.add_argument(
        "--roles", type=_number(int, 1, 1000, "roles"), default=None, help="only sheets with this many roles"
    )
    p.add_argument("--ground-time-limit", type=_LIMIT, default=30.0, help="CPU seconds grounding may take (default 30)")
    p.add_argument(
        "--time-limit", type=_SECONDS, default=300.0, help="seconds per sheet for playing, load included (default 300)"
    )
    a = p.parse_args(argv)
    files = []
    for path in a.paths:
        files.extend(
            sorted(glob.glob(os.path.join(path, "**", "*.kif"), recursive=True)) if os.path.isdir(path) else [path]
        )
    rows = []
    for f in files:
        r = play_sheet(f, a.games, ground_time_limit=a.ground_time_limit, time_limit=a.time_limit, roles=a.roles)
        if r.get("skipped"):
            continue
        rows.append(r)
        status = "FAIL" if not r["ok"] else "note" if r["notes"] else "ok  "
        print(
            f"{status} {r['file']:<40} roles {r['roles']} {r['backend'] or '-':<8} "
            f"{r['steps']:>6} steps {r['seconds']:>7.1f} s  {r['error']}".rstrip(),
            flush=True,
        )
        for note in r["notes"]:
            print(f"       {note}")
    ok = sum(r["ok"] for r in rows)
    noted = sum(r["ok"] and bool(r["notes"]) for r in rows)
    print(
        f"{ok}/{len(rows)} sheets load and play {a.games} random games to the end"
        + (f"; {noted} of them with notes (the lines under 'note')" if noted else "")
    )
    return 0 if ok == len(rows) else 1


def main(argv=None) -> int:
    """``gdl FILE``: describe a GDL sheet, measure it, and run PettingZoo's api_test on it."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["bench"]:
        return bench_main(argv[1:])
    if argv[:1] == ["corpus"]:
        return corpus_main(argv[1:])
    p = argparse.ArgumentParser(
        prog="python -m ggpzoo gdl", description="load a GDL sheet as a PettingZoo env and measure it"
    )
    from ggpzoo import gdl

    shipped = ", ".join(sorted(f[:-4] for f in os.listdir(gdl.GAMES_DIR) if f.endswith(".kif")))
    p.add_argument("file", help=f"a .kif file, or the name of a shipped game: {shipped}")
    p.add_argument("--backend", default="auto", choices=["auto", "compiled", "exact"])
    p.add_argument(
        "--games",
        type=_GAMES,
        default=1000,
        help=f"random games for the compiled speed, at least (default 1000; at most 10**6); "
        f"more are played until {MIN_PLAY_SECONDS:g} s of play",
    )
    p.add_argument(
        "--seconds", type=_SECONDS, default=2.0, help="time for the exact path's speed (default 2; at most 3600)"
    )
    p.add_argument("--no-api-test", action="store_true", help="skip PettingZoo's api_test")
    p.add_argument("--ground-time-limit", type=_LIMIT, default=60.0, help="CPU seconds grounding may take (default 60)")
    p.add_argument("--stats", action="store_true", help="also print the compiled network's internal counts")
    a = p.parse_args(argv)
    try:
        path = a.file if a.file.endswith(".kif") or "/" in a.file else gdl.game_path(a.file)
        t = time.perf_counter()
        g = gdl.load(path, ground_time_limit=a.ground_time_limit)
        loaded = time.perf_counter() - t
        t = time.perf_counter()
        e = gdl.raw_env(g, backend=a.backend)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    path_name = "compiled network" if e.backend == "compiled" else "exact reasoner"
    ready = time.perf_counter() - t
    print(f"{g.name}: loaded and checked in {loaded:.2f} s, ready to play in {ready:.2f} s ({path_name})")
    print("roles: " + ", ".join(f"{r} ({len(e.actions[r])} actions)" for r in g.roles))
    sp = e.observation_space(g.roles[0])
    planes = ""
    if "planes" in sp.spaces:
        names = ", ".join(e.plane_names[:6]) + (", ..." if len(e.plane_names) > 6 else "")
        planes = f"; board planes {'x'.join(map(str, sp['planes'].shape))} ({names})"
    print(
        f"observation: {sp['observation'].shape[0]} values, one per fluent (the {len(g.fluents)} facts a state "
        f"can hold) and one per role{planes}"
    )
    if e.backend == "compiled":
        net = g.propnet()
        print(f"size: {len(g.fluents)} fluents, {net.n_rules:,} rules in the compiled network")
        if a.stats:
            print("network: " + ", ".join(f"{k} {v}" for k, v in net.stats().items()))
        games, steps, dt, goals = compiled_speed(net, a.games)
        print(
            f"speed, compiled: {games:,} random games, {steps:,} transitions in {dt:.2f} s: "
            f"{steps / dt:,.0f} transitions/s on one core; "
            f"mean goals {', '.join(f'{r} {v:.1f}' for r, v in zip(g.roles, goals, strict=False))}"
        )
    steps, dt, n = exact_playouts(g, a.seconds)
    print(f"speed, exact: {n:,} random games, {steps:,} transitions in {dt:.2f} s: {steps / dt:,.0f} transitions/s")
    if not a.no_api_test:
        from ggpzoo.utils import quiet_api_test

        with quiet_api_test():  # what api_test says of every ggpzoo env (see ggpzoo.utils.API_TEST_WARNINGS)
            from pettingzoo.test import api_test

            api_test(gdl.env(g, backend=e.backend), num_cycles=100)
    return 0


if __name__ == "__main__":
    sys.exit(main())
