"""Policies stored as plain weights and a JSON description: loading them runs no code.

A saved SB3 model (``model.save("model.zip")``, loaded by ``MaskablePPO.load`` and
`SB3Agent`) holds pickled Python objects, and unpickling a file runs
whatever code it names: load only ``.zip`` models you made yourself or trust. To share a
policy, store it with `save_policy()` instead:

* ``PATH.json``: what to build (the policy class from a fixed list, its constructor
  arguments as JSON, the spaces, the env);
* ``PATH.pt``: the network's ``state_dict``, tensors only, read back with
  ``torch.load(weights_only=True)``, which refuses anything but tensors and plain
  containers.

`load_policy()` rebuilds the policy from the JSON (classes are looked up by name in
the lists below, never imported from the file) and loads the weights into it. The result
has ``predict(obs, deterministic=..., action_masks=...)``, ``observation_space`` and
``action_space``, so it plays wherever a model does: ``SB3Agent("PATH.json", env)``, the
spec ``sb3:PATH.json``, or ``python -m ggpzoo arena --agents PATH.json,random``.

    from ggpzoo.agents.weights import save_policy, load_policy
    save_policy(model, "runs/skirmish", env_name="skirmish_v0")   # runs/skirmish.json + .pt
    policy = load_policy("runs/skirmish.json")

Needs the ``train`` extra (torch, stable-baselines3, sb3-contrib).
"""

from __future__ import annotations

import contextlib
import json
import os

import numpy as np

__all__ = [
    "save_policy",
    "load_policy",
    "FORMAT",
    "MAX_WEIGHTS_BYTES",
    "read_description",
    "check_weights_file",
    "load_weights",
]

FORMAT = "ggpzoo-policy-1"
MAX_JSON_BYTES = 1 << 20
# the largest network a description may build, and so the most tensor bytes a weights file
# may hold (policies here; AlphaZero networks in ggpzoo.training.az.net too): checked before
# anything is allocated
MAX_WEIGHTS_BYTES = 256 << 20
MAX_OBSERVATION_SIZE = 1 << 24  # numbers in a described observation space
MAX_ACTIONS = 1 << 24  # actions in a described action space


def tensor_bytes(module) -> int:
    """The bytes of ``module``'s parameters and buffers (also of a module built on the ``meta``
    device), a tensor shared by two of its parts counted once (a file stores it once)."""
    tensors = {id(t): t for t in module.state_dict(keep_vars=True).values()}
    return sum(t.numel() * t.element_size() for t in tensors.values())


@contextlib.contextmanager
def sizing():
    """Modules built inside are on the ``meta`` device: shapes without memory, to size a
    described network before building it (``.to(device)`` leaves them there)."""
    import torch
    from torch import nn

    to = nn.Module.to

    def stay(self, *args, **kwargs):  # a module on another device (another thread's) moves as usual
        if any(t.is_meta for t in self.parameters()):
            return self
        return to(self, *args, **kwargs)

    nn.Module.to = stay
    try:
        with torch.device("meta"):
            yield
    finally:
        nn.Module.to = to


def check_network_bytes(module, where: str) -> None:
    """ValueError if ``module`` (best built on the ``meta`` device) passes `MAX_WEIGHTS_BYTES`."""
    n = tensor_bytes(module)
    if n > MAX_WEIGHTS_BYTES:
        raise ValueError(
            f"{where}: the described network takes {n / 2**20:,.0f} MB, over MAX_WEIGHTS_BYTES = "
            f"{MAX_WEIGHTS_BYTES >> 20} MB"
        )


def _policy_classes() -> dict:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from ggpzoo.training.nets import CellPolicy

    return {"MaskableActorCriticPolicy": MaskableActorCriticPolicy, "CellPolicy": CellPolicy}


def _named_classes() -> dict:
    """The classes a description may name as an argument value (features extractors,
    activations, optimizers)."""
    import torch
    from stable_baselines3.common import torch_layers

    from ggpzoo.training import nets

    classes = {
        "FlattenExtractor": torch_layers.FlattenExtractor,
        "NatureCNN": torch_layers.NatureCNN,
        "BoardCNN": nets.BoardCNN,
        "ConvTrunk": nets.ConvTrunk,
    }
    for name in ("ReLU", "Tanh", "ELU", "LeakyReLU", "GELU", "SiLU", "Sigmoid", "Identity"):
        classes[name] = getattr(torch.nn, name)
    for name in ("Adam", "AdamW", "SGD", "RMSprop"):
        classes[name] = getattr(torch.optim, name)
    return classes


def _to_json(value, where: str):
    """``value`` (an argument of the policy's constructor) as plain JSON, classes by name."""
    if isinstance(value, type):
        for name, cls in _named_classes().items():
            if cls is value:
                return {"class": name}
        raise ValueError(f"cannot describe {where} = {value.__name__} in JSON: not one of {sorted(_named_classes())}")
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    if isinstance(value, (np.integer, np.floating)):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_to_json(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {k: _to_json(v, f"{where}.{k}") for k, v in value.items()}
    raise ValueError(f"cannot describe {where} = {value!r} in JSON")


def _from_json(value, where: str):
    if isinstance(value, dict):
        if set(value) == {"class"}:
            classes = _named_classes()
            if value["class"] not in classes:
                raise ValueError(f"{where} names the class {value['class']!r}, not one of {sorted(classes)}")
            return classes[value["class"]]
        return {k: _from_json(v, f"{where}.{k}") for k, v in value.items()}
    if isinstance(value, list):
        return [_from_json(v, f"{where}[{i}]") for i, v in enumerate(value)]
    return value


def _paths(path: str) -> tuple[str, str]:
    base = path[: -len(".json")] if path.endswith(".json") else path
    return base + ".json", base + ".pt"


# ----------------------------------------------------------------------------- shared by every plain-weights file
def read_description(path: str, fmt: str, what: str, max_bytes: int = MAX_JSON_BYTES) -> tuple[str, dict, str]:
    """Read the JSON description of a plain-weights file (``PATH.json``, or ``PATH``).

    Returns ``(json_path, description, weights_path)``; a file over ``max_bytes``, not
    JSON, of another ``fmt``, or whose ``weights`` is not a file name beside it raises a
    ValueError naming the ``what`` (``"policy"``, ``"model"``) it should have been.
    """
    json_path, _ = _paths(path)
    with open(json_path, "rb") as f:
        raw = f.read(max_bytes + 1)
    if len(raw) > max_bytes:
        size = f"{max_bytes >> 20} MB" if max_bytes >= 1 << 20 else f"{max_bytes >> 10} KB"
        raise ValueError(f"{json_path} is over {size}: not a {what} description")
    try:
        d = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise ValueError(f"{json_path} is not a JSON {what} description: {type(e).__name__}") from None
    if not isinstance(d, dict) or d.get("format") != fmt:
        raise ValueError(f"{json_path} is not a {what} description of format {fmt!r}")
    weights = d.get("weights")
    if not isinstance(weights, str) or os.path.basename(weights) != weights or not weights:
        raise ValueError(
            f"{json_path}: bad {what} description: 'weights' must be a file name next to the description, "
            f"got {weights!r}"
        )
    return json_path, d, os.path.join(os.path.dirname(json_path), weights)


SLACK_BYTES = 1 << 20  # what a weights file may hold besides its tensors (its structure, its names)


def check_weights_file(weights_path: str, module) -> None:
    """Check ``weights_path`` against ``module`` (the network it should hold, best built on the
    ``meta`` device: nothing allocated) before anything is read or built: a ValueError naming
    the file unless it is a regular file of at most ``MAX_WEIGHTS_BYTES`` plus ``SLACK_BYTES``,
    written by ``torch.save`` (a zip archive), whose tensor data (the sizes in its directory,
    read without inflating anything) are at least ``module``'s tensor bytes and at most that
    plus ``SLACK_BYTES``. So a small file that describes a large network, or a large file, is
    refused before the network is built."""
    import stat
    import zipfile

    need = tensor_bytes(module)
    st = os.stat(weights_path)
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"{weights_path} is not a regular file")
    if st.st_size > need + SLACK_BYTES:
        raise ValueError(f"{weights_path} holds {st.st_size:,} bytes, more than the described network's {need:,}")
    if not zipfile.is_zipfile(weights_path):
        raise ValueError(f"{weights_path} is not a plain weights file: not a torch.save archive (a zip file)")
    try:
        with zipfile.ZipFile(weights_path) as z:
            infos = z.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as e:
        raise ValueError(f"{weights_path} is not a plain weights file: {e}") from None
    total = sum(i.file_size for i in infos)
    data = sum(i.file_size for i in infos if "/data/" in i.filename)
    if total > need + SLACK_BYTES:
        raise ValueError(f"{weights_path} unpacks to {total:,} bytes, more than the described network's {need:,}")
    if data < need:
        raise ValueError(  # e.g. a pickle of other objects: torch.save wrote no tensor data for them
            f"{weights_path} is not a plain weights file of the described network: it holds {data:,} bytes of "
            f"tensors, fewer than the network's {need:,}"
        )


def _reason(e: Exception) -> str:
    """The line of ``e``'s message that says why (torch's unpickler writes a paragraph)."""
    import re

    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line).strip() for line in str(e).splitlines()]
    lines = [line for line in lines if line]
    why = next((line for line in lines if "error:" in line.lower()), lines[0] if lines else "")
    return why[:200]


def load_weights(module, weights_path: str, what: str) -> None:
    """Load the tensors of ``weights_path`` into ``module`` with ``torch.load(weights_only=True)``,
    which runs no code; a pickle of anything else, or tensors that do not fit, is a ValueError
    (an unreadable file an OSError). The file is checked first (`check_weights_file()`; the
    loaders call that before they build ``module``); torch reads each tensor's record only
    where its size is the one the file declares for it."""
    import torch

    check_weights_file(weights_path, module)
    try:
        state = torch.load(weights_path, map_location="cpu", weights_only=True)
    except OSError:
        raise
    except Exception as e:  # the weights-only unpickler refuses anything but tensors and containers
        raise ValueError(f"{weights_path} is not a plain weights file: {type(e).__name__}: {_reason(e)}") from None
    try:
        module.load_state_dict(state)
    except (RuntimeError, TypeError, AttributeError) as e:
        raise ValueError(f"{weights_path} does not fit the described {what}: {str(e).splitlines()[0]}") from None


def save_policy(model, path: str, env_name: str | None = None) -> str:
    """Write ``model``'s policy (a MaskablePPO model, or its ``policy``) as ``PATH.json`` and
    ``PATH.pt``; return the JSON file's path. Raises ValueError if the policy's class or an
    argument cannot be described in JSON."""
    import torch
    from gymnasium import spaces

    policy = getattr(model, "policy", model)
    classes = _policy_classes()
    kind = type(policy).__name__
    if classes.get(kind) is not type(policy):
        raise ValueError(f"cannot store a {kind}: save_policy knows {sorted(classes)}")
    params = dict(policy._get_constructor_parameters())
    obs_space, act_space = params.pop("observation_space"), params.pop("action_space")
    params.pop("lr_schedule", None)
    if not isinstance(obs_space, spaces.Box) or not isinstance(act_space, spaces.Discrete):
        raise ValueError(f"save_policy stores Box observations and Discrete actions, got {obs_space}, {act_space}")
    low, high = np.unique(obs_space.low), np.unique(obs_space.high)
    if len(low) != 1 or len(high) != 1:
        raise ValueError("save_policy stores observation spaces with one low and one high bound")
    description = {
        "format": FORMAT,
        "env": env_name,
        "policy": kind,
        "observation_space": {
            "shape": list(obs_space.shape),
            "dtype": str(obs_space.dtype),
            "low": low[0].item(),
            "high": high[0].item(),
        },
        "action_space": {"n": int(act_space.n)},
        "arguments": _to_json(params, "arguments"),
    }
    json_path, weights_path = _paths(path)
    state = {k: v.detach().cpu() for k, v in policy.state_dict().items()}
    torch.save(state, weights_path)
    with open(json_path, "w") as f:
        json.dump(description | {"weights": os.path.basename(weights_path)}, f, indent=1)
        f.write("\n")
    return json_path


def load_policy(path: str):
    """The policy stored by `save_policy()` at ``PATH.json`` (or ``PATH``), on the CPU,
    in evaluation mode. Runs no code from the files: a bad or foreign file raises
    ValueError (or OSError when it cannot be read)."""
    from gymnasium import spaces

    json_path, d, weights_path = read_description(path, FORMAT, "policy")
    try:
        classes = _policy_classes()
        if d["policy"] not in classes:
            raise ValueError(f"the policy class {d['policy']!r} is not one of {sorted(classes)}")
        o = d["observation_space"]
        shape = tuple(int(n) for n in o["shape"])
        if any(n < 1 for n in shape) or int(np.prod(shape, dtype=object)) > MAX_OBSERVATION_SIZE:
            raise ValueError(f"the observation shape {shape} is empty or passes {MAX_OBSERVATION_SIZE:,} numbers")
        if not 1 <= int(d["action_space"]["n"]) <= MAX_ACTIONS:
            raise ValueError(f"the action count must be in 1..{MAX_ACTIONS:,}, got {d['action_space']['n']!r}")
        obs_space = spaces.Box(
            float(o["low"]), float(o["high"]), tuple(int(n) for n in o["shape"]), np.dtype(o["dtype"])
        )
        act_space = spaces.Discrete(int(d["action_space"]["n"]))
        arguments = _from_json(d["arguments"], "arguments")
        if not isinstance(arguments, dict):
            raise ValueError("'arguments' is not an object")
        with sizing():  # sized before anything is allocated
            sized = classes[d["policy"]](obs_space, act_space, lambda _: 0.0, **arguments)
        check_network_bytes(sized, json_path)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{json_path}: bad policy description: {type(e).__name__}: {e}") from None
    check_weights_file(weights_path, sized)  # before the policy is built
    try:
        policy = classes[d["policy"]](obs_space, act_space, lambda _: 0.0, **arguments)
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{json_path}: bad policy description: {type(e).__name__}: {e}") from None
    load_weights(policy, weights_path, "policy")
    policy.set_training_mode(False)
    policy.env_name = d.get("env")
    return policy
