"""The self-description of a notebook fixture (``tests/fixtures/notebooks/*.ipynb``).

The same comments as a script fixture (``tests/fixtures/README.md``), written in the cells:
``# error: WSPnnn`` on a line of a cell, ``# spawn: <outcome>`` / ``# fork: <outcome>`` in the
first cell.  The notebook's code cells, joined as the linter joins them
(:func:`winspawn_lint.io.notebook.loads`), are validated by :func:`fixture_spec.load_fixture`, and each
expected line is mapped back to (cell, line in the cell).
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path

from fixture_spec import FIXTURES_DIR, Outcome, load_fixture

NOTEBOOKS_DIR = FIXTURES_DIR / "notebooks"


@dataclass(frozen=True)
class NotebookFixture:
    path: Path
    expected: frozenset[tuple[int, int, str]]  # (cell, line in the cell, code)
    spawn: Outcome
    fork: Outcome

    @property
    def name(self) -> str:
        return self.path.name


def load_notebook_fixture(path: Path) -> NotebookFixture:
    from winspawn_lint.io import notebook

    parsed = notebook.loads(path.read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as directory:
        joined = Path(directory) / (path.stem + ".py")
        joined.write_text(parsed.module, encoding="utf-8")
        fixture = load_fixture(joined)
    expected = set()
    for line, code in fixture.expected:
        cell, cell_line = parsed.position(line)
        expected.add((cell, cell_line, code))
    return NotebookFixture(path, frozenset(expected), fixture.spawn, fixture.fork)


def all_notebooks() -> list[Path]:
    return sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
