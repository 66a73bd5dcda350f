"""What every winspawn-lint codemod shares.

Each codemod is a libcst ``CodemodCommand``.  Through ``--fix`` it
receives the findings to fix; run on its own (``python -m libcst.tool codemod
-x winspawn_lint.fix.hoist_lambda.HoistLambda FILE``) it finds them itself by
checking the module with every rule enabled.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import dataclasses
import functools
from typing import ClassVar, Iterator, Optional, Sequence

import libcst as cst
from libcst.codemod import CodemodCommand, CodemodContext
from libcst.metadata import MetadataWrapper

from ..analysis.positions import Positions
from ..analysis.scopes import ScopeTree
from ..finding import Finding
from ..rules import RULES, Rule
from .imports import add_imports


def allowed(finding: Finding, unsafe: bool) -> bool:
    return finding.safety.applies(unsafe)


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
    def wants(finding: Finding) -> bool:
        """Whether this codemod can act on ``finding`` at all (the driver skips it otherwise)."""
        return True

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
        #: (finding, why) for each finding this codemod leaves; the driver reports them at on-disk positions
        self.declined: list[tuple[Finding, str]] = []
        self.applied: list[Finding] = []
        self._imports: list[tuple[str, Optional[str]]] = []
        #: the text of the tree given to transform_module, when the caller has it
        self.source_text: Optional[str] = None

    @contextlib.contextmanager
    def _handle_metadata_reference(self, module: cst.Module) -> Iterator[cst.Module]:
        """libcst's, with one MetadataWrapper per tree shared by every codemod that transforms it: the
        driver parses each text once, and positions are computed once (libcst's own copies the tree and
        computes them again for each codemod: most of the time ``--fix`` took)."""
        wrapper = _wrapper(module)
        previous = self.context.wrapper
        with self.resolve(wrapper):
            self.context = dataclasses.replace(self.context, wrapper=wrapper)
            try:
                yield wrapper.module
            finally:
                self.context = dataclasses.replace(self.context, wrapper=previous)

    def transform_module(self, tree: cst.Module) -> cst.Module:
        self._imports = []
        tree = super().transform_module(tree)
        return add_imports(tree, self._imports) if self._imports else tree

    def add_import(self, module: str, name: Optional[str] = None) -> None:
        """Schedule ``import module`` or ``from module import name`` (see :mod:`.imports`)."""
        self._imports.append((module, name))

    # -- findings -------------------------------------------------------------------------------------
    def findings_for(self, text: str) -> list[Finding]:
        if self._given is not None:  # chosen by the driver, which knows the file's fix safety
            return [f for f in self._given if f.rule in self.FIXES]
        from .. import check_text
        from ..settings import Settings

        findings = check_text(text, self.context.filename, Settings(select=frozenset(RULES)))
        return [f for f in findings if f.rule in self.FIXES and allowed(f, self.unsafe)]

    def note(self, finding: Finding, why: str) -> None:
        self.declined.append((finding, why))
        self.notes.append(f"{finding.line}:{finding.col + 1}: {finding.code} not fixed: {why}")
        self.warn(self.notes[-1])

    # -- source helpers -------------------------------------------------------------------------------
    def prepare(self, tree: cst.Module) -> tuple[str, ast.Module, Positions]:
        """The module's text, ``ast`` and positions; the driver passes the text it parsed (rendering a big
        tree again costs more than the codemod), and one text is analysed once for all the codemods."""
        text = self.source_text if self.source_text is not None else tree.code
        return (text, *_analysed(text))

    def scopes(self, module: ast.Module) -> ScopeTree:
        """The scope model of ``module`` (a tree from :meth:`prepare`), built once per text."""
        return _scopes(module)

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


_WRAPPERS: dict[int, tuple[cst.Module, MetadataWrapper]] = {}


def _wrapper(module: cst.Module) -> MetadataWrapper:
    # Without a copy: a tree parsed from text has no node twice, and libcst trees are never changed in place.
    found = _WRAPPERS.get(id(module))
    if found is None or found[0] is not module:
        if len(_WRAPPERS) >= 4:
            _WRAPPERS.clear()
        found = _WRAPPERS[id(module)] = (module, MetadataWrapper(module, unsafe_skip_copy=True))
    return found[1]


@functools.lru_cache(maxsize=4)
def _analysed(text: str) -> tuple[ast.Module, Positions]:
    return ast.parse(text), Positions.of(text)


@functools.lru_cache(maxsize=4)
def _scopes(module: ast.Module) -> ScopeTree:
    return ScopeTree(module)


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


def leading_blank_count(statement: cst.CSTNode) -> int:
    lines = getattr(statement, "leading_lines", ())
    count = 0
    for line in lines:
        if line.comment is not None:
            break
        count += 1
    return count


def respace(body: list[tuple[int, cst.BaseStatement]]) -> list[cst.BaseStatement]:
    """Top-level statements ``(original index, node)`` after some were taken out: where two become neighbours
    that were not, and one of them is a def or class, two blank lines separate them (pycodestyle E302, E305)."""
    out: list[cst.BaseStatement] = []
    previous = None
    for index, node in body:
        if out and previous is not None and index != previous + 1 and leading_blank_count(node) < 2 and (
                _is_definition(node) or _is_definition(out[-1])):
            lines = list(getattr(node, "leading_lines", ()))
            node = node.with_changes(leading_lines=[*blank_lines(2), *lines[leading_blank_count(node):]])
        out.append(node)
        previous = index
    return out


def _is_definition(node: cst.CSTNode) -> bool:
    return isinstance(node, (cst.FunctionDef, cst.ClassDef))


def wrap_params(definition: cst.FunctionDef, limit: int, step: str) -> cst.FunctionDef:
    """A top-level ``def`` whose header is longer than ``limit`` with its parameters on a continuation line
    (indented twice, as pycodestyle wants before a block), or one per line when that is still too long."""
    render = cst.Module(body=[]).code_for_node
    header = render(definition.with_changes(leading_lines=[], decorators=[])).splitlines()[0]
    if len(header) <= limit:
        return definition
    hang = step * 2
    newline = cst.ParenthesizedWhitespace(first_line=cst.TrailingWhitespace(), empty_lines=[], indent=False,
                                          last_line=cst.SimpleWhitespace(hang))
    wrapped = definition.with_changes(whitespace_before_params=newline)
    params = definition.params
    simple = not (params.posonly_params or params.kwonly_params or params.star_kwarg
                  or not isinstance(params.star_arg, cst.MaybeSentinel))
    if len(hang) + len(header) - header.index("(") <= limit or not simple or len(params.params) < 2:
        return wrapped
    each = [param.with_changes(comma=cst.Comma(whitespace_after=newline)) for param in params.params[:-1]]
    return wrapped.with_changes(params=params.with_changes(params=[*each, params.params[-1]]))


def statement_groups(tree: cst.Module, module: ast.Module) -> list[list[ast.stmt]]:
    """For each top-level libcst statement, its ast statements.  The two trees list the same statements in
    the same order; a libcst line of simple statements (``a = 1; b = 2``) is one ast statement each.  (No
    PositionProvider: computing positions renders the whole module, most of a codemod's time.)"""
    groups, at = [], 0
    for statement in tree.body:
        count = len(statement.body) if isinstance(statement, cst.SimpleStatementLine) else 1
        groups.append(module.body[at:at + count])
        at += count
    return groups


DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def definition_order(module: ast.Module) -> dict[int, int]:
    """id(def or class node) -> its index in source order, which is the order a libcst visitor enters them."""
    found = [node for node in ast.walk(module) if isinstance(node, DEFINITIONS)]
    found.sort(key=lambda node: (node.lineno, node.col_offset))
    return {id(node): index for index, node in enumerate(found)}
