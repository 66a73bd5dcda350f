"""Run every mode of winspawn-lint over real repositories and count how far each is from the serial, uncached run.

    python scripts/differential.py [--corpus DIR ...] [--select CODES] [--no-fix] [--json OUT] [REPO ...]

For each repository (a folder of the corpus: ``.corpus/`` and ``.corpus-holdout/`` by default, see
``../shared/corpus/README.md``) it runs the modes of ``tests/modes.py`` -- ``-j 1``/``-j 2`` × ``--no-cache``/cold
/warm cache, every file named on the command line, the flake8 plugin, ``check_text``, ``--fix --diff`` and
``--fix`` on copies of the repository -- and prints, per repository and mode, the number of output lines that
differ from the reference (``-j 1 --no-cache``), and for ``--fix`` the number of files rewritten differently.
Every figure must be 0.  Nothing in the repositories is imported or run, and nothing in them is written
(``--fix`` works on copies).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import modes  # noqa: E402


def sweep(repo: Path, select: str, fix: bool) -> dict[str, int]:
    options = ["--select", select] if select else []
    figures: dict[str, int] = {}
    printed = modes.check_modes(repo, options)
    reference = printed[modes.REFERENCE]
    for mode, text in printed.items():
        figures[f"check {mode}"] = modes.differing_lines(reference, text)
    figures["findings"] = reference.count(": WSP")
    # The other front ends, with every rule (flake8's own selection is not the command's): on the .py files.
    files = modes.python_files(repo)
    findings = modes.cli_findings(repo, files, ["--select", "WSP"])
    other = {
        "files named": modes.named_files_findings(repo, files, ["--select", "WSP"]),
        "flake8": modes.flake8_findings(repo, files),
        "check_text": modes.api_findings(repo, files),
    }
    for mode, text in other.items():
        figures[mode] = modes.differing_lines(findings, text)
    if fix:
        printed = modes.diff_modes(repo, [*options, "--unsafe-fixes"])
        for mode, text in printed.items():
            figures[f"diff {mode}"] = modes.differing_lines(printed[modes.REFERENCE], text)
        rewritten = modes.fix_modes(repo, [*options, "--unsafe-fixes"])
        reference_files = rewritten[modes.REFERENCE]
        figures["rewritten"] = len(reference_files)
        for mode, files_changed in rewritten.items():
            figures[f"fix {mode}"] = len(modes.differing_files(reference_files, files_changed))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("repos", nargs="*", help="repository folders (default: every folder of the corpora)")
    parser.add_argument("--corpus", action="append", type=Path,
                        help="a folder of extracted repositories (default: .corpus and .corpus-holdout)")
    parser.add_argument("--select", default="", help="codes to select (default: the default rules; WSP: all)")
    parser.add_argument("--no-fix", action="store_true", help="compare the checks only")
    parser.add_argument("--json", type=Path, help="also write the figures as JSON here")
    args = parser.parse_args(argv)
    if args.repos:
        repos = [Path(r) for r in args.repos]
    else:
        corpora = args.corpus or [ROOT / ".corpus", ROOT / ".corpus-holdout"]
        repos = sorted(p for corpus in corpora if corpus.is_dir() for p in corpus.iterdir() if p.is_dir())
    results = {}
    worst = 0
    for repo in repos:
        started = time.monotonic()
        figures = sweep(repo.resolve(), args.select, not args.no_fix)
        results[repo.name] = figures
        differing = {k: v for k, v in figures.items() if k not in ("findings", "rewritten") and v}
        worst = max([worst, *differing.values()])
        print(f"{repo.name}: {figures['findings']} findings, {figures.get('rewritten', '-')} files rewritten; "
              f"differing: {differing or 'none'} ({time.monotonic() - started:.0f} s)", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    total = {}
    for figures in results.values():
        for key, value in figures.items():
            total[key] = total.get(key, 0) + value
    print("\ntotal over", len(results), "repositories:")
    for key, value in total.items():
        print(f"  {key:<40} {value}")
    return 1 if worst else 0


if __name__ == "__main__":
    sys.exit(main())
