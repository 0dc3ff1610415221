"""BoardCNN: the convolutional feature extractor for SB3 policies on ggpzoo boards."""

import numpy as np
import pytest
import torch
from gymnasium import spaces

from ggpzoo.nets import BoardCNN


def test_shapes_and_weight_sharing():
    space = spaces.Box(0, 1, (10, 10, 5), np.int8)
    net = BoardCNN(space, channels=8, layers=2, features_dim=16)
    assert net.features_dim == 16
    obs = torch.zeros((3, 10, 10, 5))
    obs[0, 2, 3, 0] = 1
    out = net(obs)
    assert out.shape == (3, 16) and torch.all(out >= 0)
    assert torch.equal(out[1], out[2]) and not torch.equal(out[0], out[1])  # it sees the piece
    convs = [m for m in net.cnn if isinstance(m, torch.nn.Conv2d)]
    assert [c.in_channels for c in convs] == [5, 8] and all(c.kernel_size == (3, 3) for c in convs)


def test_bad_arguments():
    with pytest.raises(ValueError, match=r"\(H, W, planes\) observations, got shape \(100,\)"):
        BoardCNN(spaces.Box(0, 1, (100,), np.int8))
    with pytest.raises(ValueError, match="at least 1"):
        BoardCNN(spaces.Box(0, 1, (8, 8, 3), np.int8), channels=0)
