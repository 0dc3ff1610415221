"""Tools on top of the envs, engine and agents: the command line (`cli`),
the arena (`arena`), the benchmark (`bench`), play in a
terminal (`terminal`) and game records and pictures
(`replay`)."""
