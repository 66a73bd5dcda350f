"""The record of a run: a warm rerun of the same files answers from it while nothing it depends on changed.

A check of many files (a tree) keeps, beside the per-file entries, one record of the run: each file's findings
as reported and everything they depend on (the files read, the paths looked for and not found, the folders the
project search listed).  The next run of the same files stats those paths and, when all hold, reports the
recorded findings without reading an entry, a source file or the project.  Each test below changes one kind of
thing a finding depends on and holds the cached run to what ``--no-cache`` reports.

The files' and folders' mtimes are set in the past after each change (:func:`settle`): a file changed within
the last two seconds is not trusted (it could change again within the same mtime tick), and a run that sees one
writes no record, so without this no test would reach the record at all.
"""

from __future__ import annotations

import io
import os
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest

import modes
from modes import in_process as run
from samples import POOL_AT_IMPORT as HAZARD, TRAIN_WITH_SIBLING_CONFIG as TRAIN
from winspawn_lint.cli import main
from winspawn_lint.io import cache as cache_module

#: a far past, and one second per change after it: every settled path gets a time no earlier one had
PAST_NS = 10**18


def settle(root: Path, step: int) -> None:
    """Every file and folder under *root* changed in the last minute gets an mtime in the past, one of its own
    for each *step*."""
    modes.settle(root, PAST_NS + step * 10**9)


def records(cache: Path) -> list[Path]:
    return sorted(cache.glob("results-*/run-*.json"))


@pytest.fixture
def project(tmp_path, monkeypatch):
    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    (root / "hazard.py").write_text(HAZARD)
    (root / "config.py").write_text("NUM_WORKERS = 0\n")
    (root / "train.py").write_text(TRAIN)
    (root / "pkg" / "plain.py").write_text("def f():\n    return 1\n")
    monkeypatch.chdir(root)
    # (the cache outside the tree: its own folder appearing in the tree would change the tree's folder)
    monkeypatch.setenv(cache_module.ENV_VAR, str(tmp_path / "cache"))
    settle(root, 0)
    return root


@pytest.fixture
def looked_up(monkeypatch) -> list[str]:
    """What the runs from now on looked up entry by entry, read to check, or read to search the project."""
    from winspawn_lint.analysis import importers
    from winspawn_lint.io import source

    seen: list[str] = []
    lookup, read, scanned = cache_module.ResultsCache.lookup, source.read, importers._read_regular
    monkeypatch.setattr(cache_module.ResultsCache, "lookup",
                        lambda self, path, **kw: seen.append(f"entry {path}") or lookup(self, path, **kw))
    monkeypatch.setattr(source, "read", lambda path, *a, **kw: seen.append(f"read {path}") or read(path, *a, **kw))
    monkeypatch.setattr(importers, "_read_regular", lambda path: seen.append(f"search {path}") or scanned(path))
    return seen


def test_a_warm_rerun_reports_from_the_record_and_reads_no_entry_source_or_project_file(project, looked_up):
    first = run(".")
    assert "hazard.py:8:8: WSP101 [*]" in first[1]  # (its fix's safety: no file imports hazard.py)
    assert len(records(project.parent / "cache")) == 1
    looked_up.clear()
    assert run(".") == first
    # (the --no-cache run reads every file; the cached one, nothing)
    assert [seen for seen in looked_up if seen.startswith("entry")] == []
    assert sorted(os.path.basename(seen.split()[1]) for seen in looked_up if seen.startswith("read")) == [
        "config.py", "hazard.py", "plain.py", "train.py"]
    assert len(records(project.parent / "cache")) == 1


def _edit_dependency(root: Path) -> None:
    (root / "config.py").write_text("NUM_WORKERS = 2\n")  # the lambda in train.py now reaches workers


def _delete_dependency(root: Path) -> None:
    (root / "config.py").unlink()  # the count is unknown, assumed to start workers


def _edit_checked_file(root: Path) -> None:
    (root / "hazard.py").write_text(HAZARD.replace("pool = ", "if __name__ == '__main__':\n    pool = ")
                                    .replace("print(pool", "    print(pool"))


def _new_importer(root: Path) -> None:
    (root / "user.py").write_text("import hazard\n")  # hazard.py's wrap is no longer a safe fix


def _new_importer_in_a_subfolder(root: Path) -> None:
    (root / "pkg" / "user.py").write_text("import sys\nsys.path.insert(0, '..')\nimport hazard\n")


def _module_where_an_import_looked(root: Path) -> None:
    (root / "torch.py").write_text("")  # a local torch.py: train.py's DataLoader is not torch's


def _unrelated_file(root: Path) -> None:
    (root / "pkg" / "notes.py").write_text("NOTE = 1\n")


@pytest.mark.parametrize("change, workers", [
    (_edit_dependency, 0), (_delete_dependency, 0), (_edit_checked_file, 0), (_new_importer, 0),
    (_new_importer_in_a_subfolder, 0), (_module_where_an_import_looked, 2), (_unrelated_file, 0)])
def test_the_record_answers_only_while_all_it_depends_on_holds(project, looked_up, change, workers):
    (project / "config.py").write_text(f"NUM_WORKERS = {workers}\n")
    settle(project, 1)
    before = run(".")
    run(".")
    change(project)
    settle(project, 2)
    after = run(".")  # (held to --no-cache's answer)
    if change is not _unrelated_file:
        assert after != before
    # The run that found the change wrote its own record, which the next run takes.
    looked_up.clear()
    assert run(".") == after
    assert [seen for seen in looked_up if seen.startswith("entry")] == []


def test_a_parallel_run_keeps_a_record_too(project, looked_up):
    """Its workers search the projects and derive the facts the findings depend on; the parent derives them again
    (from what the workers read, kept in the scan memory) and keeps the record only if every one agrees."""
    first = run(".")
    shutil.rmtree(project.parent / "cache")
    with redirect_stdout(io.StringIO()):
        assert main(["--isolated", "-j", "2", "."]) == first[0]
    assert len(records(project.parent / "cache")) == 1
    looked_up.clear()
    assert run(".") == first
    assert [seen for seen in looked_up if seen.startswith("entry")] == []


def test_a_file_with_an_error_is_checked_again_by_every_run(project, looked_up):
    (project / "broken.py").write_text("def f(:\n")
    settle(project, 1)
    first = run("broken.py", ".")
    assert first[0] == 2 and "broken.py: error: syntax error" in first[2]
    looked_up.clear()
    assert run("broken.py", ".") == first
    # (read to be checked by the cached run and the --no-cache one; no entry looked up)
    assert [seen for seen in looked_up if seen.startswith("entry")] == [] and looked_up.count("read broken.py") == 2


def test_a_run_of_other_files_or_of_a_fix_writes_no_record_and_a_changed_file_none_until_it_is_old(project):
    cache = project.parent / "cache"
    run("hazard.py", "train.py")
    run("--select", "WSP1", ".")
    assert len(records(cache)) == 2  # (two lists of files, or settings: a record each)
    run("--diff", ".")
    assert len(records(cache)) == 2
    (project / "config.py").write_text("NUM_WORKERS = 1\n")  # changed now: too recent to prove unchanged later
    for record in records(cache):
        record.unlink()
    run(".")
    assert records(cache) == []


def test_at_most_a_few_records_are_kept_the_most_recently_used(project, monkeypatch):
    monkeypatch.setattr(cache_module, "MAX_RUN_RECORDS", 2)
    cache = project.parent / "cache"
    for names in (["hazard.py"], ["train.py"], ["config.py"]):
        run(*names)
    assert len(records(cache)) == 2


def test_after_an_edit_only_the_files_whose_findings_depended_on_it_are_looked_up(project, looked_up):
    """Specification: the record says which file's findings depend on what; after an edit the files whose every
    dependency holds are answered from it, and only the others are looked up (an edit of a module 107 files
    of pytorch-image-models import looked up all 315 files, and now 1).  The next run answers from the record
    the run after the edit wrote."""
    run(".")
    (project / "config.py").write_text("NUM_WORKERS = 2\n")  # (train.py reads it)
    settle(project, 1)
    looked_up.clear()
    after = run(".")  # (held to --no-cache's answer)
    assert "train.py" in after[1]
    entries = sorted(os.path.basename(seen.split()[1]) for seen in looked_up if seen.startswith("entry"))
    assert entries == ["config.py", "train.py"]  # (hazard.py and pkg/plain.py read neither)
    looked_up.clear()
    assert run(".") == after
    assert [seen for seen in looked_up if seen.startswith("entry")] == []
    # The record the run after the edit wrote (the others' rows as the first record had them) serves the next.
    _edit_checked_file(project)
    settle(project, 2)
    looked_up.clear()
    assert run(".") != after
    assert [os.path.basename(seen.split()[1]) for seen in looked_up if seen.startswith("entry")] == ["hazard.py"]


def test_a_file_added_to_the_tree_is_looked_up_alone_and_one_removed_is_dropped(project, looked_up):
    """Specification: the record is kept under the paths the command was given, not under the files they found:
    a file added to the tree is looked up alone (no other file's findings depended on it: it was not there), and
    one removed is left out of the answer, nothing looked up (when the files found were the key, either made
    another run, and every file was looked up)."""
    before = run(".")
    (project / "pkg" / "notes.py").write_text("NOTE = 1\n")
    settle(project, 1)
    looked_up.clear()
    assert run(".") == before
    assert [os.path.basename(seen.split()[1]) for seen in looked_up if seen.startswith("entry")] == ["notes.py"]
    (project / "pkg" / "plain.py").unlink()
    settle(project, 2)
    looked_up.clear()
    assert run(".") == before
    assert [seen for seen in looked_up if seen.startswith("entry")] == []
    assert len(records(project.parent / "cache")) == 1


def test_a_folder_changed_with_every_finding_as_it_was_is_searched_once_and_recorded_again(project, monkeypatch):
    """A file that is not Python added to the project's folder: the searches behind the derived facts listed that
    folder, so the facts are found again (all hold: every file is answered from the record), and the record is
    written again with the folder as it is now: the next run searches nothing.  (The cache's own folder, made in
    the tree after the first run's search, made every later run search the project again.)"""
    from winspawn_lint.analysis import importers

    first = run(".")
    (project / "notes.txt").write_text("")
    settle(project, 1)
    scans: list[str] = []
    real = importers.scan
    monkeypatch.setattr(importers, "scan", lambda root, *args: scans.append(root) or real(root, *args))
    assert run(".") == first
    searched = len(scans)
    scans.clear()
    run(".")
    assert searched > len(scans)  # (--no-cache searched again, the cached run did not)
    scans.clear()
    with redirect_stdout(io.StringIO()):
        main(["--isolated", "-j", "1", "."])
    assert scans == []


@pytest.mark.parametrize("files", [["hazard.py"], ["hazard.py", "train.py", "config.py"]])
def test_a_new_importer_of_a_checked_module_changes_its_fix_and_only_it_is_looked_up(project, looked_up, files):
    """The fix's safety of hazard.py's wrap depends on whether a file of the project imports it (a derived fact
    of its findings); the other files' findings do not (their facts are found again, with their digests).  A run
    of hazard.py alone kept its safe fix after the importer came, when only its record was asked."""
    before = run(*files)
    (project / "pkg" / "notes.py").write_text("import hazard\n")
    settle(project, 1)
    looked_up.clear()
    after = run(*files)  # (held to --no-cache's answer)
    assert after != before
    assert [os.path.basename(seen.split()[1]) for seen in looked_up if seen.startswith("entry")] == ["hazard.py"]


@pytest.mark.parametrize("order", [("presence", "content"), ("content", "presence")])
def test_a_path_one_file_read_and_another_only_found_is_recorded_both_ways_each_file_with_its_own(tmp_path, order):
    """Specification: each file's findings depend on what its check saw of a path; a path that one file read
    (its stamp, or its content's digest when edited just before the run) and another only looked for (its
    presence) is recorded both ways, each file pointing at its own, whichever came first: an edit of it is a
    change for the file that read it, not for the one that found it (a cold `-j 2` run over the fixtures copied
    a second before once crashed on such a pair: "malformed stamp")."""
    import json

    from winspawn_lint.io.stamps import PRESENT_FILE

    records = {"presence": PRESENT_FILE, "content": (73, "a4" * 16)}
    cache = cache_module.ResultsCache(str(tmp_path / "cache"), "digest")
    inputs = cache_module.RunInputs()
    for kind in order:
        entry = cache_module.Entry((5, PAST_NS), "", True, [], {"/p/m.py": records[kind]})
        inputs.add(f"/p/{kind}.py", entry, [])
    assert inputs.complete
    cache.keep_run("run", inputs, [])
    cache.save()
    data = json.loads(Path(cache._run_file("run")).read_text())
    rows = [tuple(row) for row in data["files"]]
    uses = {path: {rows[index] for index in cache_module._members(mask)} for path, mask, _, _ in data["checked"]}
    assert uses == {f"/p/{kind}.py": {(f"/p/{kind}.py", f"5/{PAST_NS}"),
                                      ("/p/m.py", cache_module._encode_stamp(records[kind]))} for kind in order}


@pytest.mark.parametrize("damage", ["mask past the table", "row of another shape", "not hex"])
def test_a_damaged_record_is_as_if_there_were_none(project, damage):
    """A record whose masks point past its tables, or whose rows have another shape, is not read (an edit then
    wrote the next record from it, and a row past the end failed the run); the next run writes a good one."""
    import json

    run(".")
    (record,) = records(project.parent / "cache")
    data = json.loads(record.read_text())
    (hazard,) = [row for row in data["checked"] if row[0].endswith("hazard.py")]  # (answered from the record)
    if damage == "mask past the table":
        hazard[1] = cache_module._mask([*cache_module._members(hazard[1]), len(data["files"]) + 5])
    elif damage == "row of another shape":
        data["derived"].append(7)
    else:
        hazard[3] = "xyz"
    record.write_text(json.dumps(data))
    (project / "config.py").write_text("NUM_WORKERS = 2\n")  # (an edit: the record would be read for its rows)
    settle(project, 1)
    after = run(".")  # (held to --no-cache's answer)
    assert "train.py" in after[1]
    assert json.loads(record.read_text())["checked"] != data["checked"]


def test_a_tree_checked_as_soon_as_it_was_written_is_recorded_once_it_settles(tmp_path, monkeypatch, looked_up):
    """Specification: a fact found from one file is kept by the file's content while its mtime is too recent to
    trust (a tree checked right after a clone, a checkout or a copy), and by its mtime once it is old; entries of
    either kind say the same fact when what was found is the same, and the run is recorded.  (Two files' entries,
    one made before the tree settled and one after an edit, once kept every later run of such a tree from being
    recorded: each looked every file up, 0.25 s of CPU where a record answers in 0.07 s on the ML benchmark's
    repositories.)"""
    root = tmp_path / "fresh"
    root.mkdir()
    (root / "config.py").write_text("NUM_WORKERS = 2\n")
    (root / "train.py").write_text(TRAIN)
    (root / "eval.py").write_text(TRAIN.replace("pass", "print(batch)"))
    monkeypatch.chdir(root)
    monkeypatch.setenv(cache_module.ENV_VAR, str(tmp_path / "cache"))
    first = run(".")  # (every mtime too recent: entries by content, no record)
    assert records(tmp_path / "cache") == []
    settle(root, 1)
    (root / "eval.py").write_text(TRAIN.replace("pass", "print(batch, 1)"))
    settle(root, 2)
    assert run(".") == first  # (eval.py checked again, its facts by mtime; train.py's entry by content)
    assert len(records(tmp_path / "cache")) == 1
    looked_up.clear()
    assert run(".") == first
    assert [seen for seen in looked_up if seen.startswith("entry")] == []
