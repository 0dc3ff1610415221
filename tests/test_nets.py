"""BoardCNN: the convolutional feature extractor for SB3 policies on ggpzoo boards."""

import numpy as np
import pytest
import torch
from gymnasium import spaces

from ggpzoo.training.nets import BoardCNN


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
    with pytest.raises(ValueError, match="at least 1"):
        BoardCNN(spaces.Box(0, 1, (8, 8, 3), np.int8), features_dim=0)


def test_cell_policy_logits_are_per_cell_and_translation_equivariant():
    """One shared 1x1 convolution gives each cell's logit from the trunk's features at that cell:
    a pattern away from the edges scores the same wherever it stands."""
    from ggpzoo.training.nets import CellPolicy

    space = spaces.Box(0, 1, (10, 10, 3), np.int8)
    policy = CellPolicy(space, spaces.Discrete(100), lambda _: 3e-4, channels=8, layers=2)
    assert isinstance(policy.action_net, torch.nn.Identity) and policy.mlp_extractor.latent_dim_pi == 100
    obs = torch.zeros((2, 10, 10, 3))
    obs[0, 3, 3, 0] = 1  # the same piece, shifted by (2, 2)
    obs[1, 5, 5, 0] = 1
    with torch.no_grad():
        features = policy.extract_features(obs, policy.pi_features_extractor)
        logits = policy.action_net(policy.mlp_extractor.forward_actor(features)).view(2, 10, 10)
        values = policy.value_net(policy.mlp_extractor.forward_critic(features))
    assert torch.allclose(logits[0, 1:7, 1:7], logits[1, 3:9, 3:9], atol=1e-6)
    assert values.shape == (2, 1)


def test_cell_policy_trains_saves_and_loads(tmp_path):
    from sb3_contrib import MaskablePPO

    from ggpzoo.training.nets import CellPolicy
    from ggpzoo.training.single_agent import SingleAgentEnv

    env = SingleAgentEnv("mad_bishops_v0", decompose=True, shaping=1.0, reach_planes=True)
    model = MaskablePPO(
        CellPolicy,
        env,
        n_steps=32,
        batch_size=32,
        n_epochs=1,
        seed=0,
        device="cpu",
        policy_kwargs={"channels": 4, "layers": 1, "value_hidden": 8},
    )
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(64)
    assert any(not torch.equal(a, b) for a, b in zip(before, model.policy.parameters(), strict=True))
    model.save(tmp_path / "cell.zip")
    loaded = MaskablePPO.load(tmp_path / "cell.zip", device="cpu")
    assert isinstance(loaded.policy, CellPolicy) and loaded.policy.value_hidden == 8
    obs, _ = env.reset(seed=0)
    mask = env.action_masks()
    a, _ = model.predict(obs, action_masks=mask, deterministic=True)
    b, _ = loaded.predict(obs, action_masks=mask, deterministic=True)
    assert int(a) == int(b) and mask[int(a)]


def test_cell_policy_needs_one_action_per_cell_or_pair():
    from ggpzoo.training.nets import CellPolicy

    with pytest.raises(ValueError, match=r"Discrete\(100\) actions \(one per cell\) or Discrete\(10000\)"):
        CellPolicy(spaces.Box(0, 1, (10, 10, 3), np.int8), spaces.Discrete(500), lambda _: 3e-4)


def test_cell_policy_on_from_to_pairs():
    """On Discrete(cells ** 2) the logit of (s, d) is source[s] + destination[d] + u[s] . v[d],
    from shared 1x1 convolutions: checked against the terms computed by hand."""
    from sb3_contrib import MaskablePPO

    from ggpzoo.training.nets import CellPolicy
    from ggpzoo.training.selfplay import SelfPlayVecEnv

    env = SelfPlayVecEnv("skirmish_endgame_v0", num_envs=4, reward="delta_zero_sum", reach_planes=True, seed=0)
    model = MaskablePPO(
        CellPolicy, env, n_steps=16, batch_size=64, n_epochs=1, seed=0, device="cpu", policy_kwargs={"channels": 4}
    )
    policy = model.policy
    heads = policy.mlp_extractor
    assert policy.pairs and heads.latent_dim_pi == 4096
    obs = torch.as_tensor(env.reset())
    with torch.no_grad():
        features = policy.extract_features(obs, policy.pi_features_extractor)
        logits = policy.action_net(heads.forward_actor(features))
        maps = features.view(-1, *heads.shape)
        terms = heads.cell_logit(maps).flatten(2)
        emb = heads.embed(maps).flatten(2)
        u, v = emb[:, : heads.rank], emb[:, heads.rank :]
    assert logits.shape == (4, 4096)
    for s, d in [(8, 16), (63, 0), (9, 9)]:
        expected = terms[:, 0, s] + terms[:, 1, d] + (u[:, :, s] * v[:, :, d]).sum(1)
        assert torch.allclose(logits[:, s * 64 + d], expected, atol=1e-6)
    model.learn(64)
    masks = env.action_masks()
    a, _ = model.predict(env.games.observe(), action_masks=masks, deterministic=True)
    assert all(masks[i, int(x)] for i, x in enumerate(a))
