"""Self-play PPO with action masking on any ggpzoo env, on a Ray cluster (RLlib).

Both seats, ``white`` and ``black``, are mapped to RLlib policies (RLModules): one shared
policy (the default: self-play with parameter sharing) or one per seat. The env reaches
RLlib through RLlib's own PettingZoo wrapper (``ray.rllib.env.wrappers.pettingzoo_env``),
and the policy is RLlib's action-masking PPO module
(``ray.rllib.examples.rl_modules.classes.action_masking_rlm.ActionMaskingTorchRLModule``),
so a policy only ever picks legal moves. Sampling runs on ``--num-env-runners`` Ray
actors, anywhere on the cluster; the learner runs in this process.

Needs the ``distributed`` extra: ``pip install -e ".[distributed]"``, on every node.

    # on one machine, a local Ray instance:
    python examples/rllib_selfplay.py --env skirmish_endgame_v0 --iterations 5

    # on a cluster: `ray start --head --port=6379` on one machine,
    # `ray start --address=HEAD_IP:6379` on the others, then on any of them:
    python examples/rllib_selfplay.py --env skirmish_v0 --address HEAD_IP:6379 \\
        --num-env-runners 8 --iterations 100 --checkpoint-dir ~/ggpzoo_ppo

Each iteration prints one line: the env steps sampled, the episodes completed (and their
mean length), the mean return per seat, each policy's PPO policy and value-function loss,
the env steps/s of the iteration (sampling and learning) and the time it took.
``--json-out`` writes the same numbers, and the total loss, as JSON.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

from ggpzoo.envs import ENVS
from ggpzoo.envs.base import AGENTS


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        description="Self-play PPO with action masking on a ggpzoo env, on Ray RLlib "
        "(a local Ray instance, or an existing cluster with --address).",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--env", default="skirmish_endgame_v0", choices=sorted(ENVS), help="ggpzoo environment")
    p.add_argument(
        "--address",
        default=None,
        help="Ray cluster to join, e.g. 10.0.0.5:6379 (the head's `ray start --head --port`) or 'auto'; "
        "default: start a local Ray instance",
    )
    p.add_argument("--iterations", type=int, default=5, help="training iterations")
    seats = p.add_mutually_exclusive_group()
    seats.add_argument(
        "--shared-policy",
        dest="shared_policy",
        action="store_true",
        default=True,
        help="both seats play one policy (self-play with parameter sharing)",
    )
    seats.add_argument(
        "--separate-policies",
        dest="shared_policy",
        action="store_false",
        help="one policy per seat ('white' and 'black'), trained side by side",
    )
    p.add_argument("--num-env-runners", type=int, default=2, help="Ray actors that sample games")
    p.add_argument(
        "--num-envs-per-env-runner",
        type=int,
        default=4,
        help="games each env runner plays at once (one batched forward pass)",
    )
    p.add_argument("--num-cpus-per-env-runner", type=float, default=1, help="CPUs each env runner reserves")
    p.add_argument(
        "--num-cpus",
        type=int,
        default=None,
        help="CPUs of the local Ray instance (without --address); default: all",
    )
    p.add_argument("--train-batch-size", type=int, default=2000, help="env steps per iteration")
    p.add_argument("--minibatch-size", type=int, default=256, help="SGD minibatch size")
    p.add_argument("--num-epochs", type=int, default=4, help="SGD passes over each iteration's batch")
    p.add_argument("--lr", type=float, default=3e-4, help="learning rate")
    p.add_argument("--entropy-coeff", type=float, default=0.01, help="PPO entropy bonus")
    p.add_argument(
        "--conv-filters",
        default="32x3,32x3",
        help="the CNN over the board: comma-separated CHANNELSxKERNEL layers, stride 1, 'same' padding",
    )
    p.add_argument("--hiddens", default="256", help="comma-separated sizes of the dense layers of each head")
    p.add_argument(
        "--max-steps",
        type=int,
        default=None,
        help="truncate a game after this many actions (the env's max_steps); default: the rules' own end",
    )
    p.add_argument(
        "--illegal-moves",
        choices=("raise", "lose"),
        default="raise",
        help="what an illegal action does: 'raise' (the bare raw_env raises, so a masking bug fails the "
        "env runner) or 'lose' (the PettingZoo-classic env(): the mover loses)",
    )
    p.add_argument("--seed", type=int, default=None, help="RLlib seed")
    p.add_argument("--checkpoint-dir", default=None, help="save a checkpoint here after the last iteration")
    p.add_argument(
        "--json-out", default=None, help="also write the run's numbers (every iteration's line) here as JSON"
    )
    args = p.parse_args(argv)
    if args.iterations < 1:
        p.error("--iterations must be at least 1")
    if args.num_env_runners < 0:
        p.error("--num-env-runners must be 0 (sample in this process) or more")
    try:
        args.conv_filter_spec = _conv_filters(args.conv_filters)
        args.hidden_sizes = [int(h) for h in args.hiddens.split(",") if h.strip()]
    except ValueError as e:
        p.error(str(e))
    return args


def _conv_filters(text: str) -> list:
    """``"32x3,64x3"`` -> ``[[32, [3, 3], 1], [64, [3, 3], 1]]`` (RLlib's ``conv_filters``)."""
    layers = []
    for part in text.split(","):
        try:
            channels, kernel = (int(v) for v in part.strip().lower().split("x"))
        except ValueError:
            raise ValueError(f"bad --conv-filters layer {part!r}: use CHANNELSxKERNEL, e.g. 32x3") from None
        layers.append([channels, [kernel, kernel], 1])
    return layers


def policy_ids(shared: bool) -> list[str]:
    from ggpzoo.training.rllib import SHARED_POLICY

    return [SHARED_POLICY] if shared else list(AGENTS)


def build_config(args: argparse.Namespace):
    """The ``PPOConfig`` of the run (RLlib's new API stack: RLModules, EnvRunners, Learners)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    from ggpzoo.training.rllib import register, seat_policy_mapping, shared_policy_mapping

    policies = policy_ids(args.shared_policy)
    model_config = {
        "conv_filters": args.conv_filter_spec,
        "conv_activation": "relu",
        "head_fcnet_hiddens": args.hidden_sizes,
        "head_fcnet_activation": "relu",
        "vf_share_layers": True,
    }
    env_config = {"env": args.env, "max_steps": args.max_steps, "illegal_moves": args.illegal_moves}
    config = (
        PPOConfig()
        # RLlib's env checker steps a random action without the mask, i.e. (almost always)
        # an illegal move in these games; the envs pass PettingZoo's api_test in ggpzoo's tests.
        .environment(register(args.env), env_config=env_config, disable_env_checking=True)
        .env_runners(
            num_env_runners=args.num_env_runners,
            num_envs_per_env_runner=args.num_envs_per_env_runner,
            num_cpus_per_env_runner=args.num_cpus_per_env_runner,
        )
        .learners(num_learners=0)  # the learner runs in this (the driver's) process
        .multi_agent(
            policies=set(policies),
            policy_mapping_fn=shared_policy_mapping if args.shared_policy else seat_policy_mapping,
            policies_to_train=policies,
        )
        .rl_module(
            rl_module_spec=MultiRLModuleSpec(
                rl_module_specs={
                    pid: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=model_config)
                    for pid in policies
                }
            )
        )
        .training(
            train_batch_size_per_learner=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            lr=args.lr,
            entropy_coeff=args.entropy_coeff,
        )
    )
    if args.seed is not None:
        config = config.debugging(seed=args.seed)
    return config


def _get(d, *keys, default=math.nan):
    for k in keys:
        if not isinstance(d, dict) or k not in d:
            return default
        d = d[k]
    return d


def summarize(result: dict, policies: list[str], seconds: float) -> dict:
    """The numbers one iteration's line shows, from RLlib's result dict.

    ``return_mean`` is RLlib's per-seat mean over its smoothing window (the last 100
    episodes); ``env_steps_per_s`` is this iteration's env steps over its wall time,
    sampling and learning (RLlib's own timers are moving averages, so not used here).
    """
    runners = result.get("env_runners", {})
    learners = result.get("learners", {})
    steps = _get(runners, "num_env_steps_sampled", default=0)
    return {
        "iteration": result.get("training_iteration"),
        "env_steps": int(steps),
        "env_steps_lifetime": int(_get(runners, "num_env_steps_sampled_lifetime", default=0)),
        "episodes": int(_get(runners, "num_episodes", default=0)),
        "episodes_lifetime": int(_get(runners, "num_episodes_lifetime", default=0)),
        "episode_len_mean": float(_get(runners, "episode_len_mean")),
        "return_mean": {a: float(_get(runners, "agent_episode_returns_mean", a)) for a in AGENTS},
        "policy_loss": {p: float(_get(learners, p, "policy_loss")) for p in policies},
        "vf_loss": {p: float(_get(learners, p, "vf_loss")) for p in policies},
        "total_loss": {p: float(_get(learners, p, "total_loss")) for p in policies},
        "seconds": seconds,
        "env_steps_per_s": steps / seconds if seconds > 0 else math.nan,
    }


def format_summary(s: dict) -> str:
    def per(d):
        return " ".join(f"{k}={v:+.3f}" for k, v in d.items())

    return (
        f"iter {s['iteration']:3d} | env steps {s['env_steps']:6d} (total {s['env_steps_lifetime']:7d}) | "
        f"episodes {s['episodes']:4d} (total {s['episodes_lifetime']:5d}, mean len {s['episode_len_mean']:5.1f}) | "
        f"return {per(s['return_mean'])} | policy loss {per(s['policy_loss'])} | "
        f"vf loss {per(s['vf_loss'])} | "
        f"{s['env_steps_per_s']:6.1f} env steps/s | {s['seconds']:5.1f} s"
    )


def cluster_line() -> str:
    import ray

    nodes = [n for n in ray.nodes() if n.get("Alive")]
    cpus = sum(n.get("Resources", {}).get("CPU", 0) for n in nodes)
    return f"Ray {ray.__version__}: {len(nodes)} node(s) alive, {cpus:g} CPUs"


def train(args: argparse.Namespace, report=print) -> dict:
    """Connect to (or start) Ray, run ``args.iterations`` PPO iterations.

    ``report`` gets every line of progress. Returns ``{"iterations": [summary, ...],
    "env_runner_nodes": [...], "healthy_env_runners": n, "env_runner_restarts": n}``: the
    per-iteration summaries (`summarize()`), the node each remote EnvRunner ran on,
    and RLlib's count of healthy and restarted EnvRunners after the last iteration. The
    driver disconnects from Ray at the end: a cluster joined with ``--address`` keeps
    running, a local instance started here stops.
    """
    import ray

    started_here = not ray.is_initialized()
    if started_here:
        if args.address:
            ray.init(address=args.address)
        else:
            ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    algo = None
    run = {"iterations": [], "env_runner_nodes": [], "healthy_env_runners": 0, "env_runner_restarts": 0}
    try:
        report(cluster_line())
        policies = policy_ids(args.shared_policy)
        t0 = time.perf_counter()
        algo = build_config(args).build_algo()
        run["env_runner_nodes"] = _env_runner_nodes(algo)
        if run["env_runner_nodes"]:
            where = f"{len(run['env_runner_nodes'])} env runner(s) on {', '.join(sorted(run['env_runner_nodes']))}"
        else:
            where = "sampling in this process"
        report(f"PPO on {args.env}: policies {policies}, {where}; built in {time.perf_counter() - t0:.1f} s")
        for _ in range(args.iterations):
            t = time.perf_counter()
            result = algo.train()
            s = summarize(result, policies, time.perf_counter() - t)
            run["iterations"].append(s)
            report(format_summary(s))
        group = algo.env_runner_group
        run["healthy_env_runners"] = group.num_healthy_remote_env_runners()
        run["env_runner_restarts"] = group.num_remote_worker_restarts()
        if args.checkpoint_dir:
            path = algo.save_to_path(os.path.abspath(os.path.expanduser(args.checkpoint_dir)))
            report(f"checkpoint: {path}")
    finally:
        if algo is not None:
            algo.stop()
        if started_here:
            ray.shutdown()
    return run


def _env_runner_nodes(algo) -> list[str]:
    """``IP/node-id-prefix`` of the node each remote EnvRunner runs on."""
    group = algo.env_runner_group
    if group is None or group.num_remote_env_runners() == 0:
        return []

    def where(_runner):
        import ray

        return f"{ray.util.get_node_ip_address()}/{ray.get_runtime_context().get_node_id()[:8]}"

    return list(group.foreach_env_runner(where, local_env_runner=False))


def _no_nan(x):
    """``x`` with NaN floats as None (strict JSON has no NaN)."""
    if isinstance(x, dict):
        return {k: _no_nan(v) for k, v in x.items()}
    if isinstance(x, list):
        return [_no_nan(v) for v in x]
    return None if isinstance(x, float) and math.isnan(x) else x


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        import ray.rllib  # noqa: F401
    except ImportError as e:
        print(f"this example needs Ray RLlib: pip install -e '.[distributed]' ({e})", file=sys.stderr)
        return 2
    run = train(args)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(_no_nan({"env": args.env, "address": args.address, **run}), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
