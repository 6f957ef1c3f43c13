"""``python -m sim.cli``: the ``piggy`` command."""

import sys

from sim.cli import main

sys.exit(main())
