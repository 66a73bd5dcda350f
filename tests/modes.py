"""Every way of running winspawn-lint on one tree, and how far apart their answers are.

A user meets the linter in many modes: the default run (a worker per CPU, the results cache on), ``-j 1``,
``--no-cache``, a warm rerun, pre-commit naming each file, the flake8 plugin, the ``check_text`` API, ``--fix
--diff`` and ``--fix`` itself.  They must all give the same answer on the same tree, byte for byte.  Each function
here runs one family of modes and returns what each printed (or, for ``--fix``, the files it rewrote), so that
``tests/test_modes.py`` and ``scripts/differential.py`` compare them with :func:`differing_lines`.

Every CLI run is a subprocess with the tree as its working directory and its own cache directory, as a user's
shell would run it.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterable, Optional

#: The reference every other mode is held to: one process, nothing cached.
REFERENCE = "-j 1 --no-cache"
#: Check modes, in the order they run; each sequence of cache modes shares a cache directory, so a warm run
#: reads what the runs before it wrote (by the workers of a parallel run, or by a serial one).
CACHE_SEQUENCES: tuple[tuple[str, ...], ...] = (
    ("-j 2 (cold cache)", "-j 2 (warm cache)", "-j 1 (cache written by -j 2)"),
    ("-j 1 (cold cache)", "-j 1 (warm cache)", "-j 2 (cache written by -j 1)"),
)
NO_CACHE_MODES = (REFERENCE, "-j 2 --no-cache")


def _jobs(mode: str) -> list[str]:
    return ["-j", "2" if mode.startswith("-j 2") else "1"]


def cli(tree: Path, args: Iterable[str], cache_dir: Optional[Path] = None,
        timeout: float = 1800, hash_seed: Optional[int] = None) -> tuple[int, str, str]:
    """``winspawn-lint ARGS`` run in *tree* (exit status, stdout, stderr); *hash_seed*: the ``PYTHONHASHSEED``
    it runs with (else a random one, as every process of a user's run has)."""
    env = dict(os.environ)
    if cache_dir is not None:
        env["WINSPAWN_LINT_CACHE_DIR"] = str(cache_dir)
    if hash_seed is not None:
        env["PYTHONHASHSEED"] = str(hash_seed)
    proc = subprocess.run([sys.executable, "-m", "winspawn_lint", *args], cwd=tree, env=env, capture_output=True,
                          text=True, timeout=timeout)
    return proc.returncode, proc.stdout, proc.stderr


def in_process(*args: str) -> tuple[int, str, str]:
    """``winspawn-lint --isolated -j 1 ARGS`` in this process (exit status, stdout, stderr), with the results
    cache, held to the same run with ``--no-cache``: they must agree."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from winspawn_lint.cli import main

    results = []
    for extra in ((), ("--no-cache",)):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            status = main(["--isolated", "-j", "1", *extra, *args])
        results.append((status, out.getvalue(), err.getvalue()))
    assert results[0] == results[1]
    return results[0]


def printed(result: tuple[int, str, str]) -> str:
    """One text for a run: what it printed on each stream, and its exit status."""
    status, out, err = result
    return f"{out}\n--- stderr\n{err}\n--- exit {status}\n"


def check_modes(tree: Path, options: Iterable[str] = (), records: Optional[list[int]] = None) -> dict[str, str]:
    """The check of *tree* (``winspawn-lint [OPTIONS] .``) in every CLI mode: mode -> what it printed.
    *records*: a list to append, per sequence of cache modes, how many records of a run its cache holds at the
    end (a warm run answers from one: see ``io.cache.RunInputs``)."""
    options = list(options)
    settle(tree)
    out = {mode: printed(cli(tree, [*_jobs(mode), "--no-cache", *options, "."])) for mode in NO_CACHE_MODES}
    with tempfile.TemporaryDirectory(prefix="winspawn-modes-") as scratch:
        for number, sequence in enumerate(CACHE_SEQUENCES):
            cache_dir = Path(scratch, f"cache{number}")
            for mode in sequence:
                out[mode] = printed(cli(tree, [*_jobs(mode), *options, "."], cache_dir))
            if records is not None:
                records.append(len(list(cache_dir.glob("results-*/run-*.json"))))
    return out


def settle(tree: Path, when: int = 10**18) -> None:
    """Give the files and folders of *tree* changed in the last minute the mtime *when*, in the past.  The cache
    trusts no mtime of the last two seconds (a file may change again within the same tick), and a run that sees
    one keeps no record of itself: without this, the warm runs of a fresh copy would never answer from a record.
    (Settling after each change, give each a *when* of its own: a file edited to the same size and given the
    same mtime again would look unchanged, to the cache as to ``make``.)"""
    recent = time.time() - 60
    for path in [tree, *tree.rglob("*")]:
        if path.lstat().st_mtime > recent:
            os.utime(path, ns=(when, when), follow_symlinks=False)


def python_files(tree: Path) -> list[str]:
    """The ``.py`` files a walk of *tree* checks, relative to it."""
    from winspawn_lint.io.discover import discover
    from winspawn_lint.settings import Settings

    return sorted(os.path.relpath(p, tree) for p, _ in discover([str(tree)], Settings()) if p.endswith(".py"))


def finding_lines(rows: list[dict]) -> str:
    """Findings as ``path:line:col: CODE message`` lines, sorted: the form every front end can be held to."""
    return "".join(sorted(f"{os.path.normpath(r['path'])}:{r['line']}:{r['col']}: {r['code']} {r['message']}\n"
                          for r in rows))


def cli_findings(tree: Path, files: list[str], options: Iterable[str] = ()) -> str:
    """The reference run's findings in the files *files*, as :func:`finding_lines`."""
    _, out, _ = cli(tree, ["-j", "1", "--no-cache", "--format", "json", *options, "."])
    wanted = {os.path.normpath(f) for f in files}
    return finding_lines([r for r in json.loads(out) if os.path.normpath(r["path"]) in wanted])


def named_files_findings(tree: Path, files: list[str], options: Iterable[str] = ()) -> str:
    """What pre-commit gets: every file named on the command line (default jobs and cache)."""
    with tempfile.TemporaryDirectory(prefix="winspawn-modes-") as cache_dir:
        _, out, _ = cli(tree, ["--format", "json", *options, *files], Path(cache_dir))
    return finding_lines(json.loads(out))


def flake8_findings(tree: Path, files: list[str], select: str = "WSP", jobs: int = 2) -> str:
    """What the flake8 plugin reports on *files*, as :func:`finding_lines` (its column is 1-based, as the JSON
    format's; neither shows the platforms)."""
    proc = subprocess.run([sys.executable, "-m", "flake8", "--isolated", f"--select={select}", f"--jobs={jobs}",
                           "--format=%(path)s\t%(row)d\t%(col)d\t%(code)s\t%(text)s", *files],
                          cwd=tree, capture_output=True, text=True, timeout=1800)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"flake8 failed (exit {proc.returncode}): {proc.stderr[-2000:]}")
    rows = []
    for line in proc.stdout.splitlines():
        path, row, col, code, text = line.split("\t", 4)
        rows.append({"path": path, "line": int(row), "col": int(col), "code": code,
                     "message": text[len(code) + 1:] if text.startswith(code + " ") else text})
    return finding_lines(rows)


def api_findings(tree: Path, files: list[str], all_rules: bool = True) -> str:
    """What ``check_text`` returns for each file of *files* (read as the CLI reads them), with every rule or the
    default ones, in a subprocess with *tree* as its working directory, as :func:`finding_lines`."""
    program = (
        "import json, sys\n"
        "from winspawn_lint import check_text, Settings, RULES\n"
        "from winspawn_lint.io.source import SourceError, read\n"
        "settings = Settings(select=frozenset(RULES)) if sys.argv[1] == 'all' else Settings()\n"
        "rows = []\n"
        "for path in sys.argv[2:]:\n"
        "    try:\n"
        "        found = check_text(read(path).text, path, settings)\n"
        "    except SourceError:\n"
        "        continue  # the CLI reports such a file on stderr, never as a finding\n"
        "    for f in found:\n"
        "        rows.append({'path': path, 'line': f.line, 'col': f.col + 1, 'code': f.code,\n"
        "                     'message': f.message})\n"
        "json.dump(rows, sys.stdout)\n"
    )
    proc = subprocess.run([sys.executable, "-c", program, "all" if all_rules else "default", *files], cwd=tree,
                          capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0:
        raise RuntimeError(f"check_text failed: {proc.stderr[-2000:]}")
    return finding_lines(json.loads(proc.stdout))


def diff_modes(tree: Path, options: Iterable[str] = ()) -> dict[str, str]:
    """``--fix --diff`` (nothing written) in every CLI mode: mode -> what it printed."""
    return check_modes(tree, ["--diff", *options])


def fix_modes(tree: Path, options: Iterable[str] = (),
              modes: Iterable[str] = (REFERENCE, "-j 2 --no-cache", "-j 2 (cold cache)",
                                      "-j 2 (warm cache)")) -> dict[str, dict[str, bytes]]:
    """``--fix`` in each mode, each on its own copy of *tree*: mode -> {path: bytes} of the files it changed or
    created (a warm mode first runs ``--diff`` on the copy, which fills the cache and writes nothing)."""
    out = {}
    with tempfile.TemporaryDirectory(prefix="winspawn-modes-") as scratch:
        for number, mode in enumerate(modes):
            copy = Path(scratch, f"tree{number}")
            shutil.copytree(tree, copy, symlinks=True)
            cache = None if "no-cache" in mode else Path(scratch, f"cache{number}")
            no_cache = ["--no-cache"] if cache is None else []
            if "warm" in mode:
                cli(copy, [*_jobs(mode), "--diff", *options, "."], cache)
            cli(copy, [*_jobs(mode), *no_cache, "--fix", *options, "."], cache)
            out[mode] = _changed_files(tree, copy)
    return out


def _changed_files(before: Path, after: Path) -> dict[str, bytes]:
    changed = {}
    for directory, dirs, files in os.walk(after):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", ".winspawn_lint_cache"))
        for name in sorted(files):
            path = Path(directory, name)
            relative = str(path.relative_to(after))
            original = before / relative
            data = path.read_bytes()
            if not original.is_file() or original.read_bytes() != data:
                changed[relative] = data
    return changed


def differing_lines(reference: str, other: str) -> int:
    """How many lines one text has that the other does not (insertions plus deletions of a line diff)."""
    return sum(1 for line in difflib.unified_diff(reference.splitlines(), other.splitlines(), lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---")))


def differing_files(reference: dict[str, bytes], other: dict[str, bytes]) -> list[str]:
    """The paths one mode's ``--fix`` left different from the other's (changed, created, or not touched)."""
    return sorted(p for p in set(reference) | set(other) if reference.get(p) != other.get(p))
