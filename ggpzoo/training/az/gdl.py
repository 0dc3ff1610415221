"""Deprecated (0.7.0): [`ggpzoo.training.az.train`][ggpzoo.training.az.train]'s `SelfPlay` and `net_score`
train and measure every two-role game, GDL sheets included. The old names stay until 0.8 and
warn."""

import importlib
import warnings

_NEW = {"GDLSelfPlay": "SelfPlay", "gdl_net_score": "net_score"}


def __getattr__(name):
    if name in _NEW:
        warnings.warn(
            f"ggpzoo.training.az.gdl.{name} is deprecated: use ggpzoo.training.az.train.{_NEW[name]}, which "
            "plays every two-role game",
            DeprecationWarning,
            2,
        )
        return getattr(importlib.import_module("ggpzoo.training.az.train"), _NEW[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
