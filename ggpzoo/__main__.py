"""``python -m ggpzoo``: see :mod:`ggpzoo.tools.cli`."""

import sys

from ggpzoo.tools.cli import main

if __name__ == "__main__":
    sys.exit(main())
