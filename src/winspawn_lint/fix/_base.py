"""What every winspawn-lint codemod shares.

Each codemod is a libcst ``CodemodCommand``.  Through ``--fix`` it
receives the findings to fix; run on its own (``python -m libcst.tool codemod
-x winspawn_lint.fix.hoist_lambda.HoistLambda FILE``) it finds them itself by
checking the module with every rule enabled.
"""

from __future__ import annotations

import argparse
import ast
from typing import ClassVar, Optional, Sequence

import libcst as cst
from libcst.codemod import CodemodCommand, CodemodContext

from ..analysis.positions import Positions
from ..finding import Finding
from ..rules import RULES, Rule
from .imports import add_imports


def allowed(finding: Finding, unsafe: bool) -> bool:
    return finding.rule.fix_safety.applies(unsafe)


class WinspawnCodemod(CodemodCommand):
    """Base: holds the findings this codemod fixes and the notes on those it could not.

    A plain ``CodemodCommand``, not a ``VisitorBasedCodemodCommand``: each codemod overrides
    ``transform_module_impl`` and visits with small inner visitors, and the visitor base would scan
    every ``visit_*``/``leave_*`` attribute for matcher decorators on each instantiation (24 ms, measured:
    40% of ``--fix`` time before this change).
    """

    #: the rules this codemod fixes, from the catalogue
    FIXES: ClassVar[tuple[Rule, ...]] = ()

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument("--safe-only", dest="safe_only", action="store_true",
                                help="apply only fixes graded SAFE (default: unsafe fixes too)")

    def __init__(self, context: CodemodContext, findings: Optional[Sequence[Finding]] = None,
                 unsafe: bool = True, safe_only: bool = False) -> None:
        super().__init__(context)
        self._given = findings
        self.unsafe = unsafe and not safe_only
        self.notes: list[str] = []
        self.applied: list[Finding] = []
        self._imports: list[tuple[str, Optional[str]]] = []

    def transform_module(self, tree: cst.Module) -> cst.Module:
        self._imports = []
        tree = super().transform_module(tree)
        return add_imports(tree, self._imports) if self._imports else tree

    def add_import(self, module: str, name: Optional[str] = None) -> None:
        """Schedule ``import module`` or ``from module import name`` (see :mod:`.imports`)."""
        self._imports.append((module, name))

    # -- findings -------------------------------------------------------------------------------------
    def findings_for(self, text: str) -> list[Finding]:
        findings = self._given
        if findings is None:
            from .. import check_text
            from ..settings import Settings

            findings = check_text(text, self.context.filename, Settings(select=frozenset(RULES)))
        return [f for f in findings if f.rule in self.FIXES and allowed(f, self.unsafe)]

    def note(self, finding: Finding, why: str) -> None:
        self.notes.append(f"{finding.line}:{finding.col + 1}: {finding.code} not fixed: {why}")
        self.warn(self.notes[-1])

    # -- source helpers -------------------------------------------------------------------------------
    def prepare(self, tree: cst.Module) -> tuple[str, ast.Module, Positions]:
        text = tree.code
        return text, ast.parse(text), Positions.of(text)

    def parse_statements(self, tree: cst.Module, code: str) -> list[cst.BaseStatement]:
        """Statements from ``code`` (``\\n`` line ends; indents already in ``tree.default_indent``)."""
        code = code.replace("\r\n", "\n").replace("\r", "\n").replace("\n", tree.default_newline)
        parsed = cst.parse_module(code, config=tree.config_for_parsing)
        return list(parsed.body)

    def partial_ref(self, tree: ast.Module) -> str:
        """How to spell ``functools.partial`` here, scheduling the import when needed."""
        spelling = existing_spelling(tree, "functools", "partial")
        if spelling is None:
            self.add_import("functools")
            spelling = "functools.partial"
        return spelling


def existing_spelling(tree: ast.Module, module: str, name: str):
    """How the module already spells ``module.name`` at top level (``from module import name as x`` or
    ``import module as m``), or None when it imports neither."""
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == module and node.level == 0:
            for alias in node.names:
                if alias.name == name:
                    return alias.asname or name
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == module:
                    return f"{alias.asname or module}.{name}"
    return None


def blank_lines(count: int) -> list[cst.EmptyLine]:
    return [cst.EmptyLine(indent=False) for _ in range(count)]
