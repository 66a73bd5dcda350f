"""The self-description of a notebook fixture (``tests/fixtures/notebooks/*.ipynb``).

The same comments as a script fixture (``tests/fixtures/README.md``), written in the cells:
``# error: WSPnnn`` on a line of a cell, ``# spawn: <outcome>`` / ``# fork: <outcome>`` in the
first cell.  The notebook's code cells, joined as the linter joins them
(:func:`winspawn_lint.io.notebook.loads`), are validated by :func:`fixture_spec.load_fixture`, and each
expected line is mapped back to (cell, line in the cell).

:func:`run_notebook` executes a notebook in a real Jupyter kernel under an emulated start method: for the
notebook fixtures (``tests/test_notebook_runtime.py``) and the fixture projects whose entry is a notebook.
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


class Run:
    """What one execution of a notebook showed: ``ok``, ``crash`` (with the error) or ``hang``, and its stdout."""

    def __init__(self, method: str, status: str, error: str, stdout: str) -> None:
        self.method, self.status, self.error, self.stdout = method, status, error, stdout

    def describe(self) -> str:
        return f"[{self.method}] {self.status}\n--- error ---\n{self.error[-3000:]}\n--- stdout ---\n{self.stdout}"


def run_notebook(path, method: str, timeout: float) -> Run:
    """Execute every cell of the notebook at *path* in a fresh kernel whose default start method is *method*."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    from winspawn_lint.runtime.emulation import child_environment

    nb = nbformat.read(str(path), as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=False,
                            resources={"metadata": {"path": str(path.parent)}})
    status, error = "ok", ""
    try:
        client.execute(env=child_environment(method))
    except CellTimeoutError as exc:
        status, error = "hang", str(exc)
    except CellExecutionError as exc:
        status, error = "crash", str(exc)
    except DeadKernelError as exc:
        status, error = "crash", f"DeadKernelError: {exc}"
    stdout = "".join(output.get("text", "") for cell in nb.cells for output in cell.get("outputs", [])
                     if output.get("name") == "stdout")
    return Run(method, status, error, stdout)
