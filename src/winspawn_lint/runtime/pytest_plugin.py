"""pytest plugin: run a test session under the start method of Windows or macOS.

Inactive unless asked for::

    pytest --mp-start-method=spawn          # or forkserver
    # or in the pytest ini file (pytest.ini / pyproject.toml [tool.pytest.ini_options] / ...):
    mp_start_method = spawn

Then ``spawn`` (or ``forkserver``) is the *default* start method of
``multiprocessing`` (which ``torch.multiprocessing`` shares) and of the dill-based
``multiprocess`` (used by ``datasets``), in the pytest process itself and in every
process started from it (``WINSPAWN_START_METHOD`` and ``PYTHONPATH`` are set in
``os.environ`` for the session).  A test that works on Linux only because workers
are forked (a lambda in ``Pool(initializer=...)``, a local ``Dataset`` class, an
open file on a dataset) then fails the way it does on a Windows or macOS laptop.

Also provides the ``spawn_run`` fixture: ``spawn_run(script, method="spawn",
timeout=90, cwd=None, args=())`` runs a script in a fresh interpreter under the
given start method and returns a :class:`winspawn_lint.runtime.emulation.RunResult`
(``returncode``, ``stdout``, ``stderr``, ``timed_out``, ``describe()``).

``forkserver`` is the interpreter's own: its workers import the script as ``__mp_main__`` and get their
work by pickling, as on Linux with Python 3.14.  From 3.14 (and 3.13.8) the server imports the script once
and workers are forked from it; before, each forkserver worker re-imports it as a spawned one does
(CPython gh-126631).

This module is imported in every pytest session of everyone who installs
winspawn-lint, so it imports nothing at module level beyond ``os``; the
emulation machinery is loaded only when the option is used.
"""

from __future__ import annotations

import os

import pytest

OPTION = "--mp-start-method"
INI = "mp_start_method"
CHOICES = ("spawn", "forkserver")

_state_key = pytest.StashKey[dict]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("winspawn-lint", "multiprocessing start-method emulation (winspawn-lint)")
    group.addoption(
        OPTION,
        dest="mp_start_method",
        choices=CHOICES,
        default=None,
        help="make this the default multiprocessing start method for the test run and every process "
        "it starts (multiprocessing, torch.multiprocessing, multiprocess), as on Windows/macOS. "
        "Overrides the '%s' ini option." % INI,
    )
    parser.addini(INI, help="default multiprocessing start method for the test run: spawn or forkserver "
                  "(see %s)" % OPTION, default="")


def _requested_method(config: pytest.Config) -> str | None:
    method = config.getoption("mp_start_method", default=None)
    if method:
        return method
    value = str(config.getini(INI) or "").strip()
    if not value:
        return None
    if value not in CHOICES:
        raise pytest.UsageError(f"ini option {INI} = {value!r}: expected one of {', '.join(CHOICES)}")
    return value


def pytest_configure(config: pytest.Config) -> None:
    method = _requested_method(config)
    if method is None:
        return
    from . import emulation

    saved_env = {key: os.environ.get(key) for key in (emulation.ENV_VAR, "PYTHONPATH")}
    emulation.install(method)
    os.environ.update(
        {key: value for key, value in emulation.child_environment(method).items() if key in saved_env}
    )
    config.stash[_state_key] = {"method": method, "env": saved_env}


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_state_key, None)
    if state is None:
        return
    from . import emulation

    emulation.uninstall()
    for key, value in state["env"].items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value
    del config.stash[_state_key]


def pytest_report_header(config: pytest.Config) -> str | None:
    state = config.stash.get(_state_key, None)
    if state is None:
        return None
    return f"winspawn-lint: default multiprocessing start method emulated: {state['method']}"


@pytest.fixture
def spawn_run(request: pytest.FixtureRequest):
    """Run a script in a fresh interpreter under an emulated start method.

    ``spawn_run(script, method=None, *, timeout=90, cwd=None, args=(), env=None)``;
    ``method`` defaults to the session's ``--mp-start-method`` or ``spawn``;
    ``"fork"`` pins fork explicitly (Linux/macOS).  On timeout the script's
    whole process group is killed; see :func:`winspawn_lint.runtime.emulation.run_script`.
    """
    from .emulation import run_script

    state = request.config.stash.get(_state_key, None)
    default = state["method"] if state else "spawn"

    def run(script, method=None, **kwargs):
        return run_script(script, method or default, **kwargs)

    return run
