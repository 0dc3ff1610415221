"""Moved to `ggpzoo.engine.dispatch` in 0.3.0: ``ggpzoo.kernels`` is that same module."""

import sys

from ggpzoo.engine.dispatch import __name__ as _target

sys.modules[__name__] = sys.modules[_target]
