"""Per-file state shared by the checks: the index, resolution, the worker model, and the findings."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Any, Optional

from ..finding import Finding, notebook_line
from ..records import Record
from ..rules import FixSafety, Rule
from ..spawn_apis import (CONTEXTS, EVERYWHERE, PLATFORMS, UNKNOWN, Registry, SpawnAPI, breaks_on,
                          start_methods)
from .flow import Flow
from .index import ModuleIndex
from .names import Resolver
from .project import Project

if TYPE_CHECKING:
    from .taint import Engine
from .positions import Positions
from .values import Values
from .workers import WorkerFinder, WorkerModel


class Context(Record):
    __slots__ = ("index", "resolver", "values", "finder", "model", "registry", "positions", "filename", "enabled",
                 "flow", "findings", "notebook", "project", "engine", "worker")

    def __init__(self, index: ModuleIndex, resolver: Resolver, values: Values, finder: WorkerFinder, model: WorkerModel,
                 registry: Registry, positions: Positions, filename: Optional[str], enabled: frozenset[str],
                 flow: Optional[Flow] = None, findings: Optional[dict[tuple[str, int, int], Finding]] = None,
                 notebook: bool = False, project: Optional[Project] = None, engine: Optional["Engine"] = None,
                 worker: Optional[tuple[SpawnAPI, Optional[str], bool]] = None) -> None:
        self.index = index
        self.resolver = resolver
        self.values = values
        self.finder = finder
        self.model = model
        self.registry = registry
        self.positions = positions
        self.filename = filename
        self.enabled = enabled
        self.flow = flow
        self.findings = findings if findings is not None else {}
        #: the module is a Jupyter notebook's code cells (see ``winspawn_lint.io.notebook``): it runs in a kernel
        self.notebook = notebook
        #: the reader of the project's other files (None: the module is not a file of a project)
        self.project = project
        #: the project-wide taint analysis of this check (see :mod:`.taint`)
        self.engine = engine
        #: the worker API (and explicit start method, and whether it is a task) the findings being emitted are
        #: about; None: the module's worker starts as a whole.  Set by a check around its emits.
        self.worker = worker

    def emit(self, rule: Rule, node: ast.AST, line_only: bool = False, fix_hint: Optional[dict] = None,
             breaks: Optional[str] = None, fix_safety: Optional[FixSafety] = None, **args: Any) -> None:
        """``fix_safety``: this finding's, when it differs from the rule's (no fix for this case)."""
        code = rule.code
        if code not in self.enabled:
            return
        line = getattr(node, "lineno", 1)
        col = self.positions.char_col(line, getattr(node, "col_offset", 0))
        end_line = getattr(node, "end_lineno", None) or line
        end_col = self.positions.char_col(end_line, getattr(node, "end_col_offset", None) or 0)
        if line_only:  # a statement's whole extent is noise for `if`/`for` blocks: report their first line
            end_line, end_col = line, self.positions.line_length(line)
        if rule.fix_needs_hint and not fix_hint and fix_safety is None:
            fix_safety = FixSafety.NONE  # no construct for the fix to rewrite: promise none
        key = (code, line, col)
        if key not in self.findings:
            self.findings[key] = Finding(code, line, col, end_line, end_col,
                                         {k: str(v) for k, v in args.items()}, fix_hint or {},
                                         platforms=self.platforms(breaks or rule.breaks), fix_safety=fix_safety)

    def line_ref(self, line: int) -> str:
        """How a message names a line of this module: "line 12", or in a notebook the cell and its line."""
        return notebook_line(line) if self.notebook else f"line {line}"

    def platforms(self, condition: str) -> Optional[tuple[str, ...]]:
        """Where a hazard of this kind breaks, for the current worker or else any worker this module starts."""
        if condition == UNKNOWN:
            return None
        if self.worker is not None:
            api, explicit, task = self.worker
            return breaks_on(EVERYWHERE if task else condition, start_methods(api.context, explicit))
        found: set[str] = set()
        starts = [e for e in self.model.starts if e.api.reimports_main]
        for methods in [start_methods(e.api.context, e.method) for e in starts] or [CONTEXTS["default"]]:
            found.update(breaks_on(condition, methods) or ())
        return tuple(p for p in PLATFORMS if p in found)

    @property
    def starts_workers(self) -> bool:
        return any(event.api.reimports_main for event in self.model.starts)
