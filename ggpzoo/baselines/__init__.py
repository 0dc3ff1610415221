"""Shipped baseline networks: ``<env>.json`` + ``<env>.pt`` in this directory, one per game.

A baseline is a Gumbel AlphaZero network (`ggpzoo.training.az`) trained for a fixed
budget, saved with [`save_model()`][ggpzoo.training.az.net.save_model] (plain weights, loaded with
``weights_only=True``). It is a fixed, reproducible opponent to measure agents against
(``baseline`` plays the network alone, ``baseline:32`` with 32 simulations of search), not
a strong player. Every game has one (0.5.0; skirmish_endgame_v0 since 0.4.0); how each
was trained is in its JSON's ``info`` and in the AlphaZero guide, with its scores.
"""

from __future__ import annotations

import os

__all__ = ["baseline_path", "available"]

DIRECTORY = os.path.dirname(os.path.abspath(__file__))


def baseline_path(env_name: str) -> str | None:
    """The ``.json`` of env ``env_name``'s shipped baseline, or None when there is none."""
    path = os.path.join(DIRECTORY, f"{env_name}.json")
    return path if os.path.isfile(path) and os.path.isfile(path[: -len(".json")] + ".pt") else None


def available() -> list[str]:
    """The envs with a shipped baseline."""
    from ggpzoo.envs import SPECS

    return [name for name in sorted(SPECS) if baseline_path(name)]
