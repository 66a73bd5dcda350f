"""The ``winspawn-lint`` command: check (and with ``--fix``, rewrite; with ``--add-noqa``, annotate) files;
``winspawn-lint server`` starts the language server (:mod:`.server`).

Exit status: 0 clean; 1 findings remain or files were rewritten (the
pre-commit contract; ``--exit-zero`` makes both 0); 2 usage error, bad
configuration, or a file that could not be read or parsed (every other file is
still checked).  ``--watch`` repeats the run on every change, ``--show-settings``
says what applies to a file.
"""

from __future__ import annotations

import argparse
import difflib
import io
import json
import os
import signal
import sys
from collections import deque
from typing import TYPE_CHECKING, Optional, Sequence, TextIO

from .__version__ import __version__
from .analysis.project import Project
from .finding import Finding
from .rules import RULES, FixSafety, expand
from .io.source import split_rows
from .runner import FileResult, Job, apply_outcome, check_file, one_run, write
from .settings import (ConfigError, Settings, UNRESOLVED_POLICIES, find_config, load_config, resolve_selection,
                       settings_from_mapping)

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR, EXIT_INTERRUPTED = 0, 1, 2, 130
PARALLEL_THRESHOLD = 64  # with no -j, fewer files than this are checked serially: workers would cost more


def _ignore_sigint() -> None:
    # The parent owns Ctrl-C; workers stop when it shuts the pool down.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


#: A parallel run's worker: its reader of the project, made with its first file (see _check_in_worker).
_WORKER_PROJECT: Optional[Project] = None
#: ... and the run's jobs (for files named on the command line, for files found by walking a directory), given
#: once when it starts: a job sent with each chunk of files would arrive as new objects, and the facts its reader
#: keeps are keyed by the job's registry of worker APIs, so each chunk found them all again (own source, -j 2:
#: 8x the CPU of -j 1).
_WORKER_JOBS: Optional[tuple[Job, Job]] = None


def _start_worker(jobs: tuple[Job, Job]) -> None:
    global _WORKER_JOBS
    _ignore_sigint()
    _WORKER_JOBS = jobs
    one_run().__enter__()  # (the worker's files are one run's until the pool ends the process)


def _check_in_worker(paths: list[str], walked: list[bool]) -> tuple[list[FileResult], Optional[dict]]:
    """The results of *paths*, and (in a run with the results cache) what the worker's project search read since
    its last chunk, for the parent to keep in the cache's scan memory."""
    global _WORKER_PROJECT
    assert _WORKER_JOBS is not None, "the pool's initializer gives the jobs"
    if _WORKER_PROJECT is None:  # the worker's first files: its reader of the project, for the rest of the run
        _WORKER_PROJECT = Project(_WORKER_JOBS[0].settings.registry, snapshot=True)
        if _WORKER_JOBS[0].cache:
            from .io.cache import ScanMemory

            _WORKER_PROJECT.scan_memory = ScanMemory.recorder()
    _WORKER_PROJECT.expect(paths)
    results = [_patched(check_file(path, _WORKER_JOBS[found], _WORKER_PROJECT), _WORKER_JOBS[found])
               for path, found in zip(paths, walked)]
    memory = _WORKER_PROJECT.scan_memory
    read = None
    if memory is not None and memory.changed:
        read, memory.changed = memory.changed, {}
    return results, read


def _patched(result: FileResult, job: Job) -> FileResult:
    """*result* as ``--diff`` reports it: the patch of a file the fix changed, made as soon as the file is done, in
    place of the two texts (a run over diffusers kept 32 MB of them until it printed the patches)."""
    if job.diff and result.fixed_text is not None and result.diff_lines is None:
        rows = split_rows(result.fixed_text)
        patch = "".join(difflib.unified_diff(split_rows(result.original_text or ""), rows, fromfile=result.path,
                                             tofile=result.path))
        if rows and not rows[-1].endswith(("\n", "\r")):
            patch += "\n\\ No newline at end of file\n"
        result.diff_lines, result.original_text, result.fixed_text = [patch], None, None
    return result


def _check_many(paths: list[str], job: Job, jobs: Optional[int], project: Project,
                walked: frozenset[str] = frozenset()) -> list[FileResult]:
    """Check files in order (*jobs*: worker processes; None: one per CPU, when there are enough files to pay
    for them); those in *walked* were found by walking a directory (see Job.report_unparsable)."""
    walk_job = job.replace(report_unparsable=False)
    if jobs is None:
        jobs = (os.cpu_count() or 1) if len(paths) >= PARALLEL_THRESHOLD else 1
    if jobs == 1 or len(paths) < 2:
        project.expect(paths)
        with one_run():
            return [_patched(check_file(path, walk_job if path in walked else job, project), job) for path in paths]
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

    # _check_in_worker is a module-level function and every argument pickles: this pool works under spawn
    # (Windows, macOS) as well as under fork.
    executor = ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker, initargs=((job, walk_job),))
    regions = _regions(len(paths), jobs)
    results: list = [None] * len(paths)  # (each index is in one chunk: every one is filled)
    pending: dict = {}  # future -> (the region of the worker that is expected to take it, the files' indices)
    processes: dict = {}

    def send(home: int) -> None:
        # The next chunk of *home*; when it has none left, the far end of the region with the most left.
        region = home if regions[home] else max(range(jobs), key=lambda r: len(regions[r]))
        if regions[region]:
            chunk = regions[region].popleft() if region == home else regions[region].pop()
            future = executor.submit(_check_in_worker, [paths[i] for i in chunk], [paths[i] in walked for i in chunk])
            pending[future] = (home, chunk)

    try:
        # Workers start in the first submit()s. With SIGINT blocked meanwhile, they inherit the blocked mask
        # (through fork and exec), so a Ctrl-C sent to the whole process group while one is still
        # importing cannot print a traceback from it; this process gets the signal on unblocking.
        with _sigint_blocked():
            for home in range(jobs):
                send(home)
            processes = dict(executor._processes or {})
        # One chunk per worker in flight: the worker that returns one is the idle one, and takes the next chunk
        # of its region (rarely another, when two return at once: which worker checks a file never changes its
        # findings, only how much of the project that worker has read already).
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in done:
                home, chunk = pending.pop(future)
                checked, searched = future.result()
                for index, result in zip(chunk, checked):
                    results[index] = result
                if searched and project.scan_memory is not None:
                    project.scan_memory.adopt(searched)
                send(home)
    except BaseException:
        _abandon(executor, processes)
        raise
    executor.shutdown()
    return results


def _regions(count: int, jobs: int) -> list[deque[range]]:
    """*count* files (in walk order, where neighbours share the modules they import) cut into one contiguous
    region per worker, each a queue of small chunks.  A worker's reader of the project keeps the facts it found
    for the files it checked, so the less of the tree a worker sees, the less it finds again what another found
    (with chunks dealt in turn from the whole list, each of two workers read most of the project: -j 2 took the
    wall time of -j 1 at twice its CPU on the benchmark's ML repositories).  A worker whose region is done takes
    chunks from the far end of the one with the most left (without that, the region of the cheap files ended
    first and the run took 1.33x the wall time of chunks dealt in turn; with it, 0.86x, at 0.85x the CPU)."""
    size = max(1, min(32, count // (jobs * 16)))
    bounds = [count * i // jobs for i in range(jobs + 1)]
    return [deque(range(start, min(start + size, end)) for start in range(begin, end, size))
            for begin, end in zip(bounds, bounds[1:])]


def _abandon(executor: ProcessPoolExecutor, processes: dict) -> None:
    """Stop *executor* at once (Ctrl-C, or a worker died): its workers, from *processes* as well, are terminated
    and reaped, and none of its threads keeps the interpreter from exiting."""
    processes.update(getattr(executor, "_processes", None) or {})  # shutdown() sets it to None
    manager = getattr(executor, "_executor_manager_thread", None)  # and these two
    results_pipe = getattr(getattr(executor, "_result_queue", None), "_writer", None)
    if manager is not None:
        _skip_cancelled_when_broken(manager)
    executor.shutdown(wait=False, cancel_futures=True)
    for process in processes.values():
        process.terminate()
    for process in processes.values():
        process.join(timeout=2)  # reap them: no zombie or orphan outlives the command
    # A worker terminated in the middle of sending its results leaves the pool's manager thread reading the
    # rest of that message for ever (this process holds the pipe's other end too), and the interpreter waits
    # for that thread at exit.  Closing our end, now that no worker is left to write, ends the read.
    if results_pipe is not None and manager is not None and manager.is_alive():
        results_pipe.close()
    # The pool's manager thread closes its wake-up pipe as it ends, and the interpreter's exit hook writes to
    # that pipe to wake it: if the two meet, CPython < 3.12 prints "Exception ignored ... Bad file descriptor"
    # after "interrupted" (fixed with a lock in 3.12, gh-125451).  With its workers gone the thread ends by
    # itself, so wait for it briefly and take it off the hook's list in case a loaded machine is slower.
    if manager is not None:
        manager.join(timeout=2)
        from concurrent.futures import process as pool_module

        getattr(pool_module, "_threads_wakeups", {}).pop(manager, None)


def _skip_cancelled_when_broken(manager) -> None:
    """Terminating the workers breaks the pool, and its manager thread then fails every pending future.  Those
    that ``map`` cancelled on the way out of Ctrl-C are among them unless the thread happened to drop them first,
    and on CPython < 3.12 failing a cancelled future raises in that thread: "Exception in thread ...
    InvalidStateError: CANCELLED" after "interrupted" (CI, now and then; gh-107219, fixed in 3.12 by ignoring
    the error).  Here the thread drops the cancelled ones itself before failing the rest."""
    if sys.version_info >= (3, 12) or not hasattr(manager, "pending_work_items"):
        return
    fail_pending = manager.terminate_broken

    def terminate_broken(cause):
        # Run by the manager thread, the only one that changes the table once the pool is shut down.
        manager.pending_work_items = {work_id: item for work_id, item in manager.pending_work_items.items()
                                      if not item.future.cancelled()}
        fail_pending(cause)

    manager.terminate_broken = terminate_broken


def _check_cached(paths: list[str], job: Job, jobs: Optional[int], project: Project, walked: frozenset[str],
                  use_cache: bool, roots: list[str]) -> list[FileResult]:
    """_check_many, answering from the results cache what it can.  With ``--fix``/``--diff`` the cache answers
    the files that have nothing to fix at the requested safety (most of a repository) and those whose fix it
    holds for the same text and request; the others are read, checked and fixed as without it.  *roots*: the
    paths the command was given, which its record of a run is kept under."""
    if not use_cache or not paths:
        return _check_many(paths, job, jobs, project, walked)
    from .io import cache as cache_module, notebook

    cache = cache_module.ResultsCache.open(job.settings, project.derived_holds)
    project.scan_memory = cache.scans
    # A check (no fix, no noqa to add) first asks the record of the same run: when nothing it depends on changed,
    # its findings are the answer, and no entry, shard or project search is read (a warm rerun of a tree).
    absolute = [os.path.abspath(path) for path in paths]
    key = None if job.fixing or job.add_noqa else cache_module.run_key(
        [os.path.abspath(root) for root in roots], [job.unsafe_fixes, job.plan_fixes])
    # After an edit, the files whose findings did not depend on what changed are answered from the record too,
    # and only the others are looked up (after an edit of a module 107 files import, 1 of 315 on timm).
    recall = cache.recall_run(key, frozenset(absolute)) if key is not None else None
    inputs = cache_module.RunInputs(project.same_derived) if key is not None else None
    hits, todo = [], []
    if recall is not None and inputs is not None:
        recalled = recall.found
        hits = [FileResult(path, recalled.get(full, []), lines=_source_lines(path) if job.keep_lines
                           and full in recalled else None) for path, full in zip(paths, absolute)
                if full in recall.recalled]
        rest = [path for path, full in zip(paths, absolute) if full not in recall.recalled]
        if recall.whole:  # (the files of the run to check again each time: they had an error)
            return hits + _check_and_store(rest, job, jobs, project, walked, cache)
        recall.carry(inputs)
        paths = rest
    for path in paths:
        found = cache.lookup(path, need_parsed=path not in walked)
        if found is None or (job.add_noqa and found):  # --add-noqa edits the files with findings
            todo.append(path)
            continue
        findings, grade, reads = _regraded(path, found, project)
        if inputs is not None:
            inputs.add(path, cache.valid.get(os.path.abspath(path)), findings, reads)
        result = FileResult(path, findings, lines=_source_lines(path) if job.keep_lines and findings else None)
        # A fix run says why each fix it does not make is declined: a finding the plan declined is checked again.
        if job.fixing and (notebook.is_notebook(path) or any(f.safety.applies(job.unsafe_fixes) or _declined(f)
                                                             for f in findings)):
            if notebook.is_notebook(path) or not _fixed_from_cache(cache, path, result, job, project):
                todo.append(path)
            else:
                hits.append(_patched(result, job))
            continue
        if job.fixing and findings:  # what the runner says of a file with nothing to fix
            from .analysis.importers import grade_note

            result.fix_note = grade_note(findings, grade, job.unsafe_fixes)
        hits.append(result)
    return hits + _check_and_store(todo, job, jobs, project, walked, cache, inputs, key)


def _check_and_store(paths: list[str], job: Job, jobs: Optional[int], project: Project, walked: frozenset[str],
                     cache, inputs=None, key: Optional[str] = None) -> list[FileResult]:
    """_check_many, each result kept in the results *cache* (and, with *inputs*, what the run's other files
    gave: the run's record, under *key*, when complete), which is then saved."""
    checked = _check_many(paths, job.replace(cache=True), jobs, project, walked)
    again = []
    for result in checked:
        # A file --fix is about to rewrite is not stored: its findings are the old text's.
        if result.error is None and result.source is None:
            cache.store(result.path, result.cache_entry)
        if inputs is not None:
            if result.error is None:
                inputs.add(result.path, result.cache_entry, result.findings)
            else:
                again.append(os.path.abspath(result.path))
        result.cache_entry = None
    if inputs is not None and key is not None and inputs.complete:
        inputs.confirm(project.derived_holds)  # (a parallel run's workers searched the projects, this process did not)
        inputs.search(project.search_inputs(inputs.unproven()))
        cache.keep_run(key, inputs, again)
    cache.save()
    return checked


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
    files of the project import this one, and on this file's first line (a shebang); the grade; and what the
    project reader read for it (None when nothing was graded)."""
    from .analysis.importers import needs_grade, regrade

    if not needs_grade(findings):
        return findings, None, None
    try:
        with open(path, "rb") as handle:
            head = handle.read(2).decode("latin-1")
    except OSError:
        head = ""
    with project.reading() as reads:
        regraded, grade = regrade(findings, path, head, project)
    return regraded, grade, reads


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


EPILOG = """\
exit status:
  0    no findings (and, with --fix, nothing rewritten); with --exit-zero, also when there are
  1    findings remain, --fix rewrote a file (the pre-commit contract: review the change), or
       --add-noqa could not silence a finding
  2    usage or configuration error, or a file that could not be read or parsed (the others are
       still checked; each failure is one line on stderr)
  130  interrupted (Ctrl-C)

examples:
  winspawn-lint                                 check every Python file and notebook under .
  winspawn-lint src/ scripts/train.py           files and directories
  winspawn-lint --diff train.py                 show the fixes as a unified diff, write nothing
  winspawn-lint --fix --unsafe-fixes train.py   apply the safe and the unsafe fixes
  winspawn-lint --output-format json -o report.json
  winspawn-lint --add-noqa .                    silence today's findings to adopt the tool on a large repository
  winspawn-lint --show-settings src/train.py    which configuration file and which rules apply to a file
  winspawn-lint --watch src/                    check again whenever a file changes
  winspawn-lint --explain WSP201                a rule's documentation

documentation: https://github.com/winspawn-lint/winspawn-lint/blob/main/docs/usage.md
"""


def build_parser() -> argparse.ArgumentParser:
    from .report.formats import FORMATS

    parser = argparse.ArgumentParser(
        prog="winspawn-lint",
        description="Find (and fix) multiprocessing code that breaks under the spawn start method "
        "(Windows, macOS, Linux with Python >= 3.14).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="files or directories to check (default: .); '-' reads the source from stdin")
    rules = parser.add_argument_group("rule selection")
    rules.add_argument("--select", metavar="CODES",
                       help="comma-separated codes, prefixes (WSP2) or rule names to enable; replaces the default "
                       "selection (ALL: every rule)")
    rules.add_argument("--extend-select", metavar="CODES", default="",
                       help="codes to enable in addition to the selection (e.g. the opt-in WSP105,WSP901)")
    rules.add_argument("--ignore", metavar="CODES", default="", help="codes to disable")
    rules.add_argument("--unresolved-workers", choices=UNRESOLVED_POLICIES,
                       help="whether a worker count that cannot be resolved may be > 0 (default: assume-workers)")
    files = parser.add_argument_group("file selection")
    files.add_argument("--exclude", metavar="PATTERNS",
                       help="comma-separated glob patterns to skip (replaces the default excludes)")
    files.add_argument("--extend-exclude", metavar="PATTERNS", default="",
                       help="glob patterns to skip in addition to the excludes")
    files.add_argument("--force-exclude", action="store_true",
                       help="apply the excludes to files named on the command line too (pre-commit names each file)")
    files.add_argument("--respect-gitignore", action=argparse.BooleanOptionalAction, default=None,
                       help="skip what git ignores (.gitignore files, .git/info/exclude, the global excludes file) "
                       "when walking a directory (default: on)")
    files.add_argument("--stdin-filename", metavar="NAME", help="the file name to report for '-'")
    fixes = parser.add_argument_group("fixes")
    fixes.add_argument("--fix", action="store_true", help="apply the safe fixes in place")
    fixes.add_argument("--unsafe-fixes", action=argparse.BooleanOptionalAction, default=None,
                       help="also apply fixes that may change meaning (alone: show them as fixable, as ruff does); "
                       "overrides `unsafe-fixes` in the configuration")
    fixes.add_argument("--diff", action="store_true",
                       help="print the fixes as a unified diff on stdout and write nothing")
    fixes.add_argument("--show-fixes", action="store_true", help="with --fix, list what was fixed")
    fixes.add_argument("--add-noqa", action="store_true",
                       help="add a `# noqa: CODES` comment that silences each finding (merged into an existing "
                       "`# noqa`), on the line flake8 reads it from; nothing else is printed")
    output = parser.add_argument_group("output")
    output.add_argument("--output-format", "--format", dest="output_format", choices=FORMATS, default="text",
                        metavar="FORMAT",
                        help="text (default: path:line:col: CODE message), grouped (per file, with the source "
                        "line), json, github (GitHub Actions annotations), sarif (code scanning); --format is "
                        "an alias")
    output.add_argument("-o", "--output-file", metavar="FILE",
                        help="write the report (findings, statistics, summary) to FILE instead of stdout")
    output.add_argument("--statistics", action="store_true",
                        help="count the findings per code: a table after the findings; with json, the counts "
                        "instead of the findings; with sarif, in the run's properties")
    output.add_argument("--exit-zero", action="store_true",
                        help="exit with status 0 even when findings remain or files were rewritten (errors still "
                        "exit 2)")
    levels = output.add_mutually_exclusive_group()
    levels.add_argument("-q", "--quiet", action="store_true",
                        help="print the findings only: no summary, no fix notes")
    levels.add_argument("-s", "--silent", action="store_true",
                        help="print nothing on stdout (-o still writes its file; errors still go to stderr); the "
                        "exit status says what was found")
    other = parser.add_argument_group("configuration and running")
    other.add_argument("--config", metavar="FILE", help="the pyproject.toml to read instead of the nearest one")
    other.add_argument("--isolated", action="store_true", help="ignore configuration files")
    other.add_argument("--show-settings", action="store_true",
                       help="print the configuration file and the settings that apply to the first file to check, "
                       "and exit")
    other.add_argument("--watch", action="store_true",
                       help="check again whenever a checked file or the configuration changes (Ctrl-C to stop)")
    other.add_argument("--no-cache", action="store_true", help="neither read nor write the results cache")
    other.add_argument("-j", "--jobs", type=int, default=0, metavar="N",
                       help="worker processes (default: the number of CPUs for large trees; 1: serial)")
    other.add_argument("--explain", metavar="CODE", help="print a rule's documentation and exit")
    other.add_argument("--version", action="version", version=f"winspawn-lint {__version__}")
    return parser


def _split(value: Optional[str]) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def config_path(ns: argparse.Namespace, paths: list[str]) -> Optional[str]:
    """The configuration file this run reads: ``--config``, or the nearest ``pyproject.toml`` with a
    ``[tool.winspawn-lint]`` table above the first path (None: the defaults)."""
    if ns.isolated:
        return None
    if ns.config:
        config = os.path.abspath(ns.config)
        if os.path.isdir(config):
            # As ruff: --config names a file.  Say which one was probably meant.
            inside = os.path.join(ns.config, "pyproject.toml")
            hint = f"; did you mean --config {inside}?" if os.path.isfile(inside) else ""
            raise ConfigError(f"--config {ns.config}: is a directory, not a configuration file{hint}")
        if not os.path.isfile(config):
            raise ConfigError(f"--config {ns.config}: no such file")
        return config
    first = next((p for p in paths if p != "-"), ".")
    found = find_config(first if os.path.exists(first) else ".")
    return str(found) if found else None


def load_settings(ns: argparse.Namespace, paths: list[str]) -> Settings:
    settings = Settings()
    config = config_path(ns, paths)
    if config:
        where = f"{_shown(config)}: [tool.winspawn-lint]"
        settings = settings_from_mapping(load_config(config), where=where, root=os.path.dirname(config))
    select = _split(ns.select) if ns.select else None
    try:
        selection = resolve_selection(select, _split(ns.extend_select), _split(ns.ignore), base=settings.select)
    except ValueError as error:
        raise ConfigError(f"command line: {error}") from None
    changes: dict = {"select": selection}
    if ns.unresolved_workers:
        changes["unresolved_workers"] = ns.unresolved_workers
    if ns.exclude is not None:
        changes["exclude"] = tuple(_split(ns.exclude))
    if ns.extend_exclude:
        changes["extend_exclude"] = (*settings.extend_exclude, *_split(ns.extend_exclude))
    if ns.unsafe_fixes is not None:
        changes["unsafe_fixes"] = ns.unsafe_fixes
    if ns.respect_gitignore is not None:
        changes["respect_gitignore"] = ns.respect_gitignore
    return settings.replace(**changes)


def _shown(path: str) -> str:
    """*path* as a message shows it: relative to the current directory when it is below it."""
    relative = os.path.relpath(path)
    return path if relative.startswith(os.pardir) else relative


def entry() -> None:
    """The ``winspawn-lint`` command and ``python -m winspawn_lint``: :func:`main`, then, in a run that started no
    worker processes, the process ends without tearing the interpreter down.  A serial run keeps the project's
    parsed modules and their facts to its end, and freeing them object by object at exit took 0.67 s of the
    5.85 s of CPU of a cold ``-j 1`` check of pytorch-image-models (medians of 5, side by side).  By then
    everything is written: the report (an output file is closed by :func:`_run`), the cache and the fixed files
    (each replaced atomically); stdout and stderr are flushed here.  A run that started workers leaves the
    ordinary way: under spawn and forkserver the pool's semaphores are named, and only multiprocessing's exit
    handlers unlink them (``concurrent.futures.process`` is imported only where a pool is started).  So do
    Ctrl-C, an exception, a usage error (argparse's own exit) and the language server."""
    status = main()
    if status == EXIT_INTERRUPTED or sys.argv[1:2] == ["server"] or "concurrent.futures.process" in sys.modules:
        sys.exit(status)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except OSError:
        sys.exit(status)  # (a closed pipe: the ordinary exit says so as it would have)
    os._exit(status)


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["server"]:  # `winspawn-lint server`, as `ruff server` (a path named server: ./server)
        from .server import main as serve

        return serve(args[1:])
    parser = build_parser()
    ns = parser.parse_args(args)
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
    if ns.add_noqa and (ns.fix or ns.diff or ns.watch):
        parser.error("--add-noqa cannot be combined with --fix, --diff or --watch")
    if (ns.add_noqa or ns.watch) and "-" in paths:
        parser.error(f"{'--add-noqa' if ns.add_noqa else '--watch'} needs files, not stdin ('-')")
    try:
        settings = load_settings(ns, paths)
    except ConfigError as error:
        err.write(f"winspawn-lint: configuration error: {error}\n")
        return EXIT_ERROR
    if ns.show_settings:
        return _show_settings(ns, paths, settings, out)
    try:
        if ns.watch:
            return _watch(ns, paths, settings, err)
        return _run(ns, paths, settings, err)
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


def _job(ns: argparse.Namespace, settings: Settings) -> Job:
    return Job(settings, fix=ns.fix, diff=ns.diff, unsafe_fixes=settings.unsafe_fixes,
               keep_lines=ns.output_format == "grouped", add_noqa=ns.add_noqa)


def _run(ns: argparse.Namespace, paths: list[str], settings: Settings, err) -> int:
    """One check (fix, diff, add-noqa) of *paths*, reported; the exit status."""
    results, status = _check(ns, paths, _job(ns, settings), err)
    if ns.output_file:
        try:
            report = _open_output(ns.output_file)
        except OSError as error:
            err.write(f"winspawn-lint: cannot write {ns.output_file}: {error.strerror or error}\n")
            return EXIT_ERROR
        with report:
            status = _report(ns, results, status, report, err, settings.unsafe_fixes)
    else:
        status = _report(ns, results, status, None, err, settings.unsafe_fixes)
    if ns.exit_zero and status == EXIT_FINDINGS:
        return EXIT_CLEAN
    return status


def _open_output(path: str):
    directory = os.path.dirname(os.path.abspath(path))
    os.makedirs(directory, exist_ok=True)  # as ruff: -o reports/lint.json creates reports/
    return open(path, "w", encoding="utf-8", newline="")


def _check(ns: argparse.Namespace, paths: list[str], job: Job, err) -> tuple[list[FileResult], int]:
    """Check every file (and, with --fix, write the fixed ones); the results and EXIT_ERROR when a path named
    on the command line does not exist."""
    status = EXIT_CLEAN
    targets: list[str] = []
    walked: set[str] = set()
    results: list[FileResult] = []
    # this run's reader of the project's files (a parallel run's workers have their own)
    project = Project(job.settings.registry, snapshot=True)
    from .io.discover import discover

    for path, explicit in discover(paths, job.settings):
        if path == "-":
            data = sys.stdin.buffer.read()
            display = ns.stdin_filename or "-"
            results.append(_patched(check_file("-", job, project, stdin_data=data, display=display), job))
        elif explicit and ns.force_exclude and job.settings.is_excluded(path):
            continue
        elif explicit and not os.path.exists(path):
            err.write(f"{path}: error: no such file or directory\n")
            status = EXIT_ERROR
        else:
            targets.append(path)
            if not explicit:
                walked.add(path)
    results.extend(_check_cached(targets, job, ns.jobs or None, project, frozenset(walked), not ns.no_cache,
                                 [path for path in paths if path != "-"]))
    results.sort(key=lambda r: r.path)
    # Every file was checked and fixed against the files as they were: only now is anything rewritten.
    for result in results:
        write(result)
    return results, status


def _report(ns: argparse.Namespace, results: list[FileResult], status: int, report: Optional[TextIO], err,
            unsafe: bool) -> int:
    """Print what the run found and did (*unsafe*: whether unsafe fixes apply); the exit status.

    The report (findings in the chosen format, statistics, summary) goes to *report* (``-o``), else to stdout;
    with ``--diff`` stdout holds the patch and the report goes to stderr.  ``-q`` keeps the findings only,
    ``-s`` prints nothing on stdout."""
    from .report import formats

    out = sys.stdout
    # A JSON or SARIF report is written even when empty (a document to parse), except on stderr beside a patch.
    documents = report is not None or not ns.diff
    if report is None:
        report = err if ns.diff else (io.StringIO() if ns.silent else out)
    notes = err if not (ns.quiet or ns.silent) else None
    rows: list[tuple[str, Finding]] = []
    sources: dict[str, list[str]] = {}
    fixed_files = noqa_added = noqa_missed = 0
    for result in results:
        if result.error:
            err.write(f"{result.path}: error: {result.error}\n")
            status = EXIT_ERROR
        if result.fix_note and notes:
            notes.write(f"{result.path}: note: {result.fix_note}\n")
        noqa_added += result.noqa_added if result.written else 0
        noqa_missed += result.noqa_missed
        if result.changed and not ns.add_noqa:
            if ns.diff and not ns.silent:
                out.writelines(result.diff_lines or ())
            if result.written or ns.diff:
                fixed_files += 1
        for finding in result.findings:
            rows.append((result.path, finding))
        if result.lines is not None:
            sources[result.path] = result.lines
    if ns.add_noqa:
        return _report_noqa(noqa_added, noqa_missed, status, notes)
    fmt = ns.output_format
    if fmt == "json" and ns.statistics:
        formats.statistics_json(rows, report, unsafe=unsafe)
    elif rows or (fmt in ("json", "sarif") and documents):
        formats.FORMATTERS[fmt](rows, report, sources=sources, unsafe=unsafe, root=os.getcwd(),
                                with_statistics=ns.statistics)
    if ns.statistics and fmt not in ("json", "sarif"):
        formats.statistics(rows, report)
    if fmt in ("text", "grouped") and not (ns.quiet or ns.silent):
        if ns.show_fixes and ns.fix and not ns.diff:
            formats.show_fixes([(r.path, f) for r in results if r.written for f in r.fixed], report)
        fixed = [f for r in results if r.changed and (r.written or ns.diff) for f in r.fixed]
        formats.summary(rows, len(fixed), report, fix=ns.fix, diff=ns.diff, unsafe=unsafe)
    if ns.fix and fixed_files and not ns.diff and notes:
        notes.write(f"winspawn-lint: rewrote {fixed_files} file{'s' if fixed_files != 1 else ''}\n")
    if status == EXIT_ERROR:
        return EXIT_ERROR
    if rows or fixed_files:
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _report_noqa(added: int, missed: int, status: int, notes) -> int:
    """``--add-noqa``'s report, as ruff words it; exit 0 (the findings are silenced), 2 after an error, 1 when
    some finding could not be silenced."""
    if notes:
        notes.write(f"Added {added} noqa directive{'s' if added != 1 else ''}.\n")
        if missed:
            notes.write(f"{missed} finding{'s' if missed != 1 else ''} could not be silenced (the notes above say "
                        "why)\n")
    if status == EXIT_ERROR:
        return EXIT_ERROR
    return EXIT_FINDINGS if missed else EXIT_CLEAN


# -- --show-settings ----------------------------------------------------------------------------------
def _show_settings(ns: argparse.Namespace, paths: list[str], settings: Settings, out) -> int:
    """Which configuration file and which settings apply to the first file to check (ruff's --show-settings)."""
    from .io.discover import discover

    first = next((path for path, _ in discover(paths, settings) if path != "-"), None)
    path = first or next((p for p in paths if p != "-"), ".")
    config = config_path(ns, paths)
    enabled = settings.enabled_for(path)
    lines = [f"Resolved settings for: {json.dumps(path)}",
             f"Settings path: {json.dumps(config) if config else 'none (the defaults)'}"]
    skipped = _walk_skips(path, settings)
    if skipped:
        lines.append(f"Note: a directory walk skips this file ({skipped}); named on the command line it is checked")
    lines.append("")
    lines.append("rules = [")
    lines.extend(f"    {json.dumps(code)},  # {RULES[code].name}" for code in sorted(enabled))
    lines.append("]")
    dropped = sorted(settings.select - enabled)
    if dropped:
        lines.append(f"per-file-ignores-applied = {json.dumps(dropped)}")
    lines += [
        f"unresolved-workers = {json.dumps(settings.unresolved_workers)}",
        f"target-platforms = {json.dumps(list(settings.target_platforms))}",
        "target-version = " + (json.dumps(f"py3{settings.target_version[1]}") if settings.target_version
                               else "none"),
        f"exclude = {json.dumps(list(settings.exclude))}",
        f"extend-exclude = {json.dumps(list(settings.extend_exclude))}",
        "per-file-ignores = {" + ", ".join(f"{json.dumps(pattern)} = {json.dumps(sorted(codes))}"
                                           for pattern, codes in settings.per_file_ignores) + "}",
        f"respect-gitignore = {json.dumps(settings.respect_gitignore)}",
        f"spawn-api = {json.dumps([api.names[0] for api in settings.extra_apis])}",
        f"unpicklable = {json.dumps([name for name, _ in settings.extra_unpicklable])}",
        f"unsafe-fixes = {json.dumps(settings.unsafe_fixes)}",
        f"cache-dir = {json.dumps(_cache_dir(settings))}",
    ]
    out.write("\n".join(lines) + "\n")
    return EXIT_CLEAN


def _walk_skips(path: str, settings: Settings) -> Optional[str]:
    """Why a directory walk would not check *path*, or None."""
    from .io import gitignore

    if settings.is_excluded(path):
        return "it matches exclude or extend-exclude"
    if settings.respect_gitignore:
        repository = gitignore.find_repository(os.path.dirname(os.path.abspath(path)))
        if repository is not None and repository.ignored_path(os.path.abspath(path)):
            return "git ignores it"
    return None


def _cache_dir(settings: Settings) -> str:
    from .io.cache import cache_directory

    return cache_directory(settings)


# -- --watch ------------------------------------------------------------------------------------------
WATCH_POLL_SECONDS = 0.5


def _watch(ns: argparse.Namespace, paths: list[str], settings: Settings, err) -> int:
    """Check, then check again whenever a file the run checked, a directory it walked (a file added or
    removed), a ``.gitignore`` there or the configuration file changes, until Ctrl-C.  Polls with ``os.stat``
    (no dependency): the tree is walked once per check, and each poll stats what that walk found."""
    import time

    err.write("winspawn-lint: watching for changes (Ctrl-C to stop)\n")
    while True:  # until Ctrl-C: every turn is one check and a poll of a fixed list of files
        watched = _watched(paths, settings, ns)
        before = _stamps(watched)
        _run(ns, paths, settings, err)
        sys.stdout.flush()
        err.flush()
        while _stamps(watched) == before:
            time.sleep(WATCH_POLL_SECONDS)
        err.write(f"winspawn-lint: {time.strftime('%H:%M:%S')} change detected, checking again\n")
        try:
            settings = load_settings(ns, paths)
        except ConfigError as error:  # keep watching with the last good configuration
            err.write(f"winspawn-lint: configuration error: {error}\n")


def _watched(paths: list[str], settings: Settings, ns: argparse.Namespace) -> list[str]:
    """What a check reads to decide what to check and what it finds: the files, the walked directories, their
    ``.gitignore`` files, the configuration file."""
    from .io.discover import discover

    watched: list[str] = []
    files = [path for path, _ in discover(paths, settings, watched=watched)]
    try:
        config = config_path(ns, paths)
    except ConfigError:
        config = None
    return [*files, *watched, *([config] if config else [])]


def _stamps(paths: list[str]) -> list[Optional[tuple[int, int]]]:
    stamps: list[Optional[tuple[int, int]]] = []
    for path in paths:
        try:
            info = os.stat(path)
            stamps.append((info.st_mtime_ns, info.st_size))
        except OSError:
            stamps.append(None)
    return stamps


if __name__ == "__main__":
    sys.exit(main())
