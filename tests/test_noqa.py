"""Writing ``# noqa`` (``report.noqa.with_noqa``, the language server's "Disable WSPnnn for this line").

Specification: the comment lands where flake8 and the command line look for it (the finding's physical line, or
the first line after it that can end in a comment: not inside a multi-line string, not continued by a
backslash); an existing ``# noqa: ...`` in the statement gets the code added; the finding is then silenced and
no other finding is.
"""

from __future__ import annotations

import pytest

from fixture_spec import FIXTURES_DIR
from winspawn_lint import check_text
from winspawn_lint.report.noqa import with_noqa
from winspawn_lint.rules import RULES
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES))


@pytest.mark.parametrize("source, line, expected", [
    ("x = f(lambda: 1)\n", 1, "x = f(lambda: 1)  # noqa: WSP201\n"),
    ("x = f(lambda: 1)   \r\n", 1, "x = f(lambda: 1)  # noqa: WSP201\r\n"),  # trailing blanks go, the CRLF stays
    ("x = f(lambda: 1)", 1, "x = f(lambda: 1)  # noqa: WSP201"),  # no line end at the end of the file
    ("x = f(lambda: 1)  # why\n", 1, "x = f(lambda: 1)  # why  # noqa: WSP201\n"),
    ("x = f(lambda: 1)  # noqa: E501\n", 1, "x = f(lambda: 1)  # noqa: E501, WSP201\n"),
    ("x = f(lambda: 1)  # noqa:E501,WSP3 -- long\n", 1, "x = f(lambda: 1)  # noqa:E501,WSP3, WSP201 -- long\n"),
    ('x = f("""a\nb""", lambda: 1)\ny = 2\n', 1, 'x = f("""a\nb""", lambda: 1)  # noqa: WSP201\ny = 2\n'),
    ("x = f(1, \\\n      lambda: 1)\n", 1, "x = f(1, \\\n      lambda: 1)  # noqa: WSP201\n"),
    ("x = f(1,\n      lambda: 1)\n", 2, "x = f(1,\n      lambda: 1)  # noqa: WSP201\n"),
])
def test_where_the_comment_goes(source, line, expected):
    assert with_noqa(source, line, "WSP201") == expected


@pytest.mark.parametrize("source", [
    "x = f(lambda: 1)  # noqa\n",  # silences every code already
    "x = f(lambda: 1)  # noqa: WSP201\n",
    "x = f(lambda: 1)  # NOQA:WSP2\n",  # a prefix
    "x = f(1\n",  # does not tokenize
])
def test_nothing_to_add(source):
    assert with_noqa(source, 1, "WSP201") is None


def test_a_notebook_cell_is_tokenized_as_masked_python():
    cell = "!pip install x\nloader = f(lambda: 1)"
    masked = "pass  # winspawn-lint: ipython 0\nloader = f(lambda: 1)\n"
    assert with_noqa(cell, 2, "WSP201", python=masked) == "!pip install x\nloader = f(lambda: 1)  # noqa: WSP201"


def _silenced_one_by_one(path):
    text = path.read_text(encoding="utf-8")
    found = check_text(text, str(path), ALL)
    for finding in found:
        silenced = with_noqa(text, finding.line, finding.code)
        assert silenced is not None, (finding, "no comment written")
        after = check_text(silenced, str(path), ALL)
        assert sorted((f.code, f.line) for f in after) == \
            sorted((f.code, f.line) for f in found if (f.code, f.line) != (finding.code, finding.line))


def test_the_comment_silences_the_finding_and_nothing_else():
    _silenced_one_by_one(FIXTURES_DIR / "wsp201_two_lambdas.py")


@pytest.mark.slow
@pytest.mark.parametrize("path", sorted(p for p in FIXTURES_DIR.glob("wsp*.py") if not p.name.endswith(".fixed.py")),
                         ids=lambda p: p.name)
def test_every_fixture_finding_is_silenced_by_its_comment(path):
    _silenced_one_by_one(path)
