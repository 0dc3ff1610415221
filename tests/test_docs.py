"""The docs as a user meets them: their code runs, their commands parse, their pages are current.

- Every ```python block of README.md and docs/**/*.md runs, with its budgets shrunk
  (``SHRINK``: training steps, minutes, simulations, games), in a scratch folder, unless
  the line before it is ``<!-- no-test -->`` (kept for the few that cannot run here: a
  ``SubprocVecEnv`` script, code that needs a model trained first). A block after
  ``<!-- file: NAME -->`` is a file the reader saves: it is written into the scratch folder
  first.
- Every ``python -m ggpzoo ...`` and ``python -m ggpzoo.training.az ...`` command in a
  ```bash block parses: the ``list``, ``arena``, ``replay``, ``play`` and ``train`` lines
  through the command line's own parser (flags, values, required arguments), the others'
  flags against their ``--help``.
- No raw Sphinx cross-reference role is left in the docstrings or the docs (the API
  reference would show it as literal text; write ``[`Name`][ggpzoo.module.Name]``).
- The game pages in docs/games/ are their env docstrings (``python docs/hooks.py`` rewrites them).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
NO_TEST = "<!-- no-test -->"
FILE = re.compile(r"^<!-- file: ([\w.-]+) -->$")
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)


def _blocks(*langs: str) -> list[tuple[str, int, str]]:
    """(page, line, code) of every fenced block of a language in ``langs`` not marked no-test."""
    out = []
    for page in PAGES:
        text = page.read_text()
        for m in FENCE.finditer(text):
            if m.group(1) not in langs:
                continue
            before = text[: m.start()].rstrip().rsplit("\n", 1)[-1].strip()
            if before == NO_TEST:
                continue
            line = text.count("\n", 0, m.start()) + 1
            out.append((str(page.relative_to(ROOT)), line, m.group(2)))
    return out


PYTHON = _blocks("python")


def _files() -> dict[str, str]:
    """The blocks a page names as a file (``<!-- file: NAME -->`` on the line before): the
    docs tell the reader to save them, so the blocks and commands after them can use them."""
    out = {}
    for page in PAGES:
        text = page.read_text()
        for m in FENCE.finditer(text):
            before = text[: m.start()].rstrip().rsplit("\n", 1)[-1].strip()
            name = FILE.match(before)
            if name:
                out[name.group(1)] = m.group(2)
    return out


def _write_files(folder: Path) -> None:
    for name, text in _files().items():
        (folder / name).write_text(text)


# Budgets the blocks state for a real run, shrunk so that every block runs in seconds:
# (pattern, replacement) applied to the code before it runs.
SHRINK = [
    (r"\.learn\(\s*[\d_]+", ".learn(256"),
    (r"\bminutes=[\d.]+", "minutes=0.05"),
    (r"\bsimulations=\d+", "simulations=8"),
    (r"\brange\([\d_]{3,}\)", "range(20)"),
    (r"\bgames=\d+", "games=4"),
    (r"(play_games\(\"\w+\", )[\d_]+", r"\g<1>64"),
    (r"\bmcts:\d+", "mcts:8"),
    (r"\bnum_envs=\d+", "num_envs=4"),
    (r"\bn_steps=\d+", "n_steps=32"),
    (r"\bbatch_size=\d+", "batch_size=64"),
    (r"\bAZConfig\(", "AZConfig(eval_games=2, "),
]
RUNNER = """
import json, signal, sys, time, traceback
blocks = json.load(open(sys.argv[1]))
out = []
def alarm(*_):
    raise TimeoutError("the block ran past its time limit")
signal.signal(signal.SIGALRM, alarm)
for code in blocks:
    signal.alarm(int(sys.argv[2]))
    t = time.perf_counter()
    try:
        exec(compile(code, "<block>", "exec"), {"__name__": "__main__"})
        error = None
    except BaseException:
        error = traceback.format_exc()[-3000:]
    finally:
        signal.alarm(0)
    out.append({"error": error, "seconds": round(time.perf_counter() - t, 2)})
json.dump(out, open(sys.argv[3], "w"))
"""


def shrink(code: str) -> str:
    for pattern, repl in SHRINK:
        code = re.sub(pattern, repl, code)
    return code


@pytest.fixture(scope="module")
def block_results(tmp_path_factory):
    """Run every python block, shrunk, in one fresh interpreter (imports and numba's compiles
    are paid once), each block in its own namespace, in a scratch folder."""
    work = tmp_path_factory.mktemp("blocks")
    _write_files(work)
    (work / "blocks.json").write_text(json.dumps([shrink(code) for _, _, code in PYTHON]))
    (work / "runner.py").write_text(RUNNER)
    env = dict(os.environ, MPLBACKEND="Agg", SDL_VIDEODRIVER="dummy", PYTHONPATH=str(ROOT))
    subprocess.run(
        [sys.executable, "runner.py", "blocks.json", "300", "results.json"],
        cwd=work,
        env=env,
        capture_output=True,
        timeout=900,
        check=True,
    )
    results = json.loads((work / "results.json").read_text())
    print("python blocks, seconds each:", [r["seconds"] for r in results])
    return results


@pytest.mark.parametrize("index", range(len(PYTHON)), ids=[f"{p}:{n}" for p, n, _ in PYTHON])
def test_python_block_runs(index, block_results):
    page, line, _ = PYTHON[index]
    result = block_results[index]
    assert result["error"] is None, f"{page}:{line}: the block fails:\n{result['error']}"


# the placeholders the docs write for "your env", "your sheet"...
_PLACEHOLDERS = {
    "ENV": "skirmish_v0",
    "GAME": "skirmish_v0",
    "gdl:SHEET": "gdl:tictactoe",
    "SHEET": "tictactoe",
}


def _commands() -> list[tuple[str, int, list[str]]]:
    """(page, line, argv after ``python -m``) of the ggpzoo commands in bash blocks."""
    out = []
    for page, line, code in _blocks("bash", "sh", "console", "text", ""):
        joined = re.sub(r"\\\n\s*", " ", code)
        for i, cmd in enumerate(joined.splitlines()):
            cmd = cmd.strip().removeprefix("$ ")
            if not cmd.startswith("python -m ggpzoo"):
                continue
            argv = [_PLACEHOLDERS.get(a, a) for a in shlex.split(cmd, comments=True)]
            # a command piped or chained: keep the first one
            for stop in ("|", "&&", ";", ">", "2>&1"):
                if stop in argv:
                    argv = argv[: argv.index(stop)]
            out.append((page, line + 1 + i, argv[2:]))
    return out


COMMANDS = _commands()


def _help_flags(argv: list[str]) -> set[str]:
    """The option strings a command's --help lists."""
    from ggpzoo.tools import cli

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), pytest.raises(SystemExit):
        if argv[0] == "ggpzoo.training.az":
            from ggpzoo.training.az.__main__ import main

            main(["--help"])
        else:
            cli.main([*argv[1:], "--help"])
    return set(re.findall(r"(?<![\w-])--[\w-]+", buf.getvalue()))


_HELP: dict[tuple[str, ...], set[str]] = {}


@pytest.mark.parametrize("page,line,argv", COMMANDS, ids=[f"{p}:{n}" for p, n, _ in COMMANDS])
def test_cli_command_parses(page, line, argv, tmp_path, monkeypatch):
    from ggpzoo.tools import cli

    _write_files(tmp_path)
    monkeypatch.chdir(tmp_path)

    assert argv[0] in ("ggpzoo", "ggpzoo.training.az"), f"{page}:{line}: python -m {argv[0]}"
    if argv[0] == "ggpzoo" and len(argv) > 1 and argv[1] in ("list", "arena", "replay", "play", "train"):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            try:
                cli.build_parser().parse_args(argv[1:])
            except SystemExit:
                pytest.fail(f"{page}:{line}: python -m {' '.join(argv)}: {err.getvalue().strip()}")
        return
    # bench, gdl (and gdl corpus / gdl bench) and training.az: flags against their --help
    key = tuple(argv[:2]) if argv[0] == "ggpzoo.training.az" else tuple(argv[:2])
    if argv[0] == "ggpzoo" and len(argv) > 2 and argv[1] == "gdl" and argv[2] in ("corpus", "bench"):
        key = tuple(argv[:3])
    if argv[0] == "ggpzoo" and argv[1:2] == ["bench"] and "--gdl" in argv:  # the GDL benchmark's own flags
        key = ("ggpzoo", "bench", "--gdl", "tictactoe")
    if key not in _HELP:
        _HELP[key] = _help_flags(list(key))
    used = {a.split("=", 1)[0] for a in argv if a.startswith("--")}
    unknown = sorted(used - _HELP[key] - {"--help"})
    assert not unknown, f"{page}:{line}: python -m {' '.join(argv)}: unknown flags {unknown}"


def test_the_docs_have_commands_and_blocks():
    assert len(PYTHON) >= 10 and len(COMMANDS) >= 25 and "takeaway.kif" in _files()


ROLE = re.compile(":" + r"(?:py:)?(class|meth|mod|func|attr|data|obj|exc|const):`")


def test_no_raw_sphinx_roles():
    files = [*(f for d in ("ggpzoo", "examples", "benchmarks") for f in sorted((ROOT / d).rglob("*.py"))), *PAGES]
    found = []
    for path in files:
        for n, text in enumerate(path.read_text().splitlines(), 1):
            if ROLE.search(text):
                found.append(f"{path.relative_to(ROOT)}:{n}: {text.strip()}")
    assert not found, "raw Sphinx roles (the API reference shows them as text):\n" + "\n".join(found)


def test_game_pages_are_their_docstrings():
    spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "docs" / "hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    assert hooks.stale_pages() == [], "run python docs/hooks.py"
    pages = sorted(p.stem for p in (ROOT / "docs" / "games").glob("*_v0.md"))
    assert len(pages) == 5
    for name in pages:
        text = (ROOT / "docs" / "games" / f"{name}.md").read_text()
        assert "### Rules" in text and "Check figures" in text, name


def test_ci_builds_the_site_as_the_readme_says():
    """CI runs the README's docs command as written: with ``--quiet`` the warnings never
    reach ``--strict`` and a broken cross-reference passes CI."""
    readme = (ROOT / "README.md").read_text()
    shown = re.search(r"^NO_MKDOCS_2_WARNING=1 mkdocs build --strict$", readme, re.M)
    assert shown, "README.md: no `NO_MKDOCS_2_WARNING=1 mkdocs build --strict` line"
    run = (ROOT / ".ci" / "run").read_text().splitlines()
    builds = [line for line in run if "mkdocs build" in line and not line.startswith("#")]
    assert len(builds) == 1 and builds[0].startswith(shown.group(0) + " --site-dir "), builds
    assert not re.search(r"\s(--quiet|-q)\b", builds[0]), builds[0]
