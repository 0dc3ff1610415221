"""The ggpzoo environments, PettingZoo-classic style: ``from ggpzoo.envs import amazons_v0``.

``ENVS`` maps each environment's name to its module; :mod:`ggpzoo` registers every entry
with PettingZoo's registry as ``ggpzoo/<game>-v<N>``.
"""

import importlib

ENVS = {
    "amazons_v0": "ggpzoo.envs.amazons_v0",
    "amazons_split_v0": "ggpzoo.envs.amazons_split_v0",
    "skirmish_v0": "ggpzoo.envs.skirmish_v0",
    "skirmish_endgame_v0": "ggpzoo.envs.skirmish_endgame_v0",
    "mad_bishops_v0": "ggpzoo.envs.mad_bishops_v0",
}


def registry_id(name: str) -> str:
    """``"amazons_split_v0"`` -> ``"ggpzoo/amazons_split-v0"``."""
    game, _, version = name.rpartition("_")
    return f"ggpzoo/{game}-{version}"


def load(name: str):
    """The module of environment ``name`` (a key of ``ENVS``)."""
    if not isinstance(name, str) or name not in ENVS:
        raise ValueError(f"unknown environment {name!r}; known: {', '.join(ENVS)}")
    return importlib.import_module(ENVS[name])


def __getattr__(name):  # lazy `from ggpzoo.envs import amazons_v0`
    if name in ENVS:
        return load(name)
    raise AttributeError(f"module 'ggpzoo.envs' has no attribute {name!r}")
