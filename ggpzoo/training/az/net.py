"""The AlphaZero network: a small residual CNN with a factored policy head, and its files.

[`AZNet`][ggpzoo.training.az.net.AZNet] reads the observation planes ``(H, W, planes)`` (from the role to act) and
gives, for each part of an action ([`action_parts`][ggpzoo.envs.gamespec.GameSpec]:
piece and destination; queen, destination and arrow), one logit per cell, and a value in
[-1, 1] for the role to act. An action's logit is the sum of its parts' logits
([`action_logits()`][ggpzoo.training.az.net.action_logits]), so amazons_v0's 86,980 actions need a head of 3 x 100
numbers.

[`GDLAZNet`][ggpzoo.training.az.net.GDLAZNet] is the network of a game whose observation is a vector (a GDL
sheet, ``gdl:SHEET``): a residual MLP over it (a byte per fluent, then a one-hot of the role
to act), one policy head per role over its action ids, the logits of the role to act given
as ``(B, 1, A)``: one action part whose "cells" are the action ids, so that the search, the
agent and the losses treat both networks alike. [`network_for()`][ggpzoo.training.az.net.network_for]
picks the one a game's observation shape calls for.

Files: [`save_model()`][ggpzoo.training.az.net.save_model] writes ``PATH.json`` (what to build: the format, the env, the
network's size) and ``PATH.pt`` (its ``state_dict``, tensors only); [`load_model()`][ggpzoo.training.az.net.load_model]
reads them back with ``torch.load(weights_only=True)``, which refuses anything but
tensors and plain containers, so loading a file runs none of its code (the conventions
of `ggpzoo.agents.weights`). The description records the game's
[`portable_name`][ggpzoo.envs.gamespec.GameSpec] and, for a sheet, its text's
[`fingerprint`][ggpzoo.envs.gamespec.GameSpec]: loading a model for a game compares them first, so a model
of another game is refused before anything of it is built or its sheet read.
"""

from __future__ import annotations

import json
import os

import numpy as np
import torch
from torch import nn

from ggpzoo.envs import spec as _spec

__all__ = [
    "AZNet",
    "GDLAZNet",
    "network_for",
    "action_logits",
    "save_model",
    "load_model",
    "check_model_game",
    "evaluator",
    "FORMAT",
    "MAX_MODEL_BYTES",
]

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
        env_name: the game (its observation shape and action parts): a name or its
            [`GameSpec`][ggpzoo.envs.gamespec.GameSpec]; its observation must be planes.
        channels, blocks, value_hidden: the size.
        features: 1 to read the game's feature planes too (a game without them: ValueError).
    """

    default_width = 32

    def __init__(self, env_name, channels: int = 32, blocks: int = 3, value_hidden: int = 64, features: int = 0):
        super().__init__()
        s = _spec(env_name)
        if len(s.obs_shape) != 3:
            raise ValueError(f"AZNet reads observation planes; {s.name}'s observation is a vector (GDLAZNet reads it)")
        if min(channels, blocks + 1, value_hidden) < 1:
            raise ValueError(
                f"channels, value_hidden must be >= 1 and blocks >= 0, got {channels}, {blocks}, {value_hidden}"
            )
        _within(MAX_ARGUMENTS, "MAX_ARGUMENTS", channels=channels, blocks=blocks, value_hidden=value_hidden)
        if features not in (0, 1):
            raise ValueError(f"features must be 0 or 1, got {features!r}")
        if features and not s.num_feature_planes:
            raise ValueError(f"{s.name} has no feature planes")
        self.env_name = s.portable_name
        self.fingerprint = s.fingerprint
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
    """The AlphaZero network of a two-role game whose observation is a vector (a GDL sheet):
    ``Linear(F + R -> width)``, ``blocks`` residual blocks of two ``Linear(width)``, then the heads.

    Input: the env's ``observation``, int8 ``(B, F + R)`` or as the game protocol writes it,
    ``(B, 1, 1, F + R)`` (the spec's ``planes_shape``, this network's ``input_shape``): one
    byte per fluent of the base set, then a one-hot of the role to act.
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
        env_name: the game, ``"gdl:SHEET"`` or its [`GameSpec`][ggpzoo.envs.gamespec.GameSpec] (its sizes come
            from the sheet).
        width, blocks, value_hidden: the size.
    """

    default_width = 128

    def __init__(self, env_name, width: int = 128, blocks: int = 3, value_hidden: int = 64):
        super().__init__()
        s = _spec(env_name)
        if len(s.obs_shape) != 1:
            raise ValueError(
                f"GDLAZNet reads an observation vector; {s.name}'s observation is planes (AZNet reads them)"
            )
        if min(width, blocks + 1, value_hidden) < 1:
            raise ValueError(f"width, value_hidden must be >= 1 and blocks >= 0, got {width}, {blocks}, {value_hidden}")
        _within(GDL_MAX_ARGUMENTS, "GDL_MAX_ARGUMENTS", width=width, blocks=blocks, value_hidden=value_hidden)
        roles = len(s.agents)
        actions = max(s.action_counts.values())
        fluents = s.obs_shape[0] - roles
        numbers = (fluents + roles + 1) * width + blocks * 2 * (width + 1) * width
        numbers += (width + 1) * roles * actions + (width + 2) * value_hidden + 1
        from ggpzoo.agents.weights import MAX_WEIGHTS_BYTES

        if 4 * numbers > MAX_WEIGHTS_BYTES:
            raise ValueError(
                f"a network of width {width} for {s.name} ({fluents:,} fluents, {actions:,} actions) takes "
                f"{4 * numbers / 2**20:,.0f} MB, over MAX_WEIGHTS_BYTES = {MAX_WEIGHTS_BYTES >> 20} MB"
            )
        # stored by a name that reads the same sheet from any working directory: a shipped
        # sheet's name, else the sheet's absolute path (a relative one would depend on it)
        self.env_name = s.portable_name
        self.fingerprint = s.fingerprint
        self.config = {"width": int(width), "blocks": int(blocks), "value_hidden": int(value_hidden)}
        self.num_fluents = fluents
        self.roles = roles
        self.num_actions = actions
        self.input_shape = s.planes_shape
        self.stem = nn.Linear(fluents + roles, width)
        self.blocks = nn.Sequential(*[_DenseBlock(width) for _ in range(blocks)])
        self.policy = nn.Linear(width, roles * self.num_actions)
        self.value = nn.Sequential(nn.Linear(width, value_hidden), nn.ReLU(), nn.Linear(value_hidden, 1))

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``obs (B, F + R)`` or ``(B, 1, 1, F + R)`` -> ``(logits of the role to act (B, 1, A), values (B,))``."""
        x = obs.reshape(len(obs), -1).float()
        role = x[:, self.num_fluents :].argmax(1)
        h = self.blocks(torch.relu(self.stem(x)))
        logits = self.policy(h).view(-1, self.roles, self.num_actions)
        logits = logits[torch.arange(len(x), device=x.device), role].unsqueeze(1)
        v = torch.tanh(self.value(h)).squeeze(1)
        return logits, v


NETWORKS = {"AZNet": (AZNet, MAX_ARGUMENTS), "GDLAZNet": (GDLAZNet, GDL_MAX_ARGUMENTS)}


def network_for(env, channels: int | None = None, blocks: int = 3, features: bool = False) -> nn.Module:
    """The AlphaZero network of game ``env`` (a name or a spec), by its observation's shape:
    [`AZNet`][ggpzoo.training.az.net.AZNet] (``channels`` conv channels, 32 by default) for planes,
    [`GDLAZNet`][ggpzoo.training.az.net.GDLAZNet] (``channels`` its width, 128 by default) for a vector."""
    s = _spec(env)
    if len(s.obs_shape) == 3:
        return AZNet(s, AZNet.default_width if channels is None else channels, blocks, features=int(bool(features)))
    if features:
        raise ValueError(f"{s.name} has no feature planes (its network reads the observation vector)")
    return GDLAZNet(s, width=GDLAZNet.default_width if channels is None else channels, blocks=blocks)


def default_width(env) -> int:
    """The network width [`network_for()`][ggpzoo.training.az.net.network_for] gives ``env`` by default."""
    return (AZNet if len(_spec(env).obs_shape) == 3 else GDLAZNet).default_width


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
    if getattr(net, "fingerprint", None):
        description["fingerprint"] = net.fingerprint
    with open(json_path, "w") as f:
        json.dump(description, f, indent=1)
        f.write("\n")
    return json_path


def _same_game(model_env, model_fingerprint, s) -> str | None:
    """Why a model of ``model_env`` (with the sheet fingerprint ``model_fingerprint``, None for a
    hand-written game or an older model) is not one of game ``s``; None when it is."""
    if model_fingerprint is not None and s.fingerprint is not None:
        return None if model_fingerprint == s.fingerprint else f"another sheet than {s.sheet}"
    if model_env in (s.name, s.portable_name) and (model_fingerprint is None or s.fingerprint is not None):
        return None  # a hand-written game, or a sheet by its name (a model saved before fingerprints)
    return f"not of {s.name!r}"


def check_model_game(net: nn.Module, env) -> None:
    """ValueError unless ``net`` is a network of game ``env`` (a name or a spec)."""
    s = _spec(env)
    why = _same_game(getattr(net, "env_name", None), getattr(net, "fingerprint", None), s)
    if why is not None:
        raise ValueError(f"the model plays {getattr(net, 'env_name', None)!r:.80}, {why}")


def load_model(path: str, env_name=None) -> nn.Module:
    """The network stored by [`save_model()`][ggpzoo.training.az.net.save_model] at ``PATH.json`` (or ``PATH``), on the
    CPU, in evaluation mode. Runs no code from the files: a bad, foreign or pickled file, or one
    for another game than ``env_name`` (a name or a spec: compared by the description's name and
    sheet fingerprint before anything is built, so another sheet is never read), raises
    ValueError (OSError when it cannot be read)."""
    from ggpzoo.agents.weights import check_network_bytes, check_weights_file, load_weights, read_description, sizing

    json_path, d, weights_path = read_description(path, FORMAT, "model", MAX_JSON_BYTES)
    game = None
    if env_name is not None:
        game = _spec(env_name)
        fingerprint = d.get("fingerprint")
        why = _same_game(d.get("env"), fingerprint if isinstance(fingerprint, str) else None, game)
        if why is not None:
            raise ValueError(f"{json_path} is a model of {d.get('env')!r:.80}, {why}")
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
        env = d["env"] if game is None else game
        with sizing():  # sized before anything is allocated
            sized = cls(env, **args)
        check_network_bytes(sized, json_path)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{json_path}: bad model description: {type(e).__name__}: {e}") from None
    check_weights_file(weights_path, sized)  # before the network is built
    net = cls(env, **args)
    load_weights(net, weights_path, "network")
    net.eval()
    net.info = d.get("info", {})
    return net
