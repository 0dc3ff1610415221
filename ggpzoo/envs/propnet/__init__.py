"""The table interpreter that plays every compiled GDL sheet: the fourth kernel family of
`ggpzoo.engine.dispatch` (no game of its own; a sheet's network is its tables)."""
