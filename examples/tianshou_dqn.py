"""DQN against random play with Tianshou 2.0's own multi-agent loop, on a ggpzoo env.

    pip install -e ".[tianshou]"
    python examples/tianshou_dqn.py --env skirmish_endgame_v0 --epochs 10

The env reaches Tianshou through Tianshou's ``PettingZooEnv``; the learner is Tianshou's
``DQN`` and the opponent its ``MARLRandomDiscreteMaskedOffPolicyAlgorithm``, both inside a
``MultiAgentOffPolicyAlgorithm`` trained by ``run_training`` (Tianshou's trainer).

Two things a turn-based game needs, handled here:

* **Both seats.** Tianshou gives one algorithm per agent name. `Seats` renames the
  env's agents ``learner`` and ``opponent`` and swaps their colours at every reset, so the
  learner plays white and black alternately (ggpzoo's observations are already from the
  observer's side).
* **Who gets the final reward.** Tianshou stores every env step as a transition of the
  agent who acted, with the rewards of all agents, and computes a DQN target from the
  transitions that follow in the buffer. With the default ``n_step_return_horizon=1`` the
  learner's target would bootstrap from the *opponent's* observation, and a game the
  opponent ends (winning on its move) would pay the learner's -1 on the opponent's
  transition only: the learner would never see it. With ``n_step_return_horizon=2``
  (used here) a learner transition's target spans the opponent's reply, so it collects
  the reward of a game-ending reply and bootstraps from the learner's own next
  observation. That holds when the two sides strictly alternate, as in every ggpzoo game
  but ``amazons_split_v0`` (two actions per turn), which this example refuses.

Prints the learner's mean return against random play (+1 win, -1 loss, 0 draw) per epoch.
``amazons_v0``'s 86,980-wide mask makes Tianshou's per-step mask conversion slow (a Python
list per step); use ``MoveDecomposition``-style envs or the Skirmish/Mad Bishops games.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

import numpy as np
import torch
from pettingzoo import AECEnv
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Collector, CollectStats, VectorReplayBuffer
from tianshou.env import DummyVectorEnv
from tianshou.env.pettingzoo_env import PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

from ggpzoo.envs import ENVS, load, spec

SEATS = ["learner", "opponent"]


class Seats(AECEnv):
    """The env with its agents named ``learner`` and ``opponent``; colours swap every reset.

    Only names change: observations, masks and rewards are the wrapped env's, looked up by
    the colour each seat has in the current game.
    """

    def __init__(self, env: AECEnv, learner_first: bool = True):
        super().__init__()
        self.env = env
        self.metadata = env.metadata
        self.possible_agents = list(SEATS)
        self._learner_white = not learner_first  # flipped by the first reset
        self._colour = dict(zip(SEATS, env.possible_agents, strict=True))
        self._seat = {c: s for s, c in self._colour.items()}

    def observation_space(self, agent):
        return self.env.observation_space(self._colour[agent])

    def action_space(self, agent):
        return self.env.action_space(self._colour[agent])

    def reset(self, seed=None, options=None):
        self.env.reset(seed=seed, options=options)
        self._learner_white = not self._learner_white
        white, black = self.env.possible_agents
        self._colour = dict(zip(SEATS, (white, black) if self._learner_white else (black, white), strict=True))
        self._seat = {c: s for s, c in self._colour.items()}

    def _by_seat(self, d: dict) -> dict:
        return {self._seat[c]: v for c, v in d.items()}

    agents = property(lambda self: [self._seat[c] for c in self.env.agents])
    agent_selection = property(lambda self: self._seat[self.env.agent_selection])
    rewards = property(lambda self: self._by_seat(self.env.rewards))
    _cumulative_rewards = property(lambda self: self._by_seat(self.env._cumulative_rewards))
    terminations = property(lambda self: self._by_seat(self.env.terminations))
    truncations = property(lambda self: self._by_seat(self.env.truncations))
    infos = property(lambda self: self._by_seat(self.env.infos))

    def observe(self, agent):
        return self.env.observe(self._colour[agent])

    def step(self, action):
        self.env.step(action)


def make_env(name: str, learner_first: bool = True) -> PettingZooEnv:
    return PettingZooEnv(Seats(load(name).env(), learner_first))


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="tianshou_dqn.py", description=__doc__.split("\n\n")[0])
    names = [n for n in ENVS if spec(n).turn_actions == 1]
    p.add_argument("--env", default="skirmish_endgame_v0", choices=names, help="default skirmish_endgame_v0")
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--steps-per-epoch", type=int, default=2000, help="env steps per epoch (both seats)")
    p.add_argument("--train-envs", type=int, default=4)
    p.add_argument("--test-games", type=int, default=20)
    p.add_argument("--hidden", type=int, nargs="+", default=[256, 256])
    p.add_argument("--lr", type=float, default=1e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--buffer-size", type=int, default=20_000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1: small nets, one game at a time)")
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    # Returns here are one column per seat; Tianshou warns on every 2-D return summary.
    logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    env = make_env(args.env)
    obs_space = env.observation_space["observation"]

    net = Net(state_shape=obs_space.shape, action_shape=env.action_space.n, hidden_sizes=args.hidden)
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1, eps_inference=0.0)
    learner = DQN(
        policy=policy,
        optim=AdamOptimizerFactory(lr=args.lr),
        gamma=args.gamma,
        n_step_return_horizon=2,  # spans the opponent's reply: see the module docstring
        target_update_freq=320,
    )
    opponent = MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
    marl = MultiAgentOffPolicyAlgorithm(algorithms=[learner, opponent], env=env)

    # Half the envs start with the learner as white, half as black; every env then alternates.
    train_envs = DummyVectorEnv([lambda i=i: make_env(args.env, i % 2 == 0) for i in range(args.train_envs)])
    test_envs = DummyVectorEnv([lambda i=i: make_env(args.env, i % 2 == 0) for i in range(2)])
    train_envs.seed(args.seed)
    test_envs.seed(args.seed)
    train_collector = Collector[CollectStats](
        marl, train_envs, VectorReplayBuffer(args.buffer_size, len(train_envs)), exploration_noise=True
    )
    test_collector = Collector[CollectStats](marl, test_envs)
    train_collector.reset()
    train_collector.collect(n_step=args.batch_size * args.train_envs)

    start = time.perf_counter()
    result = marl.run_training(
        OffPolicyTrainerParams(
            training_collector=train_collector,
            test_collector=test_collector,
            max_epochs=args.epochs,
            epoch_num_steps=args.steps_per_epoch,
            collection_step_num_env_steps=10 * args.train_envs,
            test_step_num_episodes=args.test_games,
            batch_size=args.batch_size,
            update_step_num_gradient_steps_per_sample=0.1,
            multi_agent_return_reduction=lambda rews: rews[:, 0],  # the learner's column
            test_in_training=False,
            show_progress=False,
        )
    )
    seconds = time.perf_counter() - start
    best = result.best_score if result.best_score is not None else float("nan")
    print(f"{args.env}: {args.epochs} epoch(s), {result.timing.total_time if result.timing else seconds:.1f} s")
    print(f"learner's best mean return vs random over {args.test_games} test games: {best:+.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
