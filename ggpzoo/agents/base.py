"""The agent protocol: a callable that picks an action, from an observation or a game state.

Every agent is called with what it needs to decide, and returns an action id:

* ``takes = "observation"``: the env's observation dict for the agent to move,
  ``{"observation": planes, "action_mask": mask}`` (`RandomAgent`,
  `SB3Agent`);
* ``takes = "state"``: the kernel state ``(board, aux)`` of ``env.unwrapped.get_state()``
  (`GreedyAgent`, `MCTSAgent`), which they copy
  before searching.

`Agent.act()` gives an agent the right one from an env, so code that runs agents
(the arena, ``play``) need not care which.
"""

from __future__ import annotations

import numpy as np

from ggpzoo.envs import spec

__all__ = ["Agent", "seeded_rng", "MAX_SECONDS"]

MAX_SECONDS = 3600.0  # the longest budget per move any agent takes (an hour; specs like ab:0.25s)
_WARM: set = set()  # the searches this process has compiled or loaded (`Agent.warmup()`)


def seeded_rng(seed) -> np.random.Generator:
    """``np.random.default_rng(seed)`` for ``seed`` None or a seed the engine takes (an integer
    in 0..2**63 - 1, `ggpzoo.engine.batch._seed()`); anything else (a float, a bool, a
    negative number) is a ValueError naming it."""
    if seed is None:
        return np.random.default_rng()
    from ggpzoo.engine.batch import _seed

    try:
        return np.random.default_rng(_seed(seed))
    except ValueError:
        raise ValueError(f"seed must be None or a non-negative integer below 2**63, got {seed!r}") from None


class Agent:
    """Base class of the ggpzoo agents.

    Attributes:
        name: a short label (the arena's spec string, e.g. ``"mcts:200"``).
        takes: ``"observation"`` or ``"state"``: what `__call__()` expects.
    """

    name: str = "agent"
    takes: str = "observation"

    def __call__(self, x) -> int:
        """The action to play, from an observation dict or a state ``(board, aux)`` (see ``takes``)."""
        raise NotImplementedError

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseed the agent's randomness if ``seed`` is given."""

    def act(self, env) -> int:
        """The action for ``env.agent_selection`` in ``env`` (a ggpzoo env, wrapped or not)."""
        raw = env.unwrapped
        if self.takes == "state":
            return self(raw.get_state())
        return self(raw.observe(raw.agent_selection))

    def warmup(self) -> None:
        """Compile the numba code this agent's moves run (or load it from numba's cache), so
        that no move's clock counts it: the agents that search call it when they are built,
        once per process and kind of search. The first time after an install it says so on
        stderr (`ggpzoo.engine.warmup.compile_notice`). Nothing to do for the others."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"


class _StateAgent(Agent):
    """An agent that searches the states of game ``env_name`` (an env name such as
    ``"skirmish_v0"`` or ``"gdl:tictactoe"``, a spec, or a loaded GDL game) in numba, on the
    game protocol of `ggpzoo.engine.dispatch`."""

    takes = "state"

    def __init__(self, env_name, seed: int | None = None):
        self.spec = spec(env_name)
        self.env_name = env_name if isinstance(env_name, str) else self.spec.name
        self.game = self.spec.kernel_id
        self.kernel = self.spec.kernel
        self.variant = self.spec.variant
        self.rng = seeded_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = seeded_rng(seed)

    def _checked(self, state) -> tuple[np.ndarray, np.ndarray]:
        """``state`` as contiguous copies ``(board, aux)``, checked to be a state of this agent's
        game (``spec.check_state()``: a ValueError names the problem)."""
        if isinstance(state, dict) or not isinstance(state, (tuple, list, np.ndarray, frozenset, set)):
            raise TypeError(
                f"{type(self).__name__} takes a game state, env.unwrapped.get_state() (for a hand-written "
                f"game the pair (board, aux)); got {type(state).__name__}"
            )
        return self.spec.check_state(state)

    def _seed(self) -> int:
        return int(self.rng.integers(1, 2**62))


def warm_once(spec, search: str, key: tuple, play) -> None:
    """Run ``play(state)`` on the start state of game ``spec``, once per process and ``key``,
    under a compile notice naming ``search``: a small search of a throwaway agent, so that
    the real one's first move finds its code compiled. Where the rules refuse (a sheet that
    fails at its start) the real move will say why: nothing is raised here."""
    from ggpzoo.engine.warmup import compile_notice, estimate

    if key in _WARM:
        return
    _WARM.add(key)  # first: the throwaway agent's own warm-up returns at once
    with compile_notice(f"the {spec.name} engine and the {search} search", estimate(spec.compile_seconds, (search,))):
        try:
            play(_start_state(spec))
        except ValueError:
            _WARM.discard(key)  # another game of the family may warm it


def _start_state(spec):
    """The start state of ``spec`` as its env makes it (for a sheet, ``spec.new_state()``
    would compile the start of every hand-written game too, which its search never runs)."""
    env = spec.raw_env()
    env.reset(seed=0)
    return env.get_state()


def _any_role(agent, state) -> int:
    """``agent``'s action at ``state`` for the first role that has one to choose there."""
    for role in (None, *agent.spec.agents):
        try:
            return agent(state, role)
        except ValueError:
            continue
    raise ValueError("no role to move")


def protocol_error(spec, code: int) -> str:
    """The message of a game protocol's error ``code`` (below ``SIMULTANEOUS``) in game ``spec``."""
    from ggpzoo.envs.propnet.kernel import ERRORS

    return f"{spec.name}: {ERRORS.get(code + 10, f'error {code} of the game protocol')}"


class _ProtocolAgent(_StateAgent):
    """A state agent that plays every game through the game protocol (``status``, ``step``,
    ``role_legal``, ``step_joint``), keeping its own work area; called as
    ``agent(state, role=None)`` and ``agent.act(env)``."""

    def __init__(self, env_name, seed: int | None = None):
        super().__init__(env_name, seed)
        self._T = self._W = None

    def act(self, env) -> int:
        """The action of ``env.agent_selection`` in an env of this agent's game (its state,
        ``env.unwrapped.get_state()``: where roles choose at once, never the choices the roles
        before it made in the same step)."""
        raw = env.unwrapped
        return self(raw.get_state(), role=raw.agent_selection)

    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The game's tables ``T`` and this agent's work area ``W`` (a new one when ``T`` changed)."""
        T = self.spec.tables
        if T is not self._T:
            self._T, self._W = T, self.spec.work()
        return self._T, self._W

    def _root(self, state, role):
        """Check ``state`` and ``role`` (a role name or None) and find what to answer there.

        Returns ``(board, aux, T, W, who, n, forced)``: ``who`` the index of the role whose move
        is asked where several roles choose at once, else -1; ``n`` the chooser's legal count
        (``who``'s where several choose); ``forced`` the one legal action of ``role`` when it has
        no choice (nothing to search), else None. A ValueError names a game that is over, a
        role that is not to move, or an unknown role."""
        from ggpzoo.engine.dispatch import OVER, SIMULTANEOUS, role_legal, status

        board, aux = self._checked(state)
        agents = self.spec.agents
        if role is not None and role not in agents:
            raise ValueError(f"role must be one of {list(agents)}, got {role!r}")
        T, W = self._arrays()
        legal = np.empty(max(self.spec.max_legal, 1), np.int32)
        goals = np.zeros(self.spec.num_roles, np.int32)
        n = int(status(self.game, board, aux, T, W, legal, goals))
        if n == OVER:
            raise ValueError("no legal action: the game is over")
        if n < SIMULTANEOUS:
            raise ValueError(protocol_error(self.spec, n))
        who = -1
        if n == SIMULTANEOUS:
            counts = [int(role_legal(self.game, board, aux, T, W, r, legal)) for r in range(len(agents))]
            if role is None:
                choosers = ", ".join(a for a, c in zip(agents, counts, strict=True) if c > 1)
                raise ValueError(
                    f"roles {choosers} choose a move at the same time here: pass role= (whose move to answer)"
                )
            who = agents.index(role)
            n = counts[who]
        mover = who if who >= 0 else int(aux[0])
        if role is not None and agents.index(role) != mover or n == 1 and who >= 0:
            r = agents.index(role)
            if role_legal(self.game, board, aux, T, W, r, legal) == 1:
                return board, aux, T, W, who, n, int(legal[0])  # a forced move: nothing to search
            raise ValueError(f"{role} is not to move here ({agents[mover]} is)")
        return board, aux, T, W, who, n, None
