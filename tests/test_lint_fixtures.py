"""Every fixture's `# error:` comments are exactly what the linter reports: through the CLI and through flake8.

Both front ends run once, as real subprocesses, over all fixtures with every
rule enabled; each fixture is then its own test case.

Each fixture project (``tests/fixtures/projects/NAME/``) is checked as a user checks a repository, from its
folder: ``winspawn-lint --select WSP .`` (serial and with two workers) and flake8 on each of its ``.py`` files;
the (file, line, code) triples reported must be those its files expect.  Each is checked from a copy of its
folder, as a repository of its own.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict

import pytest

from fixture_spec import FIXTURES_DIR, all_fixtures, all_projects, load_fixture, load_project

FIXTURES = [load_fixture(p) for p in all_fixtures()]
IDS = [f.name for f in FIXTURES]
PROJECTS = [load_project(p) for p in all_projects()]


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
    # A project counts too: its codes are hazards, and `NAME_ok` is a safe twin of each code NAME expects and it
    # does not.
    codes_of = {project.name: {code for *_, code in project.expected} for project in PROJECTS}
    for name, codes in codes_of.items():
        for code in codes:
            hazards[code] += 1
        if name.endswith("_ok") and name[:-3] in codes_of:
            for code in codes_of[name[:-3]] - codes:
                safe[code] += 1
    for code in RULES:
        assert hazards[code] >= 3, f"{code}: only {hazards[code]} hazardous fixtures"
        assert safe[code] >= 3, f"{code}: only {safe[code]} safe twins"
    assert len(FIXTURES) >= 70


def _projects():
    return [pytest.param(project, id=project.name) for project in PROJECTS]


def _run_in(project, command: list[str], tmp_path) -> subprocess.CompletedProcess:
    """*command* run from a copy of the project on its own, as a repository is checked: inside this repository
    its project root would be ours (the nearest ``pyproject.toml``), and every other fixture project its
    neighbour."""
    copy = tmp_path / project.name
    shutil.copytree(project.path, copy, ignore=shutil.ignore_patterns("__pycache__"))
    proc = subprocess.run([sys.executable, "-m", *command], capture_output=True, text=True, cwd=copy,
                          timeout=300)
    assert proc.returncode in (0, 1), proc.stdout + proc.stderr
    return proc


def _location(item: dict) -> str:
    path = os.path.normpath(item["path"]).replace(os.sep, "/")
    return f"{path}:cell {item['cell']}" if item.get("cell") is not None else path


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("project", _projects())
def test_cli_reports_exactly_the_expected_findings_in_a_project(project, jobs, tmp_path):
    proc = _run_in(project, ["winspawn_lint", "--isolated", "--select", "WSP", "--format", "json", "-j", jobs, "."],
                   tmp_path)
    assert proc.stderr == "", proc.stderr
    got = {(_location(item), item["line"], item["code"]) for item in json.loads(proc.stdout)}
    assert sorted(got) == sorted(project.expected), _explain_project(project.expected, got)


@pytest.mark.parametrize("project", _projects())
def test_flake8_reports_exactly_the_expected_findings_in_a_project(project, tmp_path):
    proc = _run_in(project, ["flake8", "--isolated", "--select", "WSP", "-j", "1", *project.files(".py")], tmp_path)
    got = set()
    for line in proc.stdout.splitlines():
        match = _FLAKE8_LINE.match(line)
        assert match, f"unexpected flake8 output: {line!r}"
        got.add((os.path.normpath(match["path"]).replace(os.sep, "/"), int(match["line"]), match["code"]))
    expected = {item for item in project.expected if item[0].endswith(".py")}
    assert sorted(got) == sorted(expected), _explain_project(expected, got)


def _explain_project(expected, got) -> str:
    def lines(items):
        return "".join(f"\n    {path}:{line}: {code}" for path, line, code in sorted(items))

    return f"missing:{lines(set(expected) - got) or ' none'}\nunexpected:{lines(got - set(expected)) or ' none'}"


def _explain(fixture, got) -> str:
    missing = sorted(set(fixture.expected) - got)
    extra = sorted(got - set(fixture.expected))
    return f"{fixture.name}: missing {missing}, unexpected {extra}"
