"""Gumbel AlphaZero for the ggpzoo games: the network and its files
(`net`) and self-play training (`train`);
the search itself is `ggpzoo.agents.gumbel`.

    python -m ggpzoo.training.az --env skirmish_v0 --minutes 60 --out runs/az/skirmish_v0

Needs torch (the ``train`` extra).
"""

from ggpzoo.training.az.net import AZNet, load_model, save_model
from ggpzoo.training.az.train import AZConfig, train

__all__ = ["AZNet", "AZConfig", "train", "save_model", "load_model"]
