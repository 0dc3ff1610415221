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
        (["--env", "go_v5"], "unknown env 'go_v5'"),
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
