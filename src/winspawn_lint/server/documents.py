"""The documents an editor has open, as the server keeps them: Python text documents and Jupyter notebooks
(LSP 3.17 notebook document sync, each code cell its own text document).

The server keeps the text itself rather than pygls's copy: pygls splits lines with ``str.splitlines``, which
also breaks at form feeds and other characters that LSP and Python do not count as line ends, so its
incremental edits land in the wrong place after such a character (and a fix computed on a wrong text would
corrupt the user's buffer).  Here every change is applied with :mod:`.text`.

What gets checked is a :class:`Subject`: a Python document's text, or a notebook rebuilt as nbformat-4 JSON from
its cells (the runner reads notebooks as JSON, :mod:`..io.notebook`), with the URI of each cell, so that a
finding's cell number leads back to the cell's document.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Iterable, Optional
from urllib.parse import unquote, urlparse

from ..io.notebook import SUFFIX as NOTEBOOK_SUFFIX
from .text import UTF16, apply_change

#: what the runner is told a notebook without a file is called
UNTITLED_NOTEBOOK = "untitled.ipynb"
_PYTHON_SUFFIXES = (".py", ".pyi")


def uri_to_path(uri: str) -> Optional[str]:
    """The file system path of a ``file:`` URI; None for any other scheme (an untitled buffer)."""
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return None
    path = unquote(parsed.path)
    if os.name == "nt" and len(path) > 2 and path[0] == "/" and path[2] == ":":
        path = path[1:]  # /C:/x -> C:/x
    if parsed.netloc:  # a UNC path
        path = f"//{parsed.netloc}{path}"
    return os.path.normpath(path)


@dataclass
class TextDocument:
    uri: str
    text: str
    version: Optional[int]
    language: str
    #: the notebook this document is a cell of
    notebook: Optional[str] = None

    @property
    def path(self) -> Optional[str]:
        return uri_to_path(self.uri)

    @property
    def is_python(self) -> bool:
        path = self.path or ""
        return self.language == "python" or path.endswith(_PYTHON_SUFFIXES)


@dataclass
class Cell:
    document: str  # the cell's text document URI
    code: bool  # a code cell (not markup)


@dataclass
class NotebookDocument:
    uri: str
    version: Optional[int]
    cells: list[Cell] = field(default_factory=list)

    @property
    def path(self) -> Optional[str]:
        return uri_to_path(self.uri)


@dataclass(frozen=True)
class Subject:
    """One thing to check, as it stands now: a Python document or a whole notebook."""

    uri: str  # the text document's or the notebook's
    path: Optional[str]  # the file it is, None for an untitled buffer
    text: str  # Python source, or a notebook's JSON
    notebook: bool
    #: the URI that findings in cell N (1-based, every cell counted) belong to; a Python document's only entry
    #: is its own URI, for cell None
    cells: tuple[Optional[str], ...]
    #: every URI and its version: a result is current while these are
    versions: tuple[tuple[str, Optional[int]], ...]

    def uri_of(self, cell: Optional[int]) -> Optional[str]:
        if not self.notebook:
            return self.uri
        if cell is None or not 1 <= cell <= len(self.cells):
            return None
        return self.cells[cell - 1]

    def cell_of(self, uri: str) -> Optional[int]:
        """The cell number of the document at *uri* (None for a Python document)."""
        return self.cells.index(uri) + 1 if self.notebook and uri in self.cells else None

    @property
    def uris(self) -> tuple[str, ...]:
        return tuple(uri for uri in self.cells if uri is not None) if self.notebook else (self.uri,)


class Documents:
    """The open documents, changed as the client says."""

    def __init__(self, encoding: str = UTF16) -> None:
        self.encoding = encoding
        self.texts: dict[str, TextDocument] = {}
        self.notebooks: dict[str, NotebookDocument] = {}

    # ---------------------------------------------------------------- text documents

    def open(self, uri: str, text: str, version: Optional[int], language: str,
             notebook: Optional[str] = None) -> None:
        self.texts[uri] = TextDocument(uri, text, version, language, notebook)

    def change(self, uri: str, version: Optional[int],
               changes: Iterable[tuple[Optional[tuple[int, int]], Optional[tuple[int, int]], str]]) -> None:
        """Apply content changes, each (start, end, text) with start and end None for the whole text."""
        document = self.texts.get(uri)
        if document is None:
            return
        for start, end, new in changes:
            document.text = apply_change(document.text, start, end, new, self.encoding)
        document.version = version

    def close(self, uri: str) -> None:
        self.texts.pop(uri, None)

    # ---------------------------------------------------------------- notebooks

    def open_notebook(self, uri: str, version: Optional[int], cells: list[Cell]) -> None:
        self.notebooks[uri] = NotebookDocument(uri, version, list(cells))

    def restructure(self, uri: str, start: int, delete: int, cells: list[Cell]) -> None:
        """Cells *start* .. *start* + *delete* replaced by *cells* (a notebookDocument/didChange structure change;
        the new cells' documents are opened, the removed ones closed, separately)."""
        notebook = self.notebooks.get(uri)
        if notebook is not None:
            notebook.cells[start: start + delete] = list(cells)

    def set_cell_kinds(self, uri: str, kinds: dict[str, bool]) -> None:
        notebook = self.notebooks.get(uri)
        if notebook is not None:
            for cell in notebook.cells:
                cell.code = kinds.get(cell.document, cell.code)

    def close_notebook(self, uri: str) -> None:
        notebook = self.notebooks.pop(uri, None)
        for cell in notebook.cells if notebook else ():
            self.texts.pop(cell.document, None)

    # ---------------------------------------------------------------- what to check

    def subject(self, uri: str) -> Optional[Subject]:
        """What is checked for a document or notebook URI (a cell's: its notebook); None when nothing is (not
        open, not Python)."""
        document = self.texts.get(uri)
        if document is not None and document.notebook is not None:
            uri = document.notebook
        notebook = self.notebooks.get(uri)
        if notebook is not None:
            return self._notebook_subject(notebook)
        if document is None or not document.is_python:
            return None
        return Subject(uri, document.path, document.text, False, (uri,), ((uri, document.version),))

    def subjects(self) -> list[Subject]:
        """Every open document and notebook, once."""
        found = [self.subject(uri) for uri in [*self.notebooks,
                                               *(u for u, d in self.texts.items() if d.notebook is None)]]
        return [subject for subject in found if subject is not None]

    def _notebook_subject(self, notebook: NotebookDocument) -> Subject:
        cells, uris = [], []
        versions: list[tuple[str, Optional[int]]] = [(notebook.uri, notebook.version)]
        for cell in notebook.cells:
            document = self.texts.get(cell.document)
            # A code cell in another language has no text here (the server asks for Python cells only).
            if cell.code and document is not None and document.language in ("python", ""):
                cells.append({"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                              "source": document.text})
                uris.append(cell.document)
                versions.append((cell.document, document.version))
            else:
                cells.append({"cell_type": "markdown", "metadata": {}, "source": ""})
                uris.append(None)
        data = {"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
        text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
        path = notebook.path
        if path is not None and not path.lower().endswith(NOTEBOOK_SUFFIX):
            path = None  # the runner knows a notebook by its name
        return Subject(notebook.uri, path, text, True, tuple(uris), tuple(versions))

    def current(self, subject: Subject) -> bool:
        """Whether *subject* is still what is open (no document of it changed or closed since)."""
        for uri, version in subject.versions:
            now = self.notebooks.get(uri) or self.texts.get(uri)
            if now is None or now.version != version:
                return False
        return True

    def text_of(self, uri: str) -> Optional[str]:
        document = self.texts.get(uri)
        return document.text if document is not None else None


def cell_texts(notebook_json: str) -> list[Optional[str]]:
    """The source of each cell of a notebook's JSON (None for a cell that is not code), in order."""
    data = json.loads(notebook_json)
    out: list[Optional[str]] = []
    for cell in data.get("cells", []):
        source = cell.get("source", "")
        text = "".join(source) if isinstance(source, list) else source
        out.append(text if cell.get("cell_type") == "code" else None)
    return out
