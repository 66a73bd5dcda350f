"""Every fixture's `# error:` comments are exactly what the linter reports: through the CLI and through flake8.

Both front ends run once, as real subprocesses, over all fixtures with every
rule enabled; each fixture is then its own test case.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import defaultdict

import pytest

from fixture_spec import FIXTURES_DIR, all_fixtures, load_fixture

FIXTURES = [load_fixture(p) for p in all_fixtures()]
IDS = [f.name for f in FIXTURES]


def _paths() -> list[str]:
    return [str(f.path) for f in FIXTURES]


@pytest.fixture(scope="module")
def cli_results() -> dict[str, set[tuple[int, str]]]:
    proc = subprocess.run(
        [sys.executable, "-m", "winspawn_lint", "--isolated", "--select", "ALL", "--format", "json", "-j", "1",
         *_paths()],
        capture_output=True, text=True, cwd=FIXTURES_DIR, timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stderr == "", proc.stderr
    found: dict[str, set[tuple[int, str]]] = defaultdict(set)
    for item in json.loads(proc.stdout):
        found[str(FIXTURES_DIR / item["path"]) if not item["path"].startswith("/") else item["path"]].add(
            (item["line"], item["code"]))
    return found


_FLAKE8_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>WSP\d{3}) ")


@pytest.fixture(scope="module")
def flake8_results() -> dict[str, set[tuple[int, str]]]:
    proc = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--select", "WSP", "-j", "1", *_paths()],
        capture_output=True, text=True, cwd=FIXTURES_DIR, timeout=300,
    )
    assert proc.returncode in (0, 1), proc.stderr
    found: dict[str, set[tuple[int, str]]] = defaultdict(set)
    for line in proc.stdout.splitlines():
        match = _FLAKE8_LINE.match(line)
        assert match, f"unexpected flake8 output: {line!r}"
        found[match["path"]].add((int(match["line"]), match["code"]))
    return found


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_cli_reports_exactly_the_expected_findings(fixture, cli_results):
    got = cli_results.get(str(fixture.path), set())
    assert sorted(got) == sorted(fixture.expected), _explain(fixture, got)


@pytest.mark.parametrize("fixture", FIXTURES, ids=IDS)
def test_flake8_reports_exactly_the_expected_findings(fixture, flake8_results):
    got = flake8_results.get(str(fixture.path), set())
    assert sorted(got) == sorted(fixture.expected), _explain(fixture, got)


def test_every_rule_has_hazards_and_safe_twins():
    from winspawn_lint.rules import RULES

    from notebook_spec import all_notebooks, load_notebook_fixture

    hazards: dict[str, int] = defaultdict(int)
    safe: dict[str, int] = defaultdict(int)
    # Notebook fixtures count too: WSP206 exists only in notebooks.
    notebooks = [load_notebook_fixture(p) for p in all_notebooks() if not p.name.endswith(".fixed.ipynb")]
    specified = [(f.name, {code for *_, code in f.expected}) for f in [*FIXTURES, *notebooks]]
    for name, codes in specified:
        for code in codes:
            hazards[code] += 1
        match = re.match(r"(?:wsp|fix_wsp)(\d{3})_ok_", name)
        if match and f"WSP{match[1]}" not in codes:
            safe[f"WSP{match[1]}"] += 1
    for code in RULES:
        assert hazards[code] >= 3, f"{code}: only {hazards[code]} hazardous fixtures"
        assert safe[code] >= 3, f"{code}: only {safe[code]} safe twins"
    assert len(FIXTURES) >= 70


def _explain(fixture, got) -> str:
    missing = sorted(set(fixture.expected) - got)
    extra = sorted(got - set(fixture.expected))
    return f"{fixture.name}: missing {missing}, unexpected {extra}"
