"""Score the linter against the hand-labelled real-code audit set (issue 11).

    python benchmarks/audit/score.py [--corpus DIR] [--labels FILE] [--tolerance N] [--json OUT]

``labels.tsv`` (beside this file) lists sites in public ML repositories: repo, commit, path, line,
class (the WSP code that should fire there, or ``safe``), evidence and why.  For every repository
whose extracted commit (``<corpus>/<repo>/.commit``) equals the labels' commit, the linter's CLI
runs once, from the repository's root (so project-local imports resolve as they would for a user),
on the labelled files, with every rule selected (opt-in ones included; ``--default-rules``: the default
selection, what a user sees) and ``--isolated`` (the repositories' own configuration plays no part).
Findings are matched to labels by (repo, path, line, code):

* a finding whose code equals a hazard label's class, within ``--tolerance`` lines (default 0:
  the finding must be on the labelled line), is a true positive; a hazard label without one is a miss;
* a finding on a line labelled ``safe`` is a false positive, and so is a finding on a hazard line
  whose code differs from the label's class (reported as "wrong code");
* findings on unlabelled lines are not scored; their count is printed so the set can grow.

A label's line is the construct a user must change (the lambda, the local ``def``, the resource
assignment, the unguarded statement).  For local functions and classes the optional ``use_lines``
column names the lines where the value is handed towards the worker (``with_transform(f)``,
``collate_fn=f``, ``.map(f, ...)``); a finding of the right code there is reported as "found at a
use line" and still counts as a miss, unless ``--lenient-location`` is given.  So is a finding of the
right code inside the statement that starts on a labelled line of a ``.py`` file (a label on an
unguarded ``for epoch ...:`` loop, the finding on the loader's iteration inside it; a label on a dict of
lambdas written over many lines, the findings on its lambdas): the labels disagree on which of the lines a
user must change, and the linter reports the iteration, or each lambda.

Recall per class = true positives / hazard labels of that class; precision per code = true
positives / (true positives + false positives) of that code.  Labels whose commit differs from the
extracted one, whose file is missing, or whose file the linter reports it cannot read (exit 2 with a
``PATH: error: ...`` line, e.g. syntax newer than the running Python), are listed and left out of
every figure; in a notebook, only the labels in the cells it reports it cannot read are (it checks the others,
as the kernel runs them when one fails).

``holdout.tsv`` is a second, held-out set in the same format on repositories that are not in
``.corpus/`` (score it with ``--labels benchmarks/audit/holdout.tsv --corpus .corpus-holdout``).
"""

from __future__ import annotations

import argparse
import ast
import csv
import json
import subprocess
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT_ROOT = HERE.parent.parent
SAFE = "safe"


@dataclass(frozen=True)
class Label:
    repo: str
    commit: str
    path: str
    line: int
    cls: str
    evidence: str
    why: str
    use_lines: tuple[int, ...] = ()
    #: in a notebook, the cell (1-based among all cells, as the linter counts them); ``line`` counts in that cell
    cell: int | None = None


@dataclass(frozen=True)
class Finding:
    repo: str
    path: str
    line: int
    code: str
    message: str
    cell: int | None = None


def read_labels(path: Path) -> list[Label]:
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))
    return [Label(r["repo"], r["commit"], r["path"], int(r["line"]), r["class"], r["evidence"], r["why"],
                  _use_lines(r.get("use_lines") or "", r["path"]), int(r["cell"]) if r.get("cell") else None)
            for r in rows]


def _use_lines(text: str, path: str) -> tuple[int, ...]:
    """The lines of ``use_lines`` in the label's own file: ``12;40``, or ``path:12`` (half d also names uses in
    other files that way; a finding there is not this file's, so those are left out, as is a file named without a
    line, ``train_test/trainer.py`` in half n)."""
    lines = []
    for item in filter(None, text.split(";")):
        where, _, line = item.strip().rpartition(":")
        if (not where or where == path) and line.isdigit():
            lines.append(int(line))
    return tuple(lines)


def unreadable_files(stderr: str, paths: list[str]) -> dict[str, str]:
    """The files among *paths* that the linter reported it could not check (``PATH: error: reason``)."""
    wanted = set(paths)
    found = {}
    for line in stderr.splitlines():
        path, sep, reason = line.partition(": error: ")
        path = path.removeprefix("./")
        if sep and path in wanted:
            found[path] = reason.strip()
    return found


def unread_cells(file: Path) -> set[int] | None:
    """For a notebook, the cells the linter could not read (those that do not parse on their own: it checks the
    others, as the kernel runs them); None for any other file, which is read whole or not at all."""
    from winspawn_lint.io import notebook

    if file.suffix != notebook.SUFFIX:
        return None
    try:
        book = notebook.loads(file.read_text(encoding="utf-8"), check_syntax=False)
    except (notebook.SourceError, OSError, UnicodeDecodeError):
        return None
    return set(notebook.broken_cells(book))


def with_statement_lines(labels: list[Label], corpus: Path) -> list[Label]:
    """*labels*, each on the first line of a statement of a ``.py`` file written over several lines (not a
    ``def`` or ``class``) with the statement's other lines added to its use lines (the file is parsed, never
    run)."""
    trees: dict[Path, ast.Module | None] = {}
    out = []
    for lab in labels:
        file = corpus / lab.repo / lab.path
        if lab.cls == SAFE or lab.cell is not None or file.suffix != ".py":
            out.append(lab)
            continue
        if file not in trees:
            try:
                trees[file] = ast.parse(file.read_bytes())
            except (SyntaxError, ValueError):
                trees[file] = None
        tree = trees[file]
        block = next((node for node in ast.walk(tree) if isinstance(node, ast.stmt) and node.lineno == lab.line
                      and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))),
                     None) if tree else None
        inside = tuple(range(lab.line + 1, (block.end_lineno or lab.line) + 1)) if block is not None else ()
        out.append(replace(lab, use_lines=(*lab.use_lines, *inside)) if inside else lab)
    return out


def run_linter(corpus: Path, repo: str, paths: list[str], timeout: float,
               jobs: int, default_rules: bool = False) -> tuple[list[Finding], dict[str, str]]:
    """Run the CLI from the repository's root on *paths*; never raise on findings (exit 1).

    Exit 2 with per-file errors (a file the linter cannot parse) still carries the other files'
    findings; those files are returned with the reason so that their labels are skipped, not missed.
    """
    selection = [] if default_rules else ["--select", "WSP"]
    cmd = [sys.executable, "-m", "winspawn_lint", "--isolated", *selection, "--format", "json",
           "-j", str(jobs), *sorted(set(paths))]
    proc = subprocess.run(cmd, cwd=corpus / repo, capture_output=True, text=True, timeout=timeout)
    unreadable = unreadable_files(proc.stderr, paths) if proc.returncode == 2 else {}
    # (exit 1 with nothing on stdout is not the linter's: `python -m winspawn_lint` without the package installed)
    failed = proc.returncode not in (0, 1) or "Traceback" in proc.stderr or (proc.returncode == 1 and not proc.stdout)
    if failed and not unreadable:
        raise RuntimeError(f"linter failed on {repo} (exit {proc.returncode}): {proc.stderr.strip()[-2000:]}")
    root = (corpus / repo).resolve()
    findings = []
    for f in json.loads(proc.stdout or "[]"):
        path = Path(f["path"])
        if path.is_absolute():
            path = path.resolve().relative_to(root)
        findings.append(Finding(repo, path.as_posix().removeprefix("./"), int(f["line"]), f["code"], f["message"],
                                f.get("cell")))
    return findings, unreadable


def score(labels: list[Label], findings: list[Finding], tolerance: int, lenient_location: bool = False) -> dict:
    # A notebook's cells number their lines apart: a cell is part of where a label is.
    by_file: dict[tuple[str, str, int | None], list[Label]] = defaultdict(list)
    for lab in labels:
        by_file[(lab.repo, lab.path, lab.cell)].append(lab)
    matched: set[Label] = set()
    at_use_site: set[Label] = set()
    false_positives: list[tuple[Finding, Label]] = []
    unlabelled: list[Finding] = []
    tp_by_code: Counter[str] = Counter()
    fp_by_code: Counter[str] = Counter()
    for f in sorted(set(findings), key=lambda f: (f.repo, f.path, f.cell or 0, f.line, f.code)):
        near = [lab for lab in by_file.get((f.repo, f.path, f.cell), []) if abs(lab.line - f.line) <= tolerance]
        if not near:
            # The right hazard reported where the value is handed over, not where it is written.
            used = [lab for lab in by_file.get((f.repo, f.path, f.cell), [])
                    if lab.cls == f.code and any(abs(u - f.line) <= tolerance for u in lab.use_lines)]
            if used:
                at_use_site.update(used)
                if lenient_location:
                    new = [lab for lab in used if lab not in matched]
                    matched.update(used)
                    tp_by_code[f.code] += 1 if new else 0
            else:
                unlabelled.append(f)
            continue
        hits = [lab for lab in near if lab.cls == f.code]
        if hits:
            # One finding confirms every same-code label it is near (two lambdas on one line, say).
            new = [lab for lab in hits if lab not in matched]
            matched.update(hits)
            tp_by_code[f.code] += 1 if new else 0
            continue
        fp_by_code[f.code] += 1
        false_positives.append((f, min(near, key=lambda lab: abs(lab.line - f.line))))
    hazards = [lab for lab in labels if lab.cls != SAFE]
    per_class = {}
    for cls in sorted({lab.cls for lab in hazards} | set(tp_by_code) | set(fp_by_code)):
        n = sum(1 for lab in hazards if lab.cls == cls)
        tp = sum(1 for lab in hazards if lab.cls == cls and lab in matched)
        fp = fp_by_code[cls]
        found = tp_by_code[cls]
        per_class[cls] = {
            "labels": n, "true_positives": tp, "false_positives": fp,
            "recall": tp / n if n else None,
            "precision": found / (found + fp) if found + fp else None,
        }
    tp_all = sum(1 for lab in hazards if lab in matched)
    found_all = sum(tp_by_code.values())
    fp_all = len(false_positives)
    per_repo = {}
    fp_by_repo = Counter(f.repo for f, _ in false_positives)
    for repo in sorted({lab.repo for lab in labels}):
        n = sum(1 for lab in hazards if lab.repo == repo)
        tp = sum(1 for lab in hazards if lab.repo == repo and lab in matched)
        per_repo[repo] = {"labels": n, "true_positives": tp, "false_positives": fp_by_repo[repo],
                          "recall": tp / n if n else None}
    return {
        "labels": len(labels), "hazards": len(hazards), "safe": len(labels) - len(hazards),
        "per_repo": per_repo,
        "true_positives": tp_all, "false_positives": fp_all,
        "recall": tp_all / len(hazards) if hazards else None,
        "precision": found_all / (found_all + fp_all) if found_all + fp_all else None,
        "per_class": per_class,
        "misses": [lab for lab in hazards if lab not in matched],
        "found_at_use_site": [lab for lab in hazards
                              if lab in at_use_site and (lenient_location or lab not in matched)],
        "false_positive_list": false_positives,
        "unlabelled": unlabelled,
    }


def fmt(x: float | None) -> str:
    return "  -  " if x is None else f"{x:.2f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", type=Path, default=PROJECT_ROOT / ".corpus",
                    help="folder holding one extracted repository per label repo "
                         "(default: .corpus/ at the project root)")
    ap.add_argument("--labels", type=Path, default=HERE / "labels.tsv")
    ap.add_argument("--tolerance", type=int, default=0,
                    help="line distance allowed between finding and label (default 0)")
    ap.add_argument("--timeout", type=float, default=900, help="seconds allowed per repository run")
    ap.add_argument("-j", "--jobs", type=int, default=1,
                    help="linter worker processes per run (default 1: shared machines)")
    ap.add_argument("--json", type=Path, help="also write the full result as JSON here")
    ap.add_argument("--show-unlabelled", action="store_true", help="list findings on unlabelled lines")
    ap.add_argument("--lenient-location", action="store_true",
                    help="also count a finding of the right code on one of a label's use_lines (where the local "
                         "function is handed over), or inside the compound statement a label starts, as a true "
                         "positive")
    ap.add_argument("--default-rules", action="store_true",
                    help="run the linter with its default rule selection (what a user sees without configuring "
                         "it) instead of every rule, the opt-in ones included")
    args = ap.parse_args(argv)

    labels = read_labels(args.labels)
    skipped: list[tuple[Label, str]] = []
    scored: list[Label] = []
    for lab in labels:
        repo_dir = args.corpus / lab.repo
        commit_file = repo_dir / ".commit"
        extracted = commit_file.read_text().strip() if commit_file.is_file() else None
        if extracted != lab.commit:
            skipped.append((lab, f"commit {lab.commit[:10]} labelled, {str(extracted)[:10]} extracted"))
        elif not (repo_dir / lab.path).is_file():
            skipped.append((lab, "file missing"))
        else:
            scored.append(lab)

    findings: list[Finding] = []
    for repo in sorted({lab.repo for lab in scored}):
        paths = [lab.path for lab in scored if lab.repo == repo]
        found, unreadable = run_linter(args.corpus, repo, paths, args.timeout, args.jobs, args.default_rules)
        findings.extend(found)
        unread = {path: unread_cells(args.corpus / repo / path) for path in unreadable}
        for lab in [lab for lab in scored if lab.repo == repo and lab.path in unreadable]:
            if unread[lab.path] is not None and lab.cell not in unread[lab.path]:
                continue  # (a notebook's other cells were checked)
            scored.remove(lab)
            skipped.append((lab, f"linter could not read the file: {unreadable[lab.path]}"))
    result = score(with_statement_lines(scored, args.corpus), findings, args.tolerance, args.lenient_location)

    print(f"audit: {result['labels']} labels scored ({result['hazards']} hazards, {result['safe']} safe), "
          f"{len(skipped)} skipped, tolerance ±{args.tolerance}"
          f"{', lenient location' if args.lenient_location else ''}"
          f"{', default rules' if args.default_rules else ''}")
    print(f"{'class':<8} {'labels':>6} {'TP':>4} {'FP':>4} {'recall':>7} {'precision':>9}")
    for cls, row in result["per_class"].items():
        print(f"{cls:<8} {row['labels']:>6} {row['true_positives']:>4} {row['false_positives']:>4} "
              f"{fmt(row['recall']):>7} {fmt(row['precision']):>9}")
    print(f"{'overall':<8} {result['hazards']:>6} {result['true_positives']:>4} {result['false_positives']:>4} "
          f"{fmt(result['recall']):>7} {fmt(result['precision']):>9}")
    print("\nper repository (hazard labels, found, false positives, recall):")
    for repo, row in result["per_repo"].items():
        print(f"  {repo:<22} {row['labels']:>4} {row['true_positives']:>4} {row['false_positives']:>4} "
              f"{fmt(row['recall']):>6}")
    print(f"\nmisses ({len(result['misses'])}; * = reported with the right code at a use line instead):")
    for lab in result["misses"]:
        star = "*" if lab in result["found_at_use_site"] else " "
        print(f" {star}{lab.cls} {lab.repo}/{lab.path}:{lab.line}  {lab.why}")
    if args.lenient_location:
        print(f"\ncounted at a use line ({len(result['found_at_use_site'])}):")
        for lab in result["found_at_use_site"]:
            used = ";".join(map(str, lab.use_lines[:3])) + (" ..." if len(lab.use_lines) > 3 else "")
            print(f"  {lab.cls} {lab.repo}/{lab.path}:{lab.line} (used at or inside: {used})")
    print(f"\nfalse positives ({len(result['false_positive_list'])}):")
    for f, lab in result["false_positive_list"]:
        kind = "on a safe line" if lab.cls == SAFE else f"wrong code, labelled {lab.cls}"
        print(f"  {f.code} {f.repo}/{f.path}:{f.line} ({kind}): {f.message[:120]}")
    by_code = Counter(f.code for f in result["unlabelled"])
    print(f"\nunlabelled findings: {len(result['unlabelled'])} "
          f"({', '.join(f'{c} {n}' for c, n in sorted(by_code.items())) or 'none'})")
    if args.show_unlabelled:
        for f in result["unlabelled"]:
            print(f"  {f.code} {f.repo}/{f.path}:{f.line}: {f.message[:120]}")
    if skipped:
        print(f"\nskipped labels ({len(skipped)}):")
        for lab, reason in skipped:
            print(f"  {lab.repo}/{lab.path}:{lab.line}: {reason}")
    if args.json:
        out = dict(result)
        out["misses"] = [vars(lab) for lab in result["misses"]]
        out["found_at_use_site"] = [vars(lab) for lab in result["found_at_use_site"]]
        out["false_positive_list"] = [{"finding": vars(f), "label": vars(lab)}
                                      for f, lab in result["false_positive_list"]]
        out["unlabelled"] = [vars(f) for f in result["unlabelled"]]
        out["skipped"] = [{"label": vars(lab), "reason": r} for lab, r in skipped]
        args.json.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
