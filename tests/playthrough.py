"""Playthrough golden files: one seeded random game per env, every step written out.

Each file (``tests/playthroughs/<env>.txt``) holds, before every action and at the end: the
board text, the agent to act, the legal actions (ids and strings; large sets as a count,
their first and last few and a digest), a digest of each agent's observation, the goals
and the rewards; then the action played. ``tests/test_playthroughs.py`` plays each game
again and compares the text line for line, so any change to rules, action ids,
observations or rewards shows up as a diff (OpenSpiel's integration_tests/playthroughs are
the model).

Regenerate them all after an intended change (and read the diff):

    python tests/playthrough.py
"""

from __future__ import annotations

import hashlib
import pathlib
import sys

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
FOLDER = HERE / "playthroughs"
SEED = 2026
LISTED = 40  # legal sets up to this size are written out whole


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:16]


def playthrough(name: str, seed: int = SEED) -> str:
    """The playthrough text of env ``name``: a random game with ``np.random.default_rng(seed)``."""
    from ggpzoo.envs import load

    env = load(name).raw_env(render_mode="ansi")
    env.reset()
    rng = np.random.default_rng(seed)
    lines = [
        f"# ggpzoo playthrough: {name}, random legal actions, seed {seed}",
        "# regenerate with: python tests/playthrough.py",
        "",
    ]
    step = 0
    while True:
        lines.append(f"step {step}")
        lines += ["  " + row for row in env.render().splitlines()]
        over = env.is_game_over()
        lines.append(f"to act: {'(game over)' if over else env.agent_selection}")
        legal = env.legal_actions()
        ids = [int(a) for a in legal]
        if len(ids) <= LISTED:
            lines.append(f"legal ({len(ids)}): " + ", ".join(f"{a}={env.action_to_string(a)}" for a in ids))
        else:
            head = ", ".join(f"{a}={env.action_to_string(a)}" for a in ids[:4])
            tail = ", ".join(f"{a}={env.action_to_string(a)}" for a in ids[-2:])
            lines.append(
                f"legal ({len(ids)}, ids digest {_digest(legal.astype(np.int64).tobytes())}): {head}, ..., {tail}"
            )
        for agent in env.possible_agents:
            obs = env.observe(agent)
            o, m = obs["observation"], obs["action_mask"]
            lines.append(
                f"obs[{agent}]: {o.dtype}{list(o.shape)} {_digest(o.tobytes())}, "
                f"mask {int(m.sum())} set {_digest(m.tobytes())}"
            )
        goals = ", ".join(f"{a} {env.infos[a]['goal']}" for a in env.possible_agents)
        rewards = ", ".join(f"{a} {env.rewards[a]:+.1f}" for a in env.possible_agents)
        lines.append(f"goals: {goals}; rewards: {rewards}")
        if over:
            outcome = env.outcome()
            lines.append(f"outcome: winner {outcome.winner}, by {outcome.termination}, after {outcome.steps} actions")
            break
        action = ids[int(rng.integers(len(ids)))]
        lines.append(f"action: {action}={env.action_to_string(action)}")
        lines.append("")
        env.step(action)
        step += 1
    return "\n".join(lines) + "\n"


def path(name: str) -> pathlib.Path:
    return FOLDER / f"{name}.txt"


def main() -> int:
    from ggpzoo.envs import SPECS

    FOLDER.mkdir(exist_ok=True)
    for name in SPECS:
        path(name).write_text(playthrough(name))
        print(f"wrote {path(name).relative_to(HERE.parent)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
