"""A test client for the language server: pytest-lsp's client, with what the tests read off it.

It records every ``textDocument/publishDiagnostics`` (with its version), answers the server's
``client/registerCapability``, and applies a ``WorkspaceEdit`` the way an editor does: with offsets it computes
itself (written again here, independently of the server's ``server/text.py``), refusing an edit whose version is
not the document's.
"""

from __future__ import annotations

import asyncio
import re
import sys
import time
from pathlib import Path
from typing import Any, Optional

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import LanguageClient, client_capabilities
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES

#: the server under test; a debounce of 0 checks at once (the debounce has a test of its own)
SERVER = [sys.executable, "-m", "winspawn_lint", "server", "--debounce-ms", "0"]
TIMEOUT = 60.0  # seconds a test waits for the server (a loaded CI machine is slow; a hang still fails)

_ROW = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_UNITS = {"utf-8": lambda c: len(c.encode("utf-8")), "utf-16": lambda c: len(c.encode("utf-16-le")) // 2,
          "utf-32": lambda c: 1}


def make_client() -> LanguageClient:
    client = LanguageClient(converter_factory=default_converter)
    for method, handler in DEFAULT_CLIENT_FEATURES.items():
        if method != types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            client.feature(method)(handler)
    client.published = []  # type: ignore[attr-defined]
    client.registrations = []  # type: ignore[attr-defined]

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(ls: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        ls.diagnostics[params.uri] = params.diagnostics
        ls.published.append(params)  # type: ignore[attr-defined]

    @client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(ls: LanguageClient, params: types.RegistrationParams) -> None:
        ls.registrations.append(params)  # type: ignore[attr-defined]

    return client


def capabilities(name: str = "visual-studio-code", notebooks: bool = True) -> types.ClientCapabilities:
    """A real editor's client capabilities (as pytest-lsp recorded them), with notebook sync if asked."""
    caps = client_capabilities(name)
    if notebooks:
        caps.notebook_document = types.NotebookDocumentClientCapabilities(
            synchronization=types.NotebookDocumentSyncClientCapabilities())
    return caps


def uri(path: Path) -> str:
    return path.resolve().as_uri()


class Session:
    """The client's side of one server: its documents' texts and versions, and what the server sent."""

    def __init__(self, client: LanguageClient, root: Path, encoding: str = "utf-16") -> None:
        self.client = client
        self.root = root
        self.encoding = encoding
        self.texts: dict[str, str] = {}
        self.versions: dict[str, int] = {}

    async def start(self, caps: Optional[types.ClientCapabilities] = None) -> types.InitializeResult:
        result = await self.client.initialize_session(types.InitializeParams(
            capabilities=caps or capabilities(),
            workspace_folders=[types.WorkspaceFolder(uri=uri(self.root), name=self.root.name)]))
        self.encoding = str(result.capabilities.position_encoding or "utf-16")
        return result

    # -- documents

    def open(self, path: Path, text: Optional[str] = None, language: str = "python") -> str:
        document = uri(path)
        text = path.read_text(encoding="utf-8") if text is None else text
        self.texts[document], self.versions[document] = text, 1
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=document, language_id=language, version=1, text=text)))
        return document

    def change(self, document: str, start: tuple[int, int], end: tuple[int, int], new: str) -> int:
        """An incremental change (positions in the session's encoding); returns the new version."""
        text = self.texts[document]
        a, b = offset(text, *start, self.encoding), offset(text, *end, self.encoding)
        self.texts[document] = text[:a] + new + text[b:]
        self.versions[document] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=document, version=self.versions[document]),
            content_changes=[types.TextDocumentContentChangePartial(range=_range(start, end), text=new)]))
        return self.versions[document]

    def replace(self, document: str, text: str) -> int:
        """A whole-text change; returns the new version."""
        self.texts[document] = text
        self.versions[document] += 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=document, version=self.versions[document]),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return self.versions[document]

    def close(self, document: str) -> None:
        self.texts.pop(document, None)
        self.versions.pop(document, None)
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(document)))

    def open_notebook(self, path: Path, cells: list[tuple[str, str]]) -> tuple[str, list[str]]:
        """A notebook of (kind, text) cells, kind "code" or "markdown"; returns its URI and its cells' URIs."""
        notebook = uri(path)
        cell_uris = [f"vscode-notebook-cell:{path.resolve()}#C{i}" for i in range(len(cells))]
        documents = []
        for cell_uri, (kind, text) in zip(cell_uris, cells):
            self.texts[cell_uri], self.versions[cell_uri] = text, 1
            documents.append(types.TextDocumentItem(uri=cell_uri, language_id="python" if kind == "code" else
                                                    "markdown", version=1, text=text))
        self.client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
            notebook_document=types.NotebookDocument(
                uri=notebook, notebook_type="jupyter-notebook", version=1,
                cells=[types.NotebookCell(kind=types.NotebookCellKind.Code if kind == "code" else
                                          types.NotebookCellKind.Markup, document=cell_uri)
                       for cell_uri, (kind, _) in zip(cell_uris, cells)]),
            cell_text_documents=[d for d, (kind, _) in zip(documents, cells) if kind == "code"]))
        return notebook, cell_uris

    # -- what the server sent

    async def diagnostics(self, document: str, version: Optional[int] = None, after: int = 0,
                          timeout: float = TIMEOUT) -> list[types.Diagnostic]:
        """The first diagnostics published for *document* (at *version*, when given) after the *after*-th
        publication of the session."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for params in self.client.published[after:]:  # type: ignore[attr-defined]
                if params.uri == document and (version is None or params.version == version):
                    return list(params.diagnostics)
            await asyncio.sleep(0.01)
        raise AssertionError(f"no diagnostics for {document} (version {version}) within {timeout} s")

    @property
    def count(self) -> int:
        """How many publications so far (for :meth:`diagnostics`'s *after*)."""
        return len(self.client.published)  # type: ignore[attr-defined]

    async def actions(self, document: str, start: tuple[int, int], end: Optional[tuple[int, int]] = None,
                      only: Optional[list[str]] = None) -> list[types.CodeAction]:
        found = await asyncio.wait_for(self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(document), range=_range(start, end or start),
            context=types.CodeActionContext(diagnostics=[], only=only))), TIMEOUT)
        return [a for a in found or () if isinstance(a, types.CodeAction)]

    async def resolved(self, action: types.CodeAction) -> types.CodeAction:
        if action.edit is not None:
            return action
        return await asyncio.wait_for(self.client.code_action_resolve_async(action), TIMEOUT)

    def apply(self, edit: types.WorkspaceEdit) -> dict[str, str]:
        """The texts the edit gives (documents not open are new files the edit creates)."""
        out: dict[str, str] = {}
        for change in edit.document_changes or ():
            if isinstance(change, types.CreateFile):
                assert change.uri not in self.texts and change.options and not change.options.overwrite
                out[change.uri] = ""
                continue
            assert isinstance(change, types.TextDocumentEdit)
            document = change.text_document.uri
            if document in self.texts:
                assert change.text_document.version == self.versions[document], "an edit for another version"
            out[document] = apply_edits(out.get(document, self.texts.get(document, "")), change.edits,
                                        self.encoding)
        for document, found in (edit.changes or {}).items():
            out[document] = apply_edits(self.texts[document], found, self.encoding)
        return out

    async def shutdown(self) -> None:
        await asyncio.wait_for(self.client.shutdown_session(), TIMEOUT)


def offset(text: str, line: int, character: int, encoding: str) -> int:
    rows = _ROW.findall(text)
    if line >= len(rows):
        return len(text)
    start = sum(len(r) for r in rows[:line])
    content = rows[line].rstrip("\r\n")
    counted = 0
    for index, char in enumerate(content):
        if counted >= character:
            return start + index
        counted += _UNITS[encoding](char)
    return start + len(content)


def position(text: str, index: int, encoding: str) -> tuple[int, int]:
    rows = _ROW.findall(text)
    start = 0
    for line, row in enumerate(rows):
        if index < start + len(row) or line == len(rows) - 1:
            return line, sum(_UNITS[encoding](c) for c in row[: index - start])
        start += len(row)
    return 0, 0


def apply_edits(text: str, found: Any, encoding: str) -> str:
    spans = sorted(((offset(text, e.range.start.line, e.range.start.character, encoding),
                     offset(text, e.range.end.line, e.range.end.character, encoding), e.new_text) for e in found),
                   key=lambda s: s[:2])
    for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
        assert end <= start, "overlapping edits"
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


def _range(start: tuple[int, int], end: tuple[int, int]) -> types.Range:
    return types.Range(start=types.Position(*start), end=types.Position(*end))
