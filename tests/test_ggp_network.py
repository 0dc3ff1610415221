"""The GGP player on a network: its defaults, what it refuses, and servers that misbehave."""

import socket
import threading
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ggpzoo import gdl
from ggpzoo.ggp import cli as ggp_cli
from ggpzoo.ggp import player as player_module
from ggpzoo.ggp.player import GGPPlayer, PlayerServer, post
from ggpzoo.ggp.protocol import MAX_MESSAGE_BYTES

with open(gdl.game_path("tictactoe")) as _f:
    RULES = "(" + _f.read() + ")"


def _raw(addr, request: bytes) -> bytes:
    with socket.create_connection(addr, timeout=5) as s:
        s.sendall(request)
        s.shutdown(socket.SHUT_WR)  # the request is all sent
        out = b""
        while chunk := s.recv(65536):
            out += chunk
    return out


def _post_raw(addr, body: bytes, headers: str = "") -> bytes:
    head = f"POST / HTTP/1.0\r\nContent-Type: text/acl\r\nContent-Length: {len(body)}\r\n{headers}\r\n"
    return _raw(addr, head.encode() + body)


def _wait(cond, seconds: float) -> bool:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        if cond():
            return True
        time.sleep(0.02)
    return cond()


@pytest.fixture
def server():
    with PlayerServer(GGPPlayer("legal"), port=0, warm=False) as s:
        yield s


# ----------------------------------------------------------------------------- listening
def test_the_command_listens_on_this_machine_only_by_default(monkeypatch):
    seen = {}

    class Stop(Exception):
        pass

    def fake_server(player, host, port, **kwargs):
        seen.update(host=host, port=port, **kwargs)
        raise Stop

    monkeypatch.setattr(player_module, "PlayerServer", fake_server)
    with pytest.raises(Stop):
        ggp_cli.player_main(["--port", "0", "--agent", "legal"])
    assert seen["host"] == "127.0.0.1"
    with pytest.raises(Stop):
        ggp_cli.player_main(["--host", "0.0.0.0", "--allow-origin", "http://localhost:8080", "--agent", "legal"])
    assert seen["host"] == "0.0.0.0" and seen["allow_origins"] == ["http://localhost:8080"]


def test_it_listens_and_answers_while_the_kernels_load(monkeypatch):
    release = threading.Event()
    monkeypatch.setattr(player_module, "warm_up", lambda: release.wait(30))
    t0 = time.perf_counter()
    server = PlayerServer(GGPPlayer("legal"), port=0).start()
    try:
        assert time.perf_counter() - t0 < 2.0  # not after the warm-up
        assert not server.warmed.is_set()
        addr = server.address
        assert post(*addr, "(info)", timeout=5) == "((name ggpzoo) (status busy))"  # warming: wait, if you can
        assert post(*addr, f"(START m1 xplayer {RULES} 5 1)", timeout=10) == "ready"
        assert post(*addr, "(PLAY m1 NIL)", timeout=5) == "(mark 1 1)"
        assert post(*addr, "(ABORT m1)", timeout=5) == "aborted"
        release.set()
        assert server.warmed.wait(5)
        assert post(*addr, "(info)", timeout=5) == "((name ggpzoo) (status available))"
    finally:
        release.set()
        server.stop()


# ----------------------------------------------------------------------------- HTTP
def test_get_is_refused_and_starts_nothing(server):
    addr = server.address
    evil = b"GET /?(START%20m1%20xplayer%20" + RULES.replace(" ", "%20").replace("\n", "%20").encode()
    reply = _raw(addr, evil + b"%205%201) HTTP/1.0\r\nOrigin: http://evil.example\r\n\r\n")
    assert reply.startswith(b"HTTP/1.0 403")
    reply = _raw(addr, b"GET /?(ABORT%20m1) HTTP/1.0\r\n\r\n")
    head, _, body = reply.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.0 405") and b"Allow: POST" in head and body.startswith(b"error: ")
    assert server.player.matches == [] and server.player._match is None
    assert post(*addr, "(info)") == "((name ggpzoo) (status available))"


def test_no_cross_origin_by_default_and_browsers_refused(server):
    addr = server.address
    reply = _post_raw(addr, b"(info)")
    assert reply.startswith(b"HTTP/1.0 200") and b"Access-Control-Allow-Origin" not in reply
    start = f"(START m1 xplayer {RULES} 5 1)".encode()
    reply = _post_raw(addr, start, "Origin: http://evil.example\r\n")
    assert reply.startswith(b"HTTP/1.0 403") and b"Access-Control-Allow-Origin" not in reply
    assert server.player._match is None
    assert _raw(addr, b"OPTIONS / HTTP/1.0\r\nOrigin: http://evil.example\r\n\r\n").startswith(b"HTTP/1.0 403")


def test_an_allowed_origin_is_echoed_and_its_preflight_answered():
    with PlayerServer(GGPPlayer("legal"), port=0, warm=False, allow_origins=["http://localhost:8080/"]) as s:
        addr = s.address
        reply = _post_raw(addr, b"(info)", "Origin: http://localhost:8080\r\n")
        assert reply.startswith(b"HTTP/1.0 200")
        assert b"Access-Control-Allow-Origin: http://localhost:8080\r\n" in reply
        pre = _raw(addr, b"OPTIONS / HTTP/1.0\r\nOrigin: http://localhost:8080\r\n\r\n")
        assert pre.startswith(b"HTTP/1.0 200") and b"Access-Control-Allow-Methods: POST" in pre
        assert _post_raw(addr, b"(info)", "Origin: http://localhost:8081\r\n").startswith(b"HTTP/1.0 403")
    with pytest.raises(ValueError, match="origin"):
        PlayerServer(GGPPlayer("legal"), port=0, warm=False, allow_origins=["*"])


@pytest.mark.parametrize(
    "length, code",
    [("\u00b2", b"400"), ("9" * 5000, b"400"), ("-1", b"400"), ("12abc", b"400"), (str(MAX_MESSAGE_BYTES + 1), b"413")],
)
def test_a_bad_content_length_is_a_short_error(server, length, code, capsys):
    head = f"POST / HTTP/1.0\r\nContent-Length: {length}\r\n\r\n(info)".encode()
    reply = _raw(server.address, head)
    assert reply.startswith(b"HTTP/1.0 " + code)
    body = reply.partition(b"\r\n\r\n")[2]
    assert body.startswith(b"error: ") and len(body) < 300
    assert "Traceback" not in capsys.readouterr().err


def test_a_short_body_and_long_headers_are_short_errors(server, capsys):
    assert _raw(server.address, b"POST / HTTP/1.0\r\nContent-Length: 100\r\n\r\n(info)").startswith(b"HTTP/1.0 400")
    long_header = b"POST / HTTP/1.0\r\nX: " + b"a" * 70_000 + b"\r\nContent-Length: 6\r\n\r\n(info)"
    reply = _raw(server.address, long_header)
    assert reply.startswith(b"HTTP/1.0 431") and b"error: " in reply and b"<html" not in reply.lower()
    assert "Traceback" not in capsys.readouterr().err


# ----------------------------------------------------------------------------- matches
def test_a_silent_server_frees_the_player(monkeypatch):
    monkeypatch.setattr(player_module, "SILENCE_GRACE", 0.3, raising=False)
    p = GGPPlayer("legal")
    assert p.handle(f"(START m1 xplayer {RULES} 1 0.2)") == "ready"
    assert p.handle("(PLAY m1 NIL)") == "(mark 1 1)"
    assert p.handle("(INFO)") == "((name ggpzoo) (status busy))"
    assert _wait(lambda: p.handle("(INFO)") == "((name ggpzoo) (status available))", 5.0)
    assert p.matches[-1]["result"] == "silent" and "play clocks" in p.matches[-1]["dropped"]
    assert p.handle(f"(START m2 oplayer {RULES} 1 0.2)") == "ready"


def test_a_match_that_keeps_talking_is_not_dropped(monkeypatch):
    monkeypatch.setattr(player_module, "SILENCE_GRACE", 0.3, raising=False)
    p = GGPPlayer("legal")
    assert p.handle(f"(START m1 xplayer {RULES} 0.5 0.2)") == "ready"
    moves = ["NIL", "((mark 1 1) noop)", "(noop (mark 2 2))", "((mark 1 2) noop)", "(noop (mark 3 3))"]
    for joint in moves:
        time.sleep(0.4)  # less than 3 play clocks + 0.3 s, more than enough for 5 turns in all
        assert not p.handle(f"(PLAY m1 {joint})").startswith("error")
    assert p.handle("(ABORT m1)") == "aborted"


def test_one_load_at_a_time_and_an_aborted_load_stops(monkeypatch):
    real = gdl.load
    live, most, calls = [0], [0], []
    lock = threading.Lock()

    def slow_load(*args, **kwargs):
        with lock:
            live[0] += 1
            most[0] = max(most[0], live[0])
            calls.append(kwargs.get("ground_time_limit"))
        try:
            time.sleep(0.6)
            return real(*args, **kwargs)
        finally:
            with lock:
                live[0] -= 1

    monkeypatch.setattr(gdl, "load", slow_load)
    p = GGPPlayer("legal")
    for i in range(4):
        assert p.handle(f"(START m{i} xplayer {RULES} 1 1)") in ("ready", "busy")
        assert p.handle(f"(ABORT m{i})") in ("aborted", "busy")
    assert _wait(lambda: live[0] == 0, 10.0)
    assert most[0] == 1  # the loads of the aborted matches never ran side by side
    time.sleep(0.1)
    assert p.handle(f"(START m9 xplayer {RULES} 5 1)") == "ready"
    assert p.handle("(PLAY m9 NIL)") == "(mark 1 1)"
    assert p.handle("(ABORT m9)") == "aborted"


def test_a_match_abort_stops_its_load_between_phases(monkeypatch):
    real = gdl.load
    calls = []

    def slow_load(*args, **kwargs):
        calls.append(1)
        time.sleep(0.8)
        return real(*args, **kwargs)

    monkeypatch.setattr(gdl, "load", slow_load)
    p = GGPPlayer("legal")
    threading.Thread(target=p.handle, args=(f"(START m1 xplayer {RULES} 5 1)",), daemon=True).start()
    assert _wait(lambda: calls, 5.0)
    assert p.handle("(ABORT m1)") == "aborted"
    assert _wait(lambda: not any(t.name == "ggp-load" for t in threading.enumerate()), 5.0)
    assert len(calls) == 1  # the network's copy of the sheet was never read


@pytest.mark.parametrize("agent", ["mcts", "mc"])
def test_abort_stops_the_search(agent):
    player_module.warm_up()
    p = GGPPlayer(agent, seed=0)
    assert p.handle(f"(START m1 xplayer {RULES} 10 3600)") == "ready"
    got = []
    t = threading.Thread(target=lambda: got.append(p.handle("(PLAY m1 NIL)")), daemon=True)
    t.start()
    time.sleep(1.0)
    t0 = time.perf_counter()
    assert p.handle("(ABORT m1)") == "aborted"
    t.join(10.0)
    assert not t.is_alive() and got and got[0].startswith("(mark")
    assert time.perf_counter() - t0 < 5.0
    assert _wait(lambda: not any(th.name.startswith("ggp-match") for th in threading.enumerate()), 5.0)


def test_a_retried_play_gets_the_same_move_and_an_illegal_joint_move_an_error(caplog):
    p = GGPPlayer("legal")
    assert p.handle(f"(START m1 oplayer {RULES} 5 1)") == "ready"
    assert p.handle("(PLAY m1 NIL)") == "noop"
    assert p.handle("(PLAY m1 NIL)") == "noop"  # sent again
    assert p.handle("(PLAY m1 ((mark 1 1) noop))") == "(mark 1 2)"
    assert p.handle("(PLAY m1 ((mark 1 1) noop))") == "(mark 1 2)"  # sent again: the same answer
    assert p.handle("(PLAY m1 (noop (mark 1 2)))") == "noop"
    bad = p.handle("(PLAY m1 ((mark 1 2) noop))")  # a taken cell
    assert bad.startswith("error: illegal joint move") and "(mark 1 2)" in bad
    assert "illegal joint move" in caplog.text
    bad = p.handle("(PLAY m1 (noop (mark 2 2)))")  # oplayer is not in control
    assert bad.startswith("error: illegal joint move")
    assert p.handle("(PLAY m1 ((mark 2 2) noop))") == "(mark 1 3)"  # the tracked state was kept
    turns = p._match.log["turns"]
    assert sum(1 for t in turns if t.get("retry")) == 2 and sum(1 for t in turns if "error" in t) == 2
    assert p.handle("(STOP m1 (noop (mark 1 3)))") == "done"


def test_a_late_turn_logs_the_fallback_it_sent(monkeypatch):
    def slow(self, m, legal, deadline, turn):
        time.sleep(0.9)
        return legal[-1], {}

    monkeypatch.setattr(GGPPlayer, "_search", slow)
    p = GGPPlayer("mcts")
    assert p.handle(f"(START m1 xplayer {RULES} 5 0.3)") == "ready"
    assert p.handle("(PLAY m1 NIL)") == "(mark 1 1)"
    time.sleep(1.0)
    entry = p._match.log["turns"][0]
    assert entry["move"] == "(mark 1 1)" and entry["fallback"] is True and entry["late"] is True
    assert entry["seconds"] < 0.3 and entry["search_move"] == "(mark 3 3)" and entry["search_seconds"] > 0.8
    p.handle("(ABORT m1)")


# ----------------------------------------------------------------------------- the commands
def test_a_log_dir_that_cannot_be_made_is_refused_at_start(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ValueError, match="log-dir"):
        GGPPlayer("legal", log_dir=str(blocker / "logs"))
    monkeypatch.setattr(player_module, "PlayerServer", lambda *a, **k: pytest.fail("served"))
    with pytest.raises(SystemExit) as e:
        ggp_cli.player_main(["--log-dir", str(blocker / "logs"), "--agent", "legal", "--port", "0"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--log-dir" in err and "Traceback" not in err
    made = tmp_path / "new" / "logs"
    GGPPlayer("legal", log_dir=str(made))
    assert made.is_dir()


def test_ggp_match_checks_its_out_file_before_playing(tmp_path, monkeypatch, capsys):
    from ggpzoo.ggp import server as server_module

    monkeypatch.setattr(server_module, "run_match", lambda *a, **k: pytest.fail("played"))
    for out in (tmp_path / "no" / "such" / "m.json", tmp_path):
        with pytest.raises(SystemExit) as e:
            ggp_cli.match_main(["tictactoe", "--player", "9147", "--player", "9148", "--out", str(out)])
        assert e.value.code == 2 and "--out" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_help_puts_the_seed_with_the_search(capsys):
    with pytest.raises(SystemExit):
        ggp_cli.player_main(["--help"])
    text = capsys.readouterr().out
    sections = {s.split(":\n", 1)[0].strip(): s for s in text.split("\n\n") if ":\n" in s}
    assert "--seed SEED" in sections["search"]
    assert "--seed SEED" not in text.split("seed games:")[1]
    assert "recognised" in text.split("seed games:")[1]


# ----------------------------------------------------------------------------- any message sequence
_IDS = st.sampled_from(["m1", "M1", "m2", "x"])
_JOINTS = st.sampled_from(
    ["NIL", "((mark 1 1) noop)", "(noop (mark 2 2))", "((MARK 1 2) noop)", "((mark 9 9) noop)", "(noop)", "x", "()"]
)
_MESSAGE = st.one_of(
    st.just("(INFO)"),
    st.builds(lambda i, r: f"(START {i} {r} {RULES} 2 0.2)", _IDS, st.sampled_from(["xplayer", "oplayer", "nobody"])),
    st.builds(lambda i, j: f"(PLAY {i} {j})", _IDS, _JOINTS),
    st.builds(lambda i, j: f"(STOP {i} {j})", _IDS, _JOINTS),
    st.builds(lambda i: f"(ABORT {i})", _IDS),
    st.text(alphabet='() PLAYSTOPm1x;\n"', max_size=30),
    st.binary(max_size=20),
)


def _valid(reply: str) -> bool:
    return (
        reply in ("ready", "busy", "done", "aborted", "noop")
        or reply.startswith("error: ")
        or reply.startswith("((name ggpzoo) (status ")
        or (reply.startswith("(mark ") and reply.endswith(")"))
    )


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_MESSAGE, max_size=8))
def test_any_message_sequence_gets_protocol_replies(messages):
    p = GGPPlayer("legal")
    for message in messages:
        reply = p.handle(message)
        assert isinstance(reply, str) and _valid(reply), (message, reply)
    m = p._match
    if m is not None:
        assert p.handle(f"(ABORT {m.id_text})") == "aborted"
    assert p.handle(f"(START fresh xplayer {RULES} 2 1)") == "ready"
    assert p.handle("(PLAY fresh NIL)") == "(mark 1 1)"
    assert p.handle("(PLAY fresh ((mark 1 1) noop))") == "noop"
    assert p.handle("(ABORT fresh)") == "aborted"
