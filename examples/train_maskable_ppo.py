"""Self-play training of a ggpzoo game with sb3-contrib's MaskablePPO.

By default (``--path batched``) the learner trains on the batched self-play env
(`ggpzoo.training.selfplay.SelfPlayVecEnv`, through `ggpzoo.training.train.train()`,
the same as ``python -m ggpzoo train``): the game's recipe (its spec's ``recipe``; the flags
below override it), N games in arrays, random and greedy opponents played inside numba
and frozen snapshots of the learner in one batched forward pass, random openings,
batched evaluations every ``--eval-minutes`` against random and greedy play (win rates
with 95% Wilson intervals), checkpoints, and ``--resume``.

With ``--path aec`` it trains through `ggpzoo.training.single_agent.SingleAgentEnv`
(one AEC game per VecEnv slot, the opponent's moves one game at a time): the PettingZoo
path, kept for users who wrap their own AEC envs. There the pool holds random play,
frozen snapshots (every ``--snapshot-every`` steps) and greedy play with
``--greedy-weight``, and evaluations come every ``--eval-every`` steps.

The model is saved to ``OUT/ENV/model.zip`` (and as plain weights, ``OUT/ENV/policy.json``
and ``policy.pt``, which load without running pickle), the evaluations to
``OUT/ENV/eval.csv``.

    python examples/train_maskable_ppo.py --env skirmish_v0 --max-minutes 30
    python examples/train_maskable_ppo.py --env skirmish_v0 --max-minutes 30 --resume
    python examples/train_maskable_ppo.py --env amazons_v0 --path aec --timesteps 300000
    python examples/train_maskable_ppo.py --env mad_bishops_v0 \
        --eval-only runs/mad_bishops_v0/model.zip

The 10x10 games are trained, by default, through a turn decomposition (``--decompose``):
`ggpzoo.wrappers.AmazonsTurnDecomposition` (three 100-way choices per amazons_v0
turn) or `ggpzoo.wrappers.MoveDecomposition` (source, then destination), with
`ggpzoo.wrappers.PotentialShaping` (``--shaping``: mobility in Amazons, material in
Mad Bishops; its rewards sum to 0 over a game), `ggpzoo.wrappers.ReachPlanes`
(``--reach-planes``) and `ggpzoo.training.nets.CellPolicy` (``--policy``), with
gamma 0.9. Evaluations always count wins by the rules, through the view the model was
trained with. Needs the ``train`` extra: ``pip install -e ".[train]"``.
"""

from __future__ import annotations

import argparse
import csv
import functools
import json
import sys
import time
from pathlib import Path

from ggpzoo.envs import ENVS, load
from ggpzoo.tools.arena import wilson  # noqa: F401 (the interval of the results, as this example names it)

# Rewards the learner trains on, per game: dense zero-sum capture deltas where goals grow
# during play (Skirmish), the win/loss of the rules elsewhere. Any other env: win/loss.
DEFAULT_REWARD = {"skirmish_v0": "delta_zero_sum", "skirmish_endgame_v0": "delta_zero_sum"}
REWARD_CHOICES = ("winloss", "goal", "delta", "delta_zero_sum")
# The 10x10 games train through 100-way cell choices with a potential-based shaping reward;
# the Skirmish games (4,096 actions, dense capture rewards) learn fast enough without.
TEN_BY_TEN = ("amazons_v0", "amazons_split_v0", "mad_bishops_v0")
DEFAULT_SHAPING = {name: 1.0 for name in TEN_BY_TEN}
DEFAULT_GAMMA = {name: 0.9 for name in TEN_BY_TEN}  # shaped rewards every turn: a short horizon


def make_env(
    name: str,
    reward: str,
    random_weight: float,
    pool_size: int,
    greedy_weight: float = 0.0,
    decompose: bool | None = None,
    shaping: float = 0.0,
    reach_planes: bool = False,
):
    """A `SingleAgentEnv` for one VecEnv slot, with its own opponent pool (random play,
    greedy play if ``greedy_weight``; snapshots come through ``add_opponent``). Picklable
    through functools.partial."""
    import torch

    from ggpzoo.training.single_agent import OpponentPool, SingleAgentEnv

    torch.set_num_threads(1)  # snapshot opponents in subprocesses: no oversubscription
    # random_weight 0: only snapshots, once there are any (a pool needs a weight above 0)
    fixed, weights = ["random"], [random_weight or 1e-9]
    if greedy_weight:
        fixed.append("greedy")
        weights.append(greedy_weight)
    pool = OpponentPool(fixed, weights=weights, max_size=len(fixed) + pool_size)
    return SingleAgentEnv(
        name, opponent=pool, reward=reward, decompose=decompose, shaping=shaping, reach_planes=reach_planes
    )


def model_view(model, name: str) -> dict:
    """The `SingleAgentEnv` arguments that show ``name`` as ``model`` saw it in training:
    ``decompose`` when its actions are cells, ``reach_planes`` when it sees two more planes."""
    from ggpzoo.training.single_agent import make_aec_env

    decompose = model.action_space.n != load(name).raw_env().action_space("white").n
    planes = make_aec_env(name, decompose=decompose).observation_space("white")["observation"].shape[2]
    return {"decompose": decompose, "reach_planes": model.observation_space.shape[2] == planes + 2}


def evaluate(model, name: str, opponent: str, games: int, seed: int = 0, parallel: int = 16) -> dict:
    """Play ``games`` games (sides alternating) with the model's most likely actions.

    ``parallel`` games run in lockstep so each policy call is batched. Returns wins, draws,
    losses, the win rate and its 95% interval. Each game gets its own seed. The games go
    through the turn decomposition the model was trained with, without reward shaping.
    """
    from ggpzoo.training.single_agent import evaluate as play

    r = play(model, name, opponent, games, seed=seed, parallel=parallel, **model_view(model, name))
    low, high = r.pop("ci95")
    return {"opponent": opponent, **r, "ci_low": low, "ci_high": high}


def format_eval(r: dict) -> str:
    return (
        f"vs {r['opponent']:<6} win {100 * r['win_rate']:5.1f}% [{100 * r['ci_low']:5.1f}, {100 * r['ci_high']:5.1f}] "
        f"(W/D/L {r['wins']}/{r['draws']}/{r['losses']} of {r['games']})"
    )


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="train_maskable_ppo.py",
        description=__doc__.split("\n\n")[0],
        epilog="Example: python examples/train_maskable_ppo.py --env skirmish_v0 --timesteps 300000",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--env", required=True, choices=list(ENVS), help="the game")
    p.add_argument(
        "--path",
        choices=("batched", "aec"),
        default="batched",
        help="batched: the batched self-play env (ggpzoo.training.train); aec: SingleAgentEnv per game",
    )
    p.add_argument(
        "--timesteps", type=int, default=None, help="learner steps to train (default: 300000 on the aec path)"
    )
    p.add_argument(
        "--max-minutes",
        type=float,
        default=None,
        help="minutes of training in this run, with --resume this many more (default 30 on the batched path)",
    )
    p.add_argument("--eval-minutes", type=float, default=3.0, help="batched path: minutes between evaluations")
    p.add_argument("--resume", action="store_true", help="batched path: go on from OUT/ENV/checkpoint.zip")
    p.add_argument(
        "--reward",
        choices=REWARD_CHOICES,
        default=None,
        help="training reward; default: delta_zero_sum for Skirmish, winloss elsewhere",
    )
    p.add_argument(
        "--decompose",
        choices=("auto", "yes", "no"),
        default="auto",
        help="play each action as cell choices; auto: yes for the 10x10 games",
    )
    p.add_argument(
        "--shaping",
        type=float,
        default=None,
        help="weight of the potential-based shaping reward; default: 1 for the 10x10 games, else 0",
    )
    p.add_argument(
        "--reach-planes",
        choices=("auto", "yes", "no"),
        default="auto",
        help="add ggpzoo.wrappers.ReachPlanes to the observation; auto: yes for the 10x10 games",
    )
    p.add_argument("--n-envs", type=int, default=8, help="parallel games")
    p.add_argument("--vec", choices=("dummy", "subproc"), default="dummy", help="VecEnv kind")
    p.add_argument("--n-steps", type=int, default=256, help="PPO rollout steps per env")
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--n-epochs", type=int, default=4)
    p.add_argument("--lr", type=float, default=3e-4, help="learning rate")
    p.add_argument(
        "--gamma",
        type=float,
        default=None,
        help="discount; default: 0.9 for the 10x10 games (shaped rewards every turn), else 0.995",
    )
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument(
        "--net-arch",
        default=None,
        help="hidden layer sizes after the features, comma-separated; default: 256,256 (mlp), 256 (cnn)",
    )
    p.add_argument(
        "--policy",
        choices=("auto", "mlp", "cnn", "cell"),
        default="auto",
        help="mlp: MLPs on the flattened planes; cnn: ggpzoo.training.nets.BoardCNN features; cell: "
        "ggpzoo.training.nets.CellPolicy (one logit per cell, needs a decomposition); auto: cell when "
        "decomposed, else mlp",
    )
    p.add_argument("--cnn-channels", type=int, default=32, help="channels of each convolution (cnn, cell)")
    p.add_argument("--cnn-layers", type=int, default=3, help="3x3 convolutions (cnn, cell)")
    p.add_argument("--snapshot-every", type=int, default=25_000, help="steps between frozen snapshots")
    p.add_argument("--pool-size", type=int, default=4, help="snapshots kept in the opponent pool")
    p.add_argument(
        "--random-weight",
        type=float,
        default=2.0,
        help="draw weight of random play in the pool (each snapshot weighs 1)",
    )
    p.add_argument(
        "--greedy-weight", type=float, default=0.0, help="draw weight of greedy play in the pool (0: not in the pool)"
    )
    p.add_argument("--eval-every", type=int, default=50_000, help="steps between evaluations")
    p.add_argument("--eval-games", type=int, default=100, help="games per opponent per evaluation")
    p.add_argument("--final-eval-games", type=int, default=400, help="games per opponent at the end")
    p.add_argument(
        "--out",
        default="runs",
        help="output folder (OUT/ENV/model.zip, eval.csv; default runs, as python -m ggpzoo train); "
        "a folder that holds a run already is refused unless you --resume it (batched path)",
    )
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.add_argument("--eval-only", metavar="MODEL", help="evaluate a saved model instead of training")
    p.add_argument(
        "--tiny", action="store_true", help="a few hundred steps with tiny settings: checks that everything runs"
    )
    args = p.parse_args(argv)
    args.given = {k: v for k, v in vars(args).items() if v != p.get_default(k)}  # what the user set
    if args.timesteps is None and args.path == "aec":
        args.timesteps = 300_000
    if args.tiny:
        args.timesteps = args.timesteps if "timesteps" in args.given else 256
        args.n_envs, args.n_steps, args.batch_size, args.n_epochs = 2, 64, 64, 1
        args.snapshot_every = args.eval_every = 128
        args.eval_games, args.final_eval_games, args.net_arch = 2, 4, "32"
    for field in (
        *(("timesteps",) if args.timesteps is not None else ()),
        "n_envs",
        "n_steps",
        "batch_size",
        "n_epochs",
        "snapshot_every",
        "eval_every",
        "eval_games",
        "final_eval_games",
        "threads",
    ):
        if getattr(args, field) < 1:
            p.error(f"--{field.replace('_', '-')} must be at least 1")
    if args.pool_size < 0 or args.random_weight < 0 or args.greedy_weight < 0:
        p.error("--pool-size, --random-weight and --greedy-weight must not be negative")
    args.decompose = {"yes": True, "no": False}.get(args.decompose, args.env in TEN_BY_TEN)
    if args.policy == "auto":
        args.policy = "cell" if args.decompose else "mlp"
    if args.gamma is None:
        args.gamma = DEFAULT_GAMMA.get(args.env, 0.995)
    if not 0 < args.gamma <= 1:
        p.error(f"--gamma must be in (0, 1], got {args.gamma}")
    if args.net_arch is None:
        args.net_arch = {"mlp": "256,256", "cnn": "256", "cell": ""}[args.policy]
    if args.cnn_channels < 1 or args.cnn_layers < 1:
        p.error("--cnn-channels and --cnn-layers must be at least 1")
    try:
        args.net_arch = [int(x) for x in str(args.net_arch).split(",") if x.strip()]
    except ValueError:
        p.error(f"--net-arch must be comma-separated integers, got {args.net_arch!r}")
    args.reward = args.reward or DEFAULT_REWARD.get(args.env, "winloss")
    args.reach_planes = {"yes": True, "no": False}.get(args.reach_planes, args.env in TEN_BY_TEN)
    if args.policy == "cell" and not args.decompose:
        p.error("--policy cell chooses one cell per action: it needs --decompose")
    if args.reach_planes and args.env not in TEN_BY_TEN:
        p.error(f"--reach-planes: only {', '.join(TEN_BY_TEN)} have them")
    args.shaping = DEFAULT_SHAPING.get(args.env, 0.0) if args.shaping is None else args.shaping
    if args.shaping:
        from ggpzoo.wrappers import POTENTIALS

        if args.env not in POTENTIALS:
            p.error(f"--shaping: {args.env} has no shaping potential (games with one: {', '.join(POTENTIALS)})")
    return args


def policy(args: argparse.Namespace) -> tuple[object, dict]:
    """MaskablePPO's policy and ``policy_kwargs`` for ``--policy``, ``--net-arch`` and the CNN's size."""
    if args.policy == "cell":
        from ggpzoo.training.nets import CellPolicy

        return CellPolicy, {"channels": args.cnn_channels, "layers": args.cnn_layers}
    kwargs = {"net_arch": args.net_arch}
    if args.policy == "cnn":
        from ggpzoo.training.nets import BoardCNN

        kwargs |= {
            "features_extractor_class": BoardCNN,
            "features_extractor_kwargs": {"channels": args.cnn_channels, "layers": args.cnn_layers},
        }
    return "MlpPolicy", kwargs


# Flags of this script and the recipe keys (ggpzoo.training.train.DEFAULT_RECIPE) they set.
RECIPE_FLAGS = {
    "reward": "reward",
    "decompose": "decompose",
    "shaping": "shaping",
    "reach_planes": "reach_planes",
    "policy": "policy",
    "net_arch": "net_arch",
    "cnn_channels": "cnn_channels",
    "cnn_layers": "cnn_layers",
    "n_envs": "n_envs",
    "n_steps": "n_steps",
    "batch_size": "batch_size",
    "n_epochs": "n_epochs",
    "lr": "learning_rate",
    "gamma": "gamma",
    "ent_coef": "ent_coef",
    "snapshot_every": "snapshot_every",
    "pool_size": "snapshots",
}


def train_batched(args: argparse.Namespace) -> int:
    """The batched path: `ggpzoo.training.train.train()` with the game's recipe, and the
    flags given on the command line (or by ``--tiny``) as overrides."""
    from ggpzoo.training.train import train

    given = set(args.given) | ({"n_envs", "n_steps", "batch_size", "n_epochs", "net_arch"} if args.tiny else set())
    overrides = {key: getattr(args, flag) for flag, key in RECIPE_FLAGS.items() if flag in given}
    if overrides.get("policy") == "cnn":
        raise SystemExit("--policy cnn runs on the aec path only (the batched recipes use mlp or cell)")
    if {"random_weight", "greedy_weight"} & given:
        overrides["opponents"] = {"random": args.random_weight or 1e-9}
        if args.greedy_weight:
            overrides["opponents"]["greedy"] = args.greedy_weight
    minutes = args.max_minutes if args.max_minutes is not None else (0.5 if args.tiny else 30.0)
    summary = train(
        args.env,
        out=args.out,
        minutes=minutes,
        timesteps=args.timesteps,
        seed=args.seed,
        resume=args.resume,
        eval_every=(0.05 if args.tiny else args.eval_minutes),
        eval_games=args.eval_games,
        final_eval_games=args.final_eval_games,
        threads=args.threads,
        progress=not args.no_progress,
        **overrides,
    )
    print(
        f"saved {Path(args.out) / args.env / 'model.zip'}; evaluations in {Path(args.out) / args.env / 'eval.csv'}; "
        f"{summary['timesteps']:,} steps in {summary['train_minutes']:.1f} min of training",
        flush=True,
    )
    return 0


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.path == "batched" and not args.eval_only:
        return train_batched(args)
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from ggpzoo.training.single_agent import PolicyOpponent

    torch.set_num_threads(args.threads)
    out = Path(args.out) / args.env
    if not args.eval_only and (out / "model.zip").exists():
        raise SystemExit(f"{out} holds a run already: give another --out (or delete the folder)")
    out.mkdir(parents=True, exist_ok=True)

    if args.eval_only:
        model = MaskablePPO.load(args.eval_only, device="cpu")
        for opp in ("random", "greedy"):
            print(args.env, format_eval(evaluate(model, args.env, opp, args.final_eval_games, args.seed + 10**6)))
        return 0

    fns = [
        functools.partial(
            make_env,
            args.env,
            args.reward,
            args.random_weight,
            args.pool_size,
            args.greedy_weight,
            args.decompose,
            args.shaping,
            args.reach_planes,
        )
    ] * args.n_envs
    venv = (SubprocVecEnv if args.vec == "subproc" else DummyVecEnv)(fns)
    venv.seed(args.seed)
    policy_class, policy_kwargs = policy(args)
    model = MaskablePPO(
        policy_class,
        venv,
        learning_rate=args.lr,
        n_steps=args.n_steps,
        batch_size=args.batch_size,
        n_epochs=args.n_epochs,
        gamma=args.gamma,
        ent_coef=args.ent_coef,
        policy_kwargs=policy_kwargs,
        seed=args.seed,
        device="cpu",
        verbose=0,
    )
    log_path = out / "eval.csv"
    log = open(log_path, "w", newline="")
    writer = csv.DictWriter(
        log, ["timesteps", "minutes", "opponent", "games", "wins", "draws", "losses", "win_rate", "ci_low", "ci_high"]
    )
    writer.writeheader()
    start = time.perf_counter()

    def run_eval(games: int, tag: str, steps: int) -> list[dict]:
        rows = []
        for opp in ("random", "greedy"):
            r = evaluate(model, args.env, opp, games, args.seed + 10**6 + steps)
            r |= {"timesteps": steps, "minutes": round((time.perf_counter() - start) / 60, 2)}
            writer.writerow(r)
            rows.append(r)
            print(f"[{tag} {steps:>9,} steps, {r['minutes']:6.1f} min] {format_eval(r)}", flush=True)
        log.flush()
        return rows

    class SelfPlay(BaseCallback):
        """Snapshots into the pool, evaluations, and the wall-time limit."""

        def __init__(self):
            super().__init__()
            self.next_snapshot = args.snapshot_every
            self.next_eval = args.eval_every

        def _on_step(self) -> bool:
            t = self.num_timesteps
            if args.pool_size and t >= self.next_snapshot:
                self.next_snapshot += args.snapshot_every
                venv.env_method("add_opponent", PolicyOpponent(model, copy_model=True))
            if t >= self.next_eval:
                self.next_eval += args.eval_every
                run_eval(args.eval_games, "eval", t)
            if args.max_minutes is not None and time.perf_counter() - start > 60 * args.max_minutes:
                print(f"stopping: --max-minutes {args.max_minutes} reached at {t:,} steps", flush=True)
                return False
            return True

    print(
        f"training {args.env}: reward {args.reward}, shaping {args.shaping}, decompose {args.decompose}, "
        f"reach planes {args.reach_planes}, gamma {args.gamma}, {args.n_envs} envs ({args.vec}), "
        f"{args.policy} net {args.net_arch}, {args.timesteps:,} steps",
        flush=True,
    )
    model.learn(args.timesteps, callback=SelfPlay(), progress_bar=not args.no_progress)
    train_minutes = (time.perf_counter() - start) / 60
    model.save(out / "model.zip")
    from ggpzoo.agents.weights import save_policy  # the same policy as plain weights: loads without pickle

    save_policy(model, str(out / "policy"), env_name=args.env)
    final = run_eval(args.final_eval_games, "final", model.num_timesteps)
    summary = {
        "env": args.env,
        "reward": args.reward,
        "timesteps": model.num_timesteps,
        "train_minutes": round(train_minutes, 2),
        "total_minutes": round((time.perf_counter() - start) / 60, 2),
        "final": final,
        "args": {k: v for k, v in vars(args).items() if k != "eval_only"},
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2))
    print(
        f"saved {out / 'model.zip'}; evaluations in {log_path}; "
        f"{model.num_timesteps:,} steps in {train_minutes:.1f} min of training",
        flush=True,
    )
    log.close()
    venv.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
