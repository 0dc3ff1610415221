"""``python -m ggpzoo``: see `ggpzoo.tools.cli`."""

import sys

from ggpzoo.tools.cli import main

if __name__ == "__main__":
    sys.exit(main())
