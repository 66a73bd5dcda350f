"""The everyday flags a ruff or flake8 user reaches for, each with ruff's semantics and spelling.

``--output-format`` (``--format`` kept as an alias), ``-o/--output-file``, ``--exit-zero``, ``-q/--quiet``,
``-s/--silent``, ``--statistics`` in every format (the machine-readable ones stay one valid JSON document),
``--show-settings``, ``--watch``, ``--help``, and the messages for a bad ``--config``.  ``--add-noqa`` has its own
file (tests/test_add_noqa.py), ``--respect-gitignore`` too (tests/test_gitignore.py).
"""

from __future__ import annotations

import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from winspawn_lint import cli
from winspawn_lint.report.formats import FORMATS

DATA = Path(__file__).resolve().parent / "data"

HAZARD = '''\
import multiprocessing


def square(x):
    return x * x


pool = multiprocessing.Pool(2)
print(pool.map(lambda x: x, range(3)))
'''
CLEAN = "x = 1\n"


@pytest.fixture
def tree(tmp_path: Path, monkeypatch) -> Path:
    (tmp_path / "hazard.py").write_text(HAZARD, encoding="utf-8")
    (tmp_path / "clean.py").write_text(CLEAN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WINSPAWN_LINT_CACHE_DIR", str(tmp_path / ".cache"))
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = cli.main(["--isolated", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --- --help -----------------------------------------------------------------------------------------------

def test_help_documents_every_flag_the_exit_statuses_and_examples(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["--help"])
    assert done.value.code == 0
    text = capsys.readouterr().out
    for flag in ("--output-format", "--format", "--output-file", "--exit-zero", "--add-noqa", "--show-settings",
                 "--quiet", "--silent", "--watch", "--no-respect-gitignore", "--statistics"):
        assert flag in text, flag
    assert "exit status:" in text and "examples:" in text
    for status in ("0 ", "1 ", "2 ", "130"):
        assert f"\n  {status}" in text, status
    assert "json" in text.split("--output-format", 1)[1]  # the formats are described, not only listed


# --- --output-format ----------------------------------------------------------------------------------------

def test_format_is_an_alias_of_output_format(tree, capsys):
    _, by_new_name, _ = run(capsys, "--output-format", "json", "hazard.py")
    _, by_old_name, _ = run(capsys, "--format", "json", "hazard.py")
    assert json.loads(by_new_name) == json.loads(by_old_name) and len(json.loads(by_new_name)) == 2


# --- --statistics in every format ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sarif_validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


EXPECTED_STATISTICS = [
    {"code": "WSP101", "name": "unguarded-process-start", "count": 1, "fixable": True},
    {"code": "WSP201", "name": "lambda-to-worker", "count": 1, "fixable": True},
]


@pytest.mark.parametrize("statistics", [False, True], ids=["plain", "statistics"])
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("target", ["hazard.py", "clean.py"])
def test_every_format_with_and_without_statistics(tree, capsys, sarif_validator, fmt, statistics, target):
    args = ["--output-format", fmt, *(["--statistics"] if statistics else []), target]
    status, out, err = run(capsys, *args)
    assert status == (1 if target == "hazard.py" else 0) and err == ""
    expected = EXPECTED_STATISTICS if target == "hazard.py" else []
    if fmt == "json":
        data = json.loads(out)  # one document, whatever the flags
        if statistics:
            assert data == expected  # ruff's --statistics --output-format json: the counts instead of the findings
        else:
            assert [row["code"] for row in data] == [entry["code"] for entry in expected]
    elif fmt == "sarif":
        data = json.loads(out)
        sarif_validator.validate(data)
        run_ = data["runs"][0]
        assert len(run_["results"]) == len(expected)
        assert run_.get("properties", {}).get("statistics") == (expected if statistics else None)
    else:
        table = [line.split() for line in out.splitlines() if line.split()[:1] in (["1"],)]
        if statistics:
            assert table == [["1", entry["code"], entry["name"]] for entry in expected]
        else:
            assert table == []


# --- --exit-zero ----------------------------------------------------------------------------------------

def test_exit_zero_with_findings_and_after_a_fix_but_not_after_an_error(tree, capsys):
    assert run(capsys, "--exit-zero", "hazard.py")[0] == 0
    assert run(capsys, "hazard.py")[0] == 1
    status, out, _ = run(capsys, "--exit-zero", "--fix", "hazard.py")
    assert status == 0 and "lambda" not in (tree / "hazard.py").read_text()
    assert run(capsys, "--exit-zero", "missing.py")[0] == 2
    (tree / "broken.py").write_text("import multiprocessing\ndef (:\n")
    assert run(capsys, "--exit-zero", "broken.py")[0] == 2


# --- -o/--output-file -----------------------------------------------------------------------------------

def test_output_file_takes_the_report_and_creates_its_directory(tree, capsys):
    status, out, err = run(capsys, "--output-format", "json", "-o", "reports/lint.json", "hazard.py")
    assert (status, out, err) == (1, "", "")
    assert [row["code"] for row in json.loads((tree / "reports" / "lint.json").read_text())] == ["WSP101", "WSP201"]
    status, out, _ = run(capsys, "--output-file", "report.txt", "--statistics", "hazard.py")
    text = (tree / "report.txt").read_text()
    assert status == 1 and out == ""
    assert text.startswith("hazard.py:8:8: WSP101") and "\n1      WSP201 lambda-to-worker\n" in text
    assert "Found 2 errors." in text
    # a clean run still writes the file (an empty JSON list), replacing what was there
    run(capsys, "--output-format", "json", "-o", "reports/lint.json", "clean.py")
    assert json.loads((tree / "reports" / "lint.json").read_text()) == []


def test_output_file_with_diff_keeps_the_patch_on_stdout(tree, capsys):
    status, out, err = run(capsys, "--diff", "--output-format", "json", "-o", "report.json", "hazard.py")
    assert out.startswith("--- hazard.py") and "+++ hazard.py" in out
    json.loads((tree / "report.json").read_text())
    # without -o the report goes to stderr: stdout stays a patch for every format
    status, out, err = run(capsys, "--diff", "--output-format", "grouped", "--unsafe-fixes", "hazard.py")
    assert out.startswith("--- hazard.py") and "WSP" not in out.replace("hazard.py", "")


def test_an_unwritable_output_file_is_one_error_line(tree, capsys):
    (tree / "taken").write_text("")
    status, out, err = run(capsys, "-o", "taken/report.txt", "hazard.py")
    assert status == 2 and err.startswith("winspawn-lint: cannot write taken/report.txt") and err.count("\n") == 1


# --- -q/--quiet, -s/--silent ------------------------------------------------------------------------------

def test_quiet_prints_the_findings_and_nothing_else(tree, capsys):
    status, out, err = run(capsys, "-q", "hazard.py")
    assert status == 1 and err == ""
    assert [line.split(":")[3].split()[0] for line in out.splitlines()] == ["WSP101", "WSP201"]  # no summary
    status, out, err = run(capsys, "--quiet", "--fix", "hazard.py")
    assert status == 1 and err == "" and "rewrote" not in out


def test_silent_prints_nothing_and_the_exit_status_tells(tree, capsys):
    assert run(capsys, "-s", "hazard.py") == (1, "", "")
    assert run(capsys, "--silent", "clean.py") == (0, "", "")
    status, out, err = run(capsys, "-s", "-o", "report.txt", "hazard.py")
    assert (status, out) == (1, "") and "WSP101" in (tree / "report.txt").read_text()
    status, out, err = run(capsys, "-s", "missing.py")
    assert status == 2 and out == "" and "missing.py" in err  # an error is still explained


def test_quiet_and_silent_exclude_each_other(tree, capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["-q", "-s", "hazard.py"])
    assert done.value.code == 2 and "not allowed with" in capsys.readouterr().err


# --- --show-settings --------------------------------------------------------------------------------------

def test_show_settings_names_the_file_the_configuration_and_the_rules(tree, capsys):
    (tree / "pyproject.toml").write_text(
        '[tool.winspawn-lint]\nextend-select = ["WSP105"]\nper-file-ignores = { "scripts/*" = ["WSP2"] }\n'
        'extend-exclude = ["scripts/legacy_*.py"]\n')
    (tree / "scripts").mkdir()
    (tree / "scripts" / "job.py").write_text(HAZARD)
    (tree / "scripts" / "legacy_job.py").write_text(HAZARD)
    status = cli.main(["--show-settings", "scripts"])
    text = capsys.readouterr().out
    assert status == 0
    lines = text.splitlines()
    assert lines[0] == 'Resolved settings for: "scripts/job.py"'  # the first file a check would check
    assert lines[1] == f"Settings path: {json.dumps(str(tree / 'pyproject.toml'))}"
    assert '    "WSP105",  # missing-freeze-support' in lines and '    "WSP101",  # unguarded-process-start' in lines
    assert not any(line.startswith('    "WSP2') for line in lines)  # per-file-ignores applied
    assert 'per-file-ignores = {"scripts/*" = ["WSP201", "WSP202", "WSP203", "WSP204", "WSP205", "WSP206"]}' in lines

    cli.main(["--show-settings", "scripts/legacy_job.py"])
    assert "a directory walk skips this file (it matches exclude or extend-exclude)" in capsys.readouterr().out
    cli.main(["--isolated", "--show-settings", "hazard.py"])
    assert "Settings path: none (the defaults)" in capsys.readouterr().out


# --- configuration messages -------------------------------------------------------------------------------

def test_config_naming_a_directory_is_rejected_with_what_to_pass(tree, capsys):
    (tree / "proj").mkdir()
    status = cli.main(["--config", "proj", "hazard.py"])
    err = capsys.readouterr().err
    assert status == 2 and err == "winspawn-lint: configuration error: --config proj: is a directory, not a " \
                                  "configuration file\n"
    (tree / "proj" / "pyproject.toml").write_text("[tool.winspawn-lint]\n")
    cli.main(["--config", "proj", "hazard.py"])
    assert capsys.readouterr().err.endswith(f"; did you mean --config {os.path.join('proj', 'pyproject.toml')}?\n")


def test_a_bad_key_names_the_file_and_suggests_the_key(tree, capsys):
    (tree / "pyproject.toml").write_text('[tool.winspawn-lint]\nselct = ["WSP1"]\n')
    status = cli.main(["hazard.py"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("winspawn-lint: configuration error: pyproject.toml: [tool.winspawn-lint]: unknown key "
                          "'selct'; did you mean 'select'? (known: ")


# --- --watch ---------------------------------------------------------------------------------------------

def _lines(stream, into: "queue.Queue[str]") -> None:
    for line in iter(stream.readline, ""):
        into.put(line)


def _wait_for(lines: "queue.Queue[str]", text: str, seen: list[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=deadline - time.monotonic())
        except queue.Empty:
            break
        seen.append(line)
        if text in line:
            return
    raise AssertionError(f"{text!r} never came; output so far:\n{''.join(seen)}")


@pytest.mark.skipif(sys.platform == "win32", reason="sends SIGINT")
def test_watch_checks_again_on_a_change_and_stops_cleanly_on_ctrl_c(tree):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # Python's own SIGINT handling, whatever this process was started with (a background run ignores SIGINT)
    watcher = subprocess.Popen(
        [sys.executable, "-c", "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "from winspawn_lint.cli import main; sys.exit(main(sys.argv[1:]))", "--isolated", "--watch", "."],
        cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: "queue.Queue[str]" = queue.Queue()
    reader = threading.Thread(target=_lines, args=(watcher.stdout, lines), daemon=True)
    reader.start()
    seen: list[str] = []
    try:
        _wait_for(lines, "Found 2 errors.", seen)
        (tree / "hazard.py").write_text(CLEAN)  # the fix, made by hand
        _wait_for(lines, "change detected", seen)
        (tree / "new.py").write_text(HAZARD)  # a file added to a watched directory
        _wait_for(lines, "new.py:8:8: WSP101", seen)
        watcher.send_signal(signal.SIGINT)
        assert watcher.wait(timeout=30) == 130
    finally:
        if watcher.poll() is None:
            watcher.kill()
            watcher.wait()
    reader.join(timeout=10)
    while not lines.empty():
        seen.append(lines.get_nowait())
    watcher.stdout.close()
    output = "".join(seen)
    assert "Traceback" not in output
    assert "winspawn-lint: interrupted" in output


@pytest.mark.parametrize("args, message", [
    (["--watch", "-"], "--watch needs files, not stdin"),
    (["--add-noqa", "--fix", "."], "--add-noqa cannot be combined with --fix, --diff or --watch"),
])
def test_flags_that_cannot_go_together(tree, capsys, args, message):
    with pytest.raises(SystemExit) as done:
        cli.main(args)
    assert done.value.code == 2 and message in capsys.readouterr().err
