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


_HELP = """
import contextlib, io, json, os, runpy, sys, traceback
paths, answers = sys.argv[1:], {}
for path in paths:
    sys.argv, sys.path[0] = [path, "--help"], os.path.dirname(path)  # as `python path --help` has them
    out, err, code = io.StringIO(), io.StringIO(), 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        code = e.code
    except Exception:
        code = 1
        err.write(traceback.format_exc())
    answers[path] = [code, out.getvalue(), err.getvalue()]
print(json.dumps(answers))
"""


def scripts_help(paths, timeout: float) -> dict:
    """``{path: (exit code, stdout, stderr)}`` of each script run as ``__main__`` with ``--help``,
    all in one fresh interpreter (one start-up and one import of the libraries they share,
    instead of one each)."""
    import json
    import subprocess
    import sys

    paths = [str(p) for p in paths]
    out = subprocess.run([sys.executable, "-c", _HELP, *paths], capture_output=True, text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr
    return {path: tuple(answer) for path, answer in json.loads(out.stdout.splitlines()[-1]).items()}
