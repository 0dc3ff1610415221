"""Tools on top of the envs, engine and agents: the command line (:mod:`~ggpzoo.tools.cli`),
the arena (:mod:`~ggpzoo.tools.arena`), the benchmark (:mod:`~ggpzoo.tools.bench`), play in a
terminal (:mod:`~ggpzoo.tools.terminal`) and game records and pictures
(:mod:`~ggpzoo.tools.replay`)."""
