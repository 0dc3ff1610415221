"""Agents against agents: single games, round-robin tournaments, score intervals and Elo.

* [`play_game()`][ggpzoo.tools.arena.play_game] - one game between two agents on a raw env, as a
[`GameRecord`][ggpzoo.tools.arena.GameRecord].
* [`round_robin()`][ggpzoo.tools.arena.round_robin] - every pair of agents (or the pairs given: a ladder) plays
  ``games`` games, colours alternating (white in the even games is the first of the
  pair), each pair of games from the same random opening (``openings`` plies; none by
  default), as an [`ArenaResult`][ggpzoo.tools.arena.ArenaResult]: a table of wins, draws and losses with Wilson score
  intervals, and Elo ratings, counting the distinct games.
* [`random_opening()`][ggpzoo.tools.arena.random_opening] - a seeded opening of random legal plies that does not end
  the game.
* [`elo_ratings()`][ggpzoo.tools.arena.elo_ratings] - maximum-likelihood Elo (Bradley-Terry) with standard errors.
* [`wilson()`][ggpzoo.tools.arena.wilson] - the Wilson score interval of a proportion.

Deterministic agents play the same game every time from the same start: two of them
play only two distinct games (one per colour) however many are asked. The evaluation
protocol that makes games independent is ``openings=K`` (the command line's default,
`OPENING_PLIES`): game pair ``k`` starts from its own ``K`` uniformly random plies,
played once with each seat order. Every table counts the distinct games (a game is its
players and its whole action sequence, opening included), and the intervals and Elo
margins take only the distinct ones as independent (below: `ArenaResult.standings()`).

A game's result is the env's: the role with the higher goal at the end wins (a score of
1, the other 0), equal goals draw (0.5 each); a game cut by ``max_steps`` is a draw.

GDL games play too: pass a two-role [`ggpzoo.gdl.Game`][ggpzoo.gdl.Game] (``gdl.load(path)``) where an
env name goes, and agents made for it (``make_agent("mcts:200", game)``). "White" is then
the sheet's first role, "black" its second, and ``max_steps`` counts joint moves (by
default `GDL_MAX_STEPS`, 2000: a sheet's games need not end).

    from ggpzoo.agents import make_agent
    from ggpzoo.tools.arena import round_robin
    agents = [make_agent(s, "skirmish_v0", seed=i) for i, s in enumerate(["random", "greedy", "mcts:200"])]
    result = round_robin("skirmish_v0", agents, games=20)
    print(result.table())
"""

from __future__ import annotations

import csv
import json
import math
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from ggpzoo.agents.base import Agent
from ggpzoo.tools._progress import Progress

__all__ = [
    "GameRecord",
    "ArenaResult",
    "ArenaError",
    "ArenaInterrupted",
    "play_game",
    "random_opening",
    "round_robin",
    "check_output",
    "elo_ratings",
    "wilson",
]

ELO_METHOD = (
    "maximum likelihood (Bradley-Terry: P(win) = 1 / (1 + 10^(-diff/400)), a draw is half a win), "
    "with one virtual draw per pair as a prior so that perfect scores stay finite, and each pair's games "
    "weighted down to count its distinct games"
)


class ArenaError(RuntimeError):
    """An agent broke the game (e.g. played an illegal action)."""


class ArenaInterrupted(KeyboardInterrupt):
    """Ctrl-C during [`round_robin()`][ggpzoo.tools.arena.round_robin]: ``result`` holds the games finished
    before it (an [`ArenaResult`][ggpzoo.tools.arena.ArenaResult] with ``interrupted`` set), to be saved."""

    def __init__(self, result: ArenaResult):
        super().__init__(f"interrupted after {len(result.games)} games")
        self.result = result


@dataclass
class GameRecord:
    """One finished game."""

    white: str
    black: str
    goals: tuple[int, int]  # the final goals, white's and black's
    score: float  # white's: 1 win, 0.5 draw, 0 loss
    length: int  # actions played
    truncated: bool  # cut by max_steps (scored as a draw)
    seconds: float
    actions: list[int] = field(default_factory=list)
    # the actions as text (action_to_string), and after each the moves the env played by itself
    moves: list[str] = field(default_factory=list)
    white_seconds: float = 0.0  # the time white's agent took to choose its moves, in all
    black_seconds: float = 0.0
    white_moves: int = 0  # the actions each agent chose
    black_moves: int = 0
    opening: int = 0  # the first ``opening`` actions were the random opening (no agent chose them)


GDL_MAX_STEPS = 2000  # a GDL game (named or loaded) still running after this many joint moves is cut: a draw


def _raw_env(env, max_steps: int | None = None):
    """A raw env from an env name (``gdl:SHEET`` for a GDL game), a spec, a loaded GDL game
    (`ggpzoo.gdl.Game`) or an env. A game made here is cut after ``max_steps`` joint moves,
    `GDL_MAX_STEPS` by default (a sheet's random games need not end; the hand-written
    games end far sooner)."""
    if hasattr(env, "unwrapped") and not isinstance(env, str):
        return env.unwrapped
    from ggpzoo.envs import spec as _spec

    s = _spec(env)
    if s.num_roles != 2:
        raise ValueError(f"the arena plays two-player games; {s.name} has roles {', '.join(s.agents)}")
    return s.raw_env(max_steps=GDL_MAX_STEPS if max_steps is None else max_steps)


def forced_moves(env) -> list[tuple[str, str]]:
    """``(role, move)`` of each move ``env`` played by itself in its last ``step()`` or
    ``reset()``: a role's only legal move in a joint move where no role had a choice (a GDL
    sheet's ``forced``), but a waiting role's ``noop``. Empty for the other games."""
    raw = env.unwrapped
    return [
        (r, text)
        for joint in getattr(raw, "forced", [])
        for r, a in joint
        if (text := raw.action_to_string(a, role=r)).lower() != "noop"
    ]


def play_game(
    env, white: Agent, black: Agent, seeds: tuple[int, int] | None = None, on_move=None, opening: Sequence[int] = ()
) -> GameRecord:
    """Play one game of ``env`` (an env name, a GDL game or a ggpzoo raw env) from the start.

    ``seeds`` reseed the two agents first (``agent.reset(seed)``), so that the game can be
    played again; ``on_move(env, action)`` is called after every action. ``opening``: action
    ids played first, for whichever role is to move (e.g. from
    [`random_opening()`][ggpzoo.tools.arena.random_opening]); each must be legal and none may end the game
    (else ``ValueError`` before the agents play). An agent with ``begin(env, seat)`` and
    ``moved(env, seat, action)`` methods (a remote GGP player,
    [`GGPAgent`][ggpzoo.ggp.remote.GGPAgent]) is told of the game's start and of every action (in the
    opening it is asked for its move as usual, and the opening's move is played instead). Raises
    [`ArenaError`][ggpzoo.tools.arena.ArenaError] if an agent plays an illegal action. In a GDL game, ``white`` plays
    the first role.
    """
    env = _raw_env(env)
    opening = _checked_opening(env, opening)
    env.reset()
    seats = list(env.possible_agents)
    if len(seats) != 2:
        raise ValueError(f"the arena plays two-player games; this env has agents {seats}")
    players = dict(zip(seats, (white, black), strict=True))
    for i, agent in enumerate((white, black)):
        agent.reset(None if seeds is None else int(seeds[i]))
    for seat, agent in players.items():
        if hasattr(agent, "begin"):  # a remote GGP player (ggpzoo.ggp.remote): START
            agent.begin(env, seat)
    actions, moves = [], []
    thinking = dict.fromkeys(seats, 0.0)
    chosen = dict.fromkeys(seats, 0)
    start = time.perf_counter()
    while not env.is_game_over():
        mover = env.agent_selection
        agent = players[mover]
        if len(actions) < len(opening):
            action = opening[len(actions)]
            if hasattr(agent, "begin"):  # a GGP player is asked for every move of its (PLAY); the opening's stands
                agent.act(env)
        else:
            t0 = time.perf_counter()
            action = agent.act(env)
            thinking[mover] += time.perf_counter() - t0
            chosen[mover] += 1
        try:
            env.step(action)
        except ValueError as e:
            raise ArenaError(f"{agent.name} (playing {mover}) broke the rules: {e}") from None
        actions.append(int(action))
        for agent in (white, black) if white is not black else (white,):
            if hasattr(agent, "moved"):  # a remote GGP player follows every move (PLAY, STOP)
                agent.moved(env, mover, int(action))
        moves.append(env.action_to_string(int(action), role=mover))  # a sheet's: the mover's GDL term
        moves += [m for _, m in forced_moves(env)]  # and the moves the env played by itself
        if on_move is not None:
            on_move(env, action)
    first, second = seats
    reward = env.rewards[first]
    cut = env.outcome().termination == "max_steps" if hasattr(env, "outcome") else any(env.truncations.values())
    return GameRecord(
        white=white.name,
        black=black.name,
        goals=(int(env.infos[first]["goal"]), int(env.infos[second]["goal"])),
        score=(reward + 1.0) / 2.0,
        length=len(actions),
        truncated=cut,
        seconds=time.perf_counter() - start,
        actions=actions,
        moves=moves,
        white_seconds=thinking[first],
        black_seconds=thinking[second],
        white_moves=chosen[first],
        black_moves=chosen[second],
        opening=len(opening),
    )


# ----------------------------------------------------------------------------- openings
OPENING_PLIES = 4  # the command line's --openings: random plies before the agents play
MAX_OPENING_PLIES = 200


def _plies(plies) -> int:
    if isinstance(plies, bool) or not isinstance(plies, (int, np.integer)) or not 0 <= plies <= MAX_OPENING_PLIES:
        raise ValueError(f"openings must be a whole number of plies in 0..{MAX_OPENING_PLIES}, got {plies!r}")
    return int(plies)


def _checked_opening(env, opening) -> list[int]:
    """``opening`` as action ids, each legal in turn and none ending the game; else ValueError
    naming the ply (``env`` is left at the start)."""
    if isinstance(opening, (str, bytes)) or not isinstance(opening, Sequence | np.ndarray):
        raise ValueError(f"an opening is a sequence of action ids, got {type(opening).__name__}")
    opening = list(opening)
    if len(opening) > MAX_OPENING_PLIES:
        raise ValueError(f"an opening has at most {MAX_OPENING_PLIES} plies, got {len(opening)}")
    env.reset()
    for k, a in enumerate(opening):
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise ValueError(f"opening ply {k}: an action id is a whole number, got {a!r}")
        try:
            env.step(int(a))
        except ValueError as e:
            env.reset()
            raise ValueError(f"opening ply {k}: {e}") from None
        if env.is_game_over():
            env.reset()
            raise ValueError(f"opening ply {k}: action {a} ends the game; an opening must leave it running")
    env.reset()
    return [int(a) for a in opening]


def _replayed(env, actions) -> None:
    env.reset()
    for a in actions:
        env.step(a)


def random_opening(env, plies: int, seed=None) -> list[int]:
    """``plies`` uniformly random legal actions from the start of ``env`` (an env name, a GDL
    game or a raw env), as action ids, then more until a turn begins (a joint move complete,
    amazons_split's fire step played), from ``np.random.default_rng(seed)``.

    The opening never ends the game: a ply that would (or would reach ``max_steps``) is
    drawn again among the other legal actions; where every action ends the game, the opening
    stops at the start of that turn, shorter than ``plies``. The same ``seed`` gives the
    same opening.

    >>> from ggpzoo.tools.arena import random_opening
    >>> len(random_opening("skirmish_endgame_v0", 4, seed=0))
    4
    """
    plies = _plies(plies)
    env = _raw_env(env)
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    turn = 0  # actions[:turn] end at the start of a turn
    env.reset()
    while len(actions) < plies or not _turn_start(env):
        for a in rng.permutation(env.legal_actions()):
            env.step(int(a))
            if not env.is_game_over():
                actions.append(int(a))
                break
            _replayed(env, actions)
        else:  # every action ends the game: stop at this turn's start
            actions = actions[:turn]
            break
        if _turn_start(env):
            turn = len(actions)
    env.reset()
    return actions


def _turn_start(env) -> bool:
    return bool(env.at_turn_start()) if hasattr(env, "at_turn_start") else True


# ----------------------------------------------------------------------------- statistics
def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``score / n`` (draws count as half a win).

    Examples:
        >>> [round(v, 4) for v in wilson(8, 10)]
        [0.4902, 0.9433]
    """
    if n <= 0:
        return 0.0, 1.0
    p = score / n
    z2 = z * z
    denom = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(max(p * (1 - p) / n + z2 / (4 * n * n), 0.0)) / denom
    return max(centre - half, 0.0), min(centre + half, 1.0)


def elo_ratings(scores: np.ndarray, games: np.ndarray, anchor: int = 0, prior: float = 1.0):
    """Maximum-likelihood Elo ratings and their standard errors.

    Args:
        scores: ``scores[i, j]`` is what agent i scored against j (a win 1, a draw 0.5).
        games: ``games[i, j]``, the games i and j played (symmetric).
        anchor: the agent rated 0; the others are relative to it.
        prior: virtual draws added to every pair that played (as BayesElo's prior), so
            that a pair with a perfect score has a finite difference.

    The Bradley-Terry model ``P(i beats j) = 1 / (1 + 10^((R_j - R_i) / 400))`` is fitted by
    Hunter's MM iterations; standard errors come from the inverse Fisher information
    with the anchor fixed. Returns ``(ratings, errors)``, float arrays (error 0 for the anchor).

    >>> r, se = elo_ratings(np.array([[0, 7.5], [2.5, 0]]), np.array([[0, 10], [10, 0]]), prior=0)
    >>> round(float(r[1]), 1)  # 75% for the anchor: the other is 191 points below
    -190.8
    """
    scores = np.asarray(scores, float)
    games = np.asarray(games, float)
    n = len(games)
    played = games > 0
    w = scores + prior / 2 * played
    m = games + prior * played
    total = w.sum(axis=1)
    gamma = np.ones(n)
    for _ in range(10_000):
        denom = (m / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = np.where(denom > 0, total / np.where(denom > 0, denom, 1), 1.0)
        new = np.maximum(new, 1e-300)
        new /= np.exp(np.mean(np.log(new)))
        done = np.max(np.abs(np.log(new) - np.log(gamma))) < 1e-12
        gamma = new
        if done:
            break
    theta = np.log(gamma)
    scale = 400 / math.log(10)
    ratings = (theta - theta[anchor]) * scale
    p = gamma[:, None] / (gamma[:, None] + gamma[None, :])
    info = m * p * (1 - p)
    fisher = np.diag(info.sum(axis=1)) - info
    keep = [i for i in range(n) if i != anchor]
    errors = np.zeros(n)
    if keep:
        try:
            cov = np.linalg.inv(fisher[np.ix_(keep, keep)])
            errors[keep] = np.sqrt(np.maximum(np.diag(cov), 0)) * scale
        except np.linalg.LinAlgError:  # an agent with no games: unrated
            errors[keep] = np.inf
    return ratings, errors


# ----------------------------------------------------------------------------- tournaments
INTERVAL_METHOD = (
    "95% Wilson score interval at the observed score (a draw is half a win) with n = the distinct games: "
    "games that repeat another move for move (same players, same actions) are not independent and count once"
)


@dataclass
class ArenaResult:
    """The games of a round robin, with its table and ratings.

    ``openings``: the random plies each pair of games started from (0: the plain start);
    ``interrupted``: the round robin was stopped (Ctrl-C) before all its games were played.
    """

    env: str
    agents: list[str]
    games_per_pair: int
    seed: int
    games: list[GameRecord]
    anchor: int = 0
    openings: int = 0
    interrupted: bool = False

    def matrix(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(wins, draws, losses, games)``, each ``[i, j]`` for agent i against agent j."""
        index = {name: i for i, name in enumerate(self.agents)}
        n = len(self.agents)
        wins, draws, losses = (np.zeros((n, n), int) for _ in range(3))
        for g in self.games:
            i, j = index[g.white], index[g.black]
            if g.score == 1:
                wins[i, j] += 1
                losses[j, i] += 1
            elif g.score == 0:
                wins[j, i] += 1
                losses[i, j] += 1
            else:
                draws[i, j] += 1
                draws[j, i] += 1
        return wins, draws, losses, wins + draws + losses

    def distinct(self) -> np.ndarray:
        """``[i, j]``: the distinct games agents i and j played (symmetric). A game is its
        players, their colours and its whole action sequence, opening included."""
        index = {name: i for i, name in enumerate(self.agents)}
        n = len(self.agents)
        seen: set = set()
        out = np.zeros((n, n), int)
        for g in self.games:
            key = (g.white, g.black, tuple(g.actions))
            if key not in seen:
                seen.add(key)
                i, j = index[g.white], index[g.black]
                out[i, j] += 1
                out[j, i] += 1
        return out

    def repeats(self) -> bool:
        """Whether some games repeat another move for move."""
        return int(self.distinct().sum()) // 2 < len(self.games)

    def _elo(self):
        """Elo from each pair's games weighted down to its distinct games."""
        wins, draws, _, games = self.matrix()
        weight = np.divide(self.distinct(), games, out=np.zeros(games.shape), where=games > 0)
        return elo_ratings((wins + 0.5 * draws) * weight, games * weight, anchor=self.anchor)

    def move_seconds(self) -> list[float]:
        """Each agent's mean time per move over its games, in seconds (NaN for an agent
        that chose no move)."""
        index = {name: i for i, name in enumerate(self.agents)}
        spent, moves = np.zeros(len(self.agents)), np.zeros(len(self.agents))
        for g in self.games:
            spent[index[g.white]] += g.white_seconds
            moves[index[g.white]] += g.white_moves
            spent[index[g.black]] += g.black_seconds
            moves[index[g.black]] += g.black_moves
        return [float(s / m) if m else float("nan") for s, m in zip(spent, moves, strict=True)]

    def standings(self) -> list[dict]:
        """One dict per agent, in the given order: games, distinct games, wins, draws, losses,
        score, its 95% interval, Elo, the Elo's 95% margin (1.96 standard errors) and the mean
        time per move in seconds (``seconds_per_move``).

        The score is over all games; its interval is Wilson's at that score with n = the
        distinct games (`INTERVAL_METHOD`: a game played again move for move adds no
        evidence). Elo is fitted with each pair's games weighted by its distinct share, so
        that its margins too count only the distinct games. Where every game differs both
        are the plain ones over all games."""
        wins, draws, losses, games = self.matrix()
        distinct = self.distinct()
        per_move = self.move_seconds()
        ratings, errors = self._elo()
        rows = []
        for i, name in enumerate(self.agents):
            n, d = int(games[i].sum()), int(distinct[i].sum())
            s = wins[i].sum() + 0.5 * draws[i].sum()
            lo, hi = _interval(s, n, d)
            rows.append(
                {
                    "agent": name,
                    "games": n,
                    "distinct": d,
                    "wins": int(wins[i].sum()),
                    "draws": int(draws[i].sum()),
                    "losses": int(losses[i].sum()),
                    "score": s / n if n else float("nan"),
                    "score_low": lo,
                    "score_high": hi,
                    "elo": float(ratings[i]),
                    "elo_margin": float(1.96 * errors[i]),
                    "seconds_per_move": per_move[i],
                }
            )
        return rows

    def pairs(self) -> list[dict]:
        """One dict per pair ``(a, b)``: a's wins, draws, losses against b, the games and the
        distinct games, a's score and its interval (as in `standings()`)."""
        wins, draws, losses, games = self.matrix()
        distinct = self.distinct()
        rows = []
        for i in range(len(self.agents)):
            for j in range(i + 1, len(self.agents)):
                n, d = int(games[i, j]), int(distinct[i, j])
                if n == 0:  # a ladder's pair that did not play
                    continue
                s = wins[i, j] + 0.5 * draws[i, j]
                lo, hi = _interval(s, n, d)
                rows.append(
                    {
                        "agent": self.agents[i],
                        "opponent": self.agents[j],
                        "games": n,
                        "distinct": d,
                        "wins": int(wins[i, j]),
                        "draws": int(draws[i, j]),
                        "losses": int(losses[i, j]),
                        "score": s / n,
                        "score_low": lo,
                        "score_high": hi,
                    }
                )
        return rows

    def protocol(self) -> str:
        """How the games were played, in words."""
        if self.openings:
            return f"each pair of games from its own {self.openings} random plies, colours swapped"
        return "from the start, colours alternating"

    def warning(self) -> str | None:
        """A line when games repeat (fewer distinct games than games), else None."""
        d, n = int(self.distinct().sum()) // 2, len(self.games)
        if d == n:
            return None
        return (
            f"warning: only {d} of the {n} games differ; the intervals and Elo margins count the {d} distinct "
            "games, as they assume independent games (random openings, --openings, make games differ)"
        )

    def table(self) -> str:
        """The standings and the pairs as text."""
        rows = self.standings()
        order = sorted(range(len(rows)), key=lambda i: -rows[i]["elo"])
        width = max(8, *(len(a) for a in self.agents))
        distinct = int(self.distinct().sum()) // 2
        lines = [
            f"{self.env}: {len(self.agents)} agents, {self.games_per_pair} games per pair ({self.protocol()}), "
            f"{len(self.games)} games, {distinct} distinct, seed {self.seed}"
            + (" (interrupted: the games finished so far)" if self.interrupted else ""),
        ]
        if self.warning():
            lines.append(self.warning())
        lines += [
            "",
            f"rank  {'agent':<{width}}    Elo   ±95%  games  dist     W     D     L   score  95% CI        ms/move",
        ]
        for rank, i in enumerate(order, 1):
            r = rows[i]
            margin = "anchor" if i == self.anchor else f"{r['elo_margin']:.0f}"
            ci = f"[{100 * r['score_low']:.1f}, {100 * r['score_high']:.1f}]"
            lines.append(
                f"{rank:>4}  {r['agent']:<{width}} {r['elo']:>+6.0f} {margin:>6} {r['games']:>6} {r['distinct']:>5} "
                f"{r['wins']:>5} {r['draws']:>5} {r['losses']:>5}  {100 * r['score']:5.1f}%  {ci:<13} "
                f"{_ms(r['seconds_per_move']):>8}"
            )
        lines += ["", f"{'pair':<{2 * width + 4}}   W-D-L  games  dist   score  95% CI (first agent's score)"]
        for p in self.pairs():
            pair = f"{p['agent']} vs {p['opponent']}"
            wdl = f"{p['wins']}-{p['draws']}-{p['losses']}"
            lines.append(
                f"{pair:<{2 * width + 4}} {wdl:>8} {p['games']:>6} {p['distinct']:>5}  {100 * p['score']:5.1f}%  "
                f"[{100 * p['score_low']:.1f}, {100 * p['score_high']:.1f}]"
            )
        lines += [
            "",
            f"Elo: {ELO_METHOD}; {self.agents[self.anchor]} = 0. 95% CI: Wilson's, with n = the distinct games "
            "(dist). ms/move: each agent's mean time to choose a move.",
        ]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        return {
            "env": self.env,
            "agents": self.agents,
            "games_per_pair": self.games_per_pair,
            "seed": self.seed,
            "openings": self.openings,
            "protocol": self.protocol(),
            "interrupted": self.interrupted,
            "games_played": len(self.games),
            "distinct": int(self.distinct().sum()) // 2,
            "warning": self.warning(),
            "interval_method": INTERVAL_METHOD,
            "elo_method": ELO_METHOD,
            "anchor": self.agents[self.anchor],
            "standings": self.standings(),
            "pairs": self.pairs(),
            "games": [asdict(g) | {"goals": list(g.goals)} for g in self.games],
        }

    def write_json(self, path: str) -> None:
        """Everything: standings, pairs, Elo, and every game with its actions."""
        with open(path, "w") as f:
            json.dump(self.to_dict(), f, indent=1)

    def write_csv(self, path: str) -> None:
        """One row per game: white, black, goals, white's score, length, truncated, seconds,
        each agent's time in all choosing its moves and the moves it chose, and the opening's
        plies (the first actions of ``length``, chosen by no agent)."""
        with open(path, "w", newline="") as f:
            out = csv.writer(f)
            out.writerow(
                [
                    "game", "white", "black", "white_goal", "black_goal", "white_score", "length", "truncated",
                    "seconds", "white_seconds", "black_seconds", "white_moves", "black_moves", "opening",
                ]
            )  # fmt: skip
            for k, g in enumerate(self.games):
                out.writerow(
                    [
                        k,
                        g.white,
                        g.black,
                        g.goals[0],
                        g.goals[1],
                        g.score,
                        g.length,
                        int(g.truncated),
                        f"{g.seconds:.4f}",
                        f"{g.white_seconds:.4f}",
                        f"{g.black_seconds:.4f}",
                        g.white_moves,
                        g.black_moves,
                        g.opening,
                    ]
                )


def _interval(score: float, n: int, distinct: int) -> tuple[float, float]:
    """The Wilson interval of ``score`` of ``n`` games at n = ``distinct`` (`INTERVAL_METHOD`)."""
    if distinct == n:
        return wilson(score, n)
    return wilson(score / n * distinct, distinct)


def _ms(seconds: float) -> str:
    """A time per move for the table, in milliseconds."""
    if seconds != seconds:  # NaN: no move
        return "-"
    return f"{1000 * seconds:.1f}" if seconds < 10 else f"{1000 * seconds:.0f}"


def round_robin(
    env_name,
    agents: Sequence[Agent],
    games: int,
    seed: int = 0,
    max_steps: int | None = None,
    anchor: int = 0,
    progress: bool | None = None,
    pairs: Sequence[tuple[int, int]] | None = None,
    openings: int = 0,
) -> ArenaResult:
    """Every pair of ``agents`` plays ``games`` games of ``env_name``, colours alternating.

    ``env_name``: an env name (``gdl:SHEET`` for a two-role GDL game), or a loaded GDL game
    ([`ggpzoo.gdl.Game`][ggpzoo.gdl.Game]; the table then names it ``gdl:<sheet>``).

    ``openings``: random plies before the agents play (0: the plain start; the command
    line's default is `OPENING_PLIES`). Games ``2k`` and ``2k + 1`` of every pair start from
    opening ``k``, [`random_opening()`][ggpzoo.tools.arena.random_opening] seeded from ``(seed, k)``
    (the same openings for every pair), once with each seat order. With deterministic agents
    and no openings a pair plays only two distinct games; the table says so.

    Agent names must differ (they key the table). Each game reseeds both agents from
    ``(seed, pair, game)``, so a tournament with simulation budgets is reproducible.
    ``progress``: draw a progress bar on stderr (default: when stderr is a terminal).
    ``pairs``: only these ``(i, j)`` index pairs play (a ladder: each new agent against a
    few rated ones); the ratings need every agent connected to the anchor through them.

    Ctrl-C raises [`ArenaInterrupted`][ggpzoo.tools.arena.ArenaInterrupted] (a ``KeyboardInterrupt``) whose
    ``result`` holds the games finished so far, flagged ``interrupted``.
    """
    names = [a.name for a in agents]
    if len(agents) < 2:
        raise ValueError(f"an arena needs at least two agents, got {names}")
    if len(set(names)) != len(names):
        raise ValueError(f"agent names must differ, got {names}")
    if isinstance(games, bool) or int(games) != games or games < 1:
        raise ValueError(f"games must be a positive integer, got {games!r}")
    if not 0 <= anchor < len(agents):
        raise ValueError(f"anchor must index an agent (0..{len(agents) - 1}), got {anchor}")
    openings = _plies(openings)
    if pairs is None:
        pairs = [(i, j) for i in range(len(agents)) for j in range(i + 1, len(agents))]
    else:
        pairs = [(int(i), int(j)) for i, j in pairs]
        for i, j in pairs:
            if not (0 <= i < len(agents) and 0 <= j < len(agents)) or i == j:
                raise ValueError(f"pairs must index two different agents (0..{len(agents) - 1}), got {(i, j)}")
        if len({frozenset(p) for p in pairs}) != len(pairs):
            raise ValueError(f"pairs must not repeat a pair, got {pairs}")
    env = _raw_env(env_name, max_steps=max_steps)
    if not isinstance(env_name, str):
        from ggpzoo.envs import spec as _spec

        try:
            env_name = _spec(env_name).name  # a spec or a loaded GDL game: its name
        except (ValueError, TypeError):
            env_name = env.metadata["name"]  # an env
    starts = [opening_for(env, openings, seed, k) for k in range((games + 1) // 2)]
    records = []
    bar = Progress(len(pairs) * games, f"arena {env_name}", enabled=progress)
    try:
        with bar:
            for p, (i, j) in enumerate(pairs):
                score = 0.0
                for g in range(games):
                    white, black = (i, j) if g % 2 == 0 else (j, i)
                    seeds = np.random.SeedSequence([seed, p, g]).generate_state(2)
                    record = play_game(
                        env, agents[white], agents[black], seeds=(int(seeds[0]), int(seeds[1])), opening=starts[g // 2]
                    )
                    records.append(record)
                    score += record.score if white == i else 1 - record.score
                    bar.update(1, f"{names[i]} vs {names[j]}: {score:g}/{g + 1}")
    except KeyboardInterrupt:
        partial = ArenaResult(env_name, names, int(games), seed, records, anchor, openings, interrupted=True)
        raise ArenaInterrupted(partial) from None
    return ArenaResult(env_name, names, int(games), seed, records, anchor, openings)


def opening_for(env, plies: int, seed: int, k: int) -> list[int]:
    """Opening ``k`` of a tournament seeded ``seed``: [`random_opening()`][ggpzoo.tools.arena.random_opening] from
    ``SeedSequence([seed, k])`` (empty when ``plies`` is 0). The ladder scripts use it too."""
    if not plies:
        return []
    return random_opening(env, plies, np.random.SeedSequence([seed, OPENING_STREAM, k]))


OPENING_STREAM = 0x6F70656E  # "open": keeps the openings' seeds apart from the agents' (seed, pair, game)


def check_output(path: str, make_folder: bool = False) -> str:
    """Make sure ``path`` can be written before any game is played: the file is opened for
    appending (and removed again if it did not exist). Its folder must exist, or is made
    with ``make_folder``. Returns ``path``; a ``ValueError`` naming the problem otherwise."""
    if not isinstance(path, str) or not path:
        raise ValueError(f"an output path is a file name, got {path!r}")
    if os.path.isdir(path):
        raise ValueError(f"cannot write {path}: it is a folder")
    folder = os.path.dirname(os.path.abspath(path))
    if not make_folder and not os.path.isdir(folder):
        raise ValueError(f"cannot write {path}: no folder {folder}")
    existed = os.path.exists(path)
    try:
        os.makedirs(folder, exist_ok=True)
        with open(path, "a"):
            pass
    except OSError as e:
        raise ValueError(f"cannot write {path}: {e.strerror or e}") from None
    if not existed:
        os.remove(path)
    return path
