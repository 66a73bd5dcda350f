"""The per-file driver's contract with the run around it: what a run's checks leave to the cyclic collector."""

from __future__ import annotations

import gc
import shutil
from pathlib import Path

from winspawn_lint import runner
from winspawn_lint.analysis.project import Project
from winspawn_lint.settings import Settings

EXAMPLES = Path(__file__).resolve().parent.parent / "docs" / "examples"


def _project(tmp_path: Path) -> Path:
    for name in ("train_unsafe.py", "train_safe.py"):
        shutil.copy(EXAMPLES / name, tmp_path / name)
    return tmp_path


def test_a_runs_checks_leave_what_they_keep_out_of_the_collectors_sight_until_the_run_ends(tmp_path):
    """The command line's files are one run's: what each check leaves alive (the reader's kept modules and facts)
    is not traversed again by the cyclic collector while the run goes on, and the run ends with nothing frozen."""
    folder = _project(tmp_path)
    reader = Project(snapshot=True)
    job = runner.Job(Settings(), unsafe_fixes=True)
    before = gc.get_freeze_count()  # (CPython 3.12 starts with a few hundred objects frozen)
    with runner.one_run():
        first = runner.check_file(str(folder / "train_unsafe.py"), job, reader)
        assert gc.get_freeze_count() > before
        runner.check_file(str(folder / "train_safe.py"), job, reader)
    assert gc.get_freeze_count() <= before
    assert first.findings  # (a check that found something, and planned its fixes)


def test_a_check_outside_a_run_freezes_nothing(tmp_path):
    """A long-lived caller (the language server) lets go of what it kept between requests: nothing is frozen."""
    folder = _project(tmp_path)
    path = folder / "train_unsafe.py"
    before = gc.get_freeze_count()
    result = runner.check_buffer(str(path), path.read_text(encoding="utf-8"), runner.Job(Settings()), Project())
    assert result.findings
    assert gc.get_freeze_count() == before


def test_a_check_and_its_fix_plan_make_no_cyclic_garbage(tmp_path):
    """Why a run may freeze what its checks leave: a check frees everything it does not keep by reference
    counting (index.Binding holds its scope weakly), so nothing is left for the collector to find."""
    folder = _project(tmp_path)
    reader = Project(snapshot=True)
    job = runner.Job(Settings(), unsafe_fixes=True)
    gc.collect()
    collecting = gc.isenabled()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for name in ("train_unsafe.py", "train_safe.py"):
            runner.check_file(str(folder / name), job, reader)
        gc.collect()
        garbage = [type(obj).__name__ for obj in gc.garbage]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if collecting:
            gc.enable()
    assert garbage == []
