"""Training glue: the single-agent Gymnasium bridge for stable-baselines3 and its opponents
(`single_agent`), policy networks (`nets`) and
RLlib (`rllib`). Importing this package imports no training library;
each module imports its own."""

import os


def make_out_folder(path) -> None:
    """Create the output folder ``path`` (and its parents) unless it exists; a ValueError
    naming it if it cannot be made or written in (checked before any training work)."""
    path = os.fspath(path)
    if os.path.exists(path) and not os.path.isdir(path):
        raise ValueError(f"cannot use {path} as the output folder: it is a file")
    try:
        os.makedirs(path, exist_ok=True)
    except OSError as e:
        raise ValueError(f"cannot create the output folder {path}: {e.strerror or e}") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ValueError(f"cannot write in the output folder {path}: permission denied")


def check_out_folder(path) -> None:
    """`make_out_folder()`'s checks with nothing left behind: the folders it had to make are
    removed again (a command line checks its ``--out`` so before it checks anything else)."""
    # the folders as os.makedirs makes them: "a/b/../c" makes "a/b" too (no normpath here)
    missing, p = [], os.fspath(path)
    p = p if os.path.isabs(p) else os.path.join(os.getcwd(), p)
    while not os.path.lexists(p) and os.path.dirname(p) != p:
        if os.path.basename(p) not in ("", ".", ".."):
            missing.append(p)
        p = os.path.dirname(p)
    try:
        make_out_folder(path)
    finally:
        for folder in missing:  # the deepest first
            try:
                os.rmdir(folder)
            except OSError:
                pass
