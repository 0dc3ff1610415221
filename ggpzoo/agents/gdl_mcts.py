"""Deprecated (0.7.0): the MCTS agent of GDL games is [`ggpzoo.agents.MCTSAgent`][ggpzoo.agents.MCTSAgent], which
searches every game; GDL states are built with `ggpzoo.gdl.states.state_from_fluents()`.
These names stay until 0.8 and emit a ``DeprecationWarning``."""

from __future__ import annotations

import importlib
import warnings

_MOVED = {
    "GDLMCTSAgent": ("ggpzoo.agents.mcts", "MCTSAgent"),
    "state_from_fluents": ("ggpzoo.gdl.states", "state_from_fluents"),
    "checked_state": ("ggpzoo.gdl.states", "checked_state"),
    "env_state": ("ggpzoo.gdl.states", "env_state"),
    "SimultaneousMoveError": ("ggpzoo.gdl.states", "SimultaneousMoveError"),
}


def __getattr__(name):
    if name in _MOVED:
        module, new = _MOVED[name]
        warnings.warn(
            f"ggpzoo.agents.gdl_mcts.{name} is deprecated: use {module}.{new}", DeprecationWarning, stacklevel=2
        )
        return getattr(importlib.import_module(module), new)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
