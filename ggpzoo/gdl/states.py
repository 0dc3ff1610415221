"""A GDL game's states for the game protocol: what a sheet's spec takes as a state.

The game protocol ([`ggpzoo.engine.dispatch`][ggpzoo.engine.dispatch]) plays a sheet on a ``board`` (its
network's fluents, ``int8`` 0 or 1) and an ``aux`` of
`AUX_SIZE`; [`protocol_state()`][ggpzoo.gdl.states.protocol_state]
(what ``spec.check_state()`` runs for a sheet) turns what a user has into those: the GDL env's
``get_state()`` (a ``uint8`` vector on the compiled path, a frozenset of fluent terms on the
exact path), the fluents that hold, or a ``(board, aux)`` pair.
[`state_from_fluents()`][ggpzoo.gdl.states.state_from_fluents] builds a compiled state from GDL text.

>>> from ggpzoo.envs import spec
>>> s = spec("gdl:tictactoe")
>>> board, aux = s.check_state(["(control oplayer)", "(cell 2 2 x)"])
>>> int(board.sum()), aux.tolist()
(2, [0, 0, 0])
"""

from __future__ import annotations

import numpy as np

from ggpzoo.envs.propnet.kernel import AUX_SIZE
from ggpzoo.gdl.syntax import GDLError, parse, to_text

__all__ = [
    "SimultaneousMoveError",
    "protocol_state",
    "state_from_fluents",
    "fluent_vector",
    "checked_state",
    "env_state",
    "fluent_terms",
]


class SimultaneousMoveError(ValueError):
    """A search that cannot answer at a state where several roles choose a move at once."""


def one_term(text: str, what: str):
    """The one GDL term written ``text`` (a ``what``: "move", "fluent"), or a ValueError."""
    if not isinstance(text, str):
        raise ValueError(f"a {what} is GDL text such as '(mark 1 1)', got {type(text).__name__} {text!r}")
    try:
        rules = parse(text)
    except GDLError as e:
        raise ValueError(f"cannot read the {what} {text!r}: {e}") from None
    if len(rules) != 1 or rules[0].body:
        raise ValueError(f"{text!r} is not one {what} term")
    return rules[0].head


def _term(f):
    """A fluent given as GDL text (``"(cell 1 1 x)"``) as its term; anything else as it is."""
    return one_term(f, "fluent") if isinstance(f, str) else f


def fluent_terms(game, state) -> frozenset:
    """An exact-path state: ``state`` (a set of fluent terms, or of their GDL text) as a
    frozenset of fluents of ``game``; a ValueError names what is not one."""
    if isinstance(state, (str, bytes)) or not isinstance(state, (frozenset, set, list, tuple)):
        raise ValueError(
            f"a state is env.unwrapped.get_state() or a list of the fluents that hold, got {type(state).__name__}"
        )
    terms = []
    for f in map(_term, state):
        if not isinstance(f, (str, tuple)) or f not in game.fluent_ids:
            name = to_text(f) if isinstance(f, (str, tuple)) else repr(f)
            raise ValueError(f"{name} is not a fluent of {game.name}")
        terms.append(f)
    return state if isinstance(state, frozenset) else frozenset(terms)


def state_from_fluents(game, fluents) -> np.ndarray:
    """The compiled state (``uint8`` over the network's fluents) where exactly ``fluents`` hold.

    ``fluents``: GDL text (``"(cell 1 1 x)"``) or terms; a fluent the grounding never makes
    true is a ValueError. Also turns an exact-path state (a frozenset of terms) into a
    compiled one.

    >>> from ggpzoo import gdl
    >>> g = gdl.load(gdl.game_path("tictactoe"))
    >>> int(state_from_fluents(g, ["(control oplayer)", "(cell 2 2 x)"]).sum())
    2
    """
    net = game.propnet()
    state = np.zeros(len(net.fluents), np.uint8)
    for f in map(_term, fluents):
        i = net.fluent_index.get(f)
        if i is None:
            raise ValueError(f"{to_text(f)} is not a fluent of {game.name} (no state of the grounding has it)")
        state[i] = 1
    return state


def fluent_vector(game, state, what: str) -> np.ndarray:
    """A compiled state's vector, checked: ``n`` fluents, each 0 or 1; a fresh ``uint8`` copy."""
    n = len(game.propnet().fluents)
    a = np.asarray(state)
    if a.shape != (n,) or not (np.issubdtype(a.dtype, np.integer) or a.dtype == np.bool_):
        raise ValueError(f"not a state of {game.name}: expected {what} of {n} fluents (0/1), got {a.dtype} {a.shape}")
    if n and (a.min() < 0 or a.max() > 1):
        raise ValueError(f"not a state of {game.name}: fluents must be 0 or 1")
    return np.ascontiguousarray(a, np.uint8).copy()


def protocol_state(game, state) -> tuple[np.ndarray, np.ndarray]:
    """``state`` of GDL game ``game`` as fresh ``(int8 board, int32 aux)`` of the game protocol;
    ValueError naming the problem.

    ``state``: the GDL env's ``get_state()`` (a ``uint8`` vector over the network's fluents,
    or on the exact path a frozenset of fluent terms), a list of the fluents that hold (GDL
    text or terms), or a ``(board, aux)`` pair of the protocol (``aux[ROLE]`` is recomputed by
    ``status``; ``aux[STEP]`` is kept)."""
    aux = np.zeros(AUX_SIZE, np.int32)
    if isinstance(state, (frozenset, set)):
        return state_from_fluents(game, state).astype(np.int8), aux
    if isinstance(state, (list, tuple)) and any(isinstance(f, (str, tuple)) for f in state):
        return state_from_fluents(game, state).astype(np.int8), aux
    if isinstance(state, (list, tuple)):
        if len(state) != 2:
            raise ValueError(f"not a state of {game.name}: a state is (board, aux), get_state() or a list of fluents")
        board = fluent_vector(game, state[0], "a board")
        given = np.asarray(state[1])
        if given.shape != (AUX_SIZE,) or not np.issubdtype(given.dtype, np.integer):
            raise ValueError(f"not a state of {game.name}: aux is {AUX_SIZE} integers, got {given.dtype} {given.shape}")
        if given[1] != 0 or given[2] < 0 or given[2] > np.iinfo(np.int32).max:
            raise ValueError(f"not a state of {game.name}: aux is (role, 0, moves played >= 0), got {given.tolist()}")
        aux[2] = given[2]
        return board.astype(np.int8), aux
    if isinstance(state, np.ndarray):
        return fluent_vector(game, state, "a vector").astype(np.int8), aux
    raise ValueError(
        f"not a state of {game.name}: give env.unwrapped.get_state(), a list of the fluents that hold "
        f"or (board, aux); got {type(state).__name__}"
    )


# ----------------------------------------------------------------------------- for GDL-only agents
def checked_state(game, state, who: str) -> np.ndarray:
    """``state`` as a checked copy of a compiled state of ``game`` (an exact-path state, a
    frozenset of fluents, is converted); ``who`` names the agent in the errors."""
    n = len(game.propnet().fluents)
    if isinstance(state, frozenset):
        return state_from_fluents(game, state)
    if not isinstance(state, np.ndarray):
        raise TypeError(
            f"{who} takes a GDL state (a uint8 array of {n} fluents, env.unwrapped.get_state()), "
            f"got {type(state).__name__}"
        )
    return fluent_vector(game, state, "a vector")


def env_state(env, game, who: str):
    """``(state, role to act)`` of a GDL env of ``game`` (another load of the same sheet goes
    by its fluents); ``who`` names the agent in the errors."""
    from ggpzoo.gdl.game import Game

    raw = env.unwrapped
    other = getattr(raw, "game", None)
    if not isinstance(other, Game):
        raise ValueError(f"{who} plays GDL envs (ggpzoo.gdl.env), got {type(raw).__name__}")
    state = raw.get_state()
    if other is not game:
        if other.text != game.text:
            raise ValueError(f"this {who} plays {game.name}, got a GDL env of {other.name}")
        state = frozenset(raw.machine.fluents(state))
    return state, raw.agent_selection
