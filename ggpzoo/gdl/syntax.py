"""GDL terms and the KIF (prefix) reader.

Terms are plain Python values, hashable and cheap to compare:

* a **symbol** (constant, including numbers) is a ``str``, lower-cased: ``"cell"``, ``"10"``;
* a **variable** is a ``str`` starting with ``?``: ``"?x"`` (also lower-cased: GDL symbols
  and variables are case-insensitive);
* a **compound** term is a ``tuple`` ``(functor, arg1, ...)``: ``("cell", "1", "2", "b")``.

An atom (``(legal white noop)``, ``terminal``) is a term; its relation is
``(name, arity)``. A sheet is read into `Rule` objects (a fact is a rule with an
empty body). Body literals are atoms, ``("not", lit)``, ``("distinct", a, b)`` or
``("or", lit, ...)``.

>>> parse("(<= (legal ?r noop) (role ?r)) ; a comment")[0].head
('legal', '?r', 'noop')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "GDLError",
    "Rule",
    "goal_value",
    "is_var",
    "parse",
    "relation",
    "sort_key",
    "substitute",
    "to_text",
    "variables",
]


class GDLError(ValueError):
    """A rule sheet that cannot be read, or that breaks a rule of GDL."""


class LoadStopped(GDLError):
    """A load or grounding stopped because its caller's ``stop()`` said so (the result was no
    longer wanted)."""


MAX_NESTING = 64  # parentheses open at once in a sheet (a rule's ``(<= ...)`` included); deeper is refused
_TOKEN = re.compile(r"\s+|;[^\n]*|\(|\)|[^\s();]+")


@dataclass(frozen=True)
class Rule:
    """``head <= body`` (a fact when ``body`` is empty), with the line it starts on."""

    head: object
    body: tuple
    line: int = 0

    def __str__(self) -> str:
        if not self.body:
            return to_text(self.head)
        return "(<= " + " ".join(to_text(t) for t in (self.head, *self.body)) + ")"

    def where(self) -> str:
        """``"line 12: (<= ...)"``, for messages."""
        return f"line {self.line}: {self}"


def is_var(t) -> bool:
    return type(t) is str and t[0] == "?"


def to_text(t) -> str:
    """The KIF text of a term: ``("move", "1", "2")`` -> ``"(move 1 2)"``."""
    if type(t) is tuple:
        return "(" + " ".join(to_text(a) for a in t) + ")"
    return t


def relation(atom) -> tuple[str, int]:
    """``(name, arity)`` of an atom."""
    if type(atom) is tuple:
        return atom[0], len(atom) - 1
    return atom, 0


def variables(t, out: set | None = None) -> set:
    """The variables of a term or literal."""
    if out is None:
        out = set()
    if type(t) is tuple:
        for a in t:
            variables(a, out)
    elif is_var(t):
        out.add(t)
    return out


def substitute(t, s: dict):
    """``t`` with the variables bound in ``s`` replaced."""
    if type(t) is tuple:
        return tuple(substitute(a, s) for a in t)
    if type(t) is str and t[0] == "?":
        return s.get(t, t)
    return t


def sort_key(t):
    """An order on ground terms that puts numbers in numeric order: 2 before 10."""
    if type(t) is tuple:
        return (2, tuple(sort_key(a) for a in t))
    if t.isascii() and t.isdigit():  # not str.isdigit() alone: '²' is a digit that int() refuses
        d = t.lstrip("0") or "0"  # numeric order without int(): a numeral may have any number of digits
        return (0, (len(d), d), t)
    return (1, 0, t)


def goal_value(t) -> int | None:
    """The goal value a term stands for: an integer 0..100 written in ASCII digits; None
    for anything else (``150``, ``(score 5)``, ``²``, a 25-digit number)."""
    if type(t) is not str or not (t.isascii() and t.isdigit()) or len(t) > 3:
        return None
    v = int(t)
    return v if v <= 100 else None


def _read(tokens: list[tuple[str, int]]):
    """Read the token list into (term, line) pairs."""
    out = []
    stack: list[list] = []
    lines: list[int] = []
    for tok, line in tokens:
        if tok == "(":
            if len(stack) >= MAX_NESTING:
                raise GDLError(f"line {line}: terms nested deeper than MAX_NESTING = {MAX_NESTING} are not read")
            stack.append([])
            lines.append(line)
        elif tok == ")":
            if not stack:
                raise GDLError(f"line {line}: unmatched ')'")
            items = stack.pop()
            start = lines.pop()
            if not items:
                raise GDLError(f"line {start}: empty term '()'")
            if type(items[0]) is tuple:
                raise GDLError(f"line {start}: a term's functor must be a symbol, got {to_text(items[0])}")
            if is_var(items[0]):
                raise GDLError(f"line {start}: a term's functor must be a symbol, got the variable {items[0]}")
            # ``(terminal)`` and ``terminal`` are the same atom
            term = items[0] if len(items) == 1 else tuple(items)
            if stack:
                stack[-1].append(term)
            else:
                out.append((term, start))
        else:
            if stack:
                stack[-1].append(tok)
            else:
                out.append((tok, line))
    if stack:
        raise GDLError(f"line {lines[-1]}: '(' is never closed")
    return out


def _literal(t, line: int):
    """Check the shape of a body literal (keywords with the right arity)."""
    if type(t) is tuple:
        name = t[0]
        if name == "not":
            if len(t) != 2:
                raise GDLError(f"line {line}: (not ...) takes one literal, got {to_text(t)}")
            return ("not", _literal(t[1], line))
        if name == "or":
            if len(t) < 2:
                raise GDLError(f"line {line}: (or ...) needs at least one literal, got {to_text(t)}")
            return ("or", *(_literal(a, line) for a in t[1:]))
        if name == "distinct" and len(t) != 3:
            raise GDLError(f"line {line}: (distinct ...) takes two terms, got {to_text(t)}")
        if name == "<=":
            raise GDLError(f"line {line}: a rule inside a rule body: {to_text(t)}")
    elif is_var(t):
        raise GDLError(f"line {line}: a variable {t} cannot be a literal")
    elif t in ("not", "or", "distinct"):
        raise GDLError(f"line {line}: ({t}) without arguments is not a literal")
    return t


def parse(text: str) -> list[Rule]:
    """Read KIF text into rules. Raises `GDLError` (a ValueError) naming the line."""
    tokens = []
    line = 1
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if tok[0].isspace() or tok[0] == ";":
            line += tok.count("\n")
            continue
        tokens.append((tok.lower(), line))
    # Any character the pattern skipped would be a bug; the pattern matches everything.
    rules = []
    for term, start in _read(tokens):
        if type(term) is tuple and term[0] == "<=":
            if len(term) < 2:
                raise GDLError(f"line {start}: (<=) without a head")
            head = term[1]
            if is_var(head):
                raise GDLError(f"line {start}: a rule head cannot be a variable: {to_text(term)}")
            body = tuple(_literal(b, start) for b in term[2:])
            rules.append(Rule(head, body, start))
        else:
            if is_var(term):
                raise GDLError(f"line {start}: a variable {term} cannot be a fact")
            rules.append(Rule(term, (), start))
    return rules
