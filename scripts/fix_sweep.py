"""Real-code fix sweep (not run in CI): ``--fix --unsafe-fixes`` on every file of a corpus of repositories.

    python scripts/fix_sweep.py [--timeout S] [--corpus DIR] REPO [REPO ...]

For each repository (a directory under ``--corpus``, default ``.corpus`` of the main checkout) it times a
check of the whole repository and a ``--diff --unsafe-fixes`` run of it (``winspawn-lint -j 1 --no-cache``:
both cold, in a subprocess), then fixes every file that has findings, in this process, with a per-file time
limit, and checks that:

* the fix finishes (a hang is a file that takes longer than ``--timeout``);
* the patched file compiles;
* fixing the patched file again changes nothing;
* pycodestyle (E1, E2, E3, E5 with the file's configured maximum line length, W) reports no code more often
  on the patched file than on the original.

It prints one row per repository, then the findings left unfixed by reason (names in backticks shown as
`_`), then every failure.  Nothing is written to the swept files; nothing in them is imported or run.

With ``--cli`` it sweeps as a user would instead, notebooks included: each repository is copied to a temporary
directory, ``winspawn-lint --fix --unsafe-fixes`` rewrites the copy, then ``winspawn-lint --unsafe-fixes`` counts
the findings left and those still marked fixable (``[*]``: there should be none), a second ``--fix
--unsafe-fixes`` must change nothing, every rewritten ``.py`` file must compile, and pycodestyle must report
nothing new in a rewritten file (counted apart for the files it found clean).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "src"))

from winspawn_lint import check_text  # noqa: E402
from winspawn_lint.rules import RULES  # noqa: E402
from winspawn_lint.settings import Settings  # noqa: E402

DEFAULT_CORPUS = os.path.join(HERE, "..", ".corpus")
PYCODESTYLE_SELECT = "E1,E2,E3,E5,W"
# A reason runs to the next finding's note, or to the file's fix-safety note (which is not a reason).
_NOTE = re.compile(r"(?:^|; )\d+:\d+: (WSP\d+) not fixed: (.*?)(?=; \d+:\d+: WSP|; moving code under the main guard \(|$)")
_NAMES = re.compile(r"`[^`]*`")


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout


def python_files(root: str) -> list[str]:
    out = []
    for directory, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        out.extend(os.path.join(directory, n) for n in sorted(names) if n.endswith(".py"))
    return out


def timed_cli(args: list[str], timeout: float) -> float:
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "winspawn_lint", "--isolated", "--no-cache", "-j", "1", *args],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout)
    return time.monotonic() - start


def pycodestyle_counts(text: str, max_line_length: int) -> Counter:
    import pycodestyle

    style = pycodestyle.StyleGuide(select=PYCODESTYLE_SELECT.split(","), max_line_length=max_line_length,
                                   quiet=True)
    lines = text.splitlines(keepends=True)
    checker = pycodestyle.Checker(lines=lines, options=style.options)
    found: Counter = Counter()
    checker.report_error = lambda line, col, message, check: found.update([message[:4]])  # type: ignore
    with redirect_stdout(io.StringIO()):
        checker.check_all()
    return found


def sweep_file(path: str, settings: Settings, timeout: int, stats: Counter, reasons: Counter,
               failures: list[str]) -> None:
    from winspawn_lint import fix_text
    from winspawn_lint.io.line_length import configured_line_length

    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError):
        return
    try:
        findings = check_text(text, path, settings)
    except Exception:  # noqa: BLE001 - unparsable files (other Pythons, test data) are not the fixer's
        stats["unparsable"] += 1
        return
    if not findings:
        return
    stats["files with findings"] += 1
    stats["findings"] += len(findings)
    signal.alarm(timeout)
    try:
        outcome = fix_text(text, path, settings, unsafe=True)
        again = fix_text(outcome.text, path, settings, unsafe=True) if outcome.text != text else outcome
    except Timeout:
        stats["hangs"] += 1
        failures.append(f"HANG {path}")
        return
    finally:
        signal.alarm(0)
    stats["fixed"] += len(outcome.fixed)
    stats["unfixed"] += len(outcome.unfixed)
    noted = Counter()
    for code, why in _NOTE.findall(outcome.note or ""):
        reasons[f"{code} {_NAMES.sub('`_`', why)}"] += 1
        noted[code] += 1
    # Notes about the whole file (a notebook's layout that cannot be written back...) explain the rest.
    general = [part for part in _NOTE.sub("", outcome.note or "").split("; ")
               if part and not part.startswith("moving code under the main guard (")]
    for finding in outcome.unfixed:
        if noted[finding.code]:
            noted[finding.code] -= 1
        else:
            why = ("no fix for this rule" if finding.rule.fix_safety.value == "none" else
                   "no fix for this case (the check marks it: nothing for a fix to rewrite)"
                   if finding.safety.value == "none" else
                   _NAMES.sub("`_`", general[0]) if general else "left without a note")
            reasons[f"{finding.code} {why}"] += 1
            if why == "left without a note":
                failures.append(f"UNFIXED WITHOUT A NOTE {path}:{finding.line}: {finding.code}")
    if outcome.text == text:
        return
    stats["files changed"] += 1
    try:
        compile(outcome.text, path, "exec", dont_inherit=True)
    except SyntaxError as error:
        stats["non-compiling"] += 1
        failures.append(f"NON-COMPILING {path}: {error}")
        return
    if again.text != outcome.text:
        stats["non-idempotent"] += 1
        failures.append(f"NON-IDEMPOTENT {path}")
    limit = configured_line_length(os.path.dirname(os.path.abspath(path)))[0]
    before, after = pycodestyle_counts(text, limit), pycodestyle_counts(outcome.text, limit)
    new = {code: after[code] - before[code] for code in after if after[code] > before[code]}
    if new:
        stats["files with new pycodestyle findings"] += 1
        failures.append(f"PYCODESTYLE {path} (max-line-length {limit}): {new}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repos", nargs="+")
    parser.add_argument("--corpus", default=DEFAULT_CORPUS)
    parser.add_argument("--timeout", type=int, default=60, help="seconds per file (a hang past it is counted)")
    parser.add_argument("--no-timing", action="store_true", help="skip the whole-repository check/fix timing")
    parser.add_argument("--all-rules", action="store_true",
                        help="check and fix with every rule enabled (default: the default selection)")
    parser.add_argument("--cli", action="store_true",
                        help="sweep copies of the repositories through the command line, notebooks included")
    ns = parser.parse_args()
    if ns.cli:
        return cli_sweep(ns.repos, ns.corpus, ns.all_rules)
    signal.signal(signal.SIGALRM, _alarm)
    settings = Settings(select=frozenset(RULES)) if ns.all_rules else Settings()
    columns = ("files", "files with findings", "findings", "fixed", "unfixed", "files changed", "hangs",
               "non-compiling", "non-idempotent", "files with new pycodestyle findings")
    rows, reasons, failures = [], Counter(), []
    for repo in ns.repos:
        root = os.path.join(ns.corpus, repo)
        files = python_files(root)
        stats: Counter = Counter(files=len(files))
        start = time.monotonic()
        for path in files:
            sweep_file(path, settings, ns.timeout, stats, reasons, failures)
        stats["sweep s"] = round(time.monotonic() - start, 1)
        if not ns.no_timing:
            check = timed_cli([root], 3600)
            fix = timed_cli(["--diff", "--unsafe-fixes", root], 3600)
            stats["check s"], stats["fix s"] = round(check, 1), round(fix, 1)
            stats["fix/check"] = round(fix / check, 2)
        rows.append((repo, stats))
        print(f"{repo}: {dict(stats)}", file=sys.stderr, flush=True)
    header = ["repo", *columns, *([] if ns.no_timing else ["check s", "fix s", "fix/check"]), "sweep s"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for repo, stats in rows:
        print("| " + " | ".join([repo, *(str(stats.get(c, 0)) for c in header[1:])]) + " |")
    print("\nFindings left unfixed by --unsafe-fixes, by reason:")
    for reason, count in reasons.most_common():
        print(f"{count:6}  {reason}")
    if failures:
        print("\nFailures:")
        print("\n".join(failures))
    return 1 if any(s["hangs"] or s["non-compiling"] or s["non-idempotent"] for _, s in rows) else 0


def _cli_json(args: list[str], cwd: str) -> list[dict]:
    proc = subprocess.run([sys.executable, "-m", "winspawn_lint", "--no-cache", "--format", "json", *args, "."],
                          cwd=cwd, capture_output=True, text=True, timeout=7200)
    return json.loads(proc.stdout or "[]")


def _tree_texts(root: str) -> dict[str, bytes]:
    out = {}
    for directory, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in names:
            if name.endswith((".py", ".ipynb")):
                path = os.path.join(directory, name)
                with open(path, "rb") as handle:
                    out[os.path.relpath(path, root)] = handle.read()
    return out


def cli_sweep(repos: list[str], corpus: str, all_rules: bool) -> int:
    """The ``--cli`` sweep (see the module's docstring); 1 when any check fails."""
    from winspawn_lint.io.line_length import configured_line_length

    select = ["--select", "ALL"] if all_rules else []
    header = ["repo", "findings", "files changed", "new files", "left", "left [*]", "non-compiling",
              "second run changes", "files with new pycodestyle findings", "of them clean before", "s"]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    failures, bad = [], False
    reasons: Counter = Counter()  # why --fix --unsafe-fixes left a finding, as its notes say
    left_codes: Counter = Counter()
    for repo in repos:
        start = time.monotonic()
        with tempfile.TemporaryDirectory() as tmp:
            root = os.path.join(tmp, repo)
            shutil.copytree(os.path.join(corpus, repo), root, symlinks=True,
                            ignore=shutil.ignore_patterns(".git", "__pycache__"))
            before = _tree_texts(root)
            found = _cli_json(select, root)
            fixing = subprocess.run([sys.executable, "-m", "winspawn_lint", "--no-cache", *select, "--fix",
                                     "--unsafe-fixes", "."], cwd=root, capture_output=True, text=True, timeout=7200)
            for row in fixing.stderr.splitlines():
                note = row.partition(": note: ")[2]
                reasons.update(f"{code} {_NAMES.sub('`_`', why)}" for code, why in _NOTE.findall(note))
            after = _tree_texts(root)
            left = _cli_json([*select, "--unsafe-fixes"], root)
            left_codes.update(row["code"] for row in left)
            fixable = [row for row in left if row["fix_safety"] != "none"]
            subprocess.run([sys.executable, "-m", "winspawn_lint", "--no-cache", *select, "--fix", "--unsafe-fixes",
                            "."], cwd=root, capture_output=True, timeout=7200)
            again = _tree_texts(root)
            changed = sorted(p for p in after if p in before and after[p] != before[p])
            stats = Counter(findings=len(found), left=len(left))
            stats["files changed"] = len(changed)
            stats["new files"] = len(set(after) - set(before))
            stats["left [*]"] = len(fixable)
            failures += [f"LEFT [*] {repo}/{row['path']}:{row.get('cell', '')}:{row['line']}: {row['code']}"
                         for row in fixable]
            second = sorted(p for p in set(after) | set(again) if after.get(p) != again.get(p))
            stats["second run changes"] = len(second)
            failures += [f"SECOND RUN CHANGES {repo}/{p}" for p in second]
            for rel in changed:
                if not rel.endswith(".py"):
                    continue
                old, new = before[rel].decode("utf-8", "replace"), after[rel].decode("utf-8", "replace")
                try:
                    compile(after[rel], rel, "exec", dont_inherit=True)
                except SyntaxError as error:
                    stats["non-compiling"] += 1
                    failures.append(f"NON-COMPILING {repo}/{rel}: {error}")
                    continue
                limit = configured_line_length(os.path.dirname(os.path.join(root, rel)))[0]
                was, now = pycodestyle_counts(old, limit), pycodestyle_counts(new, limit)
                new_codes = {code: now[code] - was[code] for code in now if now[code] > was[code]}
                if new_codes:
                    stats["files with new pycodestyle findings"] += 1
                    stats["of them clean before"] += not was
                    failures.append(f"PYCODESTYLE {repo}/{rel} (max-line-length {limit}"
                                    f"{', clean before' if not was else ''}): {new_codes}")
        stats["s"] = round(time.monotonic() - start)
        bad = bad or bool(stats["left [*]"] or stats["non-compiling"] or stats["second run changes"])
        print("| " + " | ".join([repo, *(str(stats.get(c, 0)) for c in header[1:])]) + " |", flush=True)
    print("\nFindings left, by rule: " + ", ".join(f"{code} {n}" for code, n in sorted(left_codes.items())))
    print("\nFindings left by --fix --unsafe-fixes with a note, by reason (the rest have no fix):")
    for reason, count in reasons.most_common():
        print(f"{count:6}  {reason}")
    if failures:
        print("\nFailures:")
        print("\n".join(failures))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
