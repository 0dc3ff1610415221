"""Batched self-play envs for training at the engine's speed, for every game of two roles.

[`ggpzoo.engine.selfplay.SelfPlayGames`][ggpzoo.engine.selfplay.SelfPlayGames] holds N games in arrays, the learner on
one seat of each; this module puts it behind the two vector-env interfaces RL libraries use:

* [`SelfPlayVecEnv`][ggpzoo.training.selfplay.SelfPlayVecEnv] - stable-baselines3's ``VecEnv``: ``MaskablePPO`` trains
  on it unchanged (``env_method("action_masks")`` returns the N masks from one call);
* [`SelfPlayVectorEnv`][ggpzoo.training.selfplay.SelfPlayVectorEnv] - Gymnasium's ``VectorEnv`` (``autoreset_mode``
  same-step: ``infos["final_obs"]`` holds the ended episodes' last observations), with Dict
  observations ``{"observation", "action_mask"}`` as every ggpzoo env;

and gives the opponents that are not built in, each playing every game that waits for it
in one call:

* [`PolicySnapshot`][ggpzoo.training.selfplay.PolicySnapshot] - a frozen copy of an SB3 policy (the learner now), one
  batched forward pass;
* [`AgentOpponents`][ggpzoo.training.selfplay.AgentOpponents] - a [`ggpzoo.agents`][ggpzoo.agents] agent
  (``"mcts:200"``), game by game.

[`evaluate()`][ggpzoo.training.selfplay.evaluate] plays a policy against an opponent in batches and returns the win rate
with its 95% Wilson interval.

    from sb3_contrib import MaskablePPO
    from ggpzoo.training.selfplay import SelfPlayVecEnv
    env = SelfPlayVecEnv("skirmish_v0", num_envs=64, reward="delta_zero_sum", opponents=["random", "greedy"])
    model = MaskablePPO("MlpPolicy", env)
    env.add_snapshot(model)            # the learner's current weights join the pool
    model.learn(100_000)

A GDL game trains the same way, ``SelfPlayVecEnv("gdl:tictactoe", num_envs=16)``: an MLP on its
fluent vector (games cut after `ggpzoo.tools.arena.GDL_MAX_STEPS` joint moves by default).

Rewards, observations and masks are those of
[`ggpzoo.training.single_agent.SingleAgentEnv`][ggpzoo.training.single_agent.SingleAgentEnv] with the same options (the
reward wrappers, potential shaping, reach planes and turn decompositions call the same kernel-layer functions).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium.vector import AutoresetMode

from ggpzoo.engine.selfplay import BUILTIN_OPPONENTS, SelfPlayGames, check_seed
from ggpzoo.envs import spec as _spec
from ggpzoo.envs.gamespec import ROLE, GameSpec
from ggpzoo.tools.arena import GDL_MAX_STEPS
from ggpzoo.training.single_agent import _snapshot, policy_logits

__all__ = [
    "SelfPlayVecEnv",
    "SelfPlayVectorEnv",
    "PolicySnapshot",
    "AgentOpponents",
    "make_games",
    "evaluate",
]


# ----------------------------------------------------------------------------- opponents
class PolicySnapshot:
    """An SB3 actor-critic policy (``MaskablePPO``'s, ``PPO``'s) as a batched opponent: the
    masked softmax of its logits, sampled (or its argmax with ``deterministic``), for every
    waiting game in one forward pass. Sees what the learner sees, from its own seat.

    Args:
        model: an SB3 model or policy; ``copy=True`` (default) plays a frozen CPU copy of
            its weights now (a snapshot), ``copy=False`` the live policy.
        deterministic: the most likely legal action instead of a sample.
        seed: the sampling generator's seed.
    """

    takes = "observation"

    def __init__(self, model, deterministic: bool = False, copy: bool = True, seed: int | None = None):
        policy = getattr(model, "policy", model)
        if not all(hasattr(policy, k) for k in ("mlp_extractor", "action_net", "pi_features_extractor")):
            raise TypeError(f"PolicySnapshot plays an SB3 actor-critic policy, got {type(policy).__name__}")
        if copy:
            policy = _snapshot(model)  # the AEC path's frozen copy
        self.policy = policy
        self.deterministic = bool(deterministic)
        self.rng = np.random.default_rng(seed)
        self.name = "snapshot"

    def logits(self, observations: np.ndarray) -> np.ndarray:
        """The policy's action logits ``(n, actions)`` for a batch of observations."""
        return policy_logits(self.policy, observations)

    def act_batch(self, observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        return masked_choice(self.logits(observations), masks, self.rng, self.deterministic)

    def __repr__(self) -> str:
        return f"<PolicySnapshot {self.name}>"


def masked_choice(logits: np.ndarray, masks: np.ndarray, rng: np.random.Generator, deterministic: bool) -> np.ndarray:
    """Per row, the argmax (``deterministic``) or a sample of the softmax of ``logits`` over the
    actions where ``masks`` is 1 (each row has one at least)."""
    z = np.where(masks.astype(bool), logits.astype(np.float64), -np.inf)
    if deterministic:
        return z.argmax(axis=1)
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    cdf = np.cumsum(p, axis=1)
    u = rng.random(len(z))[:, None] * cdf[:, -1:]
    return np.minimum((cdf <= u).sum(axis=1), masks.shape[1] - 1)


class AgentOpponents:
    """A [`ggpzoo.agents`][ggpzoo.agents] agent that searches game states (``"greedy"``, ``"mcts:200"``) as
    an opponent: it picks a whole game action in each waiting game, one game after the
    other. Built for env ``name`` (a name or a [`GameSpec`][ggpzoo.envs.gamespec.GameSpec]) from a spec
    string ([`ggpzoo.agents.make_agent()`][ggpzoo.agents.make_agent]) or given as an agent whose ``takes``
    is ``"state"``. Where both roles of a GDL game choose at once, the agent is asked for its
    role's move (``agent(state, role=...)``)."""

    takes = "state"

    def __init__(self, agent, name, seed: int | None = None):
        from ggpzoo.agents import Agent, make_agent

        sp = name if isinstance(name, GameSpec) else _spec(name)
        if isinstance(agent, str):
            agent = make_agent(agent, _agent_env(name, sp), seed=seed)
        if not isinstance(agent, Agent) or agent.takes != "state":
            raise TypeError(f"AgentOpponents plays an agent that searches game states (mcts, greedy), got {agent!r}")
        self.agent = agent
        self.name = agent.name
        self.roles = sp.agents

    def act_states(self, boards: np.ndarray, auxs: np.ndarray, roles: np.ndarray) -> np.ndarray:
        out = []
        for b, x, r in zip(boards, auxs, roles, strict=True):
            if x[ROLE] == r:
                out.append(self.agent((b, x)))
            else:  # both roles choose: this role's move
                out.append(self.agent((b, x), role=self.roles[int(r)]))
        return np.array(out, np.int64)

    def __repr__(self) -> str:
        return f"<AgentOpponents {self.name}>"


def _agent_env(name, sp: GameSpec):
    """What `make_agent` takes for game ``name``: its name (a spec's, when it names the same spec),
    else the spec."""
    if isinstance(name, str):
        return name
    try:
        return sp.name if _spec(sp.name) is sp else sp
    except ValueError:
        return sp


def _opponent(o, name, seed: int | None):
    """A pool entry: built-in names pass as they are; other agent specs become `AgentOpponents`."""
    if isinstance(o, str) and o not in BUILTIN_OPPONENTS:
        return AgentOpponents(o, name, seed)
    return o


def make_games(
    name, num_envs: int, *, opponents=("random",), seed: int | None = None, max_steps=GDL_MAX_STEPS, **kwargs
) -> SelfPlayGames:
    """[`SelfPlayGames`][ggpzoo.engine.selfplay.SelfPlayGames], with agent specs such as ``"mcts:200"``
    accepted in ``opponents``, and games cut after ``max_steps`` moves
    (`ggpzoo.tools.arena.GDL_MAX_STEPS`, 2,000, by default: a GDL sheet's games need not end;
    the hand-written games end well before)."""
    if isinstance(opponents, str) or hasattr(opponents, "takes"):
        opponents = [opponents]
    opponents = [_opponent(o, name, seed) for o in opponents]
    return SelfPlayGames(name, num_envs, opponents=opponents, seed=seed, max_steps=max_steps, **kwargs)


# ----------------------------------------------------------------------------- SB3
def _sb3_base():
    from stable_baselines3.common.vec_env import VecEnv

    return VecEnv


class _VecEnvMixin:
    """The batched self-play env behind stable-baselines3's ``VecEnv`` methods."""

    def _setup(self, name, num_envs, kwargs):
        self.games = make_games(name, num_envs, **kwargs)
        g = self.games
        space = gym.spaces.Box(0, g.spec.obs_high, g.observation_shape, g.obs_dtype)
        return space, gym.spaces.Discrete(g.num_actions)

    def add_snapshot(self, model, weight: float = 1.0, max_snapshots: int | None = None) -> PolicySnapshot:
        """A frozen copy of ``model``'s policy joins the pool with ``weight``; with
        ``max_snapshots``, the oldest snapshot goes when there are more."""
        snap = PolicySnapshot(model, seed=int(self.games._rng.integers(2**63)))
        pool = self.games.opponents
        snapshots = sum(isinstance(o, PolicySnapshot) for o in pool)
        snap.name = f"snapshot-{snapshots + 1}"
        keep = sum(not isinstance(o, PolicySnapshot) for o in pool)
        max_size = None if max_snapshots is None else keep + max_snapshots
        self.games.add_opponent(snap, weight, max_size=max_size, keep=keep)
        return snap

    def action_masks(self) -> np.ndarray:
        """The learner's int8 masks ``(N, actions)``."""
        return self.games.action_masks()


class BatchedVecEnv:
    """What a stable-baselines3 ``VecEnv`` of N games held in one object shares: the class is
    made a ``VecEnv`` subclass when first built (so importing it needs no SB3), and the
    attribute and method calls SB3 makes per env go to that one object
    ([`SelfPlayVecEnv`][ggpzoo.training.selfplay.SelfPlayVecEnv])."""

    _with_base: type | None = None  # this class with SB3's VecEnv as a base, made once

    def __new__(cls, *args, **kwargs):
        base = _sb3_base()
        if not issubclass(cls, base):
            if cls.__dict__.get("_with_base") is None:
                made = type(cls.__name__, (cls, base), {"__module__": cls.__module__, "__doc__": cls.__doc__})
                cls._with_base = made
            cls = cls.__dict__["_with_base"]
        return object.__new__(cls)

    def close(self) -> None:
        pass

    def get_attr(self, attr_name: str, indices=None) -> list:
        return [getattr(self, attr_name)] * len(list(self._get_indices(indices)))

    def set_attr(self, attr_name: str, value, indices=None) -> None:
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices=None, **method_kwargs) -> list:
        """``env_method("action_masks")`` (sb3-contrib's call) returns the N masks from one
        batched call; any other method of this env is called once, its result repeated."""
        rows = list(self._get_indices(indices))
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        if method_name == "action_masks":
            return list(result[rows])
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class, indices=None) -> list[bool]:
        return [False] * len(list(self._get_indices(indices)))


class SelfPlayVecEnv(_VecEnvMixin, BatchedVecEnv):
    """N self-play games as a stable-baselines3 ``VecEnv`` (the class is made a ``VecEnv``
    subclass when first built, so importing this module needs no SB3).

    Args:
        name: a ggpzoo env name, ``gdl:SHEET`` or a [`GameSpec`][ggpzoo.envs.gamespec.GameSpec]: any
            game of two roles.
        num_envs: how many games (the batch).
        **kwargs: [`SelfPlayGames`][ggpzoo.engine.selfplay.SelfPlayGames]'s options: ``reward``,
            ``shaping``, ``decompose``, ``reach_planes``, ``opponents`` (also agent specs
            such as ``"mcts:200"``), ``weights``, ``opening_plies``, ``seed``, ``max_steps``
            (default `ggpzoo.tools.arena.GDL_MAX_STEPS`, see `make_games()`).

    ``step`` returns SB3's ``(obs, rewards, dones, infos)``; a game that ended restarts at
    once, and its ``infos[i]`` holds ``terminal_observation``, ``goals``, ``learner`` (its
    role), ``outcome`` (+1/0/-1), ``opponent`` (the pool entry's name) and
    ``TimeLimit.truncated`` (cut by ``max_steps``).
    """

    def __init__(self, name: str, num_envs: int = 64, **kwargs):
        obs_space, action_space = self._setup(name, num_envs, kwargs)
        self.render_mode = None
        _sb3_base().__init__(self, num_envs, obs_space, action_space)
        self._actions = None

    def __reduce__(self):
        raise TypeError("a SelfPlayVecEnv is not picklable: it holds N games in one process")

    def seed(self, seed: int | None = None):
        """SB3's ``seed``: used at the next ``reset``; a seed that is not None or an integer in
        0..2**63 - 1 is refused here, not at that reset."""
        if seed is not None:
            check_seed(seed)
        return _sb3_base().seed(self, seed)

    def reset(self):
        seed = self._seeds[0]
        if seed is not None:
            self.games.seed(seed)
        self._reset_seeds()
        obs, _ = self.games.reset()
        return obs

    def step_async(self, actions) -> None:
        self._actions = actions

    def step_wait(self):
        obs, rewards, ended, info = self.games.step(self._actions)
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(ended):
            o = int(info["opponent"][i])
            pool = self.games.opponents
            infos[i] = {
                "terminal_observation": info["final_observation"][i],
                "goals": tuple(int(g) for g in info["goals"][i]),
                "learner": int(info["learner"][i]),
                "outcome": int(info["outcome"][i]),
                "opponent": _label(pool[o]) if o < len(pool) else "?",
                "TimeLimit.truncated": bool(info["truncated"][i]),
            }
        return obs, rewards, ended, infos


def _label(opponent) -> str:
    return opponent if isinstance(opponent, str) else getattr(opponent, "name", type(opponent).__name__)


# ----------------------------------------------------------------------------- Gymnasium
class SelfPlayVectorEnv(_VecEnvMixin, gym.vector.VectorEnv):
    """N self-play games as a Gymnasium ``VectorEnv``.

    Observations are dicts of batched arrays, ``{"observation": (N, H, W, C), "action_mask":
    (N, actions) int8}``; actions an integer array ``(N,)``. Autoreset mode ``SAME_STEP``: a
    game that ends restarts in the same step, its last observation in
    ``infos["final_obs"][i]`` (with ``infos["_final_obs"][i]`` True) and its goals, the
    learner's role and the outcome in ``infos["final_info"][i]``; a game cut by ``max_steps``
    is ``truncated``, not ``terminated``. Arguments as
    [`SelfPlayVecEnv`][ggpzoo.training.selfplay.SelfPlayVecEnv].
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, name: str, num_envs: int = 64, **kwargs):
        obs_space, action_space = self._setup(name, num_envs, kwargs)
        self.num_envs = num_envs
        self.single_observation_space = gym.spaces.Dict(
            {"observation": obs_space, "action_mask": gym.spaces.Box(0, 1, (action_space.n,), np.int8)}
        )
        self.single_action_space = action_space
        self.observation_space = gym.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gym.vector.utils.batch_space(action_space, num_envs)
        self.metadata = dict(self.metadata)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.games.seed(seed)  # a bad seed: ValueError here, before anything changes
        obs, masks = self.games.reset()
        return {"observation": obs, "action_mask": masks}, {}

    def step(self, actions):
        obs, rewards, ended, info = self.games.step(actions)
        infos: dict[str, Any] = {}
        if ended.any():
            final_obs = np.empty(self.num_envs, dtype=object)
            final_info = np.empty(self.num_envs, dtype=object)
            for i in np.flatnonzero(ended):
                final_obs[i] = {
                    "observation": info["final_observation"][i],
                    "action_mask": np.zeros(self.single_action_space.n, np.int8),
                }
                final_info[i] = {k: info[k][i] for k in ("goals", "learner", "outcome")}
            infos = {"final_obs": final_obs, "_final_obs": ended, "final_info": final_info, "_final_info": ended}
            truncated = info["truncated"]
        else:
            truncated = np.zeros(self.num_envs, np.bool_)
        obs = {"observation": obs, "action_mask": self.games.action_masks()}
        return obs, rewards, ended & ~truncated, truncated, infos


# ----------------------------------------------------------------------------- evaluation
def evaluate(
    policy,
    name: str,
    opponent="random",
    games: int = 300,
    *,
    seed: int = 0,
    deterministic: bool = True,
    **view,
) -> dict:
    """Play ``games`` games of ``policy`` (an SB3 model or policy, or any object with
    ``act_batch(obs, masks)``) against ``opponent`` (``"random"``, ``"greedy"``, an agent spec
    or an opponent object), all at once, half as white and half as black. ``view``: the
    options the policy was trained with (``decompose``, ``reach_planes``).

    Returns ``{"wins", "draws", "losses", "games", "win_rate", "ci95"}`` (wins by the goals;
    the interval is Wilson's)."""
    from ggpzoo.tools.arena import wilson

    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if callable(getattr(policy, "act_batch", None)):
        player = policy  # plays as it is (``deterministic`` is for SB3 policies)
    else:
        player = PolicySnapshot(policy, copy=False, deterministic=deterministic)
    env = make_games(name, int(games), opponents=[opponent], seed=seed, **view)
    obs, masks = env.reset()
    outcome = np.zeros(games, np.int64)
    done = np.zeros(games, np.bool_)
    while not done.all():
        actions = player.act_batch(obs, masks)
        obs, _, ended, info = env.step(actions)
        if ended.any():
            new = ended & ~done
            outcome[new] = info["outcome"][new]
            done |= ended
        masks = env.action_masks()
    wins, draws = int((outcome > 0).sum()), int((outcome == 0).sum())
    lo, hi = wilson(wins, games)
    return {
        "wins": wins,
        "draws": draws,
        "losses": games - wins - draws,
        "games": int(games),
        "win_rate": wins / games,
        "ci95": (lo, hi),
    }
