"""Suite-wide settings: where stable-baselines3 logs, the order the test files run in, and
which tests are ``slow`` (left out of the quick subset, ``python -m pytest -q -m "not slow"``).

- SB3's ``learn()`` makes a log folder (``$TMPDIR/SB3-<date>``, empty unless asked for logs)
  at every run without a logger of its own: ``SB3_LOGDIR`` puts them all in one folder under
  pytest's temporary directory, which pytest clears.
- The numba cache is cold in a fresh clone, and compiling is most of a cold run's time. The
  files in ``LAST`` run after the others: ``test_docs.py`` runs every documentation block,
  which together touch nearly every kernel and search, in a fresh interpreter; run last, it
  finds them cached by the files before it instead of compiling them a second time beside
  them. pytest-xdist would otherwise start the files with the most tests first
  (``--loadscope-reorder``), which puts ``test_docs.py`` among the first.
- ``SLOW`` names the tests that train, start fresh interpreters or Ray, play many games for
  a strength check, or run the whole documentation: each gets the ``slow`` mark. A test not
  named here is quick, so a new test is in the quick subset unless it is added here.
"""

from __future__ import annotations

import os

import pytest

LAST = ("test_docs.py",)

# file -> the slow tests in it (their function names, every parametrization), or ALL
ALL = None
SLOW = {
    "test_docs.py": ALL,  # every documentation block, in a fresh interpreter
    "test_rllib.py": ALL,  # imports Ray; two tests start a two-node cluster and train
    "test_library_examples.py": ALL,  # TorchRL, Tianshou, AgileRL: imports and training runs
    "test_gdl_batch_bench.py": ALL,  # the benchmark script, in fresh interpreters
    "test_train_budget.py": ALL,  # training runs
    "test_play_files.py": ALL,  # play, replay and arena in fresh interpreters (Ctrl-C), a GGP player
    "test_warmup.py": ("test_first_move_compiles_nothing", "test_no_notice_on_a_warm_cache"),  # fresh interpreters
    "test_files.py": ("test_a_small_weights_file_declaring_a_huge_network_or_tensor_is_refused_before_allocating",),
    "test_model_files.py": ("test_a_deflated_weights_file_that_unpacks_past_the_network_is_refused_unread",),
    "test_ggp_network.py": (  # seconds of waiting for a silent server or a load
        "test_one_load_at_a_time_and_an_aborted_load_stops",
        "test_a_match_that_keeps_talking_is_not_dropped",
        "test_a_silent_server_frees_the_player",
    ),
    "test_examples.py": (
        "test_help",
        "test_train_tiny_run",
        "test_train_batched_tiny_run_and_resume",
        "test_train_subproc_tiny_run_with_snapshots",
        "test_train_cell_policy_tiny_run",
        "test_train_cnn_tiny_run",
        "test_check_envs_tiny_run",
        "test_benchmark_tiny_run",
    ),
    "test_gumbel_az.py": (
        "test_training_uses_the_feature_planes_when_the_game_has_them",
        "test_a_short_training_run_resumes",
        "test_command_line",
        "test_the_self_play_benchmark_runs",
        "test_the_ladder_rates_snapshots_and_plots",
        "test_the_training_loop_trains_a_sheet_resumes_and_plays",
    ),
    "test_gdl_training.py": (
        "test_maskable_ppo_learns_to_beat_random_at_tictactoe",
        "test_train_command_on_a_gdl_sheet_saves_loads_and_resumes",
    ),
    "test_selfplay.py": ("test_sb3_maskable_ppo_trains_on_the_vec_env",),
    "test_single_agent.py": ("test_subproc_vec_env", "test_maskable_ppo_short_run_save_load_and_snapshot"),
    "test_ggp_matches.py": ("test_a_real_match_with_the_players_log",),
    "test_agents.py": ("test_stronger_is_stronger",),
    "test_mcts_simultaneous.py": ("test_beats_random_at_rps_fold",),
    "test_gdl_ground.py": ("test_grounding_is_the_same_under_every_hash_seed",),
    "test_gdl_env.py": (
        "test_a_seed_gives_the_same_games_in_every_process",
        "test_the_pending_fluents_and_a_comparison_of_every_fluent_play_the_same_games",
    ),
    "test_gdl_kernels.py": (  # the corpus's Amazons: a big grounding
        "test_amazons_compiled_matches_kernel",
        "test_amazons_grounding_stops_with_a_clear_message",
        "test_amazons_exact_matches_kernel_first_plies",
    ),
    "test_robust.py": ("test_training_example_saves_plain_weights",),
    "test_ggp.py": (  # whole matches over HTTP, play clocks of seconds
        "test_full_match_against_monte_carlo_no_errors",
        "test_runner_judges_bad_replies_with_a_random_move",
        "test_arena_plays_a_remote_ggp_player",
        "test_seed_match_on_the_kernel_against_monte_carlo",
        "test_full_scrambled_match",
        "test_the_search_tree_is_reused_between_turns",
        "test_a_match_keeps_the_collector_off_its_sheet_and_the_next_start_collects",
        "test_start_refuses_a_bad_sheet_or_role",
        "test_busy_for_a_second_match",
        "test_the_play_clock_counts_from_the_connection_not_the_end_of_the_message",
        "test_a_slow_search_still_answers_in_time",
        "test_exact_path_when_the_network_is_not_ready",
        "test_start_answers_ready_in_time_while_the_sheet_loads",
        "test_simultaneous_moves_match",
        "test_no_seeds_plays_the_sheet",
        "test_a_remote_player_is_asked_for_the_joint_moves_the_env_plays_by_itself",
        "test_abort_stops_a_seed_games_alpha_beta",
        "test_seed_games_are_played_with_alpha_beta_on_their_kernels",
        "test_a_mismatch_mid_match_leaves_the_kernel",
        "test_ggp_match_command",
        "test_a_slow_sheet_is_not_reasoned_on_while_the_kernel_plays",
    ),
    "test_layout.py": ("test_openmp_threads_spin_briefly_unless_told_otherwise",),
}


def is_slow(item) -> bool:
    """Whether ``item`` is named in ``SLOW`` (or marked ``slow`` in its file)."""
    names = SLOW.get(item.path.name, ())
    return names is ALL or getattr(item, "originalname", item.name) in names


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist: keep the order below
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.path.name in LAST)  # stable: the rest keep their order
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def _sb3_logs_under_pytest_tmp(tmp_path_factory):
    folder = tmp_path_factory.getbasetemp() / "sb3-logs"
    old = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(folder)  # subprocesses (the docs' blocks, examples) inherit it
    yield
    if old is None:
        os.environ.pop("SB3_LOGDIR", None)
    else:
        os.environ["SB3_LOGDIR"] = old
