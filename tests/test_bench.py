"""The self-play benchmark runs in every mode and with every reference (tiny time budgets)."""

import pytest

from ggpzoo.tools import bench


def test_aec_mode_with_the_openspiel_reference(capsys):
    assert bench.main(["--env", "amazons_v0", "--seconds", "0.2", "--vs", "openspiel"]) == 0
    out = capsys.readouterr().out
    assert "amazons_v0" in out and "x vs openspiel amazons (rl_environment)" in out
    row = bench.bench_env("amazons_split_v0", seconds=0.1)
    assert row["games"] >= 1 and row["turns_per_s"] == pytest.approx(row["steps_per_s"] / 2)


def test_aec_mode_with_pettingzoo_chess(capsys):
    assert bench.main(["--env", "skirmish_endgame_v0", "--seconds", "0.2", "--vs", "chess"]) == 0
    assert "x vs pettingzoo chess_v6" in capsys.readouterr().out


@pytest.mark.parametrize("name", ["amazons_v0", "skirmish_v0", "mad_bishops_v0"])
def test_batched_mode_with_pyspiel(name, capsys):
    assert bench.main(["--env", name, "--seconds", "0.2", "--batched", "8", "--vs", "openspiel"]) == 0
    out = capsys.readouterr().out
    reference = {
        "amazons_v0": "pyspiel amazons",
        "skirmish_v0": "pyspiel chess",
        "mad_bishops_v0": "pyspiel checkers 10x10",
    }
    assert f"{name} (VectorGames, N=8)" in out and f"{name} (play)" in out
    assert out.count(f"x vs {reference[name]}") == 2


@pytest.mark.parametrize(
    "argv,message",
    [
        (["--env", "go_v5"], "unknown environment 'go_v5'"),
        (["--seconds", "0"], "--seconds must be positive"),
        (["--batched", "-3"], "--batched must be a positive batch size"),
        (["--vs", "stockfish"], "invalid choice: 'stockfish'"),
    ],
)
def test_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        bench.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_train_throughput_rows_for_both_paths():
    pytest.importorskip("sb3_contrib")
    from ggpzoo.tools.bench_train import bench_train, format_train_table

    said = []
    rows = bench_train(
        "skirmish_endgame_v0",
        seconds=0.01,
        n_envs=2,
        n_steps=16,
        batch_size=32,
        n_epochs=1,
        policy="mlp",
        net_arch=[8],
        say=said.append,
    )
    assert [r["path"] for r in rows] == ["SingleAgentEnv", "SelfPlayVecEnv"]
    # each phase of each path is said as it starts, with the seconds the path has taken
    phases = [
        "building the env",
        "timing the env alone for 0.01 s",
        "building the model",
        "warm-up: one rollout of 32 learner steps and an update, untimed",
        "timing training for 0.01 s",
    ]
    for k, path in enumerate(("SingleAgentEnv", "SelfPlayVecEnv")):
        lines = said[6 * k : 6 * k + 6]
        assert [x.split("]: ", 1)[1] for x in lines[:5]] == phases
        assert all(x.startswith(f"skirmish_endgame_v0, {path} [") for x in lines)
        assert lines[5].endswith(f"{rows[k]['steps_per_s']:,.0f} learner steps/s")
    assert len(said) == 12
    for r in rows:
        assert r["steps"] >= 32 and r["steps_per_s"] > 0 and 0 < r["env_share"] < 1
    assert rows[1]["ratio"] == pytest.approx(rows[1]["steps_per_s"] / rows[0]["steps_per_s"])
    assert rows[1]["env_ratio"] == pytest.approx(rows[1]["env_steps_per_s"] / rows[0]["env_steps_per_s"])
    table = format_train_table(rows)
    assert "SelfPlayVecEnv" in table and "x" in table.splitlines()[-1]


def test_train_flag_runs_the_training_benchmark(monkeypatch, capsys):
    from ggpzoo.tools import bench, bench_train

    calls = []
    row = {"env": "mad_bishops_v0", "path": "SingleAgentEnv", "network": "mlp", "n_envs": 1, "steps": 1}
    row |= {"steps_per_s": 1.0, "env_steps_per_s": 2.0, "env_share": 0.5}

    def fake(name, seconds, seed, say):
        calls.append((name, seconds))
        say("a phase")
        return [row]

    monkeypatch.setattr(bench_train, "bench_train", fake)
    assert bench.main(["--train", "--env", "mad_bishops_v0"]) == 0
    assert calls == [("mad_bishops_v0", 60.0)]
    out, err = capsys.readouterr()
    assert "mad_bishops_v0" in out
    assert err.splitlines() == [
        "timing mad_bishops_v0: MaskablePPO on SingleAgentEnv and on SelfPlayVecEnv, 60 s each ...",
        "  a phase",
    ]


def test_help_names_the_command_and_every_mode(capsys):
    from ggpzoo.tools.cli import main

    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m ggpzoo bench ")
    assert "--gdl SHEET [SHEET ...]" in out and "over 10 minutes" in out
    # --gdl reaches the GDL benchmark from either command
    assert bench.main(["--gdl", "tictactoe", "--seconds", "0.05", "--no-exact", "--batch", "70"]) == 0
    head, row = capsys.readouterr().out.splitlines()
    assert row.split()[0] == "tictactoe" and "batched x70" in head and "games x70" in head
    batched, games = (int(x.replace(",", "")) for x in row.split()[3:5])  # both batched paths ran
    assert batched > 0 and games > 0


def test_gdl_bench_reads_a_folder_and_goes_on_past_a_bad_sheet(capsys, tmp_path):
    from ggpzoo import gdl

    folder = tmp_path / "sheets"
    (folder / "more").mkdir(parents=True)
    (folder / "a_broken.kif").write_text("(role x) (<= (legal x (m ?y)) (not (p ?y)))")  # unsafe rule
    (folder / "more" / "ttt.kif").write_text(open(gdl.game_path("tictactoe")).read())
    (folder / "notes.txt").write_text("not a sheet")
    argv = ["--gdl", str(folder), "--seconds", "0.05", "--no-exact", "--batch", "0", "--markdown"]
    assert bench.main(argv) == 2  # one sheet failed; the other was still measured
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].startswith("| sheet | network (atoms / rules) | build s |") and lines[1].startswith("|---|")
    assert len(lines) == 4 and lines[2].startswith("| `a_broken.kif` | error: GDLError: ")
    cells = [c.strip() for c in lines[3].strip("|").split("|")]
    assert cells[0] == "`ttt`" and int(cells[3].replace(",", "")) > 0 and cells[5:] == ["-", "-", "-"]
    assert "a_broken.kif: GDLError" in err
    # every sheet good: exit 0, aligned text by default
    (folder / "a_broken.kif").unlink()
    assert bench.main(["--gdl", str(folder), "--seconds", "0.05", "--no-exact", "--batch", "0"]) == 0
    assert capsys.readouterr().out.splitlines()[1].split()[0] == "ttt"


def test_gdl_bench_refuses_a_folder_without_sheets(capsys, tmp_path):
    assert bench.main(["--gdl", str(tmp_path), "--no-exact"]) == 2
    assert capsys.readouterr().err.strip() == f"error: no .kif file in folder {str(tmp_path)!r}"


def test_gdl_bench_rates_under_ten_keep_a_decimal():
    from ggpzoo.gdl.cli import _fmt

    # a sheet as slow as the corpus's Amazons on the exact path shows 0.4, not 0
    assert [_fmt(x) for x in (None, 0.0, 0.44, 9.96, 12.5, 1_234_567.8)] == [
        "-",
        "0.0",
        "0.4",
        "10.0",
        "12",
        "1,234,568",
    ]
