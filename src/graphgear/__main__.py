"""`python -m graphgear` runs the graphgear command."""

import sys

from .cli import main

sys.exit(main())
