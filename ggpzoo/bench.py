"""Self-play throughput benchmark: random legal games through ``env()``.

Each step reads the observation and the action mask with ``env.last()`` and picks a
uniformly random legal action from the mask (:func:`ggpzoo.utils.sample_action`), as a
masked-policy learner would see the env. Prints steps/s and full turns/s per env, and
with ``--vs`` the same loop on a reference implementation in the same run, as a ratio.

    python -m ggpzoo.bench                          # every env, 5 s each
    python -m ggpzoo.bench --env amazons_v0 --vs openspiel --seconds 20

References (``--vs``): ``openspiel`` runs OpenSpiel's ``amazons`` through
``open_spiel.python.rl_environment`` (3 actions per turn; needs the ``bench`` extra) against
amazons_v0; ``chess`` runs PettingZoo's ``classic/chess_v6`` (needs ``chess``) against the
Skirmish envs.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from ggpzoo.envs import ENVS, load
from ggpzoo.utils import sample_action

# Actions per full turn (everything one role does before the other acts); 1 where absent.
ACTIONS_PER_TURN = {"amazons_split_v0": 2}
# The reference each --vs option compares which envs against.
REFERENCES = {"openspiel": ("amazons_v0",), "chess": ("skirmish_v0", "skirmish_endgame_v0")}


def _timed_games(play_one, seconds: float, min_games: int) -> tuple[int, int, float]:
    """Run ``play_one(game_index) -> steps`` until ``seconds`` pass; return games, steps, time."""
    games = steps = 0
    start = time.perf_counter()
    while True:
        steps += play_one(games)
        games += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and games >= min_games:
            return games, steps, elapsed


def bench_env(name: str, seconds: float = 5.0, seed: int = 0, min_games: int = 1) -> dict:
    """Steps/s of random self-play through ``env()`` of ``name``, after one warm-up game."""
    env = load(name).env()
    rng = np.random.default_rng(seed)

    def play_one(game: int) -> int:
        env.reset(seed=seed + game)
        steps = 0
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
            else:
                env.step(sample_action(obs["action_mask"], rng))
                steps += 1
        return steps

    play_one(0)  # compile and warm caches
    games, steps, elapsed = _timed_games(play_one, seconds, min_games)
    per_turn = ACTIONS_PER_TURN.get(name, 1)
    return _row(name, games, steps, elapsed, per_turn)


def bench_openspiel(seconds: float = 5.0, seed: int = 0, min_games: int = 1) -> dict:
    """OpenSpiel's amazons through ``rl_environment``, random legal actions from its lists."""
    from open_spiel.python import rl_environment

    env = rl_environment.Environment("amazons")
    rng = np.random.default_rng(seed)

    def play_one(_game: int) -> int:
        ts = env.reset()
        steps = 0
        while not ts.last():
            player = ts.observations["current_player"]
            legal = ts.observations["legal_actions"][player]
            ts = env.step([legal[rng.integers(len(legal))]])
            steps += 1
        return steps

    play_one(0)
    games, steps, elapsed = _timed_games(play_one, seconds, min_games)
    return _row("openspiel amazons (rl_environment)", games, steps, elapsed, 3)


def bench_chess(seconds: float = 5.0, seed: int = 0, min_games: int = 1) -> dict:
    """PettingZoo's chess_v6 through ``env()``, with the same loop as :func:`bench_env`."""
    from pettingzoo.classic import chess_v6

    env = chess_v6.env()
    rng = np.random.default_rng(seed)

    def play_one(game: int) -> int:
        env.reset(seed=seed + game)
        steps = 0
        for _agent in env.agent_iter():
            obs, _reward, term, trunc, _info = env.last()
            if term or trunc:
                env.step(None)
            else:
                env.step(sample_action(obs["action_mask"], rng))
                steps += 1
        return steps

    play_one(0)
    games, steps, elapsed = _timed_games(play_one, seconds, min_games)
    return _row("pettingzoo chess_v6", games, steps, elapsed, 1)


def _row(name, games, steps, elapsed, per_turn) -> dict:
    return {
        "env": name,
        "games": games,
        "steps": steps,
        "seconds": elapsed,
        "steps_per_s": steps / elapsed,
        "turns_per_s": steps / per_turn / elapsed,
        "steps_per_game": steps / games,
    }


def format_table(rows: list[dict]) -> str:
    head = f"{'env':<36} {'games':>7} {'steps/game':>10} {'steps/s':>10} {'turns/s':>10}  ratio"
    lines = [head, "-" * len(head)]
    for r in rows:
        ratio = f"{r['ratio']:.2f}x vs {r['vs']}" if "ratio" in r else ""
        lines.append(
            f"{r['env']:<36} {r['games']:>7} {r['steps_per_game']:>10.1f} "
            f"{r['steps_per_s']:>10.0f} {r['turns_per_s']:>10.0f}  {ratio}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ggpzoo.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="all", help=f"an env name or 'all' (default); one of: {', '.join(ENVS)}")
    parser.add_argument("--seconds", type=float, default=5.0, help="timed seconds per env (default 5)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--vs",
        choices=sorted(REFERENCES),
        action="append",
        default=[],
        help="also time a reference implementation in the same run and print the ratio",
    )
    args = parser.parse_args(argv)
    if args.env != "all" and args.env not in ENVS:
        parser.error(f"unknown env {args.env!r}; choose from: {', '.join(ENVS)}")
    if args.seconds <= 0:
        parser.error("--seconds must be positive")
    names = list(ENVS) if args.env == "all" else [args.env]
    runners = {"openspiel": bench_openspiel, "chess": bench_chess}
    rows = []
    for name in names:
        print(f"timing {name} ...", file=sys.stderr, flush=True)
        row = bench_env(name, args.seconds, args.seed)
        rows.append(row)
        for ref in args.vs:
            if name not in REFERENCES[ref]:
                continue
            print(f"timing {ref} ...", file=sys.stderr, flush=True)
            try:
                ref_row = runners[ref](args.seconds, args.seed)
            except ImportError as e:
                print(f"--vs {ref}: cannot import it ({e}); install the 'bench' extra", file=sys.stderr)
                continue
            row["ratio"], row["vs"] = row["turns_per_s"] / ref_row["turns_per_s"], ref_row["env"]
            rows.append(ref_row)
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
