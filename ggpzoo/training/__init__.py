"""Training glue: the single-agent Gymnasium bridge for stable-baselines3 and its opponents
(`single_agent`), policy networks (`nets`) and
RLlib (`rllib`). Importing this package imports no training library;
each module imports its own."""
