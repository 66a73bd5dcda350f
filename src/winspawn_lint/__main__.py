"""``python -m winspawn_lint``: the same as the ``winspawn-lint`` command."""

import sys

if __name__ == "__main__":
    try:
        from .cli import entry

        entry()
    except KeyboardInterrupt:  # Ctrl-C while still starting up (main() handles it once running)
        sys.stderr.write("winspawn-lint: interrupted\n")
        sys.exit(130)
