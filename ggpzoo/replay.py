"""Moved to `ggpzoo.tools.replay` in 0.3.0: ``ggpzoo.replay`` is that same module, so code, saved
models and Ray workers that name the old path keep working."""

import sys

from ggpzoo.tools.replay import __name__ as _target

sys.modules[__name__] = sys.modules[_target]
