"""The one per-file pipeline every front end shares: prefilter → parse → analyse → ``# noqa`` → findings.

The per-file driver (:mod:`.runner`) reads and decodes a file and hands its text here, and so does the fixer's
re-check of a text it rewrote (through the check function the driver gives it); the flake8 plugin hands the text,
tree and file name flake8 already has.  Front ends only format and filter what comes back, so the same text gives
the same findings, at the same lines and columns, whichever way it arrives.
"""

from __future__ import annotations

import ast
import os
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, Optional

from .finding import Finding
from .records import Record
from .rules import FixSafety
from .settings import Settings
from .io.compact_tree import parses_only_as_python_3_6
from .io.source import Source, parse, split_lines

if TYPE_CHECKING:
    from .analysis.project import Project
    from .spawn_apis import Registry


class Checked(Record):
    """What the pipeline made of one text."""

    __slots__ = ("findings", "lines", "tree")

    def __init__(self, findings: list[Finding], lines: Optional[list[str]], tree: Optional[ast.Module] = None) -> None:
        self.findings = findings
        #: the source lines as Python numbers them (see :func:`.source.split_lines`); None when the prefilter
        #: proved the text clean and nothing needed them
        self.lines = lines
        #: the text's ``ast`` when it was analysed (the fixer reads the same tree)
        self.tree = tree


def check(text: str, filename: Optional[str] = None, settings: Optional[Settings] = None, *,
          project: Optional["Project"] = None, tree: Optional[ast.Module] = None, noqa: bool = True,
          prefilter: bool = True, parse_clean: bool = False, enabled: Optional[frozenset[str]] = None,
          on_disk: Optional[bool] = False) -> Checked:
    """Check decoded source text.

    *project*: the reader of the project's other files that the caller keeps for its run (a new one when
    ``None``: nothing is shared with other calls).  *tree*: the text's ``ast`` tree when the caller has one (flake8).  *noqa*: apply ``# noqa`` comments (off
    for flake8, which applies its own).  *prefilter*: skip texts that mention no worker-starting API.
    *parse_clean*: parse a text the prefilter skips anyway, so that a file named on the command line that does
    not parse is reported.  *enabled*: the codes to report (default: the settings' selection for *filename*).
    *on_disk*: *text* is the file's as it is on disk (see :func:`.analysis.run`); None: compare it with the file
    (read again only when the text is analysed).
    Raises :class:`.source.SourceError` when the text cannot be parsed.
    """
    from .analysis.prefilter import may_have_findings

    from .analysis.project import Project

    settings = settings or Settings()
    if project is None:
        project = Project(settings.registry)
    # The text names no worker API, and the modules around it give it none to reach: nothing to find.
    if prefilter and not may_have_findings(text, settings.registry):
        relevant = False
        if filename and filename != "-":
            relevant, on_disk = _relevant(text, filename, project, on_disk)
        if not relevant:
            if parse_clean and tree is None:
                parse(Source(text, "utf-8", False), filename or "<unknown>")
            return Checked([], None)
    from . import analysis
    from .report import noqa as noqa_module

    if tree is None and filename and not filename.lower().endswith(".ipynb"):
        if on_disk is None:
            on_disk = _is_the_file(text, filename)
        if on_disk:
            tree = project.parsed(filename)  # (read already for another file's check: it is not parsed again)
    if tree is None:
        tree = parse(Source(text, "utf-8", False), filename or "<unknown>")
    lines = split_lines(text)
    if on_disk is None:
        on_disk = _is_the_file(text, filename)
    findings = analysis.run(tree, lines, settings, filename, project, enabled, on_disk)
    if findings and parses_only_as_python_3_6(text):  # (its fixes could not be checked to compile)
        findings = [finding.replace(fix_safety=FixSafety.NONE) for finding in findings]
    if noqa:
        findings = noqa_module.filter_findings(findings, text, lines)
    return Checked(findings, lines, tree)


def _relevant(text: str, filename: str, project: "Project", on_disk: Optional[bool]) -> tuple[bool, Optional[bool]]:
    """Whether the modules around the file at *filename* may give *text*, which names no worker API, a finding:
    through the file's imports and importers, or, when *text* is not the file's (an editor's buffer), through
    what *text* imports; and *on_disk*, decided when it had to be (the file is read once)."""
    if project.relevant(filename):
        return True, on_disk
    if on_disk is None:
        on_disk = _is_the_file(text, filename)
    return not on_disk and project.text_reaches(filename, text), on_disk


def _is_the_file(text: str, filename: Optional[str]) -> bool:
    """Whether *text* is the file's at *filename* as it is on disk now."""
    from .io.source import SourceError, read

    if not filename or filename in ("-", "stdin"):
        return False
    try:
        return read(filename).text == text
    except SourceError:
        return False


#: the reader of the project's files that the public API's calls share (``check_text``, ``fix_text``), with the
#: registry it reads for; one call at a time holds it (:func:`api_project`)
_API_PROJECT: Optional["Project"] = None
_API_LOCK = threading.Lock()


def _forget_api_project() -> None:
    # (a child forked while another thread held the lock would wait for it forever; and what the parent's reader
    # kept is the parent's)
    global _API_PROJECT, _API_LOCK
    _API_PROJECT, _API_LOCK = None, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_api_project)


@contextmanager
def api_project(registry: "Registry") -> Iterator["Project"]:
    """The reader of the project's files for one call of the public API, held by the block alone.

    A reader of its own for each call searched the whole project again, file by file, for every call: about a
    second per call inside pytorch-image-models, and, where no marker names a project, a walk of the whole current
    folder.  The kept one answers as a new one would: every module or fact it kept checks itself against the
    stamps of the files it read (as the language server's does between edits), and a search across the project is
    kept while the folders it listed and the files it found are unchanged (:meth:`.Project.files_may_have_changed`),
    else done again from what it remembers of each file whose size and mtime are unchanged
    (:class:`.io.cache.ScanMemory`, kept in memory only).
    """
    global _API_PROJECT
    from .analysis.project import Project
    from .io.cache import ScanMemory

    with _API_LOCK:
        project = _API_PROJECT
        if project is None or project.registry is not registry:
            project = _API_PROJECT = Project(registry)
            project.scan_memory = ScanMemory.recorder()
        else:
            project.files_may_have_changed()
        yield project
