"""`python -m cenotaph.cli`, as editors start the server when `cenotaph` is not on PATH."""

import sys

from cenotaph.cli import main

sys.exit(main())
