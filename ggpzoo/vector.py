"""Moved to `ggpzoo.engine.batch` in 0.3.0: ``ggpzoo.vector`` is that same module."""

import sys

from ggpzoo.engine.batch import __name__ as _target

sys.modules[__name__] = sys.modules[_target]
