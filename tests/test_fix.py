"""``--fix``: every ``NAME.fixed.py`` is the exact output of fixing ``NAME.py``.

Convention: ``NAME.fixed.py`` is what ``winspawn-lint --select WSP --fix --unsafe-fixes NAME.py``
writes (every rule enabled, as for the fixture expectations; safe and unsafe fixes).  The fixer leaves
comments alone, so a ``.fixed.py`` keeps the ``# error:`` comments of its original; the lint test over
the fixtures skips ``*.fixed.py`` and this test asserts instead that re-checking a fixed file reports
none of the fixed findings.  That each ``.fixed.py`` runs under spawn and prints what the original
printed under fork is checked by ``tests/test_runtime.py``.
"""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap

import pytest

from fixture_spec import FIXTURES_DIR, fixed_files, load_fixture
from winspawn_lint import check_text, cli, fix_text
from winspawn_lint.fix import CODEMODS
from winspawn_lint.io import source
from winspawn_lint.rules import RULES, FixSafety
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES))
FIXED = fixed_files()
HELPERS = sorted(FIXTURES_DIR.glob("_*.py"))


def _original(fixed):
    return fixed.with_name(fixed.name[: -len(".fixed.py")] + ".py")


def _workdir(tmp_path, original):
    """A copy of the fixture beside the helper modules it may import (sibling-import checks need them)."""
    for helper in HELPERS:
        shutil.copy(helper, tmp_path / helper.name)
    target = tmp_path / original.name
    shutil.copy(original, target)
    return target


def _run_cli(args, cwd=None):
    old = os.getcwd()
    if cwd:
        os.chdir(cwd)
    try:
        return cli.main(list(args))
    finally:
        os.chdir(old)


@pytest.mark.parametrize("fixed", FIXED, ids=[p.name for p in FIXED])
def test_fix_output_matches_fixed_file(fixed, tmp_path, capsys):
    target = _workdir(tmp_path, _original(fixed))
    status = _run_cli(["--select", "WSP", "--fix", "--unsafe-fixes", str(target)])
    assert target.read_bytes() == fixed.read_bytes(), f"--fix output differs from {fixed.name}"
    assert status == 1  # rewritten: the pre-commit contract


@pytest.mark.parametrize("fixed", FIXED, ids=[p.name for p in FIXED])
def test_fixed_file_compiles_rechecks_clean_and_is_stable(fixed):
    original = _original(fixed)
    src = source.read(str(fixed))
    compile(src.text, str(fixed), "exec")
    before = {code for _, code in load_fixture(original).expected}
    after = check_text(src.text, str(fixed), ALL)
    # What is left is what the fix declined, each named in its note.
    note = fix_text(original.read_text(encoding="utf-8"), str(original), ALL, unsafe=True).note or ""
    left = [f for f in after if f.code in before and f" {f.code} not fixed: " not in note]
    assert not left, f"{fixed.name} still has findings: {left}"
    again = fix_text(src.text, str(fixed), ALL, unsafe=True)
    assert again.text == src.text, f"fixing {fixed.name} changes it again"


@pytest.mark.parametrize("fixed", FIXED, ids=[p.name for p in FIXED])
def test_diff_applies_with_patch(fixed, tmp_path, capsys):
    if shutil.which("patch") is None:
        pytest.skip("patch(1) not installed")
    target = _workdir(tmp_path, _original(fixed))
    before = target.read_bytes()
    capsys.readouterr()
    status = _run_cli(["--select", "WSP", "--diff", "--unsafe-fixes", target.name], cwd=tmp_path)
    diff = capsys.readouterr().out
    assert status == 1
    assert target.read_bytes() == before, "--diff must not write"
    (tmp_path / "fix.diff").write_text(diff, encoding="utf-8", newline="")
    result = subprocess.run(["patch", "-p0", "--binary", "-i", "fix.diff"], cwd=tmp_path, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert target.read_bytes() == fixed.read_bytes()


def test_crlf_fixture_stays_crlf():
    fixed = FIXTURES_DIR / "wsp201_crlf.fixed.py"
    data = fixed.read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n") > 10, "every line of the fixed CRLF file ends in CRLF"
    assert b"\r\n" in (FIXTURES_DIR / "wsp201_crlf.py").read_bytes()


def test_non_ascii_columns():
    text = (FIXTURES_DIR / "wsp201_non_ascii.py").read_text(encoding="utf-8")
    (finding,) = [f for f in check_text(text, None, ALL) if f.code == "WSP201"]
    line = text.splitlines()[finding.line - 1]
    assert line[finding.col:].startswith("lambda")
    hint = finding.fix_hint["lambda"]
    assert hint["col"] > finding.col  # the hint is in bytes, the finding in characters
    from winspawn_lint.analysis.positions import Positions

    positions = Positions.of(text)
    assert positions.char_col(hint["line"], hint["col"]) == finding.col
    assert positions.byte_col(finding.line, finding.col) == hint["col"]


def test_file_mode_is_kept_and_second_fix_is_a_noop(tmp_path, capsys):
    fixed = FIXTURES_DIR / "wsp101_pool_top_level.fixed.py"
    target = _workdir(tmp_path, _original(fixed))
    os.chmod(target, 0o751)
    assert _run_cli(["--select", "WSP", "--fix", "--unsafe-fixes", str(target)]) == 1
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o751
    first = target.read_bytes()
    assert first == fixed.read_bytes()
    assert _run_cli(["--select", "WSP", "--fix", "--unsafe-fixes", str(target)]) == 0  # clean, nothing rewritten
    assert target.read_bytes() == first


def test_safe_fixes_only_without_unsafe_flag(tmp_path, capsys):
    # WSP101's wrap is graded UNSAFE for a module something imports: plain --fix leaves it (and the file) alone.
    target = _workdir(tmp_path, FIXTURES_DIR / "wsp101_pool_top_level.py")
    (tmp_path / "uses_it.py").write_text("from wsp101_pool_top_level import square\n", encoding="utf-8")
    before = target.read_bytes()
    assert _run_cli(["--select", "WSP", "--fix", str(target)]) == 1
    assert target.read_bytes() == before
    assert "use --unsafe-fixes" in capsys.readouterr().err
    # WSP201 without captured variables is SAFE: plain --fix applies it.
    fixed = FIXTURES_DIR / "wsp201_dataloader_collate_lambda.fixed.py"
    target = _workdir(tmp_path, _original(fixed))
    _run_cli(["--select", "WSP", "--fix", str(target)])
    assert target.read_bytes() == fixed.read_bytes()


def test_lambda_with_captured_variables_needs_unsafe_fixes():
    text = (FIXTURES_DIR / "wsp201_lambda_loop_variable.py").read_text(encoding="utf-8")
    safe = fix_text(text, None, ALL, unsafe=False)
    assert safe.text == text and "unsafe" in (safe.note or "")
    assert fix_text(text, None, ALL, unsafe=True).text != text


def test_unfixable_findings_leave_file_untouched_with_a_note():
    text = (FIXTURES_DIR / "wsp103_np_load.py").read_text(encoding="utf-8")
    outcome = fix_text(text, str(FIXTURES_DIR / "wsp103_np_load.py"), ALL, unsafe=True)
    assert outcome.text == text
    assert "worker" in outcome.note and [f.code for f in outcome.remaining] == ["WSP103"]


def test_output_that_does_not_compile_is_refused(monkeypatch):
    from winspawn_lint.fix import hoist_lambda

    monkeypatch.setattr(hoist_lambda.HoistLambda, "edit", _appending("def _broken():\nreturn 1\n"))  # not indented
    text = (FIXTURES_DIR / "wsp201_dataloader_collate_lambda.py").read_text(encoding="utf-8")
    outcome = fix_text(text, None, ALL, unsafe=True)
    assert outcome.text == text
    assert "WSP201 not fixed: its fix would not compile" in outcome.note


def _appending(code):
    """A codemod's ``edit`` that claims its findings fixed by appending ``code`` to the text."""
    from winspawn_lint.fix._base import Edit

    def edit(self, text):
        self.fixes(self.findings_for(text))
        return [Edit(len(text), len(text), code)]

    return edit


@pytest.mark.parametrize("added", ["return 1\n", "def _f(a, a):\n    return a\n", "nonlocal x\n"])
def test_output_the_parser_takes_but_the_compiler_refuses_is_refused(monkeypatch, added):
    # Only the top-level statements a fix changed are compiled again: these errors come from the compiler.
    from winspawn_lint.fix import hoist_lambda

    monkeypatch.setattr(hoist_lambda.HoistLambda, "edit", _appending(added))
    text = (FIXTURES_DIR / "wsp201_dataloader_collate_lambda.py").read_text(encoding="utf-8")
    outcome = fix_text(text, None, ALL, unsafe=True)
    assert outcome.text == text
    assert "WSP201 not fixed: its fix would not compile" in outcome.note


@pytest.mark.parametrize("before, after", [
    ('if __name__ == "main":\n    print(1)\n', 'if __name__ == "__main__":\n    print(1)\n'),
    ("if __name__ == '__main':\n    print(1)\n", "if __name__ == '__main__':\n    print(1)\n"),
    ('if __name__ is "__main__":\n    print(1)\n', 'if __name__ == "__main__":\n    print(1)\n'),
    ('if __file__ == "__main__":\n    print(1)\n', 'if __name__ == "__main__":\n    print(1)\n'),
])
def test_repair_main_guard(before, after):
    # The WSP102 fixtures that "do nothing" change their output once fixed (the body finally runs), so they
    # have no .fixed.py partner for the runtime comparison; their repair is checked here.
    assert fix_text(before, None, ALL, unsafe=True).text == after


def test_local_def_reading_a_later_assignment_is_not_hoisted():
    text = textwrap.dedent('''\
        import multiprocessing


        def main():
            def work(x):
                return x * factor

            factor = 3
            with multiprocessing.Pool(2) as pool:
                print(pool.map(work, [1, 2]))


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            main()
        ''')
    outcome = fix_text(text, None, ALL, unsafe=True)
    assert outcome.text == text and "after" in outcome.note


def test_main_name_taken_picks_a_free_name():
    text = textwrap.dedent('''\
        import multiprocessing

        main = "not a function"


        def square(x):
            return x * x


        with multiprocessing.Pool(2) as pool:
            print(pool.map(square, [1, 2]), main)
        ''')
    outcome = fix_text(text, None, ALL, unsafe=True)
    assert "def main_2() -> None:" in outcome.text and "    main_2()" in outcome.text
    assert 'main = "not a function"' in outcome.text
    compile(outcome.text, "<fixed>", "exec")


@pytest.mark.parametrize("name", ["wsp201_two_lambdas.fixed.py", "wsp101_dataloader_alias.fixed.py",
                                  "wsp105_freeze_support_not_first.fixed.py", "wsp301_open_file.fixed.py",
                                  "wsp106_pool_map_function_under_guard.fixed.py"])
def test_fix_never_imports_libcst(tmp_path, name):
    # Every codemod edits rows (one edit model): only the libcst.tool route (winspawn_lint.fix.commands) imports
    # libcst, whose import alone costs 0.18 s (and libcst.codemod with its matchers 0.3-2.5 s more).
    fixed = FIXTURES_DIR / name
    target = _workdir(tmp_path, _original(fixed))
    code = ("import sys\nfrom winspawn_lint import cli\n"
            f"cli.main(['--isolated', '--fix', '--unsafe-fixes', '--extend-select', 'WSP105', {str(target)!r}])\n"
            "assert 'libcst' not in sys.modules\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == fixed.read_bytes()


@pytest.mark.parametrize("codemod", [codemod.__name__ for codemod in CODEMODS])
def test_every_codemod_is_reachable_through_libcst_tool(codemod):
    from libcst.codemod import CodemodCommand

    from winspawn_lint.fix import commands

    command = getattr(commands, codemod)
    assert issubclass(command, CodemodCommand) and command.__qualname__ == codemod
    assert command.DESCRIPTION


def test_codemod_runs_through_libcst_tool(tmp_path):
    fixed = FIXTURES_DIR / "wsp201_two_lambdas.fixed.py"
    target = _workdir(tmp_path, _original(fixed))
    result = subprocess.run([sys.executable, "-m", "libcst.tool", "codemod", "-x", "--no-format", "--hide-progress",
                             "winspawn_lint.fix.commands.HoistLambda", str(target)],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert target.read_bytes() == fixed.read_bytes()


def test_every_fixed_fixture_rule_grade_is_documented():
    for code in ("WSP101", "WSP102", "WSP103", "WSP104", "WSP202", "WSP203"):
        assert RULES[code].fix_safety is FixSafety.UNSAFE
    for code in ("WSP105", "WSP201", "WSP204", "WSP901"):
        assert RULES[code].fix_safety is FixSafety.SAFE


@pytest.mark.parametrize("fixed", FIXED, ids=[p.name for p in FIXED])
def test_a_crlf_file_is_fixed_as_its_lf_twin(fixed):
    # The codemods write rows themselves: every row they add or move takes the file's ending.
    text = _original(fixed).read_text(encoding="utf-8")
    outcome = fix_text(text.replace("\n", "\r\n"), str(_original(fixed)), ALL, unsafe=True)
    assert outcome.text == fix_text(text, str(_original(fixed)), ALL, unsafe=True).text.replace("\n", "\r\n")


POOL_AT_IMPORT = "pool = multiprocessing.Pool(2)\nprint(pool.map(square, range(4)))\n"
SQUARE = "import multiprocessing\n\n\ndef square(x):\n    return x * x\n\n\n"


@pytest.mark.parametrize("guard, expected", [
    # the guard after the statements: they go first in its body, after freeze_support()
    ('if __name__ == "__main__": print("hi")  # go\n',
     'if __name__ == "__main__":\n    multiprocessing.freeze_support()\n    pool = multiprocessing.Pool(2)\n'
     '    print(pool.map(square, range(4)))\n    print("hi")  # go\n'),
    # one that already starts with freeze_support(): after its row
    ('if __name__ == "__main__": multiprocessing.freeze_support(); print("hi")\n',
     'if __name__ == "__main__":\n    multiprocessing.freeze_support(); print("hi")\n'
     '    pool = multiprocessing.Pool(2)\n    print(pool.map(square, range(4)))\n'),
])
def test_a_guard_whose_body_is_on_its_if_row_gets_rows_of_its_own(guard, expected):
    outcome = fix_text(SQUARE + POOL_AT_IMPORT + guard, None, ALL, unsafe=True)
    assert outcome.text == SQUARE + expected
    assert "WSP101" in {f.code for f in outcome.fixed} and not outcome.remaining


def test_statements_that_come_after_a_one_row_guard_go_to_the_end_of_its_body():
    outcome = fix_text(SQUARE + 'if __name__ == "__main__": print("hi")\n' + POOL_AT_IMPORT, None, ALL, unsafe=True)
    assert outcome.text == SQUARE + (
        'if __name__ == "__main__":\n    multiprocessing.freeze_support()\n    print("hi")\n'
        '    pool = multiprocessing.Pool(2)\n    print(pool.map(square, range(4)))\n')


def test_a_file_without_a_final_line_end_is_wrapped_without_one():
    outcome = fix_text(SQUARE + POOL_AT_IMPORT.rstrip("\n"), None, ALL, unsafe=True)
    assert outcome.text.endswith("    multiprocessing.freeze_support()\n    main()")
    assert outcome.text == fix_text(SQUARE + POOL_AT_IMPORT, None, ALL, unsafe=True).text.rstrip("\n")


def test_moved_rows_keep_their_places_relative_to_each_other():
    # A comment or continuation row left of its block moves with the block: nothing is re-laid out.
    loop = "for i in range(2):\n    pool = multiprocessing.Pool(2)\n# col0\n    print(pool.map(square, [1,\n  2]))\n"
    outcome = fix_text(SQUARE + loop, None, ALL, unsafe=True)
    assert textwrap.indent(loop, "    ") in outcome.text
    compile(outcome.text, "<fixed>", "exec")


def test_a_string_holding_another_line_end_moves_as_it_is_and_is_never_rewrapped():
    # A CRLF file whose string holds a bare LF: the moved rows keep every line end as it is.
    text = (SQUARE + 'pool = multiprocessing.Pool(2)\nprint(pool.map(square, range(4)), """a@b""")\n').replace(
        "\n", "\r\n").replace("@", "\n")
    outcome = fix_text(text, None, ALL, unsafe=True)
    assert '    print(pool.map(square, range(4)), """a\nb""")\r\n' in outcome.text
    long = text.replace("print(pool.map(square, range(4)), ",
                        "print(\r\n    pool.map(square, range(4)), " + "x" * 44 + ",\r\n    ")
    assert len(long.splitlines()[9]) == 77  # 81 in the block: its items would go to two rows
    assert "not rewrapped" in fix_text(long, None, ALL, unsafe=True).note
    assert fix_text(long.replace("a\nb", "a\r\nb"), None, ALL, unsafe=True).fixed  # CRLF only: rewrapped


def test_a_form_feed_in_a_hoisted_header_is_not_a_row_end(tmp_path, capsys):
    """A form feed inside a row (``str.splitlines`` breaks there, Python's tokenizer does not): the new leading
    parameter goes on the header's own rows, and ``--diff`` prints whole rows."""
    text = ("from multiprocessing import Pool\n\n\ndef main():\n    k = 2\n\n    def work(  # note\f more\n"
            "            x):\n        return x * k\n\n    with Pool(2) as p:\n        print(p.map(work, range(3)))\n"
            "\n\nif __name__ == \"__main__\":\n    main()\n")
    outcome = fix_text(text, "ff.py", ALL, unsafe=True)
    assert "def _work(  # note\f more\n        k, x):\n    return x * k\n" in outcome.text
    path = tmp_path / "ff.py"
    path.write_text(text)
    assert cli.main(["--isolated", "--no-cache", "--diff", "--unsafe-fixes", str(path)]) == 1
    diff = capsys.readouterr().out
    assert "+def _work(  # note\f more\n" in diff and "-    def work(  # note\f more\n" in diff
