"""Agents to play and evaluate against: random, greedy, MCTS, and saved SB3 models.

* [`RandomAgent`][ggpzoo.agents.simple.RandomAgent] - a uniformly random legal action (from the observation's mask).
* [`GreedyAgent`][ggpzoo.agents.simple.GreedyAgent] - one ply on the goals: the best immediate ``own goal - best
  other goal``, random tie-break (from the game state; every game).
* [`MCTSAgent`][ggpzoo.agents.mcts.MCTSAgent] - UCT with random rollouts on the rules of any game (a hand-written
  kernel or a GDL sheet's compiled network), in numba, with a budget in simulations or seconds
  (from the game state; decoupled UCT where several roles choose at once).
* [`SB3Agent`][ggpzoo.agents.sb3.SB3Agent] - a saved sb3-contrib ``MaskablePPO`` model (``train`` extra).
* [`GumbelAZAgent`][ggpzoo.agents.gumbel.GumbelAZAgent] - a Gumbel AlphaZero network (`ggpzoo.training.az`), alone
  or with batched Gumbel search ([`ggpzoo.agents.gumbel`][ggpzoo.agents.gumbel]; ``train`` extra).
* [`AlphaBetaAgent`][ggpzoo.agents.alphabeta.AlphaBetaAgent] - alpha-beta with iterative deepening, a
  transposition table and an evaluation per game, in numba, by time or depth; GDL sheets
  whose two roles take turns too ([`ggpzoo.agents.alphabeta`][ggpzoo.agents.alphabeta]).
* [`make_agent()`][ggpzoo.agents.spec.make_agent] - any of them from a spec string: ``random``, ``greedy``,
  ``mcts:200``, ``mcts:0.5s``, ``sb3:model.zip``, ``baseline:32``, ``baseline:0.25s``,
  ``az:model.json``, ``ab:0.25s``, ``ab:d4``.

Each agent is a callable: ``agent(obs)`` or ``agent(state)``, as its ``takes`` says;
``agent.act(env)`` passes it the right one for ``env.agent_selection``::

    from ggpzoo.envs import skirmish_v0
    from ggpzoo.agents import MCTSAgent
    env = skirmish_v0.raw_env(); env.reset()
    agent = MCTSAgent("skirmish_v0", simulations=500, seed=0)
    env.step(agent(env.get_state()))        # or agent.act(env)
"""

from ggpzoo.agents.alphabeta import AlphaBetaAgent
from ggpzoo.agents.base import Agent
from ggpzoo.agents.gumbel import GumbelAZAgent
from ggpzoo.agents.mcts import MCTSAgent
from ggpzoo.agents.sb3 import SB3Agent
from ggpzoo.agents.simple import GreedyAgent, RandomAgent
from ggpzoo.agents.spec import SPEC_HELP, AgentSpecError, make_agent

__all__ = [
    "Agent",
    "RandomAgent",
    "GreedyAgent",
    "MCTSAgent",
    "SB3Agent",
    "GumbelAZAgent",
    "AlphaBetaAgent",
    "make_agent",
    "AgentSpecError",
    "SPEC_HELP",
]


def __getattr__(name):
    if name == "GDLMCTSAgent":  # deprecated alias (0.7.0): MCTSAgent searches every game
        import warnings

        warnings.warn("ggpzoo.agents.GDLMCTSAgent is deprecated: use ggpzoo.agents.MCTSAgent", DeprecationWarning, 2)
        return MCTSAgent
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
