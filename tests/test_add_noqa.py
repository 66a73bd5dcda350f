"""``--add-noqa``: silence today's findings where flake8 reads the comment, and a second check is clean.

flake8 looks for a finding's ``# noqa`` in the token range of its line: a multi-line string and a
backslash-continued statement are one range, a bracketed statement is one range per line.  So the comment goes
at the end of the range's last line, the only place a comment can stand there: never inside a string, never
after a backslash.  flake8 itself is the judge of every case below.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from winspawn_lint import cli

FIXTURES = Path(__file__).resolve().parent / "fixtures"

CASES = [
    ("a plain line",
     "pool = Pool(2)\n",
     "pool = Pool(2)  # noqa: WSP101\n"),
    ("an existing comment is kept",
     "pool = Pool(2)  # the pool\n",
     "pool = Pool(2)  # the pool  # noqa: WSP101\n"),
    ("codes are merged into an existing noqa",
     "pool = Pool(2)  # noqa: E501\n",
     "pool = Pool(2)  # noqa: E501, WSP101\n"),
    ("merged without losing the reason after the codes",
     "pool = Pool(2)  # noqa:E501 the name is long\n",
     "pool = Pool(2)  # noqa: E501, WSP101 the name is long\n"),
    ("trailing whitespace goes",
     "pool = Pool(2)   \n",
     "pool = Pool(2)  # noqa: WSP101\n"),
    ("a bracketed call: the line of the finding",
     "pool = Pool(\n    2,\n)\n",
     "pool = Pool(  # noqa: WSP101\n    2,\n)\n"),
    ("a finding before a multi-line string: after the string closes",
     'pool = Pool(2); doc = """\n# not a comment\n"""\n',
     'pool = Pool(2); doc = """\n# not a comment\n"""  # noqa: WSP101\n'),
    ("a backslash continuation: its last line",
     "pool = \\\n    Pool(2)\n",
     "pool = \\\n    Pool(2)  # noqa: WSP101\n"),
    ("a finding on the first line of a continuation",
     "pool = Pool(2); x = 1 + \\\n    2\n",
     "pool = Pool(2); x = 1 + \\\n    2  # noqa: WSP101\n"),
    ("two findings on one line: one comment",
     "Pool(2).map(lambda x: x, [1])\n",
     "Pool(2).map(lambda x: x, [1])  # noqa: WSP101, WSP201\n"),
    ("CRLF line endings are kept",
     "pool = Pool(2)\r\nx = 1\r\n",
     "pool = Pool(2)  # noqa: WSP101\r\nx = 1\r\n"),
]

HEADER = "from multiprocessing import Pool\n"


def flake8(path: Path) -> list[str]:
    done = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=WSP", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode in (0, 1), done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("before, after", [(b, a) for _, b, a in CASES], ids=[name for name, _, _ in CASES])
def test_the_comment_goes_where_flake8_reads_it(tmp_path, capsys, before, after):
    path = tmp_path / "job.py"
    path.write_bytes((HEADER + before).encode())
    assert flake8(path), "the case has no finding"
    assert cli.main(["--isolated", "--no-cache", "--add-noqa", str(path)]) == 0
    assert path.read_bytes().decode() == HEADER + after
    compile(path.read_bytes(), str(path), "exec")
    assert flake8(path) == []
    assert cli.main(["--isolated", "--no-cache", str(path)]) == 0  # a second check is clean
    err = capsys.readouterr().err
    assert err.startswith("Added 1 noqa directive.\n")


def test_a_noqa_inside_a_string_cannot_be_beaten_and_is_reported(tmp_path, capsys):
    # flake8 reads the first `# noqa` of the range, here text in a string: no comment after it can silence the
    # finding, so the line is left alone and the run says so (exit 1)
    path = tmp_path / "job.py"
    path.write_text(HEADER + 'x = "# noqa: E501"; pool = Pool(2)\n')
    assert cli.main(["--isolated", "--no-cache", "--add-noqa", str(path)]) == 1
    assert path.read_text() == HEADER + 'x = "# noqa: E501"; pool = Pool(2)\n'
    err = capsys.readouterr().err
    assert "Added 0 noqa directives." in err and "1 finding could not be silenced" in err


def test_every_fixture_script_and_notebook_is_silenced_and_stays_valid(tmp_path, capsys):
    tree = tmp_path / "fixtures"
    shutil.copytree(FIXTURES, tree)
    for path in tree.rglob("*.ipynb"):  # (an nbformat-3 notebook is never rewritten: test_notebooks.py)
        if json.loads(path.read_text(encoding="utf-8")).get("nbformat") == 3:
            path.unlink()
    before = {path: path.read_bytes() for path in tree.rglob("*") if path.is_file()}
    assert cli.main(["--isolated", "--no-cache", "--select", "WSP", "-q", str(tree)]) == 1
    capsys.readouterr()

    assert cli.main(["--isolated", "--no-cache", "--select", "WSP", "--add-noqa", str(tree)]) == 0
    err = capsys.readouterr().err
    added = int(err.split()[1])
    assert added > 100 and "could not" not in err

    assert cli.main(["--isolated", "--no-cache", "--select", "WSP", str(tree)]) == 0
    changed = [path for path, data in before.items() if path.read_bytes() != data]
    assert {path.suffix for path in changed} == {".py", ".ipynb"}
    for path in changed:
        if path.suffix == ".py":
            if "python36" not in path.parts:  # (Python 3.6 code compiles on no Python this suite runs on)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", SyntaxWarning)  # the fixtures' `is "__main__"`
                    compile(path.read_bytes(), str(path), "exec")
            diff = [(a, b) for a, b in zip(before[path].decode().splitlines(), path.read_text().splitlines()) if a != b]
            assert all(b.startswith(a.rstrip()) and "# noqa: WSP" in b[len(a.rstrip()):] for a, b in diff), path
        else:  # a notebook: only cells' source changed, each changed line by an added noqa
            old, new = json.loads(before[path]), json.loads(path.read_text())
            for cell_old, cell_new in zip(old["cells"], new["cells"]):
                assert {k: v for k, v in cell_old.items() if k != "source"} == \
                    {k: v for k, v in cell_new.items() if k != "source"}
    scripts = [p for p in tree.rglob("*.py") if "notebooks" not in p.parts]
    done = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select=WSP", *map(str, scripts)],
                          capture_output=True, text=True, timeout=300)
    assert (done.returncode, done.stdout) == (0, ""), done.stdout[:2000]

    # and a second --add-noqa has nothing to add
    assert cli.main(["--isolated", "--no-cache", "--select", "WSP", "--add-noqa", str(tree)]) == 0
    assert capsys.readouterr().err == "Added 0 noqa directives.\n"


def test_a_notebook_cell_gets_the_comment_on_its_own_line(tmp_path, capsys):
    code = ["from multiprocessing import Pool\n", "%time x = 1\n", "def square(x):\n", "    return x * x\n",
            "with Pool(2) as pool:\n", "    pool.map(square, [1])"]
    cells = [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Title"]},
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": code},
    ]
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n")
    status = cli.main(["--isolated", "--no-cache", "--add-noqa", str(path)])
    assert status == 0, capsys.readouterr().err
    source = json.loads(path.read_text())["cells"][1]["source"]
    assert source == [*code[:2], "def square(x):  # noqa: WSP206\n", *code[3:]]
    assert cli.main(["--isolated", "--no-cache", str(path)]) == 0


def test_stdin_is_refused(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--add-noqa", "-"])
    assert done.value.code == 2 and "--add-noqa needs files" in capsys.readouterr().err


def test_the_cache_does_not_hide_a_file_with_findings(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("WINSPAWN_LINT_CACHE_DIR", str(tmp_path / "cache"))
    path = tmp_path / "job.py"
    path.write_text(HEADER + "pool = Pool(2)\n")
    assert cli.main(["--isolated", str(path)]) == 1  # fills the cache
    assert cli.main(["--isolated", "--add-noqa", str(path)]) == 0
    assert path.read_text().endswith("  # noqa: WSP101\n")
    capsys.readouterr()
    assert cli.main(["--isolated", str(path)]) == 0
