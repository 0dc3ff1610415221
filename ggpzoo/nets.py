"""Moved to `ggpzoo.training.nets` in 0.3.0: ``ggpzoo.nets`` is that same module, so code, saved
models and Ray workers that name the old path keep working."""

import sys

from ggpzoo.training.nets import __name__ as _target

sys.modules[__name__] = sys.modules[_target]
