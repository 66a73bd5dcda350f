"""The results cache: every run with it reports exactly what a run without it (``--no-cache``) reports.

Between runs the tests edit, rename, delete, touch and add files, change a module another file's findings
depend on, corrupt the cache, and run two commands at once on the same cache.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from winspawn_lint.io import cache as cache_module
from winspawn_lint.cli import main

POOL_AT_IMPORT = textwrap.dedent('''\
    import multiprocessing


    def square(x):
        return x * x


    pool = multiprocessing.Pool(2)
    print(pool.map(square, range(3)))
''')
GUARDED = textwrap.dedent('''\
    import multiprocessing


    def square(x):
        return x * x


    if __name__ == "__main__":
        with multiprocessing.Pool(2) as pool:
            print(pool.map(lambda x: x, range(3)))
''')
# The worker count comes from a sibling module: the findings of train.py depend on config.py.
TRAIN = textwrap.dedent('''\
    from torch.utils.data import DataLoader

    from config import NUM_WORKERS

    loader = DataLoader(range(4), num_workers=NUM_WORKERS, collate_fn=lambda b: b)
    for batch in loader:
        pass
''')
PLAIN = "def f():\n    return 1\n"


def run(*args: str) -> tuple[int, str, str]:
    """One in-process CLI run (exit status, stdout, stderr), with and without the cache: they must agree."""
    results = []
    for extra in ((), ("--no-cache",)):
        import io
        from contextlib import redirect_stderr, redirect_stdout

        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main(["--isolated", "-j", "1", *extra, *args])
        results.append((status, out.getvalue(), err.getvalue()))
    assert results[0] == results[1]
    return results[0]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(cache_module.ENV_VAR, raising=False)
    write(tmp_path / "hazard.py", POOL_AT_IMPORT)
    write(tmp_path / "guarded.py", GUARDED)
    write(tmp_path / "pkg" / "plain.py", PLAIN)
    write(tmp_path / "config.py", "NUM_WORKERS = 0\n")
    write(tmp_path / "train.py", TRAIN)
    return tmp_path


def cached_paths(root: Path) -> set[str]:
    files = list((root / cache_module.CACHE_DIR_NAME).glob("results-*.json"))
    assert len(files) <= 1
    return set(json.loads(files[0].read_text())["files"]) if files else set()


def test_every_run_agrees_with_no_cache_across_edits_renames_deletes_and_touches(project):
    first = run(".")
    assert first[0] == 1 and "hazard.py:8:8: WSP101" in first[1]
    assert {os.path.basename(p) for p in cached_paths(project)} == {"hazard.py", "guarded.py", "plain.py",
                                                                   "config.py", "train.py"}
    assert run(".") == first  # a warm run: nothing changed

    write(project / "hazard.py", POOL_AT_IMPORT.replace("pool = ", "if __name__ == '__main__':\n    pool = ")
          .replace("print(pool", "    print(pool"))
    assert "hazard.py" not in run(".")[1]  # edited: re-checked
    write(project / "hazard.py", POOL_AT_IMPORT)  # edited back at once: same mtime tick is possible
    assert "hazard.py:8:8: WSP101" in run(".")[1]
    write(project / "hazard.py", POOL_AT_IMPORT.replace("square", "cubicx"))  # same size, same moment
    assert "hazard.py:8:8: WSP101" in run(".")[1]

    os.rename(project / "guarded.py", project / "pkg" / "moved.py")
    assert "pkg/moved.py:10:24: WSP201" in run(".")[1]
    os.remove(project / "hazard.py")
    assert "hazard.py" not in run(".")[1]
    os.utime(project / "train.py", ns=(10**18, 10**18))  # touched (and far from now): the content hash decides
    run(".")

    # The dependency: NUM_WORKERS = 2 makes the lambda in train.py reach worker processes.
    assert "train.py" not in run(".")[1]
    write(project / "config.py", "NUM_WORKERS = 2\n")
    assert "train.py:5:67: WSP201" in run(".")[1]
    os.remove(project / "config.py")  # an absent sibling: the count is unknown, assumed to start workers
    run(".")
    write(project / "config.py", "NUM_WORKERS = 0\n")  # it appears again
    assert "train.py" not in run(".")[1]

    write(project / "new.py", POOL_AT_IMPORT)  # a new file
    assert "new.py:8:8: WSP101" in run(".")[1]
    assert not any(p.endswith("/hazard.py") for p in cached_paths(project))  # dropped when the cache is next written
    run("--format", "grouped", ".")  # the source lines of cached findings
    run("--select", "WSP2", ".")  # other settings: another cache file
    run("new.py", "pkg/plain.py")  # named files


def test_old_file_times_hit_without_reading(project, monkeypatch):
    from winspawn_lint.io import source

    for path in project.rglob("*.py"):
        os.utime(path, ns=(10**18, 10**18))
    first = run(".")
    reads = []
    original = source.read

    def counting_read(path, *args, **kwargs):
        reads.append(os.path.basename(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(source, "read", counting_read)
    assert main(["--isolated", "-j", "1", "."]) == first[0]
    # No file is read to be checked (the safety of hazard.py's WSP101 fix, which depends on other files and is
    # not cached, reads its first line and searches the project's imports as text); --no-cache reads all 5.
    assert reads == []
    assert main(["--isolated", "-j", "1", "--no-cache", "."]) == first[0]
    assert sorted(reads) == ["config.py", "guarded.py", "hazard.py", "plain.py", "train.py"]


def test_a_syntax_error_is_never_cached_and_a_named_file_is_parsed(project):
    write(project / "broken.py", "def f(:\n")
    assert run("broken.py")[0] == 2
    assert run("broken.py")[0] == 2
    assert not any(p.endswith("broken.py") for p in cached_paths(project))
    # Walked, an unparsable file the prefilter rejects is not parsed (and may be cached as such) ...
    assert run(".")[0] == 1
    # ... but named, it must be parsed: that cached entry is not enough.
    assert run("broken.py")[0] == 2


def test_corrupt_foreign_and_old_caches_are_ignored_and_rebuilt(project):
    first = run(".")
    [path] = (project / cache_module.CACHE_DIR_NAME).glob("results-*.json")
    for garbage in (b"\0\xff not json", b'{"format": 1, "key": "another", "files": {}}', b"[]",
                    json.dumps({"format": 0, "files": {}}).encode(),
                    path.read_bytes().replace(b'"WSP101"', b'"WSP999"').replace(b"[8,", b'["8",')):
        path.write_bytes(garbage)
        assert run(".") == first
        json.loads(path.read_text())  # rewritten whole


def test_diff_and_fix_take_from_the_cache_only_the_files_with_nothing_to_fix(project, monkeypatch):
    from winspawn_lint import cli

    write(project / "user.py", "import hazard\n")  # hazard.py is imported: moving its code is an unsafe fix
    run(".")
    checked = []
    check_file = cli.check_file

    def spy(path, job, *args, **kwargs):
        checked.append(os.path.basename(path))
        return check_file(path, job, *args, **kwargs)

    monkeypatch.setattr(cli, "check_file", spy)
    assert main(["--isolated", "-j", "1", "--diff", "."]) == 1
    assert "guarded.py" in checked and "hazard.py" not in checked and "plain.py" not in checked
    checked.clear()
    assert main(["--isolated", "-j", "1", "--diff", "--unsafe-fixes", "."]) == 1
    assert "guarded.py" in checked and "hazard.py" in checked and "plain.py" not in checked
    # What they print is what --no-cache prints.
    status, out, err = run("--diff", ".")
    assert "+++ guarded.py" in out and "hazard.py: note: WSP101 not fixed" in err and "use --unsafe-fixes" in err
    status, out, err = run("--diff", "--unsafe-fixes", ".")
    assert "+++ hazard.py" in out and "+++ guarded.py" in out


def test_a_rerun_of_diff_takes_the_fixers_outcome_from_the_cache_until_the_request_or_grade_changes(
        project, monkeypatch):
    from winspawn_lint import fix

    fixed = []
    fix_text = fix.fix_text

    def spy(*args, **kwargs):
        fixed.append(os.path.basename(kwargs["filename"]))
        return fix_text(*args, **kwargs)

    monkeypatch.setattr(fix, "fix_text", spy)
    first = run("--diff", "--unsafe-fixes", ".")  # (the --no-cache half of run() fixes too)
    assert "+++ hazard.py" in first[1] and "+++ guarded.py" in first[1]
    fixed.clear()
    assert run("--diff", "--unsafe-fixes", ".") == first
    assert fixed.count("hazard.py") == 1 and fixed.count("guarded.py") == 1  # only the --no-cache half
    # Another request (safe fixes only) is another outcome: computed once, then cached too.  (Nothing imports
    # hazard.py, so moving its code under a main guard is a safe fix here.)
    fixed.clear()
    safe = run("--diff", ".")
    assert fixed.count("guarded.py") == 2 and fixed.count("hazard.py") == 2
    fixed.clear()
    assert run("--diff", ".") == safe and fixed.count("guarded.py") == 1 and fixed.count("hazard.py") == 1
    # A module that imports hazard.py makes that fix unsafe: the cached outcome no longer answers.
    write(project / "user.py", "import hazard\n")
    fixed.clear()
    assert run("--diff", "--unsafe-fixes", ".")[1] == first[1]
    assert fixed.count("hazard.py") == 2 and fixed.count("guarded.py") == 1
    fixed.clear()
    assert "+++ hazard.py" not in run("--diff", ".")[1] and "hazard.py" not in fixed
    # --fix after --diff writes exactly what --diff showed (taken from the cache: no fixer run).
    from winspawn_lint import fix_text as fix_source

    expected = fix_source(POOL_AT_IMPORT, "hazard.py", unsafe=True).text
    assert expected != POOL_AT_IMPORT
    main(["--isolated", "-j", "1", "--diff", "--unsafe-fixes", "hazard.py"])
    fixed.clear()
    assert main(["--isolated", "-j", "1", "--fix", "--unsafe-fixes", "hazard.py"]) == 1
    assert fixed == [] and (project / "hazard.py").read_text() == expected


def test_a_damaged_fix_outcome_in_the_cache_is_recomputed(project):
    first = run("--diff", "--unsafe-fixes", "hazard.py")
    [path] = (project / cache_module.CACHE_DIR_NAME).glob("results-*.json")
    data = json.loads(path.read_text())
    for entry in data["files"].values():
        for record in entry[5].values():
            if record[0]:
                record[0][0][2] = ["import os\n"]  # edits that no longer give the stored text's hash
    path.write_text(json.dumps(data))
    assert run("--diff", "--unsafe-fixes", "hazard.py") == first


def test_no_cache_writes_nothing_and_a_file_fix_rewrote_is_checked_again(project):
    run_status = main(["--isolated", "--no-cache", "-j", "1", "."])
    assert run_status == 1
    assert not (project / cache_module.CACHE_DIR_NAME).exists()
    write(project / "lam.py", GUARDED)
    run(".")
    assert main(["--isolated", "-j", "1", "--fix", "lam.py"]) == 1
    assert "lambda" not in (project / "lam.py").read_text()
    assert "lam.py" not in run(".")[1]


def test_cache_directory_setting_environment_and_gitignore(project, monkeypatch):
    run(".")
    directory = project / cache_module.CACHE_DIR_NAME
    assert (directory / ".gitignore").read_text().splitlines()[-1] == "*"
    write(project / "pyproject.toml", '[tool.winspawn-lint]\ncache-dir = "build/wsp-cache"\n')
    assert main(["-j", "1", "."]) == 1
    assert list((project / "build" / "wsp-cache").glob("results-*.json"))
    monkeypatch.setenv(cache_module.ENV_VAR, str(project / "elsewhere"))
    assert main(["-j", "1", "."]) == 1
    assert list((project / "elsewhere").glob("results-*.json"))


def test_settings_digest_is_stable_and_covers_findings_settings():
    from winspawn_lint.settings import Settings, settings_from_mapping

    base = Settings()
    assert cache_module.settings_digest(base) == cache_module.settings_digest(Settings())
    for table in ({"extend-select": ["WSP105"]}, {"unresolved-workers": "assume-none"},
                  {"per-file-ignores": {"a.py": ["WSP101"]}},
                  {"spawn-api": [{"name": "lab.run_all", "workers": "n", "payload": ["fn:0"]}]}):
        assert cache_module.settings_digest(settings_from_mapping(table)) != cache_module.settings_digest(base)
    for table in ({"extend-exclude": ["x"]}, {"cache-dir": "elsewhere"}):
        assert cache_module.settings_digest(settings_from_mapping(table)) == cache_module.settings_digest(base)


def test_the_digest_covers_every_module_of_the_package():
    # An editable install changes without a version bump: the fixer's and the checks' modules count, not only io/.
    modules = {entry[0].replace(os.sep, "/") for entry in cache_module._own_sources()}
    assert {"fix/wrap_in_main_guard.py", "analysis/__init__.py", "pipeline.py", "io/cache.py"} <= modules


def test_two_commands_at_once_share_one_cache(project):
    for index in range(40):
        write(project / f"m{index}" / "hazard.py", POOL_AT_IMPORT)
        write(project / f"m{index}" / "plain.py", PLAIN * (index + 1))
    expected = subprocess.run([sys.executable, "-m", "winspawn_lint", "--isolated", "--no-cache", "."],
                              cwd=project, capture_output=True, text=True, timeout=120)
    for round_ in range(3):
        procs = [subprocess.Popen([sys.executable, "-m", "winspawn_lint", "--isolated", "-j", jobs, "."],
                                  cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for jobs in ("1", "2")]
        for proc in procs:
            out, err = proc.communicate(timeout=120)
            assert (proc.returncode, out, err) == (expected.returncode, expected.stdout, expected.stderr)
        assert len(cached_paths(project)) == 85  # one whole, parseable file: never a torn write
        write(project / f"m{round_}" / "hazard.py", POOL_AT_IMPORT + "\n")


def test_editing_a_project_module_rechecks_the_files_whose_findings_depend_on_it(project):
    # ds.py's Dataset comes from base.py (the project model reads it): editing base.py must re-check ds.py.
    write(project / "base.py", "from torch.utils.data import Dataset\n\n\nclass BaseDataset(Dataset):\n    pass\n")
    write(project / "ds.py", "import threading\n\nfrom base import BaseDataset\n\n\nclass Mine(BaseDataset):\n"
          "    def __init__(self):\n        self.lock = threading.Lock()\n")
    assert "ds.py:8:9: WSP301" in run("ds.py")[1]
    write(project / "base.py", "class BaseDataset:\n    pass\n")
    assert "WSP301" not in run("ds.py")[1]


def test_editing_a_module_another_check_only_looked_for_rechecks_only_that_module(project, monkeypatch):
    # Checking ds.py asks which files import it: train.py does, and resolving train.py's imports looks for
    # util.py without reading it.  Only util.py's presence is a dependency of ds.py's findings, not its text.
    from winspawn_lint.io import source

    write(project / "pkg" / "__init__.py", "")
    write(project / "pkg" / "ds.py", "import threading\n\nfrom torch.utils.data import Dataset\n\n\n"
          "class Mine(Dataset):\n    def __init__(self):\n        self.lock = threading.Lock()\n")
    write(project / "pkg" / "util.py", "def helper():\n    return 1\n")
    write(project / "pkg" / "train.py", "from pkg import ds\nfrom pkg import util\n\nprint(ds, util)\n")
    for path in project.rglob("*.py"):
        os.utime(path, ns=(10**18, 10**18))
    first = run(".")
    assert "pkg/ds.py:8:9: WSP301" in first[1]
    reads = []
    original = source.read

    def counting_read(path, *args, **kwargs):
        reads.append(os.path.relpath(path, project))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(source, "read", counting_read)
    write(project / "pkg" / "util.py", "def helper():\n    return 2\n")
    os.utime(project / "pkg" / "util.py", ns=(15 * 10**17, 15 * 10**17))
    assert main(["--isolated", "-j", "1", "."]) == first[0]
    assert reads == [os.path.join("pkg", "util.py")]
    assert run(".") == first  # (and the answer is --no-cache's)
    os.remove(project / "pkg" / "util.py")  # gone: train.py's import no longer finds it, and ds.py is re-checked
    reads.clear()
    main(["--isolated", "-j", "1", "."])
    assert os.path.join("pkg", "ds.py") in reads


def test_a_warm_run_reads_no_file_to_search_the_project_and_an_edited_one_again(project, monkeypatch):
    # The derived facts (which files import a module) are recomputed at lookup: from what the cache kept of each
    # file's imports while its size and mtime are unchanged, not from reading every file of the project again.
    from winspawn_lint.analysis import importers

    for path in project.rglob("*.py"):
        os.utime(path, ns=(10**18, 10**18))
    first = run(".")
    searched = []
    original = importers._read_regular

    def counting(path):
        searched.append(os.path.relpath(path, project))
        return original(path)

    monkeypatch.setattr(importers, "_read_regular", counting)
    assert main(["--isolated", "-j", "1", "."]) == first[0]
    assert searched == []
    write(project / "config.py", "NUM_WORKERS = 2\n")
    os.utime(project / "config.py", ns=(15 * 10**17, 15 * 10**17))
    status = main(["--isolated", "-j", "1", "."])
    assert searched in ([], ["config.py"])  # (the edited file, if this run searches the project)
    searched.clear()
    assert main(["--isolated", "-j", "1", "."]) == status
    assert searched == []
    assert run(".")[0] == status  # (the same answer as --no-cache)
