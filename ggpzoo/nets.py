"""A convolutional feature extractor for SB3 policies on ggpzoo boards (needs the ``train`` extra).

* :class:`BoardCNN` - 3x3 convolutions over the ``(H, W, planes)`` observation, then one
  linear layer: the same weights look at every cell, so what the policy learns about one
  part of the board carries over to the rest (an MLP learns each cell apart).

>>> from sb3_contrib import MaskablePPO                                      # doctest: +SKIP
>>> from ggpzoo.nets import BoardCNN                                         # doctest: +SKIP
>>> MaskablePPO("MlpPolicy", env, policy_kwargs={"features_extractor_class": BoardCNN,
...                                              "net_arch": [256]})          # doctest: +SKIP

It lives in the package, not in an example, so that a saved model (which names the class)
loads anywhere ggpzoo is installed.
"""

from __future__ import annotations

import gymnasium as gym
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

__all__ = ["BoardCNN"]


class BoardCNN(BaseFeaturesExtractor):
    """``layers`` 3x3 convolutions (``channels`` each, padding 1, ReLU), then ``Linear -> features_dim``.

    Args:
        observation_space: a ``Box`` of shape ``(H, W, planes)`` (a ggpzoo observation).
        channels: channels of every convolution.
        layers: how many convolutions.
        features_dim: size of the output features.
    """

    def __init__(self, observation_space: gym.spaces.Box, channels: int = 32, layers: int = 2, features_dim: int = 256):
        if len(observation_space.shape) != 3:
            raise ValueError(f"BoardCNN needs (H, W, planes) observations, got shape {observation_space.shape}")
        if channels < 1 or layers < 1 or features_dim < 1:
            raise ValueError(f"channels, layers and features_dim must be at least 1, got {channels}, {layers}, {features_dim}")
        super().__init__(observation_space, features_dim)
        h, w, planes = observation_space.shape
        convs: list[nn.Module] = []
        for i in range(layers):
            convs += [nn.Conv2d(planes if i == 0 else channels, channels, 3, padding=1), nn.ReLU()]
        self.cnn = nn.Sequential(*convs, nn.Flatten())
        self.linear = nn.Sequential(nn.Linear(channels * h * w, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.cnn(observations.permute(0, 3, 1, 2).float()))
