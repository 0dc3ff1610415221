"""Bad files and output folders: a damaged checkpoint or replay buffer on --resume, an output
folder that cannot be made, weights files that declare more than they hold. Each is refused in
one line naming the file, before anything is built, loaded halfway or written."""

import os

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from ggpzoo.training.az.__main__ import main as az_main  # noqa: E402
from ggpzoo.training.az.train import AZConfig, ReplayBuffer, train  # noqa: E402

CONFIG = dict(
    env="skirmish_endgame_v0", simulations=4, games=4, channels=8, blocks=1, batch_size=32,
    min_buffer=16, max_moves=12, eval_games=2, checkpoint_minutes=1, eval_minutes=1,
)  # fmt: skip


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A finished short AlphaZero run: checkpoint.pt, buffer.npz, model.json + .pt."""
    base = tmp_path_factory.mktemp("az")
    train(AZConfig(**CONFIG), minutes=0.001, out=str(base / "warm"), progress=False)  # numba compiles first
    out = str(base / "run")
    assert train(AZConfig(**CONFIG), minutes=0.05, out=out, progress=False)["positions"] > 0
    return out


def _copy(run, tmp_path):
    import shutil

    out = str(tmp_path / "copy")
    shutil.copytree(run, out)
    return out


def _resume(out, capsys):
    argv = ["--env", CONFIG["env"], "--minutes", "0.01", "--out", out, "--resume", "--quiet", "--channels", "8"]
    argv += ["--blocks", "1", "--simulations", "4", "--games", "4"]
    code = az_main(argv)
    return code, capsys.readouterr().err


@pytest.mark.parametrize("damage", ["garbage", "truncated", "empty", "not_a_checkpoint"])
def test_resume_from_a_damaged_checkpoint_is_one_line_naming_it(run, tmp_path, capsys, damage):
    out = _copy(run, tmp_path)
    path = os.path.join(out, "checkpoint.pt")
    data = open(path, "rb").read()
    if damage == "garbage":
        data = b"\x80\x02garbage" * 100
    elif damage == "truncated":
        data = data[: len(data) // 2]
    elif damage == "empty":
        data = b""
    if damage == "not_a_checkpoint":
        torch.save({"model": [1, 2], "config": "{}"}, path)
    else:
        open(path, "wb").write(data)
    before = {f: os.path.getmtime(os.path.join(out, f)) for f in os.listdir(out)}
    code, err = _resume(out, capsys)
    assert code == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert path in err and "checkpoint" in err
    assert {f: os.path.getmtime(os.path.join(out, f)) for f in os.listdir(out)} == before  # nothing written


@pytest.mark.parametrize("damage", ["truncated", "garbage", "wrong_dtype", "bad_next"])
def test_resume_from_a_damaged_buffer_is_one_line_naming_it(run, tmp_path, capsys, damage):
    out = _copy(run, tmp_path)
    path = os.path.join(out, "buffer.npz")
    if damage in ("truncated", "garbage"):
        data = open(path, "rb").read()
        open(path, "wb").write(data[: len(data) * 2 // 3] if damage == "truncated" else b"PK\x03\x04" + data[100:])
    else:
        with np.load(path) as f:
            arrays = dict(f)
        if damage == "wrong_dtype":
            arrays["obs"] = arrays["obs"].astype("U1")
        else:
            arrays["lengths"] = -arrays["lengths"]
        np.savez(path, **arrays)
    code, err = _resume(out, capsys)
    assert code == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert path in err


def test_a_damaged_buffer_leaves_the_buffer_as_it_was(run, tmp_path):
    from ggpzoo.envs import spec

    s = spec(CONFIG["env"])
    buffer = ReplayBuffer(1000, s.obs_shape, s.obs_dtype)
    buffer.load(os.path.join(run, "buffer.npz"))
    size, obs = len(buffer), buffer.obs.copy()
    bad = str(tmp_path / "bad.npz")
    data = open(os.path.join(run, "buffer.npz"), "rb").read()
    open(bad, "wb").write(data[: len(data) // 2])
    with pytest.raises(ValueError, match="bad.npz"):
        buffer.load(bad)
    assert len(buffer) == size and np.array_equal(buffer.obs, obs)


@pytest.mark.parametrize("out", ["/proc/x", "/proc/x/y", "FILE"])
def test_az_refuses_an_output_folder_it_cannot_make_before_any_work(tmp_path, capsys, out):
    if out == "FILE":
        out = str(tmp_path / "a_file")
        open(out, "w").close()
    code = az_main(["--env", CONFIG["env"], "--minutes", "0.01", "--out", out, "--quiet"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert out in err and "output folder" in err
    assert not os.path.exists(os.path.join(str(tmp_path), "nothing_made"))


def test_train_refuses_an_output_folder_it_cannot_make(capsys):
    from ggpzoo.tools.cli import main

    code = main(["train", "--env", "skirmish_endgame_v0", "--minutes", "0.01", "--out", "/proc/x"])
    err = capsys.readouterr().err
    assert code == 2
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "/proc/x" in err


# ----------------------------------------------------------------------------- weights files
def _baseline_copy(tmp_path, **arguments):
    """The shipped skirmish network's files in ``tmp_path``, its description's arguments updated."""
    import json
    import shutil

    from ggpzoo.baselines import baseline_path

    src = baseline_path("skirmish_v0")
    d = json.load(open(src))
    d["arguments"].update(arguments)
    path = str(tmp_path / "net.json")
    json.dump(d | {"weights": "net.pt"}, open(path, "w"))
    shutil.copy(src[: -len(".json")] + ".pt", tmp_path / "net.pt")
    return path, str(tmp_path / "net.pt")


PEAK = """
import resource, sys
from ggpzoo.training.az.net import load_model
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    load_model(sys.argv[1])
    print("loaded")
except ValueError as e:
    print("refused:", e)
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


@pytest.mark.parametrize("huge", ["network", "tensor"])
def test_a_small_weights_file_declaring_a_huge_network_or_tensor_is_refused_before_allocating(tmp_path, huge):
    import subprocess
    import sys

    from ggpzoo.training.az.net import MAX_ARGUMENTS

    if huge == "network":  # the description: about 150 MB of network
        path, weights = _baseline_copy(tmp_path, **{k: v for k, v in MAX_ARGUMENTS.items() if k != "features"})
    else:  # the weights file: a 400 MB tensor
        path, weights = _baseline_copy(tmp_path)
        _damage(weights, "declares_more")
    assert os.path.getsize(weights) < 1 << 20
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    done = subprocess.run([sys.executable, "-c", PEAK, path], capture_output=True, text=True, env=env, timeout=300)
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("refused:") and weights in lines[0], done.stdout + done.stderr
    assert int(lines[1]) < 40, f"the loader took {lines[1]} MB before refusing"


def _damage(weights: str, how: str) -> None:
    import zipfile

    data = open(weights, "rb").read()
    if how == "truncated":
        open(weights, "wb").write(data[: len(data) // 2])
    elif how == "empty":
        open(weights, "wb").write(b"")
    elif how == "garbage":
        open(weights, "wb").write(os.urandom(len(data)))
    elif how == "legacy":  # torch's old format reads every storage the pickle declares: refused unread
        state = torch.load(weights, weights_only=True)
        torch.save(state, weights, _use_new_zipfile_serialization=False)
    elif how == "declares_more":  # a tensor's storage declared larger than it is
        with zipfile.ZipFile(weights) as src:
            items = [(i.filename, src.read(i.filename)) for i in src.infolist()]
        with zipfile.ZipFile(weights, "w") as dst:
            for name, b in items:
                if name.endswith("data.pkl"):
                    j = b.index(b"cpu") + 3
                    while b[j] in (0x71, 0x94):  # the memo op after the location
                        j += 2 if b[j] == 0x71 else 1
                    size = {0x4A: 5, 0x4B: 2, 0x4D: 3}[b[j]]
                    b = b[:j] + b"J" + (100_000_000).to_bytes(4, "little") + b[j + size :]
                dst.writestr(name, b)
    elif how == "folder":
        os.remove(weights)
        os.mkdir(weights)


@pytest.mark.parametrize("how", ["truncated", "empty", "garbage", "legacy", "declares_more", "folder"])
def test_a_damaged_weights_file_is_one_line_naming_it(tmp_path, how):
    from ggpzoo.training.az.net import load_model

    path, weights = _baseline_copy(tmp_path)
    _damage(weights, how)
    with pytest.raises(ValueError) as e:
        load_model(path)
    assert weights in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("how", ["truncated", "garbage", "legacy", "declares_more"])
def test_play_and_arena_refuse_a_damaged_network_in_one_line(tmp_path, capsys, how):
    from ggpzoo.tools.cli import main

    path, weights = _baseline_copy(tmp_path)
    _damage(weights, how)
    assert main(["arena", "--env", "skirmish_v0", "--agents", f"az:{path},random", "--games", "1"]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and weights in err


def test_a_weights_file_with_more_than_its_network_is_refused_unread(tmp_path):
    import zipfile

    from ggpzoo.agents.weights import SLACK_BYTES
    from ggpzoo.training.az.net import load_model

    path, weights = _baseline_copy(tmp_path)
    with zipfile.ZipFile(weights, "a") as z:
        z.writestr("net/extra", b"\0" * (SLACK_BYTES + 1))
    with pytest.raises(ValueError, match="more than the described network"):
        load_model(path)


def test_check_weights_file_takes_what_torch_save_wrote_and_refuses_changed_bytes(tmp_path):
    """Property: any change of one byte of a weights file loads (the tensor data changed) or is
    refused with a ValueError naming the file, never anything else."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    from ggpzoo.training.az.net import load_model

    path, weights = _baseline_copy(tmp_path)
    data = open(weights, "rb").read()
    load_model(path)

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.integers(0, len(data) - 1), st.integers(0, 255), st.booleans())
    def check(at, byte, cut):
        changed = data[:at] if cut else data[:at] + bytes([byte]) + data[at + 1 :]
        open(weights, "wb").write(changed)
        try:
            load_model(path)
        except ValueError as e:
            assert weights in str(e) and "\n" not in str(e)

    check()


def test_make_out_folder_makes_or_refuses_in_one_line(tmp_path):
    """Property: a folder is made (with its parents) or refused with a ValueError naming it."""
    from hypothesis import HealthCheck, example, given, settings
    from hypothesis import strategies as st

    from ggpzoo.training import check_out_folder, make_out_folder

    open(tmp_path / "file", "w").close()
    parts = st.sampled_from(["a", "b", "file", "..", "x y", "/proc", "/proc/self/x"])

    @settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.lists(parts, min_size=1, max_size=4))
    @example(["b", "..", "file"])  # os.makedirs makes b on the way: the check removed it only since this
    def check(names):
        path = os.path.join(str(tmp_path), *names)
        before = sorted(os.listdir(tmp_path))
        try:
            check_out_folder(path)
        except ValueError as e:
            assert path in str(e) and "\n" not in str(e)
        assert sorted(os.listdir(tmp_path)) == before  # the check leaves nothing behind
        try:
            make_out_folder(path)
        except ValueError as e:
            assert path in str(e) and "\n" not in str(e)
        else:
            assert os.path.isdir(path) and os.access(path, os.W_OK)

    check()
