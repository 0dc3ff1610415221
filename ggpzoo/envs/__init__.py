"""The ggpzoo games: their specs (the registry), and the PettingZoo-classic env modules.

``SPECS`` maps each env name to its [`GameSpec`][ggpzoo.envs.gamespec.GameSpec]: registering a game
is one line in the tuple below. ``spec(name)`` looks one up without importing PettingZoo
(a name ``gdl:SHEET`` gives a GDL rule sheet's spec, `ggpzoo.gdl.spec.gdl_spec()`);
``from ggpzoo.envs import amazons_v0`` gives the env module (``env()``, ``raw_env``), and
`ggpzoo` registers every entry with PettingZoo's registry as ``ggpzoo/<game>-v<N>``.
"""

from ggpzoo.envs.amazons.spec import AMAZONS, AMAZONS_SPLIT
from ggpzoo.envs.gamespec import ENGINE_COMPILE_SECONDS, GameSpec
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


def compile_seconds(name: str) -> int:
    """`GameSpec.compile_seconds` of env ``name``, without loading a ``gdl:SHEET``."""
    return ENGINE_COMPILE_SECONDS["sheet" if isinstance(name, str) and name.startswith("gdl:") else "kernels"]


def spec(name: str):
    """The [`GameSpec`][ggpzoo.envs.gamespec.GameSpec] of env ``name``, also for ``gdl:SHEET`` (a sheet shipped in
    ``ggpzoo/gdl/games/`` or a ``.kif`` path); ValueError naming the known envs otherwise.
    A spec is its own spec, and a loaded [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game] has one."""
    try:
        return SPECS[name]
    except (KeyError, TypeError):
        pass
    if isinstance(name, GameSpec):
        return name
    if isinstance(name, str) and name.startswith("gdl:") or _is_loaded_game(name):
        from ggpzoo.gdl.spec import gdl_spec

        return gdl_spec(name)
    raise ValueError(f"unknown environment {name!r}; known: {', '.join(SPECS)}, or gdl:SHEET (a GDL game)") from None


def _is_loaded_game(x) -> bool:
    """Whether ``x`` is a loaded GDL game (none can exist before ``ggpzoo.gdl.game`` is imported)."""
    import sys

    module = sys.modules.get("ggpzoo.gdl.game")
    return module is not None and isinstance(x, module.Game)


def registry_id(name: str) -> str:
    """``"amazons_split_v0"`` -> ``"ggpzoo/amazons_split-v0"``."""
    return spec(name).registry_id


def load(name: str):
    """The env module of ``name`` (``env()`` and ``raw_env``; imports PettingZoo); for a GDL
    game, the same factories bound to its sheet ([`module()`][ggpzoo.envs.gamespec.GameSpec.module])."""
    return spec(name).module()


def __getattr__(name):  # lazy `from ggpzoo.envs import amazons_v0`
    if name in SPECS:
        return load(name)
    raise AttributeError(f"module 'ggpzoo.envs' has no attribute {name!r}")
