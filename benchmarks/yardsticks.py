"""An Elo ladder of the yardstick agents, per game: where random, greedy, MCTS, alpha-beta and
the shipped AlphaZero baseline stand against each other at equal time per move.

The agents (``--agents``, weakest first as expected; default `AGENTS`) play their two
neighbours up and down that list (``i`` against ``i+1`` and ``i+2``), ``--games`` games a
pair, games ``2k`` and ``2k + 1`` from the same random opening of ``--openings`` plies
(default 4, as the arena's; 0 for the plain start) once with each seat order, seeded per
game from ``(seed, pair, game)`` and per opening from ``(seed, k)`` as the arena seeds
them. Ratings are the arena's (maximum likelihood, ``greedy`` rated 0). Every finished game
is appended to ``OUT/ENV.jsonl`` at once, so a stopped run goes on where it was when run
again with the same arguments (it plays only the games not yet recorded; an agent that
keeps memory between games, as alpha-beta's transposition table does, may play a resumed
game otherwise than an unbroken run would).

    NUMBA_NUM_THREADS=1 python benchmarks/yardsticks.py --env skirmish_v0 --games 10 --out runs/yardsticks
    python benchmarks/yardsticks.py --env skirmish_v0 ... --out runs/yardsticks --table   # print, play nothing
    python benchmarks/yardsticks.py --plot runs/yardsticks/*.jsonl --image docs/img/yardsticks.png

``--table`` prints a Markdown table per game: Elo with its 95% margin, games and distinct
games (the margins count only the distinct ones, as the arena's do), score and each agent's
mean time per move. A ladder recorded with other ``--openings`` is refused (records from
before openings have none: ``--openings 0`` reads them). ``--plot`` (needs matplotlib, the ``examples`` extra) draws one
panel per game. Each agent gets one core: run with ``NUMBA_NUM_THREADS=1`` (and torch's
default threads) on a machine with a core to spare, or the timed agents get less than their
budget.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import asdict, fields

AGENTS = (
    "random",
    "greedy",
    "baseline",
    "mcts:0.1s",
    "mcts:0.25s",
    "baseline:0.25s",
    "ab:0.1s",
    "ab:0.25s",
)
ANCHOR = "greedy"


def ladder_pairs(n: int) -> list[tuple[int, int]]:
    """Each agent against the next two on the list."""
    return [(i, j) for i in range(n) for j in (i + 1, i + 2) if j < n]


def _record_dict(p: int, g: int, r, openings: int) -> dict:
    """A finished game as a JSON line: its pair and game index, the protocol's opening plies,
    and the arena's `GameRecord` (its actions as ids, the opening's first; the moves' text is
    left out)."""
    d = {k: v for k, v in asdict(r).items() if k != "moves"}
    d["actions"] = [int(a) for a in r.actions]
    return {"pair": p, "game": g, "openings": openings, **d}


def recorded_openings(path: str) -> int | None:
    """The ``--openings`` the records in ``path`` were played with (0 for records from before
    openings; None when nothing is recorded); a ValueError if they mix several."""
    seen = {d.get("openings", 0) for d in load(path)}
    if len(seen) > 1:
        raise ValueError(f"{path} mixes games played with --openings {sorted(seen)}")
    return seen.pop() if seen else None


def load(path: str) -> list[dict]:
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def play(
    env_name: str, specs: list[str], games: int, seed: int, path: str, max_steps: int | None, openings: int = 0
) -> None:
    """Play the ladder's games not yet in ``path``, appending each as it ends."""
    import numpy as np

    from ggpzoo.agents import make_agent
    from ggpzoo.tools.arena import _raw_env, opening_for, play_game

    done = {(d["pair"], d["game"]) for d in load(path)}
    agents = [make_agent(s, env_name, seed=seed + k) for k, s in enumerate(specs)]
    env = _raw_env(env_name, max_steps=max_steps)
    pairs = ladder_pairs(len(specs))
    todo = len(pairs) * games - len(done)
    print(f"{env_name}: {len(pairs)} pairs x {games} games, {todo} to play", flush=True)
    starts = [opening_for(env, openings, seed, k) for k in range((games + 1) // 2)]
    for p, (i, j) in enumerate(pairs):
        for g in range(games):
            if (p, g) in done:
                continue
            white, black = (i, j) if g % 2 == 0 else (j, i)
            seeds = np.random.SeedSequence([seed, p, g]).generate_state(2)
            r = play_game(
                env, agents[white], agents[black], seeds=(int(seeds[0]), int(seeds[1])), opening=starts[g // 2]
            )
            with open(path, "a") as f:
                f.write(json.dumps(_record_dict(p, g, r, openings)) + "\n")
            print(f"  {specs[white]} - {specs[black]}: {r.score:g} ({r.length} actions)", flush=True)


def result(env_name: str, specs: list[str], path: str):
    """The arena's `ArenaResult` of the games recorded in ``path``."""
    from ggpzoo.tools.arena import ArenaResult, GameRecord

    names = {f.name for f in fields(GameRecord)}
    records = []
    for d in load(path):
        d = {k: v for k, v in d.items() if k in names}
        d["goals"] = tuple(d["goals"])
        records.append(GameRecord(**d))
    games = max(1, len(records) // max(1, len(ladder_pairs(len(specs)))))
    openings = recorded_openings(path) or 0
    return ArenaResult(env_name, list(specs), games, 0, records, specs.index(ANCHOR), openings)


def table(env_name: str, specs: list[str], path: str) -> str:
    res = result(env_name, specs, path)
    distinct = int(res.distinct().sum()) // 2
    lines = [f"**{env_name}** ({len(res.games)} games, {distinct} distinct; {res.protocol()})", ""]
    if res.warning():
        lines += [res.warning(), ""]
    lines += [
        "| agent | Elo | ±95% | games | distinct | W / D / L | score | ms/move |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in sorted(res.standings(), key=lambda r: -r["elo"]):
        if not r["games"]:
            continue
        lines.append(
            f"| `{r['agent']}` | {r['elo']:+.0f} | {r['elo_margin']:.0f} | {r['games']} | {r['distinct']} "
            f"| {r['wins']} / {r['draws']} / {r['losses']} | {100 * r['score']:.0f}% "
            f"| {1000 * r['seconds_per_move']:.1f} |"
        )
    return "\n".join(lines)


def plot(paths: list[str], specs: list[str], image: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = min(len(paths), 3)
    rows = (len(paths) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.8 * cols, 3.4 * rows), squeeze=False)
    for ax, path in zip(axes.flat, paths, strict=False):
        env_name = os.path.splitext(os.path.basename(path))[0]
        st = [r for r in result(env_name, specs, path).standings() if r["games"]]
        st.sort(key=lambda r: r["elo"])
        ax.barh(
            [r["agent"] for r in st],
            [r["elo"] for r in st],
            xerr=[r["elo_margin"] for r in st],
            color="C0",
            capsize=2,
        )
        ax.set_title(env_name)
        ax.set_xlabel(f"Elo ({ANCHOR} = 0)")
        ax.grid(axis="x", alpha=0.3)
    for ax in list(axes.flat)[len(paths) :]:
        ax.axis("off")
    fig.tight_layout()
    fig.savefig(image, dpi=110)
    print(f"wrote {image}")


def main(argv: list[str] | None = None) -> int:
    from ggpzoo.tools.arena import MAX_OPENING_PLIES, OPENING_PLIES, check_output

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", help="the game (an env name or gdl:SHEET)")
    p.add_argument("--agents", default=",".join(AGENTS), help="agent specs, weakest first (default %(default)s)")
    p.add_argument("--games", type=int, default=10, help="games per pair (default 10)")
    p.add_argument(
        "--openings",
        type=int,
        default=OPENING_PLIES,
        help="random plies each pair of games starts from, once with each seat order (default %(default)s; 0: the "
        "plain start)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-steps", type=int, default=None, help="cut games after this many actions (a draw)")
    p.add_argument("--out", default="runs/yardsticks", help="folder of the game records (OUT/ENV.jsonl)")
    p.add_argument("--table", action="store_true", help="print the table of what is recorded; play nothing")
    p.add_argument("--plot", nargs="+", metavar="JSONL", help="draw these records (one panel per game)")
    p.add_argument("--image", default="runs/yardsticks/yardsticks.png", help="the plot's file")
    args = p.parse_args(argv)
    specs = args.agents.split(",")
    if ANCHOR not in specs:
        p.error(f"--agents must include {ANCHOR} (the ladder's anchor)")
    if args.plot:
        try:
            check_output(args.image, make_folder=True)  # before the records are read and drawn
        except ValueError as e:
            p.error(f"--image: {e}")
        plot(args.plot, specs, args.image)
        return 0
    if not args.env:
        p.error("--env is needed (or --plot)")
    if args.games < 1:
        p.error("--games must be at least 1")
    if not 0 <= args.openings <= MAX_OPENING_PLIES:
        p.error(f"--openings must be in 0..{MAX_OPENING_PLIES} plies")
    path = os.path.join(args.out, args.env.replace(":", "_").replace("/", "_") + ".jsonl")
    try:
        check_output(path, make_folder=True)  # the folder made, the file writable: before the first game
        recorded = recorded_openings(path)
    except ValueError as e:
        p.error(f"--out: {e}")
    if recorded is not None and recorded != args.openings and not args.table:
        p.error(f"{path} holds games played with --openings {recorded}: go on with those, or use another --out")
    if not args.table:
        play(args.env, specs, args.games, args.seed, path, args.max_steps, args.openings)
    print(table(args.env, specs, path))
    return 0


if __name__ == "__main__":
    sys.exit(main())
