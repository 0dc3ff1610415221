"""Each env replays its golden playthrough exactly (``tests/playthrough.py`` writes them)."""

import pytest
from playthrough import path, playthrough

from ggpzoo.envs import SPECS


@pytest.mark.parametrize("name", list(SPECS))
def test_playthrough_is_unchanged(name):
    expected = path(name).read_text().splitlines()
    actual = playthrough(name).splitlines()
    for i, (want, got) in enumerate(zip(expected, actual, strict=False), 1):
        assert got == want, (
            f"{path(name).name} line {i} differs; if the change is intended, run python tests/playthrough.py"
        )
    assert len(actual) == len(expected), f"{path(name).name}: {len(actual)} lines, the golden file has {len(expected)}"
