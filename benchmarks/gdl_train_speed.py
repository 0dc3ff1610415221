"""Learner steps per second of MaskablePPO on a GDL sheet against random play: the AEC path
(SingleAgentEnv games in DummyVecEnv) against the batched path (SelfPlayVecEnv), with
train --gdl's recipe (16 games x 128 steps, batch 512, 4 epochs, MLP 128-128), and of the
envs alone (random legal actions).

    NUMBA_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/gdl_train_speed.py tictactoe --steps 40960
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sheet", nargs="?", default="tictactoe")
    p.add_argument("--steps", type=int, default=40960, help="learner steps of each PPO run")
    p.add_argument("--env-steps", type=int, default=400, help="vector steps of each env-only run")
    a = p.parse_args()

    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from ggpzoo.envs import spec
    from ggpzoo.training.selfplay import SelfPlayVecEnv
    from ggpzoo.training.single_agent import SingleAgentEnv
    from ggpzoo.training.train import make_model, recipe

    torch.set_num_threads(1)
    name = f"gdl:{a.sheet}"
    g = spec(name).game
    r = recipe(name)
    n = r["n_envs"]

    def old():
        venv = DummyVecEnv([lambda: SingleAgentEnv(g, opponent="random", reward=r["reward"])] * n)
        venv.seed(0)
        return venv

    def new():
        return SelfPlayVecEnv(name, n, seed=0, reward=r["reward"], opponents=["random"])

    for label, make in (("AEC path (DummyVecEnv of SingleAgentEnv)", old), ("batched (SelfPlayVecEnv)", new)):
        env = make()
        env.reset()
        rng = np.random.default_rng(0)
        t = time.perf_counter()
        for _ in range(a.env_steps):
            masks = np.stack(env.env_method("action_masks"))
            env.step((masks * rng.random(masks.shape) + masks).argmax(axis=1))
        env_rate = a.env_steps * n / (time.perf_counter() - t)
        model = make_model(make(), r, seed=0)
        model.learn(2048)  # warm-up: compile, first rollouts
        t = time.perf_counter()
        model.learn(a.steps, reset_num_timesteps=False)
        ppo_rate = a.steps / (time.perf_counter() - t)
        print(f"{label}: env alone {env_rate:,.0f} learner steps/s; MaskablePPO {ppo_rate:,.0f} learner steps/s")


if __name__ == "__main__":
    main()
