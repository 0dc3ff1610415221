"""Self-play of a two-role GDL game for `ggpzoo.training.az.train()` (``--env gdl:SHEET``).

`GDLSelfPlay` is the GDL games' side of the training loop's game adapter (the
hand-written games' is `ggpzoo.training.az.train.KernelSelfPlay`): the games are a
`GDLVectorGames` (forced moves played through, restarted when they
end), the search `GDLGumbelSearch`, the network
`GDLAZNet` (``config.channels`` is its width, 128 by default),
and the strength check the network alone against random play (no greedy player: it needs
a kernel's goals).
"""

from __future__ import annotations

import numpy as np
import torch

from ggpzoo.agents.gdl_gumbel import GDLGumbelSearch, two_role_game
from ggpzoo.gdl.batch import GDLVectorGames
from ggpzoo.training.az.net import GDLAZNet

__all__ = ["GDLSelfPlay", "gdl_net_score"]

DEFAULT_WIDTH = 128


def _outcome0(goals: np.ndarray) -> np.ndarray:
    """+1, -1 or 0 for role 0 from rows of two goals."""
    return np.sign(goals[:, 0] - goals[:, 1]).astype(np.float64)


class GDLSelfPlay:
    """``games`` self-play games of the two-role GDL game ``env`` (``"gdl:SHEET"``)."""

    obs_dtype = np.int8
    opponents = ("random",)

    def __init__(self, env: str):
        self.env = env
        self.game = two_role_game(env)

    def configure(self, config) -> None:
        """Fill the settings left to the game (``channels``: the MLP's width) and refuse
        those it has not (feature planes)."""
        if config.features:
            raise ValueError(f"{self.env} has no feature planes (a GDL game's network reads its fluents)")
        config.features = False
        if config.channels is None:
            config.channels = DEFAULT_WIDTH

    def network(self, config) -> GDLAZNet:
        return GDLAZNet(self.env, width=config.channels, blocks=config.blocks)

    def cells(self) -> np.ndarray:
        """One action part whose cells are the action ids (see `GDLAZNet`)."""
        return np.arange(max(len(m) for m in self.game.actions.values()), dtype=np.int64)[:, None]

    def search(self, config, evaluate, seed: int) -> GDLGumbelSearch:
        return GDLGumbelSearch(
            self.game, evaluate, config.simulations, config.games, config.max_considered, seed=seed,
            c_scale=config.c_scale,
        )  # fmt: skip

    def start(self, games: int, max_moves: int) -> None:
        self.batch = GDLVectorGames(self.game, games, auto_reset=True, max_steps=max_moves)
        self.batch.reset()

    def run(self, search: GDLGumbelSearch):
        return search.run(self.batch.states)

    def observe(self, obs: np.ndarray) -> np.ndarray:
        """Write every game's network input into ``obs``; return the roles to act."""
        obs[:] = self.batch.observe()
        return self.batch.to_play

    def play(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Play each game's action (and the forced moves after it); return which games ended
        and their outcome for role 0 (a game cut at ``max_moves`` is a draw). Ended games restart."""
        r = self.batch.step(actions.astype(np.int64))
        outcome0 = np.where(r.truncated, 0.0, _outcome0(r.final_goals))
        return r.finished, outcome0

    def score(self, net, opponent: str, games: int, seed: int, device, max_moves: int) -> float:
        return gdl_net_score(net, self.game, opponent, games, seed, device, max_moves)


def gdl_net_score(net, game, opponent: str, games: int, seed: int = 0, device="cpu", max_moves: int = 1000) -> float:
    """The network's mean score (win 1, draw 0.5, loss 0) playing alone (its legal id of the
    largest logit) against random play, in ``games`` games played together, the first role in
    the first half."""
    if opponent != "random":
        raise ValueError(f"a GDL network is measured against random play, not {opponent!r}")
    game = two_role_game(game)
    batch = GDLVectorGames(game, games, auto_reset=False, max_steps=max_moves)
    batch.reset()
    net_role = (np.arange(games) >= (games + 1) // 2).astype(np.int64)
    score = np.zeros(games)
    rows = np.arange(games)
    t = 0
    while not batch.over.all():
        mover = batch.to_play
        actions = batch.random_actions(seed=(seed * 1_000_003 + t) % 2**63)[rows, np.maximum(mover, 0)]
        mine = ~batch.over & (mover == net_role)
        if mine.any():
            with torch.no_grad():
                logits, _ = net(torch.as_tensor(batch.observe()[mine], device=device))
            logits = logits[:, 0].float().cpu().numpy()
            masks = batch.action_masks()[mine][:, : logits.shape[1]]
            actions[mine] = np.where(masks > 0, logits, -np.inf).argmax(1)
        r = batch.step(actions)
        for g in np.flatnonzero(r.finished):
            o = 0.0 if r.truncated[g] else float(np.sign(r.final_goals[g, 0] - r.final_goals[g, 1]))
            score[g] = ((o if net_role[g] == 0 else -o) + 1) / 2
        t += 1
    return float(score.mean())
