"""``python -m ggpzoo``: see :mod:`ggpzoo.cli`."""

import sys

from ggpzoo.cli import main

if __name__ == "__main__":
    sys.exit(main())
