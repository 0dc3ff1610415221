"""MkDocs hook: each game page is its env module's docstring (PettingZoo's convention).

A page line ``<!-- env-doc: amazons_v0 -->`` becomes the docstring of ``amazons_v0``'s
``raw_env`` module, with the page's picture (``img/<env>.png``) under the title, so the
docs cannot drift from ``help(raw_env)``.
"""

from __future__ import annotations

import importlib
import inspect
import re

MARKER = re.compile(r"^<!-- env-doc: (\w+) -->$", re.MULTILINE)
PICTURE = (
    "![A position of {name}, drawn by env.board_image()](img/{name}.png)\n\n"
    "*A position after {steps} actions of a game between two `mcts:200` agents: "
    "`python -m ggpzoo replay --env {name} --white mcts:200 --black mcts:200 --seed 0 "
    "--max-steps {steps} --out docs/games/img/{name}.png`.*\n"
)
STEPS = {"amazons_v0": 20, "amazons_split_v0": 40, "mad_bishops_v0": 30, "skirmish_v0": 20, "skirmish_endgame_v0": 20}


def env_doc(name: str) -> str:
    from ggpzoo.envs import load

    raw_env = load(name).raw_env
    doc = inspect.cleandoc(importlib.import_module(raw_env.__module__).__doc__ or "")
    title, _, rest = doc.partition("\n")
    return f"{title}\n\n{PICTURE.format(name=name, steps=STEPS[name])}\n{rest}"


def on_page_markdown(markdown: str, page, config, files) -> str:
    return MARKER.sub(lambda m: env_doc(m.group(1)), markdown)
