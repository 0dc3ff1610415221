"""Moved to `ggpzoo.envs.render` in 0.3.0: ``ggpzoo.render`` is that same module, so code, saved
models and Ray workers that name the old path keep working."""

import sys

from ggpzoo.envs.render import __name__ as _target

sys.modules[__name__] = sys.modules[_target]
