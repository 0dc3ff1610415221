"""Distributed training on Ray RLlib: the adapter, and the example on a real two-node cluster.

The cluster tests start a Ray head and one worker node on loopback with ``ray start`` (1
CPU each, a temp dir of their own, a token of their own), check that both nodes are
alive, run ``examples/rllib_selfplay.py --address`` as a user would (a driver process
joining the cluster; one EnvRunner on each node, the learner in the driver) for one or
two iterations, and stop the cluster whatever happened: by process group and pid, never
with ``ray stop``, which would stop every Ray process on the machine.

Needs the ``distributed`` extra; without ray these tests fail (they are not skipped).
"""

from __future__ import annotations

import ctypes
import importlib.util
import json
import math
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest

from ggpzoo.envs import ENVS

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "rllib_selfplay.py"
SMALL_ENV = "skirmish_endgame_v0"

try:
    import ray.rllib  # noqa: F401

    RAY_ERROR = None
except ImportError as e:  # pragma: no cover - CI installs the extra
    RAY_ERROR = e


def require_ray():
    if RAY_ERROR is not None:
        pytest.fail(
            f"ray[rllib] cannot be imported ({RAY_ERROR}); the RLlib tests need the distributed "
            f'extra: pip install -e ".[distributed]"',
            pytrace=False,
        )


def load_example():
    spec = importlib.util.spec_from_file_location("rllib_selfplay", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# ---------------------------------------------------------------------------- the adapter
@pytest.mark.parametrize("name", sorted(ENVS))
def test_rllib_env_plays_masked_games(name):
    """RLlib's PettingZooEnv over every env: the renamed, float32 observations stay in their
    space, only the seat to move gets an observation, and masked random games end with
    zero-sum rewards to both seats."""
    require_ray()
    from ggpzoo.training.rllib import rllib_env

    env = rllib_env({"env": name, "max_steps": 40})
    rng = np.random.default_rng(0)
    for _ in range(2):
        obs, _ = env.reset()
        steps = 0
        while True:
            ((agent, o),) = obs.items()
            space = env.observation_spaces[agent]
            assert set(o) == {"observations", "action_mask"}
            assert o["observations"].dtype == np.float32 and space.contains(o), name
            action = int(rng.choice(np.flatnonzero(o["action_mask"])))
            obs, rewards, terminated, truncated, _ = env.step({agent: action})
            steps += 1
            if terminated["__all__"] or truncated["__all__"]:
                break
            assert len(obs) == 1
        assert set(rewards) == {"white", "black"} and rewards["white"] == -rewards["black"]
        assert steps <= 40


def test_rllib_env_illegal_moves():
    require_ray()
    from ggpzoo.training.rllib import rllib_env

    strict = rllib_env({"env": SMALL_ENV})
    obs, _ = strict.reset()
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="illegal"):
        strict.step({agent: illegal})

    lenient = rllib_env({"env": SMALL_ENV, "illegal_moves": "lose"})
    lenient.reset()
    _, rewards, terminated, _, _ = lenient.step({agent: illegal})  # PettingZoo logs a warning
    assert terminated["__all__"] and rewards[agent] == -1

    with pytest.raises(ValueError, match="illegal_moves"):
        rllib_env({"env": SMALL_ENV, "illegal_moves": "ignore"})


def test_policy_mappings():
    from ggpzoo.training.rllib import SHARED_POLICY, seat_policy_mapping, shared_policy_mapping

    assert shared_policy_mapping("white") == shared_policy_mapping("black") == SHARED_POLICY
    assert seat_policy_mapping("white") == "white" and seat_policy_mapping("black") == "black"
    with pytest.raises(ValueError):
        seat_policy_mapping("red")


def test_example_help():
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), "--help"], capture_output=True, text=True, timeout=120, check=True
    ).stdout
    for flag in ("--env", "--address", "--iterations", "--shared-policy", "--separate-policies"):
        assert flag in out


def test_example_rejects_bad_arguments():
    ex = load_example()
    with pytest.raises(SystemExit):
        ex.parse_args(["--conv-filters", "32"])
    with pytest.raises(SystemExit):
        ex.parse_args(["--iterations", "0"])
    args = ex.parse_args(["--separate-policies", "--conv-filters", "16x3,8x1"])
    assert not args.shared_policy and args.conv_filter_spec == [[16, [3, 3], 1], [8, [1, 1], 1]]


# ---------------------------------------------------------------------------- the cluster
# Ray rewrites 127.0.0.1 and localhost, as a node IP or in an address, to the machine's
# routable IP. To keep every packet on loopback the cluster lives at 127.0.0.2 (loopback
# too, and left alone by Ray).
LOOPBACK = "127.0.0.2"


def _free_port() -> int:
    """A TCP port free on every interface (Ray's GCS listens on all of them)."""
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


def _ray_cli() -> list[str]:
    exe = Path(sys.executable).parent / "ray"
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-c", "import sys; from ray.scripts.scripts import main; sys.exit(main())"]


_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded here, not in the forked child
_PR_SET_PDEATHSIG = 1


def _term_with_parent() -> None:
    """In the child: get SIGTERM if pytest dies, so a killed test run stops its cluster too."""
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


class Node:
    """One ``ray start --block`` in a process group of its own."""

    def __init__(self, name: str, args: list[str], temp_dir: Path, env: dict):
        self.name = name
        self.log = temp_dir / f"{name}.log"
        node_dir = temp_dir / name
        node_dir.mkdir()
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                _ray_cli() + ["start", "--block", f"--temp-dir={node_dir}", "--disable-usage-stats"] + args,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env=env,
                start_new_session=True,  # its own process group, which the teardown signals
                preexec_fn=_term_with_parent,  # noqa: PLW1509 (no threads of ours run here yet)
            )

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_started(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if "Ray runtime started" in self.text():
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.5)
        raise RuntimeError(f"ray {self.name} node did not start (exit {self.proc.poll()}):\n{self.text()[-3000:]}")

    def stop(self, grace: float) -> None:
        """SIGTERM the node's process group; SIGKILL it if it is not gone after ``grace`` s."""
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=grace)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=30)


def _our_processes(marker: str) -> list[int]:
    """The pids whose environment holds ``marker`` (the cluster's processes carry it; Ray's
    workers start sessions of their own, so the process groups do not cover them)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                if marker.encode() in (entry / "environ").read_bytes().split(b"\0"):
                    pids.append(int(entry.name))
            except OSError:
                pass
    return pids


def _kill_leftovers(marker: str) -> None:
    deadline = time.monotonic() + 15
    while _our_processes(marker) and time.monotonic() < deadline:
        time.sleep(1)  # Ray's workers exit on their own once their raylet is gone
    for pid in _our_processes(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@pytest.fixture(scope="module")
def ray_cluster():
    """A head and a worker node on loopback, 1 CPU each.

    Yields ``(address, env)``: the head's address and the environment a driver needs
    (the cluster's token).
    """
    require_ray()
    # Short path: Ray's Unix sockets live under it (the limit is 107 bytes).
    temp_dir = Path(tempfile.mkdtemp(prefix="ggpzray", dir="/tmp"))
    port = _free_port()
    address = f"{LOOPBACK}:{port}"
    marker = f"GGPZOO_TEST_RAY_CLUSTER={temp_dir.name}"
    # Token authentication as on a real cluster: the same token on every node and the
    # driver; here one made for this cluster alone (not ~/.ray/auth_token).
    env = {
        **os.environ,
        "RAY_AUTH_MODE": "token",
        "RAY_AUTH_TOKEN": secrets.token_hex(32),
        "RAY_USAGE_STATS_ENABLED": "0",
        "GGPZOO_TEST_RAY_CLUSTER": temp_dir.name,
    }
    env.pop("RAY_ADDRESS", None)
    small = ["--num-cpus=1", "--num-gpus=0", "--object-store-memory=200000000", f"--node-ip-address={LOOPBACK}"]
    nodes = []
    try:
        head = Node("head", ["--head", f"--port={port}", "--include-dashboard=false"] + small, temp_dir, env)
        nodes.append(head)
        head.wait_started(120)
        worker = Node("worker", [f"--address={address}"] + small, temp_dir, env)
        nodes.append(worker)
        worker.wait_started(120)
        alive = _alive_nodes(address, env)
        assert len(alive) == 2, f"expected 2 live nodes, got {alive}"
        assert {n["NodeManagerAddress"] for n in alive} == {LOOPBACK}
        assert sum(n["Resources"].get("CPU", 0) for n in alive) == 2
        yield address, env
    finally:
        for node in reversed(nodes):  # the worker node first
            node.stop(grace=5)
        _kill_leftovers(marker)
        shutil.rmtree(temp_dir, ignore_errors=True)


_NODES_SCRIPT = """
import json, sys, time
import ray
ray.init(address=sys.argv[1], log_to_driver=False)
deadline = time.monotonic() + 60
while True:
    alive = [n for n in ray.nodes() if n["Alive"]]
    if len(alive) >= 2 or time.monotonic() > deadline:
        break
    time.sleep(0.5)
print("NODES=" + json.dumps([{k: n[k] for k in ("NodeID", "NodeManagerAddress", "Resources")} for n in alive]))
ray.shutdown()
"""


def _alive_nodes(address: str, env: dict) -> list[dict]:
    """The cluster's live nodes, as a separate driver sees them."""
    proc = subprocess.run(
        [sys.executable, "-c", _NODES_SCRIPT, address],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    lines = [line for line in proc.stdout.splitlines() if line.startswith("NODES=")]
    assert proc.returncode == 0 and lines, f"could not list the nodes:\n{proc.stdout[-2000:]}\n{proc.stderr[-3000:]}"
    return json.loads(lines[-1][len("NODES=") :])


def _train(cluster, tmp_path, *extra: str) -> tuple[dict, list[str]]:
    """Run the example as a user would, as a driver joining the cluster with --address."""
    address, env = cluster
    out = tmp_path / "run.json"
    cmd = [
        sys.executable, str(EXAMPLE),
        "--env", SMALL_ENV,
        "--address", address,
        "--num-env-runners", "2",  # 1 CPU each: one runs on each node
        "--num-envs-per-env-runner", "2",  # 100 steps per game slot per iteration: games end
        "--train-batch-size", "400",
        "--minibatch-size", "100",
        "--num-epochs", "1",
        "--conv-filters", "16x3,16x3",
        "--hiddens", "64",
        "--json-out", str(out),
        *extra,
    ]  # fmt: skip
    proc = subprocess.run(cmd, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False)
    print(proc.stdout)
    assert proc.returncode == 0, f"the example failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-6000:]}"
    lines = [line for line in proc.stdout.splitlines() if line.startswith(("Ray ", "PPO ", "iter "))]
    return json.loads(out.read_text()), lines


def _check_run(run: dict, lines: list[str], policies: list[str], iterations: int) -> None:
    assert len(run["iterations"]) == iterations
    assert lines[0].startswith("Ray ") and "2 node(s) alive" in lines[0], lines
    assert len([line for line in lines if line.startswith("iter ")]) == iterations, lines
    # One EnvRunner on each node: sampling really ran on both.
    assert len(run["env_runner_nodes"]) == 2 and len(set(run["env_runner_nodes"])) == 2, run
    # Action masking holds: with illegal_moves="raise" (the default) a single illegal move
    # would have failed an EnvRunner, which RLlib would have restarted.
    assert run["healthy_env_runners"] == 2 and run["env_runner_restarts"] == 0, run
    for s in run["iterations"]:
        assert s["env_steps"] >= 400
        assert s["episodes"] >= 1, s  # skirmish_endgame_v0 games last at most 59 actions
        assert 1 <= s["episode_len_mean"] <= 59
        assert set(s["policy_loss"]) == set(policies)
        for p in policies:
            assert math.isfinite(s["policy_loss"][p]), s
            assert math.isfinite(s["vf_loss"][p]) and math.isfinite(s["total_loss"][p]), s
        for agent in ("white", "black"):
            assert -1 <= s["return_mean"][agent] <= 1
        assert s["env_steps_per_s"] > 0
    assert run["iterations"][-1]["episodes_lifetime"] == sum(s["episodes"] for s in run["iterations"])


@pytest.mark.slow
def test_selfplay_on_two_node_cluster(ray_cluster, tmp_path):
    run, lines = _train(ray_cluster, tmp_path, "--iterations", "2", "--shared-policy")
    _check_run(run, lines, ["shared"], 2)


@pytest.mark.slow
def test_separate_policies_on_two_node_cluster(ray_cluster, tmp_path):
    run, lines = _train(ray_cluster, tmp_path, "--iterations", "1", "--separate-policies")
    _check_run(run, lines, ["white", "black"], 1)
