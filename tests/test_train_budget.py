"""The budget of `python -m ggpzoo train` (ggpzoo.training.train): --minutes is this run's
training time (a resumed run trains that much more), the first batch of moves (numba's
compile) is not counted, the last evaluation is not run twice, the progress bar counts the
budget, a second run into the same folder is refused, Ctrl-C saves."""

import csv
import json
import time

import pytest

pytest.importorskip("sb3_contrib")

import ggpzoo.tools._progress
import ggpzoo.training.train as T
from ggpzoo.tools.cli import main

TINY = dict(n_envs=4, n_steps=16, batch_size=32, n_epochs=1, policy="mlp", net_arch=[16], opponents={"random": 1})
QUIET = dict(eval_games=4, final_eval_games=4, progress=False, log=lambda line: None)


def _slow_env(monkeypatch, first_step_seconds=0.0, interrupt_at=None):
    """make_env whose first step takes ``first_step_seconds`` longer (as numba's first compile
    does), and whose step number ``interrupt_at`` raises KeyboardInterrupt (Ctrl-C)."""
    make_env = T.make_env

    def slow(name, r, seed):
        env = make_env(name, r, seed)
        step_wait, calls = env.step_wait, [0]

        def wait():
            calls[0] += 1
            if calls[0] == 1:
                time.sleep(first_step_seconds)
            if calls[0] == interrupt_at:
                raise KeyboardInterrupt
            return step_wait()

        env.step_wait = wait
        return env

    monkeypatch.setattr(T, "make_env", slow)


def _rows(run):
    with open(run / "eval.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_minutes_start_after_the_first_batch_of_moves_and_count_this_run(monkeypatch, tmp_path):
    """A first step as slow as the whole budget (a fresh install's compile) leaves the budget
    whole; --resume trains its minutes more; the last periodic evaluation is the final one."""
    budget = 3 / 60  # minutes
    _slow_env(monkeypatch, first_step_seconds=3.0)
    first = T.train("mad_bishops_v0", tmp_path, minutes=budget, eval_every=budget, **QUIET, **TINY)
    assert first["timesteps"] >= 4 * TINY["n_envs"]  # not stopped after the slow first step
    assert first["train_minutes"] >= budget
    again = T.train("mad_bishops_v0", tmp_path, minutes=budget, resume=True, **QUIET, **TINY)
    assert again["timesteps"] >= first["timesteps"] + 4 * TINY["n_envs"]
    assert again["train_minutes"] >= 2 * budget
    rows = _rows(tmp_path / "mad_bishops_v0")
    keys = [(r["timesteps"], r["opponent"]) for r in rows]
    assert len(keys) == len(set(keys)), keys  # no model evaluated twice


def test_the_progress_bar_counts_the_budget_in_seconds(monkeypatch, tmp_path):
    totals = []

    class Recorder(ggpzoo.tools._progress.Progress):
        def __init__(self, total, *args, **kwargs):
            totals.append(total)
            super().__init__(total, *args, **kwargs)

    monkeypatch.setattr(ggpzoo.tools._progress, "Progress", Recorder)
    quiet = QUIET | {"progress": True}
    T.train("mad_bishops_v0", tmp_path, minutes=7, timesteps=TINY["n_envs"] * 16, **quiet, **TINY)
    assert totals == [7 * 60]


def test_timesteps_with_resume_are_more_steps(tmp_path, monkeypatch):
    import tempfile

    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.delenv("SB3_LOGDIR", raising=False)
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # SB3's default log folder goes here
    run = tmp_path / "run"

    state = run / "mad_bishops_v0" / "checkpoint.json"
    first = T.train("mad_bishops_v0", run, timesteps=64, **QUIET, **TINY)
    assert first["timesteps"] == 64 and json.loads(state.read_text())["train_cpu_seconds"] > 0
    saved = json.loads(state.read_text())
    saved["train_cpu_seconds"] = 1000.0  # so that a resumed run's count shows where it started
    state.write_text(json.dumps(saved))
    second = T.train("mad_bishops_v0", run, timesteps=64, resume=True, **QUIET, **TINY)
    assert second["timesteps"] == 128 and second["train_cpu_seconds"] >= 1000.0  # counted on, not from 0
    assert json.loads(state.read_text())["train_cpu_seconds"] > 1000.0
    with open(run / "mad_bishops_v0" / "eval.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["timesteps"]) for r in rows][-1] == 128 and float(rows[-1]["cpu_seconds"]) > 0
    # an eval.csv of an older run (no cpu_seconds column) keeps its columns when resumed
    old = [f for f in T.FIELDS if f != "cpu_seconds"]
    with open(run / "mad_bishops_v0" / "eval.csv", "w", newline="") as f:
        csv.writer(f).writerow(old)
    T.train("mad_bishops_v0", run, timesteps=64, resume=True, **QUIET, **TINY)
    with open(run / "mad_bishops_v0" / "eval.csv", newline="") as f:
        lines = list(csv.reader(f))
    assert lines[0] == old and len(lines) > 1 and all(len(line) == len(old) for line in lines)
    # no empty SB3-<date> log folder left behind, first run or resumed (torch may cache there)
    assert [p.name for p in scratch.iterdir() if p.name.startswith("SB3-")] == []


def test_a_second_run_into_the_same_folder_is_refused(capsys, tmp_path):
    argv = ["train", "--env", "mad_bishops_v0", "--out", str(tmp_path), "--timesteps", "64", "--no-progress"]
    argv += ["--eval-games", "4", "--final-eval-games", "4"] + [f"--set={k}={json.dumps(v)}" for k, v in TINY.items()]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.startswith("no --minutes given: training for 30 minutes (the default); Ctrl-C stops and saves\n")
    run = tmp_path / "mad_bishops_v0"
    before = {p.name: p.stat().st_mtime_ns for p in run.iterdir()}
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.strip().splitlines() == [
        f"python -m ggpzoo train: error: {run} holds a run already: add --resume to train it more, "
        "or give another --out (or delete the folder)"
    ]
    assert {p.name: p.stat().st_mtime_ns for p in run.iterdir()} == before  # nothing written
    assert main([*argv, "--resume"]) == 0
    assert json.loads((run / "summary.json").read_text())["timesteps"] == 128


def test_ctrl_c_stops_and_saves(monkeypatch, tmp_path):
    _slow_env(monkeypatch, interrupt_at=20)
    lines = []
    summary = T.train("mad_bishops_v0", tmp_path, minutes=5, **(QUIET | {"log": lines.append}), **TINY)
    run = tmp_path / "mad_bishops_v0"
    assert summary["final"] == [] and summary["timesteps"] >= 16 * TINY["n_envs"]
    assert all((run / f).exists() for f in ("model.zip", "policy.json", "checkpoint.zip", "summary.json"))
    assert lines[-1].startswith("interrupted after ") and lines[-1].endswith("no final evaluation")
    assert json.loads((run / "checkpoint.json").read_text())["timesteps"] == summary["timesteps"]


def test_the_bar_makes_way_for_the_evaluation_lines():
    import io

    stream = io.StringIO()
    bar = ggpzoo.tools._progress.Progress(60, "train", stream=stream, enabled=True)
    bar.update(10)
    bar.break_line()  # an evaluation's lines go below the bar, not onto it
    bar.break_line()  # nothing drawn since: no empty line
    bar.update(50)  # the last unit: drawn at once
    bar.close()
    lines = stream.getvalue().split("\n")
    assert len(lines) == 3 and lines[2] == ""
    assert lines[0].startswith("\rtrain [####") and " 10/60 " in lines[0]
    assert lines[1].startswith("\rtrain [########################] 60/60 ")
