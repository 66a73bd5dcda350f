"""Configuration end to end: ``[tool.winspawn-lint]`` through the command line, and flake8's own config files.

Every key is exercised through ``winspawn-lint`` itself (its ``main``; one test
runs the installed console script), command-line flags are shown to win over
the file, and bad configuration must give exit status 2 and one line that names
the key (never a traceback).  flake8 users set the same policies in
``setup.cfg``/``tox.ini``/``.flake8``; those run through a real ``flake8``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from winspawn_lint import cli

# Line 3: WSP101 (Pool at import time).  Line 8: WSP201 (lambda collate_fn).
# Line 9: a DataLoader whose worker count is a parameter (reported only under assume-workers).
# Line 14: a call to a project-specific API (reported only once spawn-api registers it).
# Line 17: the main guard (WSP105, opt-in).
HAZARDS = '''\
import multiprocessing
import mylib
pool = multiprocessing.Pool(2)
from torch.utils.data import DataLoader


def loaders(data, n):
    a = DataLoader(data, num_workers=2, collate_fn=lambda b: b)
    b = DataLoader(data, num_workers=n, collate_fn=lambda b: b)
    return a, b


def run():
    mylib.parallel_map(lambda x: x, [1, 2], n_jobs=4)


if __name__ == "__main__":
    run()
'''
ALL_DEFAULT = {(3, "WSP101"), (8, "WSP201"), (9, "WSP201")}


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    """``proj/`` with the hazard file in ``src/app/``, ``scripts/`` and ``build/``; cwd is ``proj``."""
    root = tmp_path / "proj"
    for name in ("src/app/train.py", "scripts/job.py", "build/lib/copy.py", "src/app/generated_pb2.py"):
        write(root / name, HAZARDS)
    monkeypatch.chdir(root)
    return root


def config(root: Path, body: str) -> None:
    write(root / "pyproject.toml", "[project]\nname = 'demo'\n\n[tool.winspawn-lint]\n" + textwrap.dedent(body))


def lint(capsys, *args: str) -> tuple[int, dict[str, set[tuple[int, str]]], str]:
    """Exit status, {path: {(line, code)}}, stderr."""
    status = cli.main(list(args))
    captured = capsys.readouterr()
    found: dict[str, set[tuple[int, str]]] = {}
    for line in captured.out.splitlines():
        if ": WSP" not in line:
            continue  # the closing summary ("Found N errors.")
        path, lineno, _col, rest = line.split(":", 3)
        found.setdefault(path, set()).add((int(lineno), rest.split()[0]))
    return status, found, captured.err


# --- discovery -----------------------------------------------------------------------------------

def test_defaults_without_a_config(project, capsys):
    status, found, err = lint(capsys, ".")
    assert status == 1 and err == ""
    assert set(found) == {"src/app/train.py", "src/app/generated_pb2.py", "scripts/job.py"}  # build/ excluded
    assert found["src/app/train.py"] == ALL_DEFAULT


def test_config_is_found_walking_up_from_the_checked_path(project, capsys, tmp_path, monkeypatch):
    config(project, 'ignore = ["WSP101"]\n')
    monkeypatch.chdir(tmp_path)  # outside the project: the file is found from the path, not the cwd
    _, found, _ = lint(capsys, "proj/src/app/train.py")
    assert found["proj/src/app/train.py"] == ALL_DEFAULT - {(3, "WSP101")}
    monkeypatch.chdir(project / "src")
    _, found, _ = lint(capsys, "app")
    assert found["app/train.py"] == ALL_DEFAULT - {(3, "WSP101")}


def test_a_pyproject_without_our_table_is_skipped(project, capsys):
    config(project, 'ignore = ["WSP101"]\n')
    write(project / "src" / "pyproject.toml", "[tool.black]\nline-length = 100\n")
    _, found, _ = lint(capsys, "src/app/train.py")
    assert (3, "WSP101") not in found["src/app/train.py"]


# --- each key ------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    "body, expected",
    [
        ('select = ["WSP2"]', {(8, "WSP201"), (9, "WSP201")}),
        ('select = ["unguarded-process-start"]', {(3, "WSP101")}),  # rule names work too
        ('ignore = ["WSP201"]', {(3, "WSP101")}),
        ('extend-ignore = ["WSP1"]', {(8, "WSP201"), (9, "WSP201")}),
        ('extend-select = ["WSP105"]', ALL_DEFAULT | {(17, "WSP105")}),
        ('select = ["ALL"]\nignore = ["WSP2"]', {(3, "WSP101"), (17, "WSP105")}),
        ('select = "WSP101, WSP105"', {(3, "WSP101"), (17, "WSP105")}),  # a comma-separated string
        ('unresolved-workers = "assume-none"', ALL_DEFAULT - {(9, "WSP201")}),
        ('unresolved-workers = "assume-workers"', ALL_DEFAULT),
        (
            'spawn-api = [{ name = "mylib.parallel_map", workers = "n_jobs", payload = ["fn:0"] }]',
            ALL_DEFAULT | {(14, "WSP201")},
        ),
    ],
)
def test_rule_selection_and_policies(project, capsys, body, expected):
    config(project, body + "\n")
    _, found, err = lint(capsys, "src/app/train.py")
    assert err == ""
    assert found.get("src/app/train.py", set()) == expected


def test_spawn_api_as_an_array_of_tables(project, capsys):
    config(project, '''
        [[tool.winspawn-lint.spawn-api]]
        name = ["mylib.parallel_map", "mylib.pmap"]
        workers = "n_jobs"
        payload = ["fn:0"]
        pickler = "pickle"
    ''')
    _, found, _ = lint(capsys, "src/app/train.py")
    assert (14, "WSP201") in found["src/app/train.py"]


def test_spawn_api_with_dill_is_the_opt_in_portability_rule(project, capsys):
    config(project, '''
        extend-select = ["WSP901"]
        spawn-api = [{ name = "mylib.parallel_map", workers = "n_jobs", payload = ["fn:0"], pickler = "dill" }]
    ''')
    _, found, _ = lint(capsys, "src/app/train.py")
    assert (14, "WSP201") not in found["src/app/train.py"]  # dill pickles lambdas ...
    assert (14, "WSP901") in found["src/app/train.py"]  # ... which the portability rule points out


def test_spawn_api_threads_keyword_means_no_process(project, capsys):
    train = project / "src/app/train.py"
    train.write_text(train.read_text(encoding="utf-8").replace(
        "n_jobs=4)", "n_jobs=4, threads=True)\n    mylib.parallel_map(lambda x: x, [1, 2], n_jobs=4, threads=False)"),
        encoding="utf-8")
    config(project, '''
        spawn-api = [{ name = "mylib.parallel_map", workers = "n_jobs", payload = ["fn:0"], threads = "threads" }]
    ''')
    _, found, _ = lint(capsys, "src/app/train.py")
    assert (14, "WSP201") not in found["src/app/train.py"]  # threads: nothing is pickled
    assert (15, "WSP201") in found["src/app/train.py"]


# A dataset that keeps the result of an in-house call; line 7 is WSP301 once `unpicklable` names the call.
KEEPS_A_CONNECTION = '''\
import mylab.db
from torch.utils.data import DataLoader, Dataset


class Rows(Dataset):
    def __init__(self):
        self.conn = mylab.db.connect("rows.db")

    def __len__(self):
        return 1

    def __getitem__(self, i):
        return i


if __name__ == "__main__":
    for batch in DataLoader(Rows(), num_workers=2):
        print(batch)
'''


@pytest.mark.parametrize("entry, what", [
    ('unpicklable = [{ name = "mylab.db.connect", what = "a database connection" }]', "a database connection"),
    ('unpicklable = ["mylab.db.connect"]', "`mylab.db.connect(...)`"),
])
def test_unpicklable_names_more_sources(project, capsys, entry, what):
    write(project / "src/app/rows.py", KEEPS_A_CONNECTION)
    assert lint(capsys, "src/app/rows.py")[1] == {}
    config(project, entry + "\n")
    status = cli.main(["src/app/rows.py"])
    out = capsys.readouterr().out
    assert status == 1 and "rows.py:7:" in out and "WSP301" in out and what in out, out


def test_per_file_ignores_are_relative_to_the_config(project, capsys, monkeypatch):
    config(project, '''
        [tool.winspawn-lint.per-file-ignores]
        "scripts/*" = ["WSP101"]
        "src/**/train.py" = ["lambda-to-worker"]
    ''')
    _, found, _ = lint(capsys, ".")
    assert found["scripts/job.py"] == ALL_DEFAULT - {(3, "WSP101")}
    assert found["src/app/train.py"] == {(3, "WSP101")}
    assert found["src/app/generated_pb2.py"] == ALL_DEFAULT
    monkeypatch.chdir(project / "scripts")  # the patterns do not depend on where the command runs
    _, found, _ = lint(capsys, "job.py")
    assert found["job.py"] == ALL_DEFAULT - {(3, "WSP101")}


def test_exclude_replaces_the_defaults(project, capsys):
    config(project, 'exclude = ["*_pb2.py"]\n')
    _, found, _ = lint(capsys, ".")
    assert set(found) == {"src/app/train.py", "scripts/job.py", "build/lib/copy.py"}


def test_extend_exclude_keeps_the_defaults(project, capsys):
    config(project, 'extend-exclude = ["*_pb2.py", "scripts/"]\n')
    _, found, _ = lint(capsys, ".")
    assert set(found) == {"src/app/train.py"}


def test_named_files_are_checked_unless_force_exclude(project, capsys):
    # pre-commit names every staged file; --force-exclude (used by our hooks) applies exclude to them too.
    config(project, 'extend-exclude = ["*_pb2.py"]\n')
    _, found, _ = lint(capsys, "src/app/generated_pb2.py", "build/lib/copy.py")
    assert set(found) == {"src/app/generated_pb2.py", "build/lib/copy.py"}
    status, found, _ = lint(capsys, "--force-exclude", "src/app/generated_pb2.py", "build/lib/copy.py",
                            "src/app/train.py")
    assert set(found) == {"src/app/train.py"}
    status, found, _ = lint(capsys, "--force-exclude", "src/app/generated_pb2.py")
    assert status == 0 and found == {}


def test_exclusion_looks_only_below_the_checked_directory(tmp_path, capsys, monkeypatch):
    # A checkout that lives under a directory named like a default exclude (env/, build/) is still checked.
    root = tmp_path / "env" / "build" / "proj"
    write(root / "train.py", HAZARDS)
    monkeypatch.chdir(tmp_path)
    _, found, _ = lint(capsys, str(root))
    assert set(found) == {str(root / "train.py")}


# --- the command line wins ------------------------------------------------------------------------

def test_command_line_overrides_the_file(project, capsys):
    config(project, '''
        select = ["WSP2"]
        unresolved-workers = "assume-none"
        exclude = ["scripts"]
    ''')
    _, found, _ = lint(capsys, "src/app/train.py")
    assert found["src/app/train.py"] == {(8, "WSP201")}
    _, found, _ = lint(capsys, "--select", "WSP101", "src/app/train.py")
    assert found["src/app/train.py"] == {(3, "WSP101")}
    _, found, _ = lint(capsys, "--select", "WSP1", "src/app/train.py")  # a prefix takes the opt-in WSP105 too
    assert found["src/app/train.py"] == {(3, "WSP101"), (17, "WSP105")}
    _, found, _ = lint(capsys, "--extend-select", "WSP101", "--ignore", "WSP201", "src/app/train.py")
    assert found["src/app/train.py"] == {(3, "WSP101")}
    _, found, _ = lint(capsys, "--unresolved-workers", "assume-workers", "src/app/train.py")
    assert found["src/app/train.py"] == {(8, "WSP201"), (9, "WSP201")}
    _, found, _ = lint(capsys, "--exclude", "src", ".")  # replaces the file's list (and the defaults)
    assert set(found) == {"scripts/job.py", "build/lib/copy.py"}
    _, found, _ = lint(capsys, "--extend-exclude", "src", ".")  # adds to the file's list
    assert set(found) == {"build/lib/copy.py"}
    _, found, _ = lint(capsys, "--isolated", "src/app/train.py")
    assert found["src/app/train.py"] == ALL_DEFAULT


def test_unsafe_fixes_from_the_file_and_the_command_line(project, capsys):
    # As in ruff: `unsafe-fixes = true` makes --fix apply the unsafe fixes too; --no-unsafe-fixes wins.
    write(project / "guard.py", """\
        import multiprocessing


        def work(x):
            return x


        if __name__ == "main":  # WSP102: its repair is an unsafe fix
            with multiprocessing.Pool(2) as pool:
                pool.map(work, [1])
    """)
    repaired = '+if __name__ == "__main__":'

    def diff(*flags: str) -> str:
        cli.main(["--diff", *flags, "guard.py"])
        return capsys.readouterr().out

    assert repaired not in diff()
    config(project, "unsafe-fixes = true\n")
    assert repaired in diff()
    assert repaired not in diff("--no-unsafe-fixes")
    config(project, "unsafe-fixes = false\n")
    assert repaired not in diff()
    assert repaired in diff("--unsafe-fixes")


def test_explicit_config_file(project, capsys, tmp_path):
    other = write(tmp_path / "elsewhere" / "pyproject.toml", '[tool.winspawn-lint]\nselect = ["WSP101"]\n')
    config(project, 'select = ["WSP2"]\n')
    _, found, _ = lint(capsys, "--config", str(other), "src/app/train.py")
    assert found["src/app/train.py"] == {(3, "WSP101")}
    status, _, err = lint(capsys, "--config", str(tmp_path / "missing.toml"), "src/app/train.py")
    assert status == 2 and "missing.toml" in err


# --- bad configuration ----------------------------------------------------------------------------

BAD = [
    ("bogus = 1", "'bogus'"),
    ("select = 5", ".select"),
    ('select = ["WSP999"]', ".select"),
    ("extend-select = [1]", ".extend-select"),
    ('ignore = ["nonsense"]', ".ignore"),
    ('extend-ignore = ["WSPX"]', ".extend-ignore"),
    ('exclude = "build"', ".exclude"),
    ("extend-exclude = [1]", ".extend-exclude"),
    ('unresolved-workers = "maybe"', ".unresolved-workers"),
    ("per-file-ignores = 3", ".per-file-ignores"),
    ('per-file-ignores = { "x.py" = 3 }', ".per-file-ignores.x.py"),
    ('per-file-ignores = { "x.py" = ["WSP999"] }', ".per-file-ignores.x.py"),
    ('spawn-api = "mylib.run"', ".spawn-api"),
    ('spawn-api = [{ workers = "n" }]', ".spawn-api[0].name"),
    ('spawn-api = [{ name = "a.b", bogus = 1 }]', "'bogus'"),
    ('spawn-api = [{ name = "a.b", kind = "thread" }]', ".spawn-api[0].kind"),
    ('spawn-api = [{ name = "a.b", kind = "object" }]', ".spawn-api[0].start-methods"),
    ('spawn-api = [{ name = "a.b", pickler = "json" }]', ".spawn-api[0].pickler"),
    ('spawn-api = [{ name = "a.b", workers = 3 }]', ".spawn-api[0].workers"),
    ('spawn-api = [{ name = "a.b", workers = "n", no-workers = 0 }]', ".spawn-api[0].no-workers"),
    ('spawn-api = [{ name = "a.b", payload = 3 }]', ".spawn-api[0].payload"),
    ('spawn-api = [{ name = "a.b", payload = ["fn:x"] }]', ".spawn-api[0].payload"),
    ('spawn-api = [{ name = "a.b", method-payload = { run = 3 } }]', ".spawn-api[0].method-payload"),
    ('spawn-api = [{ name = "a.b", context = "thread" }]', ".spawn-api[0].context"),
    ('spawn-api = [{ name = "a.b", workers = "n", threads = true }]', ".spawn-api[0].threads"),
    ('spawn-api = [{ name = "a.b", threads = "in_threads" }]', ".spawn-api[0].threads"),
    ('spawn-api = [{ name = "a.b", workers = "n", no-workers = [1], threads = "t" }]', ".spawn-api[0].threads"),
    ('unpicklable = "a.b"', ".unpicklable"),
    ("unpicklable = [3]", ".unpicklable[0]"),
    ('unpicklable = [{ name = "a.b", bogus = 1 }]', "'bogus'"),
    ('unpicklable = [{ what = "a thing" }]', ".unpicklable[0].name"),
    ('unpicklable = [{ name = "a.b", what = "" }]', ".unpicklable[0].what"),
    ('target-platforms = ["windows", "bsd"]', ".target-platforms"),
    ("target-platforms = []", ".target-platforms"),
    ('target-version = "python3"', ".target-version"),
    ('unsafe-fixes = "yes"', ".unsafe-fixes"),
    ("[tool.winspawn-lint.typo]", "'typo'"),
    ('select = ["WSP2"', "pyproject.toml"),  # not TOML
]


@pytest.mark.parametrize("body, names", BAD, ids=[body for body, _ in BAD])
def test_bad_configuration_is_one_line_naming_the_key(project, capsys, body, names):
    config(project, body + "\n")
    status, found, err = lint(capsys, "src/app/train.py")
    assert status == 2 and found == {}
    assert err.count("\n") == 1 and err.startswith("winspawn-lint: configuration error: "), err
    assert names in err, err
    assert "Traceback" not in err


def test_bad_command_line_values(project, capsys):
    status, _, err = lint(capsys, "--select", "WSP999", "src/app/train.py")
    assert status == 2 and "WSP999" in err and err.count("\n") == 1
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--unresolved-workers", "maybe", "src"])
    assert exit_.value.code == 2  # argparse: usage line and the error


def test_the_console_script_reports_bad_config_without_a_traceback(project):
    config(project, 'unresolved-workers = "sometimes"\n')
    exe = shutil.which("winspawn-lint")
    command = [exe] if exe else [sys.executable, "-m", "winspawn_lint"]
    done = subprocess.run([*command, "src"], capture_output=True, text=True, cwd=project, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "winspawn-lint: configuration error: pyproject.toml: [tool.winspawn-lint].unresolved-workers: "
        "expected one of assume-workers, assume-none, got 'sometimes'"
    ]


# --- flake8 ------------------------------------------------------------------------------------------

def flake8(root: Path, cfg_name: str, cfg: str, *args: str) -> subprocess.CompletedProcess:
    write(root / cfg_name, cfg)
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--select=WSP", *args, "src/app/train.py"],
        capture_output=True, text=True, cwd=root, timeout=300,
    )


def _flake8_findings(done: subprocess.CompletedProcess) -> set[tuple[int, str]]:
    found = set()
    for line in done.stdout.splitlines():
        _path, lineno, _col, rest = line.split(":", 3)
        found.add((int(lineno), rest.split()[0]))
    return found


@pytest.fixture
def flake8_project(project) -> Path:
    pytest.importorskip("flake8")
    return project


@pytest.mark.parametrize("cfg_name", ["setup.cfg", "tox.ini", ".flake8"])
def test_flake8_reads_the_policies_from_its_config(flake8_project, cfg_name):
    done = flake8(flake8_project, cfg_name, "[flake8]\n")
    assert done.returncode == 1, done.stderr
    # --select=WSP names the whole prefix, so it turns the opt-in WSP105 on as well (as in flake8 generally).
    assert _flake8_findings(done) == ALL_DEFAULT | {(17, "WSP105")}

    done = flake8(flake8_project, cfg_name, '''
        [flake8]
        winspawn-unresolved-workers = assume-none
        winspawn-spawn-apis =
            other.lib.pmap:workers, third.party.run
            {name = "mylib.parallel_map", workers = "n_jobs", payload = ["fn:0"]}
        per-file-ignores =
            src/app/*: WSP101
    ''')
    assert done.returncode == 1, done.stderr
    assert _flake8_findings(done) == {(8, "WSP201"), (14, "WSP201"), (17, "WSP105")}


@pytest.mark.parametrize(
    "cfg, expected",
    [
        ("[flake8]\n", ALL_DEFAULT),  # the opt-in rules sit in flake8's default ignore list
        ("[flake8]\nextend-select = WSP105\n", ALL_DEFAULT | {(17, "WSP105")}),
        ("[flake8]\nextend-ignore = WSP201\n", {(3, "WSP101")}),
        ("[flake8]\nselect = WSP1\nextend-ignore = WSP105\n", {(3, "WSP101")}),
    ],
)
def test_flake8_selection_without_select_on_the_command_line(flake8_project, cfg, expected):
    write(flake8_project / "setup.cfg", cfg)
    done = subprocess.run([sys.executable, "-m", "flake8", "src/app/train.py"], capture_output=True, text=True,
                          cwd=flake8_project, timeout=300)
    assert {f for f in _flake8_findings(done) if f[1].startswith("WSP")} == expected, done.stdout + done.stderr


@pytest.mark.parametrize(
    "cfg, names",
    [
        ("winspawn-unresolved-workers = bogus", "winspawn-unresolved-workers"),
        ("winspawn-spawn-apis =\n    {name = \"a.b\", bogus = 1}", "winspawn-spawn-apis[0]: unknown key 'bogus'"),
        ("winspawn-spawn-apis =\n    {name = \"a.b\"", "winspawn-spawn-apis: not a TOML inline table"),
        ("winspawn-spawn-apis = :n_jobs", "winspawn-spawn-apis[0].name"),
        ("winspawn-target-platforms = windows,bsd", "winspawn-target-platforms"),
        ("winspawn-target-version = 2.7", "winspawn-target-version"),
    ],
)
def test_flake8_bad_values_are_one_line(flake8_project, cfg, names):
    done = flake8(flake8_project, "setup.cfg", "[flake8]\n" + cfg + "\n")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.strip().splitlines() == [done.stderr.strip()] and names in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("patterns", [
    ("build", "*_pb2.py", ".venv"),
    ("scripts/", "src/app/*_pb2.py", "a*"),
    ("*.egg-info", "node_modules", "lib"),
])
def test_walk_excludes_what_is_excluded_says(tmp_path, monkeypatch, patterns):
    # The walk matches only each entry's own name (its parents were let through); that must agree with
    # is_excluded, which matches every part of the path, on every file of a tree.
    from winspawn_lint.io.discover import discover
    from winspawn_lint.settings import Settings

    names = ["src/app/train.py", "src/app/gen_pb2.py", "scripts/job.py", "build/lib/copy.py", "lib/x.py",
             "pkg.egg-info/y.py", "node_modules/z.py", "apps/a.py", "src/aa/b.py", ".venv/c.py", "top.py"]
    for name in names:
        write(tmp_path / name, "x = 1\n")
    monkeypatch.chdir(tmp_path)
    settings = Settings(exclude=patterns, root=str(tmp_path))
    walked = {path for path, _ in discover(["."], settings)}
    assert walked == {name for name in names if not settings.is_excluded(name, below=".")}


@pytest.mark.parametrize("platforms, version, expected", [
    (("windows", "macos", "linux"), None, {"windows", "macos", "linux>=3.14"}),
    (("linux",), (3, 11), {"linux>=3.14", "linux<=3.13"}),
    (("linux",), (3, 14), {"linux>=3.14"}),
    (("macos",), (3, 9), {"macos"}),
])
def test_target_platforms_name_the_platforms_kept(platforms, version, expected):
    from winspawn_lint.settings import Settings

    assert Settings(target_platforms=platforms, target_version=version).platforms == expected


def test_spawn_api_context_decides_where_it_breaks():
    from winspawn_lint import check_text
    from winspawn_lint.settings import settings_from_mapping

    code = "import mylib\n\nmylib.run_all(work, n_jobs=4)\n"
    for context, platforms in (("default", ("windows", "macos", "linux>=3.14")), ("multiprocess", ("windows",)),
                               ("spawn", ("windows", "macos", "linux>=3.14", "linux<=3.13"))):
        settings = settings_from_mapping({"spawn-api": [{"name": "mylib.run_all", "workers": "n_jobs",
                                                         "context": context}]})
        (finding,) = check_text(code, "train.py", settings)
        assert (finding.code, finding.platforms) == ("WSP101", platforms)


def test_flake8_reads_unpicklable(flake8_project):
    write(flake8_project / "src/app/rows.py", KEEPS_A_CONNECTION)
    done = subprocess.run([sys.executable, "-m", "flake8", "--select=WSP3", "--winspawn-unpicklable=mylab.db.connect",
                           "src/app/rows.py"], capture_output=True, text=True, cwd=flake8_project, timeout=300)
    assert _flake8_findings(done) == {(7, "WSP301")}, done.stdout + done.stderr


def test_equal_settings_share_one_registry_so_the_facts_found_under_one_serve_the_other(tmp_path, monkeypatch):
    """The analysis keeps a module's facts under the registry of worker APIs they were found with, compared by
    identity; equal settings (read for each directory by the language server, rebuilt for each untitled buffer,
    unpickled by each parallel worker) get one registry, so facts found for one check serve the next."""
    import pickle

    from winspawn_lint import pipeline
    from winspawn_lint.analysis import taint
    from winspawn_lint.analysis.project import Project
    from winspawn_lint.settings import settings_from_mapping

    extra = {"spawn-api": [{"name": "mylib.run_all", "workers": "n_jobs"}]}
    one, two = settings_from_mapping(extra), settings_from_mapping(extra)
    assert one.registry is two.registry
    assert pickle.loads(pickle.dumps(one)).registry is one.registry
    assert pickle.loads(pickle.dumps(one.registry)) is one.registry
    assert settings_from_mapping({}).registry is not one.registry

    (tmp_path / "helpers.py").write_text("collate = lambda batch: batch\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "from torch.utils.data import DataLoader\n\nimport helpers\n\nif __name__ == '__main__':\n"
        "    for batch in DataLoader([1], num_workers=2, collate_fn=helpers.collate):\n        pass\n",
        encoding="utf-8")
    analysed = []
    made = taint.Engine.__init__

    def counted(self, *args, **kwargs):
        made(self, *args, **kwargs)
        analysed.append(os.path.basename(self.main.path or ""))

    monkeypatch.setattr(taint.Engine, "__init__", counted)
    project = Project(one.registry)
    for settings in (one, two):  # (the second check, with equal settings of its own)
        checked = pipeline.check("collate = lambda batch: batch\n", str(tmp_path / "helpers.py"), settings,
                                 project=project, on_disk=True)
        assert [finding.code for finding in checked.findings] == ["WSP201"]
    assert analysed.count("train.py") == 1, analysed  # (the facts of train.py that reach helpers.py, found once)
