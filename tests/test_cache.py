"""The results cache: every run with it reports exactly what a run without it (``--no-cache``) reports.

Between runs the tests edit, rename, delete, touch and add files, change a module another file's findings
depend on, corrupt the cache, and run two commands at once on the same cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from modes import in_process as run
from samples import POOL_AT_IMPORT, TRAIN_WITH_SIBLING_CONFIG as TRAIN
from winspawn_lint.io import cache as cache_module
from winspawn_lint.cli import main

GUARDED = textwrap.dedent('''\
    import multiprocessing


    def square(x):
        return x * x


    if __name__ == "__main__":
        with multiprocessing.Pool(2) as pool:
            print(pool.map(lambda x: x, range(3)))
''')
PLAIN = "def f():\n    return 1\n"


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


def shard_files(root: Path) -> list[Path]:
    """The shards of the one settings digest the runs used (none before the first run; not the project search's
    memories beside them)."""
    directories = list((root / cache_module.CACHE_DIR_NAME).glob("results-*"))
    assert len(directories) <= 1 and all(directory.is_dir() for directory in directories)
    return sorted(path for path in directories[0].glob("*.json") if not path.name.startswith(("scan-", "run-"))) \
        if directories else []


def cached_paths(root: Path) -> set[str]:
    return {path for shard in shard_files(root) for path in json.loads(shard.read_text())["files"]}


def shard_file(root: Path, path: Path) -> Path:
    """The shard that holds the entry of *path*."""
    [directory] = (root / cache_module.CACHE_DIR_NAME).glob("results-*")
    return directory / f"{cache_module.shard_of(str(path))}.json"


def same_shard(path: Path, stem: str) -> Path:
    """A file name beside *path* (``<stem><n>.py``) whose entry lands in the same shard."""
    wanted = cache_module.shard_of(str(path))
    for number in range(100 * cache_module.SHARDS):
        other = path.parent / f"{stem}{number}.py"
        if cache_module.shard_of(str(other)) == wanted:
            return other
    raise AssertionError("no name found")  # (1 in SHARDS names land there: this bound is never reached)


def counted_reads(monkeypatch) -> list[str]:
    """The names of the files read to be checked from now on (a cache hit reads none)."""
    from winspawn_lint.io import source

    reads: list[str] = []
    original = source.read

    def counting_read(path, *args, **kwargs):
        reads.append(os.path.basename(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(source, "read", counting_read)
    return reads


@pytest.fixture
def built_graphs(monkeypatch) -> list[str]:
    """The roots of the import graphs built from now on (each test clears it when its warm runs start)."""
    from winspawn_lint.analysis import importers

    graphs: list[str] = []
    real_graph = importers.ImportGraph.__init__

    def counting_graphs(self, index):
        graphs.append(index.root)
        real_graph(self, index)

    monkeypatch.setattr(importers.ImportGraph, "__init__", counting_graphs)
    return graphs


def age(root: Path) -> None:
    """Give every file an old mtime, which the cache trusts at once (a fresh one is confirmed by hash)."""
    for path in root.rglob("*.py"):
        os.utime(path, ns=(10**18, 10**18))


def test_every_run_agrees_with_no_cache_across_edits_renames_deletes_and_touches(project):
    first = run(".")
    assert first[0] == 1 and "hazard.py:8:8: WSP101" in first[1]
    assert {os.path.basename(p) for p in cached_paths(project)} == {
        "hazard.py", "guarded.py", "plain.py", "config.py", "train.py"}
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
    run("--format", "grouped", ".")  # the source lines of cached findings
    run("--select", "WSP2", ".")  # other settings: another cache file
    run("new.py", "pkg/plain.py")  # named files


def test_old_file_times_hit_without_reading(project, monkeypatch):
    for path in project.rglob("*.py"):
        os.utime(path, ns=(10**18, 10**18))
    first = run(".")
    reads = counted_reads(monkeypatch)
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


def malformed_stamps(data: bytes) -> bytes:
    """A shard whose entries record their dependencies' stamps in shapes no writer gives."""
    shard = json.loads(data)
    for entry in shard["files"].values():
        for number, path in enumerate(entry[4]):
            entry[4][path] = ("x", [1], [1, 2, 3], {"a": 1}, ["1", 2], [[1], [2]])[number % 6]
    return json.dumps(shard).encode()


def test_corrupt_foreign_and_old_caches_are_ignored_and_rebuilt(project):
    first = run(".")
    shards = shard_files(project)
    for garbage in (lambda data: b"\0\xff not json", lambda data: b'{"format": 1, "key": "another", "files": {}}',
                    lambda data: b"[]", lambda data: json.dumps({"format": 0, "files": {}}).encode(),
                    lambda data: data[:len(data) // 2],  # truncated
                    lambda data: data.replace(b'"WSP101"', b'"WSP999"').replace(b"[8,", b'["8",'),
                    malformed_stamps):
        for shard in shards:
            shard.write_bytes(garbage(shard.read_bytes()))
        assert run(".") == first
        assert shard_files(project) == shards
        for shard in shards:
            json.loads(shard.read_text())  # rewritten whole


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
    for path in shard_files(project):
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
    assert list((project / "build" / "wsp-cache").glob("results-*/*.json"))
    monkeypatch.setenv(cache_module.ENV_VAR, str(project / "elsewhere"))
    assert main(["-j", "1", "."]) == 1
    assert list((project / "elsewhere").glob("results-*/*.json"))


def test_a_folder_of_the_users_that_cache_dir_names_is_not_marked(project):
    """The cache marks the directory it makes; a folder that already exists may hold the user's own files, which
    a ``.gitignore`` of ``*`` would hide from git."""
    (project / "build").mkdir()
    write(project / "build" / "notes.txt", "mine\n")
    write(project / "pyproject.toml", '[tool.winspawn-lint]\ncache-dir = "build"\n')
    assert main(["-j", "1", "."]) == 1
    assert list((project / "build").glob("results-*/*.json"))
    assert not (project / "build" / ".gitignore").exists() and not (project / "build" / "CACHEDIR.TAG").exists()
    assert (project / "build" / "notes.txt").read_text() == "mine\n"


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


def test_a_settings_read_follows_the_script_that_fills_it_and_the_module_that_makes_it(project):
    # data.py's collate function reads hp, made empty in hparams.py and configured by train.py's main(): the
    # finding in data.py depends on both other files.
    fixture = Path(__file__).parent / "fixtures" / "projects" / "hparams_configured_in_main"
    for name in ("data.py", "hparams.py", "train.py"):
        shutil.copy(fixture / name, project / name)
    train = (project / "train.py").read_text()
    found = "data.py:9:55: WSP107 `hp.seq_len`"
    assert found in run("data.py")[1]
    write(project / "train.py", train.replace("def main():\n    hp.configure(seq_len=2)\n",
                                              "hp.configure(seq_len=2)\n\n\ndef main():\n"))
    assert "WSP107" not in run("data.py")[1]  # configured at import: a spawned worker's import does it too
    write(project / "train.py", train)
    assert found in run("data.py")[1]
    hparams = (project / "hparams.py").read_text()
    write(project / "hparams.py", hparams.replace("hp = HParams()", "hp = HParams(seq_len=2)"))
    assert "WSP107" not in run("data.py")[1]  # made configured


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


def _printed(args: list[str]) -> tuple[int, str, str]:
    """``winspawn-lint --isolated -j 1 ARGS`` in this process: (exit status, stdout, stderr)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        status = main(["--isolated", "-j", "1", *args])
    return status, out.getvalue(), err.getvalue()


def test_editing_a_package_init_rechecks_only_the_files_that_used_what_changed(project, monkeypatch):
    # train.py takes make_loader from pkg/__init__.py, which passes it on from pkg/loaders.py: of the package's
    # __init__, train.py's findings depend on how it binds make_loader, not on the rest of it.
    write(project / "pkg" / "__init__.py", "from pkg.loaders import make_loader\n")
    write(project / "pkg" / "loaders.py", "from torch.utils.data import DataLoader\n\n\n"
          "def make_loader(data, collate):\n    return DataLoader(data, num_workers=2, collate_fn=collate)\n")
    write(project / "pkg" / "quiet.py", "def make_loader(data, collate):\n    return data\n")
    write(project / "train.py", "from pkg import make_loader\n\n\ndef main():\n"
          "    for batch in make_loader(range(4), lambda batch: batch):\n        print(batch)\n")
    age(project)
    first = run(".")
    assert "train.py:5:40: WSP201" in first[1]
    reads = counted_reads(monkeypatch)
    edits = [
        # (a new name, a new function: train.py is not checked again)
        ("from pkg.loaders import make_loader\n\nVERSION = 2\n", False),
        ("from pkg.loaders import make_loader\n\n\ndef version():\n    return 2\n", False),
        # (make_loader itself now comes from elsewhere, or from a star import, or is a function of the __init__)
        ("from pkg.quiet import make_loader\n", True),
        ("from pkg.loaders import *\n", True),
        ("from pkg import loaders\n\n\ndef make_loader(data, collate):\n"
         "    return loaders.make_loader(data, collate)\n", True),
        ("from pkg.loaders import make_loader\n", True),
    ]
    for step, (text, rechecked) in enumerate(edits, start=1):
        write(project / "pkg" / "__init__.py", text)
        os.utime(project / "pkg" / "__init__.py", ns=(10**18 + step * 10**9,) * 2)
        reads.clear()
        cached = _printed(["."])
        assert ("train.py" in reads) is rechecked, (text, reads)
        assert cached == _printed(["--no-cache", "."]), text
    assert run(".") == first


def test_a_warm_run_reads_no_file_to_search_the_project_and_an_edited_one_again(
        project, monkeypatch, built_graphs):
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
    # ... nor is the import graph built again: its answers are kept with what the search read of each file
    graphs = built_graphs
    graphs.clear()
    assert main(["--isolated", "-j", "1", "."]) == first[0]
    assert searched == [] and graphs == []
    write(project / "config.py", "NUM_WORKERS = 2\n")
    os.utime(project / "config.py", ns=(15 * 10**17, 15 * 10**17))
    status = main(["--isolated", "-j", "1", "."])
    assert searched in ([], ["config.py"])  # (the edited file, if this run searches the project)
    assert graphs == []  # (its imports and names are what they were: the graph's answers hold)
    searched.clear()
    graphs.clear()
    assert main(["--isolated", "-j", "1", "."]) == status
    assert searched == [] and graphs == []
    assert run(".")[0] == status  # (the same answer as --no-cache)


def test_a_parallel_run_keeps_what_its_workers_read_to_search_the_project(project, monkeypatch, built_graphs):
    """Specification: a parallel run's workers search the project, not its parent; they hand what they read to
    the parent, which keeps it as a serial run keeps its own, so that the run after the default (``-j`` one per
    CPU) one reads no file to search the project and builds no import graph (the first warm run after a
    default cold run of the six ML repositories took 5.2 s, the next 1.5 s)."""
    from winspawn_lint.analysis import importers

    age(project)
    first = run(".")
    shutil.rmtree(project / cache_module.CACHE_DIR_NAME)
    assert main(["--isolated", "-j", "2", "."]) == first[0]
    searched = []
    original = importers._read_regular
    monkeypatch.setattr(importers, "_read_regular", lambda path: searched.append(path) or original(path))
    built_graphs.clear()
    assert main(["--isolated", "-j", "1", "."]) == first[0]  # (its lookups recompute which files import what)
    assert searched == [] and built_graphs == []


def add_modules(root: Path, count: int = 60) -> None:
    """*count* more files, so that the entries spread over many shards."""
    for index in range(count):
        write(root / f"m{index}" / "plain.py", PLAIN * (index + 1))


def test_a_one_file_run_reads_and_writes_only_the_shard_of_that_file(project, monkeypatch):
    """Specification: the entries are split into shards by a hash of the file's path; a run reads a shard when it
    first looks up a file of it, and writes only the shards whose entries it changed.  A one-file run (an
    editor's save, pre-commit) reads one shard; a warm run over the tree with nothing changed writes none (and
    reads none either, when the record of the same run answers: see test_run_record.py)."""
    add_modules(project)
    age(project)
    first = run(".")
    assert len(shard_files(project)) > 40
    read, written = [], []
    reader, writer = cache_module._read, cache_module._merge_and_write

    def is_shard(path):  # (not the project search's memory)
        return os.path.basename(os.path.dirname(path)).startswith("results-") \
            and not os.path.basename(path).startswith("scan-")

    # (no record: every file looked up)
    monkeypatch.setattr(cache_module.ResultsCache, "recall_run", lambda self, key, paths: None)

    def reading(path, digest):
        if is_shard(path):
            read.append(Path(path))
        return reader(path, digest)

    def writing(path, digest, fresh):
        if is_shard(path):
            written.append(Path(path))
        return writer(path, digest, fresh)

    monkeypatch.setattr(cache_module, "_read", reading)
    monkeypatch.setattr(cache_module, "_merge_and_write", writing)
    assert main(["--isolated", "-j", "1", "hazard.py"]) == 1
    assert read == [shard_file(project, project / "hazard.py")] and written == []
    read.clear()
    assert main(["--isolated", "-j", "1", "."]) == first[0]
    assert sorted(read) == shard_files(project) and written == []  # warm, nothing changed

    write(project / "hazard.py", POOL_AT_IMPORT.replace("square", "cube"))
    os.utime(project / "hazard.py", ns=(15 * 10**17, 15 * 10**17))
    read.clear()
    assert main(["--isolated", "-j", "1", "hazard.py"]) == 1
    # (read to look the file up, and again to merge what other runs wrote meanwhile)
    assert set(read) == set(written) == {shard_file(project, project / "hazard.py")} and len(written) == 1
    assert run(".")[0] == first[0]  # (the answer is --no-cache's)


def test_a_corrupt_or_truncated_shard_costs_only_its_own_entries(project, monkeypatch):
    """Specification: a shard that cannot be read whole (corrupt, truncated, foreign) counts as empty: the files
    whose entries it held are checked again and it is rewritten; every other file is answered from its shard;
    the output is what ``--no-cache`` prints."""
    from winspawn_lint import cli

    add_modules(project)
    age(project)
    first = run(".")
    damaged = shard_file(project, project / "m7" / "plain.py")
    lost = {os.path.relpath(path, project) for path in json.loads(damaged.read_text())["files"]}
    others = {shard: shard.read_bytes() for shard in shard_files(project) if shard != damaged}
    checked = []
    check_file = cli.check_file

    def spy(path, job, *args, **kwargs):
        checked.append(os.path.relpath(os.path.abspath(path), project))
        return check_file(path, job, *args, **kwargs)

    monkeypatch.setattr(cli, "check_file", spy)
    for garbage in (damaged.read_bytes()[:-40], b"\0\xff not json", b""):
        damaged.write_bytes(garbage)
        checked.clear()
        assert main(["--isolated", "-j", "1", "."]) == first[0]
        assert set(checked) == lost and len(checked) == len(lost)
        assert {os.path.relpath(path, project) for path in json.loads(damaged.read_text())["files"]} == lost
        assert all(shard.read_bytes() == data for shard, data in others.items())
    assert run(".") == first


def test_a_deleted_file_is_dropped_when_a_run_next_reads_its_shard(project):
    """Specification: the entry of a deleted or renamed file does not pile up: a run that reads its shard (to
    look up another file of it) rewrites the shard without it."""
    neighbour = same_shard(project / "hazard.py", "n")
    write(neighbour, PLAIN)
    run(".")
    assert str(project / "hazard.py") in cached_paths(project)
    os.remove(project / "hazard.py")
    run(".")
    assert str(project / "hazard.py") not in cached_paths(project) and str(neighbour) in cached_paths(project)


WRITER = textwrap.dedent('''\
    import os, sys, time
    from winspawn_lint.io import cache

    directory, digest, go, *paths = sys.argv[1:]
    results = cache.ResultsCache(directory, digest)
    for path in paths:
        results.lookup(path, need_parsed=False)  # (reads the shards before the other writers write them)
        results.store(path, cache.Entry((1, 1), "0" * 32, True, []))
    deadline = time.monotonic() + 30
    while not os.path.exists(go) and time.monotonic() < deadline:
        time.sleep(0.001)
    results.save()
''')


def test_two_writers_at_once_keep_each_others_entries(tmp_path):
    """Specification: runs that share a cache and write the same shards at the same moment each keep the other's
    entries: a writer merges what is on disk into each shard it writes, one writer at a time (a lock)."""
    files = [tmp_path / f"f{index}.py" for index in range(200)]
    for path in files:
        write(path, PLAIN)
    directory, digest, go = tmp_path / "cache", "d" * 64, tmp_path / "go"
    halves = (files[::2], files[1::2])  # the same shards, each written by both
    for round_ in range(3):
        procs = [subprocess.Popen([sys.executable, "-c", WRITER, str(directory), digest, str(go),
                                   *map(str, half)]) for half in halves]
        time.sleep(0.5)
        go.touch()  # both save at once
        for proc in procs:
            assert proc.wait(timeout=60) == 0
        go.unlink()
        cache = cache_module.ResultsCache(str(directory), digest)
        assert all(cache._shard(str(path)).get(str(path)) for path in files)
        shutil.rmtree(directory)

    # Two runs that both read a shard before either writes it (the lost update without the merge).
    first, second = (cache_module.ResultsCache(str(directory), digest) for _ in range(2))
    one, other = files[0], same_shard(files[0], "g")
    write(other, PLAIN)
    for cache, path in ((first, one), (second, other)):
        assert cache.lookup(str(path), need_parsed=False) is None
        cache.store(str(path), cache_module.Entry((1, 1), "0" * 32, True, []))
    first.save()
    second.save()
    assert {str(one), str(other)} <= cached_paths_in(directory)


def cached_paths_in(directory: Path) -> set[str]:
    return {path for shard in directory.glob("results-*/[0-9a-f]*.json")  # (the shards, not the scan memories)
            for path in json.loads(shard.read_text())["files"]}


def test_the_single_file_of_the_layout_before_shards_is_removed_and_the_markers_kept(project):
    """Specification: the format before shards kept a digest's results in one file, ``results-<format>-<digest>
    .json``, and formats before 13 the project search's memory beside the shards, ``scan-<format>-<digest>.json``;
    the first run that makes its shard directory removes them (they are never read again), keeps the project
    search's memory in the digest's directory, one file per project root, and the cache directory keeps its
    ``.gitignore`` and ``CACHEDIR.TAG``."""
    directory = project / cache_module.CACHE_DIR_NAME
    directory.mkdir()
    cache_module._mark(directory)  # (as the run that made it did)
    old = [directory / "results-9-e5260740be2abd2555344d06.json", directory / "scan-9-e5260740be2abd2555344d06.json",
           directory / "scan-12-e5260740be2abd2555344d06.json"]
    for path in old:
        path.write_text('{"format": 9, "key": "x", "files": {}}')
    age(project)  # (the project search keeps what it read of a file only once its mtime is old enough)
    first = run(".")
    assert not any(path.exists() for path in old)
    assert (directory / ".gitignore").read_text().splitlines()[-1] == "*" and (directory / "CACHEDIR.TAG").exists()
    assert shard_files(project) and len(list(directory.glob(f"results-{cache_module.FORMAT}-*/scan-*.json"))) == 1
    assert not list(directory.glob("scan-*"))
    assert run(".") == first


def test_projects_sharing_a_cache_directory_keep_their_search_memories_apart(project, tmp_path, monkeypatch):
    """Specification: the project search's memory is kept per project root, so that a run in one project of a
    cache directory shared by several (``WINSPAWN_LINT_CACHE_DIR``, ``cache-dir``) reads that project's
    records only, not every project's: the one-file run in a small project sharing the benchmark's cache
    directory took 91 ms against 49 ms with its own."""
    shared = tmp_path / "shared-cache"
    monkeypatch.setenv(cache_module.ENV_VAR, str(shared))
    other = tmp_path / "other"
    write(other / "pyproject.toml", "")
    write(other / "train.py", TRAIN)
    write(other / "config.py", "NUM_WORKERS = 0\n")
    for root in (project, other):
        (root / ".git").mkdir(exist_ok=True)
        age(root)
    first = run(".")
    monkeypatch.chdir(other)
    other_first = run(".")
    [digest] = shared.glob("results-*")
    memories = sorted(digest.glob("scan-*.json"))
    assert len(memories) == 2
    read = []
    reader = cache_module._read
    monkeypatch.setattr(cache_module, "_read", lambda path, key: read.append(Path(path)) or reader(path, key))
    assert run(".") == other_first
    searched = [path for path in read if path.name.startswith("scan-")]
    assert len(set(searched)) == 1 and searched[0] in memories
    monkeypatch.chdir(project)
    read.clear()
    assert run(".") == first
    assert len({path for path in read if path.name.startswith("scan-")} - set(searched)) == 1


def test_a_new_digest_removes_the_stale_ones_and_leaves_anything_else(project):
    """Specification: each settings change, upgrade or edit of an editable install makes a new digest, the size
    of the tree's entries; when one is made, the others are kept while they are among the 7 most recently
    written and were written within 7 days, and the rest are removed with their project search memory.  A
    directory that holds anything but the cache's own files is left as it is."""
    directory = project / cache_module.CACHE_DIR_NAME
    directory.mkdir()
    week = 7 * 24 * 3600

    def digest(number: int, seconds_ago: float, extra: str = "") -> Path:
        name = f"{number:024x}"
        shards = directory / f"results-{cache_module.FORMAT}-{name}"
        shards.mkdir()
        for file in ("00.json", "scan-0123456789abcdef.json", ".lock", *([extra] if extra else [])):
            (shards / file).write_text("{}")
        written = time.time() - seconds_ago
        os.utime(shards, (written, written))
        return shards

    recent = [digest(number, 60 * number) for number in range(1, 10)]  # (9 written in the last hour)
    stale = digest(10, week + 60)
    foreign = digest(11, week + 60, extra="notes.txt")
    run(".")
    assert [path.exists() for path in recent] == [True] * cache_module.KEPT_DIGESTS + [False, False]
    assert not stale.exists()
    assert sorted(path.name for path in foreign.iterdir()) == [".lock", "00.json", "notes.txt",
                                                               "scan-0123456789abcdef.json"]
    assert len(list(directory.glob("results-*"))) == 1 + cache_module.KEPT_DIGESTS + 1  # (new, 7 kept, foreign)


def test_a_module_that_appears_where_an_import_looked_re_checks_and_an_unrelated_new_file_does_not(
        project, monkeypatch):
    # train.py's import of torch looked for torch.py (and torch/__init__.py...) in the project and did not find
    # it: the entry keeps those paths by the folder that holds them, with its mtime.
    write(project / "config.py", "NUM_WORKERS = 2\n")
    for path in [project, *project.rglob("*")]:
        os.utime(path, ns=(10**18, 10**18))  # (old: a folder changed this second is not trusted to stay so)
    first = run("train.py")
    assert "WSP" in first[1]
    [entry] = [entry for shard in shard_files(project) for name, entry in json.loads(shard.read_text())[
        "files"].items() if name.endswith("train.py")]
    assert {"torch", "torch.py"} <= set(entry[7][str(project)][1].split("/")) \
        and str(project / "torch.py") not in entry[4]
    reads = counted_reads(monkeypatch)
    assert main(["--isolated", "-j", "1", "train.py"]) == first[0]
    assert reads == []  # (the folder kept its mtime)
    write(project / "notes.py", "NOTE = 1\n")  # the folder changes, the paths looked for are still missing
    assert main(["--isolated", "-j", "1", "train.py"]) == first[0]
    assert reads == []
    write(project / "torch.py", "")  # a local torch.py shadows the library: train.py's DataLoader is not torch's
    assert run("train.py") != first
    assert "train.py" in reads


def test_a_warm_run_checks_a_module_again_when_a_file_starts_importing_it(tmp_path, monkeypatch):
    """b.py mentions `utils` in an import from the start, but loads `other/utils.py`; pkg/utils.py is checked in
    both runs (c.py imports it).  Once b.py hands pkg/utils.py's lambda to a DataLoader, the warm run reports the
    lambda in pkg/utils.py, as a cold one does."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(cache_module.ENV_VAR, raising=False)
    write(tmp_path / "pyproject.toml", "")
    write(tmp_path / "pkg" / "__init__.py", "")
    write(tmp_path / "pkg" / "utils.py", "identity = lambda batch: batch\n")
    write(tmp_path / "other" / "__init__.py", "")
    write(tmp_path / "other" / "utils.py", "def identity(batch):\n    return batch\n")
    write(tmp_path / "b.py", "from torch.utils.data import DataLoader\n\nfrom other.utils import identity\n\n\n"
                             "def main():\n    return DataLoader([], num_workers=2, collate_fn=identity)\n")
    # (a script that names a worker API imports pkg/utils.py in both versions: it is checked in both)
    write(tmp_path / "c.py", "from torch.utils.data import DataLoader\n\nimport pkg.utils\n")
    for path in tmp_path.rglob("*.py"):
        os.utime(path, ns=(10**18, 10**18))
    assert "pkg/utils.py" not in run(".")[1]
    write(tmp_path / "b.py", "from torch.utils.data import DataLoader\n\nfrom pkg.utils import identity\n\n\n"
                             "def main():\n    return DataLoader([], num_workers=2, collate_fn=identity)\n")
    os.utime(tmp_path / "b.py", ns=(15 * 10**17, 15 * 10**17))
    assert "pkg/utils.py:1:12: WSP201" in run(".")[1]


def test_a_dependency_stamp_and_a_folder_s_missing_names_are_one_string_each_in_the_file():
    """Specification: an entry keeps each dependency's stamp as ``"size/mtime"`` (mtime empty when not to be
    trusted) and the names missing from a folder joined by ``/`` (no name in a folder holds one): JSON decodes
    one object for each instead of three, or one per name (a warm run over the ML corpus decoded its 38 MB of
    entries in 0.48 s, 0.10 s in this form).  A malformed stamp is a miss, never a crash."""
    from winspawn_lint.io.stamps import PRESENT_FILE

    dependencies = {"/p/a.py": (12, 34), "/p/b.py": (3, None), "/p/c.py": PRESENT_FILE, "/p/d.py": None,
                    "/p/e.py": (3, "0f" * 16)}
    entry = cache_module.Entry((5, 6), "0" * 32, True, [], dependencies, absent={"/p": (7, "torch/torch.py")})
    data = json.loads(json.dumps(entry.to_json()))
    assert data[4] == {"/p/a.py": "12/34", "/p/b.py": "3/", "/p/c.py": "-1/0", "/p/d.py": None,
                       "/p/e.py": "3/#" + "0f" * 16}
    assert data[7] == {"/p": [7, "torch/torch.py"]}
    back = cache_module.Entry.from_json(data)
    stamps = [cache_module._stamp(raw) for raw in back.dependencies.values()]
    assert stamps == [(12, 34), (3, None), PRESENT_FILE, None, (3, "0f" * 16)]
    assert back.to_json() == data  # (kept as read, written back as it was)
    for malformed in ("12", "a/b", "12/34/5", "/3", 12, "3/#", "3/#xyz", "3/#12/4"):
        with pytest.raises(ValueError):
            cache_module._stamp(malformed)
    data[7] = {"/p": [7, ["torch"]]}  # (the format before: a list of names)
    with pytest.raises(ValueError):
        cache_module.Entry.from_json(data)


def test_a_module_edited_just_before_a_run_is_kept_by_its_content_and_the_next_run_checks_nothing_again(
        project, monkeypatch):
    """Specification: a module edited less than two seconds before a run (its mtime could change again within the
    same tick, so it proves nothing) is kept by its content in the entries of the files that read it; the next
    run hashes it, finds it unchanged, and checks none of them again (before, it checked every importer again: 22
    s after an edit on the ML corpus); an edit of the same size within the same moment is still seen."""
    base = "from torch.utils.data import {}\n\n\nclass BaseDataset({}):\n    pass\n"
    write(project / "base.py", base.format("Dataset", "Dataset"))
    write(project / "ds.py", "import threading\n\nfrom base import BaseDataset\n\n\nclass Mine(BaseDataset):\n"
          "    def __init__(self):\n        self.lock = threading.Lock()\n")
    age(project)
    run(".")
    write(project / "base.py", base.format("Dataset", "Dataset") + "# edited\n")  # just now
    first = run(".")
    assert "ds.py:8:9: WSP301" in first[1]
    reads = counted_reads(monkeypatch)
    assert main(["--isolated", "-j", "1", "."]) == first[0]
    assert reads == []
    write(project / "base.py", base.format("Sampler", "Sampler") + "# edited\n")  # the same size, at once
    assert "WSP301" not in run(".")[1]


def test_the_import_graph_is_built_again_only_when_what_it_reads_changes(project, built_graphs):
    """Specification: the graph's answers are kept with what the project search read of each file (its imports,
    the names it defines, whether it names a worker API) and the pieces of the files the graph read in pieces,
    not with every file's size and mtime: a commit of a function's body, checked by pre-commit seconds after the
    edit, no longer builds the graph again (2.6 s on unsloth); a change of an import or of a piece does."""
    write(project / "helpers.py", "from torch.utils.data import DataLoader\n\nMEAN = 0.5\n\n\n"
                                  "def loader(data):\n    return DataLoader(data, num_workers=2)\n")
    write(project / "user.py", "from helpers import MEAN\n\nloader = MEAN(range(3), num_workers=2)\n"
                               "for batch in loader:\n    pass\n")
    age(project)
    run(".")
    graphs = built_graphs
    graphs.clear()
    write(project / "pkg" / "plain.py", PLAIN.replace("1", "2"))  # a body: the same imports and names
    write(project / "helpers.py", (project / "helpers.py").read_text().replace("num_workers=2", "num_workers=4"))
    first = run(".")
    assert len(graphs) == 1  # (the --no-cache run's: it keeps no answer)
    graphs.clear()
    write(project / "pkg" / "plain.py", "import helpers\n" + PLAIN)  # an import
    run(".")
    assert len(graphs) == 2  # (the cached run's too)
    graphs.clear()
    # A piece of a file the graph read in pieces: MEAN now holds the loader's class, which user.py iterates at
    # import time (its own text names no worker API: only the graph says it may reach one).
    write(project / "helpers.py", (project / "helpers.py").read_text().replace("MEAN = 0.5", "MEAN = DataLoader"))
    assert "user.py:4:1: WSP101" in run(".")[1] and "user.py" not in first[1]
    assert len(graphs) == 2


def test_a_name_no_import_asks_for_keeps_the_graphs_answers_and_one_an_import_asks_for_does_not(
        project, built_graphs):
    """Specification: the graph asks whether a module defines the names other modules import from it; its answers
    are kept with those answers, not with every file's names: a function added to a module (what a commit often
    does) no longer builds the graph again (an edit appending a global to timm/layers/__init__.py did, 0.1 s of
    the 0.3 s warm run after it); a definition an import asks for does."""
    write(project / "user.py", "from pkg.plain import f, g\n")
    age(project)
    run(".")
    built_graphs.clear()
    write(project / "pkg" / "plain.py", PLAIN + "\n\ndef h():\n    return 3\n")  # (no file imports h)
    run(".")
    assert len(built_graphs) == 1  # (the --no-cache run's: it keeps no answer)
    built_graphs.clear()
    write(project / "pkg" / "plain.py", PLAIN + "\n\ndef g():\n    return 3\n")  # (user.py imports g)
    run(".")
    assert len(built_graphs) == 2


def test_the_project_searchs_memory_of_a_file_is_taken_only_when_well_formed(tmp_path):
    """A record of the scan memory is taken only when it has the shape a run writes (a foreign or damaged file
    counts as empty: the file is read again), however its strings are checked."""
    info = os.stat(tmp_path)
    memory = cache_module.ScanMemory(str(tmp_path), "digest")
    good = [info.st_size, info.st_mtime_ns, True, ["torch"], [["torch.utils.data", "DataLoader", "DataLoader"]],
            ["main"]]
    memory._keep("/root", "/root/train.py", good)
    assert memory.recall("/root", "/root/train.py", info) == (
        True, frozenset({"torch"}), (("torch.utils.data", "DataLoader", "DataLoader"),), frozenset({"main"}))
    for damaged in ([["torch.utils.data", 1, "DataLoader"]], [["torch", "DataLoader"]], ["torch.utils.data"],
                    [("a", "b", "c")], {"a": 1}):
        memory._keep("/root", "/root/train.py", [*good[:4], damaged, good[5]])
        assert memory.recall("/root", "/root/train.py", info) is None, damaged
    for damaged in (["torch", None], "torch", [["torch"]]):
        memory._keep("/root", "/root/train.py", [*good[:3], damaged, *good[4:]])
        assert memory.recall("/root", "/root/train.py", info) is None, damaged
        memory._keep("/root", "/root/train.py", [*good[:5], damaged])
        assert memory.recall("/root", "/root/train.py", info) is None, damaged


def test_a_module_whose_folder_a_new_script_imports_is_checked_again(tmp_path, monkeypatch):
    """Forecast/exp/exp_main.py, in a folder that is no package, finds `data_provider` in the folder above only while a
    script there imports `exp` (that puts the folder first on the path); its import-time loop over the loader is
    then reported, and a warm run agrees with a cold one when that script comes and goes."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(cache_module.ENV_VAR, raising=False)
    write(tmp_path / "pyproject.toml", "")
    write(tmp_path / "Forecast" / "data_provider" / "data_factory.py",
          "from torch.utils.data import DataLoader\n\n\ndef loader():\n    return DataLoader([1, 2], num_workers=2)\n")
    write(tmp_path / "Forecast" / "exp" / "exp_main.py",
          "from data_provider.data_factory import loader\n\nfor batch in loader():\n    print(batch)\n")
    write(tmp_path / "Forecast" / "notes.py", "NOTE = 1\n")
    age(tmp_path)
    assert "Forecast/exp/exp_main.py" not in run(".")[1]
    write(tmp_path / "Forecast" / "run.py", "import exp.exp_main\n")
    os.utime(tmp_path / "Forecast" / "run.py", ns=(15 * 10**17, 15 * 10**17))
    warm = run(".")
    assert "Forecast/exp/exp_main.py:3:" in warm[1] and warm == run(".", "--no-cache")
    (tmp_path / "Forecast" / "run.py").unlink()
    assert "Forecast/exp/exp_main.py" not in run(".")[1]
