"""GDL games as PettingZoo environments (see the README section "GDL games").

``load(path_or_text)`` reads and checks a rule sheet in KIF and returns a
[`Game`][ggpzoo.gdl.game.Game]; ``env(path)`` / ``raw_env(path)`` wrap it as an AEC env and
``parallel_env(path)`` as a Parallel env. ``spec("gdl:tictactoe")`` (also
[`ggpzoo.envs.spec()`][ggpzoo.envs.spec]) is the game's [`GameSpec`][ggpzoo.envs.gamespec.GameSpec];
``gdl:tictactoe`` is the name every ``--env`` option takes.
"""

import os as _os

from ggpzoo.gdl.envs import env, parallel_env, raw_env
from ggpzoo.gdl.game import Game, load
from ggpzoo.gdl.spec import gdl_spec as spec
from ggpzoo.gdl.syntax import GDLError

__all__ = ["GAMES_DIR", "GDLError", "Game", "env", "game_path", "load", "parallel_env", "raw_env", "spec"]

GAMES_DIR = _os.path.join(_os.path.dirname(__file__), "games")


def game_path(name: str) -> str:
    """Path of a sheet shipped in ``ggpzoo/gdl/games/`` (``"tictactoe"`` -> ``.../tictactoe.kif``)."""
    p = _os.path.join(GAMES_DIR, name if name.endswith(".kif") else name + ".kif")
    if not _os.path.exists(p):
        names = sorted(f[:-4] for f in _os.listdir(GAMES_DIR) if f.endswith(".kif"))
        raise ValueError(f"no shipped GDL game {name!r}; shipped: {', '.join(names)} (or give a .kif path)")
    return p


def __getattr__(name):
    if name == "GDLSpec":  # deprecated alias (0.6): a sheet's spec is a GameSpec
        import importlib

        return importlib.import_module("ggpzoo.gdl.spec").__getattr__(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
