"""IPPO self-play with AgileRL on a ggpzoo env, through PettingZoo's turn-based parallel conversion.

    pip install -e ".[agilerl]"          # AgileRL needs pettingzoo<1.27: a venv of its own
    python examples/agilerl_ippo.py --env skirmish_endgame_v0 --iterations 20

AgileRL's multi-agent algorithms take PettingZoo's *parallel* API and read action masks
from ``infos[agent]["action_mask"]``, never from the observation. So the env is
``turn_based_aec_to_parallel(env(mask_in_infos=True))``: every step, every agent gets an
observation, and the agent whose turn it is acts. AgileRL's ``IPPO`` (one actor and one
critic per seat, white and black, trained against each other) chooses the moves with
``get_action`` and learns with ``learn``, in a rollout loop written the way AgileRL's own
PettingZoo tutorials write theirs.

What a turn-based game needs, and AgileRL does not do by itself, handled here:

* **Only the agent to move acts.** AgileRL's loops store a transition for every agent at
  every step, and the mask of an agent that is not to move is all zeros here. The loop
  below asks ``get_action`` for the agent to move only, and stores a transition for that
  agent only.
* **Who gets the final reward.** The reward of a step reaches *both* agents (the parallel
  env reports each step's rewards for all). A game the opponent ends on its move pays the
  other agent on a step where it did not act; the loop adds every reward an agent
  receives to that agent's last transition, so a loss on the opponent's move is charged
  to the move that allowed it.
* **Masked log-probabilities.** ``IPPO.get_action`` returns the log-probability under the
  masked distribution, but ``IPPO.learn`` recomputes it without the mask, so the PPO ratio
  would compare two different distributions. The loop stores the unmasked
  log-probability of the chosen action instead (the ratio is then exact; only legal
  actions are ever sampled).
* **Masks as lists.** AgileRL 2.58's ``extract_action_masks`` tests ``None in masks``,
  which raises for a numpy mask longer than one entry; the loop passes ``mask.tolist()``.

Observations are flattened to vectors (AgileRL builds an MLP for them); the action mask
stays out of the observation, as AgileRL asserts. Prints each iteration's games and
losses, then each seat's win rate against uniformly random play.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch
from agilerl.algorithms import IPPO
from gymnasium import spaces
from pettingzoo.utils.conversions import turn_based_aec_to_parallel

from ggpzoo.envs import ENVS, load
from ggpzoo.utils import sample_action


def make_env(name: str):
    """The parallel env AgileRL trains on (masks in ``infos``)."""
    return turn_based_aec_to_parallel(load(name).env(mask_in_infos=True))


def flat(obs: dict) -> np.ndarray:
    """The observation planes of one agent as a ``(1, n)`` float32 batch of one."""
    return obs["observation"].reshape(1, -1).astype(np.float32)


def unmasked_log_prob(agent: IPPO, agent_id: str, state: np.ndarray, action: np.ndarray) -> np.ndarray:
    """The log-probability of ``action`` under the actor's distribution without the mask,
    the one ``IPPO.learn`` recomputes."""
    actor = agent.actors[agent_id]
    with torch.no_grad():
        x = agent.preprocess_observation({agent_id: state}, [agent_id])[agent_id]
        actor(x)
        return actor.action_log_prob(torch.as_tensor(action, device=agent.device)).cpu().numpy().reshape(1)


def parse_args(argv=None):
    p = argparse.ArgumentParser(prog="agilerl_ippo.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--env", default="skirmish_endgame_v0", choices=list(ENVS), help="default skirmish_endgame_v0")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--steps", type=int, default=1024, help="env steps per iteration (both seats)")
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--eval-games", type=int, default=20)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    return p.parse_args(argv)


def evaluate(agent: IPPO, name: str, games: int, seed: int) -> dict[str, float]:
    """Each seat's score (a draw counts half) against uniformly random play."""
    env = make_env(name)
    rng = np.random.default_rng(seed)
    scores = {}
    agent.set_training_mode(False)
    for seat in env.possible_agents:
        total = 0.0
        for g in range(games):
            obs, infos = env.reset(seed=seed + g)
            while env.agents:
                mover = env.unwrapped.agent_selection
                if mover == seat:
                    state = flat(obs[seat])
                    action, _, _, _ = agent.get_action(
                        {seat: state}, {seat: {"action_mask": infos[seat]["action_mask"].tolist()}}
                    )
                    a = int(np.asarray(action[seat]).reshape(-1)[0])
                else:
                    a = sample_action(infos[mover]["action_mask"], rng)
                obs, rewards, _, _, infos = env.step({mover: a})
                total += (rewards[seat] + 1) / 2 if not env.agents else 0.0
        scores[seat] = total / games
    agent.set_training_mode(True)
    return scores


def main(argv=None) -> int:
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    env = make_env(args.env)
    seats = list(env.possible_agents)
    obs_shape = env.observation_space(seats[0])["observation"].shape
    flat_space = spaces.Box(0.0, 1.0, (int(np.prod(obs_shape)),), np.float32)
    agent = IPPO(
        observation_spaces=[flat_space] * len(seats),
        action_spaces=[env.action_space(s) for s in seats],
        agent_ids=seats,
        net_config={"encoder_config": {"hidden_size": [args.hidden]}, "head_config": {"hidden_size": [args.hidden]}},
        lr=args.lr,
        learn_step=args.steps,
        batch_size=64,
    )

    obs, infos = env.reset(seed=args.seed)
    start = time.perf_counter()
    total_steps = 0
    for it in range(1, args.iterations + 1):
        buf = {s: {k: [] for k in ("states", "actions", "log_probs", "rewards", "dones", "values")} for s in seats}
        new_game = dict.fromkeys(seats, 1.0)  # AgileRL's dones[t]: the state t begins a game
        games = 0
        for _ in range(args.steps):
            mover = env.unwrapped.agent_selection
            state = flat(obs[mover])
            mask = infos[mover]["action_mask"].tolist()  # a list: see the module docstring
            action, _, _, value = agent.get_action({mover: state}, {mover: {"action_mask": mask}})
            b = buf[mover]
            b["states"].append(state)
            b["actions"].append(np.asarray(action[mover]).reshape(1))
            b["log_probs"].append(unmasked_log_prob(agent, mover, state, action[mover]))
            b["values"].append(np.asarray(value[mover]).reshape(1))
            b["rewards"].append(np.zeros(1, np.float32))
            b["dones"].append(np.array([new_game[mover]], np.float32))
            new_game[mover] = 0.0
            obs, rewards, _, _, infos = env.step({mover: int(np.asarray(action[mover]).reshape(-1)[0])})
            for s, r in rewards.items():  # every reward goes to the seat's last move
                if buf[s]["rewards"]:
                    buf[s]["rewards"][-1] += r
            if not env.agents:  # game over: both seats start afresh
                games += 1
                obs, infos = env.reset()
                new_game = dict.fromkeys(seats, 1.0)
        total_steps += args.steps
        next_states = {s: flat(obs[s]) for s in seats}
        next_dones = {s: np.array([new_game[s]], np.float32) for s in seats}
        experiences = tuple(
            {s: buf[s][k] for s in seats} for k in ("states", "actions", "log_probs", "rewards", "dones", "values")
        )
        states, actions, log_probs, rewards_, dones, values = experiences
        losses = agent.learn((states, actions, log_probs, rewards_, dones, values, next_states, next_dones))
        loss_text = " ".join(f"{s}={float(np.asarray(v).mean()):+.3f}" for s, v in losses.items())
        rate = total_steps / (time.perf_counter() - start)
        print(
            f"iter {it:3d} | env steps {total_steps:7d} | games {games:3d} | loss {loss_text} | {rate:6.0f} env steps/s"
        )
    scores = evaluate(agent, args.env, args.eval_games, args.seed)
    print(
        f"{args.env}: score vs random over {args.eval_games} games per seat: "
        + ", ".join(f"{s} {v:.1%}" for s, v in scores.items())
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
