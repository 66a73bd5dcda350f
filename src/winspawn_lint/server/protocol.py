"""The language server itself: pygls handlers over the open documents (:mod:`.documents`) and the runner's
checks and fixes (:mod:`.linting`), and the conversion of findings to what LSP clients show.

* **Diagnostics** are pushed (``textDocument/publishDiagnostics``) when a document opens, after it changes
  (debounced: a check starts once the client has been quiet for the debounce), and when a file it depends on
  or the configuration changes on disk.  A notebook's are published per cell.  Severity follows ruff's server:
  Warning for every rule that is on by default; Information for the opt-in ones (WSP105, WSP901, WSP902: a
  frozen-executable, portability or performance advisory the user asked for); Error for a file that cannot be
  checked (one diagnostic, at the syntax error).
* **Code actions**: for each finding under the cursor, its quick fix when it has one (an unsafe fix only when
  the configuration sets ``unsafe-fixes = true``, and labelled unsafe) and "Disable WSPnnn for this line"
  (a ``# noqa`` comment); ``source.fixAll.winspawn-lint`` (and ``notebook.source.fixAll.winspawn-lint``) applies
  the safe fixes.  Every edit is the smallest :class:`TextEdit` list that a diff of the fixer's output gives, in
  a versioned ``WorkspaceEdit``, so a client whose document moved on rejects it rather than corrupting it.
  Where the client can resolve code actions lazily, the (costly) fix is computed only for the action chosen.
* **Hover** on a finding shows its rule's page.

All analysis runs on one background thread, in order; the event loop only moves documents and messages.
"""

from __future__ import annotations

import asyncio
import logging
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Optional, TypeVar

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path

from ..__version__ import __version__
from ..finding import Finding
from ..io import notebook as notebook_format
from ..report.noqa import with_noqa
from ..rules import RULES, FixSafety
from ..runner import FileResult
from .documents import Cell, Documents, Subject, cell_texts, uri_to_path
from .linting import CONFIG_FILES, Linter, Report
from .text import UTF16, Rows, edits

SOURCE = "winspawn-lint"
FIX_ALL = f"source.fixAll.{SOURCE}"
NOTEBOOK_FIX_ALL = f"notebook.source.fixAll.{SOURCE}"
RULE_PAGE = "https://github.com/winspawn-lint/winspawn-lint/blob/main/src/winspawn_lint/rule_docs/{code}.md"
#: how long the client must be quiet after a change before the document is checked again
DEFAULT_DEBOUNCE = 0.1
#: the files whose changes the server asks the client to report (Python modules other documents may read,
#: and the configuration)
WATCHED = ("**/*.py", "**/*.pyi", *(f"**/{name}" for name in CONFIG_FILES))

log = logging.getLogger(__name__)
T = TypeVar("T")


class Server(LanguageServer):
    """The state a session keeps: the documents, the warm analysis, the last report of each subject."""

    def __init__(self, debounce: float = DEFAULT_DEBOUNCE) -> None:
        super().__init__(
            SOURCE, __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            notebook_document_sync=types.NotebookDocumentSyncOptions(
                notebook_selector=[types.NotebookDocumentFilterWithCells(
                    notebook="jupyter-notebook", cells=[types.NotebookCellLanguage(language="python")])],
                save=True),
        )
        self.debounce = debounce
        self.documents = Documents()
        self.linter = Linter()
        #: subject URI -> its last report (what its published diagnostics say)
        self.reports: dict[str, Report] = {}
        #: subject URI -> the URIs diagnostics were published for (a notebook's cells)
        self.published: dict[str, tuple[str, ...]] = {}
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self.checks: set[asyncio.Task] = set()  # running re-checks (the loop keeps only weak references)
        self.analysis = ThreadPoolExecutor(max_workers=1, thread_name_prefix="winspawn-lint-analysis")

    # ---------------------------------------------------------------- running analysis

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """Run *function* on the analysis thread."""
        return await asyncio.get_running_loop().run_in_executor(self.analysis, function, *args)

    def schedule(self, uri: str, delay: float = 0.0) -> None:
        """Check the subject of *uri* after *delay* seconds (a later call for it restarts the wait)."""
        subject = self.documents.subject(uri)
        key = subject.uri if subject is not None else uri
        timer = self.timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        self.timers[key] = asyncio.get_running_loop().call_later(delay, self._start_recheck, key)

    def _start_recheck(self, key: str) -> None:
        task = asyncio.ensure_future(self.recheck(key))
        self.checks.add(task)
        task.add_done_callback(self.checks.discard)

    async def recheck(self, key: str) -> None:
        self.timers.pop(key, None)
        subject = self.documents.subject(key)
        if subject is None:
            self.clear(key)
            return
        report = await self.run(self._check_if_current, subject)
        if report is not None and self.documents.current(subject):
            self.reports[subject.uri] = report
            self.publish(report)

    def _check_if_current(self, subject: Subject) -> Optional[Report]:
        if not self.documents.current(subject):
            return None  # changed while waiting: its own check follows
        try:
            return self.linter.check(subject)
        except Exception:  # a bug here must not stop the server; the next change tries again
            log.exception("checking %s failed", subject.uri)
            return None

    async def report_for(self, subject: Subject) -> Report:
        """The report on *subject* as it is now (checked now if its last report is older)."""
        report = self.reports.get(subject.uri)
        if report is not None and report.subject.versions == subject.versions:
            return report
        report = await self.run(self.linter.check, subject)
        if self.documents.current(subject):
            self.reports[subject.uri] = report
            self.publish(report)
        return report

    # ---------------------------------------------------------------- diagnostics

    def publish(self, report: Report) -> None:
        by_uri = diagnostics(report, self.documents.encoding)
        subject = report.subject
        for uri in self.published.get(subject.uri, ()):
            by_uri.setdefault(uri, [])  # a cell that left the notebook, or that had findings before
        versions = dict(subject.versions)
        for uri, found in by_uri.items():
            self.text_document_publish_diagnostics(
                types.PublishDiagnosticsParams(uri=uri, diagnostics=found, version=versions.get(uri)))
        self.published[subject.uri] = subject.uris

    def forget(self, key: str) -> None:
        """A document or notebook closed: no check of it is pending, its diagnostics are withdrawn."""
        timer = self.timers.pop(key, None)
        if timer is not None:
            timer.cancel()
        self.clear(key)

    def clear(self, key: str) -> None:
        self.reports.pop(key, None)
        for uri in self.published.pop(key, ()):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # ---------------------------------------------------------------- client capabilities

    def _capability(self, path: str) -> Any:
        value: Any = self.client_capabilities
        for name in path.split("."):
            value = getattr(value, name, None)
            if value is None:
                return None
        return value

    @property
    def resolves_edits(self) -> bool:
        return "edit" in (self._capability("text_document.code_action.resolve_support.properties") or ())

    @property
    def versioned_edits(self) -> bool:
        return bool(self._capability("workspace.workspace_edit.document_changes"))

    @property
    def creates_files(self) -> bool:
        return self.versioned_edits and types.ResourceOperationKind.Create in \
            (self._capability("workspace.workspace_edit.resource_operations") or ())

    # ---------------------------------------------------------------- edits

    def workspace_edit(self, subject: Subject, fixed: FileResult) -> Optional[types.WorkspaceEdit]:
        """The edit that makes *subject*'s documents what *fixed* says (None: nothing changes, or the change
        needs a new file the client cannot create)."""
        if fixed.fixed_text is None:
            return None
        if not subject.notebook:
            return self._text_edit({subject.uri: fixed.fixed_text}, subject)
        new_cells = cell_texts(fixed.fixed_text)
        changed = {uri: new for uri, new in zip(subject.cells, new_cells) if uri is not None and new is not None}
        created = None
        if fixed.new_module is not None:
            if not self.creates_files:
                return None
            created = (from_fs_path(fixed.new_module[0]) or fixed.new_module[0], fixed.new_module[1])
        return self._text_edit(changed, subject, created)

    def _text_edit(self, texts: dict[str, str], subject: Subject,
                   created: Optional[tuple[str, str]] = None) -> Optional[types.WorkspaceEdit]:
        versions = dict(subject.versions)
        changes: list[tuple[str, list[types.TextEdit]]] = []
        for uri, new in texts.items():
            old = self.documents.text_of(uri)
            if old is None:
                return None
            found = [types.TextEdit(range=_range(start, end), new_text=text)
                     for (start, end), text in edits(old, new, self.documents.encoding)]
            if found:
                changes.append((uri, found))
        if not changes:
            return None
        if not self.versioned_edits:
            return types.WorkspaceEdit(changes=dict(changes))
        document_changes: list[Any] = []
        if created is not None:
            uri, text = created
            document_changes += [
                types.CreateFile(uri=uri, options=types.CreateFileOptions(overwrite=False, ignore_if_exists=False)),
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                    edits=[types.TextEdit(range=_range((0, 0), (0, 0)), new_text=text)]),
            ]
        document_changes += [
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=versions.get(uri)),
                edits=found)
            for uri, found in changes]
        return types.WorkspaceEdit(document_changes=document_changes)

    def noqa_edit(self, report: Report, finding: Finding) -> Optional[types.WorkspaceEdit]:
        subject = report.subject
        uri = subject.uri_of(finding.cell)
        text = self.documents.text_of(uri) if uri is not None else None
        if text is None:
            return None
        python = None
        if subject.notebook:  # the cell as Python, its IPython lines masked (same rows)
            masked = notebook_format.split_fixed_plain(notebook_format.loads(subject.text, check_syntax=False))
            python = "".join(line + "\n" for line in masked.get(finding.cell or 0, []))
        new = with_noqa(text, finding.line, finding.code, python)
        return self._text_edit({uri: new}, subject) if new is not None else None


def _range(start: tuple[int, int], end: tuple[int, int]) -> types.Range:
    return types.Range(start=types.Position(line=start[0], character=start[1]),
                       end=types.Position(line=end[0], character=end[1]))


def finding_range(finding: Finding, rows: Rows) -> types.Range:
    return _range(rows.at(finding.line - 1, finding.col), rows.at(finding.end_line - 1, finding.end_col))


def finding_key(finding: Finding) -> list:
    return [finding.cell, finding.line, finding.col, finding.end_line, finding.end_col, finding.code]


def diagnostics(report: Report, encoding: str = UTF16) -> dict[str, list[types.Diagnostic]]:
    """The diagnostics of each URI of the report's subject (every URI present, empty when clean)."""
    subject = report.subject
    out: dict[str, list[types.Diagnostic]] = {uri: [] for uri in subject.uris}
    rows = _rows(subject, encoding)
    first = subject.uris[0] if subject.uris else None
    if report.config_error is not None:
        if first is not None:
            out[first].append(types.Diagnostic(
                range=_range((0, 0), (0, 0)), message=f"configuration error: {report.config_error}",
                severity=types.DiagnosticSeverity.Error, source=SOURCE))
        return out
    result = report.result
    if result.error is not None:
        where = subject.uri_of(result.error_at[0]) if result.error_at else first
        if where is not None:
            line, column = (result.error_at[1] - 1, result.error_at[2] - 1) if result.error_at else (0, 0)
            text = rows[where] if where in rows else Rows("", encoding)
            start = text.at(line, max(0, column))
            end = text.at(line, len(text.content(line)))
            out[where].append(types.Diagnostic(
                range=_range(start, max(start, end)), message=f"cannot check this file: {result.error}",
                severity=types.DiagnosticSeverity.Error, source=SOURCE))
        return out
    for finding in report.findings:
        uri = subject.uri_of(finding.cell)
        if uri is None or uri not in rows:
            continue
        out[uri].append(diagnostic(finding, rows[uri]))
    return out


def diagnostic(finding: Finding, rows: Rows) -> types.Diagnostic:
    rule = finding.rule
    return types.Diagnostic(
        range=finding_range(finding, rows),
        message=f"{finding.message}{finding.platform_suffix}",
        severity=types.DiagnosticSeverity.Warning if rule.default else types.DiagnosticSeverity.Information,
        code=finding.code,
        code_description=types.CodeDescription(href=RULE_PAGE.format(code=finding.code)),
        source=SOURCE,
        data={"key": finding_key(finding), "fix": finding.safety.value},
    )


def _rows(subject: Subject, encoding: str) -> dict[str, Rows]:
    if not subject.notebook:
        return {subject.uri: Rows(subject.text, encoding)}
    return {uri: Rows(text or "", encoding) for uri, text in zip(subject.cells, cell_texts(subject.text))
            if uri is not None}


# -------------------------------------------------------------------- the handlers


def create(debounce: float = DEFAULT_DEBOUNCE) -> Server:
    """A server with every handler registered."""
    server = Server(debounce)

    @server.feature(types.INITIALIZE)
    def initialize(ls: Server, params: types.InitializeParams) -> None:
        ls.documents.encoding = str(ls.workspace.position_encoding or UTF16)
        folders = [folder.uri for folder in params.workspace_folders or ()] or \
            ([params.root_uri] if params.root_uri else [])
        for uri in folders:
            path = uri_to_path(uri)
            if path is not None:
                ls.linter.add_folder(path)

    @server.feature(types.INITIALIZED)
    async def initialized(ls: Server, params: types.InitializedParams) -> None:
        if ls._capability("workspace.did_change_watched_files.dynamic_registration"):
            watchers = [types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED]
            try:
                await ls.client_register_capability_async(types.RegistrationParams(registrations=[
                    types.Registration(id=f"{SOURCE}-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                                       register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                           watchers=watchers))]))
            except Exception as error:  # then saves of open documents are what tells of changes
                log.warning("the client did not watch files for the server: %s", error)

    @server.feature(types.SHUTDOWN)
    def shutdown(ls: Server, params: None) -> None:
        for timer in ls.timers.values():
            timer.cancel()
        ls.timers.clear()
        ls.analysis.shutdown(wait=False, cancel_futures=True)

    # -- documents

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: Server, params: types.DidOpenTextDocumentParams) -> None:
        document = params.text_document
        ls.documents.open(document.uri, document.text, document.version, document.language_id)
        ls.schedule(document.uri)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: Server, params: types.DidChangeTextDocumentParams) -> None:
        document = params.text_document
        ls.documents.change(document.uri, document.version, _changes(params.content_changes))
        ls.schedule(document.uri, ls.debounce)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: Server, params: types.DidSaveTextDocumentParams) -> None:
        path = uri_to_path(params.text_document.uri)
        if path is not None:
            await files_changed(ls, [path])

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: Server, params: types.DidCloseTextDocumentParams) -> None:
        ls.documents.close(params.text_document.uri)
        ls.forget(params.text_document.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_OPEN)
    def notebook_did_open(ls: Server, params: types.DidOpenNotebookDocumentParams) -> None:
        notebook = params.notebook_document
        ls.documents.open_notebook(notebook.uri, notebook.version, [_cell(c) for c in notebook.cells])
        for document in params.cell_text_documents:
            ls.documents.open(document.uri, document.text, document.version, document.language_id, notebook.uri)
        ls.schedule(notebook.uri)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CHANGE)
    def notebook_did_change(ls: Server, params: types.DidChangeNotebookDocumentParams) -> None:
        uri = params.notebook_document.uri
        notebook = ls.documents.notebooks.get(uri)
        if notebook is None:
            return
        notebook.version = params.notebook_document.version
        cells = params.change.cells
        if cells is not None:
            if cells.structure is not None:
                array = cells.structure.array
                ls.documents.restructure(uri, array.start, array.delete_count, [_cell(c) for c in array.cells or ()])
                for document in cells.structure.did_open or ():
                    ls.documents.open(document.uri, document.text, document.version, document.language_id, uri)
                for closed in cells.structure.did_close or ():
                    ls.documents.close(closed.uri)
            if cells.data:
                ls.documents.set_cell_kinds(uri, {c.document: c.kind == types.NotebookCellKind.Code
                                                  for c in cells.data})
            for change in cells.text_content or ():
                ls.documents.change(change.document.uri, change.document.version, _changes(change.changes))
        ls.schedule(uri, ls.debounce)

    @server.feature(types.NOTEBOOK_DOCUMENT_DID_CLOSE)
    def notebook_did_close(ls: Server, params: types.DidCloseNotebookDocumentParams) -> None:
        ls.documents.close_notebook(params.notebook_document.uri)
        ls.forget(params.notebook_document.uri)

    # -- the workspace

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    async def watched_files_changed(ls: Server, params: types.DidChangeWatchedFilesParams) -> None:
        paths = [uri_to_path(change.uri) for change in params.changes]
        await files_changed(ls, [path for path in paths if path is not None])

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    async def folders_changed(ls: Server, params: types.DidChangeWorkspaceFoldersParams) -> None:
        def change() -> None:
            for folder in params.event.removed:
                path = uri_to_path(folder.uri)
                if path is not None:
                    ls.linter.remove_folder(path)
            for folder in params.event.added:
                path = uri_to_path(folder.uri)
                if path is not None:
                    ls.linter.add_folder(path)

        await ls.run(change)
        for subject in ls.documents.subjects():
            ls.schedule(subject.uri)

    # -- what the user asks for

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def hover(ls: Server, params: types.HoverParams) -> Optional[types.Hover]:
        subject = ls.documents.subject(params.text_document.uri)
        if subject is None:
            return None
        report = await ls.report_for(subject)
        rows = _rows(subject, ls.documents.encoding).get(params.text_document.uri)
        if rows is None:
            return None
        cell = subject.cell_of(params.text_document.uri)
        at = (params.position.line, params.position.character)
        under = [f for f in report.findings if f.cell == cell and _contains(finding_range(f, rows), at, at)]
        if not under:
            return None
        pages = "\n\n---\n\n".join(dict.fromkeys(RULES[f.code].docs() for f in under))
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=pages),
                           range=finding_range(under[0], rows))

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL, NOTEBOOK_FIX_ALL], resolve_provider=True))
    async def code_action(ls: Server, params: types.CodeActionParams) -> Optional[list[types.CodeAction]]:
        uri = params.text_document.uri
        subject = ls.documents.subject(uri)
        if subject is None:
            return None
        report = await ls.report_for(subject)
        if report.findings == [] or report.settings is None:
            return None
        findings = await ls.run(ls.linter.planned, report)
        only = params.context.only

        def wanted(kind: str) -> bool:
            return only is None or any(kind == k or kind.startswith(f"{k}.") for k in only)

        actions: list[types.CodeAction] = []
        rows = _rows(subject, ls.documents.encoding).get(uri)
        cell = subject.cell_of(uri)
        asked = ((params.range.start.line, params.range.start.character),
                 (params.range.end.line, params.range.end.character))
        if wanted(types.CodeActionKind.QuickFix) and rows is not None:
            for finding in findings:
                if finding.cell != cell or not _contains(finding_range(finding, rows), *asked):
                    continue
                action = await fix_action(ls, report, finding)
                if action is not None:
                    actions.append(action)
                noqa = ls.noqa_edit(report, finding)
                if noqa is not None:
                    actions.append(types.CodeAction(
                        title=f"{SOURCE} ({finding.code}): Disable {finding.code} for this line",
                        kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic(finding, rows)], edit=noqa))
        for kind in (FIX_ALL, NOTEBOOK_FIX_ALL):
            if wanted(kind) and (kind == FIX_ALL or subject.notebook) and \
                    any(f.safety is FixSafety.SAFE for f in findings):
                action = types.CodeAction(title=f"{SOURCE}: Fix all safe fixes", kind=kind,
                                          data={"uri": subject.uri, "versions": subject.versions})
                actions.append(action if ls.resolves_edits else await resolve(ls, action))
        return [a for a in actions if a.edit is not None or a.data is not None] or None

    async def fix_action(ls: Server, report: Report, finding: Finding) -> Optional[types.CodeAction]:
        from ..fix import title
        from ..fix.notebook import FIXES as NOTEBOOK_FIXES, TITLE as MOVE_TITLE

        settings = report.settings
        if settings is None or not finding.safety.applies(settings.unsafe_fixes):
            return None
        subject = report.subject
        what = MOVE_TITLE if finding.rule in NOTEBOOK_FIXES else title(finding)
        # The move writes a new module: only from a notebook (not its cells sent as one Python text, as
        # jupyterlab-lsp sends them) and for a client that can create files.
        if what is None or (finding.rule in NOTEBOOK_FIXES and not (subject.notebook and ls.creates_files)):
            return None
        unsafe = finding.safety is FixSafety.UNSAFE
        uri = subject.uri_of(finding.cell) or subject.uri
        rows = _rows(subject, ls.documents.encoding)[uri]
        action = types.CodeAction(
            title=f"{SOURCE} ({finding.code}): {what}{' (unsafe fix)' if unsafe else ''}",
            kind=types.CodeActionKind.QuickFix, diagnostics=[diagnostic(finding, rows)], is_preferred=not unsafe,
            data={"uri": subject.uri, "versions": subject.versions, "key": finding_key(finding)})
        if ls.resolves_edits:
            return action
        action = await resolve(ls, action)
        return action if action.edit is not None else None

    @server.feature(types.CODE_ACTION_RESOLVE)
    async def resolve(ls: Server, action: types.CodeAction) -> types.CodeAction:
        data = action.data if isinstance(action.data, dict) else {}
        subject = ls.documents.subject(str(data.get("uri", "")))
        if subject is None or [list(v) for v in subject.versions] != [list(v) for v in data.get("versions", ())]:
            return action  # the document changed since: the client asks again
        report = await ls.report_for(subject)
        if report.settings is None:
            return action
        key = data.get("key")
        if key is None:  # fix all
            fixed = await ls.run(ls.linter.fix, report)
        else:
            chosen = [f for f in report.findings if finding_key(f) == list(key)]
            if not chosen:
                return action
            # As --fix with the configuration's unsafe-fixes: a safe rule's fix may have an unsafe form (a
            # lambda reading the enclosing function's variables becomes a partial), decided by the codemod.
            fixed = await ls.run(ls.linter.fix, report, frozenset(chosen), report.settings.unsafe_fixes)
        action.edit = ls.workspace_edit(subject, fixed)
        if action.edit is None and fixed.fix_note:
            ls.window_show_message(types.ShowMessageParams(
                type=types.MessageType.Info, message=f"{SOURCE}: not fixed: {fixed.fix_note}"))
        return action

    return server


async def files_changed(ls: Server, paths: list[str]) -> None:
    """Files changed on disk: check again every open document whose findings may change with them."""
    config = await ls.run(ls.linter.files_changed, paths)
    changed = set(paths)
    for subject in ls.documents.subjects():
        report = ls.reports.get(subject.uri)
        if config or report is None or ls.linter.affected(report, changed):
            ls.schedule(subject.uri)


def _changes(content_changes: Any) -> list[tuple[Optional[tuple[int, int]], Optional[tuple[int, int]], str]]:
    out = []
    for change in content_changes:
        span = getattr(change, "range", None)
        if span is None:
            out.append((None, None, change.text))
        else:
            out.append(((span.start.line, span.start.character), (span.end.line, span.end.character), change.text))
    return out


def _cell(cell: types.NotebookCell) -> Cell:
    return Cell(cell.document, cell.kind == types.NotebookCellKind.Code)


def _contains(found: types.Range, start: tuple[int, int], end: tuple[int, int]) -> bool:
    """Whether the client range *start*..*end* touches *found*."""
    begin = (found.start.line, found.start.character)
    finish = (found.end.line, found.end.character)
    return begin <= end and start <= finish


def serve(debounce: float = DEFAULT_DEBOUNCE) -> int:
    """Serve one client over stdin and stdout until it says exit."""
    create(debounce).start_io()
    return 0
