"""The package's layout and import-time settings."""

from __future__ import annotations

import importlib
import os
import pathlib
import re
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


# "Is this a GDL game?" asked outside the GDL code: every tool asks the spec for a capability
# instead (roles, simultaneous moves, action counts, ...). The registry routes a gdl:SHEET name
# to its spec, and the GGP player reads the sheets a game server sends.
KIND_TESTS = re.compile(
    r"gdl_game\(|is_gdl_name\(|startswith\(\s*[\"']gdl:|\bGDLSpec\b|\bkind\s*[!=]=\s*[\"'](?:gdl|kernel)[\"']"
    r"|getattr\([^)]*[\"']kind[\"']|\.game\s+is\s+(?:not\s+)?None"
)
KIND_TESTS_ALLOWED = {"envs/__init__.py", "envs/gamespec.py"}
# Files that still ask; each entry leaves this list when its file is moved onto capabilities.
KIND_TESTS_LEFT: set[str] = set()


def _kind_tests() -> dict[str, list[str]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith(("gdl/", "ggp/")) or rel in KIND_TESTS_ALLOWED:
            continue
        lines = [f"{rel}:{i}: {line.strip()}" for i, line in enumerate(path.read_text().splitlines(), 1)]
        hits = [line for line in lines if KIND_TESTS.search(line.split(": ", 1)[1])]
        if hits:
            found[rel] = hits
    return found


def test_no_tool_asks_what_kind_of_game_it_was_given():
    found = _kind_tests()
    new = {k: v for k, v in found.items() if k not in KIND_TESTS_LEFT}
    assert not new, "ask the spec for a capability instead:\n" + "\n".join(x for v in new.values() for x in v)
    stale = KIND_TESTS_LEFT - set(found)
    assert not stale, f"no kind test left in {sorted(stale)}: take them off KIND_TESTS_LEFT"
