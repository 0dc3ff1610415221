"""Mad Bishops: its rules kernel and its environment."""
