"""One answer in every mode: any two ways of running winspawn-lint on the same tree agree, byte for byte.

The modes (see ``tests/modes.py``): ``-j 1``/``-j 2`` × ``--no-cache``/cold cache/warm cache (a cache written by
a parallel run read by a serial one, and the other way round), every file named on the command line (what
pre-commit does), the flake8 plugin, ``check_text``, ``--fix --diff`` and ``--fix``.  The trees: the fixtures
directory as a whole, and a generated project whose findings depend on its other modules; then random edits,
renames, deletions and touches of any of its files, each followed by a cached run held to ``--no-cache``.
"""

from __future__ import annotations

import os
import pickle
import shutil
import textwrap
from pathlib import Path

import pytest

import modes
from winspawn_lint import RULES, Settings, check_text
from winspawn_lint.spawn_apis import ABSENT

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def cli(tree: Path, *args: str, cache: Path | None = None) -> tuple[int, str, str]:
    return modes.cli(tree, ["--isolated", *args], cache)


# -- the cause of the first divergence: settings that changed on their way to a parallel run's workers ------------


def test_settings_reach_a_worker_as_they_left():
    """A parallel run pickles its settings for its workers.  ``ABSENT`` (an argument not given, which
    ``num_workers`` of a DataLoader means no worker) once was a plain ``object()``: unpickled in a worker it was a
    new object, and every loader without ``num_workers`` looked like one with workers there."""
    settings = Settings(select=frozenset(RULES))
    assert settings.registry.by_name  # derived tables built before the trip, as the results cache's digest does
    travelled = pickle.loads(pickle.dumps(settings))
    assert pickle.loads(pickle.dumps(ABSENT)) is ABSENT
    assert "registry" not in travelled.__dict__  # derived tables are rebuilt where they are used
    assert travelled == settings
    text = (FIXTURES / "wsp202_ok_lib_hf_trainer_data_collator_no_workers.py").read_text()
    assert check_text(text, "x.py", travelled) == check_text(text, "x.py", settings) == []


def test_a_parallel_run_with_the_cache_reports_what_the_serial_run_does(tmp_path):
    """The reproduction: two fixtures in an empty folder, ``-j 2`` with a fresh cache (cold, then warm, then read
    by ``-j 1``) against ``-j 1 --no-cache``; the parallel cold run reported a safe twin."""
    for name in ("wsp202_ok_lib_hf_trainer_data_collator_no_workers.py", "wsp101_lib_trl_sft_train.py"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    reference = cli(tmp_path, "-j", "1", "--no-cache", "--select", "WSP", ".")
    assert "wsp202_ok" not in reference[1] and reference[1].count("WSP10") == 1  # (the trainer's WSP101)
    cache = tmp_path.parent / f"{tmp_path.name}-cache"
    assert cli(tmp_path, "-j", "2", "--select", "WSP", ".", cache=cache) == reference
    assert cli(tmp_path, "-j", "2", "--select", "WSP", ".", cache=cache) == reference
    assert cli(tmp_path, "-j", "1", "--select", "WSP", ".", cache=cache) == reference


def test_the_scripts_that_import_a_module_are_a_dependency_of_its_cached_findings(tmp_path):
    """``data.py`` loads a checkpoint when imported; ``train.py`` imports it.  Once ``train.py`` starts spawn
    workers, each of them imports ``data.py`` again (WSP103 in ``data.py``, naming ``train.py``): a warm run that
    checks only ``data.py`` after that edit of ``train.py`` must see it."""
    (tmp_path / "data.py").write_text('import torch\n\nWEIGHTS = torch.load("w.pt")\n')
    train = textwrap.dedent("""\
        import data
        from torch.utils.data import DataLoader

        if __name__ == "__main__":
            for batch in DataLoader(range(4), num_workers=0):
                print(batch)
        """)
    (tmp_path / "train.py").write_text(train)
    cache = tmp_path.parent / f"{tmp_path.name}-cache"
    assert cli(tmp_path, "data.py", cache=cache)[:2] == (0, "")
    (tmp_path / "train.py").write_text(train.replace("num_workers=0", "num_workers=2"))
    status, out, _ = cli(tmp_path, "data.py", cache=cache)
    assert (status, out) == cli(tmp_path, "--no-cache", "data.py")[:2]
    assert out.startswith("data.py:3:11: WSP103 ") and "`train.py`" in out


# -- every mode on the fixtures ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fixtures_tree(tmp_path_factory) -> Path:
    """The fixtures, copied to an empty folder (no configuration file above them but the test's)."""
    root = tmp_path_factory.mktemp("fixtures-tree") / "fixtures"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("__pycache__", "*.fixed.py", "*.fixed.ipynb"))
    (root / "pyproject.toml").write_text("")  # the project root: nothing above it is configuration
    return root


def assert_all_agree(printed: dict[str, str], reference: str = modes.REFERENCE) -> None:
    expected = printed[reference]
    differing = {mode: modes.differing_lines(expected, text) for mode, text in printed.items()}
    assert differing == dict.fromkeys(printed, 0), "\n\n".join(
        f"== {mode}\n{text}" for mode, text in printed.items() if differing[mode])


def test_a_script_in_a_folder_the_project_search_skips_has_the_same_findings_however_it_is_checked(tmp_path):
    """A walk from the project's root skips hidden folders, so the search of the project's imports never reads a
    script kept in one.  Named from the root, it was once skipped by the project's prefilter (its text names no
    worker API, and the search, which did not read it, said its imports lead to none), while the same script
    named from its own folder, or checked as an editor's buffer, had its findings: the search knows nothing of
    it, so its text is analysed."""
    from winspawn_lint.analysis.project import Project
    from winspawn_lint.runner import Job, check_buffer

    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    folder = tmp_path / ".scratch" / "app"
    folder.mkdir(parents=True)
    (folder / "loaders.py").write_text(
        "from torch.utils.data import DataLoader\n\n\ndef loader(items):\n"
        "    return DataLoader(items, num_workers=2)\n", encoding="utf-8")
    script = ("import torch\n\nfrom loaders import loader\n\n"
              "model = torch.load('m.pt')\nfor batch in loader([1]):\n    pass\n")
    (folder / "train.py").write_text(script, encoding="utf-8")
    expected = [("WSP103", 5), ("WSP101", 6)]

    def codes(out: str) -> list[tuple[str, int]]:
        return [(line.split()[1], int(line.split(":")[1])) for line in out.splitlines() if " WSP" in line]

    assert codes(cli(tmp_path, "--no-cache", ".scratch/app/train.py")[1]) == expected
    assert codes(cli(folder, "--no-cache", "train.py")[1]) == expected
    buffer = check_buffer(str(folder / "train.py"), script, Job(Settings()), Project())
    assert [(finding.code, finding.line) for finding in buffer.findings] == expected


def test_a_script_in_a_folder_the_project_search_skips_has_the_same_fix_grade_from_every_folder(tmp_path):
    """Moving a module's top-level code under the main guard is a safe fix only when nothing imports the module.
    For a file in a hidden folder, the project's root was the folder the run was in: from the checkout's root, a
    walk that skips the hidden folder found no importer and ``--fix`` rewrote a module that ``report.py`` imports;
    from the script's own folder the same finding was unsafe.  The root is now the folder inside the hidden one,
    wherever the run is."""
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    folder = tmp_path / ".scratch" / "app"
    folder.mkdir(parents=True)
    (folder / "train.py").write_text(
        "from torch.utils.data import DataLoader\n\nfor batch in DataLoader([1], num_workers=2):\n    pass\n",
        encoding="utf-8")
    (folder / "report.py").write_text("import train\n", encoding="utf-8")
    graded = "WSP101 `DataLoader`"  # (no `[*]`: the fix is unsafe)
    for cwd, name in [(tmp_path, ".scratch/app/train.py"), (tmp_path / ".scratch", "app/train.py"),
                      (folder, "train.py")]:
        out = cli(cwd, "--no-cache", name)[1]
        assert f"{name}:3:1: {graded}" in out and "1 unsafe fix available" in out, (cwd, out)
    assert cli(tmp_path, "--no-cache", "--fix", ".scratch/app/train.py")[0] == 1
    assert (folder / "train.py").read_text(encoding="utf-8").splitlines()[2].startswith("for batch")  # not fixed


def test_a_module_that_edits_sys_path_has_the_same_findings_whichever_file_is_checked_first(tmp_path):
    """Where a module's imports are searched depends on its own ``sys.path`` edits, and reading an edit resolves
    the module's names (``os``), which asks where its imports are searched: a cycle, cut with a stand-in answer.
    The search path found inside that cycle (without the edit) was kept, so when a script that imports the
    module was checked first the module lost its findings; what the checks keep now never depends on which file
    asked first (ANIMAL-SPOT: 2 findings in a run of the repository, 7 for its files checked one by one)."""
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "app" / "data").mkdir(parents=True)
    (tmp_path / "app" / "tools.py").write_text(
        "from multiprocessing import Pool\n\n\ndef launch(fn):\n    with Pool(2) as pool:\n"
        "        pool.map(fn, [1])\n", encoding="utf-8")
    (tmp_path / "app" / "data" / "loading.py").write_text(
        "import os\nimport sys\n\nsys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "
        "'..')))\n\nfrom tools import launch  # noqa: E402\n\n\ndef make():\n    return 1\n\n\n"
        "if __name__ == '__main__':\n    launch(lambda x: x)\n", encoding="utf-8")
    (tmp_path / "app" / "predict.py").write_text(
        "from torch.utils.data import DataLoader\n\nfrom data.loading import make\n\n"
        "if __name__ == '__main__':\n    for batch in DataLoader([make()], num_workers=2):\n        pass\n",
        encoding="utf-8")

    def findings(*paths: str) -> list[str]:
        return [line.split()[0] for line in cli(tmp_path, "--no-cache", "-j", "1", *paths)[1].splitlines()
                if " WSP" in line]

    alone = findings("app/data/loading.py")
    assert alone == ["app/data/loading.py:14:12:"]  # (the lambda reaches tools.launch's pool)
    assert findings("app/predict.py", "app/data/loading.py") == alone
    assert findings("app/data/loading.py", "app/predict.py") == alone


#: hash seeds a run is held to: the order of a set of strings (or of objects hashed by them) is the seed's, and each
#: process of a parallel run has a seed of its own
SEEDS = (0, 1, 2, 3, 5, 8)


def test_a_loader_one_of_two_branches_returns_is_found_whatever_the_hash_seed(tmp_path):
    """The reproduction (MutualNet's ``get_dataset()``): of the two loaders a helper may return, the one a set
    gave first was the one the epoch loop's finding was about, so the finding came with three seeds in eight."""
    name = "wsp902_loader_chosen_by_a_branch.py"
    shutil.copy(FIXTURES / name, tmp_path / name)
    runs = {seed: modes.cli(tmp_path, ["--isolated", "-j", "1", "--no-cache", "--select", "WSP", name], hash_seed=seed)
            for seed in SEEDS}
    assert f"{name}:21:17: WSP902" in runs[0][1]
    assert all(run == runs[0] for run in runs.values())


def test_every_hash_seed_gives_the_same_answer_on_the_fixtures(fixtures_tree):
    """Three seeds, three runs of the whole fixtures tree (about a second each): one answer."""
    runs = [modes.printed(modes.cli(fixtures_tree, ["--isolated", "-j", "1", "--no-cache", "--select", "WSP", "."],
                                    hash_seed=seed)) for seed in SEEDS[:3]]
    assert "Found " in runs[0]
    assert runs[1] == runs[0] and runs[2] == runs[0]


@pytest.mark.slow
def test_every_check_mode_agrees_on_the_fixtures(fixtures_tree):
    records: list[int] = []
    printed = modes.check_modes(fixtures_tree, ["--select", "WSP"], records)
    assert records == [1, 1]  # (each sequence's warm runs answered from the record of the run)
    assert "Found " in printed[modes.REFERENCE]
    assert_all_agree(printed)


@pytest.mark.slow
def test_flake8_check_text_and_named_files_agree_with_the_command_on_the_fixtures(fixtures_tree):
    files = modes.python_files(fixtures_tree)
    reference = modes.cli_findings(fixtures_tree, files, ["--select", "WSP"])
    assert reference.count("\n") > 100
    found = {
        "check_text": modes.api_findings(fixtures_tree, files),
        "files named": modes.named_files_findings(fixtures_tree, files, ["--select", "WSP"]),
    }
    assert_all_agree({"reference": reference, **found}, reference="reference")
    # (flake8 parses a file itself before it runs the plugin, and Python 3.6 code parses on no Python it runs on:
    # E999 and no WSP finding there; tests/test_python36_code.py checks those files through the command line)
    compiles = [path for path in files if "python36" not in Path(path).parts]
    reference = "".join(line for line in reference.splitlines(keepends=True) if not line.startswith("python36/"))
    found = {
        "flake8 -j 2": modes.flake8_findings(fixtures_tree, compiles, jobs=2),
        "flake8 -j 1": modes.flake8_findings(fixtures_tree, compiles, jobs=1),
    }
    assert_all_agree({"reference": reference, **found}, reference="reference")


@pytest.mark.slow
def test_every_diff_mode_agrees_on_the_fixtures(fixtures_tree):
    printed = modes.diff_modes(fixtures_tree, ["--select", "WSP", "--unsafe-fixes"])
    assert printed[modes.REFERENCE].count("+++ ") > 50
    assert_all_agree(printed)


@pytest.mark.slow
def test_every_fix_mode_rewrites_the_same_files_the_same_way(fixtures_tree):
    rewritten = modes.fix_modes(fixtures_tree, ["--select", "WSP", "--unsafe-fixes"])
    reference = rewritten[modes.REFERENCE]
    assert len(reference) > 50
    assert {mode: modes.differing_files(reference, files) for mode, files in rewritten.items()} == \
        dict.fromkeys(rewritten, [])


# -- every mode on a project whose findings depend on its other files ------------------------------------------------


def _notebook(*cells: str) -> str:
    import json

    return json.dumps({"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                                  "source": cell.splitlines(keepends=True)} for cell in cells],
                       "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


#: A project whose findings cross files: a worker count imported from config.py (astroid), a module that does
#: heavy work when imported (WSP103 in that module), a Dataset base class from a package (WSP301), a star import
#: of a project module, a module-level start that another module imports (its fix is unsafe) or that nothing
#: imports (safe), a notebook, and a configuration file.
PROJECT = {
    "config.py": "NUM_WORKERS = 2\n",
    "weights.py": 'import torch\n\nMODEL = torch.load("model.pt")\n',
    "helpers.py": "from torch.utils.data import DataLoader\n\n\ndef identity(batch):\n    return batch\n",
    "pkg/__init__.py": "from pkg.loaders import make_loader\n",
    "pkg/loaders.py": textwrap.dedent("""\
        from torch.utils.data import DataLoader


        def make_loader(data, collate):
            return DataLoader(data, num_workers=2, collate_fn=collate)
        """),
    "pkg/quiet.py": "def make_loader(data, collate):\n    return data\n",
    "train_hub.py": textwrap.dedent("""\
        from pkg import make_loader


        def main():
            for batch in make_loader(range(4), lambda batch: batch):
                print(batch)


        if __name__ == "__main__":
            main()
        """),
    "pkg/base.py": textwrap.dedent("""\
        from torch.utils.data import Dataset


        class FramesDataset(Dataset):
            def __len__(self):
                return 4
        """),
    "train_config.py": textwrap.dedent("""\
        from torch.utils.data import DataLoader

        from config import NUM_WORKERS


        def main():
            loader = DataLoader(range(4), num_workers=NUM_WORKERS, collate_fn=lambda b: b)
            for batch in loader:
                print(batch)


        if __name__ == "__main__":
            main()
        """),
    "train_weights.py": textwrap.dedent("""\
        import multiprocessing

        import weights


        def square(x):
            return x * x


        if __name__ == "__main__":
            with multiprocessing.Pool(2) as pool:
                print(pool.map(square, range(4)), weights.MODEL)
        """),
    "train_frames.py": textwrap.dedent("""\
        from torch.utils.data import DataLoader

        from pkg.base import FramesDataset


        class Frames(FramesDataset):
            def __init__(self, path):
                self.handle = open(path)

            def __getitem__(self, index):
                return index


        if __name__ == "__main__":
            for batch in DataLoader(Frames("frames.txt"), num_workers=2):
                print(batch)
        """),
    "train_star.py": textwrap.dedent("""\
        from helpers import *


        def main():
            def collate(batch):
                return batch

            for batch in DataLoader(range(4), num_workers=2, collate_fn=collate):
                print(batch)


        if __name__ == "__main__":
            main()
        """),
    "pool_imported.py": textwrap.dedent("""\
        import multiprocessing


        def square(x):
            return x * x


        pool = multiprocessing.Pool(2)
        print(pool.map(square, range(3)))
        """),
    "uses_pool.py": "import pool_imported\n",
    "pool_alone.py": textwrap.dedent("""\
        import multiprocessing


        def square(x):
            return x * x


        pool = multiprocessing.Pool(2)
        print(pool.map(square, range(3)))
        """),
    "explore.ipynb": _notebook("import torch\nfrom torch.utils.data import DataLoader\n",
                               "def stack(batch):\n    return torch.cat(batch)\n",
                               "for batch in DataLoader(range(4), num_workers=2, collate_fn=stack):\n"
                               "    print(batch)\n"),
    "pyproject.toml": "[tool.winspawn-lint]\nextend-select = [\"WSP105\"]\n",
}


def make_project(root: Path, files: dict[str, str] = PROJECT) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def project(tmp_path) -> Path:
    return make_project(tmp_path / "project")


def test_the_generated_project_has_findings_that_depend_on_its_other_files(project):
    status, out, _ = cli(project, "-j", "1", "--no-cache", ".")
    found = {line.split(":")[0] + " " + line.split(": ")[1].split()[0] for line in out.splitlines() if ": WSP" in line}
    assert {"train_config.py WSP201", "weights.py WSP103", "train_frames.py WSP301", "train_star.py WSP202",
            "train_hub.py WSP201",
            "pool_imported.py WSP101", "pool_alone.py WSP101",
            "explore.ipynb WSP206"} <= found, out


@pytest.mark.slow
def test_every_mode_agrees_on_the_generated_project(project):
    records: list[int] = []
    assert_all_agree(modes.check_modes(project, records=records))
    assert records == [1, 1]
    assert_all_agree(modes.diff_modes(project, ["--unsafe-fixes"]))
    rewritten = modes.fix_modes(project, ["--unsafe-fixes"])
    reference = rewritten[modes.REFERENCE]
    assert "explore.ipynb" in reference and "explore_defs.py" in reference and "pool_alone.py" in reference
    assert {mode: modes.differing_files(reference, files) for mode, files in rewritten.items()} == \
        dict.fromkeys(rewritten, [])
    files = modes.python_files(project)
    reference = modes.cli_findings(project, files, ["--isolated", "--select", "WSP"])
    assert_all_agree({"reference": reference,
                      "flake8": modes.flake8_findings(project, files),
                      "check_text": modes.api_findings(project, files)},
                     reference="reference")


# -- the results cache, held to --no-cache across random changes to any file of the project --------------------------


def _set(name: str, text: str):
    def change(root: Path) -> None:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    change.__name__ = f"write {name}"
    return change


def _delete(name: str):
    def change(root: Path) -> None:
        if (root / name).exists():
            (root / name).unlink()
    change.__name__ = f"delete {name}"
    return change


def _rename(old: str, new: str):
    def change(root: Path) -> None:
        if (root / old).exists() and not (root / new).exists():
            (root / new).parent.mkdir(parents=True, exist_ok=True)
            os.rename(root / old, root / new)
    change.__name__ = f"rename {old} {new}"
    return change


def _touch(name: str):
    def change(root: Path) -> None:
        if (root / name).exists():
            os.utime(root / name)
    change.__name__ = f"touch {name}"
    return change


#: Changes to any kind of file the findings or fixes depend on: the checked files, the modules they import, a
#: package's __init__.py, the configuration (ours, and the line length the fixer keeps to), a notebook; edits of
#: the same size (a stamp the cache cannot tell apart by size), renames, deletions and touches.
CHANGES = [
    _set("config.py", "NUM_WORKERS = 0\n"), _set("config.py", "NUM_WORKERS = 3\n"), _delete("config.py"),
    _set("weights.py", "MODEL = None\n"), _set("weights.py", PROJECT["weights.py"]), _touch("weights.py"),
    _delete("pkg/__init__.py"), _set("pkg/__init__.py", ""), _rename("pkg/base.py", "pkg/base2.py"),
    # (a package's __init__ passing a name on: what else it holds is no dependency of train_hub.py's findings)
    _set("pkg/__init__.py", "from pkg.loaders import make_loader\n\nVERSION = 2\n"),
    _set("pkg/__init__.py", "from pkg.quiet import make_loader\n"), _set("pkg/__init__.py", "from .loaders import *\n"),
    _set("pkg/__init__.py", "from pkg import loaders\n\n\ndef make_loader(data, collate):\n"
                            "    return loaders.make_loader(data, collate)\n"),
    _set("pkg/loaders.py", "def make_loader(data, collate):\n    return data\n"),
    _rename("pkg/base2.py", "pkg/base.py"), _delete("helpers.py"), _set("helpers.py", PROJECT["helpers.py"]),
    _delete("uses_pool.py"), _set("uses_pool.py", "import pool_alone\n"),
    _rename("train_weights.py", "pkg/train_weights.py"), _touch("train_config.py"),
    _set("pyproject.toml", "[tool.winspawn-lint]\nignore = [\"WSP201\"]\n"), _delete("pyproject.toml"),
    _set("setup.cfg", "[flake8]\nmax-line-length = 120\n"), _delete("setup.cfg"),
    _set("explore.ipynb", PROJECT["explore.ipynb"].replace("num_workers=2", "num_workers=0")),
    _set("train_star.py", PROJECT["train_star.py"].replace("num_workers=2", "num_workers=0")),
]


@pytest.mark.slow
def test_a_cached_run_agrees_with_no_cache_after_any_changes(tmp_path_factory):
    from hypothesis import HealthCheck, given, settings, strategies as st

    @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
    @given(st.lists(st.tuples(st.sampled_from(CHANGES), st.sampled_from(["1", "2"])), min_size=1, max_size=5))
    def check(changes):
        root = make_project(tmp_path_factory.mktemp("changes") / "project")
        cache = root.parent / "cache"
        modes.settle(root)
        # (not --isolated: the project's configuration files are among the changes)
        assert modes.cli(root, ["-j", "2", "--diff", "--unsafe-fixes", "."], cache)[0] == 1  # fill the cache
        for step, (change, jobs) in enumerate(changes, start=1):
            change(root)
            modes.settle(root, 10**18 + step * 10**9)  # (old enough to keep a record of the run by)
            # (a check twice: the first finds the change, keeps its record, which the second answers from)
            for request in ((), (), ("--diff", "--unsafe-fixes")):
                cached = modes.cli(root, ["-j", jobs, *request, "."], cache)
                assert cached == modes.cli(root, ["-j", "1", "--no-cache", *request, "."]), \
                    f"after {[c.__name__ for c, _ in changes]}"

    check()
