"""A GDL rule sheet as one more game, named ``gdl:SHEET``: its [`GameSpec`][ggpzoo.envs.gamespec.GameSpec].

A sheet's spec is a [`GameSpec`][ggpzoo.envs.gamespec.GameSpec] like a hand-written game's, with the table
interpreter of compiled sheets as its kernel, so every tool that takes ``--env NAME`` takes
``gdl:tictactoe`` (a sheet shipped in ``ggpzoo/gdl/games/``) or ``gdl:PATH.kif`` too, and
asks the spec for what it needs::

    >>> import ggpzoo.envs
    >>> s = ggpzoo.envs.spec("gdl:tictactoe")
    >>> s.agents, s.action_counts, s.label
    (('xplayer', 'oplayer'), {'xplayer': 10, 'oplayer': 10}, 'gdl_tictactoe')
    >>> s.raw_env().possible_agents
    ['xplayer', 'oplayer']

Loading a sheet reads, checks and (for the fixed action lists) grounds it, so specs are
cached by sheet path: every ``spec("gdl:tictactoe")`` is the same object, with one
[`Game`][ggpzoo.gdl.game.Game] (a sheet edited on disk is read again by a new process).
"""

from __future__ import annotations

import os

from ggpzoo.envs.gamespec import GameSpec
from ggpzoo.envs.propnet import kernel as propnet_kernel
from ggpzoo.gdl.game import Game, load

__all__ = ["PREFIX", "gdl_spec", "gdl_game", "is_gdl_name", "sheet_path"]

PREFIX = "gdl:"
# What a sheet's training recipe changes in ggpzoo.training.train.DEFAULT_RECIPE: a smaller
# MLP (on the fluent vector), fewer games with longer rollouts (small games, short episodes).
SHEET_RECIPE = {"n_envs": 16, "n_steps": 128, "batch_size": 512, "net_arch": [128, 128]}
_CACHE: dict[str, GameSpec] = {}


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


def _sheet_spec(name: str, game: Game, path: str) -> GameSpec:
    """The [`GameSpec`][ggpzoo.envs.gamespec.GameSpec] of a loaded sheet: its kernel is the table
    interpreter of compiled sheets (`ggpzoo.envs.propnet.kernel`)."""
    counts = tuple(len(game.actions[r]) for r in game.roles)
    return GameSpec(
        name=name,
        kernel=propnet_kernel,
        variant=0,
        num_actions=max(counts, default=0),
        num_planes=len(game.fluents) + len(game.roles),
        env_module="ggpzoo.gdl.envs",
        piece_chars="",
        action_parts=(),
        agents=tuple(game.roles),
        role_actions=counts,
        simultaneous=sum(c > 1 for c in counts) > 1,
        aux_in_state=False,
        recipe=SHEET_RECIPE,
        game=game,
        path=path,
    )


def gdl_spec(name_or_game) -> GameSpec:
    """The spec of ``"gdl:SHEET"`` (read once, cached by the sheet's path), or of a loaded
    [`Game`][ggpzoo.gdl.game.Game] (named after it, not cached)."""
    if isinstance(name_or_game, Game):
        return _sheet_spec(PREFIX + name_or_game.name, name_or_game, "")
    if not is_gdl_name(name_or_game):
        raise ValueError(f"a GDL game's name starts with {PREFIX!r}, e.g. gdl:tictactoe; got {name_or_game!r}")
    path = sheet_path(name_or_game[len(PREFIX) :])
    if path not in _CACHE:
        _CACHE[path] = _sheet_spec(name_or_game, load(path), path)
    return _CACHE[path]


def gdl_game(env) -> Game | None:
    """The [`Game`][ggpzoo.gdl.game.Game] of a GDL game named ``gdl:SHEET``, given as a loaded
    game, or as its spec; None for anything else (a hand-written game)."""
    if isinstance(env, Game):
        return env
    if isinstance(env, GameSpec):
        return env.game
    if is_gdl_name(env):
        return gdl_spec(env).game
    return None


def __getattr__(name):
    if name == "GDLSpec":  # the old name of a sheet's spec class (0.6)
        import warnings

        warnings.warn(
            "ggpzoo.gdl.spec.GDLSpec is deprecated: a sheet's spec is a ggpzoo.envs.GameSpec", DeprecationWarning, 2
        )
        return GameSpec
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
