"""What the language server asks of the runner, kept warm between requests: one
:class:`~..analysis.project.Project` per workspace folder (and worker APIs configured), the settings of each
directory, and what each open document's findings depend on.

Everything here runs on the server's one analysis thread (a ``Project`` is not shared between threads).
The checks and fixes are the runner's (:func:`..runner.check_buffer`): this module chooses the settings and
the project for a document, and remembers what the result depends on, so that a change to one of those files
re-checks the documents that read it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ..analysis.importers import needs_grade
from ..analysis.project import Project
from ..finding import Finding
from ..runner import FileResult, Job, check_buffer
from ..settings import ConfigError, Settings, configured
from ..spawn_apis import Registry
from .documents import Subject

#: files whose change may change every document's settings or line length (see ..io.line_length)
CONFIG_FILES = ("pyproject.toml", "setup.cfg", "tox.ini", ".flake8")


@dataclass
class Report:
    """A check of a subject: the runner's result, the settings it was checked with, and what it read."""

    subject: Subject
    result: FileResult
    settings: Optional[Settings]
    #: the configuration could not be read (the message names the file and key); nothing was checked
    config_error: Optional[str] = None
    #: the document is excluded by the configuration; nothing was checked
    excluded: bool = False
    dependencies: set[str] = field(default_factory=set)
    #: the findings with their fixes planned (see Linter.planned), once asked for
    planned: Optional[list[Finding]] = None

    @property
    def findings(self) -> list[Finding]:
        return self.result.findings if self.config_error is None and not self.excluded else []


class Linter:
    """The runner's front for open documents (see the module docstring)."""

    def __init__(self, folders: tuple[str, ...] = ()) -> None:
        self.folders: list[str] = []
        #: (workspace folder, None outside every folder; the registry of worker APIs of the settings a file is
        #: checked with) -> the reader of that folder's files.  A project's search reads its files' text for
        #: those APIs, as the command line's reader does for its run's settings: files checked with other APIs
        #: (another configuration) have a reader of their own.
        self.projects: dict[tuple[Optional[str], Registry], Project] = {}
        for folder in folders:
            self.add_folder(folder)
        #: directory -> (its settings or the configuration error, each pyproject.toml examined with its stamp)
        self._settings: dict[str, tuple[object, tuple[tuple[Path, Optional[tuple[int, int]]], ...]]] = {}

    # ---------------------------------------------------------------- workspace folders

    def add_folder(self, folder: str) -> None:
        folder = os.path.abspath(folder)
        if folder not in self.folders:
            self.folders.append(folder)

    def remove_folder(self, folder: str) -> None:
        folder = os.path.abspath(folder)
        if folder in self.folders:
            self.folders.remove(folder)
            for key in [key for key in self.projects if key[0] == folder]:
                del self.projects[key]

    def project_for(self, folder: Optional[str], settings: Settings) -> Project:
        """The reader of *folder*'s files for checks with *settings*."""
        key = (folder, settings.registry)
        project = self.projects.get(key)
        if project is None:
            project = self.projects[key] = Project(settings.registry)
        return project

    def folder_of(self, path: Optional[str]) -> Optional[str]:
        """The innermost workspace folder holding *path*."""
        if path is None:
            return None
        best = None
        for folder in self.folders:
            if (path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)) and \
                    (best is None or len(folder) > len(best)):
                best = folder
        return best

    # ---------------------------------------------------------------- settings, as the command line reads them

    def settings_for(self, path: Optional[str]) -> Settings:
        """The settings ``winspawn-lint PATH`` would check *path* with; for an untitled buffer, those of the
        first workspace folder (as stdin is checked with the current directory's).  Cached per directory while
        every ``pyproject.toml`` examined keeps its stamp."""
        directory = os.path.dirname(path) if path is not None else (self.folders[0] if self.folders else None)
        if directory is None:
            return Settings()
        cached = self._settings.get(directory)
        if cached is None or any(_stamp(candidate) != stamp for candidate, stamp in cached[1]):
            looked_at: list[Path] = []
            try:
                value: object = configured(directory, looked_at=looked_at)
            except ConfigError as error:
                value = error
            cached = self._settings[directory] = (value, tuple((c, _stamp(c)) for c in looked_at))
        if isinstance(cached[0], ConfigError):
            raise cached[0]
        return cached[0]  # type: ignore[return-value]

    # ---------------------------------------------------------------- checks and fixes

    def check(self, subject: Subject) -> Report:
        """The findings of *subject*'s text, with their fixes' safety, and what they depend on."""
        try:
            settings = self.settings_for(subject.path)
        except ConfigError as error:
            return Report(subject, FileResult(subject.path or "-"), None, config_error=str(error))
        folder = self.folder_of(subject.path)
        # Only the names below the workspace folder count (a checkout under ~/env/ must not exclude itself).
        if subject.path is not None and \
                settings.is_excluded(subject.path, below=folder or os.path.dirname(subject.path)):
            return Report(subject, FileResult(subject.path), settings, excluded=True)
        read: dict = {}
        # The diagnostics wait for the check only: the fixes are planned when a code action asks (self.planned).
        result = check_buffer(subject.path, subject.text,
                              Job(settings, unsafe_fixes=settings.unsafe_fixes, plan_fixes=False),
                              self.project_for(folder, settings), notebook=subject.notebook, dependencies=read)
        return Report(subject, result, settings, dependencies=set(read))

    def planned(self, report: Report) -> list[Finding]:
        """The report's findings, each with the safety of the fix ``--fix`` would make of it here (``NONE`` where
        the fixer declines it), planned once per report."""
        if report.planned is None:
            if not report.findings or report.settings is None:
                report.planned = report.findings
            else:
                subject = report.subject
                report.planned = check_buffer(
                    subject.path, subject.text, Job(report.settings, unsafe_fixes=report.settings.unsafe_fixes),
                    self.project_for(self.folder_of(subject.path), report.settings),
                    notebook=subject.notebook).findings
        return report.planned

    def fix(self, report: Report, only: Optional[frozenset[Finding]] = None, unsafe: bool = False) -> FileResult:
        """What the fix makes of the report's text: every safe fix (and unsafe ones with *unsafe*), or only
        those of the findings in *only*.  ``fixed_text`` is None when nothing changed (``fix_note`` says why)."""
        settings = report.settings or Settings()
        job = Job(settings, diff=True, unsafe_fixes=unsafe, only=only)
        subject = report.subject
        return check_buffer(subject.path, subject.text, job, self.project_for(self.folder_of(subject.path), settings),
                            notebook=subject.notebook)

    # ---------------------------------------------------------------- changes on disk

    def files_changed(self, paths: list[str]) -> bool:
        """Files changed on disk; returns whether any was a configuration file (every document is then
        checked again).  The projects' searches across their files are forgotten; what they read file by file
        re-validates itself."""
        for project in self.projects.values():
            project.files_changed()
        config = any(os.path.basename(path) in CONFIG_FILES for path in paths)
        if config:
            self._settings.clear()
            self.projects.clear()  # (readers for worker APIs no configuration may name any more)
        return config

    @staticmethod
    def affected(report: Report, paths: set[str]) -> bool:
        """Whether a change to *paths* (absolute) may change *report*: it read one of them, or a finding's fix
        safety depends on which project files import it (any Python file may now)."""
        if report.dependencies & paths:
            return True
        return any(p.endswith((".py", ".pyi")) for p in paths) and needs_grade(report.findings)


def _stamp(path: Path) -> Optional[tuple[int, int]]:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_size, stat.st_mtime_ns)
