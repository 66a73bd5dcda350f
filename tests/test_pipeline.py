"""One pipeline: the CLI, the flake8 plugin and the library API report the same findings at the same places."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from winspawn_lint import check_text, rules
from winspawn_lint.analysis.context import Context

# Lines Python numbers differently from str.splitlines(), non-ASCII columns, CRLF and a BOM.
CASES = {
    "form_feed_then_non_ascii.py": "import multiprocessing as mp\n\x0c\n\u00e9 = mp.Pool(2)\n",
    "vertical_tab_in_comment.py": "import multiprocessing as mp\n# a \x0b b\nx = mp.Pool(2)\n",
    "crlf.py": "import multiprocessing as mp\r\n\r\n\u00e9\u00e9 = mp.Pool(2)\r\n",
    "bom.py": "\ufeffimport multiprocessing as mp\nx = mp.Pool(2)\n",
}


_FLAKE8_LINE = re.compile(r"^.+?:(?P<line>\d+):(?P<col>\d+): (?P<code>WSP\d{3}) ")


def _cli(path) -> set[tuple[int, int, str]]:
    proc = subprocess.run([sys.executable, "-m", "winspawn_lint", "--isolated", "--format", "json", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    return {(item["line"], item["col"], item["code"]) for item in json.loads(proc.stdout)}


def _flake8(path) -> set[tuple[int, int, str]]:
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", "--select", "WSP", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr
    return {(int(m["line"]), int(m["col"]), m["code"]) for m in map(_FLAKE8_LINE.match, proc.stdout.splitlines())}


@pytest.mark.parametrize("name", sorted(CASES))
def test_cli_flake8_and_api_agree_on_positions(tmp_path, name):
    path = tmp_path / name
    path.write_bytes(CASES[name].encode("utf-8"))
    text = CASES[name].lstrip("\ufeff")
    api = {(f.line, f.col + 1, f.code) for f in check_text(text, str(path))}
    assert api, "the case must have a finding"
    assert _cli(path) == api
    assert _flake8(path) == api


def test_a_code_given_as_a_string_fails_loudly_instead_of_being_dropped():
    with pytest.raises(AttributeError):
        Context.emit(None, "WSP201", None)  # type: ignore[arg-type]


def test_every_rule_is_bound_to_the_name_of_its_code():
    assert all(getattr(rules, code) is rule for code, rule in rules.RULES.items())


def test_an_unsaved_text_that_names_no_worker_api_reads_its_file_once_to_compare(tmp_path, monkeypatch):
    """A text that names no worker API is checked when the modules around its file may give it a finding; whether
    it is the file's own text (an editor's buffer may not be) is decided once, by one read of the file."""
    from winspawn_lint import pipeline
    from winspawn_lint.analysis.project import Project
    from winspawn_lint.io import source

    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "loaders.py").write_text(
        "from torch.utils.data import DataLoader\n\n\ndef loader(items):\n"
        "    return DataLoader(items, num_workers=2)\n", encoding="utf-8")
    train = tmp_path / "train.py"
    train.write_text("x = 1\n", encoding="utf-8")
    edited = "from loaders import loader\n\nfor batch in loader([1]):\n    pass\n"
    reads: list = []
    real = source.read

    def counted(path, *args, **kwargs):
        reads.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(source, "read", counted)
    checked = pipeline.check(edited, str(train), project=Project(), on_disk=None)
    assert [finding.code for finding in checked.findings] == ["WSP101"]
    assert reads.count(str(train)) == 1


_WEIGHTS = "import torch\n\nWEIGHTS = torch.load('weights.pt')\n"
_TRAIN = ("import torch\nfrom torch.utils.data import DataLoader, TensorDataset\n\nimport weights\n\n\n"
          "def main():\n    for batch in DataLoader(TensorDataset(torch.arange(4)), num_workers=2):\n"
          "        print(batch)\n\n\nif __name__ == '__main__':\n    main()\n")


@pytest.mark.parametrize("aged", [False, True], ids=["just-written", "older-than-a-tick"])
@pytest.mark.parametrize("too_many", [False, True], ids=["searched", "too-many-files"])
def test_the_api_answers_each_call_as_a_new_reader_would_while_the_project_changes(
        tmp_path, monkeypatch, aged, too_many):
    """``check_text`` keeps its reader of the project from one call to the next (a new one searched the whole
    project on every call: a second per call inside pytorch-image-models); nothing it kept may outlive a change of
    the files.  ``weights.py`` loads a checkpoint when imported, which is a finding only while a script that
    starts spawn workers imports it.  *aged*: every file and folder is given an mtime old enough to prove it
    unchanged, so that what was kept is taken while its stamps hold; *too_many*: the project has one file more
    than a search reads until that file is removed."""
    from winspawn_lint import pipeline
    from winspawn_lint.analysis import importers
    from winspawn_lint.analysis.project import Project

    if too_many:
        monkeypatch.setattr(importers, "MAX_FILES", 3)
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    weights = tmp_path / "weights.py"
    weights.write_text(_WEIGHTS, encoding="utf-8")
    (tmp_path / "notes.py").write_text("x = 1\n", encoding="utf-8")
    (tmp_path / "other.py").write_text("y = 2\n", encoding="utf-8")
    ticks = iter(range(10**6))

    def age() -> None:
        if aged:
            for path in [tmp_path, *tmp_path.iterdir()]:
                then = 1_600_000_000 + next(ticks)
                os.utime(path, (then, then))

    def found() -> list[str]:
        text = weights.read_text(encoding="utf-8")
        codes = [f.code for f in check_text(text, str(weights))]
        fresh = pipeline.check(text, str(weights), project=Project(), on_disk=None).findings
        assert codes == [f.code for f in fresh], "a new reader answers otherwise"
        return codes

    age()
    assert found() == []
    (tmp_path / "train.py").write_text(_TRAIN, encoding="utf-8")
    age()
    assert found() == ([] if too_many else ["WSP103"])  # (four files: too many to search, so nothing imports it)
    (tmp_path / "notes.py").unlink()
    age()
    assert found() == ["WSP103"]
    weights.write_text(_WEIGHTS.replace("torch.load('weights.pt')", "None"), encoding="utf-8")
    age()
    assert found() == []
    weights.write_text(_WEIGHTS, encoding="utf-8")
    (tmp_path / "train.py").unlink()
    age()
    assert found() == []


def test_the_api_confirms_only_the_search_of_the_project_a_call_asks_about(tmp_path, monkeypatch):
    """A caller going through many projects (one ``check_text`` call each) pays for the project it checks in: a
    kept search is confirmed when its project is asked for again, not on every call, and only the last few are
    kept."""
    from winspawn_lint import pipeline
    from winspawn_lint.analysis import importers, project as project_module

    monkeypatch.setattr(project_module, "MAX_UNCONFIRMED", 2)
    files = []
    for name in "abc":
        folder = tmp_path / name
        folder.mkdir()
        (folder / "pyproject.toml").write_text("", encoding="utf-8")
        (folder / "weights.py").write_text(_WEIGHTS, encoding="utf-8")
        (folder / "train.py").write_text(_TRAIN, encoding="utf-8")
        for path in [folder, *folder.iterdir()]:
            os.utime(path, (1_600_000_000, 1_600_000_000))  # (old enough to prove them unchanged)
        files.append(folder / "weights.py")
    confirmed: list = []
    hold = importers.SearchInputs.hold
    monkeypatch.setattr(importers.SearchInputs, "hold", lambda inputs: confirmed.append(inputs) or hold(inputs))
    for path in files:
        assert [f.code for f in check_text(path.read_text(encoding="utf-8"), str(path))] == ["WSP103"]
    assert confirmed == []
    assert [f.code for f in check_text(files[1].read_text(encoding="utf-8"), str(files[1]))] == ["WSP103"]
    assert len(confirmed) == 1 and next(iter(confirmed[0].files)).startswith(str(tmp_path / "b"))

    def kept() -> list[str]:
        return [os.path.basename(root) for root in pipeline._API_PROJECT._unconfirmed]

    assert kept() == ["c"]  # (a's went when c's came: two at most, b's in use)
    # (and with it what the searches had read of a's files)
    assert sorted(os.path.basename(root) for root in pipeline._API_PROJECT.scan_memory.roots) == ["b", "c"]
    assert [f.code for f in check_text(files[0].read_text(encoding="utf-8"), str(files[0]))] == ["WSP103"]
    assert len(confirmed) == 1  # (searched again)
    assert kept() == ["c", "b"]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork() is POSIX")
def test_a_forked_child_checks_though_another_thread_held_the_api_when_it_forked(tmp_path):
    """The API's calls share one reader behind a lock: a child forked while the lock was held starts with its own."""
    from winspawn_lint import pipeline

    path = tmp_path / "weights.py"
    path.write_text(_WEIGHTS, encoding="utf-8")
    with pipeline._API_LOCK:  # (as a thread in the middle of a call holds it)
        pid = os.fork()
        if pid == 0:
            import signal

            signal.alarm(20)  # (a child that waits for the lock dies of it)
            code = 1
            try:
                check_text(_WEIGHTS, str(path))
                code = 0
            finally:
                os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
