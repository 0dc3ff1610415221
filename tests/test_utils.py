"""ggpzoo.utils.sample_action: a uniformly random legal action from a mask."""

import numpy as np
import pytest

from ggpzoo.utils import sample_action


@pytest.mark.parametrize("size", [1, 7, 8, 9, 86_980])
def test_finds_a_single_legal_action_anywhere(size):
    """Every position, including the bytes past the last full 8-byte word."""
    rng = np.random.default_rng(0)
    positions = sorted({0, size // 2, size - 1, max(0, size - 8)} | set(rng.integers(0, size, 5).tolist()))
    for pos in positions:
        mask = np.zeros(size, np.int8)
        mask[pos] = 1
        assert sample_action(mask, rng) == pos
        assert sample_action(mask.astype(bool), rng) == pos


@pytest.mark.parametrize("legal_count", [3, 40_000])  # the count-and-scan path, the rejection path
def test_uniform_over_the_legal_actions(legal_count):
    rng = np.random.default_rng(1)
    mask = np.zeros(86_980, np.int8)
    legal = np.sort(rng.choice(86_980, legal_count, replace=False))
    mask[legal] = 1
    draws = np.array([sample_action(mask, rng) for _ in range(30_000)])
    assert mask[draws].all()
    if legal_count == 3:
        counts = np.array([(draws == a).sum() for a in legal])
        expected = len(draws) / 3
        chi2 = ((counts - expected) ** 2 / expected).sum()
        assert chi2 < 13.8  # chi-square, 2 degrees of freedom, p = 0.001
    else:
        # the draws spread over the legal set: a fair die would hit ~12.5% of each eighth
        eighths = np.searchsorted(legal, draws) * 8 // legal_count
        shares = np.bincount(eighths, minlength=8) / len(draws)
        assert np.all(np.abs(shares - 1 / 8) < 0.01)


def test_seeded_draws_repeat():
    mask = np.zeros(1000, np.int8)
    mask[::7] = 1
    a = [sample_action(mask, np.random.default_rng(5)) for _ in range(3)]
    b = [sample_action(mask, np.random.default_rng(5)) for _ in range(3)]
    assert a == b


def test_other_dtypes_and_views_are_accepted():
    rng = np.random.default_rng(2)
    mask = np.zeros(100, np.float32)
    mask[42] = 1.0
    assert sample_action(mask, rng) == 42
    strided = np.zeros(200, np.int8)
    strided[84] = 1
    assert sample_action(strided[::2], rng) == 42


def test_errors():
    rng = np.random.default_rng(3)
    with pytest.raises(ValueError, match="no legal action"):
        sample_action(np.zeros(50, np.int8), rng)
    with pytest.raises(ValueError, match="1-D"):
        sample_action(np.ones((2, 3), np.int8), rng)


def test_quiet_api_test_hides_what_api_test_says_of_every_env_and_nothing_else(monkeypatch):
    import importlib
    import sys
    import warnings

    from pettingzoo.test import api_test

    from ggpzoo.envs import skirmish_endgame_v0
    from ggpzoo.utils import API_TEST_WARNINGS, quiet_api_test

    def said(quiet: bool) -> set[str]:
        for name in [m for m in sys.modules if m.startswith("pettingzoo.classic.connect_four")]:
            monkeypatch.delitem(sys.modules, name)  # its import is what warns of the old API
        with warnings.catch_warnings(record=True) as got:
            warnings.simplefilter("always")
            with quiet_api_test() if quiet else warnings.catch_warnings():
                importlib.import_module("pettingzoo.classic.connect_four_v3")
                api_test(skirmish_endgame_v0.env(), num_cycles=5)
                warnings.warn("something else", UserWarning, stacklevel=1)
        return {str(w.message).splitlines()[0] for w in got}

    loud = said(False)
    for message, _, _ in API_TEST_WARNINGS:
        assert any(m.startswith(message) for m in loud), message
    assert said(True) == {"something else"}
