"""The GGP match protocol's messages: read them, write the replies, map moves to action ids.

A game server and a player exchange one message per HTTP request (see
[`ggpzoo.ggp.player`][ggpzoo.ggp.player]). The messages are KIF lists:

=====================================================  ==============================
message                                                reply
=====================================================  ==============================
``(INFO)``                                             ``((name NAME) (status available))``
``(PREVIEW (RULES...) PREVIEWCLOCK)``                  ``ready``
``(START MATCHID ROLE (RULES...) STARTCLOCK PLAYCLOCK)``  ``ready``
``(PLAY MATCHID NIL)`` then ``(PLAY MATCHID (M1 M2 ...))``  the player's move
``(STOP MATCHID (M1 M2 ...))``                         ``done``
``(ABORT MATCHID)``                                    ``aborted``
=====================================================  ==============================

``M1 M2 ...`` is the previous joint move, one move per role in the sheet's role order. The
message keywords and ``NIL`` are read in any case; a move is written ``(mark 2 2)``,
``( mark 2 2 )`` or a bare word (``noop``), and a player's move is written back in the
sheet's own spelling ([`Spelling`][ggpzoo.ggp.protocol.Spelling]): servers compare moves case-sensitively.

Nothing here depends on a symbol's name: a server may rename every symbol of the sheet but
the GDL keywords and numbers (scrambling), and the moves are found by their terms in the
game that the sheet sent with START defines.

Input is bounded: a message longer than `MAX_MESSAGE_BYTES` or nested deeper than
`MAX_DEPTH` is refused with a [`ProtocolError`][ggpzoo.ggp.protocol.ProtocolError], as is any message that is not
one of the above; the player answers it with one line, ``error: REASON``.

>>> m = parse_message("( PLAY match.1 ( noop ( MARK 2 2 ) ) )")
>>> m.kind, m.match_id, m.moves
('play', 'match.1', ['noop', ('mark', '2', '2')])
>>> Spelling("(role xPlayer) (<= (legal xPlayer (Mark ?x ?y)) (true (cell ?x ?y b)))").text(("mark", "1", "3"))
'(Mark 1 3)'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = [
    "KEYWORDS",
    "MAX_DEPTH",
    "MAX_MESSAGE_BYTES",
    "Message",
    "MoveCodec",
    "ProtocolError",
    "Spelling",
    "error_reply",
    "info_reply",
    "move_term",
    "parse_message",
    "read_kif",
    "write_kif",
]

MAX_MESSAGE_BYTES = 8 * 2**20  # 8 MiB: the largest sheets of the GGP corpora are a few hundred kB
MAX_DEPTH = 200  # nesting of lists in one message (GDL terms rarely pass 10)
# The words GDL gives a meaning; scrambling renames every other symbol (numbers excepted).
KEYWORDS = frozenset(
    {
        "role",
        "init",
        "true",
        "next",
        "legal",
        "does",
        "goal",
        "terminal",
        "distinct",
        "not",
        "or",
        "<=",
        "base",
        "input",
    }
)
_TOKEN = re.compile(r"\s+|;[^\n]*|\(|\)|[^\s();]+")
_KINDS = ("info", "preview", "start", "play", "stop", "abort")


class ProtocolError(ValueError):
    """A message that is not a GGP message (or is too large); ``str(e)`` is one line."""


def read_kif(text: str) -> list:
    """The KIF terms of ``text``, spelling kept: a symbol is a ``str``, a list a ``tuple``.

    Raises [`ProtocolError`][ggpzoo.ggp.protocol.ProtocolError] for unbalanced parentheses or lists nested deeper than
    `MAX_DEPTH`.

    >>> read_kif("(Mark 1 2) noop ()")
    [('Mark', '1', '2'), 'noop', ()]
    """
    out: list = []
    stack: list[list] = []
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if tok[0].isspace() or tok[0] == ";":
            continue
        if tok == "(":
            if len(stack) >= MAX_DEPTH:
                raise ProtocolError(f"lists nested deeper than {MAX_DEPTH}")
            stack.append([])
        elif tok == ")":
            if not stack:
                raise ProtocolError("unmatched ')'")
            done = tuple(stack.pop())
            (stack[-1] if stack else out).append(done)
        else:
            (stack[-1] if stack else out).append(tok)
    if stack:
        raise ProtocolError("'(' is never closed")
    return out


def write_kif(term) -> str:
    """KIF text of a term of [`read_kif()`][ggpzoo.ggp.protocol.read_kif] (or of `ggpzoo.gdl.syntax`)."""
    if isinstance(term, tuple):
        return "(" + " ".join(write_kif(t) for t in term) + ")"
    return term


def move_term(term):
    """A move as the game's term: symbols lower-cased (GDL is case-insensitive), ``(noop)``
    read as ``noop`` (as `ggpzoo.gdl.syntax.parse()` reads ``(terminal)``).

    >>> move_term(("MARK", "1", ("F", "X"))), move_term(("NOOP",))
    (('mark', '1', ('f', 'x')), 'noop')
    """
    if isinstance(term, tuple):
        if not term:
            raise ProtocolError("an empty list '()' is not a move")
        if isinstance(term[0], tuple):
            raise ProtocolError(f"a move's name must be a symbol, got {write_kif(term)}")
        if len(term) == 1:
            return term[0].lower()
        return tuple(move_term(t) if isinstance(t, tuple) else t.lower() for t in term)
    if term.startswith("?"):
        raise ProtocolError(f"a move cannot be a variable: {term}")
    return term.lower()


@dataclass
class Message:
    """A parsed GGP message. ``kind`` is lower-case (``"start"``, ``"play"``...); the other
    fields are set for the kinds that carry them (``moves`` is None for ``NIL``)."""

    kind: str
    match_id: str = ""
    role: str = ""
    rules: str = ""  # the sheet as KIF text, spelling kept
    start_clock: float = 0.0
    play_clock: float = 0.0
    moves: list | None = None  # the previous joint move: one game term per role
    raw_moves: list | None = field(default=None, repr=False)  # the same, spelling kept


def _symbol(x, what: str) -> str:
    if not isinstance(x, str):
        raise ProtocolError(f"the {what} must be a symbol, got {write_kif(x)}")
    return x


def _clock(x, what: str) -> float:
    try:
        value = float(_symbol(x, what))
    except ValueError:
        raise ProtocolError(f"the {what} must be a number of seconds, got {x}") from None
    if not (0 < value < 10**7):
        raise ProtocolError(f"the {what} must be a positive number of seconds, got {x}")
    return value


def _rules(x) -> str:
    if not isinstance(x, tuple) or not x:
        raise ProtocolError("the rules must be a non-empty list of sentences")
    return "\n".join(write_kif(t) for t in x)


def _joint(x) -> tuple[list | None, list | None]:
    if isinstance(x, str):
        if x.lower() == "nil":
            return None, None
        raise ProtocolError(f"the joint move must be NIL or a list of moves, got {x}")
    return [move_term(m) for m in x], list(x)


def parse_message(text) -> Message:
    """Read one GGP message (``str`` or UTF-8 ``bytes``); [`ProtocolError`][ggpzoo.ggp.protocol.ProtocolError] names
    what is wrong."""
    if isinstance(text, (bytes, bytearray)):
        if len(text) > MAX_MESSAGE_BYTES:
            raise ProtocolError(f"message of {len(text):,} bytes: the limit is {MAX_MESSAGE_BYTES:,}")
        text = bytes(text).decode("utf-8", errors="replace")
    if len(text) > MAX_MESSAGE_BYTES:
        raise ProtocolError(f"message of {len(text):,} characters: the limit is {MAX_MESSAGE_BYTES:,}")
    terms = read_kif(text)
    if len(terms) != 1:
        raise ProtocolError(f"expected one message, got {len(terms)} terms")
    t = terms[0]
    if isinstance(t, str):
        t = (t,)  # a bare INFO
    if not t or not isinstance(t[0], str) or t[0].lower() not in _KINDS:
        head = write_kif(t[0]) if t else "()"
        raise ProtocolError(f"unknown message {head[:40]!r}: expected one of {', '.join(k.upper() for k in _KINDS)}")
    kind = t[0].lower()
    args = t[1:]
    want = {"info": 0, "preview": 2, "start": 5, "play": 2, "stop": 2, "abort": 1}[kind]
    if len(args) != want:
        raise ProtocolError(f"{kind.upper()} takes {want} arguments, got {len(args)}")
    if kind == "info":
        return Message(kind)
    if kind == "preview":
        return Message(kind, rules=_rules(args[0]), start_clock=_clock(args[1], "preview clock"))
    match_id = _symbol(args[0], "match id")
    if kind == "start":
        return Message(
            kind,
            match_id,
            role=_symbol(args[1], "role"),
            rules=_rules(args[2]),
            start_clock=_clock(args[3], "start clock"),
            play_clock=_clock(args[4], "play clock"),
        )
    if kind == "abort":
        return Message(kind, match_id)
    moves, raw = _joint(args[1])
    return Message(kind, match_id, moves=moves, raw_moves=raw)


def info_reply(name: str, busy: bool = False) -> str:
    """The reply to INFO: ``((name NAME) (status available))`` (``busy`` during a match)."""
    name = re.sub(r"[\s();]+", "_", name) or "ggpzoo"
    return f"((name {name}) (status {'busy' if busy else 'available'}))"


def error_reply(reason) -> str:
    """``error: REASON`` on one line, at most 300 characters."""
    line = " ".join(str(reason).split()) or "error"
    return "error: " + line[:293]


class Spelling:
    """The sheet's own spelling of its symbols: `ggpzoo.gdl.syntax.parse()` lower-cases
    them, and a server compares moves case-sensitively, so a move goes out spelled as the
    sheet spelled each of its symbols (the first spelling met, if the sheet uses several)."""

    def __init__(self, rules: str):
        self.spelling: dict[str, str] = {}
        for m in _TOKEN.finditer(rules):
            tok = m.group(0)
            if tok[0].isspace() or tok[0] in "();":
                continue
            self.spelling.setdefault(tok.lower(), tok)

    def text(self, term) -> str:
        """A game term (lower-case) as KIF text in the sheet's spelling."""
        if isinstance(term, tuple):
            return "(" + " ".join(self.text(t) for t in term) + ")"
        return self.spelling.get(term, term)


class MoveCodec:
    """Moves of a loaded [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game] to and from the env's action ids and
    the protocol's text (in the sheet's spelling).

    >>> from ggpzoo import gdl
    >>> text = open(gdl.game_path("tictactoe")).read()
    >>> codec = MoveCodec(gdl.load(text), text)
    >>> i = codec.action_id("xplayer", "( MARK 2 2 )")
    >>> codec.text("xplayer", i)
    '(mark 2 2)'
    """

    def __init__(self, game, rules: str | None = None):
        self.game = game
        self.spelling = Spelling(game.text if rules is None else rules)

    def term(self, move):
        """A move (text, or a term of [`read_kif()`][ggpzoo.ggp.protocol.read_kif]) as the game's term."""
        if isinstance(move, str):
            terms = read_kif(move)
            if len(terms) != 1:
                raise ProtocolError(f"{move[:60]!r} is not one move")
            move = terms[0]
        return move_term(move)

    def action_id(self, role: str, move) -> int:
        """The action id of ``move`` for ``role``; ProtocolError if it is not in the role's action space."""
        term = self.term(move)
        got = self.game.action_ids[role].get(term)
        if got is None:
            raise ProtocolError(f"{write_kif(term)} is not a move of role {role}")
        return got

    def text(self, role: str, move) -> str:
        """The protocol text of ``move`` (an action id of ``role``, or a game term)."""
        if not isinstance(move, (str, tuple)):
            move = self.game.actions[role][int(move)]
        return self.spelling.text(move)
