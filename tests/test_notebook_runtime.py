"""Each notebook fixture runs in a real Jupyter kernel under emulated spawn and under fork, as declared.

The kernel (ipykernel, driven by nbclient) gets the emulation through its environment
(:func:`winspawn_lint.runtime.emulation.child_environment`): spawn becomes the default start method of the
kernel and of every worker it starts, as on Windows and macOS.  The kernel's ``__main__`` has no
``__file__``: this is the state in which a notebook's own definitions cannot reach spawned workers.
A ``hang`` is a cell that does not finish within HANG_TIMEOUT seconds; the kernel, and with it its
workers, is then shut down.
"""

from __future__ import annotations

import re

import pytest

from fixture_spec import OK
from notebook_spec import Run, all_notebooks, load_notebook_fixture, run_notebook

pytestmark = pytest.mark.runtime

HANG_TIMEOUT = 10
CELL_TIMEOUT = 45


def check(outcome, run: Run, name: str) -> None:
    where = f"{name}: declared '{run.method}: {outcome}'"
    if outcome.kind == "crash":
        assert run.status == "crash", f"{where}\n{run.describe()}"
        assert any(text in run.error for text in outcome.names), f"{where}\n{run.describe()}"
    else:
        assert run.status == outcome.kind, f"{where}\n{run.describe()}"


@pytest.mark.parametrize("path", [p for p in all_notebooks() if not p.name.endswith(".fixed.ipynb")],
                         ids=lambda p: p.stem)
def test_notebook_runtime_outcome(path):
    fixture = load_notebook_fixture(path)
    spawn = run_notebook(path, "spawn", HANG_TIMEOUT if fixture.spawn.kind == "hang" else CELL_TIMEOUT)
    fork = run_notebook(path, "fork", HANG_TIMEOUT if fixture.fork.kind == "hang" else CELL_TIMEOUT)
    check(fixture.spawn, spawn, path.name)
    check(fixture.fork, fork, path.name)
    if fixture.spawn.kind == "ok" and fixture.fork.kind == "ok":
        assert spawn.stdout == fork.stdout, f"{path.name}: stdout differs\n{spawn.describe()}\n{fork.describe()}"
    if fixture.fork.kind == "ok":
        assert fork.stdout, f"{path.name}: printed nothing under fork\n{fork.describe()}"


# `%time` prints how long it took: not part of what a notebook computes.
_TIMING = re.compile(r"^(CPU times|Wall time):.*\n", re.M)


@pytest.mark.parametrize("path", [p for p in all_notebooks() if p.name.endswith(".fixed.ipynb")],
                         ids=lambda p: p.name[: -len(".ipynb")])
def test_fixed_notebook_runs_under_spawn(path):
    """``NAME.fixed.ipynb`` (the output of ``--fix``, with ``NAME_defs.py`` beside it when definitions were moved)
    runs under spawn and prints what ``NAME.ipynb`` printed under fork."""
    original = path.with_name(path.name[: -len(".fixed.ipynb")] + ".ipynb")
    fixture = load_notebook_fixture(original)
    fixed = run_notebook(path, "spawn", CELL_TIMEOUT)
    check(OK, fixed, f"{path.name} (fixed)")
    reference = run_notebook(original, "fork", HANG_TIMEOUT if fixture.fork.kind == "hang" else CELL_TIMEOUT)
    check(fixture.fork, reference, f"{original.name} (reference)")
    assert _TIMING.sub("", fixed.stdout) == _TIMING.sub("", reference.stdout), f"{fixed.describe()}\n{reference.describe()}"
