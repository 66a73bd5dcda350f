"""Shared test set-up: the test tiers, and the offline wheelhouse the environment-building tests install from.

Tiers: ``pytest -m "not slow"`` is the quick tier a contributor runs on every change; ``pytest -n 2`` runs
everything (what ``.ci/run`` does).  Runtime and integration tests count as slow without saying so twice.
"""

import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

TESTS_DIR = str(Path(__file__).resolve().parent)
if TESTS_DIR not in sys.path:
    sys.path.insert(0, TESTS_DIR)  # `from fixture_spec import ...`

ROOT = Path(TESTS_DIR).parent

# The results cache is on by default: the CLI runs of the tests (in process and in subprocesses, which inherit
# the environment) keep theirs in a temporary directory, not in tests/fixtures/. tests/test_cache.py unsets it.
_CACHE_DIR = tempfile.mkdtemp(prefix="winspawn-lint-test-cache-")
os.environ["WINSPAWN_LINT_CACHE_DIR"] = _CACHE_DIR
atexit.register(shutil.rmtree, _CACHE_DIR, ignore_errors=True)

# `pytester` runs inline test files in a subprocess (tests of our pytest plugin).
pytest_plugins = ["pytester"]

_SLOW_KINDS = ("runtime", "integration")


@pytest.hookimpl(tryfirst=True)  # before `-m` deselects by marker
def pytest_collection_modifyitems(items):
    for item in items:
        if any(item.get_closest_marker(kind) for kind in _SLOW_KINDS) and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def shared_tmp(tmp_path_factory) -> Path:
    """One directory for the whole run, shared by the pytest-xdist workers (each has its own basetemp below
    the run's), so that what is built there is built once, not once per worker (guard it with a FileLock)."""
    base = tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def declared_requirements(*extras: str) -> list[str]:
    """The package's run-time dependencies (and those of *extras*) and its build requirements, as
    pyproject.toml declares them."""
    from winspawn_lint.settings import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    optional = pyproject["project"].get("optional-dependencies", {})
    return [*pyproject["project"]["dependencies"], *(r for extra in extras for r in optional[extra]),
            *pyproject["build-system"]["requires"]]


@pytest.fixture(scope="session")
def wheelhouse(shared_tmp) -> Path:
    """A directory of wheels of every declared dependency (flake8 and lsp extras and build backend included), packed
    from this interpreter's installed distributions; pip installs from it with ``--no-index``."""
    from filelock import FileLock

    import wheelhouse as packer

    directory = shared_tmp / "wheelhouse"
    with FileLock(str(shared_tmp / "wheelhouse.lock")):
        if not (directory / ".complete").is_file():
            try:
                packer.build(declared_requirements("flake8", "lsp"), directory, exclude=["winspawn-lint"])
            except packer.NotInstalled as exc:
                pytest.fail(f"cannot build the offline wheelhouse: {exc} (pip install -e '.[test]')")
            (directory / ".complete").touch()
    return directory
