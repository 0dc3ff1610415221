"""Self-play throughput benchmark, through ``env()`` or through the batched engine.

AEC mode (default): random legal games through ``env()``. Each step reads the observation
and the action mask with ``env.last()`` and picks a uniformly random legal action from the
mask ([`ggpzoo.utils.sample_action()`][ggpzoo.utils.sample_action]), as a masked-policy learner would see the env.

Batched mode (``--batched N``): N games at once in [`ggpzoo.engine.VectorGames`][ggpzoo.engine.VectorGames],
random legal actions chosen and played by numba over every core, one Python call per
batch step; and whole games in [`ggpzoo.engine.play_games()`][ggpzoo.engine.play_games] (no Python in the loop).

Both print steps/s and full turns/s (a turn is everything one role does before the other
acts), and with ``--vs`` a reference implementation timed in the same run, as a ratio.

    python -m ggpzoo.tools.bench                          # every env through env(), 5 s each
    python -m ggpzoo.tools.bench --env amazons_v0 --vs openspiel --seconds 20
    python -m ggpzoo.tools.bench --batched 256 --vs openspiel

References (``--vs``): ``openspiel`` (the ``bench`` extra) runs, in AEC mode, OpenSpiel's
``amazons`` through ``open_spiel.python.rl_environment`` against amazons_v0; in batched
mode, OpenSpiel's C++ state API (``pyspiel``: ``legal_actions``/``apply_action``, no
observations) on amazons, chess and 10x10 checkers against amazons_v0, skirmish_v0 and
mad_bishops_v0. ``chess`` runs PettingZoo's ``classic/chess_v6`` (needs python-chess and
pygame) against the Skirmish envs in AEC mode.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from ggpzoo.envs import ENVS, spec
from ggpzoo.utils import sample_action

# The --vs options; which env compares against what is in each spec's ``references``.
VS = ("chess", "openspiel")


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


def _aec_games(env, seconds: float, seed: int, min_games: int) -> tuple[int, int, float]:
    """Random games through the AEC ``env``: last() every step, a random legal action from the mask."""
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
    return _timed_games(play_one, seconds, min_games)


def bench_env(name: str, seconds: float = 5.0, seed: int = 0, min_games: int = 1) -> dict:
    """Steps/s of random self-play through ``env()`` of ``name``, after one warm-up game."""
    games, steps, elapsed = _aec_games(spec(name).env(), seconds, seed, min_games)
    return _row(name, games, steps, elapsed, spec(name).turn_actions)


def bench_openspiel(seconds: float, seed: int, min_games: int, game: tuple) -> dict:
    """An OpenSpiel ``game`` ``(name, params, actions per turn)`` (a spec's ``references["openspiel"]``)
    through ``rl_environment``, random legal actions from its lists."""
    from open_spiel.python import rl_environment

    game_name, params, per_turn = game
    env = rl_environment.Environment(game_name, **params)
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
    return _row(f"openspiel {game_name} (rl_environment)", games, steps, elapsed, per_turn)


def bench_chess(seconds: float = 5.0, seed: int = 0, min_games: int = 1, module: str = "chess_v6") -> dict:
    """PettingZoo's classic ``module`` (chess_v6) through ``env()``, with the loop of
    [`bench_env()`][ggpzoo.tools.bench.bench_env]."""
    import importlib

    classic = importlib.import_module(f"pettingzoo.classic.{module}")
    games, steps, elapsed = _aec_games(classic.env(), seconds, seed, min_games)
    return _row(f"pettingzoo {module}", games, steps, elapsed, 1)


def bench_batched(name: str, num_games: int, seconds: float = 5.0, seed: int = 0) -> dict:
    """`VectorGames` with random actions: one ``random_actions`` + ``step`` per batch step."""
    from ggpzoo.engine import VectorGames

    games = VectorGames(name, num_games)
    games.reset()
    games.step(games.random_actions(seed))  # compile (or load the cache) first
    games.reset()
    games.pop_results()
    batch_steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        games.step(games.random_actions(seed + batch_steps))
        batch_steps += 1
    elapsed = time.perf_counter() - start
    row = _row(
        f"{name} (VectorGames, N={num_games})",
        len(games.pop_results()),
        batch_steps * num_games,
        elapsed,
        spec(name).turn_actions,
    )
    row["steps_per_game"] = float("nan")  # games still running at the end are not counted
    return row


def bench_play(name: str, seconds: float = 5.0, seed: int = 0, chunk: int = 1024) -> dict:
    """[`ggpzoo.engine.play_games()`][ggpzoo.engine.play_games]: whole random games in numba, ``chunk`` games a call."""
    from ggpzoo.engine import play_games

    play_games(name, 2, seed=seed)  # compile (or load the cache) first
    games = steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        _goals, lengths = play_games(name, chunk, seed=seed + games)
        games += chunk
        steps += int(lengths.sum())
    elapsed = time.perf_counter() - start
    return _row(f"{name} (play)", games, steps, elapsed, spec(name).turn_actions)


def bench_pyspiel(name: str, seconds: float = 5.0, seed: int = 0) -> dict:
    """OpenSpiel's C++ state API from Python: ``legal_actions`` and ``apply_action`` only."""
    import pyspiel

    game_name, params, per_turn = spec(name).references["pyspiel"]
    game = pyspiel.load_game(game_name, params)
    rng = np.random.default_rng(seed)

    def play_one(_game: int) -> int:
        state = game.new_initial_state()
        steps = 0
        while not state.is_terminal():
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        return steps

    play_one(0)
    games, steps, elapsed = _timed_games(play_one, seconds, 1)
    label = f"pyspiel {game_name}" + (" 10x10" if params else "")
    return _row(label, games, steps, elapsed, per_turn)


def _row(name, games, steps, elapsed, per_turn) -> dict:
    return {
        "env": name,
        "games": games,
        "steps": steps,
        "seconds": elapsed,
        "steps_per_s": steps / elapsed,
        "turns_per_s": steps / per_turn / elapsed,
        "steps_per_game": steps / games if games else float("nan"),
    }


def format_table(rows: list[dict]) -> str:
    head = f"{'env':<40} {'games':>7} {'games/s':>9} {'steps/game':>10} {'steps/s':>11} {'turns/s':>11}  ratio"
    lines = [head, "-" * len(head)]
    for r in rows:
        ratio = f"{r['ratio']:.2f}x vs {r['vs']}" if "ratio" in r else ""
        lines.append(
            f"{r['env']:<40} {r['games']:>7} {r['games'] / r['seconds']:>9.0f} {r['steps_per_game']:>10.1f} "
            f"{r['steps_per_s']:>11.0f} {r['turns_per_s']:>11.0f}  {ratio}"
        )
    return "\n".join(lines)


def _progress(what: str) -> None:
    print(f"timing {what} ...", file=sys.stderr, flush=True)


def _say(line: str) -> None:
    print(f"  {line}", file=sys.stderr, flush=True)


def _run_aec(names: list[str], args) -> list[dict]:
    runners = {"openspiel": bench_openspiel, "chess": bench_chess}
    rows = []
    for name in names:
        _progress(name)
        row = bench_env(name, args.seconds, args.seed)
        rows.append(row)
        for ref in args.vs:
            if ref not in spec(name).references:
                continue
            _progress(ref)
            try:
                ref_row = runners[ref](args.seconds, args.seed, 1, spec(name).references[ref])
            except ImportError as e:
                print(f"--vs {ref}: cannot import it ({e}); install the 'bench' extra", file=sys.stderr)
                continue
            row["ratio"], row["vs"] = row["turns_per_s"] / ref_row["turns_per_s"], ref_row["env"]
            rows.append(ref_row)
    return rows


def _run_batched(names: list[str], args) -> list[dict]:
    rows = []
    for name in names:
        _progress(f"{name} with VectorGames(N={args.batched})")
        row = bench_batched(name, args.batched, args.seconds, args.seed)
        _progress(f"{name} with play()")
        play_row = bench_play(name, args.seconds, args.seed)
        rows += [row, play_row]
        if "openspiel" in args.vs and "pyspiel" in spec(name).references:
            _progress(f"pyspiel {spec(name).references['pyspiel'][0]}")
            try:
                ref_row = bench_pyspiel(name, args.seconds, args.seed)
            except ImportError as e:
                print(f"--vs openspiel: cannot import pyspiel ({e}); install the 'bench' extra", file=sys.stderr)
                continue
            for r in (row, play_row):
                r["ratio"], r["vs"] = r["turns_per_s"] / ref_row["turns_per_s"], ref_row["env"]
            rows.append(ref_row)
    return rows


MAX_SECONDS = 86_400.0  # a day per env: the most --seconds takes
MAX_BATCHED = 1 << 16  # games at once: amazons_v0 keeps 20 kB of legal ids per game


def main(argv: list[str] | None = None, prog: str = "python -m ggpzoo.tools.bench") -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if "--gdl" in argv or any(a.startswith("--gdl=") for a in argv):
        from ggpzoo.gdl.cli import bench_main

        return bench_main(argv)
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--env",
        default="all",
        help=f"an env name or 'all' (default); one of: {', '.join(ENVS)}; or gdl:SHEET (a GDL sheet through env() "
        "and the batched engine; bench --gdl SHEET times its compiled, exact and prover paths)",
    )
    parser.add_argument(
        "--seconds", type=float, default=None, help="timed seconds per env (default 5; with --train 60 per path)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--batched",
        type=int,
        metavar="N",
        default=0,
        help="time the batched engine with N games at once (and whole games with play())",
    )
    parser.add_argument(
        "--train",
        action="store_true",
        help="time MaskablePPO training with each game's recipe: SingleAgentEnv vs the batched self-play env "
        "(ggpzoo.tools.bench_train; --seconds per path, default 60). Long: per game about 2 x (--seconds + "
        "min(--seconds, 10)) s plus two warm-ups of seconds to minutes; all five games took over 10 minutes "
        "with --seconds 5 on a 2-core machine. Each phase is printed on stderr",
    )
    parser.add_argument(
        "--gdl",
        metavar="SHEET",
        nargs="+",
        help="time GDL sheets instead (.kif files, folders of them or names of shipped games): random playouts on "
        "the compiled, "
        "batched and exact paths; its own options: bench --gdl SHEET --help",
    )
    parser.add_argument(
        "--vs",
        choices=VS,
        action="append",
        default=[],
        help="also time a reference implementation in the same run and print the ratio",
    )
    args = parser.parse_args(argv)
    if args.env != "all":
        try:
            spec(args.env)
        except (ValueError, OSError) as e:
            parser.error(str(e).splitlines()[0])
    if args.seconds is None:
        args.seconds = 60.0 if args.train else 5.0
    if not (0 < args.seconds <= MAX_SECONDS):  # also refuses nan and inf, which never end
        parser.error(f"--seconds must be positive and at most {MAX_SECONDS:g}, got {args.seconds}")
    if not 0 <= args.seed < 2**63:
        parser.error(f"--seed must be an integer in 0..2**63 - 1, got {args.seed}")
    if not 0 <= args.batched <= MAX_BATCHED:
        parser.error(f"--batched must be a positive batch size, at most {MAX_BATCHED}, got {args.batched}")
    names = list(ENVS) if args.env == "all" else [args.env]
    if args.train:
        from ggpzoo.tools.bench_train import bench_train, format_train_table

        rows = []
        for name in names:
            _progress(f"{name}: MaskablePPO on SingleAgentEnv and on SelfPlayVecEnv, {args.seconds:g} s each")
            rows += bench_train(name, args.seconds, args.seed, say=_say)
        print(format_train_table(rows))
        return 0
    rows = _run_batched(names, args) if args.batched else _run_aec(names, args)
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
