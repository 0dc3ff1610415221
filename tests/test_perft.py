"""Perft: legal-action counts from the start, per depth, against tests/perft/<env>.txt.

Each file holds ``depth D COUNT`` lines (``#`` comments cite the source). COUNT is the
number of legal actions summed over every position reached after D - 1 actions; a
terminal position contributes none.
"""

from pathlib import Path

import numpy as np
import pytest

from ggpzoo.envs import ENVS, load

PERFT_DIR = Path(__file__).parent / "perft"


def perft(kernel, board, aux, depth):
    """Sum of the legal-action counts over the positions ``depth - 1`` actions deep."""
    if kernel.is_terminal(board, aux):
        return 0
    out = np.empty(kernel.MAX_LEGAL, np.int32)
    n = kernel.legal_actions(board, aux, out)
    if depth == 1:
        return n
    total = 0
    for a in out[:n]:
        b, x = board.copy(), aux.copy()
        kernel.apply(b, x, a)
        total += perft(kernel, b, x, depth - 1)
    return total


def _cases():
    for name in ENVS:
        path = PERFT_DIR / f"{name}.txt"
        if not path.exists():
            continue
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                _, depth, count = line.split()
                yield pytest.param(name, int(depth), int(count), id=f"{name}-depth{depth}")


def test_every_env_has_a_perft_file():
    assert sorted(p.stem for p in PERFT_DIR.glob("*.txt")) == sorted(ENVS)


@pytest.mark.parametrize("name,depth,count", list(_cases()))
def test_perft(name, depth, count):
    raw = load(name).raw_env
    kernel = raw.kernel
    board = np.zeros(kernel.H * kernel.W, np.int8)
    aux = np.zeros(kernel.AUX_SIZE, np.int32)
    kernel.init(board, aux, raw.variant)
    assert perft(kernel, board, aux, depth) == count
