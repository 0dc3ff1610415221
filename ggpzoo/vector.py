"""Moved to :mod:`ggpzoo.engine.batch` in 0.3.0; this module re-exports it."""

from ggpzoo.engine.batch import POLICIES, StepResult, VectorGames, play  # noqa: F401

__all__ = ["VectorGames", "StepResult", "play"]
