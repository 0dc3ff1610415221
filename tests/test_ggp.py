"""GGP matches: the protocol, the player over HTTP, the match runner's judging, scrambling."""

import socket
import time

import numpy as np
import pytest

from ggpzoo import gdl
from ggpzoo.gdl.syntax import to_text
from ggpzoo.ggp.agents import LegalAgent, Machine, MonteCarloAgent
from ggpzoo.ggp.player import GGPPlayer, PlayerServer, clock_margin, post, warm_up
from ggpzoo.ggp.protocol import (
    MAX_DEPTH,
    MAX_MESSAGE_BYTES,
    MoveCodec,
    ProtocolError,
    Spelling,
    parse_message,
    read_kif,
    write_kif,
)
from ggpzoo.ggp.server import GRACE, run_match, scramble

TTT = gdl.game_path("tictactoe")
START, PLAY = 5.0, 0.3


def _text(name):
    with open(gdl.game_path(name)) as f:
        return f.read()


@pytest.fixture(scope="module")
def servers():
    """An mcts player and a Monte Carlo reference on 127.0.0.1, any free ports."""
    a = PlayerServer(GGPPlayer("mcts", seed=0), port=0).start()
    b = PlayerServer(GGPPlayer("mc", seed=1), port=0).start()
    assert a.warmed.wait(900) and b.warmed.wait(900)  # the kernels load in the background
    yield a, b
    a.stop()
    b.stop()


# ----------------------------------------------------------------------------- protocol
def test_messages_any_case_and_spacing():
    for text in ("(INFO)", "( info )", "info", "(Info)"):
        assert parse_message(text).kind == "info"
    m = parse_message("(START M1 XPlayer ((role xplayer) (init (cell 1 1 b))) 10 2.5)")
    assert (m.kind, m.match_id, m.role, m.start_clock, m.play_clock) == ("start", "M1", "XPlayer", 10.0, 2.5)
    assert "(init (cell 1 1 b))" in m.rules
    assert parse_message("(play m1 nil)").moves is None
    assert parse_message("( PLAY m1 NIL )").moves is None
    m = parse_message("(play m1 ( ( MARK 2 2 ) NOOP))")
    assert m.moves == [("mark", "2", "2"), "noop"]
    assert parse_message("(play m1 ((mark 2 2) (noop)))").moves == [("mark", "2", "2"), "noop"]
    assert parse_message("(stop m1 (noop (mark 1 3)))").kind == "stop"
    assert parse_message("(abort m1)").kind == "abort"
    assert parse_message("(preview ((role a)) 5)").kind == "preview"


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "(",
        "())",
        "(hello)",
        "(play m1)",
        "(play m1 maybe)",
        "(start m1 x ((role x)) ten 1)",
        "(start m1 x ((role x)) 10 -1)",
        "(start m1 x () 10 1)",
        "(play m1 (() noop))",
        "(info) (info)",
        "(" * (MAX_DEPTH + 1) + ")" * (MAX_DEPTH + 1),
    ],
)
def test_malformed_messages_refused(bad):
    with pytest.raises(ProtocolError):
        parse_message(bad)
    reply = GGPPlayer("legal").handle(bad)
    assert reply.startswith("error: ") and "\n" not in reply


def test_message_size_bounded():
    big = "(info " + "x " * (MAX_MESSAGE_BYTES // 2) + ")"
    with pytest.raises(ProtocolError, match="limit"):
        parse_message(big.encode())


def test_moves_round_trip_through_action_ids():
    game = gdl.load(TTT)
    codec = MoveCodec(game, _text("tictactoe"))
    for role in game.roles:
        for i in range(len(game.actions[role])):
            text = codec.text(role, i)
            assert codec.action_id(role, text) == i
            assert codec.action_id(role, text.upper()) == i
            assert codec.action_id(role, text.replace("(", "( ").replace(")", " )")) == i
    with pytest.raises(ProtocolError, match="not a move"):
        codec.action_id("xplayer", "(mark 4 4)")


def test_moves_go_out_in_the_sheets_spelling():
    sheet = _text("tictactoe").replace("mark", "MarK").replace("noop", "NoOp")
    game = gdl.load(sheet)
    codec = MoveCodec(game, sheet)
    assert codec.text("xplayer", codec.action_id("xplayer", "(mark 1 2)")) == "(MarK 1 2)"
    assert codec.text("oplayer", "noop") == "NoOp"
    assert Spelling(sheet).text(("mark", "3", "3")) == "(MarK 3 3)"


def test_scramble_renames_consistently():
    text, names = scramble(_text("tictactoe"), seed=5)
    assert {"xplayer", "oplayer", "mark", "cell", "noop", "control"} <= set(names)
    assert not set(names) & {"role", "legal", "does", "true", "next", "goal", "terminal", "init", "distinct", "not"}
    assert "mark" not in text.lower().split() and "(legal" in text
    scrambled, original = gdl.load(text), gdl.load(TTT)
    assert len(scrambled.roles) == 2 and scrambled.roles[0] == names["xplayer"].lower()
    # the same game: the same number of moves everywhere on a random line of play
    s, t = scrambled.initial_state(), original.initial_state()
    back = {v.lower(): k for k, v in names.items()}
    while not original.is_terminal(t):
        ls = [scrambled.legal(s, r) for r in scrambled.roles]
        lt = [original.legal(t, r) for r in original.roles]
        assert [len(x) for x in ls] == [len(x) for x in lt]
        moves = [x[-1] for x in ls]
        s = scrambled.next_state(s, dict(zip(scrambled.roles, moves, strict=True)))

        def un(m):
            return tuple(back.get(a, a) for a in m) if isinstance(m, tuple) else back.get(m, m)

        t = original.next_state(t, dict(zip(original.roles, [un(m) for m in moves], strict=True)))
    assert scrambled.is_terminal(s)
    assert read_kif(scramble("(role a)", seed=1)[0])[0][0] == "role"


# ----------------------------------------------------------------------------- reference opponents
@pytest.mark.parametrize("backend", ["compiled", "exact"])
def test_monte_carlo_finds_the_winning_move(backend):
    game = gdl.load(TTT)
    m = Machine(game, backend)
    state = m.initial()
    # x: (1,1) (1,2); o: (2,1) (2,2); x to play wins at (1,3)
    line = [("(mark 1 1)", 0), ("(mark 2 1)", 1), ("(mark 1 2)", 0), ("(mark 2 2)", 1)]
    for text, who in line:
        move = m.move(who, read_kif(text)[0])
        joint = [m.legal(state)[i][0] for i in range(2)]
        joint[who] = move
        state = m.next(state, joint)
    agent = MonteCarloAgent(m, seed=0)
    got = agent.choose(state, 0, time.perf_counter() + 1.0)  # a clock a busy machine still fits depth charges in
    assert m.text(0, got) == "(mark 1 3)"
    assert agent.last_search["simulations"] > 5
    assert m.text(0, LegalAgent(m).choose(state, 0, None)) == m.text(0, m.legal(state)[0][0])


# ----------------------------------------------------------------------------- the player over HTTP
def _raw(addr, request: bytes) -> bytes:
    with socket.create_connection(addr, timeout=5) as s:
        s.sendall(request)
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def test_http_replies_headers_get_options(servers):
    addr = servers[0].address
    reply = _raw(addr, b"POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: 6\r\n\r\n(info)")
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 200")
    for h in (b"Content-type: text/acl", b"Content-length: "):
        assert h in head
    assert b"Access-Control-Allow-Origin" not in head
    assert body == b"((name ggpzoo) (status available))"
    assert _raw(addr, b"GET /?(info) HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.0 405")  # POST only
    assert _raw(addr, b"OPTIONS / HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.0 405")  # no web page's preflight
    too_big = f"POST / HTTP/1.0\r\nContent-Length: {MAX_MESSAGE_BYTES + 1}\r\n\r\n".encode()
    assert _raw(addr, too_big).startswith(b"HTTP/1.0 413")
    assert post(*addr, "(start m x)").startswith("error: ")


def test_busy_for_a_second_match():
    with PlayerServer(GGPPlayer("legal"), port=0) as server:
        addr = server.address
        rules = "(" + _text("tictactoe") + ")"
        assert post(*addr, f"(START m1 xplayer {rules} 5 1)") == "ready"
        assert "(status busy)" in post(*addr, "(info)")
        assert post(*addr, f"(START m2 oplayer {rules} 5 1)") == "busy"
        assert post(*addr, "(PLAY m2 NIL)") == "busy"
        assert post(*addr, "(PLAY m1 NIL)") == "(mark 1 1)"
        assert post(*addr, "(PLAY m1 ((mark 1 1) noop))") == "noop"
        assert post(*addr, "(ABORT m1)") == "aborted"
        assert post(*addr, f"(START m2 oplayer {rules} 5 1)") == "ready"
        assert post(*addr, "(PLAY m2 NIL)") == "noop"
        assert post(*addr, "(STOP m2 ((mark 1 1) noop))") == "done"
        assert [m["result"] for m in server.player.matches] == ["aborted", "done"]


def test_full_match_against_monte_carlo_no_errors(servers):
    a, b = servers
    for players in ([a.address, b.address], [b.address, a.address]):
        rec = run_match("tictactoe", players, start_clock=START, play_clock=PLAY, seed=0)
        assert all(rec["ready"])
        assert rec["goals"] is not None and len(rec["moves"]) >= 5
        assert not any(e for turn in rec["errors"] for e in turn), rec["errors"]
        assert max(t for turn in rec["times"] for t in turn) < PLAY + GRACE
    log = a.player.matches[-1]
    assert log["backend"] == "compiled" and log["result"] == "done" and log["goals"] is not None
    searched = [t for t in log["turns"] if t.get("legal", 1) > 1]
    assert searched and all(t["simulations"] > 0 for t in searched)


def test_the_search_tree_is_reused_between_turns(servers):
    a, b = servers
    rec = run_match("connect_four", [a.address, b.address], start_clock=START, play_clock=PLAY, seed=5)
    assert rec["goals"] is not None
    assert not any(e for turn in rec["errors"] for e in turn), rec["errors"]
    searched = [t for t in a.player.matches[-1]["turns"] if t.get("legal", 1) > 1]
    assert "reused" not in searched[0]  # the first search starts afresh
    reused = [t["reused"] for t in searched[1:] if t.get("reused")]
    # the search two plies earlier had tried the reply the reference played, nearly always
    assert len(reused) >= len(searched[1:]) // 2 and all(r > 0 for r in reused)


def test_full_scrambled_match(servers):
    a, b = servers
    rec = run_match(
        "connect_four", [a.address, b.address], start_clock=START, play_clock=PLAY, scramble_names=True, seed=1
    )
    assert rec["scrambled"] and rec["roles"] == ["red", "black"]
    assert rec["goals"] is not None
    assert not any(e for turn in rec["errors"] for e in turn), rec["errors"]
    assert rec["moves"][0][1] == "noop"  # recorded in the sheet's own names
    played = a.player.matches[-1]["turns"][0]["move"]
    assert played.split()[0].strip("(").lower() not in ("drop", "noop")  # the player saw the scrambled names


def test_simultaneous_moves_match(servers):
    a, b = servers
    rec = run_match("rps_fold", [a.address, b.address], start_clock=START, play_clock=PLAY, seed=2)
    assert rec["goals"] is not None
    assert not any(e for turn in rec["errors"] for e in turn), rec["errors"]


def test_exact_path_when_the_network_is_not_ready(monkeypatch):
    from ggpzoo.gdl.game import Game
    from ggpzoo.gdl.ground import GroundingTooLarge

    warm_up()  # before the network is taken away

    def no_network(self):
        raise GroundingTooLarge("test: no network")

    monkeypatch.setattr(Game, "propnet", no_network)
    with PlayerServer(GGPPlayer("mcts", seed=0), port=0) as p, PlayerServer(GGPPlayer("random", seed=1), port=0) as q:
        rec = run_match("tictactoe", [p.address, q.address], start_clock=START, play_clock=PLAY, scramble_names=True)
        log = p.player.matches[-1]
    assert log["backend"] == "exact" and "test: no network" in log["backend_reason"]
    assert rec["goals"] is not None
    assert not any(e for turn in rec["errors"] for e in turn), rec["errors"]


def test_no_network_is_built_for_a_match_that_has_ended(monkeypatch):
    # a sheet still grounding when its match ends stops grounding and is not compiled: the
    # CPU goes to the next match
    import threading

    from ggpzoo.gdl.game import Game
    from ggpzoo.ggp.player import ENDED_FIRST

    warm_up()
    release, started, built, raised = threading.Event(), threading.Event(), [], []
    real_grounding, real_propnet = Game.grounding, Game.propnet

    def slow_grounding(self, stop=None):
        if threading.current_thread().name == "ggp-load":
            started.set()
            release.wait(60)
        try:
            return real_grounding(self, stop=stop)
        except Exception as e:
            raised.append(type(e).__name__)
            raise

    def counted_propnet(self):
        built.append(self)
        return real_propnet(self)

    monkeypatch.setattr(Game, "grounding", slow_grounding)
    monkeypatch.setattr(Game, "propnet", counted_propnet)
    player = GGPPlayer("mcts", seed=0, seeds=False)
    rules = "(" + _text("tictactoe") + ")"
    assert player.handle(f"(START m1 xplayer {rules} 1 1)") == "ready"  # in time, the sheet still grounding
    assert started.wait(60)
    m = player._match
    assert player.handle("(ABORT m1)") == "aborted"
    release.set()
    assert m.compile_done.wait(60)
    assert raised == ["GroundingStopped"]  # the grounding in progress stopped
    assert built == [] and m.compile_error == ENDED_FIRST


def test_a_match_keeps_the_collector_off_its_sheet_and_the_next_start_collects():
    # what a match loads is frozen (no full collection walks it during the match); the next
    # START collects the garbage left from before, on its start clock
    import gc
    import weakref

    class Cycle:
        pass

    player = GGPPlayer("legal", seeds=False)
    rules = "(" + _text("tictactoe") + ")"
    junk = Cycle()
    junk.me = junk
    gone = weakref.ref(junk)
    try:
        assert player.handle(f"(START m1 xplayer {rules} 5 1)") == "ready"
        assert player._match.compile_done.wait(60)
        assert gc.get_freeze_count() > 0
        del junk  # garbage now, but frozen: a collection does not see it
        gc.collect()
        assert gone() is not None
        assert player.handle("(ABORT m1)") == "aborted"
        assert player.handle(f"(START m2 xplayer {rules} 5 1)") == "ready"
        assert player._match.compile_done.wait(60)
        assert gone() is None  # collected when the second match started
    finally:
        gc.unfreeze()


def test_a_short_start_clock_leaves_the_collector_as_it_is(monkeypatch):
    # a full collection of a large process can outlast a short start clock (it stops every
    # thread, the one answering START too): below GC_MIN_START_CLOCK a match neither
    # collects nor freezes
    from ggpzoo.ggp import player as player_module

    calls = []
    monkeypatch.setattr(player_module.gc, "collect", lambda *a: calls.append("collect") or 0)
    monkeypatch.setattr(player_module.gc, "freeze", lambda: calls.append("freeze"))
    player = GGPPlayer("legal", seeds=False)
    rules = "(" + _text("tictactoe") + ")"
    short = player_module.GC_MIN_START_CLOCK - 1
    assert player.handle(f"(START m1 xplayer {rules} {short:g} 1)") == "ready"
    assert player._match.compile_done.wait(60)
    assert calls == []
    assert player.handle("(ABORT m1)") == "aborted"
    assert player.handle(f"(START m2 xplayer {rules} {player_module.GC_MIN_START_CLOCK:g} 1)") == "ready"
    assert player._match.compile_done.wait(60)
    assert calls == ["collect", "freeze"]


def test_a_slow_search_still_answers_in_time(monkeypatch):
    def slow(self, m, legal, deadline, turn):
        time.sleep(PLAY * 3)
        return legal[-1], {}

    monkeypatch.setattr(GGPPlayer, "_search", slow)
    with PlayerServer(GGPPlayer("mcts"), port=0) as server:
        addr = server.address
        rules = "(" + _text("tictactoe") + ")"
        assert post(*addr, f"(START m1 xplayer {rules} {START} {PLAY})") == "ready"
        t0 = time.perf_counter()
        assert post(*addr, "(PLAY m1 NIL)") == "(mark 1 1)"  # the first legal move
        assert time.perf_counter() - t0 < PLAY + 0.2  # the search took 3 play clocks
        assert post(*addr, "(ABORT m1)") == "aborted"
        time.sleep(PLAY * 3)
        first = server.player.matches[-1]["turns"][0]
        assert first["late"] is True and first["move"] == "(mark 1 1)" and "error" not in first  # the move sent
        assert first["search_move"] == "(mark 3 3)"


def test_the_play_clock_counts_from_the_connection_not_the_end_of_the_message(monkeypatch):
    # a message that takes a second to arrive has a second less to be answered in
    deadlines = []

    def fake(self, m, legal, deadline, turn):
        deadlines.append(deadline)
        return legal[0], {}

    monkeypatch.setattr(GGPPlayer, "_search", fake)
    with PlayerServer(GGPPlayer("mcts"), port=0) as server:
        addr = server.address
        rules = "(" + _text("tictactoe") + ")"
        assert post(*addr, f"(START m1 xplayer {rules} {START} 3)") == "ready"
        body = b"(PLAY m1 NIL)"
        with socket.create_connection(addr, timeout=5) as s:
            t0 = time.perf_counter()
            s.sendall(b"POST / HTTP/1.0\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body[:5]))
            time.sleep(1.0)
            s.sendall(body[5:])
            reply = b""
            while chunk := s.recv(65536):
                reply += chunk
        assert reply.endswith(b"(mark 1 1)")
        accepted = deadlines[0] - 3 + clock_margin(3)  # the clock's start, as the player counted it
        assert t0 - 0.05 < accepted < t0 + 0.5
        assert post(*addr, "(ABORT m1)") == "aborted"
    assert not server._server.accepted  # one entry per open connection, none left


class _Scripted:
    """A player that answers START with ready and every PLAY with ``reply`` (after ``delay`` s)."""

    def __init__(self, reply, delay=0.0):
        self.reply, self.delay = reply, delay

    def handle(self, message, received=None):
        msg = parse_message(message)
        if msg.kind == "play":
            time.sleep(self.delay)
            return self.reply
        return {"start": "ready", "stop": "done", "abort": "aborted"}.get(msg.kind, "ready")


@pytest.mark.parametrize(
    "reply,delay,error",
    [
        ("(MARK 1 1)", 0.0, "illegal"),
        ("(mark 9 9)", 0.0, "illegal"),
        ("((", 0.0, "'('"),
        ("noop", PLAY + 1.2, "no reply"),
    ],
)
def test_runner_judges_bad_replies_with_a_random_move(servers, reply, delay, error):
    bad = PlayerServer(_Scripted(reply, delay), port=0, warm=False).start()
    try:
        rec = run_match("tictactoe", [bad.address, servers[1].address], start_clock=START, play_clock=PLAY, seed=4)
    finally:
        bad.stop()
    assert rec["goals"] is not None  # the match went on to the end
    x_turns = [i for i, m in enumerate(rec["moves"]) if m[0] != "noop"]
    assert x_turns and all(error in rec["errors"][i][0] for i in x_turns), rec["errors"]
    assert all(rec["moves"][i][0].startswith("(mark") for i in x_turns)  # a legal move was played for it
    assert not any(rec["errors"][i][1] for i in range(len(rec["moves"])))


def test_clock_margin():
    assert clock_margin(0.3) == pytest.approx(0.13) and clock_margin(1) == pytest.approx(0.2)
    assert clock_margin(60) == 1.0


def test_start_answers_ready_in_time_while_the_sheet_loads(monkeypatch):
    from ggpzoo import gdl as gdl_module

    real = gdl_module.load

    def slow_load(*args, **kwargs):
        time.sleep(1.0)
        return real(*args, **kwargs)

    monkeypatch.setattr(gdl_module, "load", slow_load)
    with PlayerServer(GGPPlayer("mcts", seed=0), port=0) as server:
        addr = server.address
        rules = "(" + _text("tictactoe") + ")"
        t0 = time.perf_counter()
        assert post(*addr, f"(START m1 xplayer {rules} 0.8 1)") == "ready"  # read at 1 s, compiled after 2 s
        assert time.perf_counter() - t0 < 0.8
        time.sleep(0.5)
        assert post(*addr, "(PLAY m1 NIL)").startswith("(mark")
        assert server.player._match.log["backend"] == "exact"  # the network is not built yet
        for _ in range(300):  # the network: built a second or two later
            if server.player._match.compiled is not None:
                break
            time.sleep(0.1)
        assert post(*addr, "(PLAY m1 ((mark 1 1) noop))") == "noop"
        assert post(*addr, "(PLAY m1 (noop (mark 2 2)))").startswith("(mark")
        assert post(*addr, "(ABORT m1)") == "aborted"
    log = server.player.matches[-1]
    assert "still loading" in log["backend_reason"] and log["backend"] == "compiled"
    assert "compiled after 1 turn(s) on the exact path" in log["backend_reason"]
    assert [t["backend"] for t in log["turns"]] == ["exact", "compiled", "compiled"]
    assert all("error" not in t for t in log["turns"])


def test_start_refuses_a_bad_sheet_or_role():
    player = GGPPlayer("legal")
    rules = "(" + _text("tictactoe") + ")"
    assert player.handle(f"(START m1 nobody {rules} 5 1)").startswith("error: role nobody")
    assert player.handle("(START m2 a ((role a) (<= (legal a ?x) (true b))) 5 1)").startswith("error: the sheet")
    assert player.handle(f"(START m3 oplayer {rules} 5 1)") == "ready"  # nothing left half-started


def test_runner_refuses_an_unreachable_player(servers):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    closed = s.getsockname()[1]
    s.close()
    with pytest.raises(OSError, match=f"cannot reach player 127.0.0.1:{closed}"):
        run_match("tictactoe", [servers[0].address, f"127.0.0.1:{closed}"], start_clock=1, play_clock=PLAY)
    assert "(status available)" in post(*servers[0].address, "(info)")  # it was sent ABORT


def test_ggp_match_command(servers, tmp_path, capsys):
    import json

    from ggpzoo.tools.cli import main

    a, b = (f"{h}:{p}" for h, p in (servers[0].address, servers[1].address))
    out = tmp_path / "match.json"
    args = ["ggp-match", "tictactoe", "--player", a, "--player", b, "--start", "5", "--play", "0.3"]
    assert main([*args, "--scramble", "--seed", "3", "--quiet", "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["scrambled"] and record["goals"] is not None and record["roles"] == ["xplayer", "oplayer"]
    assert "xplayer (" in capsys.readouterr().out
    assert main(["ggp-match", "tictactoe", "--player", a]) == 1
    assert capsys.readouterr().err.strip().endswith("need 2 players, got 1")
    with pytest.raises(SystemExit):
        main(["ggp-match", "tictactoe", "--player", a, "--player", b, "--play", "-1"])
    assert "not a positive number" in capsys.readouterr().err
    assert main(["ggp-player", "--agent", "mcts:abc"]) == 1
    assert "bad agent 'mcts:abc'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["ggp-player", "--seed-search", "minimax"])
    assert "invalid choice: 'minimax'" in capsys.readouterr().err


@pytest.mark.parametrize("module", ["protocol", "agents", "player", "server", "seeds"])
def test_doctests(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(f"ggpzoo.ggp.{module}"))
    assert result.attempted > 0 and result.failed == 0


def test_a_client_that_hangs_up_is_one_log_line(monkeypatch, caplog):
    monkeypatch.setattr(GGPPlayer, "_info", lambda self, msg, received: time.sleep(0.5) or "((name x))")
    with PlayerServer(GGPPlayer("legal"), port=0, warm=False) as server:
        with pytest.raises(TimeoutError):
            post(*server.address, "(info)", timeout=0.1)
        time.sleep(1.0)
    assert any("closed the connection" in r.getMessage() for r in caplog.records)


# ----------------------------------------------------------------------------- the seed games on their kernels
SEEDS = ["amazons", "amazons_split", "mad_bishops", "skirmish", "skirmish_endgame"]


@pytest.mark.parametrize("name", SEEDS)
def test_a_scrambled_seed_sheet_is_recognised_and_translates(name):
    from ggpzoo.ggp.seeds import SEED_SHEETS, VERIFY_PLIES, fingerprint, recognise

    text, names = scramble(_text(name), seed=11)
    assert fingerprint(text) == fingerprint(_text(name))
    game = gdl.load(text)
    seed_map, why = recognise(game, text, deadline=time.perf_counter() + 120, seed=1)  # a busy machine's time too
    assert seed_map is not None, why
    assert SEED_SHEETS[seed_map.env] == name and why.startswith("known sheet") and f"{VERIFY_PLIES} plies" in why
    assert game.roles[seed_map.white] == names["white"].lower()
    # every first move: sheet term -> kernel action -> the same term
    K = seed_map.kernel
    board, aux = np.zeros(K.H * K.W, np.int8), np.zeros(K.AUX_SIZE, np.int32)
    K.init(board, aux, seed_map.variant)
    moves = game.legal(game.initial_state(), game.roles[seed_map.white])
    ids = [seed_map.action(t, aux) for t in moves]
    buf = np.zeros(K.MAX_LEGAL, np.int32)
    assert sorted(ids) == sorted(buf[: K.legal_actions(board, aux, buf)].tolist())
    assert [seed_map.term(a, aux) for a in ids] == moves


@pytest.mark.parametrize("name", ["tictactoe", "breakthrough", "connect_four"])
def test_other_sheets_are_not_seed_games(name):
    from ggpzoo.ggp.seeds import recognise

    text, _ = scramble(_text(name), seed=2)
    seed_map, why = recognise(gdl.load(text), text)
    assert seed_map is None and "seed game" in why


def test_a_seed_variant_with_other_goals_is_refused():
    """Mad Bishops with the goals swapped (the last piece loses): the same moves, another
    fingerprint; a whole random game in lockstep finds the goals differ."""
    from ggpzoo.ggp.seeds import recognise

    text = _text("mad_bishops").replace("(goal ?r 100) (haspiece", "(goal ?r 0) (haspiece")
    text = text.replace("(goal ?r 0) (role ?r) (not (haspiece", "(goal ?r 100) (role ?r) (not (haspiece")
    assert text != _text("mad_bishops")
    seed_map, why = recognise(gdl.load(text), text, seed=0)
    assert seed_map is None and "goals" in why, why
    # the unchanged sheet with its rules reordered (another fingerprint) plays a whole game in lockstep
    moved = "\n".join(write_kif(t) for t in read_kif(_text("mad_bishops"))[::-1])
    seed_map, why = recognise(gdl.load(moved), moved, seed=0)
    assert seed_map is not None and seed_map.env == "mad_bishops_v0" and "whole random game" in why, why


def test_seed_match_on_the_kernel_against_monte_carlo(servers):
    a, b = servers
    rec = run_match(
        "skirmish_endgame", [b.address, a.address], start_clock=60, play_clock=PLAY, scramble_names=True, seed=5
    )
    assert rec["goals"] is not None
    assert not any(e for turn in rec["errors"] for e in turn), rec["errors"]
    log = a.player.matches[-1]
    assert log["seed"]["env"] == "skirmish_endgame_v0" and "left" not in log["seed"], log["seed"]
    searched = [t for t in log["turns"] if t.get("legal", 1) > 1]
    assert searched and searched[-1]["backend"] == "kernel"
    assert max(t for turn in rec["times"] for t in turn) < PLAY + GRACE


def test_a_mismatch_mid_match_leaves_the_kernel(monkeypatch):
    from ggpzoo.ggp.seeds import KernelPlayer

    player = GGPPlayer("mcts", seed=0)
    text = _text("skirmish_endgame")
    assert player.handle(f"(START m1 white ({text}) 60 {PLAY})") == "ready"  # time to recognise it, busy or not
    first = player.handle("(PLAY m1 NIL)")
    assert first.startswith("(move")
    monkeypatch.setattr(KernelPlayer, "legal", lambda self: [])  # the kernel disagrees from now on
    game = gdl.load(text)
    s = game.initial_state()
    white = read_kif(first)[0]
    s = game.next_state(s, {"white": white, "black": "noop"})
    reply = game.legal(s, "black")[0]
    assert player.handle(f"(PLAY m1 ({first} noop))") == "noop"
    s = game.next_state(s, {"white": "noop", "black": reply})
    second = player.handle(f"(PLAY m1 (noop {to_text(reply)}))")
    assert read_kif(second)[0] in game.legal(s, "white")  # the sheet played it
    assert player.handle("(ABORT m1)") == "aborted"
    log = player.matches[-1]
    assert (
        log["seed"]["left"].startswith("turn 1: the move") and "not a legal action of the kernel" in log["seed"]["left"]
    )
    assert log["turns"][0]["backend"] == "kernel" and log["turns"][-1]["backend"] == "exact"


def test_no_seeds_plays_the_sheet():
    player = GGPPlayer("mcts", seed=0, seeds=False)
    assert player.handle(f"(START m1 white ({_text('skirmish_endgame')}) 20 {PLAY})") == "ready"
    assert player.handle("(PLAY m1 NIL)").startswith("(move")
    assert player.handle("(ABORT m1)") == "aborted"
    assert player.matches[-1]["seed"] is None and player.matches[-1]["turns"][0]["backend"] == "compiled"


# ----------------------------------------------------------------------------- ggp:HOST:PORT in the arena
def test_a_remote_player_is_asked_for_the_joint_moves_the_env_plays_by_itself():
    """The env plays a joint move where no role has a choice by itself (here x's last cell,
    which wins); a game server asks for it all the same, so the player's game ends where
    the env's does, with the same goals."""
    from ggpzoo.agents.spec import make_agent

    game = gdl.load(TTT)
    with PlayerServer(GGPPlayer("legal"), port=0) as server:
        host, port = server.address
        remote = make_agent(f"ggp:{host}:{port}", game, seed=1)
        remote.play_clock = PLAY
        env = gdl.raw_env(game)
        env.reset(seed=0)
        remote.begin(env, "xplayer")
        for action in [5, 6, 3, 4, 1, 2, 8, 9]:  # x: 2 2, 1 3, 1 1, 3 2; o: 2 3, 2 1, 1 2, 3 3
            seat = env.agent_selection
            if seat == "xplayer":
                remote.act(env)  # asked; the server's move stands, as for an illegal reply
            env.step(action)
            remote.moved(env, seat, action)
        assert env.is_game_over() and [env.infos[r]["goal"] for r in env.possible_agents] == [100, 0]
        log = server.player.matches[-1]
    assert log["result"] == "done" and log["goals"] == {"xplayer": 100, "oplayer": 0}
    assert len(log["turns"]) == 9  # eight moves and x's forced last one


@pytest.mark.parametrize("env", ["gdl:tictactoe", "skirmish_endgame_v0"])
def test_arena_plays_a_remote_ggp_player(servers, env):
    from ggpzoo.agents.spec import make_agent
    from ggpzoo.tools.arena import round_robin

    host, port = servers[0].address
    env_arg = gdl.load(TTT) if env.startswith("gdl:") else env
    remote = make_agent(f"ggp:{host}:{port}", env_arg, seed=1)
    remote.play_clock = PLAY
    before = len(servers[0].player.matches)
    result = round_robin(env_arg, [remote, make_agent("random", env_arg, seed=2)], games=2, progress=False)
    assert remote.errors == []
    assert [r.length > 0 for r in result.games] == [True, True]
    logs = servers[0].player.matches[before:]
    assert [m["result"] for m in logs] == ["done", "done"]
    for log, record in zip(logs, result.games, strict=True):
        seat = 0 if record.white == remote.name else 1
        assert list(log["goals"].values())[seat] == record.goals[seat]  # the player saw the same game


def test_ggp_agent_spec_errors():
    from ggpzoo.agents.spec import AgentSpecError, make_agent

    with pytest.raises(AgentSpecError, match="HOST:PORT"):
        make_agent("ggp:localhost:http", "skirmish_v0")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    closed = s.getsockname()[1]
    s.close()
    from ggpzoo.tools.arena import play_game

    agent = make_agent(f"ggp:127.0.0.1:{closed}", "skirmish_v0")
    with pytest.raises(OSError, match="cannot reach"):
        play_game("skirmish_v0", agent, make_agent("random", "skirmish_v0"))


def test_a_slow_sheet_is_not_reasoned_on_while_the_kernel_plays(monkeypatch):
    """Where a ply on the sheet costs more than CHECK_SHARE of the play clock, the kernel
    plays without the sheet's state: no legal moves are asked of the sheet."""
    import ggpzoo.ggp.player as player_module

    monkeypatch.setattr(player_module, "CHECK_SHARE", 0.0)  # every sheet is "slow"
    player = GGPPlayer("mcts", seed=0)
    text = _text("skirmish_endgame")
    assert player.handle(f"(START m1 black ({text}) 20 {PLAY})") == "ready"
    asked = []
    real = Machine.legal
    monkeypatch.setattr(Machine, "legal", lambda self, s: asked.append(1) or real(self, s))
    game = gdl.load(text)
    s = game.initial_state()
    assert player.handle("(PLAY m1 NIL)") == "noop"
    white = game.legal(s, "white")[0]
    s = game.next_state(s, {"white": white, "black": "noop"})
    reply = read_kif(player.handle(f"(PLAY m1 ({to_text(white)} noop))"))[0]
    assert reply in game.legal(s, "black")
    s = game.next_state(s, {"white": "noop", "black": reply})
    assert player.handle(f"(PLAY m1 (noop {to_text(reply)}))") == "noop"
    assert asked == []  # the kernel answered alone
    assert len(player._match.pending) == 2  # the sheet's state is two joint moves behind
    assert player.handle("(ABORT m1)") == "aborted"
    assert [t["backend"] for t in player.matches[-1]["turns"]] == ["kernel"] * 3


def test_a_kernel_search_that_overruns_answers_the_networks_move(monkeypatch):
    from ggpzoo.agents.gumbel import GumbelAZAgent
    from ggpzoo.ggp.seeds import KernelPlayer, recognise

    text = _text("skirmish_endgame")
    seed_map, _ = recognise(gdl.load(text), text)
    kp = KernelPlayer(seed_map, seed=0, search="gumbel")
    kp.warm_up()
    assert kp.kind == "baseline"
    real = GumbelAZAgent.__call__

    def slow(self, state):
        if self.simulations:
            time.sleep(0.6)
        return real(self, state)

    monkeypatch.setattr(GumbelAZAgent, "__call__", slow)
    t0 = time.perf_counter()
    action, stats = kp.choose(t0 + 0.3)
    assert time.perf_counter() - t0 < 0.45 and stats["overran"] >= 8 and stats["simulations"] == 0
    assert action == kp.quick() and action in kp.legal()
    # the next turn waits for the search still running, up to its own deadline
    action, stats = kp.choose(time.perf_counter() + 0.05)
    assert stats.get("busy") is True and action in kp.legal()
    kp._search.join()
    assert kp.fitted == 8


def test_symbol_coordinates_are_read_along_a_chain_of_facts():
    """Coordinates written as symbols (a corpus sheet's files a..j, scrambled) are read by
    their place along a chain relation of the sheet's facts, either way round."""
    from ggpzoo.ggp.seeds import _coordinate_maps, _static_chains

    terms = read_kif("(nf Kobe Rasu) (nf rasu dimo) (other a b) (other b a) (<= (x ?a) (nf ?a ?b))")
    chains = _static_chains(terms)
    assert chains == [["kobe", "rasu", "dimo"]]
    maps = _coordinate_maps({"rasu", "dimo"}, 3, chains)
    assert maps == [{"kobe": 1, "rasu": 2, "dimo": 3}, {"kobe": 3, "rasu": 2, "dimo": 1}]
    assert _coordinate_maps({"1", "3"}, 3, chains) == [{"1": 1, "2": 2, "3": 3}]
    assert _coordinate_maps({"zz"}, 3, chains) == []


def test_arena_replaces_a_remote_players_bad_reply_with_a_random_move():
    from ggpzoo.agents.spec import make_agent
    from ggpzoo.tools.arena import play_game

    game = gdl.load(TTT)
    bad = PlayerServer(_Scripted("(MARK 1 1)"), port=0, warm=False).start()
    try:
        remote = make_agent("ggp:{}:{}".format(*bad.address), game, seed=3)
        remote.play_clock = PLAY
        record = play_game(game, remote, make_agent("random", game, seed=4))
    finally:
        bad.stop()
    x_moves = (record.length + 1) // 2
    assert len(remote.errors) == x_moves and all("illegal" in why for _, _, why in remote.errors)
    assert all(m.startswith("(mark") for m in record.moves[::2])  # random legal moves were played for it


def test_seed_games_are_played_with_alpha_beta_on_their_kernels():
    """``SEED_SEARCH``: a seed sheet (here 10x10 Amazons, scrambled) is played with alpha-beta
    on the kernel (the shipped networks lose to it at equal time), which stops itself by the
    turn's deadline; ``seed_search="gumbel"`` plays the network instead."""
    from ggpzoo.ggp.seeds import SEED_SEARCH, KernelPlayer, recognise

    assert SEED_SEARCH == "alphabeta"
    text, _ = scramble(_text("amazons_split"), seed=2)
    seed_map, why = recognise(gdl.load(text), text, seed=0)
    assert seed_map is not None and seed_map.env == "amazons_split_v0", why
    kp = KernelPlayer(seed_map, seed=0)
    kp.warm_up()
    assert kp.kind == "alphabeta" and kp.net is None
    t0 = time.perf_counter()
    action, stats = kp.choose(t0 + 0.3)
    assert time.perf_counter() - t0 < 0.6  # 80% of the 0.3 s, with room for a loaded machine
    assert action in kp.legal() and stats["search"] == "alphabeta" and stats["depth"] >= 1 and stats["nodes"] > 0
    with pytest.raises(ValueError, match="search must be one of alphabeta, gumbel"):
        KernelPlayer(seed_map, seed=0, search="minimax")
    with pytest.raises(ValueError, match="seed_search must be one of"):
        GGPPlayer("mcts", seed_search="minimax")
    assert KernelPlayer(seed_map, seed=0, search="gumbel").kind == "baseline"
    # the player answers its moves from it, logged with the depth and nodes searched
    game = gdl.load(text)
    player = GGPPlayer("mcts", seed=0)
    assert player.handle(f"(START m1 {game.roles[0]} ({text}) 60 {PLAY})") == "ready"
    first = player.handle("(PLAY m1 NIL)")
    assert player.handle("(ABORT m1)") == "aborted"
    turn = player.matches[-1]["turns"][0]
    assert player.matches[-1]["seed"]["search"] == "alphabeta"
    assert turn["backend"] == "kernel" and turn["search"] == "alphabeta" and turn["depth"] >= 1, turn
    assert read_kif(first)[0] in game.legal(game.initial_state(), game.roles[0])


def test_abort_stops_a_seed_games_alpha_beta():
    """A long play clock on a seed game: ABORT ends the kernel's alpha-beta search at
    once (it looks at the flag with the clock), and the player is free."""
    import threading

    text, _ = scramble(_text("amazons_split"), seed=2)
    game = gdl.load(text)
    player = GGPPlayer("mcts", seed=0)
    assert player.handle(f"(START m1 {game.roles[0]} ({text}) 60 60)") == "ready"
    got = []
    t = threading.Thread(target=lambda: got.append(player.handle("(PLAY m1 NIL)")), daemon=True)
    t.start()
    time.sleep(2.0)
    assert t.is_alive()  # searching
    t0 = time.perf_counter()
    assert player.handle("(ABORT m1)") == "aborted"
    t.join(10.0)
    assert not t.is_alive() and time.perf_counter() - t0 < 5.0
    assert player.matches[-1]["seed"]["search"] == "alphabeta"
