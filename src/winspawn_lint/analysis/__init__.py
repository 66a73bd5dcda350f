"""The one analysis every front end shares: ``run(tree, ...) -> [Finding]``.

A cheap text prefilter (:mod:`.prefilter`) runs first in the front ends, so
files that mention no worker-starting API are never parsed.  For the rest: one
indexing walk, name resolution, the worker model, then the check families.
"""

from __future__ import annotations

import ast
import os
from typing import TYPE_CHECKING, Optional

from ..finding import Finding
from ..settings import Settings

if TYPE_CHECKING:
    from .project import Project


def run(tree: ast.Module, lines: list[str], settings: Settings, filename: Optional[str], project: "Project",
        enabled: Optional[frozenset[str]] = None, on_disk: bool = False) -> list[Finding]:
    """Findings for one parsed module, sorted by position. *lines*: the source lines, without endings;
    *project*: the reader of the project's other files (see :mod:`.project`); *on_disk*: the text is the file's
    as it is on disk (not an editor's buffer, stdin or the fixer's rewrite), so the project's readers may share
    its parsed module."""
    with project.holding():  # (what this check takes from the project's modules stays alive until it ends)
        return _run(tree, lines, settings, filename, project, enabled, on_disk)


def _run(tree: ast.Module, lines: list[str], settings: Settings, filename: Optional[str], project: "Project",
         enabled: Optional[frozenset[str]], on_disk: bool) -> list[Finding]:
    # Imported here, not at the top: the prefilter is in this package, and a one-file run (pre-commit) whose
    # file it rejects should not pay for importing the analysis.
    from .checks import import_time, pickling, reimport, run_time_settings
    from .context import Context
    from .flow import Flow
    from .index import ModuleIndex
    from .inference import Inference
    from .names import Resolver
    from .positions import Positions
    from .prefilter import may_have_findings
    from .project import ProjectModule
    from .taint import Engine, Unit
    from .values import Values
    from .workers import WorkerFinder

    path = os.path.abspath(filename) if filename else None
    # (the file's module as the project reader has it: facts about other modules found while checking another
    # file then name this module's nodes, and are shared, not found again for each file)
    module = project.adopt(path, tree) if on_disk and path else None
    if module is not None:
        index, resolver = module.index, module.resolver
    else:
        index = ModuleIndex(tree)
        resolver = Resolver(index, filename, project)
    inference = Inference(filename, index, project)
    values = Values(resolver, inference.constant)
    registry = settings.registry
    flow = Flow(index, resolver)
    finder = WorkerFinder(index, resolver, values, registry, settings.assume_workers, flow)
    model = finder.find()
    notebook = filename is not None and filename.lower().endswith(".ipynb")
    shared = module is not None
    if module is None:
        module = ProjectModule(path or "<text>", index, resolver)
    names_api = may_have_findings("\n".join(lines), registry)
    engine = Engine(project, registry, settings.assume_workers, Unit(path, module, notebook=notebook),
                    main_names_api=names_api, main_text=None if shared else "\n".join(lines))
    ctx = Context(index, resolver, values, finder, model, registry, Positions(lines), filename,
                  enabled if enabled is not None else settings.enabled_for(filename), flow, notebook=notebook,
                  project=project, engine=engine)
    # A kernel's `__main__` has no file: spawned workers never re-import a notebook, so WSP1xx do not apply there.
    # Nor do they re-run a `__main__.py` (`python -m pkg`, a directory, a zipapp): `multiprocessing.spawn` skips a
    # main module of that name (`_fixup_main_from_name`), so what its top level does runs once.
    checks = (pickling,) if notebook else (pickling, reimport, run_time_settings) if _is_dunder_main(filename) \
        else (import_time, pickling, reimport, run_time_settings)
    with project.checking(path, module, on_disk=shared):
        engine.module_facts(engine.main)  # (first, while the engine is new: see Engine.module_facts)
        for check in (module.check for module in checks):
            check(ctx)
    targets = settings.platforms
    # A finding that cannot break where the code runs is not one (as ruff's target-version drops syntax rules).
    kept = [f for f in ctx.findings.values() if f.platforms is None or targets.intersection(f.platforms)]
    return sorted(kept, key=Finding.sort_key)


def _is_dunder_main(filename: Optional[str]) -> bool:
    return filename is not None and os.path.basename(filename) == "__main__.py"
