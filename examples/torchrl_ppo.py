"""Masked PPO self-play with TorchRL's own loop on a ggpzoo env.

    pip install -e ".[torchrl]"
    python examples/torchrl_ppo.py --env skirmish_endgame_v0 --iterations 20

The env reaches TorchRL through TorchRL's ``PettingZooWrapper(use_mask=True)`` with both
agents in one group (``players``), so one policy plays both seats (self-play). The rest is
TorchRL: a ``ProbabilisticActor`` over a ``MaskedCategorical`` (only legal moves are
sampled), a ``Collector``, ``GAE`` and ``ClipPPOLoss``.

What a turn-based game needs, handled here:

* In an AEC env only the agent in ``agent_selection`` acts. TorchRL marks it in
  ``("players", "mask")``; the other agent's action is ignored, and its ``action_mask`` is
  all ones. The advantage of every non-acting entry is zeroed before the loss, so the
  policy learns from its own moves only (the value function still learns every state).
* The final reward reaches *both* agents on the step that ends the game, whoever moved
  (TorchRL reads the env's per-step ``rewards``), so a loss on the opponent's move enters
  the GAE of the agent that lost: its advantage at its last move includes it through the
  following step (``lmbda`` > 0).

Prints, per iteration, the games finished, frames per finished game and the loss; at the end
the win rate of the greedy policy against uniformly random play, on both seats.
``amazons_v0``'s 86,980-wide mask makes every TorchRL step cost tens of milliseconds (the
wrapper copies and converts each mask); train Amazons as ``amazons_split_v0``.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch
from tensordict.nn import TensorDictModule
from torch import nn
from torchrl.collectors import Collector
from torchrl.envs import PettingZooWrapper
from torchrl.modules import MaskedCategorical, ProbabilisticActor
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE

from ggpzoo.envs import ENVS, load
from ggpzoo.utils import sample_action

GROUP = "players"
OBS = (GROUP, "observation", "observation")


class BoardMLP(nn.Module):
    """Flattens the ``(..., H, W, C)`` planes (any dtype) and applies an MLP."""

    def __init__(self, obs_shape, out: int, hidden: int):
        super().__init__()
        n = int(np.prod(obs_shape))
        self.net = nn.Sequential(
            nn.Linear(n, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, out)
        )

    def forward(self, obs):
        return self.net(obs.float().flatten(-3))


def make_env(name: str) -> PettingZooWrapper:
    return PettingZooWrapper(
        load(name).env(), use_mask=True, group_map={GROUP: ["white", "black"]}, categorical_actions=True
    )


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="torchrl_ppo.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", default="skirmish_endgame_v0", choices=list(ENVS), help="default skirmish_endgame_v0")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--frames", type=int, default=1000, help="env steps per iteration")
    p.add_argument("--epochs", type=int, default=4, help="PPO epochs per iteration")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=0.99)
    p.add_argument("--lmbda", type=float, default=0.95)
    p.add_argument("--eval-games", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1: small nets, one game at a time)")
    return p.parse_args(argv)


def evaluate(name: str, logits_net: nn.Module, games: int, seed: int) -> float:
    """Win rate (a draw counts half) of the greedy policy against uniformly random play,
    seats alternating, on the plain PettingZoo env."""
    env = load(name).env()
    rng = np.random.default_rng(seed)
    score = 0.0
    for g in range(games):
        learner = env.possible_agents[g % 2]
        env.reset(seed=g)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                if agent == learner:  # its return: +1 win, -1 loss, 0 draw
                    score += (reward + 1) / 2
                env.step(None)
                continue
            if agent == learner:
                with torch.no_grad():
                    logits = logits_net(torch.as_tensor(obs["observation"]))
                logits[torch.as_tensor(obs["action_mask"]) == 0] = -torch.inf
                env.step(int(logits.argmax()))
            else:
                env.step(sample_action(obs["action_mask"], rng))
    return score / games


def main(argv=None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    env = make_env(args.env)
    env.set_seed(args.seed)
    obs_shape = env.observation_spec[OBS].shape[-3:]
    n_actions = env.full_action_spec[GROUP, "action"].space.n

    logits_net = BoardMLP(obs_shape, n_actions, args.hidden)
    actor = ProbabilisticActor(
        TensorDictModule(logits_net, in_keys=[OBS], out_keys=[(GROUP, "logits")]),
        in_keys={"logits": (GROUP, "logits"), "mask": (GROUP, "action_mask")},
        out_keys=[(GROUP, "action")],
        distribution_class=MaskedCategorical,
        return_log_prob=True,
        log_prob_key=(GROUP, "action_log_prob"),
    )
    critic = TensorDictModule(BoardMLP(obs_shape, 1, args.hidden), in_keys=[OBS], out_keys=[(GROUP, "state_value")])
    gae = GAE(gamma=args.gamma, lmbda=args.lmbda, value_network=critic)
    gae.set_keys(
        reward=(GROUP, "reward"),
        done=(GROUP, "done"),
        terminated=(GROUP, "terminated"),
        value=(GROUP, "state_value"),
        advantage=(GROUP, "advantage"),
        value_target=(GROUP, "value_target"),
    )
    loss = ClipPPOLoss(actor, critic, entropy_coeff=0.0, normalize_advantage=False)
    loss.set_keys(
        reward=(GROUP, "reward"),
        done=(GROUP, "done"),
        terminated=(GROUP, "terminated"),
        action=(GROUP, "action"),
        sample_log_prob=(GROUP, "action_log_prob"),
        value=(GROUP, "state_value"),
        advantage=(GROUP, "advantage"),
        value_target=(GROUP, "value_target"),
    )
    optim = torch.optim.Adam(loss.parameters(), lr=args.lr)
    collector = Collector(
        env,
        actor,
        frames_per_batch=args.frames,
        total_frames=args.frames * args.iterations,
        auto_register_policy_transforms=False,  # a feed-forward policy: no InitTracker needed
    )

    start = time.perf_counter()
    for it, batch in enumerate(collector, 1):
        with torch.no_grad():
            gae(batch)
        acting = batch.get((GROUP, "mask")).unsqueeze(-1)
        batch.set((GROUP, "advantage"), batch.get((GROUP, "advantage")) * acting)  # others' moves: no policy term
        for _ in range(args.epochs):
            out = loss(batch)
            total = out["loss_objective"] + out["loss_critic"]
            optim.zero_grad()
            total.backward()
            optim.step()
        collector.update_policy_weights_()
        done = batch.get(("next", "done")).squeeze(-1)
        games = int(done.sum())
        print(
            f"iter {it:3d} | frames {it * args.frames:7d} | games {games:3d} | "
            f"frames/game {args.frames / max(games, 1):5.1f} | loss {float(total.detach()):+.4f} | "
            f"{it * args.frames / (time.perf_counter() - start):6.0f} env steps/s",
            flush=True,
        )
    collector.shutdown()
    rate = evaluate(args.env, logits_net, args.eval_games, args.seed)
    print(f"{args.env}: greedy policy vs random, {args.eval_games} games, seats alternating: score {rate:.1%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
