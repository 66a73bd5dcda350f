"""The language server's text handling (``server/text.py``, ``server/documents.py``), without a server process.

Specification: positions count the client's code units on rows that end at ``\\n``, ``\\r\\n`` or ``\\r`` only
(a form feed is not a line end); an incremental change lands where the client meant it; the edits that turn one
text into another are small (a block moved one level deeper is an indentation per row), never touch each
other, never split a ``\\r\\n``, and applied by any client give the new text.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("pygls", reason="the language server's extra (lsp) is not installed")

from hypothesis import given, settings, strategies as st  # noqa: E402

from lsp_session import offset  # noqa: E402  (an LSP client's offsets, written independently of the server's)
from winspawn_lint.server.documents import Cell, Documents, cell_texts, uri_to_path  # noqa: E402
from winspawn_lint.server.text import UTF8, UTF16, UTF32, Rows, apply_change, edits  # noqa: E402

ENCODINGS = (UTF8, UTF16, UTF32)
def client_apply(text: str, found, encoding: str) -> str:
    spans = [(offset(text, *start, encoding), offset(text, *end, encoding), new)
             for (start, end), new in found]
    for (_, end, _), (start, _, _) in zip(spans, spans[1:]):
        assert end < start, "edits must be in order and must not touch"
    for start, end, new in reversed(spans):
        text = text[:start] + new + text[end:]
    return text


PIECES = st.sampled_from(["a", "b", "x = 1", "\n", "\r\n", "\r", "    ", "é", "😀", "\x0c", "\t", "#"])
TEXTS = st.lists(PIECES, max_size=25).map("".join)


@settings(max_examples=300, deadline=None)
@given(old=TEXTS, new=TEXTS, encoding=st.sampled_from(ENCODINGS))
def test_edits_make_the_new_text(old, new, encoding):
    found = edits(old, new, encoding)
    assert client_apply(old, found, encoding) == new
    for (start, end), _ in found:
        for line, character in (start, end):
            at = offset(old, line, character, encoding)
            assert not (0 < at < len(old) and old[at - 1] == "\r" and old[at] == "\n")


def test_a_block_moved_deeper_is_an_indentation_per_row():
    old = "import os\nx = f()\ny = g(x)\n"
    new = "import os\n\n\ndef main():\n    x = f()\n    y = g(x)\n\n\nmain()\n"
    assert edits(old, new) == [
        (((1, 0), (1, 0)), "\n\ndef main():\n    "),
        (((2, 0), (2, 0)), "    "),
        (((3, 0), (3, 0)), "\n\nmain()\n"),
    ]


def test_a_changed_word_is_the_only_edit():
    assert edits("a = lambda b: b\n", "a = _collate\n") == [(((0, 4), (0, 15)), "_collate")]


@pytest.mark.parametrize("encoding, character", [(UTF8, 12), (UTF16, 9), (UTF32, 8)])
def test_positions_count_the_clients_code_units(encoding, character):
    text = "\x0cs = '😀é'\nnext\n"  # a form feed does not end a line
    rows = Rows(text, encoding)
    assert rows.at(0, 8) == (0, character)  # the closing quote
    assert rows.offset((0, character)) == 8
    assert rows.offset((1, 2)) == len("\x0cs = '😀é'\n") + 2


@settings(max_examples=200, deadline=None)
@given(text=TEXTS, start=st.integers(0, 30), length=st.integers(0, 5), new=TEXTS,
       encoding=st.sampled_from(ENCODINGS))
def test_an_incremental_change_lands_where_the_client_meant(text, start, length, new, encoding):
    start = min(start, len(text))
    end = min(start + length, len(text))
    while 0 < start < len(text) and text[start - 1] == "\r" and text[start] == "\n":
        start -= 1  # a client never puts a position between \r and \n
    end = max(end, start)
    while 0 < end < len(text) and text[end - 1] == "\r" and text[end] == "\n":
        end += 1
    rows = Rows(text, encoding)
    changed = apply_change(text, rows.position(start), rows.position(end), new, encoding)
    assert changed == text[:start] + new + text[end:]


def test_a_notebook_is_checked_as_json_with_its_cells():
    documents = Documents()
    documents.open_notebook("file:///w/nb.ipynb", 3, [Cell("cell-1", False), Cell("cell-2", True),
                                                       Cell("cell-3", True)])
    documents.open("cell-2", "x = 1\n", 1, "python", "file:///w/nb.ipynb")
    documents.open("cell-3", "%time y = 2", 4, "python", "file:///w/nb.ipynb")
    subject = documents.subject("cell-3")
    assert subject.uri == "file:///w/nb.ipynb" and subject.notebook and subject.path == "/w/nb.ipynb"
    assert subject.cells == (None, "cell-2", "cell-3") and subject.uri_of(3) == "cell-3"
    assert cell_texts(subject.text) == [None, "x = 1\n", "%time y = 2"]
    assert json.loads(subject.text)["nbformat"] == 4
    assert documents.current(subject)
    documents.change("cell-2", 2, [(None, None, "x = 2\n")])
    assert not documents.current(subject)


def test_only_file_uris_have_paths():
    assert uri_to_path("file:///home/me/a%20b.py") == "/home/me/a b.py"
    assert uri_to_path("untitled:Untitled-1") is None
