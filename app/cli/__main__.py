"""`python -m app.cli`: the same as the `earnings-desk` command."""

import sys

from app.cli import main

sys.exit(main())
