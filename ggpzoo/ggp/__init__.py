"""General Game Playing matches: a player and a game server over the GGP protocol.

* `ggpzoo.ggp.protocol`: the messages (INFO, PREVIEW, START, PLAY, STOP, ABORT) and
  moves to and from action ids;
* `ggpzoo.ggp.player`: the player (``python -m ggpzoo ggp-player``);
* `ggpzoo.ggp.server`: a match runner (``python -m ggpzoo ggp-match``);
* `ggpzoo.ggp.agents`: the reference opponents (legal, ggp-base's sample Monte Carlo).

See the guide "GGP matches" (docs/guides/ggp.md).
"""
