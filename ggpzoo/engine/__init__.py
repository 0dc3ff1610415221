"""The engine: the kernel dispatch, batched games and the numba helpers, below everything else.

* `ggpzoo.engine.dispatch` - every rules kernel behind one numba function per
  protocol call, switching on a kernel id (`kernel_id()`).
* `ggpzoo.engine.batch` - `VectorGames` (N games stepped together on every
  core) and `play_games()` (whole games without Python in the loop).
* `ggpzoo.engine.policies` - random and greedy choices inside numba.
* `ggpzoo.engine.rng` - the random streams numba code draws from.

The engine imports the games (`ggpzoo.envs`' kernels and specs) and nothing above it:
no agents, wrappers, training or tools, and no PettingZoo.
"""

from ggpzoo.engine.batch import StepResult, VectorGames, play, play_games

__all__ = ["VectorGames", "StepResult", "play_games", "play"]
