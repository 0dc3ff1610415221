"""Deprecated (0.7.0): N games of one sheet stepped together are
[`ggpzoo.engine.VectorGames`][ggpzoo.engine.VectorGames], which plays every game, sheets included
(``VectorGames("gdl:connect_four", 256)``, or ``VectorGames(game)`` for a loaded sheet).

``GDLVectorGames(game, num_games, auto_reset=True, max_steps=None)`` still builds one, a
`VectorGames` with a ``DeprecationWarning`` (so its methods are `VectorGames`'s:
``legal_actions_of(game, role)``, ``observe()``, ``step()`` returning a ``StepResult``), and
``GDLStepResult`` is `ggpzoo.engine.StepResult`. These names go in 0.8.
"""

from __future__ import annotations

import warnings


def _warn(name: str, instead: str) -> None:
    warnings.warn(f"ggpzoo.gdl.batch.{name} is deprecated: use {instead}", DeprecationWarning, stacklevel=3)


def GDLVectorGames(game, num_games: int, auto_reset: bool = True, max_steps: int | None = None):  # noqa: N802
    """Deprecated: ``VectorGames(game, num_games, auto_reset, max_steps)`` for a loaded sheet, a
    ``.kif`` path or KIF text."""
    from ggpzoo.engine import VectorGames
    from ggpzoo.gdl.game import Game, load

    _warn("GDLVectorGames", "ggpzoo.engine.VectorGames('gdl:SHEET')")
    return VectorGames(game if isinstance(game, Game) else load(game), num_games, auto_reset, max_steps)


def __getattr__(name):
    if name == "GDLStepResult":
        from ggpzoo.engine import StepResult

        _warn(name, "ggpzoo.engine.StepResult")
        return StepResult
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
