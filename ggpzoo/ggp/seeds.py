"""The five seed games at full strength: a sheet recognised by its rules, played on the hand-written kernel.

When a START carries a sheet of one of the five games ggpzoo has a rules kernel for
(``amazons_v0``, ``amazons_split_v0``, ``mad_bishops_v0``, ``skirmish_v0``,
``skirmish_endgame_v0``: the GGP corpus's ``amazons.kif``, ``amazons_10x10.kif``,
``madBishops.kif``, ``skirmishHoles.kif``, ``skirmishFinal1.kif``, or ggpzoo's own editions
of them in ``ggpzoo/gdl/games``), the player plays it with that kernel and its
alpha-beta search (or the game's shipped AlphaZero network with Gumbel search: `SEED_SEARCHES`).
Nothing depends on the sheet's names, so a scrambled sheet is recognised too:

1. **Fingerprint** ([`fingerprint()`][ggpzoo.ggp.seeds.fingerprint]): the sheet's rules with
   every symbol but the GDL keywords and numbers replaced by its first-occurrence order
   (variables by theirs within each rule), hashed. Renaming symbols does not change it.
   ggpzoo's own editions are known by it.
2. **Move structure**: the first mover's legal moves at the start (their arity and number)
   name the candidate kernels; a move's arguments are read as coordinates, numbers as they
   are, symbols (a scrambled ``a``..``j``) by their place along a chain relation of the
   sheet's facts (``(nextFile a b) (nextFile b c) ...``), either way round.
3. **Lockstep check** ([`recognise()`][ggpzoo.ggp.seeds.recognise]): random plies on the
   sheet (the exact reasoner) and on the kernel at once; at every state the legal moves of
   the role in control, translated, must be the kernel's, and the end of the game and the
   goals must agree. A known fingerprint needs `VERIFY_PLIES` plies (`MIN_VERIFY_PLIES`
   if the sheet's reasoning is too slow for more by the deadline); any other sheet a
   whole random game (a variant with other goals fails there). Any mismatch: not
   recognised, and the player plays the sheet as any other.

The [`SeedMap`][ggpzoo.ggp.seeds.SeedMap] found translates moves both ways (sheet term <->
kernel action id); [`KernelPlayer`][ggpzoo.ggp.seeds.KernelPlayer] searches the kernel state
by the clock.

>>> from ggpzoo import gdl
>>> from ggpzoo.ggp.server import scramble
>>> text, _ = scramble(open(gdl.game_path("mad_bishops")).read(), seed=3)
>>> seed_map, why = recognise(gdl.load(text), text)
>>> seed_map.env, why.startswith("known sheet")
('mad_bishops_v0', True)
"""

from __future__ import annotations

import hashlib
import re
import threading
import time

import numpy as np

from ggpzoo.ggp.protocol import KEYWORDS, read_kif

__all__ = [
    "SEED_SEARCH",
    "SEED_SEARCHES",
    "SEED_SHEETS",
    "VERIFY_PLIES",
    "KernelPlayer",
    "SeedMap",
    "fingerprint",
    "known_fingerprints",
    "recognise",
]

# env -> ggpzoo's own edition of its sheet (ggpzoo/gdl/games)
SEED_SHEETS = {
    "amazons_v0": "amazons",
    "amazons_split_v0": "amazons_split",
    "mad_bishops_v0": "mad_bishops",
    "skirmish_v0": "skirmish",
    "skirmish_endgame_v0": "skirmish_endgame",
}
VERIFY_PLIES = 8  # plies checked in lockstep before a known sheet is played on its kernel
MIN_VERIFY_PLIES = 1  # ... or at least this many (both roles' moves compared) if the time runs out first
PROBE_SECONDS = 0.2  # with this much time a turn searches at least 8 simulations, whatever the speed measured
SEARCH_SHARE = 0.6  # the share of a turn's time the search's simulations are sized for (at the speed measured)
# The searches a seed game can be played with on its kernel, and the default: alpha-beta,
# which beats the shipped networks' Gumbel search at equal time in all five games (the GGP guide).
SEED_SEARCHES = ("alphabeta", "gumbel")
SEED_SEARCH = "alphabeta"
AB_SHARE = 0.8  # the share of a turn's time alpha-beta is given (it stops itself at its deadline)
_NUMBER = re.compile(r"-?\d+")
# env -> (move arity of the first mover at the start, its legal move count there)
_START = {
    "amazons_v0": (6, 2176),
    "amazons_split_v0": (4, 80),
    "mad_bishops_v0": (4, 81),
    "skirmish_v0": (4, 14),
    "skirmish_endgame_v0": (4, 6),
}


# ----------------------------------------------------------------------------- fingerprint
def _canonical(terms) -> str:
    names: dict[str, str] = {}

    def walk(t, variables):
        if isinstance(t, tuple):
            return "(" + " ".join(walk(x, variables) for x in t) + ")"
        s = t.lower()
        if s in KEYWORDS or _NUMBER.fullmatch(s):
            return s
        if s.startswith("?"):
            return variables.setdefault(s, f"?{len(variables)}")
        return names.setdefault(s, f"s{len(names)}")

    return "\n".join(walk(t, {}) for t in terms if not _declaration(t))


def _declaration(t) -> bool:
    """A ``base`` or ``input`` sentence or rule: it declares, it does not change the game."""
    if isinstance(t, tuple) and t and t[0] == "<=" and len(t) > 1:
        t = t[1]
    return isinstance(t, tuple) and bool(t) and isinstance(t[0], str) and t[0].lower() in ("base", "input")


def fingerprint(rules: str) -> str:
    """A hash of the sheet's rules that renaming symbols (scrambling), case, spacing,
    comments and ``base``/``input`` declarations do not change: each symbol but the GDL
    keywords and numbers is replaced by the order of its first occurrence, each variable by
    its order within its rule.

    >>> fingerprint("(role white) (<= (legal white (mark ?x)) (true (cell ?x)))") == \\
    ...     fingerprint("(ROLE Kozi) (<= (legal Kozi (Bam ?q)) (true (Ref ?q)))  ; a comment")
    True
    """
    return _fingerprint_terms(read_kif(rules))


# What fingerprint() gives for the GGP corpus's own sheets (read from the public game
# repositories; no sheet is shipped): a known sheet needs VERIFY_PLIES plies in lockstep,
# any other a whole random game.
CORPUS_FINGERPRINTS = {
    "9551fc673a483148c5e564e064e0f767": "mad_bishops_v0",  # madBishops.kif
    "28168b114b5942bddcf6e3e89ae0b161": "amazons_split_v0",  # amazons_10x10.kif
    "6d2aaca2b9f89db947b52ae564d563d3": "skirmish_endgame_v0",  # skirmishFinal1.kif
    "f3630da167221309a5f18a7391e7c644": "amazons_v0",  # amazons.kif
}
_KNOWN: dict[str, str] | None = None
_KNOWN_LOCK = threading.Lock()


def known_fingerprints() -> dict[str, str]:
    """``{fingerprint: env}`` of ggpzoo's own editions of the seed sheets (read once) and of
    the corpus's sheets (`CORPUS_FINGERPRINTS`)."""
    global _KNOWN
    with _KNOWN_LOCK:
        if _KNOWN is None:
            from ggpzoo import gdl

            known = dict(CORPUS_FINGERPRINTS)
            for env, name in SEED_SHEETS.items():
                with open(gdl.game_path(name), encoding="utf-8") as f:
                    known[fingerprint(f.read())] = env
            _KNOWN = known
        return dict(_KNOWN)


# ----------------------------------------------------------------------------- the move map
def _kernel(env: str):
    from ggpzoo.envs import spec

    s = spec(env)
    return s.kernel, s.variant


class SeedMap:
    """Moves of a sheet to and from a kernel's action ids, and its roles to the kernel's.

    Attributes:
        env: the kernel's env (``"skirmish_v0"``...).
        white: the sheet's role index of the kernel's first mover (``white``).
        heads: the move's name (the sheet's symbol, lower case) by arity.
        xs, ys: coordinate value (lower case symbol) -> 1-based column / row.
    """

    def __init__(self, env: str, white: int, heads: dict, xs: dict, ys: dict):
        self.env = env
        self.kernel, self.variant = _kernel(env)
        self.width = int(self.kernel.W)
        self.white = white
        self.heads = dict(heads)
        self.xs, self.ys = dict(xs), dict(ys)
        self.x_of = {v: k for k, v in self.xs.items()}
        self.y_of = {v: k for k, v in self.ys.items()}
        self.idle: dict[int, object] = {}  # sheet role index -> its one move when not in control (noop)
        self.ply_seconds = 0.0  # the sheet's reasoner's time for a ply of the lockstep check

    def sheet_role(self, kernel_role: int) -> int:
        """The sheet's role index of kernel role 0 (white) or 1 (black)."""
        return self.white if kernel_role == 0 else 1 - self.white

    def _cell(self, x, y) -> int | None:
        cx, cy = self.xs.get(x), self.ys.get(y)
        if cx is None or cy is None:
            return None
        return (cy - 1) * self.width + (cx - 1)

    def action(self, term, aux, learn: bool = False) -> int | None:
        """The kernel action id of the sheet move ``term`` in a state with ``aux``, or None if
        it is not a move of the kernel's shape. ``learn``: take the name of a move arity not
        met yet (the lockstep check learns the fire move of amazons_split so)."""
        if not isinstance(term, tuple) or len(term) < 3 or len(term) % 2 == 0:
            return None
        arity = len(term) - 1
        env = self.env
        allowed = {"amazons_v0": (6,), "amazons_split_v0": (4, 2)}.get(env, (4,))
        if arity not in allowed:
            return None
        if self.heads.get(arity) != term[0]:
            if not (learn and arity not in self.heads and term[0] not in self.heads.values()):
                return None
            self.heads[arity] = term[0]
        cells = [self._cell(term[i], term[i + 1]) for i in range(1, len(term), 2)]
        if any(c is None for c in cells):
            return None
        K = self.kernel
        if env == "amazons_v0":
            src, dst, arrow = cells
            base, pos = int(K.BASE[src, dst]), int(K.QPOS[dst, arrow])
            return None if base < 0 or pos < 0 else base + pos
        if env == "amazons_split_v0":
            if arity == 2:
                return int(aux[K.FIRER]) * K.N + cells[0] if int(aux[K.PHASE]) == 1 else None
            return cells[0] * K.N + cells[1] if int(aux[K.PHASE]) == 0 else None
        return cells[0] * K.N + cells[1]

    def term(self, action: int, aux):
        """The sheet's move (a term, lower case) for kernel action ``action`` in a state with ``aux``."""
        K, n = self.kernel, self.kernel.N
        a = int(action)
        if self.env == "amazons_v0":
            cells = [int(c) for c in K.DECODE[a]]
        elif self.env == "amazons_split_v0" and int(aux[K.PHASE]) == 1:
            cells = [a % n]
        else:
            cells = [a // n, a % n]
        out = [self.heads[2 * len(cells)]]
        for c in cells:
            out += [self.x_of[c % self.width + 1], self.y_of[c // self.width + 1]]
        return tuple(out)


def _static_chains(terms) -> list[list[str]]:
    """Every relation of the sheet's ground facts ``(r a b)`` that orders its symbols in one
    chain (``a b``, ``b c``...), as the list of symbols along it."""
    pairs: dict[str, list] = {}
    for t in terms:
        if isinstance(t, tuple) and len(t) == 3 and all(isinstance(x, str) for x in t):
            head = t[0].lower()
            if head in KEYWORDS or t[1].startswith("?") or t[2].startswith("?"):
                continue
            pairs.setdefault(head, []).append((t[1].lower(), t[2].lower()))
    chains = []
    for edges in pairs.values():
        nxt = dict(edges)
        if len(nxt) != len(edges) or len(set(nxt.values())) != len(edges):
            continue
        starts = set(nxt) - set(nxt.values())
        if len(starts) != 1:
            continue
        chain = [starts.pop()]
        while chain[-1] in nxt and len(chain) <= len(edges):
            chain.append(nxt[chain[-1]])
        if len(chain) == len(edges) + 1:
            chains.append(chain)
    return chains


def _coordinate_maps(values: set, width: int, chains) -> list[dict]:
    """The ways to read ``values`` (symbols seen as one coordinate) as 1..width."""
    if all(_NUMBER.fullmatch(v) for v in values):
        return [{str(i): i for i in range(1, width + 1)}]
    out = []
    for chain in chains:
        if len(chain) == width and values <= set(chain):
            out.append({s: i + 1 for i, s in enumerate(chain)})
            out.append({s: width - i for i, s in enumerate(chain)})
    return out


# ----------------------------------------------------------------------------- recognition
class _Mismatch(Exception):
    pass


def _lockstep(sm: SeedMap, game, rng, plies: int, to_end: bool, deadline: float) -> tuple[int, bool]:
    """Random plies on the sheet and the kernel at once; ``(plies checked, game finished)``.
    Raises _Mismatch naming the first difference."""
    K = sm.kernel
    board = np.zeros(K.H * K.W, np.int8)
    aux = np.zeros(K.AUX_SIZE, np.int32)
    buf = np.zeros(K.MAX_LEGAL, np.int32)
    K.init(board, aux, sm.variant)
    roles = game.roles
    state = game.initial_state()
    checked = 0
    while True:
        legal = [game.legal(state, r) for r in roles]
        over = game.is_terminal(state) or any(not m for m in legal)
        k_over = bool(K.is_terminal(board, aux))
        if over != k_over:
            raise _Mismatch(f"ply {checked}: the sheet says {'over' if over else 'not over'}, the kernel not")
        kg = [int(v) for v in K.goals(board, aux)]
        try:
            g = game.goals(state)
            sg = [g[roles[sm.sheet_role(0)]], g[roles[sm.sheet_role(1)]]]
        except Exception:  # noqa: BLE001 - goals a sheet need not define before the end
            if over:
                raise _Mismatch(f"ply {checked}: the sheet has no goals at the end") from None
            sg = kg
        if sg != kg:
            raise _Mismatch(f"ply {checked}: goals {sg} (sheet) vs {kg} (kernel)")
        if over:
            return checked, True
        mover = int(aux[0])
        mi, oi = sm.sheet_role(mover), sm.sheet_role(1 - mover)
        if len(legal[oi]) != 1:
            raise _Mismatch(f"ply {checked}: the role not in control has {len(legal[oi])} moves")
        if sm.idle.setdefault(oi, legal[oi][0]) != legal[oi][0]:
            raise _Mismatch(f"ply {checked}: the role not in control plays {legal[oi][0]}, not {sm.idle[oi]}")
        n = K.legal_actions(board, aux, buf)
        kl = sorted(int(a) for a in buf[:n])
        ids = {}
        for t in legal[mi]:
            a = sm.action(t, aux, learn=True)
            if a is None:
                raise _Mismatch(f"ply {checked}: the sheet's move {t} has no kernel action")
            ids[a] = t
        if sorted(ids) != kl or len(ids) != len(legal[mi]):
            raise _Mismatch(f"ply {checked}: {len(legal[mi])} legal moves (sheet) vs {len(kl)} (kernel)")
        if (checked >= plies and not to_end) or time.perf_counter() > deadline:
            return checked, False
        a = kl[int(rng.integers(len(kl)))]
        if sm.term(a, aux) != ids[a]:
            raise _Mismatch(f"ply {checked}: action {a} reads back as {sm.term(a, aux)}, not {ids[a]}")
        joint = [None, None]
        joint[mi], joint[oi] = ids[a], legal[oi][0]
        state = game.next_state(state, dict(zip(roles, joint, strict=True)))
        K.apply(board, aux, a)
        checked += 1


def recognise(game, rules: str, deadline: float | None = None, seed: int = 0) -> tuple[SeedMap | None, str]:
    """``(SeedMap, why)`` if the loaded sheet ``game`` (its KIF text ``rules``) is one of the
    seed games and its moves translate to the kernel's in lockstep, else ``(None, why)``.
    ``deadline`` (``time.perf_counter()``): the check stops there (default: 10 s from now);
    a known sheet needs `VERIFY_PLIES` plies checked by then (`MIN_VERIFY_PLIES` if its
    reasoning is too slow for more), another one a whole game."""
    deadline = time.perf_counter() + 10.0 if deadline is None else deadline
    if len(game.roles) != 2:
        return None, f"{len(game.roles)} roles: no seed game"
    terms = read_kif(rules)
    env_known = known_fingerprints().get(_fingerprint_terms(terms))
    state = game.initial_state()
    legal = [game.legal(state, r) for r in game.roles]
    movers = [i for i, m in enumerate(legal) if len(m) > 1]
    if len(movers) != 1:
        return None, "not one role to move at the start: no seed game"
    white = movers[0]
    moves = legal[white]
    arities = {len(t) - 1 if isinstance(t, tuple) else 0 for t in moves}
    heads = {t[0] for t in moves if isinstance(t, tuple)}
    if len(arities) != 1 or len(heads) != 1:
        return None, "the first moves are not of one shape: no seed game"
    arity, head = arities.pop(), heads.pop()
    candidates = [env for env, (a, n) in _START.items() if a == arity and n == len(moves)]
    if env_known is not None:
        candidates = [env_known] if env_known in candidates else []
    if not candidates:
        return None, f"no seed game starts with {len(moves)} moves of arity {arity}"
    chains = _static_chains(terms)
    reasons = []
    for env in candidates:
        width = int(_kernel(env)[0].W)
        xs_seen = {t[i] for t in moves for i in range(1, len(t), 2)}
        ys_seen = {t[i] for t in moves for i in range(2, len(t), 2)}
        for xs in _coordinate_maps(xs_seen, width, chains):
            for ys in _coordinate_maps(ys_seen, width, chains):
                sm = SeedMap(env, white, {arity: head}, xs, ys)
                t0 = time.perf_counter()
                try:
                    if env_known is not None:
                        checked, _ = _lockstep(sm, game, np.random.default_rng(seed), VERIFY_PLIES, False, deadline)
                        if checked < MIN_VERIFY_PLIES:
                            reasons.append(f"{env}: {checked} plies checked by the deadline")
                            continue
                        sm.ply_seconds = (time.perf_counter() - t0) / (checked + 1)
                        return sm, f"known sheet of {env}; {checked} plies in lockstep with the kernel"
                    checked, done = _lockstep(sm, game, np.random.default_rng(seed), 0, True, deadline)
                    if not done:
                        reasons.append(f"{env}: a random game not finished by the deadline ({checked} plies)")
                        continue
                    sm.ply_seconds = (time.perf_counter() - t0) / (checked + 1)
                    return sm, f"plays as {env}: a whole random game ({checked} plies) in lockstep with the kernel"
                except _Mismatch as e:
                    reasons.append(f"{env}: {e}")
                except Exception as e:  # noqa: BLE001 - a sheet the check cannot run: not a seed game
                    reasons.append(f"{env}: {type(e).__name__}: {str(e)[:80]}")
    return None, "not a seed game: " + "; ".join(reasons)[:300]


def _fingerprint_terms(terms) -> str:
    return hashlib.sha256(_canonical(terms).encode()).hexdigest()[:32]


# ----------------------------------------------------------------------------- search on the kernel
class KernelPlayer:
    """A seed game's kernel state, tracked from the match's moves, and a search on it by the clock.

    ``search``: ``"alphabeta"`` (`SEED_SEARCH`, the default):
    [`AlphaBetaAgent`][ggpzoo.agents.alphabeta.AlphaBetaAgent] for `AB_SHARE` of the turn's
    time (it stops itself at its deadline). ``"gumbel"``: with the game's shipped baseline
    network (needs torch), Gumbel AlphaZero search
    ([`GumbelAZAgent`][ggpzoo.agents.gumbel.GumbelAZAgent]) with as many simulations as the
    time allows (a power of two, from the simulations per second measured so far; the
    network alone when even 8 do not fit); without one, UCT on the kernel by the clock
    ([`MCTSAgent`][ggpzoo.agents.mcts.MCTSAgent]).
    """

    LADDER = tuple(2**k for k in range(3, 15))  # 8 .. 16,384 simulations

    def __init__(self, seed_map: SeedMap, seed: int | None = None, search: str | None = None):
        self.map = seed_map
        self.env = seed_map.env
        K = seed_map.kernel
        self.board = np.zeros(K.H * K.W, np.int8)
        self.aux = np.zeros(K.AUX_SIZE, np.int32)
        self.buf = np.zeros(K.MAX_LEGAL, np.int32)
        K.init(self.board, self.aux, seed_map.variant)
        self.rng = np.random.default_rng(seed)
        self.net = None
        self.agents: dict = {}
        self.rate = None  # simulations per second, measured
        self.fitted = 8  # the largest search that ended in its time so far
        self._search: threading.Thread | None = None  # the last search's thread
        self.kind = "mcts"
        self.ab = None
        search = SEED_SEARCH if search is None else search
        if search not in SEED_SEARCHES:
            raise ValueError(f"search must be one of {', '.join(SEED_SEARCHES)}, got {search!r}")
        if search == "alphabeta":
            from ggpzoo.agents.alphabeta import AlphaBetaAgent

            self.ab = AlphaBetaAgent(self.env, seconds=1.0, seed=int(self.rng.integers(2**62)))
            self.kind = "alphabeta"
            return
        try:
            from ggpzoo.baselines import baseline_path
            from ggpzoo.training.az.net import load_model

            path = baseline_path(self.env)
            if path is not None:
                self.net = load_model(path, self.env)
                self.kind = "baseline"
        except (ImportError, ValueError, OSError):
            self.net = None

    def interrupt(self) -> None:
        """End the turn's alpha-beta search now, from another thread (its match is over); a
        Gumbel search runs its few simulations to the end."""
        if self.ab is not None:
            self.ab.interrupt()

    # ------------------------------------------------------------------ state
    def legal(self) -> list[int]:
        n = self.map.kernel.legal_actions(self.board, self.aux, self.buf)
        return [int(a) for a in self.buf[:n]]

    def over(self) -> bool:
        return bool(self.map.kernel.is_terminal(self.board, self.aux))

    def mover(self) -> int:
        """The sheet's role index of the role in control."""
        return self.map.sheet_role(int(self.aux[0]))

    def play(self, joint_terms: list) -> None:
        """Apply a joint move (one sheet term per role, the sheet's role order); ValueError if
        the mover's move is not a legal kernel action."""
        if self.over():
            raise ValueError("the kernel's game is over")
        term = joint_terms[self.mover()]
        a = self.map.action(term, self.aux)
        if a is None or a not in self.legal():
            raise ValueError(f"the move {term} is not a legal action of the kernel")
        self.map.kernel.apply(self.board, self.aux, a)

    def term(self, action: int):
        return self.map.term(action, self.aux)

    # ------------------------------------------------------------------ search
    def _agent(self, simulations: int):
        if simulations not in self.agents:
            from ggpzoo.agents.gumbel import GumbelAZAgent

            self.agents[simulations] = GumbelAZAgent(
                self.env, self.net, simulations=simulations, seed=int(self.rng.integers(2**62))
            )
        return self.agents[simulations]

    def warm_up(self) -> None:
        """Load the search's kernels (compiled on a first run) and measure its speed."""
        state = (self.board.copy(), self.aux.copy())
        if self.ab is not None:
            self.ab.seconds = 0.01
            self.ab(state)
            return
        if self.net is None:
            from ggpzoo.agents.spec import make_agent

            make_agent("mcts:16", self.env, seed=0)(state)
            return
        self._agent(0)(state)
        self._agent(8)(state)  # compiles or loads the search
        t0 = time.perf_counter()
        self._agent(32)(state)
        self.rate = 32 / max(1e-4, time.perf_counter() - t0)

    def quick(self) -> int:
        """A move at once: the network's (no search), else the first legal action."""
        if self.net is None:  # (alpha-beta loads no network)
            return self.legal()[0]
        return int(self._agent(0)((self.board.copy(), self.aux.copy())))

    def choose(self, deadline: float, hard: float | None = None) -> tuple[int, dict]:
        """The action to play, searched until ``deadline`` (``time.perf_counter()``), and stats.

        Alpha-beta runs here for `AB_SHARE` of the time left and stops itself at that
        deadline (it looks at the clock every 128 nodes). Gumbel search runs in a thread of
        its own: if it is not back by ``hard`` (default ``deadline``) the network's move is
        answered instead, and the search ends on its own (the next turn waits for it until
        its own deadline, else answers the network's move)."""
        state = (self.board.copy(), self.aux.copy())
        hard = deadline if hard is None else hard
        budget = deadline - time.perf_counter()
        if self.ab is not None:
            if budget < 0.002:
                return self.legal()[0], {"simulations": 0}
            self.ab.seconds = AB_SHARE * budget
            a = int(self.ab(state))
            got = self.ab.last_search
            return a, {"simulations": 0, "search": "alphabeta", "depth": got["depth"], "nodes": got["nodes"]}
        if self.net is None:
            from ggpzoo.agents.spec import make_agent

            if budget < 0.002:
                return self.legal()[0], {"simulations": 0}
            agent = make_agent(f"mcts:{budget:.4f}s", self.env, seed=int(self.rng.integers(2**62)))
            a = int(agent(state))
            return a, {"simulations": int(agent.last_search.get("simulations", 0)), "search": "mcts"}
        if self._search is not None and self._search.is_alive():  # an earlier search overran
            self._search.join(max(0.0, deadline - time.perf_counter()))
            if self._search.is_alive():
                return self.quick(), {"simulations": 0, "search": "network", "busy": True}
            budget = deadline - time.perf_counter()
        rate = self.rate or 100.0
        fits = [n for n in self.LADDER if n / rate <= SEARCH_SHARE * budget and n <= 2 * self.fitted]
        if not fits and budget < PROBE_SECONDS:
            return self.quick(), {"simulations": 0, "search": "network"}
        fits = fits or self.LADDER[:1]  # a speed measured on a busy machine: measure it again
        n = fits[-1]
        agent = self._agent(n)
        got: dict = {}
        t0 = time.perf_counter()

        def search():
            got["action"] = int(agent(state))
            got["seconds"] = time.perf_counter() - t0

        self._search = threading.Thread(target=search, daemon=True, name="ggp-kernel-search")
        self._search.start()
        self._search.join(max(0.0, hard - time.perf_counter()))
        took = got.get("seconds", time.perf_counter() - t0)
        seen = n / max(1e-4, took)
        in_time = "action" in got and took <= budget
        self.fitted = max(self.fitted, n) if in_time else max(8, n // 4)
        self.rate = seen if seen < rate else 0.8 * rate + 0.2 * seen  # slow to trust a faster machine
        if "action" not in got:
            return self.quick(), {"simulations": 0, "search": "network", "overran": n}
        return got["action"], {"simulations": n, "search": "gumbel", "value": agent.last_search.get("value")}
