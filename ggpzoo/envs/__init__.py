"""The ggpzoo games: their specs (the registry), and the PettingZoo-classic env modules.

``SPECS`` maps each env name to its :class:`~ggpzoo.envs.gamespec.GameSpec`: registering a game
is one line in the tuple below. ``spec(name)`` looks one up without importing PettingZoo;
``from ggpzoo.envs import amazons_v0`` gives the env module (``env()``, ``raw_env``), and
:mod:`ggpzoo` registers every entry with PettingZoo's registry as ``ggpzoo/<game>-v<N>``.
"""

import importlib

from ggpzoo.envs.amazons.spec import AMAZONS, AMAZONS_SPLIT
from ggpzoo.envs.gamespec import GameSpec
from ggpzoo.envs.mad_bishops.spec import MAD_BISHOPS
from ggpzoo.envs.skirmish.spec import SKIRMISH, SKIRMISH_ENDGAME

__all__ = ["SPECS", "ENVS", "GameSpec", "spec", "load", "registry_id"]

# The registry: one line per game.
SPECS = {
    s.name: s
    for s in (
        AMAZONS,
        AMAZONS_SPLIT,
        SKIRMISH,
        SKIRMISH_ENDGAME,
        MAD_BISHOPS,
    )
}

# Env name -> the module with ``env()`` and ``raw_env`` (kept for code that reads ENVS).
ENVS = {name: s.env_module for name, s in SPECS.items()}


def spec(name: str) -> GameSpec:
    """The :class:`GameSpec` of env ``name``; ValueError naming the known envs otherwise."""
    try:
        return SPECS[name]
    except (KeyError, TypeError):
        raise ValueError(f"unknown environment {name!r}; known: {', '.join(SPECS)}") from None


def registry_id(name: str) -> str:
    """``"amazons_split_v0"`` -> ``"ggpzoo/amazons_split-v0"``."""
    return spec(name).registry_id


def load(name: str):
    """The env module of ``name`` (``env()`` and ``raw_env``; imports PettingZoo)."""
    return importlib.import_module(spec(name).env_module)


def __getattr__(name):  # lazy `from ggpzoo.envs import amazons_v0`
    if name in SPECS:
        return load(name)
    raise AttributeError(f"module 'ggpzoo.envs' has no attribute {name!r}")
