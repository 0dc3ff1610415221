"""What the test files share: states from seeded random games, and random games themselves.

Each game's own drawings are read by its kernel's ``from_string``; the plain-Python
reference generators stay in each game's test file, next to the positions they check.
"""

from __future__ import annotations

import numpy as np

from ggpzoo.envs import load


def random_states(name: str, games: int, seed: int):
    """Every state, the terminal one included, of ``games`` seeded random games of ``name``,
    as fresh ``(board, aux)`` copies."""
    env = load(name).raw_env()
    rng = np.random.default_rng(seed)
    for _ in range(games):
        env.reset()
        yield env.get_state()
        while not env.is_game_over():
            legal = env.legal_actions()
            env.step(int(legal[rng.integers(len(legal))]))
            yield env.get_state()


def random_positions(name: str, count: int, seed: int, max_depth: int = 60) -> list:
    """``count`` live states (the role to act has a legal action) of seeded random games of
    ``name``, each at a random depth below ``max_depth``, so that they spread over whole games."""
    env = load(name).raw_env()
    rng = np.random.default_rng(seed)
    states = []
    while len(states) < count:
        env.reset()
        for _ in range(int(rng.integers(0, max_depth))):
            if env.is_game_over():
                break
            legal = env.legal_actions()
            env.step(int(legal[rng.integers(len(legal))]))
        if not env.is_game_over():
            states.append(env.get_state())
    return states
