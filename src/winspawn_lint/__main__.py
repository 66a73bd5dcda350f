"""``python -m winspawn_lint``: the same as the ``winspawn-lint`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
