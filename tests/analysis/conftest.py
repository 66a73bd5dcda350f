"""Fixtures the analysis tests share."""

from __future__ import annotations

import pytest

from winspawn_lint.analysis import taint


@pytest.fixture
def summarized(monkeypatch):
    """(module path, function name) of every summary the taint engine computes while the test runs."""
    found: list = []
    original = taint.Engine._summarize

    def counted(self, function, unit):
        found.append((unit.path, getattr(function, "name", None)))
        return original(self, function, unit)

    monkeypatch.setattr(taint.Engine, "_summarize", counted)
    return found
