"""``python -m peirce``: the ``peirce`` command line."""

import sys

from peirce.cli import main

if __name__ == "__main__":
    sys.exit(main())
