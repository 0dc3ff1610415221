"""A sheet on the exact reasoner, as a [`Machine`][ggpzoo.engine.machine.Machine].

[`ReasonerMachine`][ggpzoo.gdl.machine.ReasonerMachine] answers from the sheet's rules
themselves (`ggpzoo.gdl.game.Game`), with the turns of the engine's game protocol: joint
moves in which no role has a choice are played by ``initial`` and ``next``, and where one
role has a choice the others list no action. It is the reference the compiled network is
held to (`ggpzoo.engine.machine.machines_agree`):

    >>> from ggpzoo.engine.machine import ArrayMachine, machines_agree
    >>> from ggpzoo.gdl.machine import ReasonerMachine
    >>> machines_agree(ReasonerMachine("gdl:tictactoe"), ArrayMachine("gdl:tictactoe"), games=2) > 0
    True
"""

from __future__ import annotations

import numpy as np

from ggpzoo.engine.machine import Status, checked_ids, checked_role
from ggpzoo.envs.propnet.kernel import MAX_FORCED
from ggpzoo.gdl.states import fluent_terms
from ggpzoo.gdl.syntax import GDLError

__all__ = ["ReasonerMachine"]


class ReasonerMachine:
    """A sheet on the exact reasoner: states are frozensets of the fluents that hold.

    It is the sheet's `ggpzoo.gdl.game.ExactMachine` (every role's legal ids in every
    state), with the turns of the game protocol on top.

    Args:
        game: an env name (``"gdl:tictactoe"``), its spec, or a loaded `ggpzoo.gdl.Game`.
    """

    def __init__(self, game):
        from ggpzoo.envs import spec as _spec
        from ggpzoo.gdl.game import Game

        if not isinstance(game, Game):
            s = _spec(game) if isinstance(game, str) else game
            if s.game is None:
                raise ValueError(f"{s.name} is not a GDL game: the reasoner plays rule sheets")
            game = s.game
        self.game = game
        self.roles = tuple(game.roles)
        self._exact = exact = game.machine("exact")
        self._legal, self._play = exact.legal, exact.next

    def _over(self, state, legal) -> bool:
        return self.game.is_terminal(state) or any(len(x) == 0 for x in legal)

    def _settle(self, state):
        for _ in range(MAX_FORCED):
            legal = self._legal(state)
            if self._over(state, legal) or any(len(x) > 1 for x in legal):
                return state
            state = self._play(state, [int(x[0]) for x in legal])
        raise GDLError(f"{MAX_FORCED} joint moves in a row without a choice: the game does not seem to end")

    def initial(self):
        return self._settle(self.game.initial_state())

    def _checked(self, state) -> frozenset:
        """``state`` as a frozenset of the sheet's fluents (`ggpzoo.gdl.states.fluent_terms`)."""
        return fluent_terms(self.game, state)

    def status(self, state) -> Status:
        state = self._checked(state)
        goals = self._exact.goals(state)
        legal = self._legal(state)
        empty = np.zeros(0, np.int64)
        if self._over(state, legal):
            return Status(True, goals, (empty,) * len(self.roles))
        if sum(len(x) > 1 for x in legal) == 1:
            legal = [x if len(x) > 1 else empty for x in legal]
        return Status(False, goals, tuple(legal))

    def next(self, state, ids):
        state = self._checked(state)
        st = self.status(state)
        if st.over:
            raise ValueError(f"{self.game.name}: the game is over: there is no next state")
        given = checked_ids(ids, st.legal, self.roles, self.game.name)
        joint = [i if i >= 0 else int(x[0]) for i, x in zip(given, self._legal(state), strict=True)]
        return self._settle(self._play(state, joint))

    def observe(self, state, role: int) -> np.ndarray:
        role = checked_role(role, self.roles, self.game.name)
        state = self._checked(state)
        out = np.zeros(len(self.game.fluents) + len(self.roles), np.float32)
        out[: len(self.game.fluents)] = self._exact.fluent_vector(state)
        out[len(self.game.fluents) + int(role)] = 1
        return out
