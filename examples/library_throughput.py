"""Env steps per second of uniformly random play through each RL library's own env wrapper.

    python examples/library_throughput.py --env skirmish_endgame_v0 --env amazons_v0 --seconds 5

Measures the env side only (no network): PettingZoo's ``env()`` itself, PettingZoo's
``turn_based_aec_to_parallel``, TorchRL's ``PettingZooWrapper(use_mask=True)`` (its
``rand_step``, which samples from the mask) and Tianshou's ``PettingZooEnv``. A library that
is not installed is left out. Each wrapper converts or copies the whole mask at every step,
so the cost grows with the action space: ``amazons_v0`` has 86,980 actions.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time

import numpy as np

from ggpzoo.envs import ENVS, load
from ggpzoo.utils import sample_action


def aec(name, seconds, rng):
    env = load(name).env()
    env.reset(seed=0)
    steps, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.reset()
            continue
        env.step(sample_action(obs["action_mask"], rng))
        steps += 1
    return steps


def parallel(name, seconds, rng):
    from pettingzoo.utils.conversions import turn_based_aec_to_parallel

    env = turn_based_aec_to_parallel(load(name).env())
    obs, _ = env.reset(seed=0)
    steps, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        mover = env.unwrapped.agent_selection
        obs, *_ = env.step({mover: sample_action(obs[mover]["action_mask"], rng)})
        steps += 1
        if not env.agents:
            obs, _ = env.reset()
    return steps


def torchrl(name, seconds, rng):
    from torchrl.envs import PettingZooWrapper

    env = PettingZooWrapper(load(name).env(), use_mask=True, categorical_actions=True)
    td = env.reset()
    steps, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        td = env.rand_step(td)
        steps += 1
        if td["next", "done"].all():
            td = env.reset()
        else:
            td = td["next"]
    return steps


def tianshou(name, seconds, rng):
    from tianshou.env.pettingzoo_env import PettingZooEnv

    env = PettingZooEnv(load(name).env())
    obs, _ = env.reset()
    steps, end = 0, time.perf_counter() + seconds
    while time.perf_counter() < end:
        obs, _, term, trunc, _ = env.step(sample_action(np.asarray(obs["mask"], np.int8), rng))
        steps += 1
        if term or trunc:
            obs, _ = env.reset()
    return steps


WAYS = {
    "pettingzoo env()": (aec, None),
    "turn_based_aec_to_parallel": (parallel, None),
    "torchrl PettingZooWrapper": (torchrl, "torchrl"),
    "tianshou PettingZooEnv": (tianshou, "tianshou"),
}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="library_throughput.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", action="append", choices=list(ENVS), help="repeatable; default skirmish_endgame_v0")
    p.add_argument("--seconds", type=float, default=5.0)
    args = p.parse_args(argv)
    print(f"{'env':<21} {'through':<28} {'steps/s':>9}")
    for name in args.env or ["skirmish_endgame_v0"]:
        for way, (fn, module) in WAYS.items():
            if module and importlib.util.find_spec(module) is None:
                continue
            fn(name, min(args.seconds, 0.5), np.random.default_rng(0))  # warm-up: numba, imports
            start = time.perf_counter()
            steps = fn(name, args.seconds, np.random.default_rng(0))
            print(f"{name:<21} {way:<28} {steps / (time.perf_counter() - start):9.0f}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
