"""Warnings about a GDL sheet that is valid GDL but most likely not what its author meant.

`lint` runs on every sheet `ggpzoo.gdl.Game` loads, and warns (one
`GDLWarning`, a ``UserWarning``, each) about

* a relation used in a rule body that no fact or rule defines: a typo such as
  ``(tru (cell 1 1 b))`` for ``true`` makes that body false forever, silently;
* a relation defined but used nowhere (GDL's keywords and what the game reads, ``role``,
  ``init``, ``legal``, ``next``, ``goal``, ``terminal``, ``base``, ``input``, count as used):
  a dead rule, or a typo in the places that should use it;
* a sheet without a ``terminal`` rule: its games never end;
* a role without a ``goal`` rule: it scores 0 whatever happens.

Each names the relation (``name/arity``) and a line of the sheet, and points at the line of
the caller's code that loaded the sheet. Loading many sheets keeps no record of the
warnings shown (Python's per-module warning registry stays as it was), so a long-lived
process that loads sheet after sheet does not grow. To silence them:
``warnings.simplefilter("ignore", ggpzoo.gdl.lint.GDLWarning)``.
"""

from __future__ import annotations

import warnings

from ggpzoo.gdl.syntax import Rule, is_var, relation

__all__ = ["GDLWarning", "lint", "problems"]

# read by the game itself (or GDL-II's sees), whether or not a rule of the sheet uses them
READ = {"role", "init", "legal", "next", "goal", "terminal", "base", "input", "sees"}
# given by the state and the joint move, not defined by rules
GIVEN = {("true", 1), ("does", 2)}


class GDLWarning(UserWarning):
    """A GDL sheet that loads but most likely has a mistake (see `ggpzoo.gdl.lint`)."""


def _atoms(literal):
    """The atoms a body literal reads: inside ``not`` and ``or``; not ``distinct``."""
    if type(literal) is tuple:
        if literal[0] == "not":
            yield from _atoms(literal[1])
            return
        if literal[0] == "or":
            for part in literal[1:]:
                yield from _atoms(part)
            return
        if literal[0] == "distinct":
            return
    yield literal


def _name(rel: tuple[str, int]) -> str:
    return f"{rel[0]}/{rel[1]}"


def problems(rules: list[Rule], roles: list[str]) -> list[str]:
    """The warnings `lint` gives for ``rules`` (parsed) and ``roles``, in sheet order."""
    defined: dict[tuple[str, int], int] = {}  # relation -> first line that defines it
    used: dict[tuple[str, int], int] = {}  # relation -> first line whose body reads it
    for rule in rules:
        defined.setdefault(relation(rule.head), rule.line)
        for literal in rule.body:
            for atom in _atoms(literal):
                used.setdefault(relation(atom), rule.line)
    found: list[tuple[int, str]] = []
    arities: dict[str, list[int]] = {}
    for name, arity in defined:
        arities.setdefault(name, []).append(arity)
    for rel, line in used.items():
        if rel in defined or rel in GIVEN:
            continue
        other = sorted(arities.get(rel[0], []))
        hint = (
            f"{rel[0]} is defined with {' or '.join(str(a) for a in other)} argument(s)"
            if other
            else "no fact or rule has it as its head, so that literal is never true"
        )
        found.append((line, f"line {line}: relation {_name(rel)} is used but never defined ({hint})"))
    for rel, line in defined.items():
        if rel in used or rel[0] in READ:
            continue
        found.append((line, f"line {line}: relation {_name(rel)} is defined but never used (a dead rule, or a typo?)"))
    if ("terminal", 0) not in defined:
        last = max((r.line for r in rules), default=0)
        found.append((last, f"line {last}: the sheet has no terminal rule, so its games never end"))
    role_lines = {r.head[1]: r.line for r in rules if relation(r.head) == ("role", 1) and not r.body}
    scored = {r.head[1] for r in rules if relation(r.head) == ("goal", 2)}
    for role in roles:
        if role not in scored and not any(is_var(r) for r in scored):
            line = role_lines.get(role, 0)
            found.append((line, f"line {line}: role {role} has no goal rule, so it scores 0 whatever happens"))
    return [text for _, text in sorted(found, key=lambda item: item[0])]


def lint(rules: list[Rule], roles: list[str], name: str = "gdl") -> list[str]:
    """Warn (a `GDLWarning` each) about what `problems` finds in sheet ``name``;
    returns the messages."""
    messages = problems(rules, roles)
    if messages:
        frame = _caller()
        for text in messages:
            # No registry: Python's per-module registry would keep every distinct text (line and
            # relation) of every sheet ever loaded, growing without bound in a long-lived process.
            warnings.warn_explicit(
                f"GDL sheet {name}, {text}",
                GDLWarning,
                frame.f_code.co_filename,
                frame.f_lineno,
                module=frame.f_globals.get("__name__", "gdl"),
                registry=None,
                module_globals=frame.f_globals,
            )
    return messages


def _caller():
    """The frame of the first caller outside the ggpzoo package (where the warning points)."""
    import os
    import sys

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
    frame = first = sys._getframe(2)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package):
        frame = frame.f_back
    return frame or first
