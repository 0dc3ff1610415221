"""Warnings about a GDL sheet that is valid GDL but most likely not what its author meant.

`lint` runs on every sheet `ggpzoo.gdl.Game` loads, and warns (one
`GDLWarning`, a ``UserWarning``, each) about

* a relation used in a rule body that no fact or rule defines: a typo such as
  ``(tru (cell 1 1 b))`` for ``true`` makes that body false forever, silently;
* a relation defined but used nowhere (GDL's keywords and what the game reads, ``role``,
  ``init``, ``legal``, ``next``, ``goal``, ``terminal``, ``base``, ``input``, count as used):
  a dead rule, or a typo in the places that should use it;
* a fluent read by ``true`` that no ``init`` or ``next`` rule can make (by its name and
  number of arguments, or by a constant argument that every rule making it fixes
  otherwise): a typo such as ``(true (stone 0))`` for ``stones`` is never true;
* a move read by ``does`` that no ``legal`` rule can give (by its name and number of
  arguments): that literal is never true either;
* ``terminal`` rules that can never hold (each reads something never true): the games end
  only when a role has no legal move;
* a sheet without a ``terminal`` rule: its games never end;
* a role without a ``goal`` rule: it scores 0 whatever happens.

Each names the relation (``name/arity``) and a line of the sheet, and points at the line of
the caller's code that loaded the sheet. Loading many sheets keeps no record of the
warnings shown (Python's per-module warning registry stays as it was), so a long-lived
process that loads sheet after sheet does not grow. To silence them:
``warnings.simplefilter("ignore", ggpzoo.gdl.lint.GDLWarning)``.
"""

from __future__ import annotations

import difflib
import warnings

from ggpzoo.gdl.syntax import Rule, is_var, relation, to_text

__all__ = ["GDLWarning", "lint", "never_true", "problems"]

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
    found += never_true(rules, defined)
    return [text for _, text in sorted(found, key=lambda item: item[0])]


def _made(rules: list[Rule], keyword: str, index: int) -> dict[tuple[str, int], list]:
    """The terms the heads ``(keyword ... term)`` can make (argument ``index``), by relation."""
    out: dict[tuple[str, int], list] = {}
    for rule in rules:
        head = rule.head
        if type(head) is tuple and head[0] == keyword and len(head) > index and not is_var(head[index]):
            out.setdefault(relation(head[index]), []).append(head[index])
    return out


def _constants(made: list) -> list:
    """Per argument of the terms ``made`` (one relation): the set of the constants they have
    there, or None where one of them has a variable or a compound term (it could be anything)."""
    out = []
    for i in range(1, len(made[0])) if type(made[0]) is tuple else ():
        args = {m[i] for m in made}
        out.append(None if any(type(a) is not str or is_var(a) for a in args) else args)
    return out


def _fixed_out(term, constants: list) -> bool:
    """Whether no made term can match ``term`` (``constants``: `_constants` of the made terms of
    its relation), shown cheaply: at some argument, ``term`` has a constant none of them has."""
    if type(term) is not tuple:
        return False
    return any(
        type(arg) is str and not is_var(arg) and known is not None and arg not in known
        for arg, known in zip(term[1:], constants, strict=True)
    )


def _similar(rel: tuple[str, int], known) -> str:
    """`` (name/arity is)``: a known relation of the same name, or else the closest spelling; or ""."""
    names = sorted({_name(k) for k in known})
    same = [n for n in names if n.split("/")[0] == rel[0]]
    close = same or difflib.get_close_matches(_name(rel), names, n=1)
    return f" ({' or '.join(close)} is)" if close else ""


def never_true(rules: list[Rule], defined: dict) -> list[tuple[int, str]]:
    """``(line, message)`` for each ``true`` of a fluent no ``init`` or ``next`` makes, each
    ``does`` of a move no ``legal`` gives, and ``terminal`` rules that can never hold;
    ``defined``: the relations the sheet defines (a fact's or a rule's head)."""
    fluents = _made(rules, "init", 1)
    for rel, terms in _made(rules, "next", 1).items():
        fluents.setdefault(rel, []).extend(terms)
    moves = _made(rules, "legal", 2)
    constants = {rel: _constants(terms) for rel, terms in fluents.items()}
    any_fluent = any(
        type(r.head) is tuple and relation(r.head) in (("init", 1), ("next", 1)) and is_var(r.head[1]) for r in rules
    )
    any_move = any(type(r.head) is tuple and relation(r.head) == ("legal", 2) and is_var(r.head[2]) for r in rules)
    found: list[tuple[int, str]] = []
    seen: set = set()
    dead_terminals = 0
    for rule in rules:
        dead = False
        for literal in rule.body:
            for atom in _atoms(literal):
                message = None
                rel = relation(atom)
                if rel == ("true", 1) and not is_var(atom[1]) and not any_fluent:
                    fluent = relation(atom[1])
                    if fluent not in fluents:
                        message = f"fluent {_name(fluent)} is read by true but no init or next rule makes it"
                        message += _similar(fluent, fluents)
                    elif _fixed_out(atom[1], constants[fluent]):
                        message = f"fluent {to_text(atom[1])} is read by true but no init or next rule makes it"
                elif rel == ("does", 2) and not is_var(atom[2]) and not any_move:
                    move = relation(atom[2])
                    if move not in moves:
                        message = f"move {_name(move)} is read by does but no legal rule gives it"
                        message += _similar(move, moves)
                elif rel not in defined and rel not in GIVEN:
                    dead = dead or atom is literal  # an undefined relation, read positively
                if message is None:
                    continue
                dead = dead or atom is literal
                if message not in seen:
                    seen.add(message)
                    found.append((rule.line, f"line {rule.line}: {message}, so that literal is never true"))
        if rule.head == "terminal":
            dead_terminals += dead
    terminals = [r for r in rules if r.head == "terminal"]
    if terminals and dead_terminals == len(terminals):
        line = terminals[0].line
        found.append(
            (line, f"line {line}: no terminal rule can ever hold, so a game ends only when a role has no legal move")
        )
    return found


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
