"""Reproducing spawn when code runs: start-method emulation for scripts (``python -m winspawn_lint.spawnrun``)
and for test suites (the pytest plugin, ``--mp-start-method``).

Modules: :mod:`.emulation`, :mod:`.pytest_plugin`.
"""
