"""Suite-wide settings: where stable-baselines3 logs, and the order the test files run in.

- SB3's ``learn()`` makes a log folder (``$TMPDIR/SB3-<date>``, empty unless asked for logs)
  at every run without a logger of its own: ``SB3_LOGDIR`` puts them all in one folder under
  pytest's temporary directory, which pytest clears.
- The numba cache is cold in a fresh clone, and compiling is most of a cold run's time. The
  files in ``LAST`` run after the others: ``test_docs.py`` runs every documentation block,
  which together touch nearly every kernel and search, in a fresh interpreter; run last, it
  finds them cached by the files before it instead of compiling them a second time beside
  them. pytest-xdist would otherwise start the files with the most tests first
  (``--loadscope-reorder``), which puts ``test_docs.py`` among the first.
"""

from __future__ import annotations

import os

import pytest

LAST = ("test_docs.py",)


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist: keep the order below
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.path.name in LAST)  # stable: the rest keep their order


@pytest.fixture(scope="session", autouse=True)
def _sb3_logs_under_pytest_tmp(tmp_path_factory):
    folder = tmp_path_factory.getbasetemp() / "sb3-logs"
    old = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(folder)  # subprocesses (the docs' blocks, examples) inherit it
    yield
    if old is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = old
