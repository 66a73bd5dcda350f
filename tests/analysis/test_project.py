"""The project reader shares what one file's check found about a module with the checks of the other files, and
a shared fact never changes a finding.

Specification: what an analysis of a module on its own finds (its flows, its body's worker starts) is a fact of
the project's files, found once per run (``Engine.module_facts`` through ``Project.memo``); every file checked
with one reader gets the findings a new reader gives it; an editor's unsaved text of a file is checked from that
text, never with facts found from the file on disk.
"""

from __future__ import annotations

import ast
import os
import textwrap
import time
from collections import Counter
from contextlib import contextmanager

from winspawn_lint.analysis import taint
from winspawn_lint.analysis.project import Project
from winspawn_lint.rules import RULES
from winspawn_lint.runner import Job, check_buffer, check_file
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES))

# Two modules whose lambdas only their importer hands to a loader: both are reported through train.py's flows.
PROJECT = {
    "pyproject.toml": "",
    "transforms.py": "identity = lambda sample: sample\n",
    "collate.py": "stack = lambda batch: batch\n",
    "train.py": textwrap.dedent('''\
        from torch.utils.data import DataLoader

        from collate import stack
        from transforms import identity


        def main(data):
            return DataLoader(data, num_workers=2, collate_fn=stack, worker_init_fn=identity)


        if __name__ == "__main__":
            main([1, 2, 3])
    '''),
}


def _project(root):
    """PROJECT's files, written a minute ago (a long-lived reader trusts no fact about a file whose mtime is too
    recent to prove it unchanged: it may be edited again within the same tick)."""
    for name, text in PROJECT.items():
        (root / name).write_text(text, encoding="utf-8")
        os.utime(root / name, ns=(time.time_ns() - 60 * 10**9,) * 2)
    return [str(root / name) for name in ("collate.py", "transforms.py")]


def _codes(result):
    return [(f.code, f.line) for f in result.findings]


def _recorded_reads(monkeypatch) -> list:
    """What each check reads from now on, in order: (the files read or looked for, the derived facts used)."""
    reads: list = []
    real_reading = Project.reading

    @contextmanager
    def recorded(self):
        with real_reading(self) as found:
            yield found
        reads.append((set(found.files), dict(found.derived)))

    monkeypatch.setattr(Project, "reading", recorded)
    return reads


def _counted_engines(monkeypatch) -> list:
    """The main unit's path of each engine made from now on."""
    engines: list = []
    real = taint.Engine.__init__

    def counted(self, *args, **kwargs):
        engines.append(args[-1].path)
        real(self, *args, **kwargs)

    monkeypatch.setattr(taint.Engine, "__init__", counted)
    return engines


def _counted_parses(monkeypatch) -> Counter:
    """How many times each file (by its name) is parsed from now on."""
    parsed: Counter = Counter()
    real_parse = ast.parse

    def counted(source, filename="<unknown>", *args, **kwargs):
        parsed[os.path.basename(filename)] += 1
        return real_parse(source, filename, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counted)
    return parsed


def test_an_importers_flows_are_found_once_and_give_each_file_what_a_new_reader_gives(tmp_path, monkeypatch):
    files = _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    alone = [_codes(check_file(path, Job(ALL), Project())) for path in files]
    assert all(alone) and alone == [[("WSP201", 1)], [("WSP201", 1)]]
    engines = _counted_engines(monkeypatch)
    project = Project()
    shared = [_codes(check_file(path, Job(ALL), project)) for path in files]
    assert shared == alone
    # each checked file's engine, and one per module for its facts, found once: train.py's serve both checks
    assert Counter(engines) == {files[0]: 2, files[1]: 2, str(tmp_path / "train.py"): 1}


def test_an_unsaved_text_is_checked_from_the_text_not_from_facts_about_its_file(tmp_path, monkeypatch):
    collate, _ = _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    project = Project()
    assert _codes(check_file(collate, Job(ALL), project)) == [("WSP201", 1)]
    fixed = "def stack(batch):\n    return batch\n"
    assert _codes(check_buffer(collate, fixed, Job(ALL), project)) == []
    assert _codes(check_buffer(collate, fixed, Job(ALL), Project())) == []
    # and the file on disk, checked again with the same reader, is still what it was
    assert _codes(check_file(collate, Job(ALL), project)) == [("WSP201", 1)]


def test_a_scripts_facts_found_from_an_unsaved_text_are_not_kept_for_its_file(tmp_path, monkeypatch):
    """The language server checks train.py as it is on disk, then the text the fixer made of it (the lambda
    hoisted), then the file again: the facts of train.py's own module found from the fixer's text are that
    text's, though nothing else of train.py's file was read for them (once, the import search's read of its
    imports happened to mark them; that read became a derived fact, and the file's next check found nothing)."""
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    script = tmp_path / "train.py"
    script.write_text(textwrap.dedent('''\
        from multiprocessing import Pool


        def main():
            with Pool(2) as pool:
                pool.map(lambda x: x * 2, range(3))
    '''), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    project = Project()
    assert _codes(check_file(str(script), Job(ALL), project)) == [("WSP201", 6)]
    fixed = script.read_text(encoding="utf-8").replace("lambda x: x * 2", "abs")
    assert _codes(check_buffer(str(script), fixed, Job(ALL), project)) == []
    assert _codes(check_file(str(script), Job(ALL), project)) == [("WSP201", 6)]


def test_an_editors_text_that_is_the_files_own_is_checked_as_the_file(tmp_path, monkeypatch):
    """The language server checks what the editor holds; while that is the file as it is on disk (a file just
    opened or saved), it is checked as the file, as flake8's text is, so the facts of the modules around it found
    for one check serve the next: train.py's flows are found once for the checks of both modules it imports,
    as for two files checked from disk (they were found again for each buffer)."""
    files = _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    engines = _counted_engines(monkeypatch)
    project = Project()
    for path in files:
        with open(path, encoding="utf-8") as handle:
            assert _codes(check_buffer(path, handle.read(), Job(ALL), project)) == [("WSP201", 1)]
    assert Counter(engines) == {files[0]: 2, files[1]: 2, str(tmp_path / "train.py"): 1}


def test_a_parsed_module_is_freed_by_reference_counting_once_no_check_holds_it(tmp_path, monkeypatch):
    """A module's index has no reference cycle (a binding holds its scope weakly), so a module dropped from the
    reader's kept ones is freed at once, not left for the cyclic collector to find among every module alive;
    inside a check it stays alive, as the check may still use what it took from it."""
    import gc
    import weakref

    from winspawn_lint.analysis import project as project_module

    monkeypatch.setattr(project_module, "MAX_MODULES_KEPT", 1)
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("import os\n\n\ndef f(x):\n    y = x\n    return y\n", encoding="utf-8")
    reader = Project()
    collecting = gc.isenabled()
    gc.disable()
    try:
        with reader.holding():
            scope = weakref.ref(reader.module(str(tmp_path / "a.py")).index.module_scope)
            binding = scope().bindings["f"][0]
            reader.module(str(tmp_path / "b.py"))  # (drops a.py from the kept modules)
            assert scope() is not None and binding.scope is scope()
        del binding
        assert scope() is None
    finally:
        if collecting:
            gc.enable()


def test_a_kept_module_a_check_was_not_given_is_freed_when_it_leaves_the_kept_ones(tmp_path, monkeypatch):
    """Only what a check may hold stays alive with it: a module kept from before the check, which the check never
    asked for, is freed as soon as the modules the check reads push it out of the kept ones (held to the end of a
    check that reads many, those stayed alive beside them: 45 MiB more at the peak of a run over diffusers)."""
    import gc
    import weakref

    from winspawn_lint.analysis import project as project_module

    monkeypatch.setattr(project_module, "MAX_MODULES_KEPT", 1)
    for name in ("a.py", "b.py"):
        (tmp_path / name).write_text("def f(x):\n    return x\n", encoding="utf-8")
    reader = Project()
    before = weakref.ref(reader.module(str(tmp_path / "a.py")))  # (kept from an earlier check)
    collecting = gc.isenabled()
    gc.disable()
    try:
        with reader.holding():
            read = reader.module(str(tmp_path / "b.py"))  # (pushes a.py out of the kept modules)
            assert before() is None and reader.module(str(tmp_path / "b.py")) is read
    finally:
        if collecting:
            gc.enable()


def test_a_check_keeps_the_modules_of_the_facts_it_was_given_after_they_are_dropped(tmp_path, monkeypatch):
    """The modules pinned by a fact a check was given stay alive until the check ends, even when the fact itself
    is dropped meanwhile (the check may still hold its sites): another reader of the file then gets the same
    module, whichever facts this process happened to keep."""
    import gc
    import weakref

    from winspawn_lint.analysis import project as project_module

    monkeypatch.setattr(project_module, "MAX_MODULES_KEPT", 1)
    monkeypatch.setattr(project_module, "MAX_PINNING_FACTS", 1)
    paths = {}
    for name in ("a", "b"):
        paths[name] = str(tmp_path / f"{name}.py")
        (tmp_path / f"{name}.py").write_text("def f(x):\n    return x\n", encoding="utf-8")
    reader = Project()
    pinned = reader.memo("pin a", lambda: reader.module(paths["a"]), pins=lambda module: (module,))
    pinned_scope = weakref.ref(pinned.index.module_scope)
    del pinned
    reader.module(paths["b"])  # (a.py leaves the kept modules before the check: the fact alone holds it)
    collecting = gc.isenabled()
    gc.disable()
    try:
        with reader.holding():
            assert reader.memo("pin a", lambda: None) is not None  # (given to the check: kept)
            reader.memo("pin b", lambda: reader.module(paths["b"]), pins=lambda module: (module,))
            assert "pin a" not in reader._memo  # (dropped: one pinning fact is kept)
            assert pinned_scope() is not None
        assert pinned_scope() is None
    finally:
        if collecting:
            gc.enable()


def test_the_kept_modules_are_bounded_by_their_source_size_too(tmp_path, monkeypatch):
    """A repository of large modules keeps fewer of them (a tree takes tens of times its source's size): past
    ``MAX_KEPT_BYTES`` of source the least recently used module goes, though the last one read always stays."""
    import weakref

    from winspawn_lint.analysis import project as project_module

    paths = {}
    for name, lines in (("small", 10), ("large", 100), ("huge", 400)):
        paths[name] = str(tmp_path / f"{name}.py")
        (tmp_path / f"{name}.py").write_text("".join(f"X{n} = {n}\n" for n in range(lines)), encoding="utf-8")
    size = {name: os.path.getsize(path) for name, path in paths.items()}
    monkeypatch.setattr(project_module, "MAX_KEPT_BYTES", size["small"] + size["large"])
    reader = Project()
    small = weakref.ref(reader.module(paths["small"]))
    large = weakref.ref(reader.module(paths["large"]))
    assert small() is not None and large() is not None  # (both fit)
    huge = weakref.ref(reader.module(paths["huge"]))
    assert small() is None and large() is None and huge() is not None  # (larger than the bound: kept alone)


def test_the_candidates_read_to_find_a_modules_importers_are_not_held_by_the_check(tmp_path, monkeypatch):
    """A module's importers are looked for among the files whose imports mention its name: each candidate is
    parsed to be asked what it imports, and no answer holds its nodes, so the check does not hold it either: it is
    freed when it leaves the kept modules (most of a popular name's candidates do not import it)."""
    import gc

    from winspawn_lint.analysis import project as project_module

    monkeypatch.setattr(project_module, "MAX_MODULES_KEPT", 1)
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "utils.py").write_text("X = 1\n", encoding="utf-8")
    (tmp_path / "given.py").write_text("import utils\n", encoding="utf-8")
    for name in ("a", "b", "c"):  # (their imports mention `utils`: another package's)
        (tmp_path / f"{name}.py").write_text("from torch import utils\n", encoding="utf-8")
    (tmp_path / "user.py").write_text("import utils\n", encoding="utf-8")
    reader = Project()
    collecting = gc.isenabled()
    gc.disable()
    try:
        with reader.holding():
            given = reader.module(str(tmp_path / "given.py"))  # (the check was given it: held)
            importers = reader.importers_of(str(tmp_path / "utils.py"), 8)
            assert [os.path.basename(path) for path in importers] == ["given.py", "user.py"]
            alive = [name for name in ("a", "b", "c", "given") if reader.parsed(str(tmp_path / f"{name}.py"))]
            assert alive == ["given"] and reader.module(str(tmp_path / "given.py")) is given
    finally:
        if collecting:
            gc.enable()


def test_a_modules_importers_are_looked_for_nearest_first(tmp_path):
    """Only the first candidates of a popular name are read (two per importer wanted), so they are taken nearest
    first: the script beside ``utils.py`` imports it (its folder is first on ``sys.path``), not the files of other
    folders whose imports also name a ``utils`` (in path order, these came first and the script was never read)."""
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    for number in range(4):
        (tmp_path / "another" / str(number)).mkdir(parents=True)
        (tmp_path / "another" / str(number) / "run.py").write_text("import utils\n", encoding="utf-8")
    (tmp_path / "project").mkdir()
    (tmp_path / "project" / "utils.py").write_text("X = 1\n", encoding="utf-8")
    (tmp_path / "project" / "train.py").write_text("import utils\n", encoding="utf-8")
    found = Project(snapshot=True).importers_of(str(tmp_path / "project" / "utils.py"), 1)
    assert found == [str(tmp_path / "project" / "train.py")]


def test_a_runs_reader_confirms_what_its_facts_read_once_per_run_and_a_long_lived_one_per_check(
        tmp_path, monkeypatch):
    """The command line reads the project as it stood when the run began (it writes only when every file is
    checked), so the files a kept fact read are confirmed unchanged once per run; the language server's reader,
    which must see an edit between two checks, confirms them for each check."""
    files = _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    from winspawn_lint.analysis import project as project_module

    asked: Counter = Counter()
    real = project_module.holds

    def counted(path, *args, **kwargs):
        asked[path] += 1
        return real(path, *args, **kwargs)

    monkeypatch.setattr(project_module, "holds", counted)
    checked = [*files, files[0]]
    for snapshot, confirmed in ((True, 1), (False, len(checked) - 1)):
        asked.clear()
        project = Project(snapshot=snapshot)
        assert [_codes(check_file(path, Job(ALL), project)) for path in checked] == [[("WSP201", 1)]] * 3
        # (train.py's flows: a fact found by the first check and given to the others)
        assert asked[str(tmp_path / "train.py")] == confirmed


def test_a_runs_reader_asks_once_whether_a_path_is_a_file_and_every_check_still_depends_on_the_answer(
        tmp_path, monkeypatch):
    """The import search asks whether a module's file exists at every import it evaluates; the command line's
    reader asks the file system once per path, and each check that asked still records the answer as what its
    findings depend on (the results cache re-checks the file when it changes); the language server's reader asks
    every time."""
    files = _project(tmp_path)
    monkeypatch.chdir(tmp_path)
    reads = _recorded_reads(monkeypatch)
    alone = [(_codes(check_file(path, Job(ALL), Project())), reads[-1]) for path in files]
    asked: Counter = Counter()
    real = os.path.isfile

    def counted(path):
        asked[path] += 1
        return real(path)

    monkeypatch.setattr(os.path, "isfile", counted)
    for snapshot in (True, False):
        asked.clear()
        project = Project(snapshot=snapshot)
        assert [(_codes(check_file(path, Job(ALL), project)), reads[-1]) for path in files] == alone
        assert (max(asked.values()) == 1) is snapshot


def test_a_modules_facts_found_for_another_files_check_serve_its_own_check(tmp_path, monkeypatch):
    """collate.py's check finds train.py's flows with an engine of their own; train.py's check then takes them
    rather than finding them again (its engine starts new either way), and gives the findings a new reader
    gives, having read the same files."""
    files = [*_project(tmp_path), str(tmp_path / "train.py")]
    monkeypatch.chdir(tmp_path)
    reads = _recorded_reads(monkeypatch)
    alone = []
    for path in files:
        alone.append(_codes(check_file(path, Job(ALL), Project())))
    read_alone = reads[-1]
    engines = _counted_engines(monkeypatch)
    project = Project(snapshot=True)
    assert [_codes(check_file(path, Job(ALL), project)) for path in files] == alone
    assert reads[-1] == read_alone
    # (each file's check makes one engine, and each module's facts one)
    assert Counter(engines) == {path: 2 for path in files}


def test_a_long_lived_reader_sees_that_a_new_file_now_shadows_a_library_a_kept_module_imports(tmp_path, monkeypatch):
    """The language server's reader keeps a file's parsed module while the file is unchanged, and what it found
    about the module's names with it.  A ``torch.py`` created beside ``train.py`` (the editor's watcher reports
    it) is what ``from torch.utils.data import DataLoader`` imports from then on: the next check of the unchanged
    ``train.py`` finds what a new reader finds (no worker API there)."""
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    train = tmp_path / "train.py"
    train.write_text(textwrap.dedent('''\
        from torch.utils.data import DataLoader


        def main(data):
            return DataLoader(data, num_workers=2, collate_fn=lambda batch: batch)
    '''), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    project = Project()
    assert _codes(check_file(str(train), Job(ALL), project)) == [("WSP201", 5)]
    (tmp_path / "torch.py").write_text("", encoding="utf-8")
    project.files_changed()
    assert _codes(check_file(str(train), Job(ALL), Project())) == []
    assert _codes(check_file(str(train), Job(ALL), project)) == []


def test_a_files_check_reads_what_a_new_readers_does_after_another_check_read_its_module(tmp_path, monkeypatch):
    """train.py's check reads loader.py (its helper's names are resolved there: ``DataLoader`` is torch's, as no
    ``torch.py`` is in the project); loader.py's own check then records the same files looked at as a check with a
    new reader, so that its results cache entry is invalidated by the same changes whichever file went first, and
    it takes the tree read then rather than parsing the file again."""
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "loader.py").write_text(textwrap.dedent('''\
        from torch.utils.data import DataLoader


        def make(data, collate):
            return DataLoader(data, num_workers=2, collate_fn=collate)
    '''), encoding="utf-8")
    (tmp_path / "train.py").write_text("from loader import make\n\nLOADER = make([1], lambda batch: batch)\n",
                                       encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    reads = _recorded_reads(monkeypatch)
    parsed = _counted_parses(monkeypatch)
    loader, train = str(tmp_path / "loader.py"), str(tmp_path / "train.py")
    alone = _codes(check_file(loader, Job(ALL), Project()))
    read_alone = reads[-1]
    assert str(tmp_path / "torch.py") in read_alone[0]
    project = Project(snapshot=True)
    parsed.clear()
    assert _codes(check_file(train, Job(ALL), project)) == [("WSP201", 3)]
    assert _codes(check_file(loader, Job(ALL), project)) == alone
    assert reads[-1] == read_alone
    # (loader.py's check takes the tree train.py's check read; the import graph reads loader.py's names once, as
    # it names a worker API and train.py imports one of them: exported_names.py)
    assert parsed == {"train.py": 1, "loader.py": 2}


def test_a_script_the_run_checks_later_is_parsed_once_though_the_import_search_asks_it_first(tmp_path, monkeypatch):
    """loader.py's loader takes its worker count from the caller, so its check asks which modules import it:
    app/train.py imports a module of that name, and the search asks it what it imports (``app/loader.py``, the
    module beside the script, another module).  The
    run checks train.py next; its reader, told so (``Project.expect``), parses train.py whole for the question
    and keeps it for train.py's own check, instead of a bare parse and then another.  Either way the findings
    and the files each check reads are a new reader's."""
    files = {
        "pyproject.toml": "",
        "loader.py": "from torch.utils.data import DataLoader\n\n\ndef make(data, workers):\n"
                     "    return DataLoader(data, num_workers=workers, collate_fn=lambda batch: batch)\n",
        "app/loader.py": "SIZE = 8\n",
        "app/train.py": "from torch.utils.data import DataLoader\n\nfrom loader import SIZE\n\n"
                        "LOADER = DataLoader(range(SIZE), num_workers=2, collate_fn=lambda batch: batch)\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    paths = [str(tmp_path / "loader.py"), str(tmp_path / "app" / "train.py")]
    monkeypatch.chdir(tmp_path)
    reads = _recorded_reads(monkeypatch)
    alone = []
    for path in paths:
        alone.append(_codes(check_file(path, Job(ALL), Project(snapshot=True))))
        alone.append(reads[-1])
    assert alone[0] == alone[2] == [("WSP201", 5)]
    # (a bare parse is given no file name: it is "<unknown>" to the counter)
    for expected, parses in ((False, {"loader.py": 1, "train.py": 1, "<unknown>": 1}),
                             (True, {"loader.py": 1, "train.py": 1})):
        parsed = _counted_parses(monkeypatch)
        project = Project(snapshot=True)
        if expected:
            project.expect(paths)
        shared = []
        for path in paths:
            shared.append(_codes(check_file(path, Job(ALL), project)))
            shared.append(reads[-1])
        assert shared == alone
        assert parsed == parses


def test_an_importer_whose_facts_are_kept_is_not_parsed_again_to_be_asked_for_them(tmp_path, monkeypatch):
    """The checks of two modules that could let a lambda escape both ask for the flows of the script that imports
    them; a run's reader finds the script's facts once and, while they are kept, does not parse the script again
    to be given them, though the parsed module itself was dropped (most importers of a large project's modules are
    asked only for their kept facts).  The findings are a new reader's, and so are the files each check reads."""
    from winspawn_lint.analysis import project as project_module

    monkeypatch.setattr(project_module, "MAX_MODULES_KEPT", 1)
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    for name in ("augment", "collate"):
        (tmp_path / f"{name}.py").write_text(f"{name.upper()} = lambda x: x\n", encoding="utf-8")
    (tmp_path / "train.py").write_text(textwrap.dedent('''\
        from torch.utils.data import DataLoader

        from augment import AUGMENT
        from collate import COLLATE


        def main(data):
            return DataLoader(data, num_workers=2)
    '''), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    reads = _recorded_reads(monkeypatch)
    paths = [str(tmp_path / "augment.py"), str(tmp_path / "collate.py")]
    alone = []
    for path in paths:
        alone.append(_codes(check_file(path, Job(ALL), Project(snapshot=True))))
        alone.append(reads[-1])
    parsed = _counted_parses(monkeypatch)
    project = Project(snapshot=True)
    shared, train_parses = [], []
    for path in paths:
        shared.append(_codes(check_file(path, Job(ALL), project)))
        shared.append(reads[-1])
        train_parses.append(parsed["train.py"])
    assert shared == alone
    # (the first check parses it to find what it imports and, with one module kept, again for its facts)
    assert train_parses[1] == train_parses[0] > 0


def test_a_long_lived_reader_sees_an_edit_that_kept_a_just_written_files_size(tmp_path, monkeypatch):
    """``config.py`` goes from ``WORKERS = 0`` to ``WORKERS = 2`` within the mtime tick it was written in: its
    stamp (size, and an mtime too recent to trust) is what it was, so a long-lived reader does not take the facts
    found before the edit as still holding, and finds the loader's workers (a run's snapshot may: nothing is
    written while it reads)."""
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    config, train = tmp_path / "config.py", tmp_path / "train.py"
    config.write_text("WORKERS = 0\n", encoding="utf-8")
    train.write_text(textwrap.dedent('''\
        from config import WORKERS
        from torch.utils.data import DataLoader

        loader = DataLoader(range(8), num_workers=WORKERS, collate_fn=lambda b: b)
        for batch in loader:
            print(batch)
    '''), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    project = Project()
    assert _codes(check_file(str(train), Job(ALL), project)) == []
    config.write_text("WORKERS = 2\n", encoding="utf-8")
    project.files_changed()
    assert _codes(check_file(str(train), Job(ALL), project)) == [("WSP201", 4), ("WSP101", 5)]


def test_a_runs_facts_about_a_just_written_file_still_hold_once_its_mtime_has_aged(tmp_path, monkeypatch):
    """The files are written just now: their mtimes are too recent to prove them unchanged, so the run's reader
    keeps what it read of them by their content.  After the first check the mtimes age (a run outlives two
    seconds); the facts found by the first check still hold for the second, and train.py's flows are found once
    (before, each fact that read a just-edited file failed its check at every file from then on and was found
    again: 55 s against 24 s of a run after an edit on the ML corpus)."""
    from winspawn_lint.io import stamps

    for name, text in PROJECT.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    files = [str(tmp_path / name) for name in ("collate.py", "transforms.py")]
    monkeypatch.chdir(tmp_path)
    alone = [_codes(check_file(path, Job(ALL), Project())) for path in files]
    engines = _counted_engines(monkeypatch)
    project = Project(snapshot=True)
    found = [_codes(check_file(files[0], Job(ALL), project))]
    monkeypatch.setattr(stamps, "RACY_NS", 0)  # (from now on every mtime is old enough to trust)
    found.append(_codes(check_file(files[1], Job(ALL), project)))
    assert found == alone == [[("WSP201", 1)]] * 2
    assert Counter(engines)[str(tmp_path / "train.py")] == 1


def test_the_modules_asked_only_what_they_import_are_not_indexed(tmp_path, monkeypatch):
    """Which modules import ``a/utils.py``?  Each file whose imports mention ``utils`` is asked what it imports:
    a bare parse answers, and the file's index (most of the cost of reading a module: a tenth of a cold run of
    diffusers went to indexing such files) is not built; a file whose text may edit ``sys.path`` is read whole,
    as its edits move where its imports are found.  The answer is the one the whole modules give."""
    from winspawn_lint.analysis import imports

    files = {
        "pyproject.toml": "",
        "a/__init__.py": "", "a/utils.py": "X = 1\n",
        "b/__init__.py": "", "b/utils.py": "Y = 1\n",
        "b/one.py": "from b.utils import Y\n",
        "b/two.py": "from a import utils\n\nif __name__ == '__main__':\n    print(utils.X)\n",
        "tools/run.py": "import os\nimport sys\n\n"
                        "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'a'))\n"
                        "import utils  # noqa: E402\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    indexed: set = set()  # (the files the reader parsed and indexed whole)
    real_module = Project.module

    def module(self, path):
        known = self._modules.get(os.path.abspath(path))
        found = real_module(self, path)
        if found is not None and (known is None or known[1] is not found):
            indexed.add(os.path.relpath(path, tmp_path))
        return found

    monkeypatch.setattr(Project, "module", module)
    target = str(tmp_path / "a" / "utils.py")
    found = Project(snapshot=True).importers_of(target, 10)
    expected = [os.path.join("b", "two.py"), os.path.join("tools", "run.py")]
    assert [os.path.relpath(path, tmp_path) for path in found] == expected
    assert indexed == {os.path.join("tools", "run.py")}
    monkeypatch.setattr(imports, "import_facts_of_text", lambda data: None)  # (every module read whole)
    assert Project(snapshot=True).importers_of(target, 10) == found


def test_kept_facts_that_hold_parsed_modules_are_bounded_by_the_source_bytes_of_those_modules(monkeypatch):
    """The least recently used such fact goes first once the modules they hold (each counted once, however many
    facts hold it) come to more than MAX_PINNED_BYTES of source; a fact that holds none is not counted."""
    from types import SimpleNamespace

    from winspawn_lint.analysis import project as project_module

    monkeypatch.setattr(project_module, "MAX_PINNED_BYTES", 250)

    def module(name, size):
        return SimpleNamespace(path=f"/p/{name}.py", stamp=(size, 0))

    a, b, c = module("a", 100), module("b", 100), module("c", 100)
    project = Project(snapshot=True)
    project.memo("first", lambda: 1, pins=lambda value: [a, b])
    project.memo("second", lambda: 2, pins=lambda value: [b])  # (b is counted once: 200 bytes held)
    project.memo("none", lambda: 3, pins=lambda value: [])
    assert {"first", "second", "none"} <= set(project._memo)
    project.memo("third", lambda: 4, pins=lambda value: [c])  # (300 bytes: the oldest goes)
    assert "first" not in project._memo and {"second", "third", "none"} <= set(project._memo)
    project.memo("fourth", lambda: 5, pins=lambda value: [a, b, c])  # (alone, a fact is kept whatever it holds)
    assert set(project._memo) == {"none", "fourth"}
