"""Fixing one finding, as an editor's quick fix does (``fix_text(only=...)``, ``Job.only``), and the driver's
check of an editor's unsaved text (``runner.check_buffer``).

Specification: a quick fix for a finding fixes that finding and what its fix cannot leave behind (a class's
other open files: one ``__getstate__`` covers them all), and nothing else; applied one at a time, re-checking in
between, the quick fixes of a fixture end where ``--fix --unsafe-fixes`` ends (``NAME.fixed.py``).
"""

from __future__ import annotations

import shutil
import textwrap

import pytest

from fixture_spec import FIXTURES_DIR, fixed_files
from winspawn_lint.analysis.project import Project
from winspawn_lint.rules import RULES
from winspawn_lint.runner import Job, check_buffer
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES), unsafe_fixes=True)

TWO_LAMBDAS = textwrap.dedent('''\
    from torch.utils.data import DataLoader


    def loaders(data):
        a = DataLoader(data, num_workers=2, collate_fn=lambda b: b)
        b = DataLoader(data, num_workers=2, worker_init_fn=lambda i: None)
        return a, b
''')


def _check(path, text, **job):
    return check_buffer(str(path), text, Job(ALL, unsafe_fixes=True, **job), Project(),
                        notebook=str(path).endswith(".ipynb"))


def _fix_one(path, text, finding):
    return _check(path, text, diff=True, only=frozenset({finding}))


def test_one_lambda_is_fixed_and_the_other_left(tmp_path):
    path = tmp_path / "train.py"
    first, second = [f for f in _check(path, TWO_LAMBDAS).findings if f.code == "WSP201"]
    fixed = _fix_one(path, TWO_LAMBDAS, second)
    assert "worker_init_fn=_worker_init_fn" in fixed.fixed_text
    (left,) = _check(path, fixed.fixed_text).findings
    assert left.code == "WSP201" and left.message == first.message  # the collate_fn lambda


def test_a_class_s_open_files_are_fixed_together(tmp_path):
    # One __getstate__ per class: with it the check says nothing more of the class, so fixing one file alone
    # would hide the other, still unpicklable, from the user.
    name = "wsp301_open_files_binary_and_text"
    text = (FIXTURES_DIR / f"{name}.py").read_text(encoding="utf-8")
    path = tmp_path / f"{name}.py"
    findings = [f for f in _check(path, text).findings if f.code == "WSP301"]
    assert len(findings) == 2
    fixed = _fix_one(path, text, findings[0])
    assert fixed.fixed_text == (FIXTURES_DIR / f"{name}.fixed.py").read_text(encoding="utf-8")


def test_moving_code_under_the_guard_takes_the_import_time_work_after_it(tmp_path):
    text = textwrap.dedent('''\
        import torch
        from torch.utils.data import DataLoader

        loader = DataLoader(range(8), num_workers=2)
        model = torch.load("model.pt")
        for batch in loader:
            model(batch)
    ''')
    path = tmp_path / "train.py"
    found = _check(path, text).findings
    (wrap,) = [f for f in found if f.code == "WSP101"]
    assert "WSP103" in {f.code for f in found}
    fixed = _fix_one(path, text, wrap)
    assert fixed.fixed_text is not None and "if __name__ == " in fixed.fixed_text
    assert not [f for f in _check(path, fixed.fixed_text).findings if f.code in ("WSP101", "WSP103")]


def _one_at_a_time(path, text):
    """Apply the first quick fix that changes the text, check again, repeat; the text when none does."""
    for _ in range(20):  # bounded: each round fixes at least one finding
        for finding in [f for f in _check(path, text).findings if f.safety.applies(True)]:
            fixed = _fix_one(path, text, finding)
            if fixed.fixed_text is not None:
                text = fixed.fixed_text
                break
        else:
            return text
    raise AssertionError("the quick fixes do not converge")


FIXED = fixed_files()
PY_FIXED = [p for p in FIXED if p.suffix == ".py"]


@pytest.mark.slow
@pytest.mark.parametrize("fixed", PY_FIXED, ids=[p.name for p in PY_FIXED])
def test_quick_fixes_one_at_a_time_end_where_fix_ends(fixed, tmp_path):
    original = fixed.with_name(fixed.name[: -len(".fixed.py")] + ".py")
    for helper in FIXTURES_DIR.glob("_*.py"):
        shutil.copy(helper, tmp_path / helper.name)
    target = tmp_path / original.name
    shutil.copy(original, target)
    text = original.read_text(encoding="utf-8")
    assert _one_at_a_time(target, text) == fixed.read_text(encoding="utf-8")


@pytest.mark.parametrize("name", ["wsp201_two_lambdas", "fix_identical_local_defs_hoisted_once"])
def test_quick_fixes_one_at_a_time_end_where_fix_ends_quick(name, tmp_path):
    text = (FIXTURES_DIR / f"{name}.py").read_text(encoding="utf-8")
    assert _one_at_a_time(tmp_path / f"{name}.py", text) == \
        (FIXTURES_DIR / f"{name}.fixed.py").read_text(encoding="utf-8")


def test_a_notebook_finding_is_named_by_its_cell(tmp_path):
    name = "wsp206_dataloader"
    text = (FIXTURES_DIR / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8")
    path = tmp_path / f"{name}.ipynb"
    found = _check(path, text).findings
    assert found and all(f.cell is not None for f in found)
    move = [f for f in found if f.code == "WSP206"][0]
    fixed = _fix_one(path, text, move)
    assert fixed.new_module is not None and fixed.new_module[0] == str(tmp_path / f"{name}_defs.py")
    assert fixed.fixed_text != text
    assert not path.exists() and not (tmp_path / f"{name}_defs.py").exists()  # nothing is written



def test_a_notebook_hoist_moves_only_the_definition_it_makes(tmp_path):
    # In a notebook a hoisted lambda still lives in the kernel's __main__: its quick fix hoists it and moves the new
    # function into the module next to the notebook; the nested function (another finding) stays where it is.
    name = "wsp201_in_notebook"
    text = (FIXTURES_DIR / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8")
    path = tmp_path / f"{name}.ipynb"
    found = _check(path, text).findings
    (lambda_,) = [f for f in found if f.code == "WSP201"]
    fixed = _fix_one(path, text, lambda_)
    assert fixed.new_module is not None
    module = fixed.new_module[1]
    assert "def _collate_fn(b):" in module and "def first" not in module
    assert [f.code for f in fixed.fixed] == ["WSP201"]
    assert "def first(batch):" in fixed.fixed_text

# ------------------------------------------------------------------------ the driver on an editor's text

def test_the_buffer_is_checked_not_the_file(tmp_path):
    path = tmp_path / "train.py"
    path.write_text("print('on disk')\n", encoding="utf-8")
    assert [f.code for f in _check(path, TWO_LAMBDAS).findings] == ["WSP201", "WSP201"]


def test_a_buffer_with_a_coding_cookie_is_taken_as_the_editor_decoded_it(tmp_path):
    text = "# -*- coding: latin-1 -*-\n" + TWO_LAMBDAS + "GREETING = 'salut, été'\n"
    assert [f.code for f in _check(tmp_path / "train.py", text).findings] == ["WSP201", "WSP201"]


def test_what_the_findings_depend_on_is_collected(tmp_path):
    (tmp_path / "config.py").write_text("WORKERS = 0\n", encoding="utf-8")
    text = "from config import WORKERS\nfrom torch.utils.data import DataLoader\n" \
           "loader = DataLoader(range(3), num_workers=WORKERS, collate_fn=lambda b: b)\n"
    (tmp_path / "train.py").write_text(text, encoding="utf-8")
    read: dict = {}
    result = check_buffer(str(tmp_path / "train.py"), text, Job(ALL), Project(), dependencies=read)
    assert result.findings == []  # no workers: the lambda is never pickled
    assert str(tmp_path / "config.py") in read


def test_a_buffer_that_does_not_parse_says_where(tmp_path):
    result = _check(tmp_path / "train.py", "import os\nif (:\n    pass\n")
    assert result.error.startswith("syntax error at line 2") and result.error_at == (None, 2, 5)


def test_a_python_text_named_like_a_notebook_is_python(tmp_path):
    # jupyterlab-lsp sends a notebook's cells as one Python document named after the notebook
    result = check_buffer(str(tmp_path / "train.ipynb"), TWO_LAMBDAS, Job(ALL), Project())
    assert result.error is None and [f.code for f in result.findings] == ["WSP201", "WSP201"]


def test_an_untitled_buffer_has_no_name_to_grade_or_move(tmp_path):
    result = check_buffer(None, TWO_LAMBDAS, Job(ALL), Project())
    assert result.path == "-" and [f.code for f in result.findings] == ["WSP201", "WSP201"]
