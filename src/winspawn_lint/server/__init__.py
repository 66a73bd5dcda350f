"""``winspawn-lint server``: a Language Server Protocol server over stdin and stdout, for editors.

A front end: it keeps the documents an editor has open and shows what the runner (:func:`..runner.check_buffer`)
finds in them and what the fixer makes of them, as diagnostics, quick fixes and hovers (:mod:`.protocol`).  It is
built on pygls and lsprotocol, which come with the ``lsp`` extra (``pip install 'winspawn-lint[lsp]'``); the
linter itself does not need them.

* :mod:`.text` — LSP positions, line ends and minimal edits;
* :mod:`.documents` — the open documents and notebooks, and what is checked for each;
* :mod:`.linting` — the warm analysis: a project per workspace folder, settings, dependencies;
* :mod:`.protocol` — the pygls handlers.
"""

from __future__ import annotations

import argparse
import sys
from typing import Optional, Sequence

#: the exit status when the server cannot start (the command line's status for errors)
EXIT_ERROR = 2


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="winspawn-lint server",
        description="Run the winspawn-lint language server on stdin and stdout (start it from your editor; "
        "to check a path named `server`, write ./server).")
    parser.add_argument("--debounce-ms", type=int, default=100,
                        help="wait this long after the last change before checking a document again (default: 100)")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    ns = build_parser().parse_args(argv)
    if ns.debounce_ms < 0:
        sys.stderr.write("winspawn-lint server: --debounce-ms must be >= 0\n")
        return EXIT_ERROR
    try:
        import lsprotocol.types  # noqa: F401
        import pygls.lsp.server  # noqa: F401  (pygls >= 2)
    except ImportError:
        sys.stderr.write("winspawn-lint server: the language server needs pygls and lsprotocol; install them with "
                         "`pip install 'winspawn-lint[lsp]'`\n")
        return EXIT_ERROR
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="winspawn-lint server: %(message)s")
    from .protocol import serve

    return serve(ns.debounce_ms / 1000)
