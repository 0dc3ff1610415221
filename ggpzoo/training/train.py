"""Train a ggpzoo game with MaskablePPO on the batched self-play env: each game's recipe,
snapshots of the learner in the opponent pool, batched evaluations, checkpoints and resume.

    python -m ggpzoo train --env skirmish_v0 --minutes 30 --out runs
    python -m ggpzoo train --env skirmish_v0 --minutes 30 --out runs --resume   # 30 minutes more

or from Python, ``train("skirmish_v0", out="runs", minutes=30)``. Any two-role game trains
the same way, on the same env ([`SelfPlayVecEnv`][ggpzoo.training.selfplay.SelfPlayVecEnv]): a GDL game too
(``python -m ggpzoo train --env gdl:tictactoe``, ``train("gdl:tictactoe")``), an MLP on its
fluent vector, in ``OUT/gdl_SHEET/``, its games cut after `ggpzoo.tools.arena.GDL_MAX_STEPS`
joint moves. What a run writes in ``OUT/ENV/``: ``eval.csv`` (every evaluation: training
minutes and steps, the opponent, wins/draws/losses, the win rate and its 95% Wilson
interval), ``checkpoint.zip`` and ``checkpoint.json`` (the model, the optimizer and where
the run stands; also the snapshots in the pool, ``snapshot-K.zip``), and at the end
``model.zip``, ``policy.json`` and ``policy.pt`` (the same policy as plain weights, loading
runs no pickle) and ``summary.json``.

The recipe of a game is [`DEFAULT_RECIPE`][ggpzoo.training.train.DEFAULT_RECIPE] updated by its spec's ``recipe``
([`ggpzoo.envs.gamespec.GameSpec`][ggpzoo.envs.gamespec.GameSpec]); any key can be overridden.

The budget, ``minutes`` (and ``timesteps``), is that of this run: a resumed run trains that
much more. Minutes count training only: the clock starts after the first batch of moves
(setting up the games and numba's first compile of their kernels, a minute or so in a
fresh install, are not counted), and evaluations and checkpoints do not count either. A
run into a folder that already holds one is refused unless it resumes. Ctrl-C stops
training, saves the checkpoint and the model, and skips the final evaluation.
Needs the ``train`` extra.
"""

from __future__ import annotations

import csv
import json
import os
import time
from pathlib import Path

from ggpzoo.envs import spec as _spec
from ggpzoo.envs.gamespec import GameSpec
from ggpzoo.tools.arena import GDL_MAX_STEPS  # a GDL game's joint moves before it is cut (a draw)
from ggpzoo.training import make_out_folder

__all__ = ["DEFAULT_RECIPE", "recipe", "make_env", "make_model", "run_name", "train", "view_of"]

DEFAULT_RECIPE: dict = {
    # what the learner sees and is paid (see ggpzoo.engine.selfplay.SelfPlayGames)
    "reward": "winloss",
    "shaping": 0.0,
    "decompose": False,
    "reach_planes": False,
    "opening_plies": 4,  # diverse starts: 0..4 random actions before the learner's first move
    # the opponents: fixed ones with draw weights, and snapshots of the learner
    "opponents": {"random": 1.0, "greedy": 2.0},
    "snapshot_every": 200_000,  # learner steps between snapshots
    "snapshots": 4,  # snapshots kept in the pool (the oldest goes)
    "snapshot_weight": 1.0,
    # the network: "mlp" (MLPs on the flattened planes) or "cell" (ggpzoo.training.nets.CellPolicy:
    # per-cell logits, or per-pair logits on from/to actions)
    "policy": "mlp",
    "net_arch": [256, 256],
    "cnn_channels": 32,
    "cnn_layers": 3,
    # PPO
    "n_envs": 64,
    "n_steps": 64,
    "batch_size": 1024,
    "n_epochs": 4,
    "learning_rate": 3e-4,
    "gamma": 0.99,
    "ent_coef": 0.01,
}
"""The recipe every game starts from; a game's spec overrides some keys."""

VIEW_KEYS = ("reward", "shaping", "decompose", "reach_planes")


def _game(name):
    """The [`GameSpec`][ggpzoo.envs.gamespec.GameSpec] of ``name`` (an env name, ``gdl:SHEET``, or a spec)."""
    return name if isinstance(name, GameSpec) else _spec(name)


def run_name(name) -> str:
    """The folder name of a run: the env name, ``gdl_SHEET`` for a GDL game (the spec's ``label``)."""
    return _game(name).label


def recipe(name, **overrides) -> dict:
    """Game ``name``'s training recipe: [`DEFAULT_RECIPE`][ggpzoo.training.train.DEFAULT_RECIPE], its spec's ``recipe``,
    then ``overrides`` (unknown keys raise ValueError); a ValueError too for what the game
    cannot train with (more than two roles; shaping, decomposition or reach planes it does
    not have; ``policy="cell"`` without board planes)."""
    sp = _game(name)
    r = {
        k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v)
        for k, v in DEFAULT_RECIPE.items()
    }
    for source in (dict(sp.recipe), overrides):
        unknown = set(source) - set(DEFAULT_RECIPE)
        if unknown:
            raise ValueError(f"unknown recipe keys {sorted(unknown)}; known: {', '.join(DEFAULT_RECIPE)}")
        r.update({k: v for k, v in source.items() if v is not None})
    if r["policy"] not in ("mlp", "cell"):
        raise ValueError(f"policy must be 'mlp' or 'cell', got {r['policy']!r}")
    _check_numbers(r)
    if sp.num_roles != 2:
        raise ValueError(f"training needs a two-player game; {sp.name} has roles {', '.join(sp.agents)}")
    lacks = [
        f"{k}={r[k]!r} ({sp.name} has no {what})"
        for k, what, has in (
            ("shaping", "potential", sp.potential is not None),
            ("decompose", "turn decomposition", sp.decomposition is not None),
            ("reach_planes", "reach planes", sp.reach_planes is not None),
        )
        if r[k] and not has
    ]
    if lacks:
        raise ValueError(f"the recipe asks for what the game lacks: {'; '.join(lacks)}")
    if r["policy"] == "cell":
        if len(sp.obs_shape) != 3:
            raise ValueError(
                f"policy 'cell' scores the cells of board planes: {sp.name}'s observation is a vector "
                f"{sp.obs_shape}; train an MLP (policy=mlp)"
            )
        if not r["decompose"] and sp.num_actions != sp.num_cells**2:
            raise ValueError("policy 'cell' scores cells or from/to pairs of cells: this game needs decompose=True")
    return r


_POSITIVE_INTS = (
    "n_envs",
    "n_steps",
    "batch_size",
    "n_epochs",
    "snapshot_every",
    "snapshots",
    "cnn_channels",
    "cnn_layers",
)


def _check_numbers(r: dict) -> None:
    """ValueError naming a recipe number of the wrong kind (``batch_size=0``, ``learning_rate=nan``)."""
    import math

    def whole(v) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    def real(v) -> bool:
        return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

    for k in _POSITIVE_INTS:
        if not whole(r[k]) or r[k] < 1:
            raise ValueError(f"recipe key {k} must be a positive integer, got {r[k]!r}")
    if not whole(r["opening_plies"]) or r["opening_plies"] < 0:
        raise ValueError(f"recipe key opening_plies must be an integer >= 0, got {r['opening_plies']!r}")
    if not isinstance(r["net_arch"], list) or not all(whole(n) and n >= 1 for n in r["net_arch"]):
        raise ValueError(f"recipe key net_arch must be a list of positive integers, got {r['net_arch']!r}")
    for k, low, high in (
        ("learning_rate", 0.0, None),
        ("gamma", 0.0, 1.0),
        ("ent_coef", None, None),
        ("shaping", None, None),
        ("snapshot_weight", None, None),
    ):
        v = r[k]
        if not real(v) or (low is not None and v <= low) or (high is not None and v > high) or (low is None and v < 0):
            what = {"learning_rate": "a positive finite number", "gamma": "a number in (0, 1]"}.get(
                k, "a finite number >= 0"
            )
            raise ValueError(f"recipe key {k} must be {what}, got {v!r}")
    if not isinstance(r["opponents"], dict) or not r["opponents"]:
        raise ValueError(f"recipe key opponents must be an object of agent specs and weights, got {r['opponents']!r}")
    for spec, w in r["opponents"].items():
        if not real(w) or w < 0:
            raise ValueError(f"recipe key opponents: the weight of {spec!r} must be a finite number >= 0, got {w!r}")


def view_of(r: dict) -> dict:
    """The env options of a recipe (what the learner sees): reward, shaping, decompose, reach planes."""
    return {k: r[k] for k in VIEW_KEYS}


def make_env(name, r: dict, seed: int):
    """The [`SelfPlayVecEnv`][ggpzoo.training.selfplay.SelfPlayVecEnv] of recipe ``r`` (games cut after
    `ggpzoo.tools.arena.GDL_MAX_STEPS` moves: a GDL sheet's games need not end)."""
    from ggpzoo.training.selfplay import SelfPlayVecEnv

    opponents = list(r["opponents"])
    return SelfPlayVecEnv(
        _game(name),
        num_envs=r["n_envs"],
        opponents=opponents,
        weights=[r["opponents"][o] for o in opponents],
        opening_plies=r["opening_plies"],
        seed=seed,
        max_steps=GDL_MAX_STEPS,
        **view_of(r),
    )


def _quiet(model):
    """``model`` with a logger of its own that writes nothing: without one, SB3's ``learn()``
    makes an empty ``$TMPDIR/SB3-<date>`` folder at every call (its logger's default folder)."""
    from stable_baselines3.common.logger import Logger

    model.set_logger(Logger(folder=None, output_formats=[]))
    return model


def make_model(env, r: dict, seed: int = 0, device: str = "cpu"):
    """A ``MaskablePPO`` for ``env`` with recipe ``r``'s network and PPO settings (its log
    values kept in ``model.logger``, written nowhere)."""
    from sb3_contrib import MaskablePPO

    if r["policy"] == "cell":
        from ggpzoo.training.nets import CellPolicy

        policy, kwargs = CellPolicy, {"channels": r["cnn_channels"], "layers": r["cnn_layers"]}
    else:
        policy, kwargs = "MlpPolicy", {"net_arch": list(r["net_arch"])}
    model = MaskablePPO(
        policy,
        env,
        learning_rate=r["learning_rate"],
        n_steps=r["n_steps"],
        batch_size=r["batch_size"],
        n_epochs=r["n_epochs"],
        gamma=r["gamma"],
        ent_coef=r["ent_coef"],
        policy_kwargs=kwargs,
        seed=seed,
        device=device,
        verbose=0,
    )
    return _quiet(model)


RUN_FILES = ("checkpoint.json", "checkpoint.zip", "eval.csv", "model.zip", "summary.json")
"""The files whose presence means a folder holds a run (see `train`)."""

FIELDS = [
    "minutes",
    "timesteps",
    "cpu_seconds",
    "opponent",
    "games",
    "wins",
    "draws",
    "losses",
    "win_rate",
    "ci_low",
    "ci_high",
]
"""The columns of a run's ``eval.csv``: ``minutes`` of training (wall clock) and
``cpu_seconds`` (the process's CPU time over the same spans, all its threads: a figure that
does not depend on how busy the machine was), ``timesteps`` (learner steps), then the
evaluation's result. A run resumed from an older ``eval.csv`` keeps that file's columns."""


def train(
    name,
    out: str | Path = "runs",
    minutes: float = 30.0,
    timesteps: int | None = None,
    *,
    seed: int = 0,
    resume: bool = False,
    eval_every: float = 3.0,
    eval_games: int = 200,
    final_eval_games: int = 300,
    eval_opponents=None,
    checkpoint_every: float = 5.0,
    threads: int = 1,
    device: str = "cpu",
    progress: bool = True,
    log=None,
    **overrides,
) -> dict:
    """Train ``name`` for ``minutes`` of training (or ``timesteps`` learner steps, whichever
    comes first; both count this run, so a resumed run trains that much more; see the module
    docstring for what the minutes count), evaluating every ``eval_every`` minutes against ``eval_opponents``
    (``eval_games`` games each, batched, the policy's most likely actions) and at the end
    (``final_eval_games``; ``eval_opponents`` defaults to random and greedy play). ``name`` is
    an env name, ``gdl:SHEET`` for a two-player GDL game (whose run is ``OUT/gdl_SHEET``), or a
    [`GameSpec`][ggpzoo.envs.gamespec.GameSpec]. ``resume`` goes on from
    ``OUT/NAME/checkpoint.zip``: the clock, the steps, the optimizer and the snapshot pool
    carry on; without it, a folder ``OUT/NAME`` that holds a run already raises
    FileExistsError (nothing is overwritten). ``log`` gets each line of progress (default:
    printed). Returns the summary."""
    import numpy as np
    import torch
    from sb3_contrib import MaskablePPO

    if log is None:

        def log(message: str) -> None:
            print(message, flush=True)

    from stable_baselines3.common.callbacks import BaseCallback

    from ggpzoo.agents.weights import save_policy
    from ggpzoo.tools._progress import Progress
    from ggpzoo.training import selfplay

    name = _game(name)  # read once (a GDL sheet: loaded here)
    tag_name = run_name(name)
    if eval_opponents is None:
        eval_opponents = ("random", "greedy")
    r = recipe(name, **overrides)  # a bad recipe fails before anything is written
    max_threads = os.cpu_count() or 1
    if isinstance(threads, bool) or not isinstance(threads, int) or not 1 <= threads <= max_threads:
        raise ValueError(f"threads must be an integer in 1..{max_threads} (the CPU count), got {threads!r}")
    try:
        torch_device = torch.device(device)
    except (RuntimeError, TypeError):
        raise ValueError(f"device must be a torch device such as 'cpu' or 'cuda', got {device!r}") from None
    if torch_device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("device cuda: torch sees no CUDA device")
    torch.set_num_threads(threads)
    folder = Path(out) / tag_name
    state_path, ckpt_path = folder / "checkpoint.json", folder / "checkpoint.zip"
    if resume and not (state_path.exists() and ckpt_path.exists()):
        raise FileNotFoundError(f"nothing to resume: no {ckpt_path} (start without --resume)")
    if not resume and any((folder / f).exists() for f in RUN_FILES):
        raise FileExistsError(
            f"{folder} holds a run already: add --resume to train it more, or give another --out (or delete the folder)"
        )
    make_out_folder(folder)
    state = json.loads(state_path.read_text()) if resume else {}
    r = recipe(name, **(state.get("recipe_overrides", {}) | overrides))
    env = make_env(name, r, seed + state.get("resumes", 0))
    if resume:
        model = _quiet(MaskablePPO.load(ckpt_path, env=env, device=device))
        for path in state.get("snapshots", []):
            snap = MaskablePPO.load(folder / path, device="cpu")
            env.add_snapshot(snap, r["snapshot_weight"], max_snapshots=r["snapshots"])
    else:
        model = make_model(env, r, seed, device)
    trained = float(state.get("train_seconds", 0.0))
    cpu = float(state.get("train_cpu_seconds", 0.0))  # the process's CPU time over the same spans
    snapshots: list[str] = list(state.get("snapshots", []))
    log_mode = "a" if resume else "w"
    log_file = open(folder / "eval.csv", log_mode, newline="")
    fields = FIELDS
    if resume and (folder / "eval.csv").stat().st_size:
        with open(folder / "eval.csv", newline="") as f:
            fields = next(csv.reader(f), FIELDS)  # an older run's columns
    writer = csv.DictWriter(log_file, fields, extrasaction="ignore")
    if not resume:
        writer.writeheader()
    view = view_of(r)

    def run_eval(games: int, tag: str) -> list[dict]:
        rows = []
        for opp in eval_opponents:
            eval_seed = seed + 10**6 + model.num_timesteps
            res = selfplay.evaluate(model, name, opp, games, seed=eval_seed, **view)
            row = {
                "minutes": round(trained / 60, 2),
                "timesteps": model.num_timesteps,
                "cpu_seconds": round(cpu, 1),
                "opponent": opp,
                "games": res["games"],
                "wins": res["wins"],
                "draws": res["draws"],
                "losses": res["losses"],
                "win_rate": round(res["win_rate"], 4),
                "ci_low": round(res["ci95"][0], 4),
                "ci_high": round(res["ci95"][1], 4),
            }
            writer.writerow(row)
            rows.append(row)
            log(
                f"[{tag} {row['timesteps']:>10,} steps {row['minutes']:6.1f} min] vs {opp:<7} "
                f"win {100 * row['win_rate']:5.1f}% [{100 * row['ci_low']:.1f}, {100 * row['ci_high']:.1f}] "
                f"W/D/L {row['wins']}/{row['draws']}/{row['losses']}"
            )
        log_file.flush()
        return rows

    def checkpoint() -> None:
        model.save(ckpt_path)
        state_path.write_text(
            json.dumps(
                {
                    "env": tag_name,
                    "timesteps": model.num_timesteps,
                    "train_seconds": trained,
                    "train_cpu_seconds": cpu,
                    "snapshots": snapshots,
                    "recipe_overrides": overrides | state.get("recipe_overrides", {}),
                    "resumes": state.get("resumes", 0) + (1 if resume else 0),
                    "seed": seed,
                },
                indent=2,
            )
        )

    limit = trained + 60.0 * minutes  # this run's minutes, on top of a resumed run's
    target = None if timesteps is None else model.num_timesteps + int(timesteps)
    bar = Progress(round(60 * minutes), f"train {tag_name}", enabled=None if progress else False)

    class Loop(BaseCallback):
        def __init__(self):
            super().__init__()
            self.mark = None  # the clock starts after the first batch of moves (numba's compile)
            self.cpu_mark = None
            self.shown = 0
            self.next_eval = trained + 60 * eval_every
            self.next_ckpt = trained + 60 * checkpoint_every
            self.next_snapshot = (model.num_timesteps // r["snapshot_every"] + 1) * r["snapshot_every"]

        def _on_step(self) -> bool:
            nonlocal trained, cpu
            now, now_cpu = time.perf_counter(), time.process_time()
            if self.mark is not None:
                trained += now - self.mark
                cpu += now_cpu - self.cpu_mark
            self.mark, self.cpu_mark = now, now_cpu
            t = self.num_timesteps
            go_on = trained < limit and (target is None or t < target)
            done = round(trained - (limit - 60 * minutes))
            bar.update(max(done - self.shown, 0), f"{t:,} steps")
            self.shown = max(self.shown, done)
            if r["snapshots"] and t >= self.next_snapshot:
                self.next_snapshot += r["snapshot_every"]
                env.add_snapshot(model, r["snapshot_weight"], max_snapshots=r["snapshots"])
                path = f"snapshot-{t}.zip"
                model.save(folder / path)
                snapshots.append(path)
                while len(snapshots) > r["snapshots"]:
                    (folder / snapshots.pop(0)).unlink(missing_ok=True)
            if trained >= self.next_eval and go_on:  # the last one is the final evaluation
                self.next_eval += 60 * eval_every
                bar.break_line()  # its lines below the bar, not on it
                run_eval(eval_games, "eval")
            if trained >= self.next_ckpt and go_on:  # the last one is written at the end
                self.next_ckpt += 60 * checkpoint_every
                checkpoint()
            # evaluations and checkpoints are not training time
            self.mark, self.cpu_mark = time.perf_counter(), time.process_time()
            return go_on

    steps = "" if timesteps is None else f" or {int(timesteps):,} learner steps"
    log(
        f"training {tag_name} for {minutes:g} minutes{steps} (training time: not the first compile, "
        f"evaluations or checkpoints); Ctrl-C stops and saves. Recipe: " + ", ".join(f"{k}={v}" for k, v in r.items())
    )
    interrupted = False
    try:
        # 10**12: the callback stops the run, at the budget of minutes or steps
        model.learn(10**12, callback=Loop(), progress_bar=False, reset_num_timesteps=not resume)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        bar.close()
    checkpoint()
    model.save(folder / "model.zip")
    save_policy(model, str(folder / "policy"), env_name=tag_name)
    if interrupted:
        log(f"interrupted after {trained / 60:.1f} minutes of training: saved {folder}; no final evaluation")
        final = []
    else:
        final = run_eval(final_eval_games, "final")
    log_file.close()
    summary = {
        "env": tag_name,
        "timesteps": model.num_timesteps,
        "train_minutes": round(trained / 60, 2),
        "train_cpu_seconds": round(cpu, 1),
        "steps_per_second": round(model.num_timesteps / max(trained, 1e-9)),
        "recipe": r,
        "seed": seed,
        "final": final,
        "numpy": np.__version__,
        "torch": torch.__version__,
    }
    (folder / "summary.json").write_text(json.dumps(summary, indent=2))
    return summary


def __getattr__(name):
    if name in ("GDL_RECIPE", "gdl_vec_env"):  # the GDL twin of the self-play env (0.6)
        import warnings

        warnings.warn(
            f"ggpzoo.training.train.{name} is deprecated: every two-role game trains on "
            "ggpzoo.training.selfplay.SelfPlayVecEnv with its spec's recipe (recipe('gdl:SHEET'), make_env)",
            DeprecationWarning,
            2,
        )
        return _GDL_RECIPE if name == "GDL_RECIPE" else _gdl_vec_env
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_GDL_RECIPE = {"n_envs": 16, "n_steps": 128, "batch_size": 512, "net_arch": [128, 128]}


def _gdl_vec_env(game, num_envs: int, opponents, weights, *, seed: int = 0, reward: str | None = None, max_snapshots=4):
    """The 0.6 ``gdl_vec_env``: a [`SelfPlayVecEnv`][ggpzoo.training.selfplay.SelfPlayVecEnv] of ``game``
    (``gdl:SHEET`` or a spec)."""
    from ggpzoo.training.selfplay import SelfPlayVecEnv

    return SelfPlayVecEnv(
        _game(game),
        num_envs,
        opponents=list(opponents),
        weights=list(weights),
        seed=seed,
        reward="winloss" if reward is None else reward,
        max_steps=GDL_MAX_STEPS,
    )
