"""Bad input never crashes the command: one diagnostic line per bad file, exit 2, every other file still checked.

Each case runs the real command (``python -m winspawn_lint``) in a subprocess, next to a good file whose
finding must still be printed.  The outcomes are documented in docs/usage.md ("Symlinks, odd files,
interrupted runs").
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from samples import LAMBDA_COLLATE

# The lambda collate_fn of a DataLoader in main(): WSP201 at line 7, column 55.
GOOD = LAMBDA_COLLATE.encode()
GOOD_FINDING = "good.py:7:55: WSP201 "
NEEDS_312 = sys.version_info < (3, 12)


def run(*args: str, cwd: Path, stdin: bytes | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "winspawn_lint", "--isolated", *args], cwd=cwd, input=stdin,
                          capture_output=True, timeout=timeout)


def lines(data: bytes) -> list[str]:
    """The output's lines, without the closing summary ("Found N errors.", "[*] M fixable ...")."""
    return [line for line in data.decode("utf-8", "replace").splitlines()
            if not line.startswith(("Found ", "[*] ")) and " available with `--" not in line]


def assert_one_diagnostic(proc: subprocess.CompletedProcess, name: str, reason: str) -> None:
    """Exit 2, exactly one stderr line `name: error: ...reason...`, no traceback, good.py still reported."""
    err = lines(proc.stderr)
    assert "Traceback" not in proc.stderr.decode("utf-8", "replace")
    assert len(err) == 1, err
    assert err[0].startswith(f"{name}: error: "), err
    assert reason in err[0], err
    assert proc.returncode == 2, (proc.returncode, err)
    assert [line for line in lines(proc.stdout) if line.startswith(GOOD_FINDING)], proc.stdout


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    (tmp_path / "good.py").write_bytes(GOOD)
    return tmp_path


# (file name, content, the reason the diagnostic line must contain)
BAD_FILES = [
    ("syntax.py", b"def f(:\n    pass\n", "syntax error at line 1"),
    # a file that mentions a worker API goes through the analysis, the others only through the parser
    ("syntax_pool.py", b"from multiprocessing import Pool\nPool(2).map(\n", "syntax error at line"),
    ("latin1_no_cookie.py", b"x = 1\nname = '\xe9t\xe9'\n", "not valid utf-8 at line 2 (and no coding declaration)"),
    ("first_line_not_utf8.py", b"s = '\xff'\n", "not valid utf-8 at line 1"),
    ("unknown_cookie.py", b"# -*- coding: latin-9000 -*-\nx = 1\n", "bad coding declaration: unknown encoding"),
    ("wrong_cookie.py", b"# coding: ascii\nx = '\xc3\xa9'\n", "not valid ascii at line 2"),
    ("nul_byte.py", b"x = 1\n\0\n", "NUL byte"),
    ("tabs.py", b"if True:\n        x = 1\n\ty = 2\n", "inconsistent use of tabs and spaces"),
    ("python2.py", b"print 'hello'\n", "Missing parentheses in call to 'print'"),
    ("python2_except.py", b"try:\n    pass\nexcept Exception, e:\n    pass\n", "syntax error at line 3"),
    ("parens_1000.py", b"x = " + b"(" * 1000 + b"1" + b")" * 1000 + b"\n", "too many nested parentheses"),
    ("lists_1000.py", b"x = " + b"[" * 1000 + b"]" * 1000 + b"\n", "too many nested parentheses"),
    ("not_30000.py", b"x = " + b"not " * 30000 + b"a\n", "too deeply nested to parse"),
    ("lambda_5000.py", b"from multiprocessing import Pool\nf = " + b"lambda: " * 5000 + b"1\n",
     "too deeply nested to parse"),
    ("indent_101.py", b"".join(b" " * i + b"if x:\n" for i in range(101)) + b" " * 101 + b"pass\n",
     "too many levels of indentation"),
]
if sys.version_info >= (3, 11):
    # ast builds one BinOp per `+`: past ~3000 terms 3.11's ast construction hits its depth limit (3.9 and 3.10
    # build the tree, and the file is checked like any other)
    BAD_FILES += [("sum_100000.py", b"x = " + b"+".join([b"1"] * 100000) + b"\n", "too deeply nested to parse")]
if NEEDS_312:
    BAD_FILES += [
        ("pep695_type.py", b"type Vector = list[float]\n", "needs Python 3.12+"),
        ("pep695_def.py", b"def first[T](xs: list[T]) -> T:\n    return xs[0]\n", "needs Python 3.12+"),
        ("pep695_class.py", b"class Box[T]:\n    pass\n", "needs Python 3.12+"),
        ("pep701_fstring.py", b"names = ['a']\ns = f\"{\", \".join(names)}\"\n", "needs Python 3.12+"),
        ("pep701_nested.py", b"s = f\"{f\"{1}\"}\"\n", "needs Python 3.12+"),
    ]


@pytest.mark.parametrize("name, content, reason", BAD_FILES, ids=[case[0] for case in BAD_FILES])
def test_bad_file_is_one_diagnostic_and_others_are_checked(tree, name, content, reason):
    (tree / name).write_bytes(content)
    assert_one_diagnostic(run(name, "good.py", cwd=tree), name, reason)
    # Found by a directory walk rather than named: the same outcome, except for a file the text prefilter
    # proves clean, which a walk never parses (docs/usage.md, "Which files are parsed").
    walk = run("-j", "1", ".", cwd=tree)
    if _walk_parses(content):
        assert_one_diagnostic(walk, name, reason)
    else:
        assert (walk.returncode, walk.stderr) == (1, b""), walk.stderr


def _walk_parses(content: bytes) -> bool:
    from winspawn_lint.analysis.prefilter import may_have_findings
    from winspawn_lint.io.source import SourceError, decode
    from winspawn_lint.spawn_apis import DEFAULT_REGISTRY

    try:
        text = decode(content).text
    except SourceError:
        return True  # an unreadable file is reported wherever it was found
    return may_have_findings(text, DEFAULT_REGISTRY)


def test_pep701_fstring_that_311_accepts_is_checked(tree):
    # Different quotes inside the braces and implicit concatenation were already valid before PEP 701.
    (tree / "fstring.py").write_bytes(b"x = f\"{'a' 'b'}\"\ny = f'{\"q\"}'\n")
    proc = run("fstring.py", "good.py", cwd=tree)
    assert proc.returncode == 1 and proc.stderr == b""


@pytest.mark.skipif(NEEDS_312, reason="PEP 695/701 syntax parses only on Python 3.12+")
def test_newer_syntax_is_checked_on_a_newer_python(tree):  # pragma: no cover - runs on 3.12+
    (tree / "pep695.py").write_bytes(b"type Vector = list[float]\ndef first[T](xs: list[T]) -> T:\n    return xs[0]\n")
    proc = run("pep695.py", "good.py", cwd=tree)
    assert proc.returncode == 1 and proc.stderr == b""


@pytest.mark.parametrize("name, content", [
    ("empty.py", b""),
    ("comments.py", b"#!/usr/bin/env python\n# -*- coding: utf-8 -*-\n# only comments\n"),
    ("blank.py", b"\n\n   \n"),
    ("bom_only.py", b"\xef\xbb\xbf"),
    ("docstring.py", b'"""Nothing but a docstring."""\n'),
])
def test_files_without_code_are_clean(tree, name, content):
    (tree / name).write_bytes(content)
    proc = run(name, cwd=tree)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


@pytest.mark.parametrize("name, content", [
    ("bom.py", b"\xef\xbb\xbf" + GOOD),
    ("bom_cookie.py", b"\xef\xbb\xbf# -*- coding: utf-8 -*-\n" + GOOD),
    ("crlf.py", GOOD.replace(b"\n", b"\r\n")),
    ("lone_cr.py", GOOD.replace(b"\n", b"\r")),  # ast (and so the line numbers) treats a lone CR as a newline
    ("mixed_endings.py", b"".join(line + (b"\r\n", b"\n", b"\r")[i % 3] for i, line in enumerate(GOOD.splitlines()))),
    ("latin1_cookie.py", b"# -*- coding: latin-1 -*-\n# caf\xe9\n" + GOOD),
])
def test_encodings_and_line_endings_report_the_right_line(tree, name, content):
    (tree / name).write_bytes(content)
    proc = run(name, cwd=tree)
    shift = len(content.decode("latin-1").splitlines()) - len(GOOD.splitlines())  # the lines put in front
    assert proc.returncode == 1 and proc.stderr == b"", proc.stderr
    assert lines(proc.stdout) == [line.replace("good.py:7:", f"{name}:{7 + shift}:")
                                  for line in lines(run("good.py", cwd=tree).stdout)]


@pytest.mark.slow  # half a minute on a loaded machine
def test_five_megabyte_file(tree):
    parts = ["from multiprocessing import Pool\n\n"]
    size, i = len(parts[0]), 0
    while size < 5 * 1024 * 1024:
        part = (f"def f{i}(x, y={i}):\n    z = [x * {i % 97} for _ in range(y)]\n    return {{'k{i}': z}}\n\n\n"
                f"class C{i}:\n    def m(self, a):\n        return f{i}(a) + [self]\n\n\n")
        parts.append(part)
        size, i = size + len(part), i + 1
    parts.append("Pool(2).map(f1, [1])\n")
    text = "".join(parts)
    (tree / "big.py").write_text(text)
    start = time.perf_counter()
    proc = run("big.py", "good.py", cwd=tree, timeout=600)
    elapsed = time.perf_counter() - start
    print(f"5 MB file ({text.count(chr(10))} lines): {elapsed:.1f} s")
    assert proc.returncode == 1 and proc.stderr == b""
    assert lines(proc.stdout)[0].startswith(f"big.py:{text.count(chr(10))}:1: WSP101 ")


def test_deep_expressions_that_parse_are_analysed(tree):
    # Just below the parser's limits: the analysis and the fixer must cope (the fixer may decline, with a note).
    depth = 2000
    # (the loader is used: a DataLoader built and dropped starts no worker and is not reported)
    (tree / "deep.py").write_bytes(
        b"from torch.utils.data import DataLoader\n\n\ndef main(ds):\n"
        b"    loader = DataLoader(ds, num_workers=2, collate_fn=" + b"lambda: " * depth + b"1)\n"
        b"    x = a" + b".b" * depth + b"\n    y = f" + b"()" * depth + b"\n"
        b"    z = " + b"+".join([b"1"] * depth) + b"\n"
        b"    return list(loader)\n"
        b"\n\nif __name__ == '__main__':\n    main([])\n")
    proc = run("deep.py", cwd=tree)
    assert proc.returncode == 1 and proc.stderr == b""
    assert lines(proc.stdout)[0].startswith("deep.py:5:55: WSP201 ")
    (tree / "deep_fix.py").write_bytes(
        b"from torch.utils.data import DataLoader\n\n\ndef main(ds):\n"
        b"    return DataLoader(ds, num_workers=2, collate_fn=" + b"lambda: " * 1000 + b"1)\n")
    proc = run("--diff", "deep_fix.py", cwd=tree)
    assert b"Traceback" not in proc.stderr and proc.returncode in (1, 2)


def test_recursion_error_in_the_analysis_is_a_diagnostic(tree, monkeypatch):
    """Our statement walk is recursive: if a visitor ever overflows, the file gets a diagnostic, not a crash."""
    from winspawn_lint import analysis, runner
    from winspawn_lint.analysis.project import Project
    from winspawn_lint.settings import Settings

    def overflow(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(analysis, "run", overflow)
    result = runner.check_file(str(tree / "good.py"), runner.Job(Settings()), Project())
    assert result.error == "too deeply nested to analyse (RecursionError)"
    monkeypatch.setattr(analysis, "run", lambda *a, **k: 1 / 0)
    result = runner.check_file(str(tree / "good.py"), runner.Job(Settings()), Project())
    assert result.error.startswith("internal error: ZeroDivisionError")


def test_directory_symlink_loop(tree):
    sub = tree / "pkg" / "sub"
    sub.mkdir(parents=True)
    (sub / "up").symlink_to("..", target_is_directory=True)
    (tree / "pkg" / "self").symlink_to(tree / "pkg", target_is_directory=True)
    (tree / "pkg" / "root").symlink_to(tree, target_is_directory=True)
    (sub / "good.py").write_bytes(GOOD)
    proc = run("-j", "1", ".", cwd=tree, timeout=60)
    assert proc.returncode == 1 and proc.stderr == b""
    assert [line.split(":")[0] for line in lines(proc.stdout)] == ["good.py", "pkg/sub/good.py"]


def test_a_file_symlink_found_by_the_walk_is_checked_once(tree):
    (tree / "link.py").symlink_to(tree / "good.py")
    proc = run("-j", "1", ".", cwd=tree)
    assert proc.returncode == 1 and len(lines(proc.stdout)) == 1


def test_dangling_symlink(tree):
    (tree / "dangling.py").symlink_to(tree / "gone.py")
    assert_one_diagnostic(run("-j", "1", ".", cwd=tree), "dangling.py", "No such file or directory")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0,
                    reason="root reads a chmod 000 file anyway; test_permission_denied_in_process covers it")
def test_unreadable_file(tree):  # pragma: no cover - runs as a normal user
    (tree / "secret.py").write_bytes(GOOD)
    (tree / "secret.py").chmod(0)
    try:
        assert_one_diagnostic(run("secret.py", "good.py", cwd=tree), "secret.py", "Permission denied")
    finally:
        (tree / "secret.py").chmod(0o644)


def test_permission_denied_in_process(tree, monkeypatch, capsys):
    """The unreadable-file outcome where the suite runs as root (CI containers): the command is called in this
    process, with the one file's ``open`` failing the way a chmod 000 file fails for a normal user."""
    import builtins

    from winspawn_lint import cli
    from winspawn_lint.io import source

    real_open = builtins.open

    def deny(path, *args, **kwargs):
        if os.path.basename(str(path)) == "secret.py":
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)

    (tree / "secret.py").write_bytes(GOOD)
    monkeypatch.setattr(source, "open", deny, raising=False)
    monkeypatch.chdir(tree)
    status = cli.main(["--isolated", "-j", "1", "secret.py", "good.py"])
    out, err = capsys.readouterr()
    assert_one_diagnostic(subprocess.CompletedProcess([], status, out.encode(), err.encode()), "secret.py",
                          "Permission denied")


@pytest.mark.skipif(not os.path.exists("/proc/self/mem"), reason="needs Linux /proc")
def test_io_error_on_read(tree):
    """A file that opens but cannot be read (even by root): /proc/self/mem fails at offset 0 with EIO."""
    (tree / "eio.py").symlink_to("/proc/self/mem")
    assert_one_diagnostic(run("eio.py", "good.py", cwd=tree), "eio.py", "Input/output error")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs mkfifo")
def test_fifo_found_by_the_walk_is_skipped_not_waited_on(tree):
    os.mkfifo(tree / "pipe.py")
    proc = run("-j", "1", ".", cwd=tree, timeout=60)
    assert proc.returncode == 1 and proc.stderr == b"" and lines(proc.stdout)[0].startswith(GOOD_FINDING)


def test_directory_named_like_a_python_file_is_walked(tree):
    (tree / "pkg.py").mkdir()
    (tree / "pkg.py" / "inner.py").write_bytes(GOOD)
    proc = run("pkg.py", cwd=tree)
    assert proc.returncode == 1 and lines(proc.stdout)[0].startswith("pkg.py/inner.py:7:55: WSP201")


def test_nonexistent_path(tree):
    assert_one_diagnostic(run("missing.py", "good.py", cwd=tree), "missing.py", "no such file or directory")
    assert_one_diagnostic(run("no/such/dir", "good.py", cwd=tree), "no/such/dir", "no such file or directory")


def test_non_python_file_named_explicitly_vs_found_by_the_walk(tree):
    (tree / "README.md").write_bytes(b"# Title\n\nUse a `Pool` under the main guard.\n")
    (tree / "data.bin").write_bytes(bytes(range(256)))
    assert_one_diagnostic(run("README.md", "good.py", cwd=tree), "README.md", "syntax error at line 3")
    assert_one_diagnostic(run("data.bin", "good.py", cwd=tree), "data.bin", "NUL byte")
    proc = run("-j", "1", ".", cwd=tree)  # the walk takes only .py/.pyi files
    assert proc.returncode == 1 and proc.stderr == b""


def test_undecodable_file_name(tree):
    if sys.platform == "darwin":
        pytest.skip("APFS refuses file names that are not UTF-8")
    bad = os.fsencode(str(tree)) + b"/bad\xff.py"
    with open(bad, "wb") as handle:
        handle.write(b"from multiprocessing import Pool\ndef f(:\n")  # mentions a worker API: a walk parses it
    proc = run("-j", "1", ".", cwd=tree)
    assert proc.returncode == 2 and b"Traceback" not in proc.stderr
    assert len(lines(proc.stderr)) == 1 and b"syntax error" in proc.stderr
    assert lines(proc.stdout)[0].startswith(GOOD_FINDING)


def test_stdin(tree):
    proc = run("-", cwd=tree, stdin=GOOD)
    assert proc.returncode == 1 and lines(proc.stdout)[0].startswith("-:7:55: WSP201 ")
    proc = run("-", "--stdin-filename", "train.py", cwd=tree, stdin=GOOD.replace(b"\n", b"\r\n"))
    assert proc.returncode == 1 and lines(proc.stdout)[0].startswith("train.py:7:55: WSP201 ")
    proc = run("-", "--stdin-filename", "train.py", cwd=tree, stdin=b"")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"", b"")


def test_bad_stdin_and_files_together(tree):
    proc = run("-", "good.py", "--stdin-filename", "train.py", cwd=tree, stdin=b"print 'py2'\n")
    assert_one_diagnostic(proc, "train.py", "syntax error at line 1")
    proc = run("-", "good.py", "--stdin-filename", "train.py", cwd=tree, stdin=b"\xff\xfe\0\0")
    assert_one_diagnostic(proc, "train.py", "NUL byte")


def test_fix_on_stdin_keeps_reporting(tree):
    """stdin cannot be rewritten: --fix leaves the findings in place and says so; --diff shows the fix."""
    proc = run("--fix", "-", "--stdin-filename", "train.py", cwd=tree, stdin=GOOD)
    assert proc.returncode == 1 and lines(proc.stdout)[0].startswith("train.py:7:55: WSP201 ")
    assert lines(proc.stderr) == ["train.py: note: stdin is not rewritten; use --diff to see the fix"]
    proc = run("--diff", "-", "--stdin-filename", "train.py", cwd=tree, stdin=GOOD)
    assert proc.returncode == 1 and b"+def _collate_fn(b):" in proc.stdout


def test_form_feed_and_unicode_line_separators_do_not_shift_lines(tree):
    """str.splitlines() breaks at ^L, \\v, \\x1c-\\x1e, \\x85, U+2028/2029; Python's tokenizer does not."""
    prefix = "\x0c\n# \u2028 \x85 \x1c\nname = 'a\u2029b\x0bc'\n".encode()
    (tree / "ff.py").write_bytes(prefix + GOOD)
    proc = run("ff.py", cwd=tree)
    assert proc.returncode == 1 and lines(proc.stdout)[0].startswith("ff.py:10:55: WSP201 ")
    (tree / "ff.py").write_bytes(prefix + GOOD.replace(b"lambda b: b)", b"lambda b: b)  # noqa: WSP201"))
    proc = run("ff.py", cwd=tree)
    assert (proc.returncode, proc.stdout) == (0, b"")


def test_warnings_about_the_checked_code_are_not_printed(tree):
    """ast.parse() and the fixer's compile() warn about `"\\d"` or `x is 1`: not ours to report."""
    (tree / "warns.py").write_bytes(b'import multiprocessing\nx = "\\d"\nif x is 1:\n    pass\n'
                                    b'multiprocessing.Pool(2)\n')
    for args in ([], ["--diff", "--unsafe-fixes"], ["--fix", "--unsafe-fixes"]):
        proc = run(*args, "warns.py", cwd=tree)
        assert b"Warning" not in proc.stderr, (args, proc.stderr)
        assert proc.returncode == 1
