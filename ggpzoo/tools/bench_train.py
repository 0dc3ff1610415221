"""Training throughput: learner steps/s of MaskablePPO with each game's recipe, on the AEC
path ([`SingleAgentEnv`][ggpzoo.training.single_agent.SingleAgentEnv] games in SB3's ``DummyVecEnv``)
and on the batched self-play env ([`SelfPlayVecEnv`][ggpzoo.training.selfplay.SelfPlayVecEnv]), side
by side in one run, with the share of each step spent in the env (stepping, the opponents'
moves, the masks) and in the network (acting and learning), and each env's own speed
without a network (uniformly random legal actions from its masks, "env alone").

    python -m ggpzoo bench --train                     # every game, 60 s per path
    python -m ggpzoo bench --train --env skirmish_v0 --seconds 120

Both paths use the same network, PPO settings, number of games and opponents (the
recipe's fixed opponents, no snapshots; the AEC path has no random openings). Each path
times the env alone (``min(--seconds, 10)`` s), builds the model, runs one untimed rollout
and update (numba compiles, torch warms up: from a few seconds to a few minutes, the AEC
path's rollout of 4,096 learner steps being the slowest), then whole rollouts and updates
until ``--seconds`` have passed. So a game takes about ``2 x (--seconds + min(--seconds,
10))`` seconds plus the warm-ups: all five games took over 10 minutes with ``--seconds 5``
on a 2-core machine. Each phase is printed on stderr as it starts. Needs the ``train``
extra.
"""

from __future__ import annotations

import time

__all__ = ["bench_train", "format_train_table"]


def _timed(venv):
    """``venv`` in a ``VecEnvWrapper`` that adds up the seconds spent in it."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class Timed(VecEnvWrapper):
        def __init__(self, venv):
            super().__init__(venv)
            self.seconds = 0.0

        def reset(self):
            t = time.perf_counter()
            obs = self.venv.reset()
            self.seconds += time.perf_counter() - t
            return obs

        def step_async(self, actions):
            t = time.perf_counter()
            self.venv.step_async(actions)
            self.seconds += time.perf_counter() - t

        def step_wait(self):
            t = time.perf_counter()
            out = self.venv.step_wait()
            self.seconds += time.perf_counter() - t
            return out

        def env_method(self, method_name, *args, indices=None, **kwargs):
            t = time.perf_counter()
            out = self.venv.env_method(method_name, *args, indices=indices, **kwargs)
            self.seconds += time.perf_counter() - t
            return out

    return Timed(venv)


def _aec_venv(name: str, r: dict, seed: int):
    import functools

    from stable_baselines3.common.vec_env import DummyVecEnv

    from ggpzoo.training.train import view_of

    fns = [functools.partial(_aec_env, name, r, view_of(r))] * r["n_envs"]
    venv = DummyVecEnv(fns)
    venv.seed(seed)
    return venv


def _aec_env(name: str, r: dict, view: dict):
    from ggpzoo.training.single_agent import OpponentPool, SingleAgentEnv

    names = list(r["opponents"])
    pool = OpponentPool(names, weights=[r["opponents"][o] for o in names])
    return SingleAgentEnv(name, opponent=pool, **view)


def _time_path(venv, r: dict, seconds: float, seed: int, say=None) -> dict:
    from ggpzoo.training.train import make_model

    say = say or (lambda what: None)
    timed = _timed(venv)
    say("building the model")
    model = make_model(timed, r, seed)
    rollout = r["n_steps"] * r["n_envs"]
    say(f"warm-up: one rollout of {rollout:,} learner steps and an update, untimed")
    model.learn(rollout)  # warm-up
    say(f"timing training for {seconds:g} s")
    timed.seconds = 0.0
    start_steps = model.num_timesteps
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        model.learn(rollout, reset_num_timesteps=False)
    elapsed = time.perf_counter() - t0
    steps = model.num_timesteps - start_steps
    return {"steps": steps, "seconds": elapsed, "steps_per_s": steps / elapsed, "env_share": timed.seconds / elapsed}


def _env_only(venv, seconds: float, seed: int) -> float:
    """Learner steps/s of ``venv`` alone: uniformly random legal actions from its masks, no network."""
    import numpy as np

    rng = np.random.default_rng(seed)
    venv.reset()
    steps, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds or steps == 0:
        masks = np.stack(venv.env_method("action_masks"))
        u = rng.random(masks.shape) * masks  # a uniformly random legal action per game: argmax of u
        venv.step(u.argmax(axis=1))
        steps += venv.num_envs
    return steps / (time.perf_counter() - t0)


def bench_train(
    name: str, seconds: float = 60.0, seed: int = 0, paths=("aec", "batched"), say=None, **overrides
) -> list[dict]:
    """Time MaskablePPO with ``name``'s recipe (and ``overrides``) on each of ``paths``
    (``"aec"``: SingleAgentEnv; ``"batched"``: SelfPlayVecEnv). One row per path; the
    batched row has ``ratio``, its steps/s over the AEC path's, when both ran. ``say`` gets
    a line as each phase starts (``bench --train`` prints them on stderr)."""
    import torch

    from ggpzoo.training.train import make_env, recipe

    torch.set_num_threads(1)
    r = recipe(name, **overrides)
    r["snapshots"] = 0
    rows = []
    for path in paths:
        label = "SingleAgentEnv" if path == "aec" else "SelfPlayVecEnv"
        start = time.perf_counter()

        def tell(what: str, label=label, start=start) -> None:
            if say is not None:
                say(f"{name}, {label} [{time.perf_counter() - start:.0f} s]: {what}")

        tell("building the env")
        venv = _aec_venv(name, r, seed) if path == "aec" else make_env(name, r, seed)
        tell(f"timing the env alone for {min(seconds, 10.0):g} s")
        env_only = _env_only(venv, min(seconds, 10.0), seed)
        row = _time_path(venv, r, seconds, seed, say=tell)
        tell(f"{row['steps_per_s']:,.0f} learner steps/s")
        row["env_steps_per_s"] = env_only
        row |= {"env": name, "path": "SingleAgentEnv" if path == "aec" else "SelfPlayVecEnv", "n_envs": r["n_envs"]}
        row["network"] = "cell" if r["policy"] == "cell" else "mlp " + "-".join(map(str, r["net_arch"]))
        rows.append(row)
    if len(rows) == 2:
        rows[1]["ratio"] = rows[1]["steps_per_s"] / rows[0]["steps_per_s"]
        rows[1]["env_ratio"] = rows[1]["env_steps_per_s"] / rows[0]["env_steps_per_s"]
    return rows


def format_train_table(rows: list[dict]) -> str:
    head = f"{'env':<21} {'path':<15} {'network':<11} {'games':>5} {'steps':>8} {'steps/s':>8}"
    lines = [f"{head} {'env share':>9} {'ratio':>6}  {'env alone/s':>11} {'ratio':>6}"]
    for r in rows:
        ratio = f"{r['ratio']:.1f}x" if "ratio" in r else ""
        env_ratio = f"{r['env_ratio']:.1f}x" if "env_ratio" in r else ""
        lines.append(
            f"{r['env']:<21} {r['path']:<15} {r['network']:<11} {r['n_envs']:>5} {r['steps']:>8,} "
            f"{r['steps_per_s']:>8,.0f} {100 * r['env_share']:>8.0f}% {ratio:>6}  "
            f"{r.get('env_steps_per_s', 0):>11,.0f} {env_ratio:>6}"
        )
    return "\n".join(lines)
