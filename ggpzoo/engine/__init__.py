"""The engine: the kernel dispatch, batched games and the numba helpers, below everything else.

* :mod:`ggpzoo.engine.dispatch` - every rules kernel behind one numba function per
  protocol call, switching on a kernel id (:func:`~ggpzoo.engine.dispatch.kernel_id`).
* :mod:`ggpzoo.engine.batch` - :class:`VectorGames` (N games stepped together on every
  core) and :func:`play_games` (whole games without Python in the loop).
* :mod:`ggpzoo.engine.policies` - random and greedy choices inside numba.
* :mod:`ggpzoo.engine.rng` - the random streams numba code draws from.

The engine imports the games (:mod:`ggpzoo.envs`' kernels and specs) and nothing above it:
no agents, wrappers, training or tools, and no PettingZoo.
"""

from ggpzoo.engine.batch import StepResult, VectorGames, play, play_games

__all__ = ["VectorGames", "StepResult", "play_games", "play"]
