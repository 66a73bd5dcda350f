"""The ``winspawn-lint`` command: check (and with ``--fix``, rewrite) files.

Exit status: 0 clean; 1 findings remain or files were rewritten (the
pre-commit contract); 2 usage error, bad configuration, or a file that could
not be read or parsed (every other file is still checked).
"""

from __future__ import annotations

import argparse
import difflib
import gc
import os
import signal
import sys
from dataclasses import replace
from typing import Optional, Sequence

from .__version__ import __version__
from .analysis.project import Project
from .finding import Finding
from .rules import RULES, FixSafety, expand
from .io.source import split_rows
from .runner import FileResult, Job, apply_outcome, check_file, write
from .settings import (ConfigError, Settings, UNRESOLVED_POLICIES, find_config, load_config, resolve_selection,
                       settings_from_mapping)

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
PARALLEL_THRESHOLD = 64  # with no -j, fewer files than this are checked serially: workers would cost more


def _ignore_sigint() -> None:
    # The parent owns Ctrl-C; workers stop when it shuts the pool down.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.set_threshold(*_GC_THRESHOLD)


# ast.parse allocates a GC-tracked node per AST node and none of them is in a reference cycle, so with the
# default threshold (700) the cyclic collector runs hundreds of times per file for nothing; reference counting
# frees every tree anyway. A larger young-generation threshold makes a check about 10% faster.
_GC_THRESHOLD = (50_000, 20, 10)

#: A parallel run's worker: its reader of the project, made when the worker starts (see _start_worker).
_WORKER_PROJECT: Optional[Project] = None


def _start_worker() -> None:
    global _WORKER_PROJECT
    _ignore_sigint()
    _WORKER_PROJECT = Project()


def _check_in_worker(path: str, job: Job) -> FileResult:
    assert _WORKER_PROJECT is not None, "the pool's initializer makes the worker's project"
    return check_file(path, job, _WORKER_PROJECT)


def _check_many(paths: list[str], job: Job, jobs: Optional[int], project: Project,
                walked: frozenset[str] = frozenset()) -> list[FileResult]:
    """Check files in order (*jobs*: worker processes; None: one per CPU, when there are enough files to pay
    for them); those in *walked* were found by walking a directory (see Job.report_unparsable)."""
    walk_job = replace(job, report_unparsable=False)
    path_jobs = [walk_job if path in walked else job for path in paths]
    if jobs is None:
        jobs = (os.cpu_count() or 1) if len(paths) >= PARALLEL_THRESHOLD else 1
    if jobs == 1 or len(paths) < 2:
        previous = gc.get_threshold()
        gc.set_threshold(*_GC_THRESHOLD)
        try:
            return [check_file(path, path_job, project) for path, path_job in zip(paths, path_jobs)]
        finally:
            gc.set_threshold(*previous)
    from concurrent.futures import ProcessPoolExecutor

    # _check_in_worker is a module-level function and every argument pickles: this pool works under spawn
    # (Windows, macOS) as well as under fork.
    chunk = max(1, min(64, len(paths) // (jobs * 8)))
    executor = ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker)
    processes: dict = {}
    try:
        # Workers start inside map(). With SIGINT blocked meanwhile, they inherit the blocked mask
        # (through fork and exec), so a Ctrl-C sent to the whole process group while one is still
        # importing cannot print a traceback from it; this process gets the signal on unblocking.
        with _sigint_blocked():
            outcomes = executor.map(_check_in_worker, paths, path_jobs, chunksize=chunk)
            processes = dict(executor._processes or {})
        results = list(outcomes)
    except BaseException:
        processes.update(getattr(executor, "_processes", None) or {})  # shutdown() sets it to None
        executor.shutdown(wait=False, cancel_futures=True)
        for process in processes.values():
            process.terminate()
        for process in processes.values():
            process.join(timeout=2)  # reap them: no zombie or orphan outlives the command
        raise
    executor.shutdown()
    return results


def _check_cached(paths: list[str], job: Job, jobs: Optional[int], project: Project, walked: frozenset[str],
                  use_cache: bool) -> list[FileResult]:
    """_check_many, answering from the results cache what it can.  With ``--fix``/``--diff`` the cache answers
    the files that have nothing to fix at the requested safety (most of a repository) and those whose fix it
    holds for the same text and request; the others are read, checked and fixed as without it."""
    if not use_cache or not paths:
        return _check_many(paths, job, jobs, project, walked)
    from .io import cache as cache_module, notebook

    cache = cache_module.ResultsCache.open(job.settings)
    hits, todo = [], []
    for path in paths:
        found = cache.lookup(path, need_parsed=path not in walked)
        if found is None:
            todo.append(path)
            continue
        findings, grade = _regraded(path, found, project)
        result = FileResult(path, findings, lines=_source_lines(path) if job.keep_lines and findings else None)
        # A fix run says why each fix it does not make is declined: a finding the plan declined is checked again.
        if job.fixing and (notebook.is_notebook(path) or any(f.safety.applies(job.unsafe_fixes) or _declined(f)
                                                             for f in findings)):
            if notebook.is_notebook(path) or not _fixed_from_cache(cache, path, result, job, project):
                todo.append(path)
            else:
                hits.append(result)
            continue
        if job.fixing and findings:  # what the runner says of a file with nothing to fix
            from .analysis.importers import grade_note

            result.fix_note = grade_note(findings, grade, job.unsafe_fixes)
        hits.append(result)
    checked = _check_many(todo, replace(job, cache=True), jobs, project, walked)
    for result in checked:
        # A file --fix is about to rewrite is not stored: its findings are the old text's.
        if result.error is None and result.source is None:
            cache.store(result.path, result.cache_entry)
        result.cache_entry = None
    cache.save()
    return hits + checked


def _declined(finding: Finding) -> bool:
    """A finding of a fixable rule with no fix here (the check's or the fixer's plan said so)."""
    return finding.rule.fix_safety is not FixSafety.NONE and finding.safety is FixSafety.NONE


def _fixed_from_cache(cache, path: str, result: FileResult, job: Job, project: Project) -> bool:
    """Answer a file with something to fix from what the fixer made of the same text and request before (a
    rerun of ``--diff``; ``--fix`` on a file whose fixes were all declined); False: run the fixer."""
    from .io import cache as cache_module, source as source_module

    try:
        src = source_module.read(path)
    except source_module.SourceError:
        return False
    outcome = cache.lookup_fix(path, cache_module.fix_key(job.unsafe_fixes, result.findings), src.text)
    if outcome is None:
        return False
    apply_outcome(path, src, result, job, False, outcome, project)
    return True


def _regraded(path: str, findings: list[Finding], project: Project):
    """Cached findings with their fixes' safety for this file, which is not cached: it depends on whether other
    files of the project import this one, and on this file's first line (a shebang); and the grade."""
    from .analysis.importers import needs_grade, regrade

    if not needs_grade(findings):
        return findings, None
    try:
        with open(path, "rb") as handle:
            head = handle.read(2).decode("latin-1")
    except OSError:
        head = ""
    return regrade(findings, path, head, project)


def _source_lines(path: str):
    """What a finding is shown in: the file's lines (a notebook's: its cells' lines), or None."""
    from .io import notebook, source as source_module

    try:
        text = source_module.read(path).text
        return notebook.loads(text).cell_lines() if notebook.is_notebook(path) else source_module.split_lines(text)
    except source_module.SourceError:
        return None


class _sigint_blocked:
    """Block SIGINT in this thread for the duration (POSIX); a no-op where signals cannot be masked."""

    def __enter__(self) -> None:
        self.previous = None
        if hasattr(signal, "pthread_sigmask"):
            self.previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})

    def __exit__(self, *exc_info) -> None:
        if self.previous is not None and signal.SIGINT not in self.previous:
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def build_parser() -> argparse.ArgumentParser:
    from .report.formats import FORMATS

    parser = argparse.ArgumentParser(
        prog="winspawn-lint",
        description="Find (and fix) multiprocessing code that breaks under the spawn start method "
        "(Windows, macOS, Linux with Python >= 3.14).",
    )
    parser.add_argument("paths", nargs="*", help="files or directories to check (default: .); '-' reads stdin")
    parser.add_argument("--select", help="comma-separated codes, prefixes or names to enable (replaces the default)")
    parser.add_argument("--extend-select", default="", help="codes to enable in addition (e.g. WSP105,WSP901)")
    parser.add_argument("--ignore", default="", help="codes to disable")
    parser.add_argument("--format", choices=FORMATS, default="text")
    parser.add_argument("--statistics", action="store_true", help="print the count of findings per code")
    parser.add_argument("--fix", action="store_true", help="apply safe fixes in place")
    parser.add_argument("--unsafe-fixes", action="store_true",
                        help="also apply fixes that may change meaning (alone: show them as fixable, as ruff does)")
    parser.add_argument("--show-fixes", action="store_true", help="with --fix, list what was fixed")
    parser.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    parser.add_argument("--exclude", help="comma-separated glob patterns to skip (replaces the defaults)")
    parser.add_argument("--extend-exclude", default="", help="glob patterns to skip in addition")
    parser.add_argument("--force-exclude", action="store_true",
                        help="skip excluded files even when named on the command line (pre-commit passes every file)")
    parser.add_argument("--unresolved-workers", choices=UNRESOLVED_POLICIES,
                        help="whether a worker count that cannot be resolved may be > 0 (default: assume-workers)")
    parser.add_argument("--config", help="pyproject.toml to read instead of the nearest one")
    parser.add_argument("--isolated", action="store_true", help="ignore configuration files")
    parser.add_argument("--stdin-filename", help="the name to report for '-'")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the results cache")
    parser.add_argument("-j", "--jobs", type=int, default=0, help="worker processes (default: CPU count; 1: serial)")
    parser.add_argument("--explain", metavar="CODE", help="print a rule's documentation and exit")
    parser.add_argument("--version", action="version", version=f"winspawn-lint {__version__}")
    return parser


def _split(value: Optional[str]) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def load_settings(ns: argparse.Namespace, paths: list[str]) -> Settings:
    settings = Settings()
    if not ns.isolated:
        config = os.path.abspath(ns.config) if ns.config else None
        if config is None:
            first = next((p for p in paths if p != "-"), ".")
            found = find_config(first if os.path.exists(first) else ".")
            config = str(found) if found else None
        if config:
            if not os.path.isfile(config):
                raise ConfigError(f"{config}: no such file")
            settings = settings_from_mapping(load_config(config), root=os.path.dirname(config))
    select = _split(ns.select) if ns.select else None
    try:
        selection = resolve_selection(select, _split(ns.extend_select), _split(ns.ignore), base=settings.select)
    except ValueError as error:
        raise ConfigError(f"command line: {error}") from None
    changes = {"select": selection}
    if ns.unresolved_workers:
        changes["unresolved_workers"] = ns.unresolved_workers
    if ns.exclude is not None:
        changes["exclude"] = tuple(_split(ns.exclude))
    if ns.extend_exclude:
        changes["extend_exclude"] = (*settings.extend_exclude, *_split(ns.extend_exclude))
    from dataclasses import replace

    return replace(settings, **changes)


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = build_parser()
    ns = parser.parse_args(argv)
    out, err = sys.stdout, sys.stderr
    if ns.explain:
        try:
            codes = sorted(expand([ns.explain]))
        except ValueError as error:
            err.write(f"winspawn-lint: {error}\n")
            return EXIT_ERROR
        out.write("\n\n".join(RULES[code].docs() for code in codes))
        return EXIT_CLEAN
    if ns.jobs < 0:
        parser.error("--jobs must be >= 0")
    paths = ns.paths or ["."]
    try:
        settings = load_settings(ns, paths)
    except ConfigError as error:
        err.write(f"winspawn-lint: configuration error: {error}\n")
        return EXIT_ERROR
    job = Job(settings, fix=ns.fix, diff=ns.diff, unsafe_fixes=ns.unsafe_fixes, keep_lines=ns.format == "grouped")
    try:
        return _run(ns, paths, job, out, err)
    except KeyboardInterrupt:
        err.write("winspawn-lint: interrupted\n")
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # stdout closed early (`| head`): quiet exit, as other command-line tools do.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return EXIT_FINDINGS
    except RuntimeError as error:
        from concurrent.futures.process import BrokenProcessPool

        if not isinstance(error, BrokenProcessPool):
            raise
        err.write("winspawn-lint: a worker process died (killed, or out of memory); "
                  "rerun with -j 1 to find the file\n")
        return EXIT_ERROR


def _run(ns: argparse.Namespace, paths: list[str], job: Job, out, err) -> int:
    from .report import formats

    status = EXIT_CLEAN
    targets: list[str] = []
    walked: set[str] = set()
    results: list[FileResult] = []
    project = Project()  # this run's reader of the project's files (a parallel run's workers have their own)
    from .io.discover import discover

    for path, explicit in discover(paths, job.settings):
        if path == "-":
            data = sys.stdin.buffer.read()
            results.append(check_file("-", job, project, stdin_data=data, display=ns.stdin_filename or "-"))
        elif explicit and ns.force_exclude and job.settings.is_excluded(path):
            continue
        elif explicit and not os.path.exists(path):
            err.write(f"{path}: error: no such file or directory\n")
            status = EXIT_ERROR
        else:
            targets.append(path)
            if not explicit:
                walked.add(path)
    results.extend(_check_cached(targets, job, ns.jobs or None, project, frozenset(walked), not ns.no_cache))
    results.sort(key=lambda r: r.path)
    # Every file was checked and fixed against the files as they were: only now is anything rewritten.
    for result in results:
        write(result)

    rows: list[tuple[str, Finding]] = []
    sources: dict[str, list[str]] = {}
    fixed_files = 0
    for result in results:
        if result.error:
            err.write(f"{result.path}: error: {result.error}\n")
            status = EXIT_ERROR
        if result.fix_note:
            err.write(f"{result.path}: note: {result.fix_note}\n")
        if result.fixed_text is not None:
            if ns.diff:
                _write_diff(result, out)
            if result.written or ns.diff:
                fixed_files += 1
        for finding in result.findings:
            rows.append((result.path, finding))
        if result.lines is not None:
            sources[result.path] = result.lines
    if not ns.diff or rows:
        if ns.diff and ns.format == "text":
            stream = err  # keep the diff on stdout clean for `patch`/`git apply`
        else:
            stream = out
        if rows or ns.format in ("json", "sarif"):
            formats.FORMATTERS[ns.format](rows, stream, sources=sources, unsafe=ns.unsafe_fixes, root=os.getcwd())
    if ns.statistics:
        formats.statistics(rows, out if not ns.diff else err)
    if ns.format in ("text", "grouped"):
        stream = err if ns.diff else out
        if ns.show_fixes and ns.fix and not ns.diff:
            formats.show_fixes([(r.path, f) for r in results if r.written for f in r.fixed], stream)
        fixed = [f for r in results if r.fixed_text is not None and (r.written or ns.diff) for f in r.fixed]
        formats.summary(rows, len(fixed), stream, fix=ns.fix, diff=ns.diff, unsafe=ns.unsafe_fixes)
    if ns.fix and fixed_files and not ns.diff:
        err.write(f"winspawn-lint: rewrote {fixed_files} file{'s' if fixed_files != 1 else ''}\n")
    if status == EXIT_ERROR:
        return EXIT_ERROR
    if rows or fixed_files:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _write_diff(result: FileResult, out) -> None:
    if result.diff_lines is not None:
        out.writelines(result.diff_lines)
        return
    before = split_rows(result.original_text or "")
    after = split_rows(result.fixed_text or "")
    out.writelines(difflib.unified_diff(before, after, fromfile=result.path, tofile=result.path))
    if after and not after[-1].endswith(("\n", "\r")):
        out.write("\n\\ No newline at end of file\n")


if __name__ == "__main__":
    sys.exit(main())
