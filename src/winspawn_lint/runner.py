"""The one per-file driver: read → check → grade the fixes → fix → write, for ``.py`` files and notebooks alike.

Every way of running the linter on files goes through here: the command line (serially, or in a parallel run's
workers), the language server (an editor's unsaved text, :func:`check_buffer`), and the public ``fix_text`` for a
text.  A run has one :class:`~.analysis.project.Project`, the reader of the project's files, made by whoever owns
the run (a parallel run makes one per worker; the language server one per workspace folder, kept warm) and handed
down.

Checking and fixing never write: :func:`check_file` returns what the file's fix would be (with ``--add-noqa``,
the file with the ``# noqa`` comments that silence its findings), and the run writes every such file when all
files are checked (:func:`write`).  So each file is checked, and fixed, against the
project as it stood when the run began, whatever order its files are checked in and however many workers share
them: a fix that rewrites one module never changes what another file of the same run is told.
"""

from __future__ import annotations

import ast
import gc
import warnings
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, TypeVar, Union

from .finding import Finding
from .records import Record, Value
from .rules import FixSafety
from .settings import Settings

if TYPE_CHECKING:
    from .analysis.project import Project
    from .fix import FixOutcome
    from .io.source import Source

_T = TypeVar("_T")


class Job(Value):
    """What a run asks of each file."""

    __slots__ = ("settings", "fix", "diff", "unsafe_fixes", "keep_lines", "report_unparsable", "cache", "only",
                 "add_noqa", "plan_fixes")

    def __init__(self, settings: Settings, fix: bool = False, diff: bool = False, unsafe_fixes: bool = False,
                 keep_lines: bool = False, report_unparsable: bool = True, cache: bool = False,
                 only: Optional[frozenset[Finding]] = None, add_noqa: bool = False, plan_fixes: bool = True) -> None:
        self.settings = settings
        self.fix = fix
        self.diff = diff
        self.unsafe_fixes = unsafe_fixes
        self.keep_lines = keep_lines
        #: parse even a file the prefilter proves clean, to report it if it does not parse. On for files named
        #: on the command line (pre-commit names each changed file); off for files found by walking a
        #: directory, where parsing every file would cost more than the whole check (syntax errors are your
        #: general linter's job).
        self.report_unparsable = report_unparsable
        #: fill FileResult.cache_entry (for the results cache, which the run's owner keeps)
        self.cache = cache
        #: fix these findings only (equal by code and place to findings of the file; a notebook's are in their
        #: cells), an editor's quick fix for one finding; None: every finding whose fix applies
        self.only = only
        #: ``--add-noqa``: plan the ``# noqa`` comments that silence the file's findings (instead of a fix)
        self.add_noqa = add_noqa
        #: plan each finding's fix as the file is checked, so that its fix safety says what ``--fix`` would do
        #: (``[*]`` only for a fix that applies); False: the rule's safety as the file grades it, as an editor
        #: shows findings while typing (the plan costs more than the check; its code actions ask for it when
        #: they are asked for)
        self.plan_fixes = plan_fixes

    @property
    def fixing(self) -> bool:
        return self.fix or self.diff


class FileResult(Record):
    """What checking (and fixing) one file gave; filled as the check goes."""

    __slots__ = ("path", "findings", "error", "lines", "fixed_text", "original_text", "diff_lines", "fixed_count",
                 "fixed", "fix_note", "written", "cache_entry", "new_module", "source", "remaining", "noqa_added",
                 "noqa_missed", "error_at")

    def __init__(self, path: str, findings: Optional[list[Finding]] = None, error: Optional[str] = None,
                 lines: Optional[Union[list[str], dict[int, list[str]]]] = None, fixed_text: Optional[str] = None,
                 original_text: Optional[str] = None, diff_lines: Optional[list[str]] = None, fixed_count: int = 0,
                 fixed: Optional[list[Finding]] = None, fix_note: Optional[str] = None, written: bool = False,
                 cache_entry: Optional[Any] = None, new_module: Optional[tuple[str, str]] = None,
                 source: Optional[Source] = None, remaining: Optional[list[Finding]] = None, noqa_added: int = 0,
                 noqa_missed: int = 0, error_at: Optional[tuple[Optional[int], int, int]] = None) -> None:
        self.path = path
        self.findings = findings if findings is not None else []
        self.error = error
        #: the source lines, for showing a finding in context (a notebook's: cell number -> that cell's lines)
        self.lines = lines
        self.fixed_text = fixed_text  # the fixed file, when --fix/--diff changed it
        self.original_text = original_text
        #: what --diff prints: a notebook's cells' patch; the command line's patch of a file (``cli._patched``)
        self.diff_lines = diff_lines
        self.fixed_count = fixed_count
        self.fixed = fixed if fixed is not None else []  # what --fix/--diff fixed (for --show-fixes)
        self.fix_note = fix_note
        self.written = written
        self.cache_entry = cache_entry  # a cache.Entry, when Job.cache asks for one and the check succeeded
        #: (path, text) of a new module the fix creates beside the file (a notebook's moved definitions)
        self.new_module = new_module
        #: what :func:`write` needs: the file as read (its encoding, BOM and bytes), and the findings the fixed
        #: file still has
        self.source = source
        self.remaining = remaining
        #: ``--add-noqa``: the lines given a ``# noqa`` (or more codes in theirs), and the findings none can
        #: silence
        self.noqa_added = noqa_added
        self.noqa_missed = noqa_missed
        #: a file that cannot be checked: where it stops being Python, as (cell or None, line, column), both
        #: 1-based, when that is known
        self.error_at = error_at

    @property
    def changed(self) -> bool:
        """Whether the fix changed the file (``--fix`` has its text to write, ``--diff`` its patch)."""
        return self.fixed_text is not None or self.diff_lines is not None


def check_file(path: str, job: Job, project: "Project", stdin_data: Optional[bytes] = None,
               display: Optional[str] = None) -> FileResult:
    """Check one file and plan its fix (``--fix``/``--diff``); never raises for a problem with the file itself."""
    return quietly(lambda: _check_file(path, job, project, stdin_data, display), project)


def quietly(check: Callable[[], _T], project: "Project") -> _T:
    """``check()``, the checked code's warnings not shown and the cyclic collector off (the driver's checks, for
    the command line and the language server, and the public API's calls run so; flake8 calls its plugin itself)."""
    with warnings.catch_warnings():
        # ast.parse() and the fixer's compile() warn about the code checked (invalid escape sequences,
        # `is` with a literal...): that is not ours to report, and it would be noise on stderr.
        warnings.simplefilter("ignore", SyntaxWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        # The cyclic collector is off while one file is checked: left on, it traverses every AST node several
        # times as they are promoted through the generations (six ML repositories: 18% of the CPU), and reference
        # counting frees what a check leaves (the parsed modules have no cycles: see index.Binding).
        collecting = gc.isenabled()
        gc.disable()
        try:
            with project.holding():
                return check()
        finally:
            if collecting:
                gc.enable()
                if _run_depth:
                    # What the check left alive is the run's reader's (modules and facts kept for the files still
                    # to check) or the results'; collecting it would traverse all of that for nothing (10% of the
                    # CPU on pytorch-image-models) and free nothing: a check makes no cyclic garbage (none on
                    # pytorch-image-models or trl, 2,796 small objects in a --diff run over 42 repositories).
                    gc.freeze()
                elif gc.get_count()[0] > _GC_PER_FILE:
                    gc.collect(0)


_GC_PER_FILE = 10_000  # a file that allocated fewer objects is left to the collector's thresholds
# ast.parse allocates a GC-tracked node per AST node and none of them is in a reference cycle, so with the
# default threshold (700) the cyclic collector runs hundreds of times per file for nothing; reference counting
# frees every tree anyway. A larger young-generation threshold makes a check about 10% faster.
_GC_THRESHOLD = (50_000, 20, 10)
#: how many :func:`one_run` blocks are open
_run_depth = 0


@contextmanager
def one_run() -> Iterator[None]:
    """The files checked in the block are one run's (the command line's, or a parallel run's worker's), whose
    reader keeps what it parsed and found for the files still to check: after each file, what it left alive is
    moved out of the cyclic collector's sight (``gc.freeze``) until the block ends.  (A long-lived caller, the
    language server, checks outside such a block: what it keeps is let go of between requests.)"""
    global _run_depth
    previous = gc.get_threshold()
    gc.set_threshold(*_GC_THRESHOLD)
    _run_depth += 1
    try:
        yield
    finally:
        _run_depth -= 1
        if not _run_depth:
            # (back in the oldest generation: freed by the next full collection once unused; so is what was frozen
            # before the run, as CPython 3.12 starts with a few hundred objects frozen)
            gc.unfreeze()
            gc.set_threshold(*previous)


class _Checked(Record):
    """What the results cache keeps of a file: whether it was parsed, its findings as checked (before the fixes'
    grade, which depends on other files and is redone every run), and what the fixer made of it."""

    __slots__ = ("parsed", "findings", "fix")

    def __init__(self, parsed: bool, findings: list[Finding], fix: Optional[tuple[str, FixOutcome]] = None) -> None:
        self.parsed = parsed
        self.findings = findings
        self.fix = fix  # (cache.fix_key, the outcome)


def _check_file(path: str, job: Job, project: "Project", stdin_data: Optional[bytes],
                display: Optional[str]) -> FileResult:
    from .io import notebook, source as source_module

    from_stdin = stdin_data is not None
    # For stdin, --stdin-filename stands for the path (per-file-ignores, sibling modules), as in ruff.
    filename = path if not from_stdin else (display if display and display != "-" else None)

    def read() -> "Source":
        return source_module.decode(stdin_data) if from_stdin else source_module.read(path)

    return _check_source(read, path, filename, notebook.is_notebook(display if from_stdin else path), from_stdin,
                         job, project, FileResult(display or path), on_disk=not from_stdin)


def check_buffer(path: Optional[str], text: str, job: Job, project: "Project", *, notebook: bool = False,
                 dependencies: Optional[dict[str, Any]] = None) -> FileResult:
    """:func:`check_file` for an editor's unsaved *text* of the file at *path* (``None``: a buffer not saved to
    a file yet): the file itself is not read, the project's other files are (through *project*), and nothing
    is written.  *notebook*: the text is a notebook's JSON (whatever the name says: an editor may hold a
    notebook's cells as one Python text named ``x.ipynb``).  With ``job.diff`` the result
    holds what the fix would make of the text (``fixed_text``, ``new_module``).  *dependencies* collects what
    the findings depend on besides the text (see ``Project.reading``)."""
    from .io import source as source_module

    def read() -> "Source":
        return source_module.Source(text, "utf-8", False)  # decoded already, whatever the file on disk says

    # (on_disk None: a text that is the file's as it stands on disk, as an editor's is until it is edited, is
    # checked as the file, so the facts found for it serve later checks, as they do for flake8's)
    return quietly(lambda: _check_source(read, path or "-", path, notebook, path is None, job, project,
                                         FileResult(path or "-"), dependencies, on_disk=None), project)


def _check_source(read: Callable[[], "Source"], path: str, filename: Optional[str], is_notebook: bool,
                  unnamed: bool, job: Job, project: "Project", result: FileResult,
                  dependencies: Optional[dict[str, Any]] = None, on_disk: Optional[bool] = False) -> FileResult:
    """Check what *read* gives, the text of the file at *path* (shown as ``result.path``; *filename*: its name
    for per-file-ignores and sibling modules, None when unknown; *unnamed*: stdin or an editor's untitled
    buffer, whose fix is never written; *on_disk*: *read* reads the file itself (None: the text may be the
    file's, compared with it when the text is analysed))."""
    from .io import source as source_module
    from .io.stamps import stat_stamp

    try:
        stamp = stat_stamp(path) if job.cache else None  # before reading: a later change is then seen
        src = read()
        # What the findings and the fix depend on besides the file's own text is read through the project
        # reader, which records it for the results cache (and the language server).
        with project.reading() as reads:
            try:
                if is_notebook:
                    checked = _check_notebook(path, filename, src, job, project, result, unnamed)
                else:
                    checked = _check_script(filename, src, job, project, result, unnamed, on_disk)
            finally:
                if dependencies is not None:
                    dependencies.update(reads.files)
        if job.cache and not unnamed:
            from .io import cache

            entry = cache.new_entry(path, stamp, src.original, checked.parsed, checked.findings, reads)
            if entry is not None and checked.fix is not None:
                entry.fixes[checked.fix[0]] = cache.encode_fix(src.text, checked.fix[1])
            result.cache_entry = entry
    except source_module.SourceError as error:
        result.cache_entry = None
        result.error = str(error)
        result.error_at = error.at
    except RecursionError:
        result.error = "too deeply nested to analyse (RecursionError)"
    except Exception as error:  # an internal error on one file must not stop the others
        result.error = f"internal error: {type(error).__name__}: {error} (please report this file)"
    return result


def _check_script(filename: Optional[str], src: "Source", job: Job, project: "Project", result: FileResult,
                  from_stdin: bool, on_disk: Optional[bool] = False) -> _Checked:
    from .analysis.importers import grade_note, regrade
    from .pipeline import check

    settings = job.settings
    # A file named explicitly that does not parse is reported (exit 2) even when no finding is possible.
    checked = check(src.text, filename, settings, project=project, parse_clean=job.report_unparsable,
                    on_disk=on_disk)
    found, declined = _fixability(src.text, checked.findings, filename, checked.tree, project, settings,
                                  job.unsafe_fixes) if job.plan_fixes else (checked.findings, {})
    record = _Checked(checked.lines is not None or job.report_unparsable, found)
    result.findings = found
    if job.keep_lines and checked.lines is not None:
        result.lines = checked.lines
    if not found:
        return record
    if job.add_noqa:
        _plan_noqa(src, result, found, from_stdin)
        return record
    result.findings, grade = regrade(found, filename, src.text, project)  # the fixes' safety in this file
    if job.fixing and any(f.safety.applies(job.unsafe_fixes) for f in result.findings):
        from .io.cache import fix_key

        outcome = _fix(src.text, filename, settings, job.unsafe_fixes, project, result.findings, checked.tree,
                       grade_note(result.findings, grade, job.unsafe_fixes), declined, job.only)
        record.fix = (fix_key(job.unsafe_fixes, result.findings), outcome)
        apply_outcome(filename, src, result, job, from_stdin, outcome, project)
    elif job.fixing:  # nothing to do for the fixer: say why
        result.fix_note = _join(_declined_note(declined), grade_note(result.findings, grade, job.unsafe_fixes))
    return record


def _fixability(text: str, findings: list[Finding], filename: Optional[str], tree: Optional[ast.Module],
                project: "Project", settings: Settings, unsafe: bool) -> tuple[list[Finding], dict]:
    """``findings`` with the safety of the fix ``--fix`` would make of each on this text (``NONE`` where the fixer
    declines it: a finding shows ``[*]`` only when its fix would be applied), and why each one that a run with
    ``unsafe`` leaves is left (see :func:`.fix.fixable`)."""
    if not any(f.rule.fix_safety is not FixSafety.NONE and f.fix_safety is not FixSafety.NONE for f in findings):
        return findings, {}
    from .analysis.importers import WRAP_RULES
    from .fix import fixable
    from .io.line_length import DEFAULT_MAX_LINE_LENGTH

    # Only the guard wrap's plan depends on the line length (a moved line with no clean break declines it).
    wraps = any(f.rule in WRAP_RULES for f in findings)
    found = fixable(text, findings, _checker(filename, settings, project), filename=filename, tree=tree,
                    line_length=project.line_length(filename) if wraps else DEFAULT_MAX_LINE_LENGTH)
    return found.findings, found.declined if unsafe else {**found.declined, **found.unsafe}


def _declined_note(declined: dict) -> Optional[str]:
    if not declined:
        return None
    from .fix import declined_note

    return declined_note(declined)


def fix_source(text: str, filename: Optional[str], settings: Settings, unsafe: bool,
               project: "Project") -> "FixOutcome":
    """What ``--fix`` (and ``--unsafe-fixes`` when *unsafe*) makes of a script's *text*."""
    from .analysis.importers import grade_note, regrade
    from .pipeline import check

    checked = check(text, filename, settings, project=project)
    found, declined = _fixability(text, checked.findings, filename, checked.tree, project, settings, unsafe)
    findings, grade = regrade(found, filename, text, project)
    return _fix(text, filename, settings, unsafe, project, findings, checked.tree,
                grade_note(findings, grade, unsafe), declined)


def _fix(text: str, filename: Optional[str], settings: Settings, unsafe: bool, project: "Project",
         findings: list[Finding], tree: Optional[ast.Module], note: Optional[str],
         declined: Optional[dict] = None, only: Optional[frozenset[Finding]] = None) -> "FixOutcome":
    from .fix import fix_text

    return fix_text(text, findings, _checker(filename, settings, project), filename=filename, unsafe=unsafe,
                    tree=tree, line_length=project.line_length(filename), note=note, declined=declined, only=only)


def _checker(filename: Optional[str], settings: Settings, project: "Project"):
    """The fixer's check of a text it wrote: this file's check, with this run's project."""
    from .pipeline import check

    def check_rewritten(text: str, tree: Optional[ast.Module]) -> list[Finding]:
        return check(text, filename, settings, project=project, tree=tree).findings

    return check_rewritten


def apply_outcome(filename: Optional[str], src: "Source", result: FileResult, job: Job, from_stdin: bool,
                  outcome: Any, project: "Project") -> None:
    """Put in *result* what the fixer made of *src* (a ``FixOutcome``, or the results cache's copy of one): the
    fixed text and the findings that remain, as ``--diff`` shows them or as :func:`write` will leave them."""
    from .analysis.importers import regrade

    result.fix_note = outcome.note
    result.findings = _declined(result.findings, job)
    if outcome.text == src.text:
        return
    enabled = job.settings.enabled_for(filename)
    result.original_text = src.text
    result.fixed_text = outcome.text
    result.fixed_count = len(outcome.fixed)
    result.fixed = outcome.fixed
    # The fixed findings are dropped only when the fix reaches the user (a diff, or the file rewritten);
    # otherwise (stdin, a read-only or changed file) they are still reported.  A diff writes nothing: what it
    # leaves is reported where it is on disk.
    if job.diff:
        result.findings = _declined([f for f in outcome.unfixed if f.code in enabled], job)
    elif from_stdin:
        result.fix_note = _join(result.fix_note, "stdin is not rewritten; use --diff to see the fix")
    elif job.fix:
        remaining, _ = regrade([f for f in outcome.remaining if f.code in enabled], filename, outcome.text, project)
        result.source = src
        result.remaining = _declined(remaining, job)


def _plan_noqa(src: "Source", result: FileResult, findings: list[Finding], from_stdin: bool) -> None:
    """``--add-noqa`` for a script: the text with its comments, for :func:`write`."""
    from .io.source import replace_lines
    from .report.noqa import noqa_edits

    edits, result.noqa_missed = noqa_edits(src.text, findings)
    if result.noqa_missed:
        result.fix_note = f"{result.noqa_missed} not silenced: the line's first `# noqa` is text inside a string, " \
            "which flake8 would read first"
    if edits and not from_stdin:  # stdin is not rewritten
        _planned(src, result, replace_lines(src.text, edits), len(edits))


def _planned(src: "Source", result: FileResult, text: str, added: int) -> None:
    result.original_text = src.text
    result.fixed_text = text
    result.source = src
    result.remaining = []
    result.noqa_added = added


def _declined(findings: list[Finding], job: Job) -> list[Finding]:
    """After a fix run, a finding whose fix applied but is still there was declined: it has no fix (no ``[*]``)."""
    return [f.replace(fix_safety=FixSafety.NONE) if f.safety.applies(job.unsafe_fixes) else f for f in findings]


def _join(note: Optional[str], more: Optional[str]) -> Optional[str]:
    return f"{note}; {more}" if note and more else note or more


def _check_notebook(path: str, filename: Optional[str], src: "Source", job: Job, project: "Project",
                    result: FileResult, from_stdin: bool) -> _Checked:
    from .analysis.prefilter import may_have_findings
    from .io import notebook
    from .pipeline import check

    settings = job.settings
    book = notebook.loads(src.text, check_syntax=False)
    if not may_have_findings(book.module, settings.registry) and not (filename and project.relevant(filename)):
        if job.report_unparsable:  # as for a .py file: a syntax error is reported for a named notebook only
            notebook.check_cells(book)
        return _Checked(job.report_unparsable, [])
    book, broken = notebook.without_broken_cells(book)
    name = filename or (path if notebook.is_notebook(path) else "notebook.ipynb")
    findings = check(book.module, name, settings, project=project, prefilter=False).findings
    if broken is not None or not book.writable:
        # Nothing is fixed: a fix would write the notebook back around a cell that does not parse, or in nbformat 3.
        findings = [f.replace(fix_safety=FixSafety.NONE) for f in findings]
    if broken is not None:
        # The cell that does not parse is the file's error (and keeps it out of the cache); what the other cells
        # hold is reported beside it.
        result.findings = notebook.to_cells(book, findings)
        if job.keep_lines:
            result.lines = book.cell_lines()
        raise broken
    planned = None
    if job.plan_fixes and \
            any(f.rule.fix_safety is not FixSafety.NONE and f.fix_safety is not FixSafety.NONE for f in findings):
        # What --fix --unsafe-fixes makes of a notebook depends on what can move out of it: the fix itself, run
        # once (notebooks with a fixable finding are few), says which findings it fixes.
        planned = _fix_notebook(book, findings, path, result.path, name, settings, project, True, from_stdin)
        findings = _notebook_fixability(findings, planned)
    result.findings = notebook.to_cells(book, findings)
    record = _Checked(True, result.findings)
    if job.add_noqa and findings:
        from .report.noqa import noqa_edits

        edits, result.noqa_missed = noqa_edits(book.module, findings)
        if edits and not from_stdin:
            try:
                raw = notebook.rewrite(book, notebook.cells_with_lines(book, edits))
            except notebook.NotebookFixError as error:
                result.fix_note = f"no noqa comments added: {error}"
                result.noqa_missed = len(findings)
            else:
                _planned(src, result, raw, len(edits))
        return record
    if job.keep_lines:
        result.lines = book.cell_lines()
    if job.fixing and planned is not None:  # (a run that fixes nothing still says why)
        # *only* names findings in their cells; the fixer sees the notebook's module
        only = None if job.only is None else \
            frozenset(f for f in findings if any(placed in job.only for placed in notebook.to_cells(book, [f])))
        # Without --unsafe-fixes (or asked for some findings only) the fix is run again, unless the plan changed
        # nothing: then its note says why (a cell layout that cannot be written back, say), and no fix would do more.
        fixed = planned if (job.unsafe_fixes and only is None) or planned.raw is None else \
            _fix_notebook(book, findings, path, result.path, name, settings, project, job.unsafe_fixes, from_stdin,
                          only)
        result.fix_note = fixed.note
        if fixed.raw is not None:
            result.original_text = src.text
            result.fixed_text = fixed.raw
            result.diff_lines = fixed.diff_lines
            result.fixed_count = fixed.fixed_count
            result.new_module = fixed.new_module
            result.fixed = notebook.to_cells(book, fixed.fixed)
            if job.diff:
                result.findings = fixed.remaining
            elif from_stdin:
                result.fix_note = _join(result.fix_note, "stdin is not rewritten; use --diff to see the fix")
            elif job.fix:
                result.source = src
                result.remaining = fixed.remaining
    return record


def _fix_notebook(book, findings: list[Finding], path: str, display: str, name: str, settings: Settings,
                  project: "Project", unsafe: bool, from_stdin: bool, only: Optional[frozenset[Finding]] = None):
    from .fix.notebook import fix_notebook

    return fix_notebook(book, findings, path, display, _checker(name, settings, project), unsafe=unsafe,
                        line_length=project.line_length(name), move_definitions=not from_stdin, exists=project.exists,
                        enabled=settings.enabled_for(name), only=only)


def _notebook_fixability(findings: list[Finding], planned) -> list[Finding]:
    """The findings of a notebook's module with the safety of the fix ``--fix --unsafe-fixes`` made of each (a
    ``NotebookFix``): none for one it left; unsafe for a hoist, which in a notebook holds only once its definition
    moves to a module next to the notebook (WSP206's unsafe fix)."""
    from .rules import WSP201, WSP202, WSP203, WSP204

    fixed = {id(f) for f in planned.fixed}
    out = []
    for finding in findings:
        if finding.rule.fix_safety is FixSafety.NONE or finding.fix_safety is FixSafety.NONE:
            out.append(finding)
        elif id(finding) not in fixed:
            out.append(finding.replace(fix_safety=FixSafety.NONE))
        elif planned.new_module is not None and finding.rule in (WSP201, WSP202, WSP203, WSP204):
            out.append(finding.replace(fix_safety=FixSafety.UNSAFE))
        else:
            out.append(finding)
    return out


def write(result: FileResult) -> None:
    """Write what :func:`check_file` planned for *result* with ``--fix`` (atomically, as the file was encoded,
    never over a file that changed since it was read); on success its findings become those the fixed file
    has, on failure the reason is its error."""
    if result.source is None or result.fixed_text is None:
        return
    import os

    from .io.write import WriteError, create_new, write_atomic

    path = result.path
    try:
        if result.new_module is not None:
            create_new(*result.new_module)
        try:
            write_atomic(path, result.fixed_text, result.source)
        except WriteError:
            if result.new_module is not None:
                os.unlink(result.new_module[0])  # the notebook still defines them: the new module would be a stray copy
            raise
        result.written = True
        result.findings = result.remaining or []
    except WriteError as error:
        result.error = f"not rewritten: {error}"
    result.source = result.remaining = result.new_module = None
