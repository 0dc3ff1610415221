"""``GDLSpec``: a GDL rule sheet as one more kind of game, named ``gdl:SHEET``.

A hand-written game is a [`GameSpec`][ggpzoo.envs.gamespec.GameSpec] (``kind == "kernel"``); a
GDL game is a [`GDLSpec`][ggpzoo.gdl.spec.GDLSpec] (``kind == "gdl"``). Both are what
[`ggpzoo.envs.spec()`][ggpzoo.envs.spec] returns for an env name, so every tool that takes ``--env NAME``
takes ``gdl:tictactoe`` (a sheet shipped in ``ggpzoo/gdl/games/``) or ``gdl:PATH.kif`` too,
and asks the spec instead of testing what kind of object it was given::

    >>> import ggpzoo.envs
    >>> s = ggpzoo.envs.spec("gdl:tictactoe")
    >>> s.kind, s.agents, s.action_counts
    ('gdl', ('xplayer', 'oplayer'), {'xplayer': 10, 'oplayer': 10})
    >>> s.raw_env().possible_agents
    ['xplayer', 'oplayer']

Loading a sheet reads, checks and (for the fixed action lists) grounds it, so specs are
cached by sheet path: every ``spec("gdl:tictactoe")`` is the same object, with one
[`Game`][ggpzoo.gdl.game.Game] (a sheet edited on disk is read again by a new process).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cached_property
from types import SimpleNamespace
from typing import ClassVar

from ggpzoo.gdl.game import Game, load

__all__ = ["GDLSpec", "PREFIX", "gdl_spec", "gdl_game", "is_gdl_name", "sheet_path"]

PREFIX = "gdl:"
_CACHE: dict[str, GDLSpec] = {}


def is_gdl_name(name) -> bool:
    """Whether ``name`` names a GDL game (``"gdl:SHEET"``)."""
    return isinstance(name, str) and name.startswith(PREFIX)


def sheet_path(sheet: str) -> str:
    """The ``.kif`` file of ``sheet``: a path (anything with a ``/`` or ending ``.kif``) or
    the name of a sheet shipped in ``ggpzoo/gdl/games/``; ValueError naming the shipped ones."""
    if not isinstance(sheet, str) or not sheet:
        raise ValueError(f"a GDL game is named gdl:SHEET, a .kif path or a shipped sheet; got {sheet!r}")
    if sheet.endswith(".kif") or "/" in sheet or os.sep in sheet:
        if not os.path.isfile(sheet):
            raise ValueError(f"no such GDL file: {sheet!r}")
        return os.path.abspath(sheet)
    from ggpzoo.gdl import game_path

    return game_path(sheet)


@dataclass(frozen=True, eq=False)
class GDLSpec:
    """What one GDL game is: its sheet, roles and action spaces, and its env factories.

    Args:
        name: the env name, ``"gdl:SHEET"`` as the user gave it (a shipped sheet's name or
            a path), which [`ggpzoo.envs.spec()`][ggpzoo.envs.spec] maps back to this spec.
        path: the ``.kif`` file (empty for the spec of a game loaded from text, see
            [`gdl_spec()`][ggpzoo.gdl.spec.gdl_spec]).
    """

    kind: ClassVar[str] = "gdl"

    name: str
    path: str

    def __repr__(self) -> str:
        return f"GDLSpec({self.name!r})"

    @cached_property
    def game(self) -> Game:
        """The loaded, checked game ([`Game`][ggpzoo.gdl.game.Game]), read once."""
        return load(self.path)

    @property
    def sheet(self) -> str:
        """The sheet's name: ``"tictactoe"`` for ``gdl:tictactoe`` and ``gdl:dir/tictactoe.kif``."""
        return self.game.name

    @property
    def agents(self) -> tuple[str, ...]:
        """The roles, in the sheet's order: the env's agents."""
        return tuple(self.game.roles)

    @property
    def action_counts(self) -> dict[str, int]:
        """role -> the size of its ``Discrete`` action space."""
        return {r: len(ms) for r, ms in self.game.actions.items()}

    @property
    def num_fluents(self) -> int:
        """The size of the base set (the fluent vector of the observation)."""
        return len(self.game.fluents)

    @property
    def label(self) -> str:
        """A name safe for file and folder names: ``"gdl_tictactoe"``."""
        return f"gdl_{self.sheet}"

    # ------------------------------------------------------------------ env
    def raw_env(self, **kwargs):
        """[`ggpzoo.gdl.envs.raw_env`][ggpzoo.gdl.envs.raw_env] of this game."""
        from ggpzoo.gdl.envs import raw_env

        return raw_env(self.game, **kwargs)

    def env(self, **kwargs):
        """[`ggpzoo.gdl.envs.env()`][ggpzoo.gdl.envs.env] of this game: the wrapped AEC env."""
        from ggpzoo.gdl.envs import env

        return env(self.game, **kwargs)

    def parallel_env(self, **kwargs):
        """[`ggpzoo.gdl.envs.parallel_env`][ggpzoo.gdl.envs.parallel_env] of this game."""
        from ggpzoo.gdl.envs import parallel_env

        return parallel_env(self.game, **kwargs)

    def env_factory(self):
        """The ``env()`` factory, as `GameSpec.env_factory()` gives it."""
        return self.env

    def module(self) -> SimpleNamespace:
        """What [`ggpzoo.envs.load()`][ggpzoo.envs.load] returns for this game: ``env``, ``raw_env`` and
        ``parallel_env`` bound to the sheet, as an env module has them."""
        return SimpleNamespace(env=self.env, raw_env=self.raw_env, parallel_env=self.parallel_env)


def gdl_spec(name_or_game) -> GDLSpec:
    """The spec of ``"gdl:SHEET"`` (cached by the sheet's path), or of a loaded
    [`Game`][ggpzoo.gdl.game.Game] (named after it, not cached)."""
    if isinstance(name_or_game, Game):
        spec = GDLSpec(PREFIX + name_or_game.name, "")
        spec.__dict__["game"] = name_or_game  # the cached_property's slot: no second load
        return spec
    if not is_gdl_name(name_or_game):
        raise ValueError(f"a GDL game's name starts with {PREFIX!r}, e.g. gdl:tictactoe; got {name_or_game!r}")
    path = sheet_path(name_or_game[len(PREFIX) :])
    if path not in _CACHE:
        _CACHE[path] = GDLSpec(name_or_game, path)
    return _CACHE[path]


def gdl_game(env) -> Game | None:
    """The [`Game`][ggpzoo.gdl.game.Game] of a GDL game named ``gdl:SHEET``, given as a loaded
    game, or as its [`GDLSpec`][ggpzoo.gdl.spec.GDLSpec]; None for anything else (a hand-written game's name).
    Tools that take both kinds of game call this once where they start."""
    if isinstance(env, Game):
        return env
    if isinstance(env, GDLSpec):
        return env.game
    if is_gdl_name(env):
        return gdl_spec(env).game
    return None
