"""A GGP game server of ggpzoo's own: play a match between players over the protocol.

``python -m ggpzoo ggp-match SHEET --player HOST:PORT --player HOST:PORT --start 20 --play 1``
plays one match as ggp-base's game server does:

* START goes to every player (the sheet, its role, the clocks); each has the start clock
  plus `GRACE` seconds to answer ``ready``;
* every turn every role is asked for its move with PLAY (the previous joint move; ``NIL``
  the first time), roles with one legal move (``noop``) too, all at once;
* a reply that is not a legal move in the sheet's own spelling (servers compare moves
  case-sensitively), cannot be read, or comes later than the play clock plus
  `GRACE` seconds is an error: a random legal move is played for that role, and the
  error is recorded. The match goes on;
* at the end STOP goes to every player, and the record has the goals.

With ``scramble=True`` every symbol of the sheet but the GDL keywords and numbers is
renamed, the same way throughout ([`scramble()`][ggpzoo.ggp.server.scramble]): the players see a sheet whose names
mean nothing. The record keeps the original names.

The server judges on the exact reasoner (`ggpzoo.gdl.game`), so it plays any sheet
that loads, and its judgement needs no grounding.

The record ([`run_match()`][ggpzoo.ggp.server.run_match]'s return value, ``--out match.json``): ``match_id``,
``sheet``, ``roles``, ``players``, ``start_clock``, ``play_clock``, ``scrambled``,
``ready`` (per player), ``moves`` (one joint move per turn, one move text per role, in the
original spelling), ``errors`` (per turn and role: ``""`` or what went wrong), ``times``
(per turn and role: seconds until the reply), ``goals`` (per role), ``seconds``.
"""

from __future__ import annotations

import json
import re
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ggpzoo.ggp.player import post
from ggpzoo.ggp.protocol import KEYWORDS, ProtocolError, Spelling, move_term, read_kif, write_kif

__all__ = ["GRACE", "MAX_TURNS", "judge", "parse_address", "run_match", "scramble"]

GRACE = 1.0  # seconds past a clock before a reply counts as late
MAX_TURNS = 10_000  # a match still running after this many joint moves ends without goals
_NO_CONNECTION = ("ConnectionRefusedError", "socket.gaierror", "gaierror", "OSError")
_SYLLABLES = [c + v for c in "bdfklmnprstvz" for v in "aeiou"]


def parse_address(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``9147`` alone is ``127.0.0.1:9147``) as ``(host, port)``; ValueError if malformed."""
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = "127.0.0.1", text
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"a player is HOST:PORT (e.g. 127.0.0.1:9147), got {text!r}")
    return host or "127.0.0.1", int(port)


def _symbols(term, out: set) -> None:
    if isinstance(term, tuple):
        for t in term:
            _symbols(t, out)
    else:
        out.add(term.lower())


def scramble(rules: str, seed: int | None = None) -> tuple[str, dict[str, str]]:
    """The sheet with every symbol but the GDL keywords, numbers and variables renamed, the
    same way everywhere (case-insensitively, as GDL reads symbols); returns ``(text,
    mapping)``, the mapping from each lower-case name to its new spelling. New names are
    made of syllables, in mixed case (``Kozi``, ``rabeti``), so a player must write its
    moves back in the sheet's spelling. The text has no comments.

    >>> text, names = scramble("(role white) (<= (legal white (Move 1 ?x)) (true (cell ?x)))", seed=1)
    >>> sorted(names) == ["cell", "move", "white"] and "?x" in text and "legal" in text
    True
    """
    rng = np.random.default_rng(seed)
    terms = read_kif(rules)
    found: set = set()
    for t in terms:
        _symbols(t, found)
    names: dict[str, str] = {}
    taken = set(KEYWORDS)
    for sym in sorted(found):
        if sym in KEYWORDS or sym.startswith("?") or re.fullmatch(r"-?\d+(\.\d+)?", sym):
            continue
        while True:
            n = "".join(_SYLLABLES[int(rng.integers(len(_SYLLABLES)))] for _ in range(int(rng.integers(2, 5))))
            if rng.random() < 0.5:
                n = n.capitalize()
            if n.lower() not in taken:
                break
        taken.add(n.lower())
        names[sym] = n

    def rename(t):
        if isinstance(t, tuple):
            return tuple(rename(x) for x in t)
        return names.get(t.lower(), t)

    return "\n".join(write_kif(rename(t)) for t in terms), names


def judge(reply: str, legal: list, spelling: Spelling) -> tuple:
    """``(the move's term, "")`` if ``reply`` is one of the ``legal`` terms written in the
    sheet's spelling (``(mark 1 1)``, ``( mark 1 1 )``; ``(MARK 1 1)`` is not), else
    ``(None, why)``.

    >>> judge("( MARK 1 1 )", [("mark", "1", "1")], Spelling("(mark 1 1)"))
    (None, "illegal move '( MARK 1 1 )' (the sheet spells it (mark 1 1))")
    """
    try:
        terms = read_kif(reply)
        if len(terms) != 1:
            return None, f"not one move: {reply[:60]!r}"
        move = move_term(terms[0])
    except ProtocolError as e:
        return None, str(e)
    if move not in legal:
        return None, f"illegal move {reply[:60]!r}"
    written = terms[0][0] if isinstance(terms[0], tuple) and len(terms[0]) == 1 else terms[0]  # (noop) is noop
    if spelling.text(move) != write_kif(written):
        return None, f"illegal move {reply[:60]!r} (the sheet spells it {spelling.text(move)})"
    return move, ""


def _ask(players, messages, timeout) -> list:
    """Send ``messages[i]`` to ``players[i]`` at once; per player ``(reply or None, seconds, error)``."""

    def one(addr, msg):
        t0 = time.perf_counter()
        try:
            reply = post(addr[0], addr[1], msg, timeout=timeout)
            return reply, time.perf_counter() - t0, ""
        except TimeoutError:
            return None, time.perf_counter() - t0, f"no reply within {timeout:g} s"
        except (OSError, ProtocolError) as e:
            return None, time.perf_counter() - t0, f"{type(e).__name__}: {e}"

    with ThreadPoolExecutor(max_workers=len(players)) as pool:
        return list(pool.map(one, players, messages))


def run_match(
    sheet: str,
    players: list,
    start_clock: float = 20.0,
    play_clock: float = 1.0,
    scramble_names: bool = False,
    seed: int | None = None,
    match_id: str | None = None,
    progress=None,
) -> dict:
    """Play one match of ``sheet`` (a ``.kif`` path, a shipped sheet's name, or KIF text)
    between ``players`` (``(host, port)`` or ``"HOST:PORT"``, one per role, in the sheet's
    role order); return its record (see the module docstring). ``seed`` seeds the scrambling
    and the random moves played for errors; ``progress(turn, joint_move_texts, errors)`` is
    called after each joint move."""
    from ggpzoo import gdl
    from ggpzoo.gdl.spec import sheet_path

    if not (isinstance(start_clock, (int, float)) and start_clock > 0):
        raise ValueError(f"the start clock must be a positive number of seconds, got {start_clock!r}")
    if not (isinstance(play_clock, (int, float)) and play_clock > 0):
        raise ValueError(f"the play clock must be a positive number of seconds, got {play_clock!r}")
    if "(" in sheet:
        text, name = sheet, "sheet"
    else:
        path = sheet_path(sheet)
        with open(path, encoding="utf-8", errors="replace") as f:
            text, name = f.read(), path
    addrs = [parse_address(p) if isinstance(p, str) else (str(p[0]), int(p[1])) for p in players]
    original = gdl.load(text)
    if len(addrs) != len(original.roles):
        raise ValueError(
            f"{len(original.roles)} roles ({', '.join(original.roles)}) need {len(original.roles)} players, "
            f"got {len(addrs)}"
        )
    rng = np.random.default_rng(seed)
    if scramble_names:
        sent, names = scramble(text, seed=int(rng.integers(2**62)))
        back = {v.lower(): k for k, v in names.items()}
    else:
        sent, back = "\n".join(write_kif(t) for t in read_kif(text)), {}
    game = gdl.load(sent)  # the rules as the players see them: judged in their names
    spelling = Spelling(sent)
    orig_spelling = Spelling(text)
    roles = game.roles
    match_id = match_id or f"ggpzoo.{uuid.uuid4().hex[:12]}"

    def original_text(term) -> str:
        def un(t):
            if isinstance(t, tuple):
                return tuple(un(x) for x in t)
            return back.get(t, t)

        return orig_spelling.text(un(term))

    record = {
        "match_id": match_id,
        "sheet": name,
        "roles": [original_text(r) for r in roles],
        "players": [f"{h}:{p}" for h, p in addrs],
        "start_clock": start_clock,
        "play_clock": play_clock,
        "scrambled": bool(scramble_names),
        "ready": [],
        "moves": [],
        "errors": [],
        "times": [],
        "goals": None,
    }
    t_start = time.perf_counter()
    rules = "(" + sent + ")"
    got = _ask(
        addrs,
        [f"(START {match_id} {spelling.text(r)} {rules} {start_clock:g} {play_clock:g})" for r in roles],
        start_clock + GRACE,
    )
    record["ready"] = [reply is not None and reply.strip().lower() == "ready" for reply, _, _ in got]
    record["start_errors"] = [
        err or ("" if ok else f"replied {reply!r}") for (reply, _, err), ok in zip(got, record["ready"], strict=True)
    ]
    unreachable = [
        f"{h}:{p} ({err})" for (h, p), (reply, _, err) in zip(addrs, got, strict=True) if err.startswith(_NO_CONNECTION)
    ]
    if unreachable:
        _ask(addrs, [f"(ABORT {match_id})"] * len(addrs), play_clock + GRACE)
        raise OSError(f"cannot reach player {', '.join(unreachable)}")
    state = game.initial_state()
    previous = "NIL"
    for turn in range(MAX_TURNS):
        legal = [game.legal(state, r) for r in roles]
        if game.is_terminal(state) or any(not m for m in legal):
            break
        got = _ask(addrs, [f"(PLAY {match_id} {previous})"] * len(roles), play_clock + GRACE)
        joint, errors, times = [], [], []
        for i, (reply, secs, err) in enumerate(got):
            move = None
            if reply is not None:
                move, err = judge(reply, legal[i], spelling)
                if secs > play_clock + GRACE:
                    move, err = None, f"late: {secs:.2f} s"
            if move is None:
                move = legal[i][int(rng.integers(len(legal[i])))]
                err = err or "no move"
            joint.append(move)
            errors.append(err)
            times.append(round(secs, 3))
        record["moves"].append([original_text(m) for m in joint])
        record["errors"].append(errors)
        record["times"].append(times)
        if progress is not None:
            progress(turn, record["moves"][-1], errors)
        previous = "(" + " ".join(spelling.text(m) for m in joint) + ")"
        state = game.next_state(state, dict(zip(roles, joint, strict=True)))
    if game.is_terminal(state) or any(not game.legal(state, r) for r in roles):
        g = game.goals(state)
        record["goals"] = [g[r] for r in roles]
    got = _ask(addrs, [f"(STOP {match_id} {previous})"] * len(roles), play_clock + GRACE)
    record["stop_replies"] = [reply for reply, _, _ in got]
    record["seconds"] = round(time.perf_counter() - t_start, 3)
    return record


def summary(record: dict) -> str:
    """One line: the goals and the errors per role."""
    errs = [sum(1 for turn in record["errors"] if turn[i]) for i in range(len(record["roles"]))]
    parts = [
        f"{r} ({p}): goal {'-' if record['goals'] is None else record['goals'][i]}, {errs[i]} errors"
        for i, (r, p) in enumerate(zip(record["roles"], record["players"], strict=True))
    ]
    return f"{len(record['moves'])} moves in {record['seconds']:.1f} s; " + "; ".join(parts)


def save(record: dict, path: str) -> None:
    with open(path, "w") as f:
        json.dump(record, f, indent=1)
