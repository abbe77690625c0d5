"""``python -m anonlab`` runs the command line as ``anonlab`` does
(:func:`anonlab.cli.console`)."""

import sys

from anonlab.cli import console

sys.exit(console())
