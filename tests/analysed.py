"""A module analysed in memory, for the unit tests of ``winspawn_lint.analysis`` (``tests/analysis/``).

:func:`analyse` builds what ``analysis.run`` builds before any check runs -- the index, the resolver, the
value folder and the worker model, with the default registry and no astroid inference -- so that a test
can ask one of them one question about a few lines of source.
"""

from __future__ import annotations

import ast
import textwrap
from dataclasses import dataclass

from winspawn_lint.analysis.index import ModuleIndex, Scope, Site
from winspawn_lint.analysis.names import Resolver
from winspawn_lint.analysis.values import Values
from winspawn_lint.analysis.workers import WorkerFinder, WorkerModel
from winspawn_lint.spawn_apis import DEFAULT_REGISTRY


@dataclass
class Analysed:
    source: str
    tree: ast.Module
    index: ModuleIndex
    resolver: Resolver
    values: Values
    finder: WorkerFinder
    model: WorkerModel

    def text(self, node: ast.AST) -> str:
        return ast.get_source_segment(self.source, node) or ""

    def call(self, text: str) -> tuple[ast.Call, Site]:
        """The indexed call whose source is exactly *text* (the first one in the file), with its site."""
        for call, site in sorted(self.index.calls, key=lambda item: (item[0].lineno, item[0].col_offset)):
            if self.text(call) == text:
                return call, site
        raise LookupError(f"no call {text!r} in\n{self.source}")

    def function(self, name: str) -> Scope:
        """The scope of the (first) function named *name*."""
        for node, scope in self.index.functions.items():
            if node.name == name:
                return scope
        raise LookupError(f"no function {name!r}")

    def starts(self) -> list[str]:
        """The source of every node the worker model says starts workers, in file order."""
        return [self.text(event.node) for event in sorted(self.model.starts, key=lambda e: (e.node.lineno,
                                                                                            e.node.col_offset))]

    def payloads(self) -> list[str]:
        """The source of every value the worker model says is pickled for workers, in file order."""
        return [self.text(p.expr) for p in sorted(self.model.payloads, key=lambda p: (p.expr.lineno,
                                                                                      p.expr.col_offset))]


def analyse(source: str, assume_workers: bool = True) -> Analysed:
    source = textwrap.dedent(source)
    tree = ast.parse(source)
    index = ModuleIndex(tree)
    resolver = Resolver(index)
    values = Values(resolver)
    finder = WorkerFinder(index, resolver, values, DEFAULT_REGISTRY, assume_workers)
    return Analysed(source, tree, index, resolver, values, finder, finder.find())
