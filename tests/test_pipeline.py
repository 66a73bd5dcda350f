"""One pipeline: the CLI, the flake8 plugin and the library API report the same findings at the same places."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from winspawn_lint import check_text, rules
from winspawn_lint.analysis.context import Context

# Lines Python numbers differently from str.splitlines(), non-ASCII columns, CRLF and a BOM.
CASES = {
    "form_feed_then_non_ascii.py": "import multiprocessing as mp\n\x0c\n\u00e9 = mp.Pool(2)\n",
    "vertical_tab_in_comment.py": "import multiprocessing as mp\n# a \x0b b\nx = mp.Pool(2)\n",
    "crlf.py": "import multiprocessing as mp\r\n\r\n\u00e9\u00e9 = mp.Pool(2)\r\n",
    "bom.py": "\ufeffimport multiprocessing as mp\nx = mp.Pool(2)\n",
}


_FLAKE8_LINE = re.compile(r"^.+?:(?P<line>\d+):(?P<col>\d+): (?P<code>WSP\d{3}) ")


def _cli(path) -> set[tuple[int, int, str]]:
    proc = subprocess.run([sys.executable, "-m", "winspawn_lint", "--isolated", "--format", "json", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    return {(item["line"], item["col"], item["code"]) for item in json.loads(proc.stdout)}


def _flake8(path) -> set[tuple[int, int, str]]:
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "WSP", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    return {(int(m["line"]), int(m["col"]), m["code"]) for m in map(_FLAKE8_LINE.match, proc.stdout.splitlines())}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cli_flake8_and_api_agree_on_positions(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(CASES[name].encode("utf-8"))
    text = CASES[name].lstrip("\ufeff")
    api = {(f.line, f.col + 1, f.code) for f in check_text(text, str(path))}
    assert api, "the case must have a finding"
    assert _cli(path) == api
    assert _flake8(path) == api


def test_a_code_given_as_a_string_fails_loudly_instead_of_being_dropped():
    with pytest.raises(AttributeError):
        Context.emit(None, "WSP201", None)  # type: ignore[arg-type]


def test_every_rule_is_bound_to_the_name_of_its_code():
    assert all(getattr(rules, code) is rule for code, rule in rules.RULES.items())
