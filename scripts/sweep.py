"""Sweep real code: check (and ``--fix --diff``) every ``.py`` file of site-packages and the standard library.

    python scripts/sweep.py [--fix] [--jobs N] [--sample N] [--out report.json] [PATH ...]

Reports files, findings per code, internal errors (must be 0), unparsable
files (other Pythons' syntax, test data), and with ``--fix`` every fixed
output that fails to compile (must be 0).  Nothing is written to the files
swept; nothing in them is imported or run.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import sysconfig
import time
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src"))

from winspawn_lint.analysis.project import Project  # noqa: E402
from winspawn_lint.cli import _check_many  # noqa: E402
from winspawn_lint.runner import Job  # noqa: E402
from winspawn_lint.rules import RULES  # noqa: E402
from winspawn_lint.settings import Settings  # noqa: E402


def corpus(roots: list[str]) -> list[str]:
    files = []
    seen = set()
    for root in roots:
        for directory, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith(".py"):
                    path = os.path.join(directory, name)
                    real = os.path.realpath(path)
                    if real not in seen and os.path.isfile(real):
                        seen.add(real)
                        files.append(path)
    return files


def default_roots() -> list[str]:
    paths = sysconfig.get_paths()
    roots = [paths["purelib"], paths["stdlib"]]
    if paths["platlib"] != paths["purelib"]:
        roots.append(paths["platlib"])
    return [r for r in dict.fromkeys(roots) if os.path.isdir(r)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*")
    parser.add_argument("--fix", action="store_true", help="also compute --fix --diff (with unsafe fixes)")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--sample", type=int, default=0, help="check a random sample of N files (seed 0)")
    parser.add_argument("--out", help="write the full report as JSON here")
    parser.add_argument("--show", type=int, default=0, help="print N random findings for a spot check")
    ns = parser.parse_args()
    roots = ns.paths or default_roots()
    files = corpus(roots)
    if ns.sample:
        files = random.Random(0).sample(files, min(ns.sample, len(files)))
    settings = Settings(select=frozenset(RULES))
    start = time.perf_counter()
    results = _check_many(files, Job(settings), ns.jobs, Project(settings.registry))
    elapsed = time.perf_counter() - start
    # The fix pass is a second run: in --diff mode a fixed file reports only what is left after the fix,
    # and the findings above must be the check's.
    fix_results, fix_elapsed = [], 0.0
    if ns.fix:
        start = time.perf_counter()
        fix_results = _check_many(files, Job(settings, diff=True, unsafe_fixes=True), ns.jobs,
                                  Project(settings.registry))
        fix_elapsed = time.perf_counter() - start

    per_code: Counter[str] = Counter()
    internal, unparsable, bad_fixes, fixed_files, fixed_findings, findings = [], [], [], 0, 0, []
    for result in results:
        if result.error:
            (internal if result.error.startswith("internal error") else unparsable).append((result.path, result.error))
        for finding in result.findings:
            per_code[finding.code] += 1
            findings.append((result.path, finding.line, finding.code, finding.message))
    for result in fix_results:
        if result.error and result.error.startswith("internal error"):
            internal.append((result.path, f"(--fix --diff) {result.error}"))
        if result.fixed_text is not None:
            fixed_files += 1
            fixed_findings += result.fixed_count
            try:
                compile(result.fixed_text, result.path, "exec", dont_inherit=True)
            except (SyntaxError, ValueError) as error:
                bad_fixes.append((result.path, str(error)))
    lines = sum(1 for path in files for _ in open(path, "rb")) if len(files) < 200000 else 0
    print(f"roots: {', '.join(roots)}")
    print(f"files: {len(files)}  lines: {lines}  time: {elapsed:.1f} s  jobs: {ns.jobs}")
    print(f"findings: {sum(per_code.values())}  " + "  ".join(f"{c}={n}" for c, n in sorted(per_code.items())))
    print(f"internal errors: {len(internal)}")
    for path, error in internal[:20]:
        print(f"  {path}: {error}")
    print(f"unparsable (reported, exit 2): {len(unparsable)}")
    for path, error in unparsable[:10]:
        print(f"  {path}: {error}")
    if ns.fix:
        print(f"--fix --diff --unsafe-fixes: {fix_elapsed:.1f} s; files with fixes: {fixed_files} "
              f"({fixed_findings} findings fixed); fixed outputs that do not compile: {len(bad_fixes)}")
        for path, error in bad_fixes[:20]:
            print(f"  {path}: {error}")
    if ns.show:
        for item in random.Random(1).sample(findings, min(ns.show, len(findings))):
            print("  spot:", *item)
    if ns.out:
        with open(ns.out, "w", encoding="utf-8") as handle:
            json.dump({"files": len(files), "seconds": elapsed, "per_code": per_code, "internal": internal,
                       "unparsable": unparsable, "bad_fixes": bad_fixes, "findings": findings, "fixed_files": fixed_files, "fixed_findings": fixed_findings,
                       "fix_seconds": fix_elapsed}, handle, indent=1)
    return 1 if internal or bad_fixes else 0


if __name__ == "__main__":
    sys.exit(main())
