"""Batched self-play on a GDL game: `GDLSelfPlayVecEnv`, a stable-baselines3 ``VecEnv``
over `ggpzoo.gdl.batch.GDLVectorGames`.

N games of one two-role compiled sheet, stepped together in numba; the learner holds one
role per game (role 0 in even games and role 1 in odd ones at the start, then the other
role at each new episode of that game), and its opponents' moves are played inside
``step`` between the learner's moves: random play from the batch's ``random_actions``, or
snapshots of the learner (``add_snapshot``, `ggpzoo.training.selfplay.PolicySnapshot`,
one forward pass for every waiting game), drawn per episode from a weighted pool.

What the learner sees and is paid is what `ggpzoo.training.single_agent.SingleAgentEnv`
gives on the same game: the env's observation (one byte per fluent, then a one-hot of the
learner's role), ``action_masks()`` of its legal action ids, and the reward wrapper's
rewards summed since its last move (``reward``: ``"winloss"``, ``"goal"``, ``"delta"``,
``"delta_zero_sum"``; None is the env's +1/-1/0). A model trained on one path loads and
plays on the other.

    from sb3_contrib import MaskablePPO
    from ggpzoo import gdl
    from ggpzoo.training.gdl_selfplay import GDLSelfPlayVecEnv
    env = GDLSelfPlayVecEnv(gdl.load(gdl.game_path("tictactoe")), num_envs=16, seed=0)
    MaskablePPO("MlpPolicy", env).learn(50_000)
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np

from ggpzoo.engine.rewards import REWARD_KINDS
from ggpzoo.gdl.batch import GDLVectorGames
from ggpzoo.training.selfplay import BatchedVecEnv, PolicySnapshot, _label, _sb3_base

__all__ = ["GDLSelfPlayVecEnv"]


def _goal_rewards(kind: int, before: np.ndarray, after: np.ndarray, ended: np.ndarray) -> np.ndarray:
    """`ggpzoo.engine.rewards.goal_reward()` per row, vectorised: goals ``(n, 2)`` as
    (own, opponent's) before and after, ``ended`` by the rules at ``after``."""
    own0, opp0, own1, opp1 = before[:, 0], before[:, 1], after[:, 0], after[:, 1]
    if kind == 0:
        return np.where(ended, np.sign(own1 - opp1), 0).astype(np.float32)
    if kind == 1:
        return np.where(ended, own1 / 100, 0.0).astype(np.float32)
    if kind == 2:
        return ((own1 - own0) / 100).astype(np.float32)
    return (((own1 - own0) - (opp1 - opp0)) / 100).astype(np.float32)


class GDLSelfPlayVecEnv(BatchedVecEnv):
    """N games of a two-role GDL game as a stable-baselines3 ``VecEnv`` (the class is made a
    ``VecEnv`` subclass when first built, so importing this module needs no SB3).

    Args:
        game: a two-role `ggpzoo.gdl.Game` (compiled path), a ``.kif`` path or KIF text.
        num_envs: how many games (the batch).
        opponents: the pool, ``"random"`` entries only (snapshots join with `add_snapshot()`).
        weights: the pool's draw weights (default: equal).
        reward: the reward wrapper's name (``"winloss"``, ``"goal"``, ``"delta"``,
            ``"delta_zero_sum"``), or None for the env's rewards (+1/-1/0 at the end).
        seed: the opponents' and draws' randomness.
        max_steps: the env's ``max_steps`` (a truncation; winloss and goal rewards pay nothing there).

    ``step`` returns SB3's ``(obs, rewards, dones, infos)``; a game that ended restarts at
    once, its ``infos[i]`` holding ``terminal_observation``, ``goals`` (per role),
    ``learner`` (its role's index), ``outcome`` (+1/0/-1 from the goals), ``opponent``
    (the pool entry's name) and ``TimeLimit.truncated``. An action that is not legal for
    the learner raises ``ValueError`` naming the game, and no game moves.
    """

    def __init__(
        self,
        game,
        num_envs: int = 16,
        *,
        opponents=("random",),
        weights=None,
        reward: str | None = None,
        seed: int | None = None,
        max_steps: int | None = None,
    ):
        if isinstance(opponents, str):
            opponents = [opponents]
        opponents = list(opponents)
        if not opponents or any(o != "random" for o in opponents):
            raise ValueError(
                f"GDLSelfPlayVecEnv plays 'random' opponents (and snapshots, with add_snapshot), got {opponents!r}; "
                "use SingleAgentEnv games for the others (mcts:N)"
            )
        weights = [1.0] * len(opponents) if weights is None else [float(w) for w in weights]
        if len(weights) != len(opponents) or not all(np.isfinite(w) and w >= 0 for w in weights) or sum(weights) <= 0:
            raise ValueError(f"weights must be one non-negative number per opponent, not all 0; got {weights!r}")
        if reward is not None and reward not in REWARD_KINDS:
            raise ValueError(f"unknown reward {reward!r}; choose from: {', '.join(REWARD_KINDS)}")
        self.games = g = GDLVectorGames(game, num_envs, auto_reset=False, max_steps=max_steps)
        if len(g.roles) != 2:
            raise ValueError(f"GDLSelfPlayVecEnv needs a two-role game; {g.game.name} has roles {', '.join(g.roles)}")
        self.kind = REWARD_KINDS["winloss" if reward is None else reward]
        self.opponents: list = opponents
        self._weights = weights
        n = num_envs
        self.learner = (np.arange(n) % 2).astype(np.int64)
        self.opponent = np.zeros(n, np.int64)  # index into the pool, drawn per episode
        self.episodes = np.zeros(n, np.int64)
        self._base = np.zeros((n, 2), np.int64)  # (learner's, opponent's) goals where its rewards count from
        self.seed(seed)
        self.render_mode = None
        obs_space = gym.spaces.Box(0, 1, g.single_observation_space.shape, np.int8)
        _sb3_base().__init__(self, n, obs_space, gym.spaces.Discrete(g.max_actions))
        self._actions = None
        self._started = False

    def __reduce__(self):
        raise TypeError("a GDLSelfPlayVecEnv is not picklable: it holds N games in one process")

    def seed(self, seed: int | None = None):
        """Reseed the opponents and draws; seats start over (role 0 in even games)."""
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer or None, got {seed!r}")
        self._rng = np.random.default_rng(seed)
        self.learner = (np.arange(self.num_games) % 2).astype(np.int64)
        self.episodes[:] = 0
        for o in self.opponents:
            if isinstance(o, PolicySnapshot):
                o.rng = np.random.default_rng(int(self._rng.integers(2**63)))
        return [seed] * self.num_games

    @property
    def num_games(self) -> int:
        return self.games.num_games

    # ------------------------------------------------------------------ pool
    def add_snapshot(self, model, weight: float = 1.0, max_snapshots: int | None = None) -> PolicySnapshot:
        """A frozen copy of ``model``'s policy joins the pool with ``weight``; with
        ``max_snapshots``, the oldest snapshot goes when there are more (games playing it
        switch to the entry now at its place until their next episode)."""
        snap = PolicySnapshot(model, seed=int(self._rng.integers(2**63)))
        keep = sum(not isinstance(o, PolicySnapshot) for o in self.opponents)
        snap.name = f"snapshot-{len(self.opponents) - keep + 1}"
        self.opponents.append(snap)
        self._weights.append(float(weight))
        while max_snapshots is not None and len(self.opponents) > keep + max(max_snapshots, 1):
            del self.opponents[keep], self._weights[keep]
            self.opponent = np.where(self.opponent > keep, self.opponent - 1, self.opponent)
        return snap

    def _draw(self, idx: np.ndarray) -> None:
        p = np.asarray(self._weights, np.float64)
        self.opponent[idx] = self._rng.choice(len(p), size=len(idx), p=p / p.sum())

    # ------------------------------------------------------------------ games
    def _goals(self, idx: np.ndarray) -> np.ndarray:
        """(learner's, opponent's) goals now in games ``idx``."""
        g, me = self.games.goals[idx], self.learner[idx]
        return np.stack([g[np.arange(len(idx)), me], g[np.arange(len(idx)), 1 - me]], axis=1)

    def _joint(self, learner_actions: np.ndarray | None) -> np.ndarray:
        """A joint move ``(N, 2)``: the opponents' choices (every live game) and the learner's."""
        g = self.games
        joint = g.random_actions(seed=int(self._rng.integers(2**63)))
        opp = 1 - self.learner
        waiting = (g.to_play == opp) | (g.to_play == -2)
        rows = np.arange(self.num_games)
        for k, o in enumerate(self.opponents):
            if isinstance(o, PolicySnapshot):
                idx = np.flatnonzero(waiting & (self.opponent == k) & ~g.over)
                if len(idx):
                    obs = g.observe(opp)[idx]
                    masks = g.legal_masks()[idx, opp[idx]]
                    joint[idx, opp[idx]] = o.act_batch(obs, masks)
        if learner_actions is not None:
            joint[rows, self.learner] = learner_actions
        return joint

    def _play_opponents(self, ended: np.ndarray, final_goals: np.ndarray, truncated: np.ndarray) -> None:
        """Play the opponents until the learner is to move or the game is over; note the games that end."""
        g = self.games
        for _ in range(100_000):
            waiting = ~g.over & (g.to_play == 1 - self.learner)
            if not waiting.any():
                return
            res = g.step(self._joint(None), which=waiting)
            ended |= res.finished
            final_goals[res.finished] = res.final_goals[res.finished]
            truncated[res.finished] = res.truncated[res.finished]
        raise RuntimeError("the opponents moved 100,000 times in a row")

    def _start(self, idx: np.ndarray) -> None:
        """New episodes in games ``idx`` (the learner's seat already set): opponents' openings played."""
        g = self.games
        which = np.zeros(self.num_games, np.bool_)
        which[idx] = True
        if self._started:
            g.reset(which)
        else:
            g.reset()
        self._draw(idx)
        self._base[idx] = self._goals(idx)
        ended = np.zeros(self.num_games, np.bool_)
        self._play_opponents(ended, np.zeros((self.num_games, 2), np.int64), np.zeros(self.num_games, np.bool_))
        if ended.any():
            raise RuntimeError("a game ended before the learner's first move")

    # ------------------------------------------------------------------ VecEnv
    def reset(self):
        seed = self._seeds[0] if getattr(self, "_seeds", None) else None
        if seed is not None:
            self.seed(seed)
        self._reset_seeds()
        self._start(np.arange(self.num_games))
        self._started = True
        return self._observe()

    def _observe(self) -> np.ndarray:
        return self.games.observe(self.learner)

    def action_masks(self) -> np.ndarray:
        """The learner's int8 masks ``(N, actions)``: its legal ids in each game."""
        return self.games.legal_masks()[np.arange(self.num_games), self.learner]

    def step_async(self, actions) -> None:
        self._actions = actions

    def step_wait(self):
        if not self._started:
            raise RuntimeError("call reset() before step()")
        g, n = self.games, self.num_games
        a = np.asarray(self._actions)
        if a.shape != (n,) or a.dtype == np.bool_ or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({n},), got {a.dtype} {a.shape}")
        masks = self.action_masks()
        bad = (a < 0) | (a >= masks.shape[1])
        if not bad.any():
            bad = masks[np.arange(n), a] == 0
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"action {int(a[i])} of game {i} is illegal for the learner ({g.roles[self.learner[i]]}): "
                f"not in its action mask"
            )
        ended = np.zeros(n, np.bool_)
        final_goals = np.zeros((n, 2), np.int64)
        truncated = np.zeros(n, np.bool_)
        res = g.step(self._joint(a.astype(np.int64)))
        ended |= res.finished
        final_goals[res.finished] = res.final_goals[res.finished]
        truncated[res.finished] = res.truncated[res.finished]
        self._play_opponents(ended, final_goals, truncated)
        rows = np.arange(n)
        after = np.where(ended[:, None], final_goals, g.goals)
        after = np.stack([after[rows, self.learner], after[rows, 1 - self.learner]], axis=1)
        rewards = _goal_rewards(self.kind, self._base, after, ended & ~truncated)
        self._base = after
        infos: list[dict[str, Any]] = [{} for _ in range(n)]
        idx = np.flatnonzero(ended)
        if len(idx):
            terminal = g.observe(self.learner)
            for i in idx:
                o = int(self.opponent[i])
                infos[i] = {
                    "terminal_observation": terminal[i],
                    "goals": tuple(int(x) for x in final_goals[i]),
                    "learner": int(self.learner[i]),
                    "outcome": int(np.sign(after[i, 0] - after[i, 1])),
                    "opponent": _label(self.opponents[o]) if o < len(self.opponents) else "?",
                    "TimeLimit.truncated": bool(truncated[i]),
                }
            self.episodes[idx] += 1
            self.learner[idx] = 1 - self.learner[idx]
            self._start(idx)
        return self._observe(), rewards, ended, infos
