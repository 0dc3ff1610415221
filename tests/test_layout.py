"""The package's layout and import-time settings."""

from __future__ import annotations

import importlib
import os
import pathlib
import subprocess
import sys

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "ggpzoo"


def test_the_package_top_holds_no_alias_modules_but_those_saved_files_name():
    top = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "nets.py", "rllib.py", "utils.py"]


@pytest.mark.parametrize(
    "old,new", [("ggpzoo.nets", "ggpzoo.training.nets"), ("ggpzoo.rllib", "ggpzoo.training.rllib")]
)
def test_the_kept_aliases_are_their_modules(old, new):
    assert importlib.import_module(old) is importlib.import_module(new)


@pytest.mark.parametrize(
    "given,expected",
    [
        ({}, "1000 None"),  # a short spin, then sleep
        ({"GOMP_SPINCOUNT": "50"}, "50 None"),  # the user's choice stays
        ({"OMP_WAIT_POLICY": "ACTIVE"}, "None ACTIVE"),
    ],
)
def test_openmp_threads_spin_briefly_unless_told_otherwise(given, expected):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(given)
    code = "import os, ggpzoo; print(os.environ.get('GOMP_SPINCOUNT'), os.environ.get('OMP_WAIT_POLICY'))"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == expected
