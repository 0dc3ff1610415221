"""A resumable series of GGP matches: ggpzoo's player against a reference player, per sheet.

Starts two player servers (``python -m ggpzoo ggp-player``) on free ports, the player
(``--agent``, default ``mcts``) and the reference (``--reference``, default ``mc``: ggp-base's
sample Monte Carlo player), and plays ``--matches`` matches of every sheet between them
through the match runner (`ggpzoo.ggp.server.run_match`): the player takes the first
role in even matches and the second in odd ones, and every second pair of matches is
scrambled (matches 2, 3, 6, 7, ...). The sheets take turns (match 0 of every sheet, then
match 1, ...), so a series cut short has about as many matches of every sheet.

Every match is one JSON file, ``OUT/SHEET/NNN.json`` (the runner's record, the player's
seat and its own log of the match: simulations per turn), written when the match ends; a
match already recorded is not played again, so a series that was stopped goes on where it
was when run again with the same arguments. At the end (and with ``--table`` alone, without
playing) it prints a table per sheet: matches, wins / draws / losses, the score (a draw is
half a win) with a 95% interval (Wilson's, over the matches), the player's illegal moves and
timeouts (late or missing replies), its slowest answer, the median simulations of its
searched turns and, where its search keeps its tree between turns, the median simulations
a turn's search started with (for alpha-beta turns: the median depth and nodes searched).

    python benchmarks/ggp_matches.py tictactoe connect_four breakthrough --matches 20 \\
        --start 20 --play 1 --out ggp-series
    python benchmarks/ggp_matches.py tictactoe connect_four --out ggp-series --table

A sheet is a sheet shipped in ``ggpzoo/gdl/games`` (``tictactoe``) or a ``.kif`` path.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import time
import zlib

__all__ = ["plan", "run_series", "summarise", "table", "wilson"]

STARTUP_SECONDS = 900.0  # at most this long for a player server to answer INFO (a first run compiles)


def sheet_key(sheet: str) -> str:
    """The folder name of a sheet's records: its file name without ``.kif``."""
    base = os.path.basename(sheet.rstrip("/"))
    return base[:-4] if base.lower().endswith(".kif") else base


def plan(sheets: list[str], matches: int, start: float, play: float, seed: int = 0) -> list[dict]:
    """The matches of a series in the order they are played (the sheets take turns): per
    match ``sheet``, ``key`` (its folder), ``index``, ``seat`` (the player's role: 0 or 1),
    ``scramble``, ``seed`` and ``match_id``."""
    keys = [sheet_key(s) for s in sheets]
    if len(set(keys)) != len(keys):
        raise ValueError(f"two sheets with the same name: {keys}")
    out = []
    for i in range(matches):
        for sheet, key in zip(sheets, keys, strict=True):
            out.append(
                {
                    "sheet": sheet,
                    "key": key,
                    "index": i,
                    "seat": i % 2,
                    "scramble": (i // 2) % 2 == 1,
                    "seed": seed * 100_003 + zlib.crc32(key.encode()) % 100_000 + i,
                    "match_id": f"series.{key}.{play:g}s.{i:03d}",
                    "start": start,
                    "play": play,
                }
            )
    return out


def record_path(out: str, job: dict) -> str:
    return os.path.join(out, job["key"], f"{job['index']:03d}.json")


def run_series(jobs: list[dict], out: str, play_one, log=print) -> int:
    """Play every job not yet recorded under ``out`` with ``play_one(job)`` (a dict: the
    match's record); write each record as it ends. Returns the number of matches played."""
    played = 0
    for job in jobs:
        path = record_path(out, job)
        if os.path.exists(path):
            continue
        t0 = time.perf_counter()
        record = play_one(job)
        record["series"] = {k: job[k] for k in ("index", "seat", "scramble", "seed")}
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path + ".part", "w") as f:
            json.dump(record, f, indent=1)
        os.replace(path + ".part", path)  # a match is recorded whole or not at all
        played += 1
        s = score_of(record)
        log(
            f"{job['key']} #{job['index']}: player seat {job['seat']}{' scrambled' if job['scramble'] else ''}: "
            f"{'unfinished' if s is None else {1.0: 'win', 0.5: 'draw', 0.0: 'loss'}[s]} "
            f"({len(record['moves'])} moves, {time.perf_counter() - t0:.0f} s)"
        )
    return played


def score_of(record: dict) -> float | None:
    """The player's result: 1 (a higher goal than the reference), 0.5 (the same), 0 (lower);
    None if the match has no goals (it did not end)."""
    if record.get("goals") is None:
        return None
    seat = record["series"]["seat"]
    mine, theirs = record["goals"][seat], record["goals"][1 - seat]
    return 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a proportion ``score / n`` (``(0, 1)`` for no matches)."""
    if n == 0:
        return 0.0, 1.0
    p = score / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _errors(record: dict, seat: int) -> tuple[int, int]:
    illegal = timeouts = 0
    for turn in record["errors"]:
        e = turn[seat]
        if not e:
            continue
        if e.startswith("late") or e.startswith("no reply"):
            timeouts += 1
        else:
            illegal += 1
    return illegal, timeouts


def summarise(records: list[dict]) -> dict:
    """One sheet's figures over its match records (see the module docstring)."""
    wins = draws = losses = unfinished = illegal = timeouts = ref_errors = 0
    slowest = 0.0
    sims: list[int] = []
    reused: list[int] = []
    depths: list[int] = []
    nodes: list[int] = []
    for r in records:
        seat = r["series"]["seat"]
        s = score_of(r)
        if s is None:
            unfinished += 1
        elif s == 1.0:
            wins += 1
        elif s == 0.5:
            draws += 1
        else:
            losses += 1
        i, t = _errors(r, seat)
        illegal += i
        timeouts += t
        ref_errors += sum(_errors(r, 1 - seat))
        slowest = max([slowest, *(turn[seat] for turn in r["times"])])
        for turn in (r.get("player_log") or {}).get("turns", []):
            if turn.get("legal", 1) > 1 and "depth" in turn:  # alpha-beta
                depths.append(int(turn["depth"]))
                nodes.append(int(turn["nodes"]))
            elif turn.get("legal", 1) > 1 and "simulations" in turn:
                sims.append(int(turn["simulations"]))
                reused.append(int(turn.get("reused", 0)))
    n = wins + draws + losses
    score = wins + draws / 2
    lo, hi = wilson(score, n)
    return {
        "matches": len(records),
        "wins": wins,
        "draws": draws,
        "losses": losses,
        "unfinished": unfinished,
        "score": score / n if n else None,
        "interval": (lo, hi),
        "illegal": illegal,
        "timeouts": timeouts,
        "reference_errors": ref_errors,
        "slowest": slowest,
        "median_simulations": statistics.median(sims) if sims else None,
        "median_reused": statistics.median(reused) if reused else None,
        "median_depth": statistics.median(depths) if depths else None,
        "median_nodes": statistics.median(nodes) if nodes else None,
    }


def load_records(out: str, key: str) -> list[dict]:
    folder = os.path.join(out, key)
    if not os.path.isdir(folder):
        return []
    recs = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            with open(os.path.join(folder, name)) as f:
                recs.append(json.load(f))
    return recs


def table(rows: list[tuple[str, dict]]) -> str:
    """A Markdown table, one row per sheet."""
    head = (
        "| sheet | matches | wins / draws / losses | score (draws ½) | 95% interval | illegal | timeouts "
        "| slowest answer | median search: simulations (reused), or alpha-beta's depth and nodes "
        "| reference's errors |\n"
        "|---|---|---|---|---|---|---|---|---|---|"
    )
    lines = [head]
    for key, s in rows:
        score = "-" if s["score"] is None else f"{s['score']:.0%}"
        lo, hi = s["interval"]
        extra = f" ({s['unfinished']} unfinished)" if s["unfinished"] else ""
        med = "-" if s["median_simulations"] is None else f"{s['median_simulations']:,.0f}"
        if s["median_reused"]:
            med += f" ({s['median_reused']:,.0f})"
        if s.get("median_depth") is not None:  # alpha-beta turns
            ab = f"alpha-beta depth {s['median_depth']:g}, {s['median_nodes']:,.0f} nodes"
            med = ab if s["median_simulations"] is None else f"{med}; {ab}"
        lines.append(
            f"| `{key}` | {s['matches']}{extra} | {s['wins']} / {s['draws']} / {s['losses']} | {score} "
            f"| {lo:.0%} to {hi:.0%} | {s['illegal']} | {s['timeouts']} | {s['slowest']:.2f} s | {med} "
            f"| {s['reference_errors']} |"
        )
    return "\n".join(lines)


# ------------------------------------------------------------------ the player servers
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A ``ggp-player`` subprocess on a free port, logging its matches to ``log_dir``."""

    def __init__(self, agent: str, seed: int, log_dir: str, stderr_path: str, extra: list[str] | None = None):
        self.agent, self.seed, self.log_dir, self.stderr_path = agent, seed, log_dir, stderr_path
        self.extra = extra or []
        self.proc: subprocess.Popen | None = None
        self.port = 0

    def start(self) -> None:
        from ggpzoo.ggp.player import post

        self.port = free_port()
        cmd = [sys.executable, "-m", "ggpzoo", "ggp-player", "--host", "127.0.0.1", "--port", str(self.port)]
        cmd += ["--agent", self.agent, "--seed", str(self.seed), "--log-dir", self.log_dir, *self.extra]
        self._err = open(self.stderr_path, "a")  # noqa: SIM115 - open while the server runs
        self.proc = subprocess.Popen(cmd, stdout=self._err, stderr=self._err)
        t_end = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < t_end:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the {self.agent} player exited ({self.proc.returncode}); see {self.stderr_path}")
            try:
                post("127.0.0.1", self.port, "(info)", timeout=2.0)
                return
            except (OSError, TimeoutError):
                time.sleep(1.0)
        raise RuntimeError(f"the {self.agent} player did not answer within {STARTUP_SECONDS:g} s")

    def ensure(self, wait: float = 120.0) -> None:
        """Start the server if it is not running; wait (at most ``wait`` seconds) until it
        is free for a match (INFO answers ``available``: a late search of the last match
        may still be running)."""
        from ggpzoo.ggp.player import post

        if self.proc is None or self.proc.poll() is not None:
            self.start()
        t_end = time.monotonic() + wait
        while time.monotonic() < t_end:
            try:
                if "available" in post("127.0.0.1", self.port, "(info)", timeout=5.0):
                    return
            except (OSError, TimeoutError):
                pass
            time.sleep(0.5)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None


def match_player(player: Server, reference: Server):
    """``play_one(job)`` for `run_series`: one match through the runner, with the player's log."""
    from ggpzoo.ggp.server import run_match

    def play_one(job: dict) -> dict:
        player.ensure()
        reference.ensure()
        addrs = [f"127.0.0.1:{player.port}", f"127.0.0.1:{reference.port}"]
        if job["seat"] == 1:
            addrs.reverse()
        record = run_match(
            job["sheet"],
            addrs,
            start_clock=job["start"],
            play_clock=job["play"],
            scramble_names=job["scramble"],
            seed=job["seed"],
            match_id=job["match_id"],
        )
        path = os.path.join(player.log_dir, job["match_id"] + ".json")
        for _ in range(300):  # the player writes its log once the match's last search is back
            if os.path.exists(path):
                break
            time.sleep(0.1)
        try:
            with open(path) as f:
                record["player_log"] = json.load(f)
        except (OSError, ValueError):
            record["player_log"] = None
        return record

    return play_one


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sheets", nargs="+", help="shipped sheet names (tictactoe) or .kif paths")
    p.add_argument("--matches", type=int, default=20, help="matches per sheet (default 20)")
    p.add_argument("--start", type=float, default=20.0, help="start clock, seconds (default 20)")
    p.add_argument("--play", type=float, default=1.0, help="play clock, seconds (default 1)")
    p.add_argument("--agent", default="mcts", help="the player's --agent (default mcts)")
    p.add_argument("--reference", default="mc", help="the reference's --agent (default mc)")
    p.add_argument("--seed", type=int, default=0, help="seeds the scrambling, the players and the series")
    p.add_argument("--out", required=True, help="folder of the match records (OUT/SHEET/NNN.json)")
    p.add_argument("--table", action="store_true", help="print the table of the records in OUT; play nothing")
    args = p.parse_args(argv)
    if args.matches < 0 or args.start <= 0 or args.play <= 0:
        p.error("--matches must be >= 0 and the clocks positive")
    from ggpzoo.gdl.spec import sheet_path

    for s in args.sheets:
        try:
            sheet_path(s)
        except (ValueError, OSError) as e:
            p.error(str(e).splitlines()[0])
    jobs = plan(args.sheets, args.matches, args.start, args.play, args.seed)
    if not args.table:
        os.makedirs(args.out, exist_ok=True)
        logs = os.path.join(args.out, "logs")
        os.makedirs(logs, exist_ok=True)
        player = Server(args.agent, args.seed + 1, os.path.join(logs, "player"), os.path.join(logs, "player.err"))
        reference = Server(
            args.reference, args.seed + 2, os.path.join(logs, "reference"), os.path.join(logs, "reference.err")
        )
        try:
            run_series(jobs, args.out, match_player(player, reference), log=lambda t: print(t, flush=True))
        except KeyboardInterrupt:
            print("interrupted: run again to go on", file=sys.stderr)
            return 130
        finally:
            player.stop()
            reference.stop()
    keys = list(dict.fromkeys(j["key"] for j in jobs)) or [sheet_key(s) for s in args.sheets]
    print(f"start clock {args.start:g} s, play clock {args.play:g} s, {args.agent} against {args.reference}")
    print(table([(k, summarise(load_records(args.out, k))) for k in keys]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
