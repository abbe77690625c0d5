"""``python -m anonlab.audit``: see :mod:`anonlab.audit.command`."""

import sys

from anonlab.audit.command import main

sys.exit(main())
