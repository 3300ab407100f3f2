"""``python -m peirce``: the ``peirce`` command line."""

import sys

from peirce.cli import main

sys.exit(main())
