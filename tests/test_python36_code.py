"""Code written for Python 3.6 that names something ``async`` or ``await`` (PyTorch 0.3's ``x.cuda(async=True)``)
is read as Python 3.6 read it: ``tests/fixtures/python36/`` holds such fixtures, apart from the others because no
Python this project runs on compiles them (the suite's other fixture tests parse and run every fixture).

The command line reports exactly their ``# error:`` lines, with no fix offered (no rewrite of them can be checked to
compile).  flake8 cannot give them to the plugin: its own parse fails first (E999), as it does for any file that
does not compile.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from fixture_spec import FIXTURES_DIR, all_fixtures, load_fixture

PYTHON36 = FIXTURES_DIR / "python36"
FIXTURES = [load_fixture(path) for path in all_fixtures(PYTHON36)]


def test_the_fixtures_do_not_compile_here():
    assert FIXTURES
    for fixture in FIXTURES:
        with pytest.raises(SyntaxError):
            compile(fixture.path.read_text(encoding="utf-8"), str(fixture.path), "exec")
        assert not fixture.runnable  # (measured by hand under Python 3.6: their headers say so)


@pytest.mark.parametrize("fixture", FIXTURES, ids=[fixture.name for fixture in FIXTURES])
def test_the_cli_reports_exactly_the_expected_findings_without_a_fix(fixture):
    proc = subprocess.run(
        [sys.executable, "-m", "winspawn_lint", "--isolated", "--select", "ALL", "--no-cache", "--format", "json",
         str(fixture.path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == (1 if fixture.expected else 0), proc.stderr
    assert proc.stderr == ""
    found = json.loads(proc.stdout)
    assert sorted((item["line"], item["code"]) for item in found) == sorted(fixture.expected)
    assert all(item["fix_safety"] == "none" for item in found)
