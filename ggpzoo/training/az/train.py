"""Gumbel AlphaZero training: batched self-play with search, a replay buffer, one network.

[`train()`][ggpzoo.training.az.train.train] alternates a move of every self-play game (one
[`GumbelSearch`][ggpzoo.agents.gumbel.GumbelSearch] of all of them, one batched network call per simulation) with
gradient steps on samples of the replay buffer: the policy loss is the cross-entropy to the search's improved policy
``softmax(logits + sigma(completed Q))`` over the legal actions, the value loss the
squared error to the game's outcome (+1, -1, 0) for the role that acted. Every
``checkpoint_minutes`` it writes ``OUT/checkpoint.pt`` (network, optimizer, counters)
and ``OUT/model.json`` + ``OUT/model.pt`` (the network alone, to play: ``az:OUT/model.json``);
every ``eval_minutes`` a row of ``OUT/log.csv`` holds the network's score (alone, no
search) against random and greedy players, beside the gradient steps (``step``), the
self-play positions, the wall-clock ``seconds`` and ``cpu_seconds`` (the process's CPU time,
all threads: a figure that does not depend on how busy the machine was). Each save also keeps a copy of the network as
``OUT/snapshots/minNNN.json`` (NNN: minutes of training so far), for ladders of strength
against training time, and the replay buffer as ``OUT/buffer.npz``. ``resume=True`` goes on
from the checkpoint and the buffer.

Every two-role game where one role chooses at a time trains the same way, hand-written or a
GDL sheet (``env="gdl:SHEET"``): [`SelfPlay`][ggpzoo.training.az.train.SelfPlay] steps the games through the
game protocol of `ggpzoo.engine.dispatch`, and the network is the one the game's
observation calls for ([`network_for()`][ggpzoo.training.az.net.network_for]).
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
import zipfile
from dataclasses import asdict, dataclass, fields, replace

import numpy as np
import torch
from numba import njit

from ggpzoo.agents.gumbel import (
    GumbelSearch,
    best_legal,
    network_input,
    outcome0,
    policy_cells,
    status_error,
    two_role_spec,
)
from ggpzoo.engine.dispatch import OVER, start, status, step
from ggpzoo.engine.rng import next_random, random_legal, stream
from ggpzoo.envs.gamespec import ROLE, STEP
from ggpzoo.tools._progress import Progress
from ggpzoo.training import make_out_folder
from ggpzoo.training.az.net import action_logits, default_width, evaluator, network_for, save_model

__all__ = ["AZConfig", "train", "ReplayBuffer", "net_score", "policy_value_loss", "SelfPlay"]

LOG_FIELDS = (
    "step",
    "positions",
    "games",
    "seconds",
    "cpu_seconds",
    "loss_policy",
    "loss_value",
    "game_length",
    "net_vs_random",
    "net_vs_greedy",
)


@dataclass
class AZConfig:
    """What [`train()`][ggpzoo.training.az.train.train] does; the network's size is fixed by a run's first start.

    Args:
        env: the game.
        simulations: search budget per move.
        games: self-play games played together (the batch of every network call).
        max_considered: the root's Gumbel-Top-k.
        c_scale: sigma's scale of the completed Q-values (mctx's 0.1). The policy target
            ``softmax(logits + sigma(completed Q))`` moves away from the prior only by
            ``(50 + max N) * c_scale`` logits at most: with thousands of legal actions
            (amazons_v0) and 0.1 it stays the prior; 1.0 puts it on the best visited actions.
        channels, blocks: the network's size ([`AZNet`][ggpzoo.training.az.net.AZNet]'s
            channels, 32 by default; a GDL game's [`GDLAZNet`][ggpzoo.training.az.net.GDLAZNet]
            width, 128 by default).
        features: the network also reads the game's feature planes
            ([`feature_planes`][ggpzoo.envs.gamespec.GameSpec]); None: when the game has them.
        batch_size, lr, weight_decay: the optimiser (Adam).
        buffer_size: positions kept for training.
        min_buffer: positions needed before the first gradient step.
        updates_per_move: gradient steps after each move of all games.
        max_moves: a self-play game cut after this many actions is a draw.
        checkpoint_minutes, eval_minutes: how often to save and to measure strength.
        eval_games: games against each of random and greedy per measurement.
        device: ``"cpu"`` or ``"cuda"``.
        seed: seeds the search, the sampling and the network's initial weights.
    """

    env: str
    simulations: int = 16
    games: int = 64
    max_considered: int = 16
    c_scale: float = 0.1
    channels: int | None = None
    blocks: int = 3
    features: bool | None = None
    batch_size: int = 256
    lr: float = 1e-3
    weight_decay: float = 1e-4
    buffer_size: int = 20_000
    min_buffer: int = 256
    updates_per_move: int = 1
    max_moves: int = 1000
    checkpoint_minutes: float = 5.0
    eval_minutes: float = 5.0
    eval_games: int = 32
    device: str = "cpu"
    seed: int = 0


# ----------------------------------------------------------------------------- numba helpers
@njit(cache=True)
def _observe_all(game, T, boards, auxs, obs, planes):
    """The network's input of every game (`ggpzoo.agents.gumbel.network_input()`)."""
    for g in range(boards.shape[0]):
        network_input(game, boards[g], auxs[g], T, auxs[g, ROLE], obs[g], planes)


@njit(cache=True)
def _start_all(game, variant, T, W, boards, auxs):
    """Every game at the start. Returns (0 or an error code, the failing game)."""
    for g in range(boards.shape[0]):
        code = start(game, boards[g], auxs[g], T, W[g], variant)
        if code != 0:
            return code, g
    return 0, -1


@njit(cache=True)
def _play(game, variant, T, W, boards, auxs, actions, max_moves, ended, outcome, legal, goals):
    """Play each game's action; a finished (or cut) game gets its outcome for role 0 and
    restarts. Returns (0 or what went wrong: a protocol code, the failing game)."""
    for g in range(boards.shape[0]):
        code = step(game, boards[g], auxs[g], T, W[g], actions[g])
        if code != 0:
            return code, g
        ended[g] = False
        n = status(game, boards[g], auxs[g], T, W[g], legal, goals)
        if n == OVER:
            ended[g] = True
            outcome[g] = outcome0(goals)
        elif n < 0:
            return n, g
        elif auxs[g, STEP] >= max_moves:
            ended[g] = True
            outcome[g] = 0.0
        if ended[g]:
            code = start(game, boards[g], auxs[g], T, W[g], variant)
            if code != 0:
                return code, g
    return 0, -1


@njit(cache=True)
def _best_legal_batch(game, T, W, boards, auxs, part_logits, cells, rows, out, legal, goals):
    """For each game in ``rows``: its legal action of the largest factored logit."""
    for k in range(rows.shape[0]):
        g = rows[k]
        n = status(game, boards[g], auxs[g], T, W[g], legal, goals)
        out[g] = best_legal(legal, n, part_logits[k], cells)


@njit(cache=True)
def _greedy(game, T, W, board, aux, legal, n, s, b, x, goals, scratch):
    """`ggpzoo.engine.policies.greedy_choice()` through the game protocol (any game): the
    legal action of ``legal[:n]`` with the best ``own goal - other's goal`` after it, a
    finished game's 1000 more (ahead) or less (behind); ties at random. Leaves ``W`` at
    ``board``. Returns ``(new random state, action)``."""
    if n == 0:
        return s, -1
    role = aux[ROLE]
    best = -1_000_000
    ties = 0
    choice = legal[0]
    follow = W.shape[0] > 0  # a work area follows the board: brought back before each try
    for j in range(n):
        b[:] = board
        x[:] = aux
        if follow:
            status(game, b, x, T, W, scratch, goals)
        step(game, b, x, T, W, legal[j])
        m = status(game, b, x, T, W, scratch, goals)
        score = (goals[0] - goals[1]) if role == 0 else (goals[1] - goals[0])
        if score != 0 and m == OVER:
            score += 1000 if score > 0 else -1000
        if score > best:
            best, ties, choice = score, 1, legal[j]
        elif score == best:
            ties += 1  # reservoir sampling: a uniform choice among the ties
            s, r = next_random(s)
            if np.int64((r * np.uint64(ties)) >> np.uint64(32)) == 0:
                choice = legal[j]
    if follow:
        status(game, board, aux, T, W, scratch, goals)
    return s, choice


@njit(cache=True)
def _opponent_batch(game, T, W, boards, auxs, rows, greedy, seed, out, legal, goals, b, x, scratch):
    for k in range(rows.shape[0]):
        g = rows[k]
        n = status(game, boards[g], auxs[g], T, W[g], legal, goals)
        s = stream(seed, g)
        if greedy:
            s, out[g] = _greedy(game, T, W[g], boards[g], auxs[g], legal, n, s, b, x, goals, scratch)
        else:
            s, out[g] = random_legal(legal, n, s)


@njit(cache=True)
def _step_live(game, T, W, boards, auxs, actions, live, net_role, max_moves, score, legal, goals):
    """Play each live game's action; a game over or cut gets the network's score (1, 0.5, 0).
    Returns (0 or what went wrong, the failing game)."""
    for g in range(boards.shape[0]):
        if not live[g]:
            continue
        code = step(game, boards[g], auxs[g], T, W[g], actions[g])
        if code != 0:
            return code, g
        n = status(game, boards[g], auxs[g], T, W[g], legal, goals)
        if n < 0 and n != OVER:
            return n, g
        if n == OVER or auxs[g, STEP] >= max_moves:
            live[g] = False
            o = outcome0(goals) if n == OVER and auxs[g, STEP] < max_moves else 0.0
            o = o if net_role[g] == 0 else -o
            score[g] = (o + 1) / 2
    return 0, -1


# ----------------------------------------------------------------------------- evaluation
def net_score(net, env_name, opponent: str, games: int, seed: int = 0, device="cpu", max_moves=1000) -> float:
    """The network's mean score (win 1, draw 0.5, loss 0) playing alone (its legal action of
    the largest logit) against ``"random"`` or ``"greedy"`` (one ply on the goals), in
    ``games`` games of ``env_name`` (a name or a spec) played together, the first role in the
    first half."""
    if opponent not in ("random", "greedy"):
        raise ValueError(f"the network is measured against 'random' or 'greedy', not {opponent!r}")
    s = two_role_spec(env_name)
    game, T, cells = s.kernel_id, s.tables, policy_cells(s)[0]
    W = np.stack([s.work() for _ in range(games)])
    boards = np.zeros((games, s.board_size), np.int8)
    auxs = np.zeros((games, s.aux_size), np.int32)
    code, g = _start_all(game, s.variant, T, W, boards, auxs)
    legal, scratch = np.zeros(s.max_legal, np.int32), np.zeros(s.max_legal, np.int32)
    goals = np.zeros(s.num_roles, np.int64)
    if not code:  # a game where no role chooses at the start would never move
        g, code = 0, status(game, boards[0], auxs[0], T, W[0], legal, goals)
        code = 0 if code > 0 else code
    if code:
        raise status_error(s, code, f"game {g}")
    net_role = (np.arange(games) >= (games + 1) // 2).astype(np.int32)
    live = np.ones(games, np.bool_)
    score = np.zeros(games)
    actions = np.zeros(games, np.int32)
    obs = np.zeros((games, *net.input_shape), s.obs_dtype)
    b, x = np.zeros(s.board_size, np.int8), np.zeros(s.aux_size, np.int32)
    planes = s.planes_shape[2]
    rng = np.random.default_rng(seed)
    while live.any():
        mine = np.flatnonzero(live & (auxs[:, ROLE] == net_role)).astype(np.int64)
        theirs = np.flatnonzero(live & (auxs[:, ROLE] != net_role)).astype(np.int64)
        if len(mine):
            _observe_all(game, T, boards[mine], auxs[mine], obs[: len(mine)], planes)
            with torch.no_grad():
                logits, _ = net(torch.as_tensor(obs[: len(mine)], device=device))
            _best_legal_batch(
                game, T, W, boards, auxs, logits.float().cpu().numpy(), cells, mine, actions, legal, goals
            )
        if len(theirs):
            _opponent_batch(
                game, T, W, boards, auxs, theirs, opponent == "greedy", int(rng.integers(2**62)), actions, legal,
                goals, b, x, scratch,
            )  # fmt: skip
        code, g = _step_live(game, T, W, boards, auxs, actions, live, net_role, max_moves, score, legal, goals)
        if code:
            raise status_error(s, code, f"game {g}")
    return float(score.mean())


# ----------------------------------------------------------------------------- the games
class SelfPlay:
    """Self-play of any two-role game for [`train()`][ggpzoo.training.az.train.train]: the boards, auxs and work
    areas of ``games`` games, stepped through the game protocol in numba, the network
    [`network_for()`][ggpzoo.training.az.net.network_for] gives the game and
    [`GumbelSearch`][ggpzoo.agents.gumbel.GumbelSearch]."""

    opponents = ("random", "greedy")

    def __init__(self, env):
        self.spec = two_role_spec(env)
        self.env = self.spec.name
        self.obs_dtype = self.spec.obs_dtype
        self.kernel = self.spec.kernel_id

    def configure(self, config: AZConfig) -> None:
        """Fill the settings left to the game (feature planes where it has them, the
        network's default width)."""
        if config.features is None:
            config.features = self.spec.num_feature_planes > 0
        if config.channels is None:
            config.channels = default_width(self.spec)

    def network(self, config: AZConfig):
        return network_for(self.spec, config.channels, config.blocks, features=bool(config.features))

    def cells(self) -> np.ndarray:
        return policy_cells(self.spec)[0]

    def search(self, config: AZConfig, evaluate, seed: int) -> GumbelSearch:
        return GumbelSearch(
            self.spec, evaluate, config.simulations, config.games, config.max_considered, seed=seed,
            c_scale=config.c_scale, features=bool(config.features),
        )  # fmt: skip

    def _check(self, code: int, g: int) -> None:
        if code:
            raise status_error(self.spec, code, f"self-play game {g}")

    def start(self, games: int, max_moves: int) -> None:
        s = self.spec
        self.T = s.tables
        self.W = np.stack([s.work() for _ in range(games)])
        self.boards = np.zeros((games, s.board_size), np.int8)
        self.auxs = np.zeros((games, s.aux_size), np.int32)
        self._check(*_start_all(self.kernel, s.variant, self.T, self.W, self.boards, self.auxs))
        self.max_moves = max_moves
        self.ended, self.outcome0 = np.zeros(games, np.bool_), np.zeros(games, np.float64)
        self.legal, self.goals = np.zeros(s.max_legal, np.int32), np.zeros(s.num_roles, np.int64)

    def run(self, search: GumbelSearch):
        return search.run(self.boards, self.auxs)

    def observe(self, obs: np.ndarray) -> np.ndarray:
        """Write every game's network input into ``obs``; return the roles to act."""
        _observe_all(self.kernel, self.T, self.boards, self.auxs, obs, self.spec.planes_shape[2])
        return self.auxs[:, ROLE].copy()

    def play(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play each game's action; return which games ended and their outcome for role 0
        (a game cut at ``max_moves`` is a draw). Ended games restart."""
        self._check(
            *_play(
                self.kernel, self.spec.variant, self.T, self.W, self.boards, self.auxs, actions, self.max_moves,
                self.ended, self.outcome0, self.legal, self.goals,
            )
        )  # fmt: skip
        return self.ended, self.outcome0

    def score(self, net, opponent: str, games: int, seed: int, device, max_moves: int) -> float:
        return net_score(net, self.spec, opponent, games, seed, device, max_moves)


def __getattr__(name):
    if name == "KernelSelfPlay":  # the old name of the hand-written games' adapter (0.6)
        import warnings

        warnings.warn(
            "ggpzoo.training.az.train.KernelSelfPlay is deprecated: SelfPlay plays every two-role game",
            DeprecationWarning,
            2,
        )
        return SelfPlay
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ----------------------------------------------------------------------------- replay buffer
class ReplayBuffer:
    """The last ``capacity`` positions: observation, the policy target over the legal actions
    (ragged), the outcome for the role to act."""

    def __init__(self, capacity: int, obs_shape, obs_dtype):
        self.capacity = int(capacity)
        self.obs = np.zeros((self.capacity, *obs_shape), obs_dtype)
        self.z = np.zeros(self.capacity, np.float32)
        self.actions: list = [None] * self.capacity
        self.probs: list = [None] * self.capacity
        self.size = 0
        self.next = 0

    def __len__(self) -> int:
        return self.size

    def add(self, obs, actions, probs, z: float) -> None:
        i = self.next
        self.obs[i] = obs
        self.actions[i] = np.asarray(actions, np.int32)
        self.probs[i] = np.asarray(probs, np.float32)
        self.z[i] = z
        self.next = (i + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def save(self, path: str) -> None:
        """Write the buffer to ``path`` (``.npz``, plain arrays: loading needs no pickle)."""
        n = self.size
        lengths = np.array([len(self.actions[i]) for i in range(n)], np.int64)
        np.savez(
            path,
            obs=self.obs[:n],
            z=self.z[:n],
            lengths=lengths,
            actions=np.concatenate([self.actions[i] for i in range(n)]) if n else np.zeros(0, np.int32),
            probs=np.concatenate([self.probs[i] for i in range(n)]) if n else np.zeros(0, np.float32),
            next=np.int64(self.next),
        )

    def load(self, path: str) -> None:
        """Fill the buffer from a file [`save()`][ggpzoo.training.az.train.ReplayBuffer.save] wrote (its newest
        positions if it held more)."""
        try:
            with np.load(path, allow_pickle=False) as f:
                obs, z, lengths, actions, probs = f["obs"], f["z"], f["lengths"], f["actions"], f["probs"]
                nxt = int(f["next"])
        except (OSError, ValueError, KeyError, EOFError, TypeError, zipfile.BadZipFile) as e:
            why = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
            raise ValueError(f"{path} is damaged or not a replay buffer: {type(e).__name__}: {why}") from None
        if any(a.dtype.kind not in "biuf" for a in (obs, z, actions, probs)) or lengths.dtype.kind not in "iu":
            raise ValueError(f"{path}: a replay buffer of other data types")
        if lengths.ndim != 1 or (len(lengths) and lengths.min() < 0) or not 0 <= nxt <= max(len(obs), self.capacity):
            raise ValueError(f"{path}: the buffer's policy targets do not add up")
        if obs.ndim == 2 and self.obs.shape[1:3] == (1, 1) and obs.shape[1:] == self.obs.shape[3:]:
            obs = obs.reshape(len(obs), 1, 1, -1)  # a sheet's buffer of 0.6 (observation vectors)
        if obs.shape[1:] != self.obs.shape[1:] or not (len(obs) == len(z) == len(lengths)):
            raise ValueError(f"{path}: a replay buffer of another shape ({obs.shape[1:]}, not {self.obs.shape[1:]})")
        if int(lengths.sum()) != len(actions) or len(actions) != len(probs):
            raise ValueError(f"{path}: the buffer's policy targets do not add up")
        starts = np.concatenate([[0], np.cumsum(lengths)])
        order = np.arange(len(obs))
        if len(obs) == self.capacity or len(obs) > nxt:  # oldest first: the ring starts at next
            order = np.roll(order, -nxt)
        self.size = self.next = 0
        for i in order[-self.capacity :]:
            self.add(obs[i], actions[starts[i] : starts[i + 1]], probs[starts[i] : starts[i + 1]], float(z[i]))

    def sample(self, n: int, rng: np.random.Generator):
        """``(obs, z, actions, probs, rows)``: the actions' targets flattened, ``rows`` saying
        which sample each belongs to."""
        idx = rng.integers(self.size, size=n)
        acts = [self.actions[i] for i in idx]
        rows = np.repeat(np.arange(n), [len(a) for a in acts])
        return self.obs[idx], self.z[idx], np.concatenate(acts), np.concatenate([self.probs[i] for i in idx]), rows


def policy_value_loss(net, obs, z, actions, probs, rows, cells_t, device):
    """``(policy loss, value loss)`` of a batch: cross-entropy of the improved policy against
    the log-softmax of the legal actions' factored logits, squared error of the value."""
    n = len(z)
    part_logits, v = net(torch.as_tensor(obs, device=device))
    rows_t = torch.as_tensor(rows, device=device)
    logit = action_logits(part_logits, rows_t, cells_t[torch.as_tensor(actions, device=device, dtype=torch.long)])
    top = torch.full((n,), -torch.inf, device=device).scatter_reduce(0, rows_t, logit.detach(), "amax")
    shifted = logit - top[rows_t]
    norm = torch.zeros(n, device=device).index_add(0, rows_t, torch.exp(shifted))
    logp = shifted - torch.log(norm)[rows_t]
    policy = -(torch.as_tensor(probs, device=device) * logp).sum() / n
    value = ((v - torch.as_tensor(z, device=device)) ** 2).mean()
    return policy, value


# ----------------------------------------------------------------------------- the loop
def _write_row(path: str, row: dict) -> None:
    """Append ``row`` to the log, with its header first in a new file (`LOG_FIELDS`; an
    older run's log keeps its own columns)."""
    fields = LOG_FIELDS
    new = not os.path.exists(path) or not os.path.getsize(path)
    if not new:
        with open(path, newline="") as f:
            fields = next(csv.reader(f), None) or LOG_FIELDS
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fields)
        if new:
            w.writeheader()
        w.writerow({k: row.get(k, "") for k in fields})


def _check_config(config: AZConfig, play, resume: bool) -> None:
    """Refuse, before anything is written or played, settings whose search would pass
    `MAX_SIMULATIONS` tree nodes or whose network its loader would
    refuse (`load_model()`'s limits)."""
    from ggpzoo.agents.mcts import MAX_SIMULATIONS

    for name in ("simulations", "games", "batch_size", "eval_games", "buffer_size", "max_moves"):
        v = getattr(config, name)
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if config.games * (config.simulations + 1) > MAX_SIMULATIONS:
        raise ValueError(
            f"games x (simulations + 1) must be at most MAX_SIMULATIONS = {MAX_SIMULATIONS:,} tree nodes, "
            f"got {config.games:,} x {config.simulations + 1:,}"
        )
    if not resume:
        probe = replace(config)
        play.configure(probe)
        with torch.device("meta"):  # nothing allocated: the sizes are checked
            play.network(probe)


def _read_checkpoint(path: str) -> tuple[dict, dict]:
    """``(checkpoint, its saved config)`` of ``out/checkpoint.pt``; a ValueError naming the file
    if it is missing, cannot be read or is not a checkpoint this module wrote."""
    if not os.path.isfile(path):
        raise ValueError(f"--resume: no checkpoint at {path}")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
        saved = json.loads(ckpt["config"])
        if not isinstance(ckpt["model"], dict) or not isinstance(ckpt["optimizer"], dict):
            raise ValueError("no network or optimiser state")
        if not isinstance(saved.get("env"), str):
            raise ValueError("no game in its config")
        for name in ("channels", "blocks"):
            v = saved.get(name)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise ValueError(f"bad {name} {v!r:.40}")
        for name in ("step", "positions", "games"):
            if isinstance(ckpt.get(name, 0), bool) or not isinstance(ckpt.get(name, 0), int):
                raise ValueError(f"bad counter {name}")
    except Exception as e:  # noqa: BLE001 - torch.load raises whatever its unpickler meets
        if isinstance(e, (MemoryError, KeyboardInterrupt)):
            raise
        why = str(e).strip().splitlines()[0][:200] if str(e).strip() else ""
        raise ValueError(f"{path} is damaged or not a checkpoint: {type(e).__name__}: {why}") from None
    return ckpt, saved


def train(config: AZConfig, minutes: float, out: str, resume: bool = False, progress: bool | None = None) -> dict:
    """Train for ``minutes`` (wall clock, of this run) into directory ``out``; returns the last counters.

    With ``resume``, the network, optimiser and counters come from ``out/checkpoint.pt``
    (its network size and ``c_scale`` win over ``config``'s) and it trains ``minutes`` more;
    without it, an ``out`` that holds a checkpoint already raises ValueError.
    """
    if not (minutes > 0 and math.isfinite(minutes)):
        raise ValueError(f"minutes must be a positive number, got {minutes!r}")
    play = SelfPlay(config.env)
    _check_config(config, play, resume)
    device = torch.device(config.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: torch sees no CUDA device")
    ckpt_path = os.path.join(out, "checkpoint.pt")
    if not resume and os.path.exists(ckpt_path):
        raise ValueError(f"{out} holds a run already: add --resume to train it more, or give another --out")
    make_out_folder(out)  # found now, not at the first checkpoint
    # seconds: wall clock of training; cpu_seconds: the process's CPU time over it (all threads)
    counters = {"step": 0, "positions": 0, "games": 0, "seconds": 0.0, "cpu_seconds": 0.0}
    torch.manual_seed(config.seed)
    if resume:
        ckpt, saved = _read_checkpoint(ckpt_path)
        if saved["env"] != config.env:
            raise ValueError(f"{ckpt_path} trains {saved['env']!r}, not {config.env!r}")
        config = replace(config, channels=saved["channels"], blocks=saved["blocks"])
        config.c_scale = saved.get("c_scale", config.c_scale)
        config.features = bool(saved.get("features"))  # runs before features had none
    play.configure(config)
    net = play.network(config)
    opt = torch.optim.Adam(net.parameters(), lr=config.lr, weight_decay=config.weight_decay)
    if resume:
        try:
            net.load_state_dict(ckpt["model"])
            opt.load_state_dict(ckpt["optimizer"])
        except (RuntimeError, ValueError, KeyError, TypeError) as e:
            raise ValueError(f"{ckpt_path} is damaged: {str(e).strip().splitlines()[0][:200]}") from None
        counters.update({k: ckpt.get(k, v) for k, v in counters.items()})  # (cpu_seconds: new in 0.7)
    net.to(device)
    seed = config.seed + counters["step"]  # a resumed run draws new games
    rng = np.random.default_rng(seed)
    cells_t = torch.as_tensor(play.cells(), dtype=torch.long, device=device)
    G = config.games
    search = play.search(config, evaluator(net, device), seed)
    buffer = ReplayBuffer(config.buffer_size, net.input_shape, play.obs_dtype)
    buffer_path = os.path.join(out, "buffer.npz")
    if resume and os.path.exists(buffer_path):
        buffer.load(buffer_path)  # all checked before the buffer changes
    play.start(G, config.max_moves)
    obs = np.zeros((G, *net.input_shape), play.obs_dtype)
    pending: list[list] = [[] for _ in range(G)]  # (obs, actions, probs, role) per game until its end
    lengths: list[int] = []
    losses: list[tuple[float, float]] = []
    log_path = os.path.join(out, "log.csv")

    def save() -> None:
        state = {
            "model": {k: v.detach().cpu() for k, v in net.state_dict().items()},
            "optimizer": opt.state_dict(),
            "config": json.dumps(asdict(config)),
            **counters,
        }
        torch.save(state, ckpt_path + ".tmp")
        buffer.save(buffer_path + ".tmp.npz")
        os.replace(ckpt_path + ".tmp", ckpt_path)
        os.replace(buffer_path + ".tmp.npz", buffer_path)
        info = dict(counters, simulations=config.simulations, c_scale=config.c_scale)
        save_model(net, os.path.join(out, "model"), **info)
        os.makedirs(os.path.join(out, "snapshots"), exist_ok=True)
        minute = int(round(counters["seconds"] / 60))
        save_model(net, os.path.join(out, "snapshots", f"min{minute:03d}"), **info)

    def log(evaluate: bool) -> None:
        row = dict(counters, seconds=round(counters["seconds"], 1), cpu_seconds=round(counters["cpu_seconds"], 1))
        if losses:
            row["loss_policy"] = round(float(np.mean([p for p, _ in losses])), 4)
            row["loss_value"] = round(float(np.mean([v for _, v in losses])), 4)
        if lengths:
            row["game_length"] = round(float(np.mean(lengths)), 1)
        if evaluate:
            net.eval()
            for opponent in play.opponents:
                row[f"net_vs_{opponent}"] = round(
                    play.score(net, opponent, config.eval_games, seed, device, config.max_moves), 3
                )
        _write_row(log_path, row)
        losses.clear()
        lengths.clear()

    start, start_cpu = time.perf_counter(), time.process_time()
    base_seconds, base_cpu = counters["seconds"], counters["cpu_seconds"]
    deadline = start + minutes * 60
    last_save = last_eval = last_log = start
    bar = Progress(int(minutes * 60), f"az {config.env}", enabled=progress)
    shown = 0
    while time.perf_counter() < deadline:
        net.eval()
        result = play.run(search)
        roles = play.observe(obs)
        for g in range(G):
            lo, hi = result.offsets[g], result.offsets[g + 1]
            pending[g].append((obs[g].copy(), result.policy_actions[lo:hi], result.policy_probs[lo:hi], roles[g]))
        ended, outcome0 = play.play(result.actions)
        counters["positions"] += G
        for g in np.flatnonzero(ended):
            for o, a, p, role in pending[g]:
                buffer.add(o, a, p, outcome0[g] if role == 0 else -outcome0[g])
            lengths.append(len(pending[g]))
            pending[g] = []
            counters["games"] += 1
        if len(buffer) >= config.min_buffer:
            net.train()
            for _ in range(config.updates_per_move):
                batch = buffer.sample(config.batch_size, rng)
                lp, lv = policy_value_loss(net, *batch, cells_t, device)
                opt.zero_grad()
                (lp + lv).backward()
                opt.step()
                counters["step"] += 1
                losses.append((lp.item(), lv.item()))
        now = time.perf_counter()
        counters["seconds"] = base_seconds + now - start
        counters["cpu_seconds"] = base_cpu + time.process_time() - start_cpu
        if now - last_save >= config.checkpoint_minutes * 60:
            save()
            last_save = now
        if now - last_eval >= config.eval_minutes * 60:
            log(True)
            last_eval = last_log = now
        elif now - last_log >= 30:
            log(False)
            last_log = now
        elapsed = int(now - start)
        note = f"step {counters['step']}, {counters['positions']} positions, {counters['games']} games"
        if losses:
            note += f", loss {losses[-1][0]:.3f}+{losses[-1][1]:.3f}"
        bar.update(max(elapsed - shown, 0), note)
        shown = max(shown, elapsed)
    bar.close()
    counters["seconds"] = base_seconds + time.perf_counter() - start
    counters["cpu_seconds"] = base_cpu + time.process_time() - start_cpu
    save()
    log(True)
    return dict(counters)


def config_from_checkpoint(out: str) -> dict:
    """The [`AZConfig`][ggpzoo.training.az.train.AZConfig] fields stored in ``out/checkpoint.pt``."""
    ckpt = torch.load(os.path.join(out, "checkpoint.pt"), map_location="cpu", weights_only=True)
    saved = json.loads(ckpt["config"])
    return {f.name: saved[f.name] for f in fields(AZConfig) if f.name in saved}
