"""Deprecated (0.7.0): [`ggpzoo.agents.gumbel`][ggpzoo.agents.gumbel]'s `GumbelSearch` and `GumbelAZAgent`
search and play every two-role game, GDL sheets included. The old names stay until 0.8 and
warn."""

import importlib
import warnings

_NEW = {
    "GDLGumbelSearch": "GumbelSearch",
    "GDLGumbelAZAgent": "GumbelAZAgent",
    "two_role_game": "two_role_spec",
}


def __getattr__(name):
    if name in _NEW:
        warnings.warn(
            f"ggpzoo.agents.gdl_gumbel.{name} is deprecated: use ggpzoo.agents.gumbel.{_NEW[name]}, which plays "
            "every two-role game (its search runs on (boards, auxs) states)",
            DeprecationWarning,
            2,
        )
        return getattr(importlib.import_module("ggpzoo.agents.gumbel"), _NEW[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
