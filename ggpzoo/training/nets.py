"""Convolutional networks for SB3 policies on ggpzoo boards (need the ``train`` extra).

* [`BoardCNN`][ggpzoo.training.nets.BoardCNN] - a features extractor: 3x3 convolutions over the ``(H, W, planes)``
  observation, then one linear layer. The same weights look at every cell, so what the
  policy learns about one part of the board carries over to the rest (an MLP learns each
  cell apart).
* [`CellPolicy`][ggpzoo.training.nets.CellPolicy] - a ``MaskablePPO`` policy for one action per cell (the turn
  decompositions of [`ggpzoo.wrappers.turns`][ggpzoo.wrappers.turns]): 3x3 convolutions, then the logit of each
  cell from the features at that cell (a shared 1x1 convolution), and the value from all
  of them. A good cell is recognised wherever it is on the board.

>>> from sb3_contrib import MaskablePPO                                      # doctest: +SKIP
>>> from ggpzoo.training.single_agent import SingleAgentEnv                           # doctest: +SKIP
>>> env = SingleAgentEnv("amazons_v0", shaping=1.0, reach_planes=True)       # doctest: +SKIP
>>> MaskablePPO(CellPolicy, env).learn(10_000)                               # doctest: +SKIP

They live in the package, not in an example, so that a saved model (which names the class)
loads anywhere ggpzoo is installed.
"""

from __future__ import annotations

from functools import partial

import gymnasium as gym
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

__all__ = ["BoardCNN", "ConvTrunk", "CellPolicy"]


def _convolutions(planes: int, channels: int, layers: int) -> list[nn.Module]:
    if channels < 1 or layers < 1:
        raise ValueError(f"channels and layers must be at least 1, got {channels} and {layers}")
    convs: list[nn.Module] = []
    for i in range(layers):
        convs += [nn.Conv2d(planes if i == 0 else channels, channels, 3, padding=1), nn.ReLU()]
    return convs


def _board_shape(observation_space: gym.spaces.Box, who: str) -> tuple[int, int, int]:
    if len(observation_space.shape) != 3:
        raise ValueError(f"{who} needs (H, W, planes) observations, got shape {observation_space.shape}")
    return observation_space.shape


class BoardCNN(BaseFeaturesExtractor):
    """``layers`` 3x3 convolutions (``channels`` each, padding 1, ReLU), then ``Linear -> features_dim``.

    Args:
        observation_space: a ``Box`` of shape ``(H, W, planes)`` (a ggpzoo observation).
        channels: channels of every convolution.
        layers: how many convolutions.
        features_dim: size of the output features.
    """

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 32, layers: int = 2, features_dim: int = 256):
        h, w, planes = _board_shape(observation_space, "BoardCNN")
        if features_dim < 1:
            raise ValueError(f"features_dim must be at least 1, got {features_dim}")
        super().__init__(observation_space, features_dim)
        self.cnn = nn.Sequential(*_convolutions(planes, channels, layers), nn.Flatten())
        self.linear = nn.Sequential(nn.Linear(channels * h * w, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.cnn(observations.permute(0, 3, 1, 2).float()))


class ConvTrunk(BaseFeaturesExtractor):
    """``layers`` 3x3 convolutions (``channels`` each, padding 1, ReLU); the features are the
    last feature map, flattened channel-major: ``channels * H * W`` numbers."""

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 32, layers: int = 3):
        h, w, planes = _board_shape(observation_space, "ConvTrunk")
        super().__init__(observation_space, channels * h * w)
        self.shape = (channels, h, w)
        self.cnn = nn.Sequential(*_convolutions(planes, channels, layers), nn.Flatten())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.cnn(observations.permute(0, 3, 1, 2).float())


class _CellHeads(nn.Module):
    """The policy and value heads on a `ConvTrunk`'s features (SB3's ``mlp_extractor``).

    One logit per cell; with ``pairs``, one per (source, destination) pair of cells:
    ``source[s] + destination[d] + u[s] . v[d]``, each term from the cells' own features
    through shared 1x1 convolutions (``u``, ``v``: ``rank`` numbers per cell).
    """

    def __init__(self, shape: tuple[int, int, int], value_hidden: int, pairs: bool = False, rank: int = 8):
        super().__init__()
        self.shape = shape
        channels, h, w = shape
        self.pairs = pairs
        self.latent_dim_pi = (h * w) ** 2 if pairs else h * w
        self.latent_dim_vf = value_hidden
        self.cell_logit = nn.Conv2d(channels, 2 if pairs else 1, 1)
        if pairs:
            self.rank = rank
            self.embed = nn.Conv2d(channels, 2 * rank, 1)
        self.value = nn.Sequential(nn.Linear(channels * h * w, value_hidden), nn.ReLU())

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        maps = features.view(-1, *self.shape)
        logits = self.cell_logit(maps).flatten(2)  # (n, 1 or 2, cells)
        if not self.pairs:
            return logits[:, 0]
        emb = self.embed(maps).flatten(2)  # (n, 2 * rank, cells)
        u, v = emb[:, : self.rank], emb[:, self.rank :]
        pair = logits[:, 0, :, None] + logits[:, 1, None, :] + torch.bmm(u.transpose(1, 2), v)
        return pair.flatten(1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value(features)

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class CellPolicy(MaskableActorCriticPolicy):
    """``MaskablePPO`` policy for ``Discrete(H * W)`` actions, one per cell, or for from/to
    actions ``Discrete((H * W) ** 2)``, on ``(H, W, planes)`` boards.

    A [`ConvTrunk`][ggpzoo.training.nets.ConvTrunk], then each cell's logit from that cell's features through one shared
    1x1 convolution (no dense layer between the board and the logits), and the value from
    ``Linear(features -> value_hidden) -> ReLU -> Linear(1)``. Use it through a turn
    decomposition (`AmazonsTurnDecomposition`,
    [`MoveDecomposition`][ggpzoo.wrappers.MoveDecomposition]), or on the env's own from/to actions
    ``src * cells + dst``: then the logit of a pair is a source term plus a destination
    term plus a rank-8 product of the two cells' embeddings, all from shared 1x1
    convolutions (what is learnt about one cell carries over to every other).

    Args:
        observation_space, action_space, lr_schedule: as for any SB3 policy.
        channels, layers: the trunk's size.
        value_hidden: the value head's hidden units.
        **kwargs: the rest of ``MaskableActorCriticPolicy``'s arguments (``net_arch`` and the
            features extractor are this policy's own).
    """

    def __init__(
        self,
        observation_space,
        action_space,
        lr_schedule,
        channels: int = 32,
        layers: int = 3,
        value_hidden: int = 64,
        **kwargs,
    ):
        h, w, _ = _board_shape(observation_space, "CellPolicy")
        if not isinstance(action_space, gym.spaces.Discrete) or action_space.n not in (h * w, (h * w) ** 2):
            raise ValueError(
                f"CellPolicy needs Discrete({h * w}) actions (one per cell) or Discrete({(h * w) ** 2}) "
                f"(from/to pairs); got {action_space}"
            )
        self.pairs = action_space.n == (h * w) ** 2
        if value_hidden < 1:
            raise ValueError(f"value_hidden must be at least 1, got {value_hidden}")
        self.value_hidden = value_hidden
        kwargs |= {
            "features_extractor_class": ConvTrunk,
            "features_extractor_kwargs": {"channels": channels, "layers": layers},
            "share_features_extractor": True,
        }
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = _CellHeads(self.features_extractor.shape, self.value_hidden, pairs=self.pairs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        # the logits are the cell logits themselves: no dense layer after them, and (as SB3
        # does for its action layer) a small start, so the first policy is near uniform
        self.action_net = nn.Identity()
        self.mlp_extractor.cell_logit.apply(partial(self.init_weights, gain=0.01))
        if self.pairs:
            self.mlp_extractor.embed.apply(partial(self.init_weights, gain=0.01))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data.update(
            channels=self.features_extractor_kwargs["channels"],
            layers=self.features_extractor_kwargs["layers"],
            value_hidden=self.value_hidden,
        )
        for key in ("features_extractor_class", "features_extractor_kwargs", "share_features_extractor"):
            data.pop(key, None)
        return data
