"""Moved to :mod:`ggpzoo.engine.dispatch` in 0.3.0; this module re-exports it."""

from ggpzoo.engine.dispatch import *  # noqa: F401,F403
from ggpzoo.engine.dispatch import KERNELS, MAX_LEGAL, kernel_id  # noqa: F401
