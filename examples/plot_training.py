"""Plot win rate against minutes of training from the ``eval.csv`` files that
``python -m ggpzoo train`` (and ``examples/train_maskable_ppo.py``) write.

    python examples/plot_training.py runs/skirmish_v0/eval.csv    # writes runs/training.png
    python examples/plot_training.py runs/*/eval.csv --out runs/all.png

One panel per file (its env is the folder's name): the win rate against each opponent
with its 95% Wilson interval as a band, the 95% line, and for greedy the 60% line. Needs
matplotlib (the ``examples`` extra).
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path


def read(path: Path) -> dict[str, list[dict]]:
    """The rows of one ``eval.csv`` by opponent, in file order (the final evaluation too)."""
    series: dict[str, list[dict]] = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            series.setdefault(row["opponent"], []).append(
                {k: float(row[k]) for k in ("minutes", "win_rate", "ci_low", "ci_high", "games")}
            )
    return series


def plot(paths: list[Path], out: Path, title: str | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cols = min(len(paths), 3)
    rows = (len(paths) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.4 * rows), squeeze=False)
    for ax, path in zip(axes.flat, paths, strict=False):
        for opponent, points in read(path).items():
            x = [p["minutes"] for p in points]
            y = [100 * p["win_rate"] for p in points]
            lo = [100 * p["ci_low"] for p in points]
            hi = [100 * p["ci_high"] for p in points]
            (line,) = ax.plot(x, y, marker="o", markersize=3, label=f"vs {opponent}")
            ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.2)
        ax.axhline(95, color="grey", linestyle="--", linewidth=0.8)
        ax.axhline(60, color="grey", linestyle=":", linewidth=0.8)
        ax.set_title(path.parent.name)
        ax.set_xlabel("minutes of training")
        ax.set_ylabel("win rate, % (95% interval)")
        ax.set_ylim(0, 101)
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize=8)
    for ax in list(axes.flat)[len(paths) :]:
        ax.axis("off")
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="plot_training.py", description=__doc__.split("\n\n")[0])
    p.add_argument("csv", nargs="+", type=Path, help="eval.csv files (one panel each)")
    p.add_argument("--out", type=Path, default=Path("runs/training.png"), help="the PNG to write (default %(default)s)")
    p.add_argument("--title", default=None)
    args = p.parse_args(argv)
    for path in args.csv:
        if not path.is_file():
            p.error(f"no such file: {path}")
    plot(args.csv, args.out, args.title)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
