"""Elo against minutes of training: a ladder of one Gumbel AlphaZero run's snapshots.

``python -m ggpzoo.training.az`` keeps the network at every save as
``OUT/snapshots/minNNN.json``. This script rates them with the arena's Elo
(`ggpzoo.tools.arena.round_robin()` on chosen pairs, maximum likelihood, the second
anchor, ``greedy``, rated 0: it plays the most games, so the margins are the narrowest):

* the anchors (``--anchors``, weakest first; default ``random``, ``greedy``, ``mcts:200``,
  ``mcts:1000``) play their neighbours on that list;
* every snapshot's network alone (``NNNmin``) plays the anchors but the first and the last
  (``greedy``, ``mcts:200``), and the previous snapshot (the first snapshot plays
  ``random`` instead);
* the last snapshot with ``--simulations`` of search (``NNNmin+S``) plays its network
  alone and the two strongest anchors (``mcts:200``, ``mcts:1000``).

Every pair plays games ``2k`` and ``2k + 1`` from the same random opening of ``--openings``
plies (default 4, as the arena's) once with each seat order; the margins count the distinct
games. ``--json`` is checked (its folder made) before the first game, and Ctrl-C writes the
games finished so far, flagged ``"interrupted": true``.

Then ``--plot`` draws one panel per game from the JSON files it wrote::

    NUMBA_NUM_THREADS=1 python benchmarks/az_ladder.py --env skirmish_v0 --run runs/az/skirmish_v0 \\
        --games 20 --json runs/ladder/skirmish_v0.json
    python benchmarks/az_ladder.py --plot runs/ladder/*.json    # writes runs/ladder/ladder.png

(The docs' pictures are drawn from ``docs/img/alphazero/*.json`` with ``--out
docs/img/alphazero/ladder.png``.)

The plot needs matplotlib (the ``examples`` extra).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import sys

ANCHORS = ("random", "greedy", "mcts:200", "mcts:1000")


def snapshots(run: str) -> list[tuple[int, str]]:
    """``(minutes, path)`` of every ``run/snapshots/minNNN.json``, in order of minutes."""
    found = []
    for path in glob.glob(os.path.join(run, "snapshots", "min*.json")):
        m = re.fullmatch(r"min(\d+)\.json", os.path.basename(path))
        if m:
            found.append((int(m.group(1)), path))
    return sorted(found)


def ladder(
    env_name: str,
    run: str,
    games: int,
    simulations: int,
    seed: int,
    every: int = 1,
    anchors=ANCHORS,
    openings: int = 0,
):
    """Play the ladder; returns the `ArenaResult` and each agent's minutes."""
    from ggpzoo.agents import make_agent
    from ggpzoo.tools.arena import round_robin

    if not os.path.isdir(run):
        raise SystemExit(f"--run {run}: no such folder (give the --out folder of python -m ggpzoo.training.az)")
    snaps = snapshots(run)
    if not snaps:
        raise SystemExit(
            f"--run {run}: the folder holds no snapshots/minNNN.json (give the --out folder of "
            "python -m ggpzoo.training.az, which writes one at every save)"
        )
    snaps = [s for k, s in enumerate(snaps) if k % every == 0 or k == len(snaps) - 1]
    if len(anchors) < 3:
        raise SystemExit(f"a ladder needs at least three anchors, got {list(anchors)}")
    agents, minutes = [], {}
    for k, spec in enumerate(anchors):
        agents.append(make_agent(spec, env_name, seed=seed + k))
    a = len(anchors)
    pairs = [(k, k + 1) for k in range(a - 1)]
    for k, (minute, path) in enumerate(snaps):
        agent = make_agent(f"az:{path}", env_name, seed=seed)
        agent.name = f"{minute}min"
        minutes[agent.name] = minute
        i = len(agents)
        agents.append(agent)
        pairs += [(i, j) for j in range(1, a - 1)] + ([(i, 0)] if k == 0 else [(i, i - 1)])
    last_minute, last_path = snaps[-1]
    searched = make_agent(f"az:{last_path}:{simulations}", env_name, seed=seed)
    searched.name = f"{last_minute}min+{simulations}"
    minutes[searched.name] = last_minute
    agents.append(searched)
    i = len(agents) - 1
    pairs += [(i, i - 1), (i, a - 2), (i, a - 1)]
    try:
        result = round_robin(env_name, agents, games, seed=seed, pairs=pairs, anchor=1, openings=openings)
    except KeyboardInterrupt as stop:  # ArenaInterrupted: the games so far
        stop.minutes = minutes
        raise
    return result, minutes


def ratings(data: dict) -> dict[str, tuple[float, float]]:
    """Each agent's Elo and 95% margin from a ladder file's pairs, the second anchor
    (``greedy``) rated 0, whichever anchor the file was written with; a pair's games count
    as its distinct games (files from before they were counted: all its games)."""
    import numpy as np

    from ggpzoo.tools.arena import elo_ratings

    index = {a: i for i, a in enumerate(data["agents"])}
    n = len(index)
    scores, games = np.zeros((n, n)), np.zeros((n, n))
    for p in data["pairs"]:
        i, j = index[p["agent"]], index[p["opponent"]]
        s = p["wins"] + 0.5 * p["draws"]
        weight = p.get("distinct", p["games"]) / p["games"]
        scores[i, j], scores[j, i] = s * weight, (p["games"] - s) * weight
        games[i, j] = games[j, i] = p["games"] * weight
    elo, errors = elo_ratings(scores, games, anchor=index[data["anchor_specs"][1]])
    return {a: (float(elo[i]), float(1.96 * errors[i])) for a, i in index.items()}


def plot(paths: list[str], out: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = min(len(paths), 3)
    rows = (len(paths) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False)
    for ax, path in zip(axes.flat, paths, strict=False):
        with open(path) as f:
            data = json.load(f)
        elo = ratings(data)
        minutes = data["minutes"]
        alone = sorted((m, a) for a, m in minutes.items() if "+" not in a)
        ax.errorbar(
            [m for m, _ in alone],
            [elo[a][0] for _, a in alone],
            yerr=[elo[a][1] for _, a in alone],
            marker="o",
            markersize=3,
            capsize=2,
            label="network alone",
        )
        for a, m in minutes.items():
            if "+" in a:
                ax.errorbar(
                    [m],
                    [elo[a][0]],
                    yerr=[elo[a][1]],
                    marker="s",
                    capsize=2,
                    color="C3",
                    label=f"+{a.split('+')[1]} simulations",
                )
        for k, anchor in enumerate(data["anchor_specs"]):
            ax.axhline(elo[anchor][0], color=f"C{k + 4}", linestyle="--", linewidth=0.8, label=anchor)
        ax.set_title(data["env"])
        ax.set_xlabel("minutes of training")
        ax.set_ylabel(f"Elo ({data['anchor_specs'][1]} = 0)")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(paths) :]:
        ax.axis("off")
    handles, labels = axes.flat[0].get_legend_handles_labels()
    cols = min(len(labels), 3 * len(axes[0]))
    fig.legend(handles, labels, loc="lower center", ncol=cols, fontsize=8)
    legend_rows = (len(labels) + cols - 1) // cols
    fig.tight_layout(rect=(0, 0.05 * legend_rows * 3.6 / (3.6 * rows), 1, 1))
    fig.savefig(out, dpi=110)
    print(f"wrote {out}")


def _write(path: str, result, minutes: dict, anchors) -> None:
    data = result.to_dict()
    data.pop("games")  # the actions of every game: large, and not needed to plot
    data["minutes"] = minutes
    data["anchor_specs"] = list(anchors)
    with open(path, "w") as f:
        json.dump(data, f, indent=1)
    print(f"wrote {path}" + (" (interrupted: the games finished so far)" if result.interrupted else ""))


def main(argv: list[str] | None = None) -> int:
    from ggpzoo.tools.arena import MAX_OPENING_PLIES, OPENING_PLIES, ArenaInterrupted, check_output

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--env", help="the game the run trained")
    p.add_argument("--run", help="the training run's --out directory")
    p.add_argument("--games", type=int, default=20, help="games per pair (default 20)")
    p.add_argument(
        "--openings",
        type=int,
        default=OPENING_PLIES,
        help="random plies each pair of games starts from, once with each seat order (default %(default)s)",
    )
    p.add_argument("--simulations", type=int, default=32, help="search of the last snapshot (default 32)")
    p.add_argument("--every", type=int, default=1, help="rate every k-th snapshot (and the last; default 1)")
    p.add_argument("--anchors", default=",".join(ANCHORS), help="agent specs, weakest first (default %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--json", help="write the ladder (arena JSON plus each agent's minutes)")
    p.add_argument("--plot", nargs="+", metavar="JSON", help="draw the ladders in these files instead")
    p.add_argument("--out", default="runs/ladder/ladder.png", help="the plot's file (default %(default)s)")
    args = p.parse_args(argv)
    for option, path in (("--out", args.out if args.plot else None), ("--json", args.json)):
        try:
            if path is not None:
                check_output(path, make_folder=True)  # before anything is played or drawn
        except ValueError as e:
            p.error(f"{option}: {e}")
    if args.plot:
        plot(args.plot, args.out)
        return 0
    if not (args.env and args.run):
        p.error("--env and --run are needed (or --plot)")
    if not 0 <= args.openings <= MAX_OPENING_PLIES:
        p.error(f"--openings must be in 0..{MAX_OPENING_PLIES} plies")
    anchors = tuple(args.anchors.split(","))
    try:
        result, minutes = ladder(
            args.env, args.run, args.games, args.simulations, args.seed, args.every, anchors, args.openings
        )
    except ArenaInterrupted as stop:
        print(stop.result.table())
        if args.json:
            _write(args.json, stop.result, stop.minutes, anchors)
        raise
    print(result.table())
    if args.json:
        _write(args.json, result, minutes, anchors)
    return 0


if __name__ == "__main__":
    sys.exit(main())
