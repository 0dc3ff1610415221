"""Training glue: the single-agent Gymnasium bridge for stable-baselines3 and its opponents
(:mod:`~ggpzoo.training.single_agent`), policy networks (:mod:`~ggpzoo.training.nets`) and
RLlib (:mod:`~ggpzoo.training.rllib`). Importing this package imports no training library;
each module imports its own."""
