"""The check command's contract: output format, selection, noqa, exit statuses, stdin."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from samples import POOL_AT_IMPORT as HAZARD
from winspawn_lint.cli import _regions

CLEAN = textwrap.dedent('''\
    import multiprocessing


    def square(x):
        return x * x


    if __name__ == "__main__":
        multiprocessing.freeze_support()
        with multiprocessing.Pool(2) as pool:
            print(pool.map(square, range(3)))
''')
LAMBDA = textwrap.dedent('''\
    import multiprocessing


    def main():
        with multiprocessing.Pool(2) as pool:
            print(pool.map(lambda x: x, range(3)))  # noqa: WSP2
            print(pool.map(lambda x: x, range(3)))  # noqa: WSP101
            print(pool.map(
                lambda x: x,
                range(3),
            ))  # noqa
            print(pool.map(lambda x: x, range(3)))  # NOQA:WSP201


    if __name__ == "__main__":
        multiprocessing.freeze_support()
        main()
''')


def run(*args: str, stdin: str | None = None, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "winspawn_lint", "--isolated", *args], input=stdin,
                          capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.fixture
def tree(tmp_path):
    (tmp_path / "hazard.py").write_text(HAZARD)
    (tmp_path / "clean.py").write_text(CLEAN)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "noqa.py").write_text(LAMBDA)
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "ignored.py").write_text(HAZARD)
    return tmp_path


def test_flake8_format_sorted_and_exit_1(tree):
    proc = run(cwd=tree)
    assert proc.returncode == 1
    assert proc.stderr == ""
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("hazard.py:8:8: WSP101 ")
    # Default excludes: .venv is not walked.
    assert not any(".venv" in line for line in lines)


def test_clean_exit_0(tree):
    proc = run(str(tree / "clean.py"))
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")


def test_noqa_semantics_follow_flake8(tree):
    proc = run(str(tree / "pkg" / "noqa.py"))
    # line 6: `noqa: WSP2` (prefix) silences WSP201; line 7: another code does not;
    # lines 8-11: as in flake8, a noqa at the end of a bracketed multi-line call covers only its own
    # physical line (tokenize ends a range at each NL); line 12: case-insensitive, no space after the colon.
    assert [line.split(":")[1] for line in proc.stdout.splitlines() if ": WSP" in line] == ["7", "9"]


def test_select_ignore_and_extend_select(tree):
    assert run("--ignore", "WSP101", str(tree / "hazard.py")).returncode == 0
    assert run("--select", "WSP2", str(tree / "hazard.py")).returncode == 0
    proc = run("--extend-select", "WSP105", str(tree / "clean.py"))
    assert proc.returncode == 0  # the clean file calls freeze_support() first
    assert run("--select", "WSP999", str(tree / "hazard.py")).returncode == 2


def test_json_fields(tree):
    proc = run("--format", "json", str(tree / "hazard.py"))
    data = json.loads(proc.stdout)
    assert data == [{
        "path": str(tree / "hazard.py"), "line": 8, "col": 8, "end_line": 8, "end_col": 31, "code": "WSP101",
        # (the fix is safe: nothing imports hazard.py)
        "name": "unguarded-process-start", "message": data[0]["message"], "fix_safety": "safe",
        "platforms": ["windows", "macos", "linux>=3.14"],
    }]
    assert "import time" in data[0]["message"]


def test_stdin(tree):
    proc = run("-", "--stdin-filename", "train.py", stdin=HAZARD)
    assert proc.returncode == 1
    assert proc.stdout.startswith("train.py:8:8: WSP101")


def test_missing_path_and_unparsable_file_exit_2_but_others_checked(tree):
    # A file is parsed only if it mentions a worker API (the prefilter): this one does.
    (tree / "broken.py").write_text("from multiprocessing import Pool\ndef (:\n")
    proc = run(str(tree / "broken.py"), str(tree / "nope.py"), str(tree / "hazard.py"))
    assert proc.returncode == 2
    assert "WSP101" in proc.stdout
    errors = proc.stderr.splitlines()
    assert len(errors) == 2 and all(": error: " in line for line in errors)
    assert "Traceback" not in proc.stderr


def test_version_and_statistics(tree):
    proc = run("--version")
    assert proc.returncode == 0 and proc.stdout.startswith("winspawn-lint ")
    proc = run("--statistics", str(tree / "hazard.py"))
    assert ["1", "WSP101", "unguarded-process-start"] in [line.split() for line in proc.stdout.splitlines()]


def test_cli_does_not_import_flake8_or_libcst(tree):
    code = ("import sys; from winspawn_lint.cli import main; main(['--isolated', sys.argv[1]]);")
    proc = subprocess.run([sys.executable, "-c", code + "import sys; print(sorted(m for m in sys.modules "
                           "if m.split('.')[0] in ('flake8', 'libcst')))", str(tree / "hazard.py")],
                          capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip().splitlines()[-1] == "[]"


def test_a_check_imports_neither_dataclasses_nor_inspect(tree):
    # (``dataclasses`` compiles each class's methods when its module is imported and imports ``inspect``: 22 ms of
    # an 87 ms one-file run; the record classes have ``records``' bases instead.  Unless the interpreter starts
    # with them: a site hook may import them before the check.)
    probe = "import sys; print(sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules))"
    bare = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    code = "import sys; from winspawn_lint.cli import main; main(['--isolated', sys.argv[1]]); " + probe
    proc = subprocess.run([sys.executable, "-c", code, str(tree / "hazard.py")], capture_output=True, text=True,
                          timeout=60)
    assert "WSP101" in proc.stdout  # (checked, and its fix planned: the fixer's modules are imported too)
    assert proc.stdout.strip().splitlines()[-1] == bare.stdout.strip()


def test_the_public_api_checks_and_fixes_text():
    from winspawn_lint import check_text, fix_text

    findings = check_text(HAZARD, filename="x.py")
    assert [(f.line, f.code, f.col) for f in findings] == [(8, "WSP101", 7)]
    assert findings[0].name == "unguarded-process-start"
    assert fix_text(HAZARD, filename="x.py").text == HAZARD  # WSP101's fix is unsafe
    fixed = fix_text(HAZARD, filename="x.py", unsafe=True)
    assert [f.code for f in fixed.fixed] == ["WSP101"] and check_text(fixed.text) == []


def test_columns_are_characters_on_non_ascii_lines():
    from winspawn_lint import check_text

    source = textwrap.dedent('''\
        import multiprocessing
        def f(x): return x
        def main():
            with multiprocessing.Pool(2) as pool:
                print("données"); pool.map(lambda x: x, [1])
        if __name__ == "__main__":
            multiprocessing.freeze_support()
            main()
    ''')
    [finding] = check_text(source)
    line = source.splitlines()[4]
    assert line[finding.col:finding.end_col] == "lambda x: x"


@pytest.mark.parametrize("count, jobs", [(0, 2), (1, 2), (7, 3), (100, 2), (766, 2), (5000, 8)])
def test_each_worker_is_given_a_contiguous_region_of_the_files_in_small_chunks(count, jobs):
    """Files in walk order are neighbours that import the same modules: each worker starts on a region of its own
    (one per worker, sizes within one file), cut into chunks of at most 32 files, and every file is in one chunk."""
    regions = _regions(count, jobs)
    assert len(regions) == jobs
    chunks = [chunk for region in regions for chunk in region]
    assert [index for chunk in chunks for index in chunk] == list(range(count))
    assert all(0 < len(chunk) <= 32 and chunk.step == 1 for chunk in chunks)
    sizes = [sum(len(chunk) for chunk in region) for region in regions]
    assert max(sizes) - min(sizes) <= 1


def test_a_diff_run_keeps_each_fixed_file_as_its_patch(tmp_path):
    """--diff prints the patches at the end of the run: each file's is made when the file is done, and its two
    texts are not kept until then (on diffusers they were 32 MB of the run's peak)."""
    from winspawn_lint.analysis.project import Project
    from winspawn_lint.cli import _check_many
    from winspawn_lint.runner import Job
    from winspawn_lint.settings import Settings

    (tmp_path / "train.py").write_text(HAZARD, encoding="utf-8")
    (result,) = _check_many([str(tmp_path / "train.py")], Job(Settings(), diff=True, unsafe_fixes=True), 1, Project())
    assert result.changed and result.original_text is None and result.fixed_text is None
    (patch,) = result.diff_lines
    assert patch.startswith(f"--- {tmp_path / 'train.py'}\n") and '+if __name__ == "__main__":\n' in patch
    assert run("--diff", "--unsafe-fixes", str(tmp_path / "train.py")).stdout == patch


def test_a_serial_run_that_skips_the_interpreter_teardown_leaves_every_output_whole(tmp_path):
    """The command ends a run that started no workers with ``os._exit`` (freeing what the run kept took a tenth of
    its CPU): the report, many buffers of it, the output file and the cache are still whole."""
    tree = tmp_path / "tree"
    tree.mkdir()
    for number in range(120):
        (tree / f"script_{number:03}.py").write_text(HAZARD, encoding="utf-8")
    env = {**os.environ, "WINSPAWN_LINT_CACHE_DIR": str(tmp_path / "cache")}

    def check(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "winspawn_lint", "--isolated", "-j", "1", *args, str(tree)],
                              capture_output=True, text=True, env=env, timeout=300)

    cold = check()
    assert cold.returncode == 1 and len(cold.stdout) > 1 << 14  # (Python buffers 8 KB of a pipe)
    assert cold.stdout.count("\n") == cold.stdout.count(": WSP") + 2  # (the findings, the count, the fix line)
    to_file = check("-o", str(tmp_path / "report.txt"))  # (a warm run: every file from the cache)
    assert to_file.returncode == 1 and to_file.stdout == ""
    assert (tmp_path / "report.txt").read_text(encoding="utf-8") == cold.stdout
    assert any((tmp_path / "cache").rglob("*.json"))
