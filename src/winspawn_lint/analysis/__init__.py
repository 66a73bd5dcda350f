"""The one analysis every front end shares: ``run(tree, ...) -> [Finding]``.

A cheap text prefilter (:mod:`.prefilter`) runs first in the front ends, so
files that mention no worker-starting API are never parsed.  For the rest: one
indexing walk, name resolution, the worker model, then the check families.
"""

from __future__ import annotations

import ast
from typing import Optional

from ..finding import Finding
from ..settings import Settings


def run(tree: ast.Module, lines: list[str], settings: Settings, filename: Optional[str] = None,
        enabled: Optional[frozenset[str]] = None) -> list[Finding]:
    """Findings for one parsed module, sorted by position. *lines*: the source lines, without endings."""
    # Imported here, not at the top: the prefilter is in this package, and a one-file run (pre-commit) whose
    # file it rejects should not pay for importing the analysis.
    from .checks import import_time, pickled_values
    from .context import Context
    from .index import ModuleIndex
    from .inference import Inference
    from .names import Resolver
    from .positions import Positions
    from .values import Values
    from .workers import WorkerFinder

    index = ModuleIndex(tree)
    resolver = Resolver(index)
    inference = Inference(filename, index)
    values = Values(resolver, inference.constant)
    registry = settings.registry
    finder = WorkerFinder(index, resolver, values, registry, settings.assume_workers)
    model = finder.find()
    ctx = Context(index, resolver, values, finder, model, registry, Positions(lines), filename,
                  enabled if enabled is not None else settings.enabled_for(filename))
    for check in (import_time.check, pickled_values.check):
        check(ctx)
    return sorted(ctx.findings.values(), key=Finding.sort_key)
