"""The AlphaZero network: a small residual CNN with a factored policy head, and its files.

[`AZNet`][ggpzoo.training.az.net.AZNet] reads the observation planes ``(H, W, planes)`` (from the role to act) and
gives, for each part of an action ([`action_parts`][ggpzoo.envs.gamespec.GameSpec]:
piece and destination; queen, destination and arrow), one logit per cell, and a value in
[-1, 1] for the role to act. An action's logit is the sum of its parts' logits
([`action_logits()`][ggpzoo.training.az.net.action_logits]), so amazons_v0's 86,980 actions need a head of 3 x 100
numbers.

[`GDLAZNet`][ggpzoo.training.az.net.GDLAZNet] is the network of a GDL game (``gdl:SHEET``): a residual MLP over the
env's observation (a byte per fluent, then a one-hot of the role to act), one policy head
per role over its action ids, the logits of the role to act given as ``(B, 1, A)``: one
action part whose "cells" are the action ids, so that the search, the agent and the losses
treat both networks alike.

Files: [`save_model()`][ggpzoo.training.az.net.save_model] writes ``PATH.json`` (what to build: the format, the env, the
network's size) and ``PATH.pt`` (its ``state_dict``, tensors only); [`load_model()`][ggpzoo.training.az.net.load_model]
reads them back with ``torch.load(weights_only=True)``, which refuses anything but
tensors and plain containers, so loading a file runs none of its code (the conventions
of `ggpzoo.agents.weights`).
"""

from __future__ import annotations

import json
import os

import numpy as np
import torch
from torch import nn

from ggpzoo.envs import spec as _spec

__all__ = ["AZNet", "GDLAZNet", "action_logits", "save_model", "load_model", "evaluator", "FORMAT", "MAX_MODEL_BYTES"]

FORMAT = "ggpzoo-az-1"
MAX_JSON_BYTES = 1 << 16
MAX_MODEL_BYTES = 5 << 20  # a shipped model stays under 5 MB
# The largest sizes a description may ask for (a file must not make the loader build a huge network).
MAX_ARGUMENTS = {"channels": 256, "blocks": 32, "value_hidden": 1024, "features": 1}
GDL_MAX_ARGUMENTS = {"width": 1024, "blocks": 32, "value_hidden": 1024}


def _within(limits: dict, name: str, **sizes) -> None:
    """ValueError for a size past the limit that `load_model()` holds descriptions to: a
    network too large to load back is refused before it is trained."""
    for k, v in sizes.items():
        if v > limits[k]:
            raise ValueError(f"{k} must be at most {limits[k]} ({name}, the model loader's limit), got {v}")


class _Block(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.a = nn.Conv2d(channels, channels, 3, padding=1)
        self.b = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.b(torch.relu(self.a(x))))


class AZNet(nn.Module):
    """A 3x3 stem, ``blocks`` residual blocks of ``channels``, then the heads.

    Policy: a 1x1 convolution to one channel per action part, i.e. ``(B, parts, H * W)``
    logits. Value: a 1x1 convolution to 2 channels, ``Linear(2HW -> value_hidden)``, ReLU,
    ``Linear(1)``, tanh.

    Input: the observation planes, then with ``features`` the game's feature planes
    ([`feature_planes`][ggpzoo.envs.gamespec.GameSpec]), ``(B, H, W, planes)`` with
    [`input_shape`][ggpzoo.training.az.net.AZNet], as `ggpzoo.engine.dispatch.net_input()` writes them.

    Args:
        env_name: the game (its observation shape and action parts).
        channels, blocks, value_hidden: the size.
        features: 1 to read the game's feature planes too (a game without them: ValueError).
    """

    def __init__(self, env_name: str, channels: int = 32, blocks: int = 3, value_hidden: int = 64, features: int = 0):
        super().__init__()
        s = _spec(env_name)
        if min(channels, blocks + 1, value_hidden) < 1:
            raise ValueError(
                f"channels, value_hidden must be >= 1 and blocks >= 0, got {channels}, {blocks}, {value_hidden}"
            )
        _within(MAX_ARGUMENTS, "MAX_ARGUMENTS", channels=channels, blocks=blocks, value_hidden=value_hidden)
        if features not in (0, 1):
            raise ValueError(f"features must be 0 or 1, got {features!r}")
        if features and not s.num_feature_planes:
            raise ValueError(f"{env_name} has no feature planes")
        self.env_name = env_name
        self.config = {"channels": int(channels), "blocks": int(blocks), "value_hidden": int(value_hidden)}
        if features:  # left out when 0, so that older descriptions read the same
            self.config["features"] = 1
        h, w, planes = s.obs_shape
        self.obs_planes = planes
        planes += s.num_feature_planes if features else 0
        self.input_shape = (h, w, planes)
        self.parts = len(s.action_parts)
        self.obs_high = float(s.obs_high)
        self.stem = nn.Conv2d(planes, channels, 3, padding=1)
        self.blocks = nn.Sequential(*[_Block(channels) for _ in range(blocks)])
        self.policy = nn.Conv2d(channels, self.parts, 1)
        self.value_conv = nn.Conv2d(channels, 2, 1)
        self.value = nn.Sequential(nn.Linear(2 * h * w, value_hidden), nn.ReLU(), nn.Linear(value_hidden, 1))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``obs (B, H, W, planes)`` -> ``(part logits (B, parts, H * W), values (B,))``."""
        x = obs.permute(0, 3, 1, 2).float()
        if self.obs_high != 1:
            x = torch.cat([x[:, : self.obs_planes] / self.obs_high, x[:, self.obs_planes :]], 1)
        x = self.blocks(torch.relu(self.stem(x)))
        logits = self.policy(x).flatten(2)
        v = torch.tanh(self.value(torch.relu(self.value_conv(x)).flatten(1))).squeeze(1)
        return logits, v


class _DenseBlock(nn.Module):
    def __init__(self, width: int):
        super().__init__()
        self.a = nn.Linear(width, width)
        self.b = nn.Linear(width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.b(torch.relu(self.a(x))))


class GDLAZNet(nn.Module):
    """The AlphaZero network of a two-role GDL game: ``Linear(F + R -> width)``, ``blocks``
    residual blocks of two ``Linear(width)``, then the heads.

    Input: the env's ``observation``, int8 ``(B, F + R)``: one byte per fluent of the base
    set, then a one-hot of the role to act
    ([`ggpzoo.engine.VectorGames.observe()`][ggpzoo.engine.batch.VectorGames.observe] of a sheet).
    Policy: ``Linear(width -> R * A)``, one head per role over its action ids (``A`` the
    larger role's action count); the head of the role to act is given, as ``(B, 1, A)``
    (ids past a role's count are never legal). Value: ``Linear(width -> value_hidden)``,
    ReLU, ``Linear(1)``, tanh, for the role to act.

    Why an MLP on the fluent vector: it is the whole state in any sheet (the board, and
    whose turn, counters, scores), where board planes exist only for grid sheets and leave
    those out; and a sheet's action ids name no cells for a convolutional policy head to
    read them by. The shipped sheets' vectors are small (tic-tac-toe 29 + 2, connect four
    86 + 2).

    Args:
        env_name: the game, ``"gdl:SHEET"`` (its sizes come from the sheet).
        width, blocks, value_hidden: the size.
    """

    def __init__(self, env_name: str, width: int = 128, blocks: int = 3, value_hidden: int = 64):
        super().__init__()
        s = _spec(env_name)
        if getattr(s, "kind", None) != "gdl":
            raise ValueError(f"GDLAZNet plays GDL games (gdl:SHEET), got {env_name!r}")
        if min(width, blocks + 1, value_hidden) < 1:
            raise ValueError(f"width, value_hidden must be >= 1 and blocks >= 0, got {width}, {blocks}, {value_hidden}")
        _within(GDL_MAX_ARGUMENTS, "GDL_MAX_ARGUMENTS", width=width, blocks=blocks, value_hidden=value_hidden)
        roles = len(s.agents)
        actions = max(s.action_counts.values())
        numbers = (s.num_fluents + roles + 1) * width + blocks * 2 * (width + 1) * width
        numbers += (width + 1) * roles * actions + (width + 2) * value_hidden + 1
        from ggpzoo.agents.weights import MAX_WEIGHTS_BYTES

        if 4 * numbers > MAX_WEIGHTS_BYTES:
            raise ValueError(
                f"a network of width {width} for {env_name} ({s.num_fluents:,} fluents, {actions:,} actions) takes "
                f"{4 * numbers / 2**20:,.0f} MB, over MAX_WEIGHTS_BYTES = {MAX_WEIGHTS_BYTES >> 20} MB"
            )
        # stored by a name that reads the same sheet from any working directory: a shipped
        # sheet's name, else the sheet's absolute path (a relative one would depend on it)
        if not s.path:  # the spec of a game loaded from text
            self.env_name = env_name
        else:
            self.env_name = f"gdl:{s.sheet}" if s.path == _shipped(s.sheet) else f"gdl:{s.path}"
        self.config = {"width": int(width), "blocks": int(blocks), "value_hidden": int(value_hidden)}
        self.num_fluents = s.num_fluents
        self.roles = roles
        self.num_actions = max(s.action_counts.values())
        self.input_shape = (s.num_fluents + roles,)
        self.stem = nn.Linear(s.num_fluents + roles, width)
        self.blocks = nn.Sequential(*[_DenseBlock(width) for _ in range(blocks)])
        self.policy = nn.Linear(width, roles * self.num_actions)
        self.value = nn.Sequential(nn.Linear(width, value_hidden), nn.ReLU(), nn.Linear(value_hidden, 1))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``obs (B, F + R)`` -> ``(logits of the role to act (B, 1, A), values (B,))``."""
        x = obs.float()
        role = x[:, self.num_fluents :].argmax(1)
        h = self.blocks(torch.relu(self.stem(x)))
        logits = self.policy(h).view(-1, self.roles, self.num_actions)
        logits = logits[torch.arange(len(x), device=x.device), role].unsqueeze(1)
        v = torch.tanh(self.value(h)).squeeze(1)
        return logits, v


NETWORKS = {"AZNet": (AZNet, MAX_ARGUMENTS), "GDLAZNet": (GDLAZNet, GDL_MAX_ARGUMENTS)}


def action_logits(part_logits: torch.Tensor, rows: torch.Tensor, cells: torch.Tensor) -> torch.Tensor:
    """The logits of actions: ``sum_p part_logits[rows[i], p, cells[i, p]]``.

    ``rows (L,)`` the batch row of each action, ``cells (L, parts)`` its cells
    (``spec.action_cells()[action]``).
    """
    parts = torch.arange(cells.shape[1], device=cells.device)
    return part_logits[rows[:, None], parts[None, :], cells].sum(1)


def evaluator(net: nn.Module, device: str | torch.device = "cpu"):
    """``evaluate(obs) -> (part_logits, values)`` as numpy, for [`GumbelSearch`][ggpzoo.agents.gumbel.GumbelSearch]."""

    @torch.no_grad()
    def evaluate(obs: np.ndarray):
        logits, v = net(torch.as_tensor(obs, device=device))
        return logits.float().cpu().numpy(), v.float().cpu().numpy()

    return evaluate


def _paths(path: str) -> tuple[str, str]:
    base = path[: -len(".json")] if path.endswith(".json") else path
    return base + ".json", base + ".pt"


def _shipped(sheet: str) -> str | None:
    """The path of the shipped sheet ``sheet`` (``ggpzoo/gdl/games/``), None if there is none."""
    from ggpzoo.gdl import game_path

    try:
        return game_path(sheet)
    except ValueError:
        return None


def save_model(net: nn.Module, path: str, **info) -> str:
    """Write ``PATH.json`` and ``PATH.pt``; return the JSON's path. ``info`` (plain JSON:
    training steps, games, ...) is stored with the description."""
    json_path, weights_path = _paths(path)
    os.makedirs(os.path.dirname(os.path.abspath(json_path)), exist_ok=True)
    state = {k: v.detach().cpu().clone() for k, v in net.state_dict().items()}
    torch.save(state, weights_path)
    description = {
        "format": FORMAT,
        "env": net.env_name,
        "network": type(net).__name__,
        "arguments": net.config,
        "weights": os.path.basename(weights_path),
        "info": info,
    }
    with open(json_path, "w") as f:
        json.dump(description, f, indent=1)
        f.write("\n")
    return json_path


def load_model(path: str, env_name: str | None = None) -> nn.Module:
    """The network stored by [`save_model()`][ggpzoo.training.az.net.save_model] at ``PATH.json`` (or ``PATH``), on the
    CPU, in evaluation mode. Runs no code from the files: a bad, foreign or pickled file, or one
    for another env than ``env_name``, raises ValueError (OSError when it cannot be read)."""
    from ggpzoo.agents.weights import check_network_bytes, load_weights, read_description, sizing

    json_path, d, weights_path = read_description(path, FORMAT, "model", MAX_JSON_BYTES)
    if env_name is not None and d.get("env") != env_name:
        raise ValueError(f"{json_path} is a model of {d.get('env')!r}, not of {env_name!r}")
    if not isinstance(d.get("info", {}), dict):
        raise ValueError(f"{json_path}: bad model description: 'info' must be an object, got {d['info']!r:.60}")
    try:
        if d["network"] not in NETWORKS:
            raise ValueError(f"the network {d['network']!r} is not one of {', '.join(NETWORKS)}")
        cls, limits = NETWORKS[d["network"]]
        args = d["arguments"]
        if not isinstance(args, dict) or set(args) - set(limits):
            raise ValueError(f"bad arguments {args!r}")
        for k, v in args.items():
            if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= limits[k]:
                raise ValueError(f"{k} must be an integer in 0..{limits[k]}, got {v!r}")
        if not isinstance(d["env"], str):
            raise ValueError(f"bad env {d['env']!r}")
        with sizing():  # sized before anything is allocated
            check_network_bytes(cls(d["env"], **args), json_path)
        net = cls(d["env"], **args)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{json_path}: bad model description: {type(e).__name__}: {e}") from None
    load_weights(net, weights_path, "network")
    net.eval()
    net.info = d.get("info", {})
    return net
