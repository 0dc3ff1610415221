"""The suite's own bookkeeping: every test that ``conftest.SLOW`` names exists."""

import ast
from pathlib import Path

import pytest
from conftest import ALL, SLOW

TESTS = Path(__file__).resolve().parent


def _test_functions(path: Path) -> set:
    tree = ast.parse(path.read_text())
    return {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name.startswith("test_")}


@pytest.mark.parametrize("file", sorted(SLOW))
def test_every_slow_test_named_exists(file):
    """A renamed or removed test left in ``SLOW`` would silently move its namesake into the quick subset."""
    path = TESTS / file
    assert path.is_file(), f"conftest.SLOW names {file}, which is not a test file"
    if SLOW[file] is not ALL:
        missing = set(SLOW[file]) - _test_functions(path)
        assert not missing, f"conftest.SLOW names tests that {file} lacks: {sorted(missing)}"
