"""Each game page is its env module's docstring (PettingZoo's convention), written into the page.

``docs/games/<env>.md`` starts with the line ``<!-- env-doc: <env> ... -->`` and holds the
docstring of ``<env>``'s ``raw_env`` module, with the page's picture (``img/<env>.png``)
under the title, so the page reads on the code host as on the site and cannot drift from
``help(raw_env)``. After editing a docstring, rewrite the pages:

    python docs/hooks.py

As an MkDocs hook, it builds each page from the docstring and stops a ``--strict`` build
(warns otherwise) when the file in the repository is out of date; ``tests/test_docs.py``
checks the same.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import re
import sys
from pathlib import Path

GAMES = Path(__file__).resolve().parent / "games"
MARKER = re.compile(r"\A<!-- env-doc: (\w+) ")
HEADER = (
    "<!-- env-doc: {name} (generated from the docstring of {module} by `python docs/hooks.py`: "
    "edit the docstring, not this page) -->\n"
)
PICTURE = (
    "![A position of {name}, drawn by env.board_image()](img/{name}.png)\n\n"
    "*A position after {steps} actions of a game between two `mcts:200` agents: "
    "`python -m ggpzoo replay --env {name} --white mcts:200 --black mcts:200 --seed 0 "
    "--max-steps {steps} --out docs/games/img/{name}.png`.*\n"
)
STEPS = {"amazons_v0": 20, "amazons_split_v0": 40, "mad_bishops_v0": 30, "skirmish_v0": 20, "skirmish_endgame_v0": 20}
log = logging.getLogger("mkdocs.hooks.env_doc")


def env_page(name: str) -> str:
    """The whole Markdown page of the env ``name``: the header line, then its module docstring."""
    root = str(GAMES.parent.parent)  # the ggpzoo of this checkout, whatever else is installed
    if root not in sys.path:
        sys.path.insert(0, root)
    from ggpzoo.envs import load

    module = load(name).raw_env.__module__
    doc = inspect.cleandoc(importlib.import_module(module).__doc__ or "")
    title, _, rest = doc.partition("\n")
    header = HEADER.format(name=name, module=module.replace(".", "/") + ".py")
    return f"{header}{title}\n\n{PICTURE.format(name=name, steps=STEPS[name])}\n{rest}\n"


def stale_pages() -> list[Path]:
    """The game pages whose text differs from their docstrings."""
    out = []
    for path in sorted(GAMES.glob("*.md")):
        m = MARKER.match(path.read_text())
        if m and path.read_text() != env_page(m.group(1)):
            out.append(path)
    return out


def on_page_markdown(markdown: str, page, config, files) -> str:
    m = MARKER.match(markdown)
    if not m:
        return markdown
    expected = env_page(m.group(1))
    if markdown.strip() != expected.strip():  # MkDocs hands over the text without its last newline
        message = f"{page.file.src_path} is out of date with its docstring: run python docs/hooks.py"
        if config.get("strict"):
            from mkdocs.exceptions import PluginError

            raise PluginError(message)
        log.warning(message)
    return expected


def main() -> int:
    for path in stale_pages():
        name = MARKER.match(path.read_text()).group(1)
        path.write_text(env_page(name))
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
