"""A Gymnasium single-agent view of a two-player ggpzoo game, for stable-baselines3.

* [`SingleAgentEnv`][ggpzoo.training.single_agent.SingleAgentEnv] - seats the learner on one side of an AEC env against
  an
  opponent, alternating sides between episodes, with ``action_masks()`` for sb3-contrib's
  ``MaskablePPO``.
* Opponents, each a callable ``(env, agent) -> action`` taking the AEC env the learner
  plays and the agent to move: [`RandomOpponent`][ggpzoo.training.single_agent.RandomOpponent],
  [`GreedyOpponent`][ggpzoo.training.single_agent.GreedyOpponent] and any [`ggpzoo.agents`][ggpzoo.agents] agent
  ([`AgentOpponent`][ggpzoo.training.single_agent.AgentOpponent], e.g. ``"mcts:200"``),
  [`PolicyOpponent`][ggpzoo.training.single_agent.PolicyOpponent] (a frozen copy of a learner, or any model with
  ``predict``) and [`OpponentPool`][ggpzoo.training.single_agent.OpponentPool] (one of several, drawn per episode).

What PettingZoo's SB3 tutorial gets wrong, and this env gets right:

* the learner's reward is its own reward: everything the AEC env booked for it since its
  last action, including what it lost on the opponent's move (read from
  ``_cumulative_rewards``, the sum ``last()`` would give it); what was booked for it
  before its first action comes with its first step, so an episode's return is the
  sum of all its rewards in the game;
* the episode ends for the learner when the game ends on the opponent's move: the env
  plays the opponent's moves inside ``step()`` and returns ``terminated=True`` with the
  learner's loss at once;
* the learner plays both sides: white in even episodes, black in odd ones (counting from
  the last seeded ``reset``), and when it is black, ``reset()`` plays the opponent's
  opening move first.

A two-role GDL game (``"gdl:SHEET"``, a loaded [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game], or a GDL AEC env)
plays too: the observation is its fluent vector, and its opponents are any agent that plays
every game (``"random"``, ``"greedy"``, ``"mcts:50"``), policies and pools.
[`evaluate()`][ggpzoo.training.single_agent.evaluate] plays a model's evaluation games.

>>> from sb3_contrib import MaskablePPO                                      # doctest: +SKIP
>>> env = SingleAgentEnv("skirmish_v0", opponent="random", reward="delta_zero_sum")  # doctest: +SKIP
>>> MaskablePPO("MlpPolicy", env).learn(10_000)                             # doctest: +SKIP
"""

from __future__ import annotations

import copy
import inspect
import io
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils.wrappers import BaseWrapper

from ggpzoo.envs import ENVS
from ggpzoo.envs import spec as _game_spec
from ggpzoo.utils import sample_action
from ggpzoo.wrappers import (
    PotentialShaping,
    ReachPlanes,
    TurnDecomposition,
    reward_wrapper,
)

__all__ = [
    "SingleAgentEnv",
    "Opponent",
    "RandomOpponent",
    "GreedyOpponent",
    "AgentOpponent",
    "PolicyOpponent",
    "OpponentPool",
    "make_opponent",
    "make_aec_env",
    "evaluate",
]

SIDES = ("alternate", "white", "black")


def make_aec_env(
    name: str,
    reward: str | None = None,
    decompose: bool | None = None,
    shaping: float = 0.0,
    reach_planes: bool = False,
    **kwargs,
) -> AECEnv:
    """``load(name).env(**kwargs)`` in the reward wrapper named ``reward`` (see
    [`ggpzoo.wrappers.REWARDS`][ggpzoo.wrappers.REWARDS]), then, if ``shaping`` is not 0, in
    [`PotentialShaping`][ggpzoo.wrappers.PotentialShaping] with that weight and the game's default
    potential, then, with ``reach_planes`` (games whose spec has them: Amazons, Mad
    Bishops), in [`ReachPlanes`][ggpzoo.wrappers.ReachPlanes], then in the turn decomposition the
    game's spec names (`AmazonsTurnDecomposition` for amazons_v0,
    [`MoveDecomposition`][ggpzoo.wrappers.MoveDecomposition] for the others). ``decompose=None``
    decomposes the games whose spec says so (amazons_v0: its 86,980-way action is too big
    for a small policy), ``True`` every game, ``False`` none."""
    game = _game_spec(name)
    if shaping and game.potential is None:
        raise ValueError(f"shaping needs a game with a default potential; {game.name} has none")
    if reach_planes and game.reach_planes is None:
        raise ValueError(f"reach_planes needs a game with reach planes; {game.name} has none")
    wrapper = game.decomposition_wrapper() if decompose or (decompose is None and game.decompose_by_default) else None
    if decompose and wrapper is None:
        raise ValueError(f"{game.name} has no turn decomposition")
    env = reward_wrapper(game.env(**kwargs), reward)
    if shaping:
        env = PotentialShaping(env, weight=shaping)
    if reach_planes:
        env = ReachPlanes(env)
    return wrapper(env) if wrapper is not None else env


def _env_spec(env):
    """The [`GameSpec`][ggpzoo.envs.gamespec.GameSpec] of a ggpzoo AEC env (wrapped or not), or None for another env."""
    return getattr(env.unwrapped, "game_spec", None)


def _opponent_specs(opponent) -> list[str]:
    """The agent spec strings an opponent (or a pool of them) will build its agents from."""
    if isinstance(opponent, OpponentPool):
        return [s for o in opponent.opponents for s in _opponent_specs(o)]
    if isinstance(opponent, AgentOpponent) and opponent.spec is not None:
        return [opponent.spec]
    return []


def _turns(env) -> TurnDecomposition | None:
    """The turn decomposition among ``env`` and the wrappers inside it, or None."""
    while True:
        if isinstance(env, TurnDecomposition):
            return env
        if not isinstance(env, BaseWrapper):
            return None
        env = env.env


# ----------------------------------------------------------------------------- opponents
class Opponent:
    """An opponent: called as ``opponent(env, agent)`` when ``agent`` is to move in ``env``.

    [`reset()`][ggpzoo.training.single_agent.Opponent] is called at the start of every episode with the generator of the
    [`SingleAgentEnv`][ggpzoo.training.single_agent.SingleAgentEnv], so seeded episodes are reproducible.
    """

    def __init__(self):
        self.rng = np.random.default_rng()

    def reset(self, rng: np.random.Generator) -> None:
        self.rng = rng

    def __call__(self, env: AECEnv, agent: str) -> int:
        raise NotImplementedError


class _TurnOpponent(Opponent):
    """An opponent that picks whole game turns; in a turn-decomposed env it plays a turn's steps."""

    def __init__(self):
        super().__init__()
        self._plan: tuple[int, tuple[int, ...]] | None = None  # (the turn's number, its cells)

    def reset(self, rng):
        super().reset(rng)
        self._plan = None

    def __call__(self, env, agent):
        turns = _turns(env)
        if turns is None:
            return self.choose(env, agent, None)
        number, stage = turns.turn_number, turns.stage
        if self._plan is None or self._plan[0] != number or self._plan[1][:stage] != turns.chosen:
            self._plan = number, turns.turn_steps(self.choose(env, agent, turns.legal_turns()))
        return self._plan[1][stage]

    def choose(self, env, agent, legal_turns: np.ndarray | None) -> int:
        """An action of ``env`` (or, with ``legal_turns``, one of those actions of the wrapped env)."""
        raise NotImplementedError


class AgentOpponent(_TurnOpponent):
    """A [`ggpzoo.agents`][ggpzoo.agents] agent as an opponent: ``"random"``, ``"greedy"``, ``"mcts:200"``,
    ``"sb3:model.zip"`` (see [`ggpzoo.agents.make_agent()`][ggpzoo.agents.make_agent]) or an
    [`Agent`][ggpzoo.agents.Agent].

    The agent picks a whole game action from the game (``agent.act(env)``); in a
    turn-decomposed env it plays that action's choices. A spec string is made into an
    agent for the env of the first game it plays, and every agent is reseeded at each
    episode from the [`SingleAgentEnv`][ggpzoo.training.single_agent.SingleAgentEnv]'s generator.
    """

    def __init__(self, agent):
        super().__init__()
        from ggpzoo.agents import Agent

        if not isinstance(agent, (str, Agent)):
            raise TypeError(f"agent must be an agent spec string or a ggpzoo Agent, got {type(agent).__name__}")
        self.spec = agent if isinstance(agent, str) else None
        self.agent = None if isinstance(agent, str) else agent
        self._env_name = None
        self._seed: int | None = None

    def reset(self, rng):
        super().reset(rng)
        self._seed = int(rng.integers(2**63))  # one draw per episode, whatever the agent
        if self.agent is not None:
            self.agent.reset(seed=self._seed)

    def choose(self, env, agent, legal_turns):
        name = _env_spec(env) or env.unwrapped.metadata["name"]  # a sheet's env may have no name
        if self.spec is not None and self._env_name is not name and self._env_name != name:
            from ggpzoo.agents import make_agent

            self.agent = make_agent(self.spec, name, seed=self._seed)
            self._env_name = name
        action = int(self.agent.act(env))
        if legal_turns is not None and action not in legal_turns:
            # asked mid-turn after choices it did not make: a turn that agrees with them
            action = int(legal_turns[self.rng.integers(len(legal_turns))])
        return action


class RandomOpponent(AgentOpponent):
    """Uniformly random legal play ([`ggpzoo.agents.RandomAgent`][ggpzoo.agents.RandomAgent]); in a turn-decomposed
    env, uniform over whole turns, not over each of the three choices."""

    def __init__(self):
        super().__init__("random")


class GreedyOpponent(AgentOpponent):
    """One-ply lookahead on the goals ([`ggpzoo.agents.GreedyAgent`][ggpzoo.agents.GreedyAgent]): wins at once if it
    can, never ends the game behind if it can help it, else takes the action that most raises
    its goal over the opponent's (a capture in Skirmish), random among ties.

    Where goals only change at the end (Amazons, Amazons split, Mad Bishops) this is random
    play that takes an immediate win.
    """

    def __init__(self):
        super().__init__("greedy")


class PolicyOpponent(Opponent):
    """Plays a model's choice: an SB3 model or policy (``predict``) on the learner's observation.

    Args:
        model: anything with ``predict(observation, deterministic=..., action_masks=...)``,
            e.g. a ``MaskablePPO`` or its ``policy``. A model whose ``predict`` takes no
            ``action_masks`` is asked without, and an illegal answer is replaced by a random
            legal action.
        deterministic: take the most likely action instead of sampling one.
        copy_model: play a frozen copy of ``model`` (a snapshot), not ``model`` itself: for
            an SB3 model or policy, a copy of its policy on the CPU, made with the
            policy's own ``save``/``load``; for anything else, a deep copy.

    An SB3 actor-critic policy over a ``Discrete`` space (``MaskablePPO``'s, ``PPO``'s) is not
    asked through ``predict``: the opponent reads its logits, masks them, and takes the
    argmax or samples the softmax with its own generator: the distribution ``predict``
    samples from, without building ``predict``'s distribution object each call, and seeded
    episodes repeat.
    """

    def __init__(self, model: Any, deterministic: bool = False, copy_model: bool = False):
        super().__init__()
        if not callable(getattr(model, "predict", None)):
            raise TypeError(f"model must have a predict() method (an SB3 model or policy), got {type(model).__name__}")
        self.model = _snapshot(model) if copy_model else model
        self.deterministic = bool(deterministic)
        self._masked = "action_masks" in inspect.signature(self.model.predict).parameters
        policy = getattr(self.model, "policy", self.model)
        # An SB3 actor-critic policy over a Discrete space: its logits are read directly
        # (predict() builds a masked distribution object per call).
        actor_critic = all(hasattr(policy, k) for k in ("mlp_extractor", "action_net", "pi_features_extractor"))
        discrete = isinstance(getattr(policy, "action_space", None), gym.spaces.Discrete)
        self._policy = policy if actor_critic and discrete else None

    def __call__(self, env, agent):
        obs = env.observe(agent)
        mask = obs["action_mask"].astype(bool)
        if self._policy is not None:
            return self._choose(self._logits(obs["observation"]), mask)
        kwargs = {"action_masks": mask} if self._masked else {}
        action, _ = self.model.predict(obs["observation"], deterministic=self.deterministic, **kwargs)
        action = int(np.asarray(action).reshape(-1)[0])
        if not mask[action]:
            action = sample_action(obs["action_mask"], self.rng)
        return action

    def _logits(self, observation: np.ndarray) -> np.ndarray:
        """The policy's action logits for one observation (what its ``predict`` samples from)."""
        return policy_logits(self._policy, observation[None])[0]

    def _choose(self, logits: np.ndarray, mask: np.ndarray) -> int:
        """The most likely legal action, or one sampled from the masked softmax with this opponent's rng."""
        legal = np.flatnonzero(mask)
        z = logits[legal].astype(np.float64)
        if self.deterministic:
            return int(legal[np.argmax(z)])
        p = np.exp(z - z.max())
        cdf = np.cumsum(p)
        return int(legal[min(np.searchsorted(cdf, self.rng.random() * cdf[-1], side="right"), len(legal) - 1)])


def policy_logits(policy, observations: np.ndarray) -> np.ndarray:
    """An SB3 actor-critic policy's action logits ``(n, actions)``, float32, for a batch of
    observations (what its ``predict`` samples from)."""
    import torch
    from stable_baselines3.common.policies import BaseModel

    with torch.no_grad():
        obs = torch.as_tensor(observations, device=policy.device)
        # the actor's features alone, whether or not the critic shares the extractor
        features = BaseModel.extract_features(policy, obs, policy.pi_features_extractor)
        return policy.action_net(policy.mlp_extractor.forward_actor(features)).float().cpu().numpy()


def _snapshot(model):
    """A frozen CPU copy of an SB3 model's policy (or of ``model``)."""
    policy = getattr(model, "policy", model)
    if callable(getattr(policy, "save", None)) and callable(getattr(type(policy), "load", None)):
        buffer = io.BytesIO()
        policy.save(buffer)
        buffer.seek(0)
        frozen = type(policy).load(buffer, device="cpu")
        frozen.set_training_mode(False)
        return frozen
    return copy.deepcopy(model)


class CallableOpponent(Opponent):
    """A plain function ``fn(env, agent) -> action`` as an [`Opponent`][ggpzoo.training.single_agent.Opponent]."""

    def __init__(self, fn: Callable[[AECEnv, str], int]):
        super().__init__()
        self.fn = fn

    def __call__(self, env, agent):
        return self.fn(env, agent)


class OpponentPool(Opponent):
    """One of several opponents, drawn at each episode start with the given weights.

    Args:
        opponents: opponents or specs for [`make_opponent()`][ggpzoo.training.single_agent.make_opponent].
        weights: relative draw weights, one per opponent (default: equal).
        max_size: with [`add()`][ggpzoo.training.single_agent.OpponentPool.add], the most opponents kept; the oldest
            added ones go first
            (the first ``keep`` given here are never dropped).
    """

    def __init__(self, opponents: Sequence, weights: Sequence[float] | None = None, max_size: int | None = None):
        super().__init__()
        self.opponents = [make_opponent(o) for o in opponents]
        if not self.opponents:
            raise ValueError("an OpponentPool needs at least one opponent")
        self.weights = [1.0] * len(self.opponents) if weights is None else [float(w) for w in weights]
        if len(self.weights) != len(self.opponents) or any(not w >= 0 for w in self.weights) or sum(self.weights) <= 0:
            raise ValueError(
                f"weights must be one non-negative number per opponent, not all 0; got {weights!r} "
                f"for {len(self.opponents)} opponents"
            )
        if max_size is not None and max_size < len(self.opponents):
            raise ValueError(f"max_size ({max_size}) is below the number of opponents given ({len(self.opponents)})")
        self.max_size = max_size
        self.keep = len(self.opponents)
        self.current = self.opponents[0]

    def add(self, opponent, weight: float = 1.0) -> None:
        """Add an opponent (e.g. a new snapshot), dropping the oldest added one beyond ``max_size``."""
        self.opponents.append(make_opponent(opponent))
        self.weights.append(float(weight))
        if self.max_size is not None and len(self.opponents) > self.max_size:
            del self.opponents[self.keep], self.weights[self.keep]

    def reset(self, rng):
        super().reset(rng)
        p = np.asarray(self.weights) / sum(self.weights)
        self.current = self.opponents[rng.choice(len(self.opponents), p=p)]
        self.current.reset(rng)

    def __call__(self, env, agent):
        return self.current(env, agent)


def make_opponent(spec) -> Opponent:
    """An [`Opponent`][ggpzoo.training.single_agent.Opponent] from an agent spec string (``"random"``, ``"greedy"``,
    ``"mcts:200"``, ``"sb3:model.zip"``: see [`ggpzoo.agents.make_agent()`][ggpzoo.agents.make_agent]), a
    [`ggpzoo.agents.Agent`][ggpzoo.agents.Agent], an [`Opponent`][ggpzoo.training.single_agent.Opponent], a model with
    ``predict`` (a frozen copy is *not* made), a list of those (an
    [`OpponentPool`][ggpzoo.training.single_agent.OpponentPool]) or a callable
    ``(env, agent) -> action``."""
    if isinstance(spec, Opponent):
        return spec
    if isinstance(spec, str):
        named = {"random": RandomOpponent, "greedy": GreedyOpponent}
        if spec in named:
            return named[spec]()
        from ggpzoo.agents import AgentSpecError, make_agent

        if not spec.startswith("sb3:"):  # a model is checked against its env at the first move
            try:
                make_agent(spec, next(iter(ENVS)))  # check the spec now, not at the first move
            except AgentSpecError as e:
                raise ValueError(f"unknown opponent {spec!r}: {e}") from None
        return AgentOpponent(spec)
    from ggpzoo.agents import Agent

    if isinstance(spec, Agent):
        return AgentOpponent(spec)
    if isinstance(spec, (list, tuple)):
        return OpponentPool(spec)
    if callable(getattr(spec, "predict", None)):
        return PolicyOpponent(spec)
    if callable(spec):
        return CallableOpponent(spec)
    raise TypeError(
        f"opponent must be an agent spec, a ggpzoo Agent, an Opponent, a model with predict(), a list or a callable; "
        f"got {type(spec).__name__}"
    )


# ----------------------------------------------------------------------------- the env
def _action_id(action) -> int:
    """``action`` as an int: a Python or numpy integer, or an integer array of one entry (as
    SB3 passes it); floats, bools and anything else raise ValueError (never rounded)."""
    a = np.asarray(action) if not isinstance(action, int) else action
    if isinstance(a, (bool, np.bool_)) or (isinstance(a, np.ndarray) and (a.size != 1 or a.dtype.kind not in "iu")):
        raise ValueError(f"action must be an integer action id, got {action!r}")
    return int(a) if isinstance(a, int) else int(a.reshape(-1)[0])


class SingleAgentEnv(gym.Env):
    """The learner's side of a two-player AEC game, as a Gymnasium env.

    Observation: the AEC env's ``observation`` planes for the learner (its side's view).
    Action: the AEC env's action. [`action_masks()`][ggpzoo.training.single_agent.SingleAgentEnv.action_masks] gives the
    legal ones (for ``MaskablePPO``); an illegal one ends the episode at once (``terminated``) with
    ``illegal_reward`` and ``info["illegal_action"] = True``, and is never sent to the
    AEC env.

    Reward: the learner's own, everything booked for it since its last action, the
    opponent's replies included. Episodes end (``terminated``) when the game ends by the
    rules on either side's move, or are ``truncated`` by the AEC env's ``max_steps``.
    ``info`` holds ``"learner"`` (its side), ``"goal"`` and ``"opponent_goal"`` and, at
    the end, ``"outcome"``: +1 if the learner's goal is the higher one, -1 if lower, 0.

    ``reset(options={"state": state})`` starts from a game state (``get_state()`` of a
    ggpzoo env; for a GDL game also a list of the fluents that hold) instead of the start
    position; the opponent moves first if it is to move. An opponent spec that cannot play
    the game (a typo, ``"baseline"`` for a sheet with no network...) is a ValueError at once.

    Args:
        env: an env name (a key of ``ggpzoo.envs.ENVS``, built by
            [`make_aec_env()`][ggpzoo.training.single_agent.make_aec_env]), a
            two-role GDL game (``"gdl:SHEET"`` or a loaded [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game], built as
            ``gdl.env(game)`` in the reward wrapper ``reward``) or an AEC env (e.g.
            ``AmazonsTurnDecomposition(GoalDeltaReward(amazons_v0.env()))``, or a GDL env, whose
            observation's ``planes`` are left out: the learner sees the fluent vector).
        opponent: see [`make_opponent()`][ggpzoo.training.single_agent.make_opponent]; default ``"random"``. An opponent
            object
            keeps per-game state (a pool's current draw, a planned turn): give each env
            of a VecEnv its own, e.g. by building it in the env factory.
        learner: ``"alternate"`` (white, black, white... per episode), ``"white"`` or ``"black"``.
        reward: with an env name or a GDL game, the reward wrapper's name (``"winloss"``, ``"goal"``,
            ``"delta"``, ``"delta_zero_sum"``); None keeps the env's win/loss rewards.
        decompose: with an env name, whether to decompose actions into cell choices (see
            [`make_aec_env()`][ggpzoo.training.single_agent.make_aec_env]; default: amazons_v0 only).
        shaping: with an env name, the weight of [`PotentialShaping`][ggpzoo.wrappers.PotentialShaping]
            (default 0: none).
        reach_planes: with an Amazons or Mad Bishops env name, add [`ReachPlanes`][ggpzoo.wrappers.ReachPlanes].
        render_mode: ``None`` or ``"ansi"``.
        env_kwargs: with an env name or a GDL game, more arguments for ``env()`` (e.g.
            ``max_steps``; for a GDL game also ``backend``).
        illegal_reward: the learner's reward for an illegal action (default -1).
    """

    metadata = {"render_modes": ["ansi"]}

    def __init__(
        self,
        env: str | AECEnv,
        opponent="random",
        learner: str = "alternate",
        reward: str | None = None,
        decompose: bool | None = None,
        shaping: float = 0.0,
        reach_planes: bool = False,
        render_mode: str | None = None,
        env_kwargs: dict | None = None,
        illegal_reward: float = -1.0,
    ):
        super().__init__()
        if learner not in SIDES:
            raise ValueError(f"learner must be one of {SIDES}, got {learner!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be 'ansi' or None, got {render_mode!r}")
        if not isinstance(env, AECEnv):
            try:
                _game_spec(env)  # an env name or a loaded sheet
            except ValueError:
                if isinstance(env, str):
                    raise
                raise TypeError(
                    "env must be an env name, a GDL game (ggpzoo.gdl.Game) or a PettingZoo AEC env, "
                    f"got {type(env).__name__}"
                ) from None
            env = make_aec_env(
                env,
                reward=reward,
                decompose=decompose,
                shaping=shaping,
                reach_planes=reach_planes,
                render_mode=render_mode,
                **(env_kwargs or {}),
            )
        elif reward is not None or decompose is not None or shaping or reach_planes or env_kwargs:
            raise ValueError(
                "reward, decompose, shaping, reach_planes and env_kwargs apply to an env name; "
                "wrap the AEC env yourself"
            )
        agents = list(env.possible_agents)
        if len(agents) != 2:
            raise ValueError(f"SingleAgentEnv needs a two-player env, got possible_agents={agents}")
        space = env.observation_space(agents[0])
        self.game_spec = _env_spec(env)  # None for an env that is not ggpzoo's
        self.game = getattr(self.game_spec, "game", None)  # a sheet's loaded game
        keys = {"observation", "action_mask", "planes"}  # a sheet's "planes" are not used here
        if not isinstance(space, gym.spaces.Dict) or not {"observation", "action_mask"} <= set(space.spaces) <= keys:
            raise ValueError(f"the env's observations must be dicts of 'observation' and 'action_mask', got {space}")
        self.aec_env = env
        self.opponent = make_opponent(opponent)
        self._check_opponent(self.opponent)
        self.learner_side = learner
        self.render_mode = render_mode
        self.observation_space = space["observation"]
        self.action_space = env.action_space(agents[0])
        self.learner: str = agents[0]
        self.illegal_reward = float(illegal_reward)
        self._episode = 0
        self._mask = np.zeros(self.action_space.n, bool)
        self._illegal = False
        self._carried = 0.0

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if options and "state" in options:  # checked before anything changes
            check = getattr(self.aec_env.unwrapped, "checked_state", None)
            if check is None:
                raise ValueError("options['state'] needs a ggpzoo env (its get_state() value)")
            check(options["state"])
        super().reset(seed=seed)
        if seed is not None:
            self._episode = 0
        white, black = self.aec_env.possible_agents
        if self.learner_side == "alternate":
            self.learner = white if self._episode % 2 == 0 else black
        else:
            self.learner = white if self.learner_side == "white" else black
        self._episode += 1
        self._illegal = False
        self.opponent.reset(self.np_random)
        self.aec_env.reset(seed=seed)
        if options and "state" in options:
            self.aec_env.set_state(options["state"])
        self._play_opponent()
        if self._over():
            raise RuntimeError("the game ended before the learner's first move")
        # booked for the learner before its first action (the opponent's opening move):
        # paid with its first step, or a gymnasium episode would lose it
        self._carried = float(self.aec_env._cumulative_rewards.get(self.learner, 0.0))
        return self._observe(), self._info()

    def step(self, action):
        env = self.aec_env
        if not env.agents or env.agent_selection != self.learner or self._over():
            raise RuntimeError("step() called after the episode ended; call reset()")
        action = _action_id(action)
        if not (0 <= action < len(self._mask) and self._mask[action]):
            self._illegal = True
            info = self._info() | {"illegal_action": True, "outcome": -1}
            reward, self._carried = self.illegal_reward + self._carried, 0.0
            return self._observe(), reward, True, False, info
        env.step(action)
        self._play_opponent()
        learner = self.learner
        reward = float(env._cumulative_rewards.get(learner, 0.0)) + self._carried
        self._carried = 0.0
        terminated = bool(env.terminations.get(learner, True))
        truncated = bool(env.truncations.get(learner, False)) and not terminated
        return self._observe(), reward, terminated, truncated, self._info()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, as a bool array (what ``MaskablePPO`` asks for)."""
        return self._mask.copy()

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() called without a render_mode; pass render_mode='ansi'")
            return None
        return self.aec_env.render()

    def close(self):
        self.aec_env.close()

    # ------------------------------------------------------------------ opponents
    def set_opponent(self, opponent) -> None:
        """Play ``opponent`` (see [`make_opponent()`][ggpzoo.training.single_agent.make_opponent]) from its next move
        on; it is reset
        (seeded) at the next episode."""
        opponent = make_opponent(opponent)
        self._check_opponent(opponent)
        self.opponent = opponent

    def add_opponent(self, opponent, weight: float = 1.0) -> None:
        """Add ``opponent`` to the [`OpponentPool`][ggpzoo.training.single_agent.OpponentPool] being played (for
        ``VecEnv.env_method``)."""
        if not isinstance(self.opponent, OpponentPool):
            raise TypeError(
                f"add_opponent needs an OpponentPool opponent, this env plays {type(self.opponent).__name__}"
            )
        opponent = make_opponent(opponent)
        self._check_opponent(opponent)
        self.opponent.add(opponent, weight)

    # ------------------------------------------------------------------ helpers
    def _check_opponent(self, opponent: Opponent) -> None:
        """An opponent from an agent spec must be able to play the game (now, not at the first move)."""
        if self.game_spec is None:
            return
        from ggpzoo.agents import AgentSpecError, make_agent

        for spec in _opponent_specs(opponent):
            try:
                make_agent(spec, self.game_spec)
            except AgentSpecError as e:
                raise ValueError(f"opponent {spec!r} cannot play {self.game_spec.name}: {e}") from None

    def _over(self) -> bool:
        env = self.aec_env
        a = self.learner
        return self._illegal or not env.agents or env.terminations.get(a, True) or env.truncations.get(a, True)

    def _play_opponent(self) -> None:
        """Let the opponent move until the learner is to move or the game is over."""
        env = self.aec_env
        while not self._over() and env.agent_selection != self.learner:
            agent = env.agent_selection
            env.step(self.opponent(env, agent))

    def _observe(self) -> np.ndarray:
        obs = self.aec_env.observe(self.learner)
        self._mask = obs["action_mask"].astype(bool) if not self._illegal else np.zeros_like(self._mask)
        return obs["observation"]

    def _info(self) -> dict:
        env, me = self.aec_env, self.learner
        other = next(a for a in env.possible_agents if a != me)
        info = {
            "learner": me,
            "goal": env.infos[me]["goal"] if me in env.infos else None,
            "opponent_goal": env.infos[other]["goal"] if other in env.infos else None,
        }
        if self._over() and info["goal"] is not None and info["opponent_goal"] is not None:
            info["outcome"] = int(np.sign(info["goal"] - info["opponent_goal"]))
        return info


# ----------------------------------------------------------------------------- evaluation
def evaluate(model, env, opponent="random", games: int = 100, *, seed: int = 0, parallel: int = 16, **kwargs) -> dict:
    """Play ``games`` games of ``model`` (a ``MaskablePPO`` or its policy: ``predict`` with
    ``action_masks``), its most likely legal action, against ``opponent``, half as the first
    side and half as the second, through [`SingleAgentEnv`][ggpzoo.training.single_agent.SingleAgentEnv] (``parallel``
    games in lockstep, so each policy call is batched). ``env`` and ``kwargs``: what
    [`SingleAgentEnv`][ggpzoo.training.single_agent.SingleAgentEnv] takes (an env name, a GDL game...). Game ``k`` is
    seeded ``seed + k``; its opponent is made anew for each game.

    Returns ``{"wins", "draws", "losses", "games", "win_rate", "ci95"}`` (wins by the goals;
    ``win_rate`` counts wins only; the interval is Wilson's), as
    [`ggpzoo.training.selfplay.evaluate()`][ggpzoo.training.selfplay.evaluate] does for the batched envs.
    """
    from ggpzoo.tools.arena import wilson

    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if isinstance(env, AECEnv):
        raise TypeError("evaluate builds its own games: give an env name or a GDL game, not an AEC env")
    envs = [SingleAgentEnv(env, opponent=copy.deepcopy(opponent), **kwargs) for _ in range(min(parallel, games))]
    obs: list = [None] * len(envs)
    outcomes: list[int] = []
    started = 0

    def start(i: int) -> None:  # game k: the learner is on the first side for even k
        nonlocal started
        envs[i].learner_side = "white" if started % 2 == 0 else "black"
        obs[i], _ = envs[i].reset(seed=seed + started)
        started += 1

    for i in range(len(envs)):
        start(i)
    live = list(range(len(envs)))
    while live:
        batch = np.stack([obs[i] for i in live])
        masks = np.stack([envs[i].action_masks() for i in live])
        actions, _ = model.predict(batch, action_masks=masks, deterministic=True)
        still = []
        for i, action in zip(live, np.asarray(actions).reshape(-1), strict=True):
            obs[i], _, terminated, truncated, info = envs[i].step(int(action))
            if terminated or truncated:
                outcomes.append(int(info.get("outcome", 0)))
                if started < games:
                    start(i)
                    still.append(i)
            else:
                still.append(i)
        live = still
    for e in envs:
        e.close()
    wins, draws = outcomes.count(1), outcomes.count(0)
    return {
        "wins": wins,
        "draws": draws,
        "losses": outcomes.count(-1),
        "games": len(outcomes),
        "win_rate": wins / len(outcomes),
        "ci95": wilson(wins, len(outcomes)),
    }
